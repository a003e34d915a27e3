// SPDX-License-Identifier: GPL-2.0
/*
 * oom_locked - memory full of locked pages, with swap free, must end in
 * an error or an OOM kill, not a silent machine.
 *
 * A locker process mlock()s anonymous memory in chunks of -c MB, one
 * after the other, until mmap() or mlock() fails, the OOM killer kills
 * it, or it has locked -b times memory (a bound it cannot reach).  In the
 * second case it first creates a SysV segment of -s percent of memory,
 * SHM_LOCKs it and touches every page, then does the same.  Locked pages
 * cannot go to swap, so swap stays free while memory fills: 2.6.3's
 * out_of_memory() declines whenever any swap is free, and the
 * allocation that finds memory full loops in __alloc_pages() for ever.
 *
 * Each locker runs in a process group of its own, watched by the
 * parent, which ends the case at the first of: the locker got an error
 * (ok), the OOM killer killed a process (counted in the kernel log: ok),
 * the bound (not ok), or no chunk locked and nothing killed for -S
 * seconds (60): a stall, not ok.  The watcher itself may not get to run
 * when the kernel livelocks; the runner's quiet timeout then reports it.
 *
 * Figures per case: locked_mb, swapfree_kb at the end, oom_kills,
 * end_after_s (from the last chunk locked to the end).  Needs root
 * (CAP_IPC_LOCK) and swap; skips without them.
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
	"oom_locked: lock memory until the kernel says no, with swap free:\n"
	"an error or an OOM kill, never a stall";

static const char *const names[] = {
	"mlock until failure ends cleanly",
	"SHM_LOCK and mlock until failure ends cleanly", NULL
};

static long chunk_mb = 1, bound_x = 2, shm_pct = 50, stall_s = 60;

static const struct vm_opt opts[] = {
	{ 'c', VM_OPT_LONG, &chunk_mb, "MB", "mlock chunk (1)" },
	{ 'b', VM_OPT_LONG, &bound_x, "X", "stop at X times memory (2)" },
	{ 's', VM_OPT_LONG, &shm_pct, "PCT",
	  "SHM_LOCKed segment, percent of memory (50)" },
	{ 'S', VM_OPT_LONG, &stall_s, "SEC",
	  "no chunk and no kill for SEC seconds is a stall (60)" },
	{ 0 }
};

struct locker_state {
	volatile long chunks;		/* chunks locked so far */
	volatile long shm_mb;		/* the SHM_LOCKed segment, when made */
	volatile double last_ok;	/* vm_now_ms() of the last chunk */
	volatile int err;		/* errno of the failed call */
	volatile int bound;		/* the bound was reached */
};

static void locker(struct locker_state *ls, uint64_t shm_bytes,
		   uint64_t bound)
{
	size_t chunk = (size_t)chunk_mb * VM_MB;
	uint64_t done = 0, off;

	setpgid(0, 0);
	if (shm_bytes) {
		int id;
		char *seg = vm_shm_create(shm_bytes, &id);

		if (!seg || shmctl(id, SHM_LOCK, NULL)) {
			ls->err = errno ? errno : ENOMEM;
			_exit(2);
		}
		for (off = 0; off < shm_bytes; off += vm_pagesize)
			seg[off] = 1;
		ls->shm_mb = (long)(shm_bytes / VM_MB);
		done = shm_bytes;
	}
	ls->last_ok = vm_now_ms();
	while (done < bound) {
		char *p = mmap(NULL, chunk, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED || mlock(p, chunk)) {
			ls->err = errno;
			_exit(0);
		}
		done += chunk;
		ls->chunks++;
		ls->last_ok = vm_now_ms();
	}
	ls->bound = 1;
	_exit(0);
}

static void one_case(const char *name, const char *fig, uint64_t shm_bytes)
{
	uint64_t bound = vm_mem_bytes() * (uint64_t)bound_x;
	struct locker_state *ls;
	long oom0, oom1 = -1, last = -1;
	double t_last, t_oom = 0, now = 0;
	int st = 0, ended = 0;
	char key[96];
	pid_t pid;

	ls = mmap(NULL, sizeof(*ls), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ls == MAP_FAILED) {
		ktap_fail(name, "mmap: %s", strerror(errno));
		return;
	}
	oom0 = vm_oom_kills();
	vm_phase(name);
	pid = vm_fork();
	if (pid == 0)
		locker(ls, shm_bytes, bound);
	t_last = vm_now_ms();
	for (;;) {
		if (vm_wait_timeout(pid, &st, NULL, 250) == 0) {
			ended = 1;
			break;
		}
		now = vm_now_ms();
		if (ls->chunks != last) {
			last = ls->chunks;
			t_last = now;
			vm_progress("%s: %ld MB locked, MemFree %lld kB, "
				    "SwapFree %lld kB", fig,
				    ls->shm_mb + last * chunk_mb,
				    vm_meminfo_kb("MemFree"),
				    vm_meminfo_kb("SwapFree"));
		}
		if (oom0 >= 0 && now - t_oom >= 1000.0) {
			t_oom = now;
			oom1 = vm_oom_kills();
			if (oom1 > oom0)
				break;
		}
		if (now - t_last > stall_s * 1000.0)
			break;
	}
	now = vm_now_ms();
	if (oom0 >= 0 && oom1 <= oom0)
		oom1 = vm_oom_kills();
	snprintf(key, sizeof(key), "%s_locked_mb", fig);
	vm_fig_i(key, ls->shm_mb + ls->chunks * chunk_mb, "MB");
	snprintf(key, sizeof(key), "%s_swapfree_kb", fig);
	vm_fig_i(key, vm_meminfo_kb("SwapFree"), "kB");
	snprintf(key, sizeof(key), "%s_oom_kills", fig);
	vm_fig_i(key, oom0 >= 0 && oom1 >= 0 ? oom1 - oom0 : -1, "count");
	snprintf(key, sizeof(key), "%s_end_after_s", fig);
	vm_fig_f(key, (now - ls->last_ok) / 1000.0, "s");

	if (oom0 >= 0 && oom1 > oom0)
		ktap_ok(name, "OOM kill after %ld MB locked, %.1f s after the "
			"last chunk", ls->shm_mb + ls->chunks * chunk_mb,
			(now - ls->last_ok) / 1000.0);
	else if (ended && WIFSIGNALED(st))
		ktap_ok(name, "locker killed by signal %d after %ld MB",
			WTERMSIG(st), ls->shm_mb + ls->chunks * chunk_mb);
	else if (ended && WIFEXITED(st) && ls->bound)
		ktap_fail(name, "locked %ld MB, %ld times memory: mlock does "
			  "not lock?", ls->shm_mb + ls->chunks * chunk_mb,
			  bound_x);
	else if (ended && WIFEXITED(st) && ls->err)
		ktap_ok(name, "%s after %ld MB locked", strerror(ls->err),
			ls->shm_mb + ls->chunks * chunk_mb);
	else if (ended)
		ktap_fail(name, "locker exited %d",
			  WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	else
		ktap_fail(name, "stalled: nothing locked or killed for %ld s "
			  "at %ld MB, MemFree %lld kB, SwapFree %lld kB",
			  stall_s, ls->shm_mb + ls->chunks * chunk_mb,
			  vm_meminfo_kb("MemFree"),
			  vm_meminfo_kb("SwapFree"));

	vm_phase("cleanup");
	vm_kill_group(pid, ended, "locker");
	munmap(ls, sizeof(*ls));
	/* the next case starts after the kill has given memory back */
	vm_sleep_ms(2000);
}

int main(int argc, char **argv)
{
	long long swap_kb;

	vm_init("oom_locked", argc, argv, opts, summary, 600);
	ktap_names(names);
	if (chunk_mb < 1 || bound_x < 1 || shm_pct < 1 || shm_pct > 90)
		ktap_skip_all("-c, -b at least 1, -s within 1..90");
	if (geteuid() != 0)
		ktap_skip_all("needs root (CAP_IPC_LOCK)");
	swap_kb = vm_meminfo_kb("SwapFree");
	ktap_header(2);
	if (swap_kb <= 0) {
		/* 2.6.3 kills at once without swap: nothing to show */
		ktap_skip(names[0], "no free swap");
		ktap_skip(names[1], "no free swap");
		ktap_exit();
	}
	vm_fig_i("mem_mb", vm_cfg.mem_mb, "MB");
	vm_fig_i("swapfree_kb_before", swap_kb, "kB");
	one_case(names[0], "mlock", 0);
	one_case(names[1], "shm_lock", vm_mem_bytes() / 100 * shm_pct);
	ktap_exit();
}
