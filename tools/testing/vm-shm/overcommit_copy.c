// SPDX-License-Identifier: GPL-2.0
/*
 * overcommit_copy - the report's machine as it was: already swapping
 * when the copy started.  A busy SysV shm segment (-S, default 0.75 *
 * mem) that -P processes touch all over, at a set pace (each makes one
 * pass of the segment every -I ms, default 1 s, sleeping when ahead of
 * that pace), then anonymous pressure (-a, default 0.40
 * * mem) that overcommits memory by some 15 %, then, with both still
 * running, a sequential read of a file of -s MB (default 0.5 * mem).
 * The pressure touches its memory once, as fast as it can or at -R MB a
 * second, and then leaves it idle.
 *
 * Scenarios 2 and 3 were tuned to loads that fit in memory; this one
 * does not, so it measures what reclaim does on a box that must swap:
 *
 *  - the pressure phase, from the start of the pressure until it has all
 *    its memory (press_*), then until every toucher has made -p passes
 *    of the segment since (settle_*; default 4, so that what was pushed
 *    out wrongly has come back and the box is in the steady state it
 *    swaps in), and both (total_*): swap-out over what the pressure
 *    needed freed (its size less MemFree + Buffers + the clean cache,
 *    as shm_swap_storm counts it), swap-in, time and the probe's
 *    longest stall;
 *  - the read, on that settled box, as on the report's machine, already
 *    swapping when the copy began: swap-out per byte read, swap-in, and
 *    its rate over the rate of the same read on the quiet machine, read
 *    first.  The touchers keep a pace rather than a CPU share, so under
 *    --icount that ratio measures reclaim, not how the CPU was shared.
 *
 * -Q stops after the quiet read, with diagnostics of it (quiet_*).
 *
 * Every figure is one run: the harness repeats runs (five per kernel for
 * the series' goals) rather than the program repeating rounds, so every
 * run starts from a freshly booted guest.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

#include "vmshm.h"
#include "load.h"
#include "seqread.h"

static const char summary[] =
	"overcommit_copy: shm touchers plus anonymous pressure beyond memory,\n"
	"then a file read; swap traffic against the deficit, read rate";

static const char *const names[] = {
	"file ready", "unloaded read", "pressure satisfied", "loaded read",
	"shm data integrity", "cleanup", NULL
};

enum { T_FILE, T_QUIET, T_PRESS, T_READ, T_DATA, T_CLEAN, T_N };

/* free memory plus clean cache, less the resident segment Cached counts */
static long long avail_kb(uint64_t shm_bytes, long long shm_swapped)
{
	long long shm_res = (long long)(shm_bytes / 1024) -
			    shm_swapped * vm_pagesize / 1024;
	long long a = vm_meminfo_kb("Cached") - shm_res;

	if (a < 0)
		a = 0;
	return a + vm_meminfo_kb("MemFree") + vm_meminfo_kb("Buffers");
}

/*
 * Fill memory with clean page cache: create a file of mem bytes beside
 * @path and read it; drop_filler() unlinks it after the quiet read.
 * 0, or -1 with no file left behind.
 */
static char filler[600];

static int fill_cache(const char *path, char *buf)
{
	uint64_t size = vm_mem_bytes(), room = vm_fs_avail(vm_cfg.dir);
	struct vm_rd r;
	int fd;

	snprintf(filler, sizeof(filler), "%s.filler", path);
	if (room < size + 64 * VM_MB)
		return -1;
	if (vm_file_create(filler, size, buf) != 0)
		goto fail;
	fd = open(filler, O_RDONLY);
	if (fd < 0)
		goto fail;
	vm_file_drop_cache(fd, size);
	vm_file_read(fd, size, size, 0, 0, &r, buf, "filling the cache");
	close(fd);
	if (r.err || r.bytes != size)
		goto fail;
	return 0;
fail:
	unlink(filler);
	vm_unregister_path(filler);
	filler[0] = 0;
	return -1;
}

static void drop_filler(void)
{
	if (!filler[0])
		return;
	if (unlink(filler) != 0)
		ktap_diag("unlink %s: %s", filler, strerror(errno));
	vm_unregister_path(filler);
	filler[0] = 0;
}

/*
 * -Q: what reclaim did during the quiet read, from /proc/vmstat, every
 * task's CPU time over it, and a profile of the read alone when the
 * kernel was booted with profile=N (a write to /proc/profile clears it;
 * the init collects it after the program).  Diagnostics for a read rate
 * that differs between kernels: which task, which reclaim.
 */
static const char *const rc_keys[] = {
	"pgscan", "pgsteal", "kswapd_steal", "pageoutrun", "allocstall",
	"pgrefill", "pgdeactivate", "pgactivate", "pgfree", NULL
};

#define Q_TASKS		256	/* the guest's pids are small */
static long long q_ticks[Q_TASKS], q_self[2];

/* utime + stime of @pid in USER_HZ ticks, its command in @comm; or -1 */
static long long task_ticks(int pid, char *comm, size_t len)
{
	char path[64], buf[512], *a, *b;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	a = strchr(buf, '(');
	b = strrchr(buf, ')');
	if (comm && a && b && b > a)
		snprintf(comm, len, "%.*s", (int)(b - a - 1), a + 1);
	return vm_proc_stat_ticks(path);
}

/* this process's user and system time, ms */
static void self_ms(long long *ms)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	ms[0] = ru.ru_utime.tv_sec * 1000LL + ru.ru_utime.tv_usec / 1000;
	ms[1] = ru.ru_stime.tv_sec * 1000LL + ru.ru_stime.tv_usec / 1000;
}

static void quiet_start(long long *v)
{
	int i, fd = open("/proc/profile", O_WRONLY);

	if (fd >= 0) {
		if (write(fd, "0", 1) != 1)
			ktap_diag("cannot clear /proc/profile: %s",
				  strerror(errno));
		close(fd);
	}
	for (i = 0; rc_keys[i]; i++)
		v[i] = vm_vmstat(rc_keys[i]);
	for (i = 1; i < Q_TASKS; i++)
		q_ticks[i] = task_ticks(i, NULL, 0);
	self_ms(q_self);
}

static void quiet_figs(const long long *v)
{
	long long self[2], t, kswapd = -1;
	char name[64];
	int i;

	self_ms(self);
	for (i = 1; i < Q_TASKS; i++) {
		t = task_ticks(i, name, sizeof(name));
		if (t < 0 || q_ticks[i] < 0 || t <= q_ticks[i])
			continue;
		t = (t - q_ticks[i]) * 1000 / vm_clk_tck();
		ktap_diag("quiet read: pid %d (%s) %lld ms", i, name, t);
		if (!strncmp(name, "kswapd", 6))
			kswapd = t;
	}
	vm_fig_i("quiet_reader_user_ms", self[0] - q_self[0], "ms");
	vm_fig_i("quiet_reader_sys_ms", self[1] - q_self[1], "ms");
	vm_fig_i("quiet_kswapd_ms", kswapd, "ms");
	for (i = 0; rc_keys[i]; i++) {
		snprintf(name, sizeof(name), "quiet_%s", rc_keys[i]);
		vm_fig_i(name, v[i] >= 0 ? vm_vmstat(rc_keys[i]) - v[i] : -1,
			 strstr(rc_keys[i], "pg") == rc_keys[i] ? "pages" :
			 "count");
	}
}

/* -1 when it cannot be told */
static double ratio(long long num, long long den)
{
	return den > 0 && num >= 0 ? (double)num / den : -1;
}

int main(int argc, char **argv)
{
	long shm_mb = -1, press_mb = -1, file_mb = -1, nproc = 4;
	long pass_ms = 1000, press_nice = 0, time_s = 300, passes = 4;
	long press_rate = 0;
	int quiet_only = 0;
	long long rc0[sizeof(rc_keys) / sizeof(rc_keys[0])];
	const struct vm_opt opts[] = {
		{ 'S', VM_OPT_LONG, &shm_mb, "MB",
		  "shm segment, all of it busy (default 0.75 * mem)" },
		{ 'P', VM_OPT_LONG, &nproc, "N",
		  "shm toucher processes (default 4)" },
		{ 'I', VM_OPT_LONG, &pass_ms, "MS",
		  "each toucher passes the segment once every MS at an even "
		  "pace (default 1000; 0: as fast as it can)" },
		{ 'a', VM_OPT_LONG, &press_mb, "MB",
		  "anonymous pressure (default 0.40 * mem)" },
		{ 'R', VM_OPT_LONG, &press_rate, "MBPS",
		  "the pressure touches at most MBPS MB a second (default 0: "
		  "as fast as it can)" },
		{ 'N', VM_OPT_LONG, &press_nice, "INC",
		  "the pressure runs at this nice increment (default 0)" },
		{ 'p', VM_OPT_LONG, &passes, "N",
		  "passes every toucher makes under the pressure before the "
		  "read (default 4)" },
		{ 'Q', VM_OPT_FLAG, &quiet_only, NULL,
		  "stop after the unloaded reads (to profile them alone)" },
		{ 's', VM_OPT_LONG, &file_mb, "MB",
		  "file read under the load (default 0.5 * mem)" },
		{ 't', VM_OPT_LONG, &time_s, "SEC",
		  "bound of the load setup, the pressure and the loaded "
		  "read (default 300)" },
		{ 0, 0, NULL, NULL, NULL },
	};
	struct vm_vmstat_snap s0, s1, s2, s3, s4, sd;
	struct vm_rd cold, quiet, busy;
	struct vm_probe probe;
	struct vm_load load;
	struct vm_hog hog;
	char path[512], *buf;
	uint64_t size, shm_bytes, press_bytes, room, b0;
	long long needed_kb, avail, so, si;
	double t0, press_ms = -1, press_stall = 0, cpu0, cpu1;
	int fd, hog_state = 0, load_ok = 0, ok, probe_ok;
	uint32_t errs, warm;
	long bad;

	vm_init("overcommit_copy", argc, argv, opts, summary, 1500);
	if (shm_mb < 0)
		shm_mb = vm_cfg.mem_mb * 3 / 4;
	if (press_mb < 0)
		press_mb = vm_cfg.mem_mb * 40 / 100;
	if (file_mb < 0)
		file_mb = vm_cfg.mem_mb / 2;
	if (nproc < 1 || nproc > VM_LOAD_MAX || pass_ms < 0 || shm_mb < 1 ||
	    press_mb < 1 || file_mb < 4 || passes < 0 || press_rate < 0) {
		fprintf(stderr, "overcommit_copy: bad -S, -P, -I, -a, -R, -p or "
			"-s\n");
		return 1;
	}
	shm_bytes = vm_vsize_cap((uint64_t)shm_mb * VM_MB);
	size = (uint64_t)file_mb * VM_MB;

	/* what would make the scenario meaningless, before KTAP starts */
	if (vm_meminfo_kb("SwapTotal") <= 0)
		ktap_skip_all("no swap: the load cannot overcommit memory");
	if (vm_is_tmpfs(vm_cfg.dir) > 0)
		ktap_skip_all("the file would be in memory (tmpfs): use -d on "
			      "a disk");
	buf = malloc(VM_RD_BUF);
	if (!buf)
		ktap_skip_all("no memory for the read buffer");
	room = vm_fs_avail(vm_cfg.dir);
	room = room > 32 * VM_MB ? room - 32 * VM_MB : 0;
	if (room < 4 * VM_MB)
		ktap_skip_all("no room for the file in the data directory");

	ktap_header(T_N);
	ktap_names(names);
	vm_fig_i("mem_mb", vm_cfg.mem_mb, "MB");
	vm_fig_i("shm_mb", (long long)(shm_bytes / VM_MB), "MB");
	if (shm_bytes < (uint64_t)shm_mb * VM_MB)
		ktap_diag("segment capped to %llu MB (one 32-bit mapping): "
			  "the load may not overcommit memory",
			  (unsigned long long)(shm_bytes / VM_MB));
	vm_fig_i("procs", nproc, "count");
	vm_fig_i("pass_ms", pass_ms, "ms");
	vm_fig_i("passes", passes, "count");
	vm_fig_i("pressure_nice", press_nice, "count");
	vm_fig_i("pressure_rate", press_rate, "MBps");
	vm_fig_i("swap_total_kb", vm_meminfo_kb("SwapTotal"), "kB");

	vm_phase("create file");
	snprintf(path, sizeof(path), "%s/vmshm_overcommit.%d.dat", vm_cfg.dir,
		 (int)getpid());
	if (size > room) {
		ktap_diag("only %llu MB free in %s: file capped",
			  (unsigned long long)(room / VM_MB), vm_cfg.dir);
		size = room / VM_MB * VM_MB;
	}
	fd = -1;
	if (vm_file_create(path, size, buf) == 0)
		fd = open(path, O_RDONLY);
	if (fd < 0) {
		int t;

		ktap_fail(names[T_FILE], "cannot create and open %s", path);
		unlink(path);
		vm_unregister_path(path);
		for (t = T_QUIET; t < T_N; t++)
			ktap_skip(names[t], "no file");
		ktap_exit();
	}
	vm_fig_i("file_mb", (long long)(size / VM_MB), "MB");
	ktap_ok(names[T_FILE], "%llu MB", (unsigned long long)(size / VM_MB));

	/*
	 * The loaded read reclaims from its first page.  A read on a box
	 * with free memory does not, so it is not the rate to compare
	 * with: the quiet read runs with memory full of clean cache, as a
	 * server's is, read from a filler file of mem bytes first.  The
	 * read on empty memory is reported too (cold_MBps).
	 */
	vm_phase("unloaded read");
	vm_file_drop_cache(fd, size);
	vm_file_read(fd, size, size, 1, 0, &cold, buf, "cold read");
	vm_fig_f("cold_MBps", vm_rd_mbps(&cold), "MBps");
	vm_file_drop_cache(fd, size);
	if (fill_cache(path, buf) != 0)
		ktap_diag("no filler file: the quiet read starts on free "
			  "memory");
	vm_fig_i("filler_mb", filler[0] ? vm_cfg.mem_mb : 0, "MB");
	if (quiet_only)
		quiet_start(rc0);
	vm_file_read(fd, size, size, 1, 0, &quiet, buf, "unloaded read");
	vm_fig_f("unloaded_MBps", vm_rd_mbps(&quiet), "MBps");
	if (quiet_only)
		quiet_figs(rc0);
	drop_filler();
	vm_file_drop_cache(fd, size);
	ktap_result(!cold.err && !cold.bad && cold.bytes == size &&
		    !quiet.err && !quiet.bad && quiet.bytes == size,
		    names[T_QUIET], "%.1f MB/s", vm_rd_mbps(&quiet));
	if (quiet_only) {
		int t;

		for (t = T_PRESS; t < T_CLEAN; t++)
			ktap_skip(names[t], "-Q: the unloaded reads only");
		goto cleanup;
	}

	/*
	 * The probe and the pressure's workers are forked before the
	 * segment exists: forked later they would map it, and on 2.6.3 pay
	 * a pte_chain entry per page of it, which is not the load.
	 */
	probe_ok = vm_probe_start(&probe, 10) == 0;
	if (!probe_ok)
		ktap_diag("no latency probe");
	memset(&hog, 0, sizeof(hog));
	if (vm_hog_prepare(&hog, (uint64_t)press_mb * VM_MB,
			   (int)press_nice) != 0)
		hog_state = -2;

	vm_phase("create and fill segment");
	vm_vmstat_snap(&s0);
	memset(&load, 0, sizeof(load));
	if (vm_load_create(&load, shm_bytes, 0x0c0c) == 0) {
		load.pass_ms = pass_ms;
		load.light = 1;
		load_ok = vm_load_start(&load, (int)nproc, 1) == 0;
		t0 = vm_now_ms();
		vm_phase("touchers: first pass");
		while (load_ok && vm_load_min_passes(&load) < 1 &&
		       !vm_load_check_dead(&load) &&
		       vm_now_ms() - t0 < time_s * 1000.0)
			vm_sleep_ms(20);
		vm_fig_f("fill_s", load.fill_ms / 1000, "s");
		vm_fig_f("first_pass_s", (vm_now_ms() - t0) / 1000, "s");
	} else {
		ktap_diag("cannot create the segment");
	}

	/*
	 * The pressure phase: from the start of the pressure until it has
	 * all its memory (press_*), then until every toucher has made -p
	 * passes since (settle_*), so that what reclaim took from the busy
	 * segment has had its chance to come back (swap-in); total_* is
	 * both.  What the pressure needs freed
	 * is counted when it starts; swap-out beyond that is reclaim taking
	 * pages the touchers fault straight back, the storm of the report.
	 */
	vm_phase("pressure");
	press_bytes = vm_cap_pressure((uint64_t)press_mb * VM_MB, shm_bytes);
	vm_fig_i("pressure_mb", (long long)(press_bytes / VM_MB), "MB");
	vm_vmstat_snap(&s1);
	avail = avail_kb(shm_bytes, vm_vmstat_delta(&s0, &s1, VMS_PSWPOUT));
	needed_kb = (long long)(press_bytes / 1024) - avail;
	if (needed_kb < 0)
		needed_kb = 0;
	vm_probe_reset(&probe);
	b0 = load_ok ? vm_load_blocks_touched(&load) : 0;
	t0 = vm_now_ms();
	vm_vmstat_snap(&sd);
	if (load_ok && press_bytes && hog_state == 0) {
		/* a paced pressure takes its time on top of the bound */
		double bound = time_s + (press_rate ?
			(double)press_bytes / VM_MB / press_rate : 0);

		vm_hog_set_rate(&hog, (uint64_t)press_rate * VM_MB);
		vm_hog_go(&hog, press_bytes);
		hog_state = vm_hog_wait(&hog, bound, NULL, NULL) == 0 ? 1 : -1;
		press_ms = vm_hog_done_ms(&hog);
		/* the pressure has its memory: the settling starts here */
		vm_vmstat_snap(&sd);
		warm = vm_load_min_passes(&load);
		while (hog_state == 1 &&
		       vm_load_min_passes(&load) < warm + passes &&
		       !vm_load_check_dead(&load) &&
		       vm_now_ms() - t0 < bound * 1000.0)
			vm_sleep_ms(20);
		if (hog_state == 1 &&
		    vm_load_min_passes(&load) < warm + passes)
			hog_state = -3;
	} else if (hog_state == 0) {
		hog_state = -2;
	}
	vm_vmstat_snap(&s2);
	press_stall = vm_probe_max_ms(&probe);
	so = vm_vmstat_delta(&s1, &sd, VMS_PSWPOUT);
	si = vm_vmstat_delta(&s1, &sd, VMS_PSWPIN);
	vm_fig_i("avail_at_pressure_kb", avail, "kB");
	vm_fig_i("needed_kb", needed_kb, "kB");
	/* until the pressure has its memory */
	vm_fig_i("press_pswpout", so, "pages");
	vm_fig_i("press_pswpin", si, "pages");
	vm_fig_f("press_swapout_over_needed",
		 ratio(so * vm_pagesize / 1024, needed_kb), "ratio");
	/* then until every toucher has made -p passes: what comes back */
	vm_fig_i("settle_pswpout", vm_vmstat_delta(&sd, &s2, VMS_PSWPOUT),
		 "pages");
	vm_fig_i("settle_pswpin", vm_vmstat_delta(&sd, &s2, VMS_PSWPIN),
		 "pages");
	so = vm_vmstat_delta(&s1, &s2, VMS_PSWPOUT);
	si = vm_vmstat_delta(&s1, &s2, VMS_PSWPIN);
	vm_fig_i("total_pswpout", so, "pages");
	vm_fig_i("total_pswpin", si, "pages");
	vm_fig_f("total_swapout_over_needed",
		 ratio(so * vm_pagesize / 1024, needed_kb), "ratio");
	vm_fig_f("press_ms", press_ms, "ms");
	vm_fig_f("press_phase_ms", vm_now_ms() - t0, "ms");
	vm_fig_f("press_passes", load_ok && load.nblk ?
		 (double)(vm_load_blocks_touched(&load) - b0) / load.nblk /
		 load.nproc : -1, "count");
	vm_fig_f("press_probe_max_ms", probe_ok ? press_stall : -1, "ms");
	if (hog_state == 1)
		ktap_ok(names[T_PRESS], "%llu MB in %.0f ms, %lld pages out, "
			"%lld in, %lld kB needed",
			(unsigned long long)(press_bytes / VM_MB), press_ms,
			so, si, needed_kb);
	else
		ktap_fail(names[T_PRESS], "%s", hog_state == -2 ?
			  "no load or no pressure" : hog_state == -3 ?
			  "touchers did not make their passes in time" :
			  "pressure failed or not satisfied in time");

	vm_phase("loaded read");
	vm_file_drop_cache(fd, size);
	vm_probe_reset(&probe);
	vm_vmstat_snap(&s3);
	b0 = load_ok ? vm_load_blocks_touched(&load) : 0;
	cpu0 = load_ok ? vm_load_cpu_s(&load) : 0;
	vm_file_read(fd, size, size, 1, time_s * 1000.0, &busy, buf,
		     "loaded read");
	cpu1 = load_ok ? vm_load_cpu_s(&load) : 0;
	vm_vmstat_snap(&s4);
	so = vm_vmstat_delta(&s3, &s4, VMS_PSWPOUT);
	si = vm_vmstat_delta(&s3, &s4, VMS_PSWPIN);
	vm_fig_f("loaded_MBps", vm_rd_mbps(&busy), "MBps");
	vm_fig_f("loaded_over_unloaded",
		 vm_rd_mbps(&quiet) > 0 ?
		 vm_rd_mbps(&busy) / vm_rd_mbps(&quiet) : -1, "ratio");
	vm_fig_i("read_pswpout", so, "pages");
	vm_fig_i("read_pswpin", si, "pages");
	vm_fig_f("read_swapout_per_byte", busy.bytes && so >= 0 ?
		 (double)so * vm_pagesize / busy.bytes : -1, "ratio");
	vm_fig_f("read_passes", load_ok && load.nblk ?
		 (double)(vm_load_blocks_touched(&load) - b0) / load.nblk /
		 load.nproc : -1, "count");
	vm_fig_f("read_probe_max_ms", probe_ok ? vm_probe_max_ms(&probe) : -1,
		 "ms");
	vm_fig_f("read_toucher_cpu_pct", busy.ms > 0 ?
		 (cpu1 - cpu0) * 1000 / busy.ms * 100 : -1, "percent");
	if (busy.truncated)
		ktap_diag("loaded read stopped by the %ld s bound after %llu "
			  "MB", time_s, (unsigned long long)(busy.bytes /
							     VM_MB));
	ktap_result(hog_state == 1 && !busy.err && !busy.bad &&
		    busy.bytes == size, names[T_READ], "%.1f MB/s, %lld pages "
		    "swapped out", vm_rd_mbps(&busy), so);

	vm_phase("stop");
	if (load.sh)
		vm_load_stop(&load, 60000);	/* also after a partial start */
	if (hog.sh)
		vm_hog_stop(&hog, NULL);	/* started or only prepared */
	if (probe_ok)
		vm_probe_stop(&probe);
	if (load.base) {
		vm_phase("verify");
		errs = vm_load_errors(&load);
		vm_load_report_errors(&load, "shm");
		bad = vm_load_verify(&load, "shm");
		vm_fig_i("toucher_majflt", load.ru.ru_majflt, "count");
		vm_fig_i("bad_blocks", (long long)errs + bad, "count");
		ktap_result(load_ok && !errs && !bad && !load.died,
			    names[T_DATA], NULL);
		vm_load_destroy(&load);
	} else {
		ktap_skip(names[T_DATA], "no segment");
	}

cleanup:
	vm_phase("cleanup");
	ok = vm_nchildren() == 0;
	vm_kill_all();
	close(fd);
	if (unlink(path) != 0) {
		ktap_diag("unlink %s: %s", path, strerror(errno));
		ok = 0;
	}
	vm_unregister_path(path);
	ktap_result(ok, names[T_CLEAN], ok ? NULL : "children left behind");
	ktap_exit();
}
