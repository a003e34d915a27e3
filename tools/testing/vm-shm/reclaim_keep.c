// SPDX-License-Identifier: GPL-2.0
/*
 * reclaim_keep - what reclaim must leave mapped under pressure.
 *
 * 1. SHM_LOCK: a segment of -s MB, SHM_LOCKed, attached and read by -n
 *    workers, then left idle while an anonymous hog runs.  The segment
 *    can never be written to swap, so unmapping its pages only costs the
 *    workers faults (minor and major): when they read it all again after
 *    the hog, their faults must stay under one per ten pages.
 * 2. nonlinear hot set: a tmpfs file of -f MB (mem/2, at most 3/4 of
 *    the room left in the tmpfs) that each of -n workers
 *    maps through a remap_file_pages() window (page i shows file page
 *    n-1-i); every worker (at nice -10 when allowed) keeps touching
 *    the first -H percent of the window every 50 ms.  Under the hog the hot set must stay mapped (faults
 *    of the hot set at most one per hot page over the whole hog) while
 *    at least a quarter of the cold part is reclaimed (figure: cold
 *    pages still resident in the page cache, by mincore() on a linear
 *    mapping).
 *
 * 2.6.3 unmaps both (its pte_chain walk ignores SHM_LOCK and does not
 * reach nonlinear ptes' young bits either), so the limits are only
 * enforced on a kernel with the series; elsewhere they are skipped with
 * the figures.  The series unmaps a nonlinear pte only if it stayed old
 * for HZ/2 (a lap of the sweep starts no sooner than that after the
 * last one ended), so the hot-set limit holds as long as every worker
 * came round within that time; a run in which one did not (figure:
 * nl_max_pass_gap_ms) says nothing about the kernel and is skipped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/utsname.h>

#include "vmshm.h"

static const char summary[] =
	"reclaim_keep: under pressure a SHM_LOCKed segment stays mapped, and\n"
	"the hot part of a nonlinear window stays mapped while the cold part\n"
	"is reclaimed";

static const char *const names[] = {
	"SHM_LOCKed segment stays mapped",
	"nonlinear hot set stays mapped, cold part reclaimed",
	NULL
};

#define BLK	VM_BLK

static long seg_mb = -1, file_mb = -1, workers = 4, hot_pct = 10;
static double hog_factor = 1.0;

static const struct vm_opt opts[] = {
	{ 's', VM_OPT_LONG, &seg_mb, "MB", "SHM_LOCK segment (mem/4)" },
	{ 'f', VM_OPT_LONG, &file_mb, "MB", "nonlinear file (mem/2)" },
	{ 'n', VM_OPT_LONG, &workers, "N", "workers (4)" },
	{ 'H', VM_OPT_LONG, &hot_pct, "PCT", "hot part of the window (10)" },
	{ 'x', VM_OPT_DOUBLE, &hog_factor, "X", "hog of X * mem (1.0)" },
	{ 0 }
};

static int series_kernel;	/* the limits are enforced */

struct wshared {
	volatile int stop;
	volatile int idle;		/* no passes until measuring */
	volatile int measuring;
	volatile long ready;
	volatile long minflt[16];
	volatile long passes[16];
	volatile double max_gap_ms[16];	/* longest time between passes */
};

/*
 * Faults of this process, minor and major: a nonlinear pte that reclaim
 * turned into a file pte comes back through ->populate, which 2.6.3
 * counts as a major fault even when the page is still in memory.
 */
static long minflt_now(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt + ru.ru_majflt;
}

/* Touch @len bytes of @p page by page, then sleep a little, until stop. */
static void worker_loop(int id, volatile char *p, size_t len,
			struct wshared *sh)
{
	long base = -1;
	size_t off;
	int measuring = 0;
	double last = 0;

	/*
	 * "In use" must mean used: under an anonymous hog on one CPU a
	 * worker at the hog's priority may not run for seconds, and a page
	 * idle that long is fair game.  Root may raise the workers.
	 */
	setpriority(PRIO_PROCESS, 0, -10);
	for (off = 0; off < len; off += BLK)
		(void)p[off];
	__sync_fetch_and_add(&sh->ready, 1);
	while (!sh->stop) {
		if (sh->idle && !sh->measuring) {
			vm_sleep_ms(50);
			continue;
		}
		if (sh->measuring && !measuring) {
			measuring = 1;
			base = minflt_now();
			last = vm_now_ms();
		}
		for (off = 0; off < len; off += BLK)
			(void)p[off];
		if (measuring) {
			double now = vm_now_ms();

			sh->minflt[id] = minflt_now() - base;
			if (now - last > sh->max_gap_ms[id])
				sh->max_gap_ms[id] = now - last;
			last = now;
		}
		sh->passes[id]++;
		if (sh->idle)
			break;		/* one pass after the hog */
		vm_sleep_ms(50);
	}
	_exit(0);
}

static void start_workers(struct wshared *sh, pid_t *pid,
			  void (*fn)(int, struct wshared *))
{
	long i;

	for (i = 0; i < workers; i++) {
		pid[i] = vm_fork();
		if (pid[i] == 0)
			fn(i, sh);
	}
	while (sh->ready < workers)
		vm_sleep_ms(50);
}

static double nl_max_gap_ms;	/* longest pause of a worker under the hog */

/* The series' shortest time a nonlinear pte is left old before unmap. */
#define NL_LAP_GAP_MS	500

/* Run the hog with the workers measuring; returns the total minflt. */
static long pressure(struct wshared *sh, pid_t *pid, uint64_t held,
		     long long *swapout)
{
	struct vm_vmstat_snap s0, s1;
	struct vm_hog hog;
	uint64_t bytes;
	long i, sum = 0, passes = 0;
	double gap = 0;

	bytes = vm_cap_pressure((uint64_t)(hog_factor * vm_mem_bytes()), held);
	if (!sh->idle) {
		sh->measuring = 1;
		vm_sleep_ms(300);
	}
	vm_vmstat_snap(&s0);
	if (vm_hog_start(&hog, bytes) == 0) {
		vm_hog_wait(&hog, 300, NULL, NULL);
		vm_sleep_ms(1000);
		vm_hog_stop(&hog, NULL);
	}
	vm_vmstat_snap(&s1);
	*swapout = vm_vmstat_delta(&s0, &s1, VMS_PSWPOUT);
	if (sh->idle)
		sh->measuring = 1;	/* the one pass that counts */
	else
		sh->stop = 1;
	for (i = 0; i < workers; i++) {
		vm_wait(pid[i], NULL, NULL);
		sum += sh->minflt[i];
		passes += sh->passes[i];
		if (sh->max_gap_ms[i] > gap)
			gap = sh->max_gap_ms[i];
	}
	if (!sh->idle) {
		vm_fig_f("nl_max_pass_gap_ms", gap, "ms");
		nl_max_gap_ms = gap;
	}
	vm_fig_i(sh->idle ? "shm_passes" : "nl_passes", passes, "count");
	vm_fig_i("hog_mb", (long long)(bytes / VM_MB), "MB");
	return sum;
}

/* ---- 1 ---- */
static char *shm_seg;
static size_t shm_len;

static void shm_worker(int id, struct wshared *sh)
{
	worker_loop(id, shm_seg, shm_len, sh);
}

static void test_shm_lock(void)
{
	const char *name = names[0];
	pid_t pid[16];
	struct wshared *sh;
	long long swapout;
	long flt, pages, limit;
	int id;

	shm_len = (size_t)seg_mb * VM_MB;
	pages = shm_len / BLK;
	shm_seg = vm_shm_create(shm_len, &id);
	if (!shm_seg) {
		ktap_fail(name, "cannot create a %ld MB segment", seg_mb);
		return;
	}
	if (shmctl(id, SHM_LOCK, NULL)) {
		ktap_skip(name, "SHM_LOCK: %s", strerror(errno));
		shmdt(shm_seg);
		return;
	}
	memset(shm_seg, 0x5a, shm_len);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	sh->idle = 1;
	vm_phase("shm_lock");
	start_workers(sh, pid, shm_worker);
	flt = pressure(sh, pid, shm_len, &swapout);
	shmctl(id, SHM_UNLOCK, NULL);
	shmdt(shm_seg);
	limit = pages / 10;
	vm_fig_i("shm_pages", pages, "pages");
	vm_fig_i("shm_faults", flt, "faults");
	vm_fig_i("shm_hog_swapout", swapout, "pages");
	if (flt <= limit)
		ktap_ok(name, "%ld faults on %ld pages, %ld workers",
			flt, pages, workers);
	else if (!series_kernel)
		ktap_skip(name, "not enforced on this kernel: %ld "
			  "faults on %ld pages", flt, pages);
	else
		ktap_fail(name, "%ld faults on %ld pages (limit %ld): "
			  "the locked segment was unmapped", flt, pages, limit);
	munmap(sh, sizeof(*sh));
}

/* ---- 2 ---- */
static int nl_fd;
static long nl_pages, nl_hot;

static void nl_worker(int id, struct wshared *sh)
{
	size_t len = nl_pages * BLK;
	char *map;
	long i;

	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, nl_fd, 0);
	if (map == MAP_FAILED)
		_exit(2);
	for (i = 0; i < nl_pages; i++)
		if (syscall(SYS_remap_file_pages, map + i * BLK, BLK, 0,
			    nl_pages - 1 - i, 0))
			_exit(2);
	/* the cold part is touched once, the hot part all the time */
	for (i = nl_hot; i < nl_pages; i++)
		(void)((volatile char *)map)[i * BLK];
	worker_loop(id, map, nl_hot * BLK, sh);
}

static void test_nonlinear(void)
{
	const char *name = names[1];
	const char *dir = vm_find_tmpfs(NULL);
	pid_t pid[16];
	struct wshared *sh;
	long long swapout;
	long flt, i, cold_res = 0;
	unsigned char *vec;
	char path[256], *lin;
	size_t len;

	if (!dir || file_mb < 1) {
		ktap_skip(name, dir ? "no room in the tmpfs" : "no tmpfs");
		return;
	}
	nl_pages = (long)file_mb * VM_MB / BLK;
	nl_hot = nl_pages * hot_pct / 100;
	len = nl_pages * BLK;
	snprintf(path, sizeof(path), "%s/vmshm-keep-%d", dir, (int)getpid());
	nl_fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (nl_fd < 0 || ftruncate(nl_fd, len)) {
		ktap_fail(name, "file: %s", strerror(errno));
		return;
	}
	vm_register_path(path);
	lin = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, nl_fd, 0);
	if (lin == MAP_FAILED) {
		ktap_fail(name, "mmap: %s", strerror(errno));
		goto out;
	}
	memset(lin, 0xa5, len);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	vm_phase("nonlinear");
	start_workers(sh, pid, nl_worker);
	flt = pressure(sh, pid, len, &swapout);
	/* window page i is file page n-1-i: the hot part is the file's end */
	vec = malloc(nl_pages);
	if (vec && mincore(lin, len, vec) == 0)
		for (i = 0; i < nl_pages - nl_hot; i++)
			cold_res += vec[i] & 1;
	free(vec);
	munmap(lin, len);
	vm_fig_i("nl_hot_pages", nl_hot, "pages");
	vm_fig_i("nl_hot_faults", flt, "faults");
	vm_fig_i("nl_cold_pages", nl_pages - nl_hot, "pages");
	vm_fig_i("nl_cold_resident", cold_res, "pages");
	vm_fig_i("nl_hog_swapout", swapout, "pages");
	if (flt <= nl_hot && cold_res <= (nl_pages - nl_hot) * 3 / 4)
		ktap_ok(name, "%ld faults on %ld hot pages, %ld of %ld "
			"cold pages resident", flt, nl_hot, cold_res,
			nl_pages - nl_hot);
	else if (!series_kernel)
		ktap_skip(name, "not enforced on this kernel: %ld "
			  "faults on %ld hot pages, %ld of %ld cold resident",
			  flt, nl_hot, cold_res, nl_pages - nl_hot);
	else if (nl_max_gap_ms >= NL_LAP_GAP_MS &&
		 cold_res <= (nl_pages - nl_hot) * 3 / 4)
		/* a worker idle that long was not using its pages */
		ktap_skip(name, "a worker paused %.0f ms (>= %d ms): %ld "
			  "faults on %ld hot pages", nl_max_gap_ms,
			  NL_LAP_GAP_MS, flt, nl_hot);
	else
		ktap_fail(name, "%ld faults on %ld hot pages (limit "
			  "%ld), %ld of %ld cold pages resident", flt, nl_hot,
			  nl_hot, cold_res, nl_pages - nl_hot);
	munmap(sh, sizeof(*sh));
out:
	close(nl_fd);
	unlink(path);
	vm_unregister_path(path);
}

int main(int argc, char **argv)
{
	struct utsname u;

	vm_init("reclaim_keep", argc, argv, opts, summary, 900);
	ktap_names(names);
	if (seg_mb < 0)
		seg_mb = vm_cfg.mem_mb / 4;
	if (file_mb < 0)
		file_mb = vm_cfg.mem_mb / 2;
	/* a tmpfs is half of memory by default: leave it some room */
	{
		const char *dir = vm_find_tmpfs(NULL);
		long room = dir ? (long)(vm_fs_avail(dir) / VM_MB) * 3 / 4 : 0;

		if (dir && file_mb > room)
			file_mb = room;
	}
	if (workers < 1 || workers > 16)
		ktap_skip_all("-n must be 1 to 16");
	if (uname(&u) == 0 && strstr(u.release, "vmshm"))
		series_kernel = 1;
	ktap_header(2);
	test_shm_lock();
	test_nonlinear();
	ktap_exit();
}
