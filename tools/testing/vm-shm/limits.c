// SPDX-License-Identifier: GPL-2.0
/*
 * limits - push the VM to a limit, and see that it ends cleanly.
 *
 * Each case runs in a process group of its own and grows one thing
 * until the kernel says no: an error (ENOMEM, EAGAIN), a signal, or an
 * OOM kill counted in the kernel log.  The parent watches its progress
 * counter and ends the case at the first of those (ok), at a bound the
 * case cannot honestly reach (not ok), or when nothing grew and nothing
 * was killed for -S seconds (60): a stall, not ok.  A kernel that
 * starves the parent too is left to the runner's quiet timeout.
 *
 *   anon_fill   touch anonymous memory 1 MB at a time, past memory
 *               and swap (with a small swap disk: swap full; with
 *               none: no swap);
 *   fork_file   map a file of -f percent of memory MAP_SHARED, touch
 *               it, fork children that sleep, until fork fails;
 *   fork_cow    the same with anonymous memory; each child writes an
 *               eighth of it (copy on write);
 *   map_count   map one page of a file at a time, every other one
 *               read-only so none merge, touching each, until mmap
 *               fails (vm.max_map_count);
 *   nonlinear   4096 shared vmas of 16 pages on one file, each made
 *               nonlinear with remap_file_pages and touched, then the
 *               file truncated to nothing (a page past EOF must raise
 *               SIGBUS) and the vmas unmapped;
 *   disk_write  write() a file in -d until the disk is full: ENOSPC;
 *   disk_mmap   a sparse file of the free space plus memory in
 *               -d, mapped MAP_SHARED and written page by page (dirty
 *               pages the disk cannot take, more than memory holds
 *               when the disk is small), then msync(MS_SYNC) and
 *               fsync: one of them must report the error (ENOSPC or
 *               EIO); a SIGBUS or an OOM kill also ends it cleanly.
 *               Both skip when -d is a tmpfs or has more than 4 GB free.
 *
 * Figures per case: count (MB, children, vmas), oom_kills, end_after_s
 * (from the last step to the end), total_s.
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
#include <sys/prctl.h>
#include <sys/wait.h>

#include "vmshm.h"

static const char summary[] =
	"limits: anonymous fill, fork with big file and COW mappings, the\n"
	"map count, nonlinear vmas: each ends in an error, a signal or an\n"
	"OOM kill, never a stall";

static const char *const names[] = {
	"anonymous fill past memory and swap ends cleanly",
	"fork with a large shared file mapping ends cleanly",
	"fork with large copy-on-write memory ends cleanly",
	"vmas up to the map count end cleanly",
	"thousands of nonlinear vmas on one file, truncated",
	"write() to a full disk fails with ENOSPC",
	"dirty shared mapping beyond the free disk space is reported",
	NULL
};

static long stall_s = 60, file_pct = 25;
static const char *only;

static const struct vm_opt opts[] = {
	{ 'S', VM_OPT_LONG, &stall_s, "SEC",
	  "nothing grown and nothing killed for SEC seconds is a stall (60)" },
	{ 'f', VM_OPT_LONG, &file_pct, "PCT",
	  "mapping the fork cases share, percent of memory (25)" },
	{ 'c', VM_OPT_STR, &only, "CASES",
	  "only these cases, e.g. anon_fill,fork_cow (the rest SKIP)" },
	{ 0 }
};

#define MAX_PIDS	32768

struct state {
	volatile long count;		/* steps so far */
	volatile double last_ok;	/* vm_now_ms() of the last step */
	volatile int err;		/* errno of the call that failed */
	volatile int bound;		/* the bound was reached */
	volatile int done;		/* the case finished its own work */
	volatile int bad;		/* ... and found it wrong (in what) */
	volatile int setup;		/* failed before growing anything */
	char what[128];			/* the failed call */
	volatile long npids;		/* the case's processes, for OOM */
	volatile pid_t pids[MAX_PIDS];
};

static struct state *cs;

static void step(void)
{
	cs->count++;
	cs->last_ok = vm_now_ms();
}

static void VM_NORETURN fail_call(const char *what)
{
	cs->err = errno ? errno : EINVAL;
	snprintf(cs->what, sizeof(cs->what), "%s", what);
	_exit(0);
}

/* a failure before the case grew anything: not a limit */
static void VM_NORETURN setup_fail(const char *what)
{
	cs->setup = 1;
	fail_call(what);
}

static void add_pid(pid_t pid)
{
	long n = __sync_fetch_and_add(&cs->npids, 1);

	if (n < MAX_PIDS)
		cs->pids[n] = pid;
}

/* a forked child that waits; it must not outlive its case */
static void VM_NORETURN sleeper(pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (getppid() != parent)
		_exit(0);
	for (;;)
		pause();
}

static char *map_file(const char *name, uint64_t bytes, int *fdp)
{
	char path[256];
	char *p;
	int fd;

	snprintf(path, sizeof(path), "%s/limits-%s", vm_cfg.dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		setup_fail("open");
	unlink(path);
	if (ftruncate(fd, (off_t)bytes))
		setup_fail("ftruncate");
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		setup_fail("mmap");
	if (fdp)
		*fdp = fd;
	return p;
}

static void case_anon_fill(void)
{
	uint64_t bound = 2 * (uint64_t)(vm_meminfo_kb("MemTotal") +
					VM_MAX(vm_meminfo_kb("SwapTotal"), 0)) *
			 1024;
	uint64_t done = 0, off;

	while (done < bound) {
		char *p = mmap(NULL, VM_MB, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			fail_call("mmap");
		for (off = 0; off < VM_MB; off += vm_pagesize)
			p[off] = 1;
		done += VM_MB;
		step();
	}
	cs->bound = 1;
	_exit(0);
}

static void fork_until_failure(char *p, uint64_t bytes, int cow)
{
	uint64_t off, part = bytes / 8;
	pid_t pid, me = getpid();
	volatile char sum = 0;

	/* the file is read, not dirtied: writeback has no part in it */
	for (off = 0; off < bytes; off += vm_pagesize)
		if (cow)
			p[off] = 1;
		else
			sum += p[off];
	while (cs->count < 30000) {
		pid = fork();
		if (pid < 0)
			fail_call("fork");
		if (pid == 0) {
			if (cow) {
				/* a different eighth in each child */
				uint64_t s = part * (uint64_t)(cs->count % 8);

				for (off = 0; off < part; off += vm_pagesize)
					p[s + off] = 2;
			}
			sleeper(me);
		}
		add_pid(pid);
		step();
	}
	cs->bound = 1;
	_exit(0);
}

static void case_fork_file(void)
{
	uint64_t bytes = vm_vsize_cap(vm_mem_bytes() / 100 * file_pct);

	fork_until_failure(map_file("fork", bytes, NULL), bytes, 0);
}

static void case_fork_cow(void)
{
	uint64_t bytes = vm_vsize_cap(vm_mem_bytes() / 100 * file_pct);
	char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		setup_fail("mmap");
	fork_until_failure(p, bytes, 1);
}

static void case_map_count(void)
{
	long n = 0, pages = 4096;
	char path[256];
	char *p;
	int fd;

	snprintf(path, sizeof(path), "%s/limits-maps", vm_cfg.dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		setup_fail("open");
	unlink(path);
	if (ftruncate(fd, pages * vm_pagesize))
		setup_fail("ftruncate");
	while (n < 1000000) {
		p = mmap(NULL, vm_pagesize, n & 1 ? PROT_READ :
			 PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			 (n % pages) * vm_pagesize);
		if (p == MAP_FAILED)
			fail_call("mmap");
		(void)*(volatile char *)p;
		n++;
		step();
	}
	cs->bound = 1;
	_exit(0);
}

#define NL_VMAS		4096
#define NL_PAGES	16

static void case_nonlinear(void)
{
	size_t len = NL_PAGES * vm_pagesize;
	uint64_t bytes = (uint64_t)NL_PAGES * vm_pagesize;
	char **v = calloc(NL_VMAS, sizeof(char *));
	long i, j, n, stale = 0, lost = 0;
	uint32_t val;
	int fd;

	if (!v)
		setup_fail("calloc");
	map_file("nonlinear", bytes, &fd);
	for (n = 0; n < NL_VMAS; n++) {
		v[n] = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			    0);
		if (v[n] == MAP_FAILED && !n)
			setup_fail("mmap");
		if (v[n] == MAP_FAILED)
			break;		/* a limit: check what there is */
		/* page j shows file page NL_PAGES - 1 - j */
		for (j = 0; j < NL_PAGES; j++)
			if (remap_file_pages(v[n] + j * vm_pagesize,
					     vm_pagesize, 0,
					     NL_PAGES - 1 - j, 0))
				break;
		if (j < NL_PAGES && !n)
			setup_fail("remap_file_pages");
		if (j < NL_PAGES) {
			/* emulated with a vma a page, it meets the limit */
			munmap(v[n], len);
			break;
		}
		for (j = 0; j < NL_PAGES; j++)
			v[n][j * vm_pagesize] = (char)j;
		step();
	}
	/*
	 * Cut the file in half: page j maps file page NL_PAGES - 1 - j, so
	 * the first half of every vma is past EOF and must raise SIGBUS,
	 * the second half keeps its data.
	 */
	if (ftruncate(fd, bytes / 2))
		fail_call("ftruncate to half");
	step();
	vm_sigbus_install(3);
	for (i = 0; i < n; i++)
		for (j = 0; j < NL_PAGES; j++) {
			const volatile unsigned char *b = (const volatile
				unsigned char *)(v[i] + j * vm_pagesize);
			int bus = vm_read_bus((const volatile uint32_t *)b,
					      &val);

			if (j < NL_PAGES / 2 && !bus)
				stale++;
			else if (j >= NL_PAGES / 2 &&
				 (bus || *b != (unsigned char)j))
				lost++;
		}
	snprintf(cs->what, sizeof(cs->what), "%ld vmas; %ld pages past EOF "
		 "still mapped, %ld below EOF wrong or gone", n, stale, lost);
	cs->bad = stale || lost;
	for (i = 0; i < n; i++)
		munmap(v[i], len);
	step();
	cs->done = 1;
	_exit(0);
}

static void case_disk_write(void)
{
	static char buf[1 << 16];
	char path[256];
	ssize_t r;
	long n;
	int fd;

	snprintf(path, sizeof(path), "%s/limits-full", vm_cfg.dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		setup_fail("open");
	unlink(path);
	memset(buf, 0x5a, sizeof(buf));
	for (n = 1; ; n++) {
		r = write(fd, buf, sizeof(buf));
		if (r <= 0)
			break;
		if (n % 16 == 0)
			step();		/* a megabyte */
	}
	snprintf(cs->what, sizeof(cs->what), "write returned %ld (%s) "
		 "after %ld MB", (long)r, r < 0 ? strerror(errno) : "-",
		 cs->count);
	cs->bad = !(r < 0 && errno == ENOSPC);
	cs->done = 1;
	_exit(0);
}

static void case_disk_mmap(void)
{
	uint64_t avail = vm_fs_avail(vm_cfg.dir);
	uint64_t bytes = vm_vsize_cap(avail + vm_mem_bytes());
	uint64_t off;
	int fd, r1, r2, e1 = 0, e2 = 0;
	char *p;

	bytes &= ~(uint64_t)(VM_MB - 1);
	p = map_file("dirty", bytes, &fd);
	for (off = 0; off < bytes; off += vm_pagesize) {
		memset(p + off, 0xa5, 64);
		if ((off + vm_pagesize) % VM_MB == 0)
			step();
	}
	r1 = msync(p, bytes, MS_SYNC);
	if (r1)
		e1 = errno;
	r2 = fsync(fd);
	if (r2)
		e2 = errno;
	snprintf(cs->what, sizeof(cs->what), "%llu MB on %llu MB free: "
		 "msync %s, fsync %s", (unsigned long long)(bytes / VM_MB),
		 (unsigned long long)(avail / VM_MB),
		 r1 ? strerror(e1) : "0", r2 ? strerror(e2) : "0");
	cs->bad = !r1 && !r2;
	step();
	cs->done = 1;
	_exit(0);
}

#define MAX_KILLS	256

/* OOM kills in the log now that were not there before: one of ours? */
static int killed_ours(pid_t leader, const pid_t *before, int nbefore)
{
	pid_t now[MAX_KILLS];
	int n = vm_oom_killed_pids(now, MAX_KILLS), i, j;
	long k;

	for (i = 0; i < n; i++) {
		for (j = 0; j < nbefore && before[j] != now[i]; j++)
			;
		if (j < nbefore)
			continue;
		if (now[i] == leader)
			return 1;
		for (k = 0; k < cs->npids && k < MAX_PIDS; k++)
			if (cs->pids[k] == now[i])
				return 1;
	}
	return 0;
}

static void one_case(int idx, const char *fig, void (*fn)(void),
		     const char *unit)
{
	const char *name = names[idx];
	long oom0, oom1 = -1, last = -1;
	pid_t before[MAX_KILLS];
	int nbefore, ours = 0;
	double t0, t_last, t_oom = 0, now = 0;
	int st = 0, ended = 0;
	char key[96];
	pid_t pid;

	if (only && !strstr(only, fig)) {
		ktap_skip(name, "not in -c %s", only);
		return;
	}
	memset(cs, 0, sizeof(*cs));
	oom0 = vm_oom_kills();
	nbefore = vm_oom_killed_pids(before, MAX_KILLS);
	vm_phase(name);
	t0 = vm_now_ms();
	cs->last_ok = t0;
	pid = vm_fork();
	if (pid < 0) {
		ktap_fail(name, "fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		setpgid(0, 0);
		fn();
		_exit(0);
	}
	t_last = t0;
	for (;;) {
		if (vm_wait_timeout(pid, &st, NULL, 250) == 0) {
			ended = 1;
			break;
		}
		now = vm_now_ms();
		if (cs->count != last) {
			last = cs->count;
			t_last = now;
			vm_progress("%s: %ld %s, MemFree %lld kB, SwapFree "
				    "%lld kB", fig, last, unit,
				    vm_meminfo_kb("MemFree"),
				    vm_meminfo_kb("SwapFree"));
		}
		if (oom0 >= 0 && now - t_oom >= 1000.0) {
			t_oom = now;
			oom1 = vm_oom_kills();
			/*
			 * Only a kill of one of ours ends it; not gated on the
			 * count of kill lines, which stays flat once the log
			 * ring is full of OOM reports.
			 */
			if (nbefore >= 0 &&
			    (ours = killed_ours(pid, before, nbefore)))
				break;
		}
		if (now - t_last > stall_s * 1000.0)
			break;
	}
	now = vm_now_ms();
	if (oom0 >= 0 && oom1 <= oom0)
		oom1 = vm_oom_kills();
	snprintf(key, sizeof(key), "%s_%s", fig, unit);
	vm_fig_i(key, cs->count, "");
	snprintf(key, sizeof(key), "%s_oom_kills", fig);
	vm_fig_i(key, oom0 >= 0 && oom1 >= 0 ? oom1 - oom0 : -1, "count");
	snprintf(key, sizeof(key), "%s_end_after_s", fig);
	vm_fig_f(key, (now - cs->last_ok) / 1000.0, "s");
	snprintf(key, sizeof(key), "%s_total_s", fig);
	vm_fig_f(key, (now - t0) / 1000.0, "s");

	if (cs->done && cs->bad)
		ktap_fail(name, "%s", cs->what);
	else if (cs->done && ended && WIFEXITED(st) && !WEXITSTATUS(st))
		ktap_ok(name, "done in %.1f s%s%s", (now - t0) / 1000.0,
			cs->what[0] ? ": " : "", cs->what);
	else if (cs->setup)
		ktap_fail(name, "setup failed: %s: %s", cs->what,
			  strerror(cs->err));
	else if (ours || (nbefore >= 0 && killed_ours(pid, before, nbefore)))
		ktap_ok(name, "OOM kill at %ld %s, %.1f s after the last",
			cs->count, unit, (now - cs->last_ok) / 1000.0);
	/*
	 * The OOM killer sends SIGKILL, or SIGTERM to a task with
	 * CAP_SYS_RAWIO (2.6.3); disk_mmap may get SIGBUS.  Anything else
	 * is a crash, not a limit.
	 */
	else if (ended && WIFSIGNALED(st) && WTERMSIG(st) != SIGKILL &&
		 WTERMSIG(st) != SIGTERM && !(WTERMSIG(st) == SIGBUS &&
					      !strcmp(fig, "disk_mmap")))
		ktap_fail(name, "killed by signal %d at %ld %s",
			  WTERMSIG(st), cs->count, unit);
	else if (ended && WIFSIGNALED(st))
		ktap_ok(name, "killed by signal %d at %ld %s", WTERMSIG(st),
			cs->count, unit);
	else if (ended && WIFEXITED(st) && cs->bound)
		ktap_fail(name, "%ld %s and no limit", cs->count, unit);
	else if (ended && WIFEXITED(st) && cs->err)
		ktap_ok(name, "%s: %s at %ld %s, %.1f s after the last",
			cs->what, strerror(cs->err), cs->count, unit,
			(now - cs->last_ok) / 1000.0);
	else if (ended)
		ktap_fail(name, "case exited %d",
			  WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	else
		ktap_fail(name, "stalled: nothing grown or killed for %ld s "
			  "at %ld %s, MemFree %lld kB, SwapFree %lld kB",
			  stall_s, cs->count, unit, vm_meminfo_kb("MemFree"),
			  vm_meminfo_kb("SwapFree"));

	vm_phase("cleanup");
	vm_kill_group(pid, ended, fig);
	/* the next case starts after the kill has given memory back */
	vm_sleep_ms(2000);
}

int main(int argc, char **argv)
{
	vm_init("limits", argc, argv, opts, summary, 1200);
	ktap_names(names);
	if (file_pct < 1 || file_pct > 80)
		ktap_skip_all("-f within 1..80");
	/* it fills the machine, not -m: only where it may */
	if (vm_cfg.mem_mb * 1024 < vm_meminfo_kb("MemTotal") * 9 / 10)
		ktap_skip_all("-m well below MemTotal: not a machine to fill");
	cs = mmap(NULL, sizeof(*cs), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (cs == MAP_FAILED)
		ktap_skip_all("cannot map the shared state");
	ktap_header(7);
	vm_fig_i("mem_mb", vm_cfg.mem_mb, "MB");
	vm_fig_i("swaptotal_kb", vm_meminfo_kb("SwapTotal"), "kB");
	one_case(0, "anon_fill", case_anon_fill, "mb");
	one_case(1, "fork_file", case_fork_file, "children");
	one_case(2, "fork_cow", case_fork_cow, "children");
	one_case(3, "map_count", case_map_count, "vmas");
	one_case(4, "nonlinear", case_nonlinear, "steps");
	if (vm_is_tmpfs(vm_cfg.dir) == 1 ||
	    vm_fs_avail(vm_cfg.dir) > 4 * VM_KB * VM_MB) {
		ktap_skip(names[5], "%s is a tmpfs or too large to fill",
			  vm_cfg.dir);
		ktap_skip(names[6], "%s is a tmpfs or too large to fill",
			  vm_cfg.dir);
		ktap_exit();
	}
	one_case(5, "disk_write", case_disk_write, "mb");
	/* the mapping must be able to dirty more than the disk takes */
	if (vm_vsize_cap(vm_fs_avail(vm_cfg.dir) + vm_mem_bytes()) <=
	    vm_fs_avail(vm_cfg.dir) + vm_mem_bytes() / 4)
		ktap_skip(names[6], "%s has more room than one mapping can "
			  "dirty here", vm_cfg.dir);
	else
		one_case(6, "disk_mmap", case_disk_mmap, "mb");
	ktap_exit();
}
