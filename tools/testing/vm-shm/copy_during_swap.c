// SPDX-License-Identifier: GPL-2.0
/*
 * copy_during_swap - scenario 3: a sequential read of a large file, first
 * on a quiet machine, then while a database-like load runs: a SysV shm
 * segment of 0.85 * mem, a quarter of it kept in use by -P processes that
 * touch it once a second, the rest filled once and left idle.  It fits in
 * memory, but with more than 80% of memory mapped 2.6.3 reclaims mapped
 * pages as readily as cache: the copy pushes the idle shm out to swap
 * instead of dropping its own clean, used-once pages (the third problem
 * of the 2.4-aa big-iron report).  The touchers write one word of each
 * page they use (-V: check and rewrite whole blocks, which on a one-CPU
 * emulated guest takes a fifth of the CPU from the read on any kernel).
 * The old load of scenario 2, touchers walking a segment plus anonymous
 * pressure that together exceed memory, is -S 0.75*mem -a 0.5*mem -H 100
 * -I 0 -V.
 *
 * The file (-s MB, default 2 * mem) is created in -d DIR unless -f names
 * an existing one; it is dropped from the page cache (fsync + fadvise
 * DONTNEED) before each read.  Reported: MB/s unloaded (median of -r
 * reads) and loaded, their ratio, swap-out bytes during the loaded read
 * and per byte read, and the CPU share the touchers used meanwhile.  The
 * tail figures time only the part of each read past the first mem bytes,
 * where both reads reclaim in steady state: the whole-read ratio also
 * holds the loaded read's start, where reclaim meets the segment that was
 * just created.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "vmshm.h"
#include "load.h"
#include "seqread.h"

static const char summary[] =
	"copy_during_swap: sequential file read, unloaded and under the\n"
	"shm swap load; MB/s and swap-out during the read";

static const char *const names[] = {
	"file ready", "unloaded read", "loaded read", "shm data integrity",
	"cleanup", NULL
};

int main(int argc, char **argv)
{
	long file_mb = -1, shm_mb = -1, nproc = 4, press_mb = -1, time_s = 300;
	long hot_pct = 25, pause_ms = 1000, nround = 5;
	const char *file = NULL;
	char *rbuf;
	int keep = 0, full_check = 0;
	const struct vm_opt opts[] = {
		{ 's', VM_OPT_LONG, &file_mb, "MB",
		  "file size to create (default 2 * mem)" },
		{ 'f', VM_OPT_STR, &file, "FILE",
		  "read this existing file instead (kept)" },
		{ 'k', VM_OPT_FLAG, &keep, "", "keep the created file" },
		{ 'r', VM_OPT_LONG, &nround, "N",
		  "rounds (unloaded read, load, loaded read); medians are "
		  "reported (default 5)" },
		{ 'S', VM_OPT_LONG, &shm_mb, "MB",
		  "shm segment of the load (default 0.85 * mem)" },
		{ 'P', VM_OPT_LONG, &nproc, "N",
		  "shm toucher processes (default 4)" },
		{ 'H', VM_OPT_LONG, &hot_pct, "PCT",
		  "part of the segment the touchers keep using; the rest "
		  "is filled once and left idle (default 25)" },
		{ 'I', VM_OPT_LONG, &pause_ms, "MS",
		  "touchers sleep this long after each pass (default 1000; "
		  "0: they never stop)" },
		{ 'V', VM_OPT_FLAG, &full_check, "",
		  "touchers check and rewrite every block they own on each "
		  "pass (default: one word; see load.c)" },
		{ 'a', VM_OPT_LONG, &press_mb, "MB",
		  "anonymous pressure (default 0)" },
		{ 't', VM_OPT_LONG, &time_s, "SEC",
		  "bound of the loaded read and of the load setup "
		  "(default 300)" },
		{ 0, 0, NULL, NULL, NULL },
	};
	char path[512];
	struct vm_vmstat_snap s0, s1, s2, s3;
	struct vm_probe probe;
	struct vm_load load;
	struct vm_hog hog;
	struct vm_rd quiet, busy;
	double q[15], l[15], ratio[15], so[15], cpu[15], lo, hi;
	double qt[15], lt[15], tratio[15];
	double t0, cpu0, cpu1, probe_max = 0;
	long r, done;
	uint64_t size, shm_bytes, press_bytes = 0, tail_from;
	long long swapout, swapout_quiet = 0, swapout_busy = 0, swapin_busy = 0;
	long long majflt = 0;
	int fd = -1, created = 0, verify, load_ok = 0, hog_on = 0, ok;
	int quiet_ok = 1, busy_ok = 1, shm_ok = 1;
	struct stat st;
	long bad;

	vm_init("copy_during_swap", argc, argv, opts, summary, 1500);
	if (file_mb < 0)
		file_mb = vm_cfg.mem_mb * 2;
	if (shm_mb < 0)
		shm_mb = vm_cfg.mem_mb * 85 / 100;
	if (press_mb < 0)
		press_mb = 0;
	if (nproc < 1 || nproc > VM_LOAD_MAX || hot_pct < 1 ||
	    hot_pct > 100 || pause_ms < 0 || nround < 1 || nround > 15) {
		fprintf(stderr, "copy_during_swap: bad -P, -H, -I or -r\n");
		return 1;
	}
	shm_bytes = vm_vsize_cap((uint64_t)shm_mb * VM_MB);
	size = (uint64_t)file_mb * VM_MB;

	ktap_header(5);
	ktap_names(names);
	vm_fig_i("mem_mb", vm_cfg.mem_mb, "MB");
	vm_fig_i("shm_mb", (long long)(shm_bytes / VM_MB), "MB");
	vm_fig_i("procs", nproc, "count");
	vm_fig_i("hot_pct", hot_pct, "percent");
	vm_fig_i("pause_ms", pause_ms, "ms");
	vm_fig_i("toucher_full_check", full_check, "count");
	vm_fig_i("swap_total_kb", vm_meminfo_kb("SwapTotal"), "kB");

	rbuf = malloc(VM_RD_BUF);
	if (!rbuf) {
		ktap_fail(names[0], "malloc: %s", strerror(errno));
		ktap_exit();
	}

	vm_phase("prepare file");
	if (file) {
		snprintf(path, sizeof(path), "%s", file);
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
			ktap_fail(names[0], "%s: not a regular file", path);
			goto skip_all;
		}
		size = st.st_size;
		verify = 0;
	} else {
		uint64_t room;
		int mem;

		snprintf(path, sizeof(path), "%s/vmshm_copy.%d.dat",
			 vm_cfg.dir, (int)getpid());
		mem = vm_is_tmpfs(vm_cfg.dir);
		if (mem > 0 && size > vm_mem_bytes() / 4) {
			ktap_diag("%s is in memory (tmpfs/ramfs): file capped "
				  "to mem/4; use -d on a disk", vm_cfg.dir);
			size = vm_mem_bytes() / 4;
		}
		room = vm_fs_avail(vm_cfg.dir);
		room = room > 32 * VM_MB ? room - 32 * VM_MB : 0;
		if (size > room) {
			ktap_diag("only %llu MB free in %s: file capped",
				  (unsigned long long)(room / VM_MB),
				  vm_cfg.dir);
			size = room;
		}
		size = size / VM_MB * VM_MB;
		if (size < 4 * VM_MB) {
			ktap_fail(names[0], "no room for a file in %s",
				  vm_cfg.dir);
			goto skip_all;
		}
		t0 = vm_now_ms();
		if (vm_file_create(path, size, rbuf) != 0) {
			unlink(path);
			ktap_fail(names[0], "cannot create %s", path);
			goto skip_all;
		}
		created = 1;
		vm_fig_f("create_s", (vm_now_ms() - t0) / 1000, "s");
		verify = 1;
	}
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		ktap_fail(names[0], "open %s: %s", path, strerror(errno));
		goto skip_all;
	}
	vm_fig_i("file_mb", (long long)(size / VM_MB), "MB");
	ktap_ok(names[0], "%s, %llu MB", path,
		(unsigned long long)(size / VM_MB));

	/*
	 * -r rounds, each the whole experiment: an unloaded read, then the
	 * load is set up, the loaded read, and the load is checked and torn
	 * down.  One read's rate varies by a fifth under emulation, so the
	 * medians over the rounds are reported, and the ratio is the median
	 * of the rounds' own ratios.  Each read starts with the file out of
	 * the page cache.
	 */
	/*
	 * The unloaded read starts with memory nearly free and reclaims
	 * nothing until the file has filled it; the loaded one reclaims
	 * from its first megabyte.  Past the first mem bytes both reclaim
	 * the file's own clean pages in steady state, as on a machine whose
	 * memory is full of cache, which is how servers run: the tail
	 * figures compare that part alone.
	 */
	tail_from = vm_mem_bytes();
	if (tail_from > size)
		tail_from = size;
	vm_fig_i("tail_from_mb", (long long)(tail_from / VM_MB), "MB");
	if (vm_probe_start(&probe, 10) != 0)
		ktap_diag("no latency probe");
	for (r = 0; r < nround; r++) {
		vm_phase("unloaded read");
		vm_file_drop_cache(fd, size);
		if (!r)
			vm_fig_i("cached_kb_after_drop",
				 vm_meminfo_kb("Cached"), "kB");
		vm_vmstat_snap(&s0);
		vm_file_read(fd, size, tail_from, verify, 0, &quiet, rbuf,
			     "unloaded read");
		vm_vmstat_snap(&s1);
		if (vm_vmstat_delta(&s0, &s1, VMS_PSWPOUT) > 0)
			swapout_quiet += vm_vmstat_delta(&s0, &s1,
							 VMS_PSWPOUT);
		if (quiet.err || quiet.bad || quiet.bytes != size) {
			quiet_ok = 0;
			break;
		}
		q[r] = vm_rd_mbps(&quiet);
		qt[r] = vm_rd_tail_mbps(&quiet);
		vm_progress("round %ld of %ld: unloaded read %.1f MB/s, tail "
			    "%.1f", r + 1, nround, q[r], qt[r]);

		vm_phase("start load");
		memset(&load, 0, sizeof(load));
		load_ok = 0;
		hog_on = 0;
		if (vm_load_create(&load, shm_bytes, 0xc0b1 + r) == 0) {
			t0 = vm_now_ms();
			load.nhot = load.nblk * hot_pct / 100;
			if (!load.nhot)
				load.nhot = 1;	/* 0 would mean all of it */
			load.pause_ms = pause_ms;
			load.light = !full_check;
			load_ok = vm_load_start(&load, (int)nproc, 1) == 0;
			while (load_ok && vm_load_min_passes(&load) < 1 &&
			       !vm_load_check_dead(&load) &&
			       vm_now_ms() - t0 < time_s * 1000.0)
				vm_sleep_ms(20);
			press_bytes = vm_cap_pressure((uint64_t)press_mb *
						      VM_MB, shm_bytes);
			if (press_bytes && vm_hog_start(&hog, press_bytes) == 0) {
				hog_on = 1;
				if (vm_hog_wait(&hog, time_s, NULL, NULL) != 0)
					ktap_diag("pressure not satisfied "
						  "before the loaded read");
			}
		} else {
			ktap_diag("no shm load: cannot create the segment");
		}

		vm_phase("loaded read");
		vm_file_drop_cache(fd, size);
		vm_probe_reset(&probe);
		vm_vmstat_snap(&s2);
		cpu0 = load_ok ? vm_load_cpu_s(&load) : 0;
		vm_file_read(fd, size, tail_from, verify, time_s * 1000.0,
			     &busy, rbuf, "loaded read");
		cpu1 = load_ok ? vm_load_cpu_s(&load) : 0;
		vm_vmstat_snap(&s3);
		if (vm_probe_max_ms(&probe) > probe_max)
			probe_max = vm_probe_max_ms(&probe);
		swapout = vm_vmstat_delta(&s2, &s3, VMS_PSWPOUT);
		if (swapout > 0)
			swapout_busy += swapout;
		swapin_busy += vm_vmstat_delta(&s2, &s3, VMS_PSWPIN);
		if (busy.truncated)
			ktap_diag("loaded read stopped by the %ld s bound "
				  "after %llu MB", time_s,
				  (unsigned long long)(busy.bytes / VM_MB));
		if (!load_ok || busy.err || busy.bad || !busy.bytes ||
		    (busy.bytes != size && !busy.truncated))
			busy_ok = 0;
		l[r] = vm_rd_mbps(&busy);
		ratio[r] = q[r] > 0 ? l[r] / q[r] : 0;
		lt[r] = vm_rd_tail_mbps(&busy);
		tratio[r] = qt[r] > 0 ? lt[r] / qt[r] : 0;
		so[r] = busy.bytes && swapout >= 0 ?
			(double)swapout * vm_pagesize / busy.bytes : 0;
		cpu[r] = busy.ms > 0 ? (cpu1 - cpu0) * 1000 / busy.ms * 100 :
			 0;
		ktap_diag("round %ld of %ld: unloaded %.1f MB/s (tail %.1f), "
			  "loaded %.1f (tail %.1f), ratio %.3f (tail %.3f), "
			  "swap-out %.4f per byte read", r + 1, nround, q[r],
			  qt[r], l[r], lt[r], ratio[r], tratio[r], so[r]);

		vm_phase("stop load");
		if (load_ok)
			vm_load_stop(&load, 60000);
		if (hog_on)
			vm_hog_stop(&hog, NULL);
		if (load_ok) {
			uint32_t errs = vm_load_errors(&load);

			majflt += load.ru.ru_majflt;
			vm_load_report_errors(&load, "shm");
			bad = vm_load_verify(&load, "shm");
			if (errs || bad || load.died)
				shm_ok = 0;
		} else {
			shm_ok = 0;
		}
		if (load.base)
			vm_load_destroy(&load);
		if (!busy_ok)
			break;
	}
	vm_probe_stop(&probe);
	done = r;

	vm_fig_i("rounds", done, "count");
	vm_fig_f("unloaded_MBps", vm_median(q, done, &lo, &hi), "MBps");
	vm_fig_f("unloaded_MBps_min", lo, "MBps");
	vm_fig_f("unloaded_MBps_max", hi, "MBps");
	vm_fig_i("unloaded_swapout_bytes", swapout_quiet * vm_pagesize,
		 "bytes");
	vm_fig_i("pressure_mb", (long long)(press_bytes / VM_MB), "MB");
	vm_fig_f("loaded_MBps", vm_median(l, done, &lo, &hi), "MBps");
	vm_fig_f("loaded_MBps_min", lo, "MBps");
	vm_fig_f("loaded_MBps_max", hi, "MBps");
	vm_fig_f("loaded_over_unloaded", vm_median(ratio, done, &lo, &hi),
		 "ratio");
	vm_fig_f("loaded_over_unloaded_min", lo, "ratio");
	vm_fig_f("loaded_over_unloaded_max", hi, "ratio");
	vm_fig_f("unloaded_tail_MBps", vm_median(qt, done, NULL, NULL),
		 "MBps");
	vm_fig_f("loaded_tail_MBps", vm_median(lt, done, NULL, NULL), "MBps");
	vm_fig_f("tail_loaded_over_unloaded",
		 vm_median(tratio, done, &lo, &hi), "ratio");
	vm_fig_f("tail_loaded_over_unloaded_min", lo, "ratio");
	vm_fig_f("tail_loaded_over_unloaded_max", hi, "ratio");
	vm_fig_i("loaded_swapout_bytes", swapout_busy * vm_pagesize, "bytes");
	vm_fig_i("loaded_swapin_pages", swapin_busy, "pages");
	vm_fig_f("swapout_per_read", vm_median(so, done, &lo, &hi), "ratio");
	vm_fig_f("swapout_per_read_max", hi, "ratio");
	vm_fig_f("loaded_probe_max_ms", probe_max, "ms");
	/* CPU the touchers took from the guest while the read ran */
	vm_fig_f("loaded_toucher_cpu_pct", vm_median(cpu, done, NULL, NULL),
		 "percent");
	vm_fig_i("toucher_majflt", majflt, "count");

	ktap_result(quiet_ok && done == nround, names[1], "%ld rounds, "
		    "median %.1f MB/s", done, vm_median(q, done, NULL, NULL));
	ktap_result(busy_ok && done == nround, names[2], "median %.1f MB/s%s",
		    vm_median(l, done, NULL, NULL),
		    load_ok ? "" : ", no load");
	ktap_result(shm_ok && done == nround, names[3], NULL);

	vm_phase("cleanup");
	ok = vm_nchildren() == 0;
	vm_kill_all();
	close(fd);
	if (created && !keep) {
		if (unlink(path) != 0) {
			ktap_diag("unlink %s: %s", path, strerror(errno));
			ok = 0;
		}
		vm_unregister_path(path);
	} else if (created) {
		vm_unregister_path(path);
		ktap_diag("kept %s", path);
	}
	ktap_result(ok, names[4], NULL);
	ktap_exit();

skip_all:
	ktap_skip(names[1], "no file");
	ktap_skip(names[2], "no file");
	ktap_skip(names[3], "no file");
	ktap_skip(names[4], "no file");
	ktap_exit();
}
