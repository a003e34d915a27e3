// SPDX-License-Identifier: GPL-2.0
/*
 * idle_anon - an idle anonymous process and a file working set that only
 * fits if the idle memory goes to swap.
 *
 * A child touches -a percent of memory (80) once and then sleeps; a file
 * of -f percent (35) on the data disk is then read with read() in -p (6)
 * passes.  Memory cannot hold both.  2.6.3 at swappiness 60 reclaims
 * mapped pages once they are most of memory, so the idle pages go to
 * swap and the file stays cached; a reclaim policy that keeps mapped
 * pages while clean cache remains thrashes the file instead, re-reading
 * it from disk at every pass while the idle memory stays resident.
 *
 * Figures: the file's pages resident after each pass (mincore() on a
 * mapping that is never touched), the pages read from disk in the last
 * pass over those of the first (pgpgin), the pages swapped out, and the idle
 * child's VmRSS at the end.  One test line: after the last pass at least
 * half of the file is cached (-r to change the fraction) when swap could
 * take the idle pages; skipped without swap.  Swappiness is left at the
 * kernel's default (2.6.3: 60).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "vmshm.h"

static const char summary[] =
	"idle_anon: an idle anonymous process gives way to a file working set\n"
	"that only fits if the idle memory is swapped out";

static const char *const names[] = {
	"file working set cached, idle memory swapped", NULL
};

static long anon_pct = 80, file_pct = 35, passes = 6;
static double min_cached = 0.5;

static const struct vm_opt opts[] = {
	{ 'a', VM_OPT_LONG, &anon_pct, "PCT", "idle anonymous memory (80)" },
	{ 'f', VM_OPT_LONG, &file_pct, "PCT", "file working set (35)" },
	{ 'p', VM_OPT_LONG, &passes, "N", "read passes (6)" },
	{ 'r', VM_OPT_DOUBLE, &min_cached, "F",
	  "fraction of the file cached after the last pass (0.5)" },
	{ 0 }
};

/* The idle process: touch @bytes once, say so, then sleep until killed. */
static pid_t start_idler(uint64_t bytes, volatile int *ready)
{
	pid_t pid = vm_fork();
	char *p;
	uint64_t off;

	if (pid != 0)
		return pid;
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(2);
	for (off = 0; off < bytes; off += VM_BLK)
		p[off] = (char)(off >> 12) | 1;
	*ready = 1;
	for (;;)
		pause();
}

static int read_pass(int fd, char *buf, size_t bufsz)
{
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET) != 0)
		return -1;
	while ((n = read(fd, buf, bufsz)) > 0)
		;
	return n < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	const char *name = names[0];
	uint64_t anon, fbytes;
	volatile int *ready;
	struct vm_vmstat_snap s0, s1, p0, p1;
	char path[256], key[64], *buf;
	long npages, res = 0, k;
	long long swap_kb, pgin = 0, pgin_first = 0;
	void *map;
	pid_t idler;
	int fd;

	vm_init("idle_anon", argc, argv, opts, summary, 900);
	ktap_names(names);
	if (anon_pct < 1 || file_pct < 1 || anon_pct + file_pct < 101 ||
	    passes < 2)
		ktap_skip_all("-a + -f must exceed 100, -p at least 2");
	ktap_header(1);
	swap_kb = vm_meminfo_kb("SwapTotal");
	anon = vm_mem_bytes() / 100 * anon_pct;
	fbytes = vm_mem_bytes() / 100 * file_pct;
	if (swap_kb * VM_KB < anon / 2) {
		ktap_skip(name, "swap %lld kB cannot take the idle memory",
			  swap_kb);
		ktap_exit();
	}
	if (vm_fs_avail(vm_cfg.dir) < fbytes + 16 * VM_MB ||
	    vm_is_tmpfs(vm_cfg.dir) == 1) {
		ktap_skip(name, "%s: no disk file system with %llu MB free",
			  vm_cfg.dir, (unsigned long long)(fbytes / VM_MB));
		ktap_exit();
	}
	npages = fbytes / VM_BLK;
	vm_fig_i("idle_mb", (long long)(anon / VM_MB), "MB");
	vm_fig_i("file_pages", npages, "pages");

	vm_phase("write the file");
	snprintf(path, sizeof(path), "%s/vmshm-idle-%d", vm_cfg.dir,
		 (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		ktap_fail(name, "%s: %s", path, strerror(errno));
		ktap_exit();
	}
	vm_register_path(path);
	buf = malloc(64 * VM_KB);
	memset(buf, 0x3c, 64 * VM_KB);
	for (k = 0; k < (long)(fbytes / (64 * VM_KB)); k++)
		if (vm_write_all(fd, buf, 64 * VM_KB)) {
			ktap_fail(name, "write: %s", strerror(errno));
			goto out;
		}
	fsync(fd);
	map = mmap(NULL, fbytes, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		ktap_fail(name, "mmap: %s", strerror(errno));
		goto out;
	}

	vm_phase("idle process");
	ready = mmap(NULL, sizeof(*ready), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	vm_vmstat_snap(&s0);
	idler = start_idler(anon, ready);
	while (!*ready)
		vm_sleep_ms(50);

	vm_phase("read passes");
	for (k = 0; k < passes; k++) {
		vm_vmstat_snap(&p0);
		if (read_pass(fd, buf, 64 * VM_KB)) {
			ktap_fail(name, "read: %s", strerror(errno));
			goto out_kill;
		}
		vm_vmstat_snap(&p1);
		pgin = vm_vmstat_delta(&p0, &p1, VMS_PGPGIN);
		if (k == 0)
			pgin_first = pgin;
		res = vm_resident_pages(map, (size_t)npages * VM_BLK);
		snprintf(key, sizeof(key), "pass%ld_resident", k + 1);
		vm_fig_i(key, res, "pages");
		vm_progress("pass %ld: %ld of %ld pages cached", k + 1, res,
			    npages);
	}
	vm_vmstat_snap(&s1);
	vm_fig_i("idle_rss_kb", vm_pid_status_kb(idler, "VmRSS"), "kB");
	vm_fig_i("first_pass_pgpgin", pgin_first, "pgpgin");
	vm_fig_i("last_pass_pgpgin", pgin, "pgpgin");
	if (pgin_first > 0)
		vm_fig_f("last_over_first_read", (double)pgin / pgin_first,
			 "ratio");
	vm_fig_i("swapout_pages", vm_vmstat_delta(&s0, &s1, VMS_PSWPOUT),
		 "pages");
	vm_fig_i("swapin_pages", vm_vmstat_delta(&s0, &s1, VMS_PSWPIN),
		 "pages");
	vm_fig_f("last_pass_cached", (double)res / npages, "ratio");
	if (res >= min_cached * npages)
		ktap_ok(name, "%ld of %ld file pages cached after %ld passes",
			res, npages, passes);
	else
		ktap_fail(name, "%ld of %ld file pages cached after %ld "
			  "passes (want %.0f%%): the file thrashes while the "
			  "idle memory stays", res, npages, passes,
			  min_cached * 100);
out_kill:
	kill(idler, SIGKILL);
	vm_wait(idler, NULL, NULL);
out:
	close(fd);
	unlink(path);
	vm_unregister_path(path);
	ktap_exit();
}
