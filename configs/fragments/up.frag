# Uniprocessor guest.
# CONFIG_SMP is not set
CONFIG_X86_UP_APIC=y
