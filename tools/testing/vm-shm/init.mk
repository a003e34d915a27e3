# SPDX-License-Identifier: GPL-2.0
# Builds the guest init (static i386, musl).  Kept apart from the scenario
# programs' Makefile; the runner (tools/vmshm) calls it as
#   make -C tools/testing/vm-shm -f init.mk O=<dir>
O ?= ../../../build/guest
I386_CC ?= i386-linux-musl-gcc
CFLAGS_INIT ?= -Os -Wall -Wextra -Werror -std=gnu11

$(O)/init: init.c init.mk
	@mkdir -p $(O)
	$(I386_CC) $(CFLAGS_INIT) -static -o $@ init.c

.PHONY: init-clean
init-clean:
	rm -f $(O)/init
