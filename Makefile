# SPDX-License-Identifier: GPL-2.0
#
# vm-shm: the single entry point.  "make help" lists the targets.
#
# Everything is built under build/ (ignored by git); the base tree is never
# modified: it is imported into build/src/<variant>/ as a git branch.

LINUX   ?=
MEM     ?= 256
CPUS    ?= 2
CONFIG  ?= up
CONFIGS ?= up smp debug
ACCEL   ?= auto
ARGS    ?=

# make test: the harness on Debian's own kernel, at a small scale.
DEBIAN_KERNEL ?= $(lastword $(sort $(wildcard /boot/vmlinuz-*)))
TEST_MEM      ?= 256
TEST_SCALE    ?= 64
NATIVE_MEM    ?= 64
TEST_STEPS    ?= lint unit testcases native boot-debian objrmap
TEST_SOAK_S   ?= 60

# make soak: the soak scenario on one kernel of the series.
VARIANT ?= patched
SOAK_S  ?= 1800
SOAK_ARGS ?=
SOAK_CPUS = $(if $(filter up,$(CONFIG)),1,$(CPUS))

VMSHM := python3 tools/vmshm
comma := ,
empty :=
space := $(empty) $(empty)

.PHONY: help deps vanilla patched soak faults export compare test lint unit testcases native boot-debian table readme-table clean objrmap

help:
	@echo 'vm-shm: Linux 2.6.3 VM patchset and its QEMU test harness'
	@echo
	@echo 'With a 2.6.3 tree (a directory or linux-2.6.3.tar.bz2):'
	@echo '  make LINUX=<tree> vanilla   toolchain patches only: build $(CONFIGS), boot each, run the suite'
	@echo '  make LINUX=<tree> patched   the whole series, the same way'
	@echo '  make LINUX=<tree> soak      the soak for SOAK_S=$(SOAK_S) s on VARIANT=$(VARIANT) CONFIG=$(CONFIG)'
	@echo '  make LINUX=<tree> faults    limits, full and no swap, swapoff under the soak, swap disk errors: VARIANT, CONFIG'
	@echo '  make compare                latest vanilla vs patched run of CONFIG=$(CONFIG), MEM=$(MEM), no icount/sysctls/args: figures + PNGs'
	@echo '  make LINUX=<tree> export    quilt tarball, git bundle, mboxes under build/export/, checked to agree'
	@echo
	@echo 'Without one:'
	@echo '  make deps                   install the Debian packages the project needs (tools/deps)'
	@echo '  make test                   $(TEST_STEPS)'
	@echo '  make lint                   check patches/series, every patch it lists, configs/ against their fragments'
	@echo '  make unit                   unit tests of tools/vmshm (tools/tests/test_*.py)'
	@echo '  make testcases              build the scenario programs (static i386 and native)'
	@echo '  make native                 run the scenarios on this machine at -m $(NATIVE_MEM)'
	@echo '  make boot-debian            boot Debian'"'"'s kernel in QEMU with the guest init and the scenarios'
	@echo '  make table                  print the markdown table of results/*.json'
	@echo '  make readme-table           regenerate README.md'"'"'s results table and the tables of docs/results.md'
	@echo
	@echo 'Variables: LINUX=$(LINUX) MEM=$(MEM) (guest MB) CPUS=$(CPUS) (for SMP configs)'
	@echo '  CONFIG=$(CONFIG) CONFIGS="$(CONFIGS)" ACCEL=$(ACCEL) (auto|kvm|tcg) ARGS= (extra options of tools/vmshm run)'
	@echo 'Finer control: tools/vmshm -h'

deps:
	tools/deps

testcases:
	$(MAKE) -C tools/testing/vm-shm
	$(MAKE) -C tools/testing/vm-shm native

vanilla patched: testcases
	@test -n "$(LINUX)" || { echo 'make $@: say where the 2.6.3 tree is: make LINUX=<dir or linux-2.6.3.tar.bz2> $@'; exit 2; }
	$(VMSHM) suite --linux $(LINUX) --variant $@ --configs $(subst $(space),$(comma),$(strip $(CONFIGS))) \
		--mem $(MEM) --cpus $(CPUS) --accel $(ACCEL) $(ARGS)

# Swap of twice memory (the runner's default) and a quiet timeout the
# soak's progress lines (every 10 s) stay well inside.
soak: testcases
	@test -n "$(LINUX)" || { echo 'make $@: say where the 2.6.3 tree is: make LINUX=<dir or linux-2.6.3.tar.bz2> $@'; exit 2; }
	$(VMSHM) prepare --linux $(LINUX) --variant $(VARIANT)
	$(VMSHM) build --variant $(VARIANT) --config $(CONFIG)
	$(VMSHM) run --variant $(VARIANT) --config $(CONFIG) --cpus $(SOAK_CPUS) --mem $(MEM) \
		--accel $(ACCEL) --scenarios soak --args "soak=-t $(SOAK_S) $(SOAK_ARGS)" \
		--timeout $$(($(SOAK_S) + 3600)) --quiet-timeout 300 --label soak-$(VARIANT)-$(CONFIG) $(ARGS)

# The fault and limit cases of issue 14 on one kernel, one run each (see
# tools/testing/vm-shm/README.md, limits and soak).  quiet on the swap
# error runs: 2.6.3's IDE driver prints each retry and the serial line
# would be what is measured.
FAULT_RUN = $(VMSHM) run --variant $(VARIANT) --config $(CONFIG) --cpus $(SOAK_CPUS) --mem $(MEM) \
	--accel $(ACCEL) --timeout 2400 --quiet-timeout 300 $(ARGS)
faults: testcases
	@test -n "$(LINUX)" || { echo 'make $@: say where the 2.6.3 tree is: make LINUX=<dir or linux-2.6.3.tar.bz2> $@'; exit 2; }
	$(VMSHM) prepare --linux $(LINUX) --variant $(VARIANT)
	$(VMSHM) build --variant $(VARIANT) --config $(CONFIG)
	-$(FAULT_RUN) --label limits-$(VARIANT)-$(CONFIG) --data 64 --scenarios limits
	-$(FAULT_RUN) --label swap32-$(VARIANT)-$(CONFIG) --data 64 --swap 32 --scenarios limits --args 'limits=-c anon_fill:disk_mmap'
	-$(FAULT_RUN) --label noswap-$(VARIANT)-$(CONFIG) --data 64 --swap 0 --scenarios limits --args 'limits=-c anon_fill:disk_mmap'
	-$(FAULT_RUN) --label swapoff-$(VARIANT)-$(CONFIG) --scenarios soak --args 'soak=-t 300 -W 15'
	-$(FAULT_RUN) --label oom-locked-$(VARIANT)-$(CONFIG) --scenarios oom_locked
	-$(FAULT_RUN) --label trfault-$(VARIANT)-$(CONFIG) --scenarios truncate_fault
	-$(FAULT_RUN) --label index-churn-$(VARIANT)-$(CONFIG) --scenarios index_churn
	-$(FAULT_RUN) --label remap-edges-$(VARIANT)-$(CONFIG) --scenarios remap_edges
	for f in none write read; do \
		$(FAULT_RUN) --label swaperr-$$f-$(VARIANT)-$(CONFIG) --swap-fault $$f --append quiet \
			--timeout 900 --scenarios soak --args 'soak=-t 180'; \
	done; true

export:
	@test -n "$(LINUX)" || { echo 'make $@: say where the 2.6.3 tree is: make LINUX=<dir or linux-2.6.3.tar.bz2> $@'; exit 2; }
	tools/export-series $(LINUX)

compare:
	$(VMSHM) compare variant=vanilla,config=$(CONFIG),mem=$(MEM) variant=patched,config=$(CONFIG),mem=$(MEM)

lint:
	$(VMSHM) lint

unit:
	python3 tools/tests/run_tests.py

native: testcases
	$(VMSHM) native --mem $(NATIVE_MEM) --scenarios all,soak --args 'soak=-t $(TEST_SOAK_S)'

boot-debian: testcases
	@test -n "$(DEBIAN_KERNEL)" || { echo 'make $@: no /boot/vmlinuz-*: run tools/deps (it installs linux-image-amd64)'; exit 2; }
	$(VMSHM) run --kernel $(DEBIAN_KERNEL) --mem $(TEST_MEM) --scale $(TEST_SCALE) --accel $(ACCEL) \
		--timeout 900 --quiet-timeout 180 --label debian \
		--scenarios all,soak --args 'soak=-t $(TEST_SOAK_S)' $(ARGS)

# Every step runs even if an earlier one failed; the last line counts them.
test:
	@pass=0; fail=0; failed=; \
	for step in $(TEST_STEPS); do \
		echo "=== make $$step"; \
		if $(MAKE) --no-print-directory $$step; then pass=$$((pass + 1)); \
		else fail=$$((fail + 1)); failed="$$failed $$step"; fi; \
	done; \
	[ -z "$$failed" ] || echo "failed steps:$$failed"; \
	echo "test: $$pass passed, $$fail failed"; \
	[ $$fail -eq 0 ]

# The figures the long table of docs/results.md shows (all of them: make table TABLE_FIGURES=.)
TABLE_FIGURES ?= ^(syscall_regs\.failed|pte_chain_capacity\.(children|pte_chain_bytes_per_child|lowfree_kb_per_child|fork_ms|cleanup_ms)|shm_swap_storm\.(hot_pct|pswpout|swapout_per_pressure|swapout_over_needed|probe_max_ms|bad_blocks)|copy_during_swap\.(unloaded_MBps|loaded_MBps|loaded_over_unloaded|loaded_over_unloaded_min|tail_loaded_over_unloaded|swapout_per_read|swapout_per_read_max)|many_vmas\.(one_touch_s|one_probe_max_ms|shared_touch_s|shared_probe_max_ms|truncate_tail_us|truncate_half_us|bad_blocks)|fork_exit_rate\.(shm_mb|exit_per_s|touch_per_s|pool_per_s|pool_over_exit)|integrity\.(nonlinear_resident_after_hog|verify_pswpin)|vm_tunables\.cache_scan_ratio)$$

table:
	$(VMSHM) table --match '$(TABLE_FIGURES)'

# README.md's table (tools/lib/python/vmshm/headline.py has its rows), the
# runs behind it and the long table in docs/results.md
readme-table:
	$(VMSHM) headline --update README.md
	$(VMSHM) headline --runs --update docs/results.md
	$(VMSHM) table --match '$(TABLE_FIGURES)' --update docs/results.md

objrmap:	# mm/objrmap.c in userspace: unit, stress, ASan/UBSan, TSan
	$(MAKE) -C tools/testing/objrmap test

clean:
	rm -rf build/guest build/vm-shm build/results build/compare
