// SPDX-License-Identifier: GPL-2.0
/*
 * clean_hold - print what instrument-clean-hold.py records: the longest
 * zone->lru_lock hold (interrupts off) of the clean cache pass since the
 * sysctls were last reset, in cycles, microseconds (by the "cpu MHz" of
 * /proc/cpuinfo) and pages looked at.  Run it after the scenario whose
 * holds you want; reset first with --sysctl vm/clean_hold_max_cycles:0.
 * A measurement aid, not a test: on a kernel without the probe it
 * skips (exit 4).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmshm.h"

static long read_long(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static double cpu_mhz(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];
	double mhz = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "cpu MHz", 7) &&
		    sscanf(strchr(line, ':') + 1, "%lf", &mhz) == 1)
			break;
	fclose(f);
	return mhz;
}

int main(int argc, char **argv)
{
	long cycles, pages;
	double mhz;

	vm_init("clean_hold", argc, argv, NULL,
		"clean_hold: the clean cache pass's longest lru_lock hold", 30);
	cycles = read_long("/proc/sys/vm/clean_hold_max_cycles");
	pages = read_long("/proc/sys/vm/clean_hold_max_pages");
	if (cycles < 0 || pages < 0)
		ktap_skip_all("no clean_hold probe in this kernel");
	ktap_header(1);
	mhz = cpu_mhz();
	vm_fig_i("max_hold_cycles", cycles, "cycles");
	vm_fig_i("max_hold_pages", pages, "pages");
	if (mhz > 0)
		vm_fig_f("max_hold_us", cycles / mhz, "us");
	ktap_ok("clean pass hold", "%ld cycles, %ld pages", cycles, pages);
	ktap_exit();
}
