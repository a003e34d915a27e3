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
 * swapcache_max_kb is the largest SwapCached seen while the pressure
 * runs (sampled every 50 ms): 2.6.3's shmem_writepage() only moves a
 * page into the swap cache, where it waits unwritten for reclaim's next
 * pass, so there the figure grows with the shm that reclaim queued.  It
 * also counts pages under I/O, written pages not yet freed, anonymous
 * swap cache and swap readahead, so it bounds that backlog from above
 * and does not measure it: userspace cannot see which swap cache pages
 * are still unwritten.
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
 *
 * A 32-bit process maps at most vm_vsize_cap() (1.5 GB) at once, so on a
 * large guest a segment of most of memory is several: -s beyond the cap
 * is split into equal segments.  The program creates, touches and checks
 * the first itself, as with one; each other one has a group leader, a
 * child that creates, fills, touches (with its own -P touchers) and
 * checks its segment and reports through a shared page.  The figures add
 * the groups up; passes are the least of all touchers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "vmshm.h"
#include "load.h"

static const char summary[] =
	"shm_swap_storm: shm touchers plus anonymous pressure; swap traffic,\n"
	"faults and the longest stall";

static const char *const names[] = {
	"segment created and filled", "pressure satisfied",
	"touchers completed passes", "data integrity", "cleanup", NULL
};

/* what a group leader reports; see the top of the file */
struct grp {
	volatile int ready;	/* 1 filled, -1 failed */
	volatile int go;	/* start the touchers */
	volatile int stop;
	volatile int done;	/* touchers stopped, segment checked */
	volatile uint32_t passes, errors, died;
	volatile uint64_t blocks;
	volatile long bad;
	volatile long minflt, majflt;
};

static struct grp *grp;
static pid_t *grp_pid;		/* -1 once reaped */
static int ngrp;		/* groups beside the program's own segment */

static void grp_leader(struct grp *g, uint64_t bytes, uint32_t seed,
		       int nproc, int stride, long hot_pct, long pause_ms)
{
	struct vm_load l;

	if (vm_load_create(&l, bytes, seed) != 0) {
		g->ready = -1;
		_exit(1);
	}
	l.nhot = l.nblk * hot_pct / 100;
	if (!l.nhot)
		l.nhot = 1;
	l.pause_ms = pause_ms;
	g->ready = 1;
	while (!g->go && !g->stop)
		vm_sleep_ms(10);
	if (!g->stop && vm_load_start(&l, nproc, stride) != 0)
		l.died++;	/* passes stay 0: the test fails */
	while (!g->stop) {
		g->passes = vm_load_min_passes(&l);
		g->blocks = vm_load_blocks_touched(&l);
		g->errors = vm_load_errors(&l);
		g->died = vm_load_check_dead(&l);
		vm_sleep_ms(20);
	}
	vm_load_stop(&l, 60000);
	g->errors = vm_load_errors(&l);
	g->died = l.died;
	g->blocks = vm_load_blocks_touched(&l);
	g->minflt = l.ru.ru_minflt;
	g->majflt = l.ru.ru_majflt;
	vm_load_report_errors(&l, "shm group");
	g->bad = vm_load_verify(&l, "shm group");
	vm_load_destroy(&l);
	g->done = 1;
	_exit(0);
}

/*
 * Fork the leaders; they fill their segments while the program fills its
 * own.  Forked first, so that they do not inherit the program's segment:
 * two would not fit in a 32-bit address space.  0 or -1.
 */
static int grp_create(uint64_t bytes, int nproc, int stride, long hot_pct,
		      long pause_ms)
{
	int i;
	pid_t pid;

	if (!ngrp)
		return 0;
	grp = mmap(NULL, ngrp * sizeof(*grp), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	grp_pid = calloc(ngrp, sizeof(*grp_pid));
	if (grp == MAP_FAILED || !grp_pid) {
		ngrp = 0;
		return -1;
	}
	for (i = 0; i < ngrp; i++) {
		pid = vm_fork();
		grp_pid[i] = pid;
		if (pid < 0) {
			ngrp = i;
			return -1;
		}
		if (pid == 0)
			grp_leader(&grp[i], bytes, 0x5302 + 1 + i, nproc,
				   stride, hot_pct, pause_ms);
	}
	return 0;
}

/* wait until every group's segment is filled; 0 or -1 */
static int grp_wait_ready(double bound_ms)
{
	double t0 = vm_now_ms();
	int i, ready;

	do {
		for (i = 0, ready = 0; i < ngrp; i++) {
			int st;

			if (grp[i].ready < 0)
				return -1;
			if (!grp[i].ready &&
			    waitpid(grp_pid[i], &st, WNOHANG) == grp_pid[i]) {
				ktap_diag("shm group %d: leader ended while "
					  "filling (status 0x%x)", i + 1, st);
				vm_forget_child(grp_pid[i]);
				grp_pid[i] = -1;
				return -1;
			}
			ready += grp[i].ready;
		}
		if (ready < ngrp) {
			vm_progress("segments filled: %d of %d", ready + 1,
				    ngrp + 1);
			vm_sleep_ms(50);
		}
	} while (ready < ngrp && vm_now_ms() - t0 < bound_ms);
	return ready == ngrp ? 0 : -1;
}

static void grp_go(void)
{
	int i;

	for (i = 0; i < ngrp; i++)
		grp[i].go = 1;
}

static uint32_t min_passes(struct vm_load *l)
{
	uint32_t m = vm_load_min_passes(l);
	int i;

	for (i = 0; i < ngrp; i++)
		if (grp[i].passes < m)
			m = grp[i].passes;
	return m;
}

/* touchers, or group leaders, that ended early */
static int check_dead(struct vm_load *l)
{
	int i, st, d = vm_load_check_dead(l);

	for (i = 0; i < ngrp; i++) {
		d += grp[i].died;
		if (grp_pid[i] > 0 &&
		    waitpid(grp_pid[i], &st, WNOHANG) == grp_pid[i]) {
			ktap_diag("shm group %d: leader ended early (status "
				  "0x%x)", i + 1, st);
			vm_forget_child(grp_pid[i]);
			grp_pid[i] = -1;
		}
		if (grp_pid[i] < 0 && !grp[i].done)
			d++;
	}
	return d;
}

static uint64_t blocks_touched(struct vm_load *l)
{
	uint64_t b = vm_load_blocks_touched(l);
	int i;

	for (i = 0; i < ngrp; i++)
		b += grp[i].blocks;
	return b;
}

static void grp_stop(void)
{
	int i;

	for (i = 0; i < ngrp; i++)
		grp[i].stop = 1;
}

/* wait for every group's check; adds their results to ours */
static void grp_collect(struct rusage *ru, uint32_t *errs, long *bad,
			int *died)
{
	double end = vm_now_ms() + 300000, left;
	int i, st;

	for (i = 0; i < ngrp; i++) {
		left = end - vm_now_ms();
		if (grp_pid[i] > 0 &&
		    vm_wait_timeout(grp_pid[i], &st, NULL,
				    left > 0 ? left : 0) != 0)
			vm_kill_group(grp_pid[i], 0, "shm group leader");
		grp_pid[i] = -1;
		if (!grp[i].done) {
			ktap_diag("shm group %d: no check of its segment",
				  i + 1);
			(*died)++;
			continue;
		}
		*errs += grp[i].errors;
		*bad += grp[i].bad;
		*died += grp[i].died;
		ru->ru_minflt += grp[i].minflt;
		ru->ru_majflt += grp[i].majflt;
	}
}

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
	uint64_t shm_bytes, press_bytes, seg_bytes;
	double t0, t_press, storm_ms, press_ms;
	long long swapout, swapin, swaptotal, needed_kb, avail_kb, shm_res_kb;
	long long swapcache_kb, swapcache_max_kb = -1;
	uint32_t warm, errs;
	int hog_state = 0, ok, died;
	long bad;

	vm_init("shm_swap_storm", argc, argv, opts, summary, 900);
	if (shm_mb < 0)
		shm_mb = vm_cfg.mem_mb * 3 / 4;
	if (press_mb < 0)
		press_mb = vm_cfg.mem_mb / 2;
	if (nproc < 1 || nproc > VM_LOAD_MAX || passes < 1 || stride < 1 ||
	    hot_pct < 1 || hot_pct > 100 || pause_ms < 0 || shm_mb < 1 ||
	    press_mb < 0) {
		fprintf(stderr, "shm_swap_storm: bad -s, -a, -P, -p, -S, -H or "
			"-I\n");
		return 1;
	}
	shm_bytes = (uint64_t)shm_mb * VM_MB;
	seg_bytes = vm_vsize_cap(shm_bytes);
	ngrp = (int)((shm_bytes + seg_bytes - 1) / seg_bytes) - 1;
	seg_bytes = shm_bytes / (ngrp + 1) / VM_BLK * VM_BLK;
	shm_bytes = seg_bytes * (ngrp + 1);
	press_bytes = (uint64_t)press_mb * VM_MB;

	ktap_header(5);
	ktap_names(names);
	swaptotal = vm_meminfo_kb("SwapTotal");
	vm_fig_i("mem_mb", vm_cfg.mem_mb, "MB");
	vm_fig_i("shm_mb", (long long)(shm_bytes / VM_MB), "MB");
	vm_fig_i("segments", ngrp + 1, "count");
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

	memset(&hog, 0, sizeof(hog));
	/*
	 * The probe and the pressure's workers are forked before any
	 * segment exists: forked later they would map it, and on 2.6.3 pay
	 * a pte_chain entry per page of it, which is not the load.
	 */
	if (vm_probe_start(&probe, 10) != 0)
		ktap_diag("no latency probe");
	if (press_bytes &&
	    vm_hog_prepare(&hog, press_bytes, (int)press_nice) != 0) {
		hog_state = -1;
		press_bytes = 0;
	}

	vm_phase("create and fill segment");
	t0 = vm_now_ms();
	if (grp_create(seg_bytes, (int)nproc, (int)stride, hot_pct,
		       pause_ms) != 0 ||
	    vm_load_create(&load, seg_bytes, 0x5302) != 0 ||
	    grp_wait_ready(time_s * 1000.0) != 0) {
		ktap_fail(names[0], "cannot create the segment");
		ktap_skip(names[1], "no segment");
		ktap_skip(names[2], "no segment");
		ktap_skip(names[3], "no segment");
		ktap_skip(names[4], "no segment");
		ktap_exit();
	}
	vm_fig_f("fill_s", (vm_now_ms() - t0) / 1000, "s");
	ktap_ok(names[0], NULL);

	vm_vmstat_snap(&s0);
	vm_probe_reset(&probe);
	vm_phase("touchers: first pass");
	t0 = vm_now_ms();
	load.nhot = load.nblk * hot_pct / 100;
	if (!load.nhot)
		load.nhot = 1;	/* 0 would mean the whole segment */
	load.pause_ms = pause_ms;
	if (vm_load_start(&load, (int)nproc, (int)stride) != 0)
		ktap_diag("not all touchers started");
	grp_go();
	while (min_passes(&load) < 1 && !check_dead(&load) &&
	       vm_now_ms() - t0 < time_s * 1000.0) {
		vm_progress("first pass: %llu blocks touched",
			    (unsigned long long)blocks_touched(&load));
		vm_sleep_ms(20);
	}
	warm = min_passes(&load);
	vm_fig_f("first_pass_s", (vm_now_ms() - t0) / 1000, "s");
	vm_fig_f("first_pass_stall_ms", vm_probe_max_ms(&probe), "ms");

	if (press_bytes)
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
	if (press_bytes)
		vm_hog_go(&hog, press_bytes);
	for (;;) {
		struct vm_vmstat_snap s;

		if (press_bytes)
			hog_state = vm_hog_done(&hog);
		else if (!hog_state)
			hog_state = 1;
		if (hog_state && min_passes(&load) >= warm + passes)
			break;
		if (check_dead(&load))
			break;
		if (vm_now_ms() - t_press > time_s * 1000.0) {
			ktap_diag("pressure phase hit the %ld s bound", time_s);
			break;
		}
		vm_vmstat_snap(&s);
		swapcache_kb = vm_meminfo_kb("SwapCached");
		if (swapcache_kb > swapcache_max_kb)
			swapcache_max_kb = swapcache_kb;
		vm_progress("pressure %llu of %llu MB, min passes %u, "
			    "swap-out %lld pages, stall %.0f ms",
			    press_bytes ? (unsigned long long)
			    (vm_hog_touched(&hog) / VM_MB) : 0ULL,
			    (unsigned long long)(press_bytes / VM_MB),
			    min_passes(&load) - warm,
			    vm_vmstat_delta(&s1, &s, VMS_PSWPOUT),
			    vm_probe_max_ms(&probe));
		vm_sleep_ms(50);
	}
	storm_ms = vm_now_ms() - t_press;
	press_ms = press_bytes ? vm_hog_done_ms(&hog) :
		   (hog_state == 1 ? 0 : -1);
	vm_vmstat_snap(&s2);

	vm_phase("stop");
	warm = min_passes(&load) - warm;	/* passes under pressure */
	grp_stop();
	vm_load_stop(&load, 60000);
	if (hog.sh)
		vm_hog_stop(&hog, &hog_ru);	/* started or only prepared */
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
	vm_fig_i("pressure_minflt", hog_ru.ru_minflt, "count");
	vm_fig_i("pressure_majflt", hog_ru.ru_majflt, "count");
	vm_fig_f("probe_max_ms", vm_probe_max_ms(&probe), "ms");
	vm_fig_i("probe_samples", vm_probe_samples(&probe), "count");
	vm_fig_f("pressure_ms", press_ms, "ms");
	vm_fig_f("storm_s", storm_ms / 1000, "s");
	vm_fig_i("min_passes", warm, "count");
	vm_fig_i("blocks_touched", (long long)blocks_touched(&load),
		 "count");
	vm_fig_f("swapout_per_pressure",
		 press_bytes && swapout >= 0 ?
		 (double)swapout * vm_pagesize / press_bytes : 0, "ratio");
	vm_fig_i("swapcache_max_kb", swapcache_max_kb, "kB");
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

	vm_phase("verify");
	errs = vm_load_errors(&load);
	vm_load_report_errors(&load, "shm");
	bad = vm_load_verify(&load, "shm");
	died = load.died;
	grp_collect(&load.ru, &errs, &bad, &died);
	vm_fig_i("toucher_minflt", load.ru.ru_minflt, "count");
	vm_fig_i("toucher_majflt", load.ru.ru_majflt, "count");

	ok = (long)warm >= passes && !died;
	ktap_result(ok, names[2], ok ? NULL :
		    "touchers made %u of %ld passes, %d ended early",
		    warm, passes, died);

	vm_fig_i("bad_blocks", (long long)errs + bad, "count");
	ktap_result(!errs && !bad, names[3], NULL);

	vm_phase("cleanup");
	vm_load_destroy(&load);
	ok = vm_nchildren() == 0;
	vm_kill_all();
	ktap_result(ok, names[4], ok ? NULL : "children left behind");
	ktap_exit();
}
