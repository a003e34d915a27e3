// SPDX-License-Identifier: GPL-2.0
/*
 * pte_chain_capacity - scenario 1: how many children can share one big
 * SysV shm segment before lowmem runs out?
 *
 * The parent creates one segment, touches every page, then forks children
 * one at a time.  Each child inherits the mapping and sleeps; it never
 * touches the segment again.  Every fork copies the parent's ptes, and on
 * 2.6.3 every mapped pte costs a slot in a pte_chain (lowmem slab), so the
 * cost per child grows with the segment.  The parent stops at -n
 * children, after -t seconds, at the first fork failure, or when LowFree
 * (MemFree without highmem) falls under the -f floor, so that it can
 * report before the OOM killer picks a victim.
 *
 * -F forks until the kernel says no: no floor, no bound but -n and -t.
 * The forking runs in a child process group, watched by the parent,
 * which reports how it ended - fork failed (errno), the OOM killer
 * killed a process (counted in the kernel log), the forker died - or
 * that no fork completed and nothing was killed for -S seconds (a
 * stall: the kernel neither failed nor progressed), and how long the
 * forks took.  Children are reaped by the kernel (SIGCHLD ignored), so
 * one the OOM killer picks gives all its memory back.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/wait.h>

#include "vmshm.h"

static const char summary[] =
	"pte_chain_capacity: fork children sharing one touched shm segment\n"
	"until a bound, a fork failure or the lowmem floor";

enum { STOP_MAX, STOP_FORK, STOP_LOWMEM, STOP_TIME };
static const char *const stop_names[] = {
	"max children", "fork failed", "lowmem floor", "time bound"
};

static const char *const names[] = {
	"segment created and touched", "children forked", "cleanup", NULL
};

static long long pagetables_kb(void)
{
	long long v = vm_meminfo_kb("PageTables");

	if (v < 0) {
		v = vm_vmstat("nr_page_table_pages");
		if (v >= 0)
			v = v * vm_pagesize / 1024;
	}
	return v;
}

static void fig_slab(const char *when, long long *bytes)
{
	long long act, tot, pages;
	char key[64];

	vm_slab("pte_chain", &act, &tot, &pages);
	snprintf(key, sizeof(key), "pte_chain_bytes_%s", when);
	vm_fig_i(key, act, "bytes");
	snprintf(key, sizeof(key), "pte_chain_total_bytes_%s", when);
	vm_fig_i(key, tot, "bytes");
	if (bytes)
		*bytes = act;
}

/* ---- -F: fork until failure ---- */
struct until_shared {
	volatile long children;
	volatile double attempt_start;	/* vm_now_ms() of the fork in flight */
	volatile double last_ok;	/* vm_now_ms() of the last fork done */
	volatile double last_fork_ms;	/* duration of the last fork done */
	volatile double max_fork_ms;	/* the longest fork done */
	volatile int fork_errno;	/* set when fork failed */
	volatile int touched;
};

static const char *const until_names[] = {
	"fork until failure ends cleanly", NULL
};

static void until_forker(uint64_t bytes, long max_children,
			 struct until_shared *sh)
{
	uint64_t off;
	char *seg;
	int shmid;

	setpgid(0, 0);
	signal(SIGCHLD, SIG_IGN);
	seg = vm_shm_create(bytes, &shmid);
	if (!seg)
		_exit(3);
	for (off = 0; off < bytes; off += vm_pagesize)
		*(volatile uint32_t *)(seg + off) = (uint32_t)(off >> 12);
	sh->touched = 1;
	sh->last_ok = vm_now_ms();
	while (sh->children < max_children) {
		pid_t pid;
		double t0 = vm_now_ms();

		sh->attempt_start = t0;
		pid = fork();
		if (pid == 0) {
			for (;;)
				pause();
		}
		if (pid < 0) {
			sh->fork_errno = errno;
			_exit(0);
		}
		sh->last_ok = vm_now_ms();
		sh->last_fork_ms = sh->last_ok - t0;
		if (sh->last_fork_ms > sh->max_fork_ms)
			sh->max_fork_ms = sh->last_fork_ms;
		sh->children++;
	}
	_exit(0);
}

static void fork_until_failure(uint64_t bytes, long max_children,
			       long time_s, long stall_s)
{
	const char *name = until_names[0];
	struct until_shared *sh;
	double t0, t_oom = 0, end_ms = -1;
	long last = -1, oom0, oom1 = -1;
	int st = 0, ended = 0, killed = 0;
	pid_t pid;

	ktap_header(1);
	ktap_names(until_names);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		ktap_fail(name, "mmap: %s", strerror(errno));
		ktap_exit();
	}
	vm_fig_i("segment_mb", (long long)(bytes / VM_MB), "MB");
	oom0 = vm_oom_kills();
	vm_phase("fork until failure");
	pid = vm_fork();
	if (pid == 0)
		until_forker(bytes, max_children, sh);
	t0 = vm_now_ms();
	for (;;) {
		double now;

		if (vm_wait_timeout(pid, &st, NULL, 250) == 0) {
			ended = 1;
			end_ms = vm_now_ms();
			break;
		}
		now = vm_now_ms();
		if (sh->children != last) {
			last = sh->children;
			vm_progress("%ld children, last fork %.1f ms, LowFree "
				    "%lld kB, MemFree %lld kB", last,
				    sh->last_fork_ms, vm_lowfree_kb(),
				    vm_meminfo_kb("MemFree"));
		}
		if (now - t0 > time_s * 1000.0)
			break;
		if (oom0 >= 0 && now - t_oom >= 1000.0) {
			t_oom = now;
			oom1 = vm_oom_kills();
			if (oom1 > oom0) {
				killed = 1;
				end_ms = now;
				break;
			}
		}
		if (sh->touched && now - sh->last_ok > stall_s * 1000.0)
			break;
	}
	oom1 = vm_oom_kills();
	vm_fig_i("children", sh->children, "count");
	vm_fig_f("last_fork_ms", sh->last_fork_ms, "ms");
	vm_fig_f("max_fork_ms", sh->max_fork_ms, "ms");
	vm_fig_f("fork_loop_s", (vm_now_ms() - t0) / 1000.0, "s");
	if (oom0 >= 0 && oom1 >= 0)
		vm_fig_i("oom_kills", oom1 - oom0, "count");
	if (ended || killed) {
		/* from the start of the attempt that did not complete */
		double tail = end_ms - VM_MAX(sh->attempt_start, sh->last_ok);

		vm_fig_f("end_after_s", tail / 1000.0, "s");
		if (killed)
			ktap_ok(name, "the OOM killer acted after %ld children, "
				"%.1f s into a fork; longest fork %.1f s",
				sh->children, tail / 1000.0,
				sh->max_fork_ms / 1000.0);
		else if (WIFSIGNALED(st))
			ktap_ok(name, "forker killed by signal %d after %ld "
				"children, %.1f s into its last fork",
				WTERMSIG(st), sh->children, tail / 1000.0);
		else if (WIFEXITED(st) && WEXITSTATUS(st) == 0 &&
			 sh->fork_errno)
			ktap_ok(name, "fork failed with %s after %ld children, "
				"%.1f s into the attempt",
				strerror(sh->fork_errno), sh->children,
				tail / 1000.0);
		else if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
			ktap_ok(name, "bound of %ld children reached",
				sh->children);
		else
			ktap_fail(name, "forker exited %d after %ld children",
				  WIFEXITED(st) ? WEXITSTATUS(st) : -1,
				  sh->children);
	} else if (vm_now_ms() - t0 > time_s * 1000.0) {
		ktap_ok(name, "time bound of %ld s reached at %ld children",
			time_s, sh->children);
	} else {
		ktap_fail(name, "stalled: no fork for %ld s at %ld children, "
			  "LowFree %lld kB, MemFree %lld kB, SwapFree %lld kB",
			  stall_s, sh->children, vm_lowfree_kb(),
			  vm_meminfo_kb("MemFree"),
			  vm_meminfo_kb("SwapFree"));
	}
	/* the forker's group: the forker and every child it made */
	vm_phase("cleanup");
	vm_kill_group(pid, ended, "forker");
	ktap_exit();
}

int main(int argc, char **argv)
{
	long seg_mb = -1, max_children = -1, time_s = 600, floor_mb = 8;
	long stall_s = 60;
	int until = 0;
	const struct vm_opt opts[] = {
		{ 'F', VM_OPT_FLAG, &until, NULL,
		  "fork until failure (no floor; see -S)" },
		{ 'S', VM_OPT_LONG, &stall_s, "SEC",
		  "-F: no fork for SEC seconds is a stall (default 60)" },
		{ 's', VM_OPT_LONG, &seg_mb, "MB",
		  "segment size (default min(256, mem/2))" },
		{ 'n', VM_OPT_LONG, &max_children, "N",
		  "max children (default min(4000, max(16, 4 * mem MB)))" },
		{ 't', VM_OPT_LONG, &time_s, "SEC",
		  "stop forking after SEC seconds (default 600)" },
		{ 'f', VM_OPT_LONG, &floor_mb, "MB",
		  "stop when LowFree/MemFree < MB (default 8)" },
		{ 0, 0, NULL, NULL, NULL },
	};
	long long pte_before, pte_after, low_before, low_after, pt_before;
	long long pt_after, slab_before, slab_after;
	double t_start, t0, t1, fork_ms = 0, fork_max = 0, loop_ms;
	int stop = STOP_MAX, fork_err = 0, shmid = -1, ok;
	uint64_t bytes, off;
	long n = 0, left;
	char *seg;

	vm_init("pte_chain_capacity", argc, argv, opts, summary, 900);
	if (seg_mb < 0)
		seg_mb = VM_MIN(256L, vm_cfg.mem_mb / 2);
	if (max_children < 0 && until)
		max_children = 30000;
	if (max_children < 0)
		max_children = VM_MIN(4000L, VM_MAX(16L, vm_cfg.mem_mb * 4));
	if (max_children > 30000)
		max_children = 30000;
	bytes = vm_vsize_cap((uint64_t)seg_mb * VM_MB);
	if (until)
		fork_until_failure(bytes, max_children, time_s, stall_s);

	ktap_header(3);
	ktap_names(names);
	vm_fig_i("mem_mb", vm_cfg.mem_mb, "MB");
	vm_fig_i("segment_mb", (long long)(bytes / VM_MB), "MB");
	vm_fig_i("max_children", max_children, "count");
	vm_fig_i("time_bound_s", time_s, "s");
	vm_fig_i("floor_mb", floor_mb, "MB");

	vm_phase("create and touch segment");
	seg = vm_shm_create(bytes, &shmid);
	if (!seg) {
		ktap_fail(names[0], "cannot create a %llu MB segment",
			  (unsigned long long)(bytes / VM_MB));
		ktap_skip(names[1], "no segment");
		ktap_skip(names[2], "no segment");
		ktap_exit();
	}
	for (off = 0; off < bytes; off += vm_pagesize) {
		*(volatile uint32_t *)(seg + off) = (uint32_t)(off >> 12);
		if (!(off & (64 * VM_MB - 1)))
			vm_progress("touching segment: %llu of %llu MB",
				    (unsigned long long)(off / VM_MB),
				    (unsigned long long)(bytes / VM_MB));
	}
	ktap_ok(names[0], NULL);

	fig_slab("before", &pte_before);
	low_before = vm_lowfree_kb();
	pt_before = pagetables_kb();
	slab_before = vm_meminfo_kb("Slab");
	vm_fig_i("lowfree_kb_before", low_before, "kB");
	vm_fig_i("pagetables_kb_before", pt_before, "kB");
	vm_fig_i("slab_kb_before", slab_before, "kB");

	vm_phase("forking children");
	t_start = vm_now_ms();
	while (n < max_children) {
		long long low;
		pid_t pid;

		if (vm_now_ms() - t_start > time_s * 1000.0) {
			stop = STOP_TIME;
			break;
		}
		t0 = vm_now_ms();
		pid = vm_fork();
		t1 = vm_now_ms();
		if (pid == 0) {
			/* keep the inherited mapping; never touch it */
			for (;;)
				pause();
		}
		if (pid < 0) {
			fork_err = errno;
			stop = STOP_FORK;
			break;
		}
		n++;
		fork_ms += t1 - t0;
		if (t1 - t0 > fork_max)
			fork_max = t1 - t0;
		low = vm_lowfree_kb();
		if (low >= 0 && low < floor_mb * 1024) {
			stop = STOP_LOWMEM;
			break;
		}
		vm_progress("%ld children, LowFree %lld kB, %.2f ms/fork", n,
			    low, fork_ms / n);
	}
	loop_ms = vm_now_ms() - t_start;

	fig_slab("after", &pte_after);
	low_after = vm_lowfree_kb();
	pt_after = pagetables_kb();
	slab_after = vm_meminfo_kb("Slab");
	vm_fig_i("lowfree_kb_after", low_after, "kB");
	vm_fig_i("pagetables_kb_after", pt_after, "kB");
	vm_fig_i("slab_kb_after", slab_after, "kB");
	vm_fig_i("children", n, "count");
	vm_fig_f("fork_rate", loop_ms > 0 ? n * 1000.0 / loop_ms : 0,
		 "per_s");
	vm_fig_f("fork_ms", n ? fork_ms / n : 0, "ms");
	vm_fig_f("fork_ms_max", fork_max, "ms");
	vm_fig_f("fork_loop_s", loop_ms / 1000, "s");
	if (n) {
		vm_fig_f("pte_chain_bytes_per_child",
			 pte_before >= 0 && pte_after >= 0 ?
			 (double)(pte_after - pte_before) / n : -1, "bytes");
		vm_fig_f("lowfree_kb_per_child",
			 low_before >= 0 && low_after >= 0 ?
			 (double)(low_before - low_after) / n : -1, "kB");
		if (pt_before >= 0 && pt_after >= 0)
			vm_fig_f("pagetables_kb_per_child",
				 (double)(pt_after - pt_before) / n, "kB");
		if (slab_before >= 0 && slab_after >= 0)
			vm_fig_f("slab_kb_per_child",
				 (double)(slab_after - slab_before) / n, "kB");
	}
	vm_fig_i("stop_reason", stop, "count");
	vm_fig_i("fork_errno", fork_err, "count");
	if (stop == STOP_FORK)
		ktap_diag("stopped: %s (%s) after %ld children",
			  stop_names[stop], strerror(fork_err), n);
	else if (stop == STOP_LOWMEM)
		ktap_diag("stopped: %s (LowFree %lld kB < %ld MB) after %ld "
			  "children", stop_names[stop], low_after, floor_mb,
			  n);
	else
		ktap_diag("stopped: %s after %ld children", stop_names[stop],
			  n);
	ktap_result(n >= 1, names[1], n >= 1 ? NULL : "no child forked");

	vm_phase("cleanup");
	t0 = vm_now_ms();
	left = vm_nchildren();
	vm_kill_all();
	vm_fig_f("cleanup_ms", vm_now_ms() - t0, "ms");
	ok = vm_nchildren() == 0 && left == n;
	if (!ok)
		ktap_diag("bookkeeping: %ld children known, %ld forked", left,
			  n);
	if (shmdt(seg) != 0) {
		ktap_diag("shmdt: %s", strerror(errno));
		ok = 0;
	} else {
		struct shmid_ds ds;

		/* IPC_RMID was done at creation: gone with the last detach */
		if (shmctl(shmid, IPC_STAT, &ds) == 0) {
			ktap_diag("segment %d still exists after detach",
				  shmid);
			ok = 0;
		}
	}
	fig_slab("cleanup", NULL);
	vm_fig_i("lowfree_kb_cleanup", vm_lowfree_kb(), "kB");
	ktap_result(ok, names[2], NULL);
	ktap_exit();
}
