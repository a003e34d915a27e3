# Common to every vm-shm guest kernel: i386 PAE box in miniature.
# Applied on top of "make defconfig" by tools/mkconfig.
CONFIG_M686=y
# CONFIG_MPENTIUMIII is not set
# CONFIG_MPENTIUM4 is not set
# CONFIG_NOHIGHMEM is not set
# CONFIG_HIGHMEM4G is not set
CONFIG_HIGHMEM64G=y
CONFIG_HIGHPTE=y
CONFIG_SWAP=y
CONFIG_SYSVIPC=y
CONFIG_TMPFS=y
CONFIG_PROC_FS=y
CONFIG_EXT2_FS=y
# CONFIG_EXT3_FS is not set
# CONFIG_JBD is not set
# CONFIG_REISERFS_FS is not set
# CONFIG_ISO9660_FS is not set
# CONFIG_AUTOFS_FS is not set
# CONFIG_AUTOFS4_FS is not set
# CONFIG_MSDOS_FS is not set
# CONFIG_VFAT_FS is not set
# CONFIG_FAT_FS is not set
CONFIG_IDE=y
CONFIG_BLK_DEV_IDE=y
CONFIG_BLK_DEV_IDEDISK=y
CONFIG_BLK_DEV_PIIX=y
# CONFIG_BLK_DEV_IDECD is not set
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_BLK_DEV_RAM=y
CONFIG_BLK_DEV_RAM_SIZE=4096
CONFIG_BLK_DEV_INITRD=y
CONFIG_KALLSYMS=y
# CONFIG_MODULES is not set
# CONFIG_PREEMPT is not set
# CONFIG_ACPI is not set
# CONFIG_APM is not set
# CONFIG_NET is not set
# CONFIG_NETFILTER is not set
# CONFIG_NETDEVICES is not set
# CONFIG_SCSI is not set
# CONFIG_USB is not set
# CONFIG_SOUND is not set
# CONFIG_DRM is not set
# CONFIG_AGP is not set
# CONFIG_FB is not set
# CONFIG_BLK_DEV_FD is not set
# CONFIG_PARPORT is not set
# CONFIG_CPU_FREQ is not set
# CONFIG_PM is not set
# CONFIG_MTRR is not set
# CONFIG_EDD is not set
# CONFIG_MICROCODE is not set
