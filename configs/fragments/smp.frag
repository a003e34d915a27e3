# SMP guest (boot with -smp 2).
CONFIG_SMP=y
CONFIG_NR_CPUS=8
