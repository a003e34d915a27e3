// SPDX-License-Identifier: GPL-2.0
/*
 * shm_swap_storm - scenario 2: several processes map a shm segment too
 * big to stay resident while an anonymous process adds pressure.
 *
 * The segment (-s, default 0.75 * mem) is filled with self-describing
 * blocks; -P touchers walk it with a stride, each checking and rewriting
 * the blocks it owns and reading the others.  Once every toucher has made
 * one pass, a pressure process allocates and touches -a MB (default
 * 0.5 * mem, capped so that memory plus free swap can hold it).  A probe
 * sleeping 10 ms reports the longest gap between its wakeups.  Reported:
 * swap-out/in pages, faults, the longest stall, the time until the
 * pressure had all its memory, and swap-out bytes per pressure byte.
 *
 * The touchers keep the first -H percent of the segment (25) in use, the
 * rest is filled once and left idle (a database whose buffer cache is
 * mostly idle); -I paces them.  Busy part and pressure fit in memory
 * together, so the memory the pressure needs freed is well defined; it
 * is estimated when the pressure starts: its size less what is free or
 * clean cache (MemFree + Buffers + Cached, less the resident segment,
 * which Cached counts too).  A VM that writes much more of the segment
 * to swap than that - the swap storm - shows as swapout_over_needed well
 * above 1.  The pressure runs at nice -N (19): on a one-CPU guest a
 * pressure at the touchers' priority takes the CPU from them for the
 * half second it runs, and their busy part then looks idle to any VM
 * (the report's box had 8 CPUs).  -H 100 -N 0 is the load of earlier
 * revisions, busy part and pressure together more than memory: it
 * thrashes on any kernel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vmshm.h"
#include "load.h"

static const char summary[] =
	"shm_swap_storm: shm touchers plus anonymous pressure; swap traffic,\n"
	"faults and the longest stall";

static const char *const names[] = {
	"segment created and filled", "pressure satisfied",
	"touchers completed passes", "data integrity", "cleanup", NULL
};

int main(int argc, char **argv)
{
	long shm_mb = -1, nproc = 4, press_mb = -1, stride = 1, passes = 2;
	long time_s = 300, hot_pct = 25, pause_ms = 0, press_nice = 19;
	const struct vm_opt opts[] = {
		{ 's', VM_OPT_LONG, &shm_mb, "MB",
		  "shm segment size (default 0.75 * mem)" },
		{ 'P', VM_OPT_LONG, &nproc, "N",
		  "toucher processes (default 4)" },
		{ 'a', VM_OPT_LONG, &press_mb, "MB",
		  "anonymous pressure (default 0.5 * mem)" },
		{ 'S', VM_OPT_LONG, &stride, "N",
		  "touch every N-th page per pass (default 1)" },
		{ 'p', VM_OPT_LONG, &passes, "N",
		  "passes each toucher makes under pressure (default 2)" },
		{ 't', VM_OPT_LONG, &time_s, "SEC",
		  "bound of the pressure phase (default 300)" },
		{ 'H', VM_OPT_LONG, &hot_pct, "PCT",
		  "part of the segment the touchers keep using; the rest "
		  "is filled once and left idle (default 25)" },
		{ 'I', VM_OPT_LONG, &pause_ms, "MS",
		  "touchers sleep this long after each pass (default 0)" },
		{ 'N', VM_OPT_LONG, &press_nice, "INC",
		  "the pressure runs at this nice increment (default 19)" },
		{ 0, 0, NULL, NULL, NULL },
	};
	struct vm_vmstat_snap s0, s1, s2;
	struct vm_probe probe;
	struct rusage hog_ru;
	struct vm_load load;
	struct vm_hog hog;
	uint64_t shm_bytes, press_bytes;
	double t0, t_press, storm_ms, press_ms;
	long long swapout, swapin, swaptotal, needed_kb, avail_kb, shm_res_kb;
	uint32_t warm, errs;
	int hog_state = 0, ok;
	long bad;

	vm_init("shm_swap_storm", argc, argv, opts, summary, 900);
	if (shm_mb < 0)
		shm_mb = vm_cfg.mem_mb * 3 / 4;
	if (press_mb < 0)
		press_mb = vm_cfg.mem_mb / 2;
	if (nproc < 1 || nproc > VM_LOAD_MAX || passes < 1 || stride < 1 ||
	    hot_pct < 1 || hot_pct > 100 || pause_ms < 0) {
		fprintf(stderr, "shm_swap_storm: bad -P, -p, -S, -H or -I\n");
		return 1;
	}
	shm_bytes = vm_vsize_cap((uint64_t)shm_mb * VM_MB);
	press_bytes = (uint64_t)press_mb * VM_MB;

	ktap_header(5);
	ktap_names(names);
	swaptotal = vm_meminfo_kb("SwapTotal");
	vm_fig_i("mem_mb", vm_cfg.mem_mb, "MB");
	vm_fig_i("shm_mb", (long long)(shm_bytes / VM_MB), "MB");
	vm_fig_i("procs", nproc, "count");
	vm_fig_i("stride", stride, "count");
	vm_fig_i("passes", passes, "count");
	vm_fig_i("hot_pct", hot_pct, "percent");
	vm_fig_i("pause_ms", pause_ms, "ms");
	vm_fig_i("pressure_nice", press_nice, "count");
	vm_fig_i("swap_total_kb", swaptotal, "kB");
	if (swaptotal <= 0)
		ktap_diag("no swap: the segment cannot be swapped, expect "
			  "little swap-out");

	vm_phase("create and fill segment");
	if (vm_load_create(&load, shm_bytes, 0x5302) != 0) {
		ktap_fail(names[0], "cannot create the segment");
		ktap_skip(names[1], "no segment");
		ktap_skip(names[2], "no segment");
		ktap_skip(names[3], "no segment");
		ktap_skip(names[4], "no segment");
		ktap_exit();
	}
	vm_fig_f("fill_s", load.fill_ms / 1000, "s");
	ktap_ok(names[0], NULL);

	vm_vmstat_snap(&s0);
	if (vm_probe_start(&probe, 10) != 0)
		ktap_diag("no latency probe");
	vm_phase("touchers: first pass");
	t0 = vm_now_ms();
	load.nhot = load.nblk * hot_pct / 100;
	if (!load.nhot)
		load.nhot = 1;	/* 0 would mean the whole segment */
	load.pause_ms = pause_ms;
	if (vm_load_start(&load, (int)nproc, (int)stride) != 0)
		ktap_diag("not all touchers started");
	while (vm_load_min_passes(&load) < 1 && !vm_load_check_dead(&load) &&
	       vm_now_ms() - t0 < time_s * 1000.0) {
		vm_progress("first pass: %llu blocks touched",
			    (unsigned long long)vm_load_blocks_touched(&load));
		vm_sleep_ms(20);
	}
	warm = vm_load_min_passes(&load);
	vm_fig_f("first_pass_s", (vm_now_ms() - t0) / 1000, "s");
	vm_fig_f("first_pass_stall_ms", vm_probe_max_ms(&probe), "ms");

	press_bytes = vm_cap_pressure(press_bytes, shm_bytes);
	vm_fig_i("pressure_mb", (long long)(press_bytes / VM_MB), "MB");

	vm_phase("pressure");
	vm_probe_reset(&probe);
	vm_vmstat_snap(&s1);
	/* see the top of the file; swap-outs so far left the segment */
	shm_res_kb = (long long)(shm_bytes / 1024) -
		     vm_vmstat_delta(&s0, &s1, VMS_PSWPOUT) * vm_pagesize / 1024;
	avail_kb = vm_meminfo_kb("Cached") - shm_res_kb;
	if (avail_kb < 0)
		avail_kb = 0;
	avail_kb += vm_meminfo_kb("MemFree") + vm_meminfo_kb("Buffers");
	needed_kb = (long long)(press_bytes / 1024) - avail_kb;
	if (needed_kb < 0)
		needed_kb = 0;
	t_press = vm_now_ms();
	memset(&hog_ru, 0, sizeof(hog_ru));
	if (press_bytes &&
	    vm_hog_start_nice(&hog, press_bytes, (int)press_nice) != 0) {
		hog_state = -1;
		press_bytes = 0;
	}
	for (;;) {
		struct vm_vmstat_snap s;

		if (press_bytes)
			hog_state = vm_hog_done(&hog);
		else if (!hog_state)
			hog_state = 1;
		if (hog_state && vm_load_min_passes(&load) >= warm + passes)
			break;
		if (vm_load_check_dead(&load))
			break;
		if (vm_now_ms() - t_press > time_s * 1000.0) {
			ktap_diag("pressure phase hit the %ld s bound", time_s);
			break;
		}
		vm_vmstat_snap(&s);
		vm_progress("pressure %llu of %llu MB, min passes %u, "
			    "swap-out %lld pages, stall %.0f ms",
			    press_bytes ? (unsigned long long)
			    (vm_hog_touched(&hog) / VM_MB) : 0ULL,
			    (unsigned long long)(press_bytes / VM_MB),
			    vm_load_min_passes(&load) - warm,
			    vm_vmstat_delta(&s1, &s, VMS_PSWPOUT),
			    vm_probe_max_ms(&probe));
		vm_sleep_ms(50);
	}
	storm_ms = vm_now_ms() - t_press;
	press_ms = press_bytes ? vm_hog_done_ms(&hog) :
		   (hog_state == 1 ? 0 : -1);
	vm_vmstat_snap(&s2);

	vm_phase("stop");
	vm_load_stop(&load, 60000);
	if (press_bytes)
		vm_hog_stop(&hog, &hog_ru);
	vm_probe_stop(&probe);

	swapout = vm_vmstat_delta(&s1, &s2, VMS_PSWPOUT);
	swapin = vm_vmstat_delta(&s1, &s2, VMS_PSWPIN);
	vm_fig_i("fill_swapout_pages", vm_vmstat_delta(&s0, &s1, VMS_PSWPOUT),
		 "pages");
	vm_fig_i("pswpout", swapout, "pages");
	vm_fig_i("pswpin", swapin, "pages");
	vm_fig_i("pgmajfault", vm_vmstat_delta(&s1, &s2, VMS_PGMAJFAULT),
		 "count");
	vm_fig_i("pgpgin", vm_vmstat_delta(&s1, &s2, VMS_PGPGIN), "kB");
	vm_fig_i("pgpgout", vm_vmstat_delta(&s1, &s2, VMS_PGPGOUT), "kB");
	vm_fig_i("toucher_minflt", load.ru.ru_minflt, "count");
	vm_fig_i("toucher_majflt", load.ru.ru_majflt, "count");
	vm_fig_i("pressure_minflt", hog_ru.ru_minflt, "count");
	vm_fig_i("pressure_majflt", hog_ru.ru_majflt, "count");
	vm_fig_f("probe_max_ms", vm_probe_max_ms(&probe), "ms");
	vm_fig_i("probe_samples", vm_probe_samples(&probe), "count");
	vm_fig_f("pressure_ms", press_ms, "ms");
	vm_fig_f("storm_s", storm_ms / 1000, "s");
	vm_fig_i("min_passes", vm_load_min_passes(&load) - warm, "count");
	vm_fig_i("blocks_touched", (long long)vm_load_blocks_touched(&load),
		 "count");
	vm_fig_f("swapout_per_pressure",
		 press_bytes && swapout >= 0 ?
		 (double)swapout * vm_pagesize / press_bytes : 0, "ratio");
	vm_fig_i("avail_at_pressure_kb", avail_kb, "kB");
	vm_fig_i("needed_kb", needed_kb, "kB");
	vm_fig_f("swapout_over_needed", needed_kb > 0 && swapout >= 0 ?
		 (double)swapout * vm_pagesize / 1024 / needed_kb : 0,
		 "ratio");

	if (hog_state == 1)
		ktap_ok(names[1], "%llu MB touched in %.0f ms",
			(unsigned long long)(press_bytes / VM_MB), press_ms);
	else
		ktap_fail(names[1], "pressure %s",
			  hog_state < 0 ? "failed" : "not satisfied in time");

	ok = vm_load_min_passes(&load) >= warm + passes && !load.died;
	ktap_result(ok, names[2], ok ? NULL :
		    "touchers made %u of %ld passes, %d ended early",
		    vm_load_min_passes(&load) - warm, passes, load.died);

	vm_phase("verify");
	errs = vm_load_errors(&load);
	vm_load_report_errors(&load, "shm");
	bad = vm_load_verify(&load, "shm");
	vm_fig_i("bad_blocks", (long long)errs + bad, "count");
	ktap_result(!errs && !bad, names[3], NULL);

	vm_phase("cleanup");
	vm_load_destroy(&load);
	ok = vm_nchildren() == 0;
	vm_kill_all();
	ktap_result(ok, names[4], ok ? NULL : "children left behind");
	ktap_exit();
}
