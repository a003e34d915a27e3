// SPDX-License-Identifier: GPL-2.0
/*
 * anon_fill - touch anonymous memory beyond memory plus swap; the run
 * must end in an OOM kill or ENOMEM, not a silent guest (issue 14,
 * "swap full" and "no swap", exploratory).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "vmshm.h"

static const char *const names[] = { "fill ends cleanly", NULL };

int main(int argc, char **argv)
{
	volatile long *mb;
	long oom0, oom1;
	double t0, t_last;
	long last = -1;
	int st = 0, ended = 0;
	pid_t pid;

	vm_init("anon_fill", argc, argv, NULL, "anon_fill: touch anonymous "
		"memory until the kernel says no", 600);
	ktap_names(names);
	ktap_header(1);
	mb = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (mb == MAP_FAILED) {
		ktap_fail(names[0], "mmap: %s", strerror(errno));
		ktap_exit();
	}
	oom0 = vm_oom_kills();
	vm_fig_i("swapfree_kb_before", vm_meminfo_kb("SwapFree"), "kB");
	pid = vm_fork();
	if (pid == 0) {
		setpgid(0, 0);
		for (;;) {
			char *p = mmap(NULL, VM_MB, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			long off;

			if (p == MAP_FAILED)
				_exit(1);
			for (off = 0; off < VM_MB; off += 4096)
				p[off] = 1;
			(*mb)++;
		}
	}
	t0 = t_last = vm_now_ms();
	for (;;) {
		double now;

		if (vm_wait_timeout(pid, &st, NULL, 500) == 0) {
			ended = 1;
			break;
		}
		now = vm_now_ms();
		if (*mb != last) {
			last = *mb;
			t_last = now;
			vm_progress("%ld MB touched, SwapFree %lld kB", last,
				    vm_meminfo_kb("SwapFree"));
		}
		if (now - t_last > 60000.0)
			break;
	}
	oom1 = vm_oom_kills();
	vm_fig_i("touched_mb", *mb, "MB");
	vm_fig_i("oom_kills", oom1 - oom0, "count");
	vm_fig_f("end_after_s", (vm_now_ms() - t_last) / 1000.0, "s");
	vm_fig_f("total_s", (vm_now_ms() - t0) / 1000.0, "s");
	if (ended && WIFSIGNALED(st))
		ktap_ok(names[0], "filler killed by signal %d after %ld MB",
			WTERMSIG(st), *mb);
	else if (ended)
		ktap_ok(names[0], "filler exited %d after %ld MB",
			WIFEXITED(st) ? WEXITSTATUS(st) : -1, *mb);
	else
		ktap_fail(names[0], "stalled at %ld MB for 60 s", *mb);
	vm_kill_group(pid, ended, "filler");
	ktap_exit();
}
