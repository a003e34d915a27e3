// SPDX-License-Identifier: GPL-2.0
/*
 * truncate_nonlinear - file pages truncated under a remap_file_pages()
 * window must leave the window and stay reclaimable.
 *
 * 1. beyond EOF: a tmpfs file of 2W, mapped MAP_SHARED over W, the
 *    window remapped (remap_file_pages) to show the file's second half
 *    and dirtied, then the file truncated to W: touching the window must
 *    raise SIGBUS, as for any mapping beyond EOF.
 * 2. populate racing truncate (SMP): one process keeps repopulating a
 *    nonlinear window of a tmpfs file, touching each slot it remapped,
 *    while another truncates the file to 0 and writes it again with a
 *    new generation.  After a last truncate and rewrite, every window
 *    page must show the last generation: a page of an older one is a
 *    truncated page still mapped.  remap_file_pages() must never fail
 *    with ENOMEM (EINVAL beyond EOF is right) and the mapper must not
 *    be killed: a populate that meets a page truncate took while it
 *    waited once called that out of memory, and a fault on a file pte
 *    got VM_FAULT_OOM.
 * 3. reclaim: round after round, a window of W is remapped to the
 *    second half of a new file, dirtied, the file truncated to half and
 *    unlinked while the window stays mapped, until the rounds add up to
 *    -t times memory (capped to memory plus free swap).  A watchdog fails
 *    the subtest when the worker makes no progress for -S seconds (the
 *    kernel then holds pages it can neither unmap nor swap), printing
 *    MemFree and SwapFree; on 2.6.3 the pages are swapped as anonymous
 *    ones, with the series they are freed by the truncate.
 *
 * 4. 2 on a file in -d (a disk file system), where the populate waits
 *    for reads.
 *
 * 2.6.3 leaves truncated pages mapped in nonlinear windows (they show
 * stale data instead of SIGBUS), and has the ENOMEM (the fixes series
 * mends it): 1, 2 and 4 are skipped there with what was seen.
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
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "vmshm.h"

static const char summary[] =
	"truncate_nonlinear: truncated pages leave remap_file_pages windows\n"
	"(SIGBUS beyond EOF, no stale page after a populate race) and stay\n"
	"reclaimable under pressure";

static const char *const names[] = {
	"window beyond EOF raises SIGBUS",
	"populate racing truncate leaves no stale page",
	"truncated window pages do not pin memory",
	"populate racing truncate on a disk file leaves no stale page",
	NULL
};

#define BLK	VM_BLK

static long window_mb = 4;
static double total_factor = 1.25;
static long stall_s = 60;
static long race_s = 10;
static long race_pages = 64;

static const struct vm_opt opts[] = {
	{ 'w', VM_OPT_LONG, &window_mb, "MB", "window per round (4)" },
	{ 't', VM_OPT_DOUBLE, &total_factor, "X",
	  "rounds add up to X * mem (1.25)" },
	{ 'S', VM_OPT_LONG, &stall_s, "S",
	  "no progress for S seconds is a stall (60)" },
	{ 'r', VM_OPT_LONG, &race_s, "S", "race for S seconds (10)" },
	{ 'p', VM_OPT_LONG, &race_pages, "N", "race window pages (64)" },
	{ 0 }
};

static const char *dir;
static int stale_known;		/* 2.6.3 without the series */

static long remap(void *addr, size_t len, unsigned long pgoff)
{
	return syscall(SYS_remap_file_pages, addr, len, 0, pgoff, 0);
}

/* ---- 1 ---- */
static void test_beyond_eof(void)
{
	const char *name = names[0];
	size_t w = 16 * BLK;
	long npages = w / BLK, i, bus = 0;
	char path[256];
	uint32_t v;
	char *map;
	int fd;

	map = vm_scratch_map(dir, "eof", -1, 2 * w, w,
			     path, sizeof(path), &fd);
	if (!map) {
		ktap_fail(name, "file: %s", strerror(errno));
		return;
	}
	if (remap(map, w, npages)) {
		ktap_fail(name, "remap_file_pages: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < npages; i++)
		vm_fill_blk(map + i * BLK, 11, npages + i, 1);
	if (ftruncate(fd, w)) {
		ktap_fail(name, "ftruncate: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < npages; i++)
		bus += vm_read_bus((uint32_t *)(map + i * BLK), &v);
	vm_fig_i("eof_sigbus_pages", bus, "pages");
	if (bus == npages)
		ktap_ok(name, "%ld of %ld pages", bus, npages);
	else if (stale_known)
		ktap_skip(name, "2.6.3 keeps %ld of %ld truncated pages mapped",
			  npages - bus, npages);
	else
		ktap_fail(name, "%ld of %ld window pages still mapped after "
			  "truncate", npages - bus, npages);
out:
	munmap(map, w);
	vm_scratch_close(fd, path);
}

/* ---- 2 ---- */
struct race_shared {
	volatile int stop;
	volatile long truncates;
	volatile long populates;
	volatile long stale;
	volatile long sigbus;
	volatile long checked;
	volatile long enomem;
	volatile int done;
	volatile int tr_done;
};

static void rewrite(int fd, long npages, uint32_t gen, char *buf)
{
	long i;

	if (ftruncate(fd, 0) || ftruncate(fd, npages * BLK))
		_exit(2);
	for (i = 0; i < npages; i++) {
		vm_fill_blk(buf, 22, i, gen);
		if (vm_pwrite_all(fd, buf, BLK, i * BLK))
			_exit(2);
	}
}

static void race_truncater(int fd, long npages, struct race_shared *sh)
{
	static char buf[BLK];
	uint32_t gen = 1;

	while (!sh->stop) {
		rewrite(fd, npages, ++gen, buf);
		sh->truncates++;
	}
	sh->tr_done = 1;
	_exit(0);
}

static void race_mapper(int fd, long npages, struct race_shared *sh)
{
	static char buf[BLK];
	size_t w = npages * BLK;
	long i, bad, stale = 0, bus = 0;
	uint32_t exp, got, v;
	char *map;

	map = mmap(NULL, w, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		_exit(2);
	while (!sh->stop) {
		/* page i shows file page n-1-i; populated at once */
		for (i = 0; i < npages && !sh->stop; i++) {
			if (!remap(map + i * BLK, BLK, npages - 1 - i)) {
				sh->populates++;
				/* a fault if truncate zapped it: SIGBUS ok */
				vm_read_bus((uint32_t *)(map + i * BLK), &v);
			} else if (errno == ENOMEM) {
				sh->enomem++;
			}
		}
	}
	while (!sh->tr_done)
		vm_sleep_ms(10);
	/* the last generation: every page mapped now must show it */
	rewrite(fd, npages, 0x7fffffff, buf);
	for (i = 0; i < npages; i++) {
		if (vm_read_bus((uint32_t *)(map + i * BLK), &v)) {
			bus++;
			continue;
		}
		if (vm_check_blk(map + i * BLK, 22, npages - 1 - i,
				 0x7fffffff, &bad, &exp, &got)) {
			if (!stale)
				ktap_diag("window page %ld: word %ld is %#x, "
					  "want %#x", i, bad, got, exp);
			stale++;
		}
	}
	sh->stale = stale;
	sh->sigbus = bus;
	sh->checked = npages;
	sh->done = 1;
	_exit(0);
}

static void race_fig(const char *fig, const char *what, long v,
		     const char *unit)
{
	char key[64];

	snprintf(key, sizeof(key), "%s_%s", fig, what);
	vm_fig_i(key, v, unit);
}

static void test_race(const char *name, const char *where, const char *fig)
{
	struct race_shared *sh;
	pid_t tr, mp;
	char path[256];
	int fd, st;
	double t0;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	fd = vm_scratch_open(where, "race", -1, path, sizeof(path));
	if (sh == MAP_FAILED || fd < 0 ||
	    ftruncate(fd, race_pages * BLK)) {
		ktap_fail(name, "setup: %s", strerror(errno));
		return;
	}
	vm_phase(fig);
	tr = vm_fork();
	if (tr == 0)
		race_truncater(fd, race_pages, sh);
	mp = vm_fork();
	if (mp == 0)
		race_mapper(fd, race_pages, sh);
	t0 = vm_now_ms();
	while (vm_now_ms() - t0 < race_s * 1000.0)
		vm_sleep_ms(200);
	sh->stop = 1;
	vm_wait(tr, &st, NULL);
	vm_wait(mp, &st, NULL);
	vm_scratch_close(fd, path);
	race_fig(fig, "truncates", sh->truncates, "count");
	race_fig(fig, "populates", sh->populates, "count");
	race_fig(fig, "stale_pages", sh->stale, "pages");
	race_fig(fig, "enomem", sh->enomem, "count");
	if (sh->done && !sh->stale && !sh->sigbus && !sh->enomem)
		ktap_ok(name, "%ld truncates, %ld populates, %ld pages checked",
			sh->truncates, sh->populates, sh->checked);
	else if (stale_known)
		ktap_skip(name, "2.6.3: %ld stale pages (truncated, still "
			  "mapped), ENOMEM %ld times, mapper status %#x",
			  sh->stale, sh->enomem, sh->done ? 0 : st);
	else if (!sh->done)
		ktap_fail(name, "mapper ended with status %#x (%ld ENOMEM "
			  "before)", st, sh->enomem);
	else if (sh->enomem)
		ktap_fail(name, "remap_file_pages failed with ENOMEM %ld times "
			  "in %ld truncates", sh->enomem, sh->truncates);
	else
		ktap_fail(name, "%ld of %ld pages stale, %ld SIGBUS after "
			  "%ld truncates", sh->stale, sh->checked, sh->sigbus,
			  sh->truncates);
	munmap(sh, sizeof(*sh));
}

/* ---- 3 ---- */
struct pin_shared {
	volatile long rounds;
	volatile int done;
	volatile int failed;
};

static void pin_worker(long rounds, size_t w, struct pin_shared *sh)
{
	long npages = w / BLK, r, i;
	char path[256];
	char *map;
	int fd;

	for (r = 0; r < rounds; r++) {
		fd = vm_scratch_open(dir, "pin", r, path, sizeof(path));
		if (fd < 0 || ftruncate(fd, 2 * w))
			goto fail;
		map = mmap(NULL, w, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (map == MAP_FAILED || remap(map, w, npages))
			goto fail;
		for (i = 0; i < npages; i++)
			vm_fill_blk(map + i * BLK, 33, npages + i, r);
		if (ftruncate(fd, w))
			goto fail;
		vm_scratch_close(fd, path);	/* the window stays mapped */
		sh->rounds = r + 1;
	}
	sh->done = 1;
	pause();
	_exit(0);
fail:
	sh->failed = errno ? errno : -1;
	_exit(2);
}

static void test_pin(void)
{
	const char *name = names[2];
	size_t w = (size_t)window_mb * VM_MB;
	uint64_t total;
	struct pin_shared *sh;
	struct vm_vmstat_snap s0, s1;
	long rounds, last = -1;
	double t0, tlast;
	pid_t pid;
	int st;

	total = vm_cap_pressure((uint64_t)(total_factor * vm_mem_bytes()), 0);
	rounds = total / w;
	if (rounds < 1) {
		ktap_skip(name, "no room for one %ld MB window", window_mb);
		return;
	}
	vm_fig_i("pin_window", window_mb, "MB");
	vm_fig_i("pin_total", rounds * window_mb, "MB");
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		ktap_fail(name, "mmap: %s", strerror(errno));
		return;
	}
	vm_phase("pin");
	vm_vmstat_snap(&s0);
	pid = vm_fork();
	if (pid == 0)
		pin_worker(rounds, w, sh);
	t0 = tlast = vm_now_ms();
	while (!sh->done && !sh->failed) {
		if (sh->rounds != last) {
			last = sh->rounds;
			tlast = vm_now_ms();
			vm_progress("round %ld of %ld, MemFree %lld kB, "
				    "SwapFree %lld kB", last, rounds,
				    vm_meminfo_kb("MemFree"),
				    vm_meminfo_kb("SwapFree"));
		}
		if (vm_now_ms() - tlast > stall_s * 1000.0)
			break;
		if (vm_wait_timeout(pid, &st, NULL, 200) == 0) {
			pid = 0;
			break;
		}
	}
	vm_vmstat_snap(&s1);
	vm_fig_i("pin_rounds", sh->rounds, "count");
	vm_fig_f("pin_s", (vm_now_ms() - t0) / 1000.0, "s");
	vm_fig_i("pin_swapout", vm_vmstat_delta(&s0, &s1, VMS_PSWPOUT),
		 "pages");
	vm_fig_i("pin_memfree", vm_meminfo_kb("MemFree"), "kB");
	if (sh->done)
		ktap_ok(name, "%ld rounds of %ld MB in %.1f s", rounds,
			window_mb, (vm_now_ms() - t0) / 1000.0);
	else if (sh->failed)
		ktap_fail(name, "worker failed in round %ld: %s", sh->rounds,
			  sh->failed > 0 ? strerror(sh->failed) : "?");
	else if (!pid)
		ktap_fail(name, "worker died in round %ld (status %#x)",
			  sh->rounds, st);
	else
		ktap_fail(name, "stalled: no round for %ld s at round %ld of "
			  "%ld, MemFree %lld kB, SwapFree %lld kB", stall_s,
			  sh->rounds, rounds, vm_meminfo_kb("MemFree"),
			  vm_meminfo_kb("SwapFree"));
	if (pid) {
		kill(pid, SIGKILL);
		if (vm_wait_timeout(pid, &st, NULL, 10000) != 0) {
			/* stuck in the kernel: do not wait for it at exit */
			ktap_diag("worker %d did not die within 10 s of "
				  "SIGKILL", (int)pid);
			vm_forget_child(pid);
		}
	}
	munmap(sh, sizeof(*sh));
}

int main(int argc, char **argv)
{
	const char *data;
	struct utsname u;

	vm_init("truncate_nonlinear", argc, argv, opts, summary, 900);
	ktap_names(names);

	dir = vm_find_tmpfs(NULL);
	if (!dir)
		ktap_skip_all("no writable tmpfs");
	vm_remap_probe(dir);

	if (uname(&u) == 0 && !strncmp(u.release, "2.6.3", 5) &&
	    (u.release[5] == 0 || u.release[5] == '-') &&
	    !strstr(u.release, "vmshm"))
		stale_known = 1;

	vm_sigbus_install(3);

	ktap_header(4);
	test_beyond_eof();
	test_race(names[1], dir, "race");
	test_pin();
	data = vm_cfg.dir;
	if (vm_is_tmpfs(data) == 0 && !access(data, W_OK))
		test_race(names[3], data, "disk_race");
	else
		ktap_skip(names[3], "-d is not a disk file system");
	ktap_exit();
}
