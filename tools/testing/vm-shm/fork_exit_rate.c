// SPDX-License-Identifier: GPL-2.0
/*
 * fork_exit_rate - scenario 5: how fast can a task holding large shared
 * mappings fork children that exit at once?
 *
 * The parent holds a SysV shm segment and a MAP_SHARED mapping of a file
 * (tmpfs if one is mounted, else in -d DIR), -s MB in total (default
 * mem/4), every page touched.  Three variants, each for -t seconds or
 * -n forks: the child calls _exit(0) at once ("exit"), or first writes -c
 * pages spread over both shared mappings and a private one ("touch"), and
 * the parent checks that the shared writes are visible and the private
 * one is not; or the children stay, -k of them at a time, and each fork
 * beyond that kills and reaps the oldest ("pool", a database whose
 * server processes come and go while the others keep the segment
 * mapped: every page then has -k + 1 ptes, and the exiting child's are
 * the oldest).  Reported: forks/s and the fork-to-reap time per variant,
 * and the parent's mean resident size (fork copies its present ptes).
 *
 * With -a MB, a cycler process maps -a MB of anonymous memory, touches
 * it, unmaps it and starts again, all through the three variants: with
 * -s large enough reclaim then walks the shared pages while the forks
 * and exits take and release the file's i_shared_sem and the mm's
 * page_table_lock, which the series' reclaim only trylocks.  Reported
 * per variant: the cycler's cycles and its longest and mean cycle (a
 * reclaim that gives up on busy locks and has nothing else to free
 * shows as long cycles or an OOM kill), and the kernel's counters of
 * file rmap walks, of the walks that found i_shared_sem busy and of the
 * vmas skipped for a busy page_table_lock (-1 on a kernel without them).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/wait.h>

#include "vmshm.h"

static const char summary[] =
	"fork_exit_rate: fork/exit rate of a task holding large shared\n"
	"mappings (shm + shared file), plain and with a few touches";

static const char *const names[] = {
	"mappings created and touched", "fork+exit", "fork+touch+exit",
	"pool of children", "cleanup", NULL
};

#define PRIV_BYTES	(1024 * 1024)

static char *shm, *fmap, *priv;
static uint64_t shm_bytes, file_bytes;

/* the pressure cycler of -a, and what it reports */
struct cyc {
	volatile uint32_t stop;
	volatile uint32_t cycles;
	volatile double ms_sum, ms_max;
	volatile double t_start;	/* of the cycle under way */
};
static struct cyc *cyc;
static pid_t cyc_pid = -1;

static void cycler(uint64_t bytes)
{
	uint64_t off;
	double t0, ms;
	char *p;

	/* reclaim should find the parent's ptes, not the cycler's */
	if (shm)
		shmdt(shm);
	if (fmap)
		munmap(fmap, (size_t)file_bytes);
	while (!cyc->stop) {
		t0 = vm_now_ms();
		cyc->t_start = t0;
		p = mmap(NULL, (size_t)bytes, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			_exit(3);
		for (off = 0; off < bytes && !cyc->stop; off += vm_pagesize)
			*(volatile uint32_t *)(p + off) = (uint32_t)off;
		munmap(p, (size_t)bytes);
		ms = vm_now_ms() - t0;
		cyc->ms_sum += ms;
		if (ms > cyc->ms_max)
			cyc->ms_max = ms;
		cyc->cycles++;
	}
	_exit(0);
}

/*
 * Under -a the previous variant's pressure pushed the shared pages out;
 * fault them back in (outside the timing), so that reclaim has the same
 * pages to walk in every variant.  Nothing to do without -a.
 */
static void retouch(void)
{
	uint64_t off;

	if (!cyc)
		return;
	for (off = 0; off < shm_bytes; off += vm_pagesize)
		(void)*(volatile uint32_t *)(shm + off);
	for (off = 0; off < file_bytes; off += vm_pagesize)
		(void)*(volatile uint32_t *)(fmap + off);
}

static const char *const rmap_keys[] = {
	"rmap_file_walks", "rmap_busy_i_shared_sem",
	"rmap_busy_page_table_lock", NULL
};

struct press_snap {
	uint32_t cycles;
	double ms_sum;
	long long rmap[3];
	long oom;
};

static void press_snap(struct press_snap *p)
{
	int i;

	memset(p, 0, sizeof(*p));
	if (cyc) {
		p->cycles = cyc->cycles;
		p->ms_sum = cyc->ms_sum;
		cyc->ms_max = 0;
	}
	for (i = 0; rmap_keys[i]; i++)
		p->rmap[i] = vm_vmstat(rmap_keys[i]);
	p->oom = vm_oom_kills();
}

/*
 * Figures <key>_press_* of what happened since @a; 0 if the cycler has
 * died (its pressure is gone: the variant's figures are not what they
 * claim), else 1.
 */
static int press_figs(const char *key, const struct press_snap *a)
{
	struct press_snap b;
	double max, now;
	char k[96];
	uint32_t n;
	int i, st;

	if (!cyc)
		return 1;
	/* a cycle that has not ended counts as long as it has lasted */
	now = vm_now_ms();
	max = cyc->ms_max;	/* press_snap() starts the next max */
	if (cyc->t_start > 0 && now - cyc->t_start > max)
		max = now - cyc->t_start;
	press_snap(&b);
	n = b.cycles - a->cycles;
	snprintf(k, sizeof(k), "%s_press_cycles", key);
	vm_fig_i(k, n, "count");
	snprintf(k, sizeof(k), "%s_press_cycle_ms", key);
	vm_fig_f(k, n ? (b.ms_sum - a->ms_sum) / n : -1, "ms");
	snprintf(k, sizeof(k), "%s_press_cycle_ms_max", key);
	vm_fig_f(k, max, "ms");
	for (i = 0; rmap_keys[i]; i++) {
		snprintf(k, sizeof(k), "%s_%s", key, rmap_keys[i]);
		vm_fig_i(k, a->rmap[i] < 0 || b.rmap[i] < 0 ? -1 :
			 b.rmap[i] - a->rmap[i], "count");
	}
	snprintf(k, sizeof(k), "%s_oom_kills", key);
	vm_fig_i(k, a->oom < 0 || b.oom < 0 ? -1 : b.oom - a->oom, "count");
	if (cyc_pid > 0 && waitpid(cyc_pid, &st, WNOHANG) == cyc_pid) {
		ktap_diag("%s: the pressure cycler ended (status 0x%x)", key,
			  st);
		vm_forget_child(cyc_pid);
		cyc_pid = -1;
	}
	return cyc_pid > 0;
}

static void touch_all(char *p, uint64_t len, uint32_t v)
{
	uint64_t off;

	for (off = 0; off < len; off += vm_pagesize)
		*(volatile uint32_t *)(p + off) = v;
}

/* child of the touch variant: @c pages, written with @tag */
static void child_touch(long c, uint32_t tag)
{
	uint64_t sp = shm_bytes / vm_pagesize, fp = file_bytes / vm_pagesize;
	uint64_t pp = PRIV_BYTES / vm_pagesize;
	long i;

	for (i = 0; i < c; i++) {
		uint64_t k = (uint64_t)(i / 3) * 7919;

		switch (i % 3) {
		case 0:
			*(volatile uint32_t *)(shm + (k % sp) * vm_pagesize +
					       4) = tag;
			break;
		case 1:
			*(volatile uint32_t *)(fmap + (k % fp) * vm_pagesize +
					       4) = tag;
			break;
		default:
			*(volatile uint32_t *)(priv + (k % pp) * vm_pagesize +
					       4) = tag;
			break;
		}
	}
}

struct res {
	long forks;
	long errors;
	double ms, lat_max;
	struct rusage ru;
	long long rss_sum;	/* the parent's VmRSS, every RSS_EVERY forks */
	long rss_n;
};

/*
 * fork copies every present pte of the parent's shared mappings, so
 * its cost follows how much of them reclaim has left mapped: sample
 * the parent's resident size, not every fork (a read of /proc).
 */
#define RSS_EVERY	8

static void run_variant(const char *key, int touch, long c, long max_n,
			double max_s, struct res *r)
{
	double t0 = vm_now_ms(), ta, lat;
	char k[64];
	int st;

	memset(r, 0, sizeof(*r));
	while (r->forks < max_n && vm_now_ms() - t0 < max_s * 1000) {
		uint32_t tag = 0x7a000000u | (uint32_t)r->forks;
		struct rusage ru;
		pid_t pid;

		if (r->forks % RSS_EVERY == 0) {
			long long rss = vm_status_kb("VmRSS");

			if (rss >= 0) {
				r->rss_sum += rss;
				r->rss_n++;
			}
		}
		ta = vm_now_ms();
		pid = vm_fork();
		if (pid == 0) {
			if (touch)
				child_touch(c, tag);
			_exit(0);
		}
		if (pid < 0) {
			ktap_diag("%s: fork: %s", key, strerror(errno));
			r->errors++;
			break;
		}
		memset(&ru, 0, sizeof(ru));
		if (vm_wait(pid, &st, &ru) != 0) {
			ktap_diag("%s: wait: %s", key, strerror(errno));
			r->errors++;
			break;
		}
		lat = vm_now_ms() - ta;
		if (lat > r->lat_max)
			r->lat_max = lat;
		vm_rusage_add(&r->ru, &ru);
		r->forks++;
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			if (r->errors < 3)
				ktap_diag("%s: child status 0x%x", key, st);
			r->errors++;
		}
		if (touch && c >= 3) {
			/* page 0 of each mapping: written by i = 0, 1, 2 */
			uint32_t s = *(volatile uint32_t *)(shm + 4);
			uint32_t f = *(volatile uint32_t *)(fmap + 4);
			uint32_t p = *(volatile uint32_t *)(priv + 4);

			if (s != tag || f != tag || p != 0x11111111u) {
				if (r->errors < 3)
					ktap_diag("%s: after child %ld: shm "
						  "0x%08x file 0x%08x (want "
						  "0x%08x) private 0x%08x "
						  "(want 0x11111111)", key,
						  r->forks, s, f, tag, p);
				r->errors++;
			}
		}
		vm_progress("%s: %ld forks, %.0f per s", key, r->forks,
			    r->forks * 1000.0 / (vm_now_ms() - t0));
	}
	r->ms = vm_now_ms() - t0;

	snprintf(k, sizeof(k), "%s_forks", key);
	vm_fig_i(k, r->forks, "count");
	snprintf(k, sizeof(k), "%s_per_s", key);
	vm_fig_f(k, r->ms > 0 ? r->forks * 1000.0 / r->ms : 0, "per_s");
	snprintf(k, sizeof(k), "%s_ms", key);
	vm_fig_f(k, r->forks ? r->ms / r->forks : 0, "ms");
	snprintf(k, sizeof(k), "%s_ms_max", key);
	vm_fig_f(k, r->lat_max, "ms");
	snprintf(k, sizeof(k), "%s_child_minflt", key);
	vm_fig_f(k, r->forks ? (double)r->ru.ru_minflt / r->forks : 0,
		 "count");
	snprintf(k, sizeof(k), "%s_parent_rss_kb", key);
	vm_fig_i(k, r->rss_n ? r->rss_sum / r->rss_n : -1, "kB");
}

/*
 * The pool variant: fork a child that waits to be killed; once @k are
 * alive, each new fork is followed by killing and reaping the oldest.
 * Counted per fork: the fork, and the kill and reap of the oldest.
 */
static void run_pool(long k, long max_n, double max_s, struct res *r)
{
	double t0 = vm_now_ms(), ta, lat;
	pid_t *ring;
	long head = 0, alive = 0;
	int st;

	memset(r, 0, sizeof(*r));
	ring = calloc(k, sizeof(*ring));
	if (!ring) {
		r->errors++;
		return;
	}
	while (r->forks < max_n && vm_now_ms() - t0 < max_s * 1000) {
		pid_t pid;

		if (r->forks % RSS_EVERY == 0) {
			long long rss = vm_status_kb("VmRSS");

			if (rss >= 0) {
				r->rss_sum += rss;
				r->rss_n++;
			}
		}
		ta = vm_now_ms();
		pid = vm_fork();
		if (pid == 0) {
			for (;;)
				pause();
		}
		if (pid < 0) {
			ktap_diag("pool: fork: %s", strerror(errno));
			r->errors++;
			break;
		}
		if (alive == k) {
			pid_t old = ring[head];

			kill(old, SIGKILL);
			if (vm_wait(old, &st, NULL) != 0) {
				ktap_diag("pool: wait: %s", strerror(errno));
				r->errors++;
				break;
			}
			if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL) {
				if (r->errors < 3)
					ktap_diag("pool: child status 0x%x",
						  st);
				r->errors++;
			}
			alive--;
		}
		ring[head] = pid;
		head = (head + 1) % k;
		alive++;
		lat = vm_now_ms() - ta;
		if (lat > r->lat_max)
			r->lat_max = lat;
		r->forks++;
		vm_progress("pool: %ld forks, %ld alive, %.0f per s", r->forks,
			    alive, r->forks * 1000.0 / (vm_now_ms() - t0));
	}
	r->ms = vm_now_ms() - t0;
	/* the rest, oldest first, outside the timing */
	while (alive > 0) {
		pid_t old = ring[(head + k - alive) % k];

		kill(old, SIGKILL);
		if (vm_wait(old, &st, NULL) != 0)
			r->errors++;
		alive--;
	}
	free(ring);

	vm_fig_i("pool_size", k, "count");
	vm_fig_i("pool_forks", r->forks, "count");
	vm_fig_f("pool_per_s", r->ms > 0 ? r->forks * 1000.0 / r->ms : 0,
		 "per_s");
	vm_fig_f("pool_ms", r->forks ? r->ms / r->forks : 0, "ms");
	vm_fig_f("pool_ms_max", r->lat_max, "ms");
	vm_fig_i("pool_parent_rss_kb", r->rss_n ? r->rss_sum / r->rss_n : -1,
		 "kB");
}

int main(int argc, char **argv)
{
	long total_mb = -1, max_n = 100000, ntouch = 16, pool = 64;
	long press_mb = 0;
	double time_s = 10;
	const char *tdir = NULL;
	const struct vm_opt opts[] = {
		{ 's', VM_OPT_LONG, &total_mb, "MB",
		  "shared mappings in total, half shm half file "
		  "(default mem/4)" },
		{ 't', VM_OPT_DOUBLE, &time_s, "SEC",
		  "time per variant (default 10)" },
		{ 'n', VM_OPT_LONG, &max_n, "N",
		  "max forks per variant (default 100000)" },
		{ 'c', VM_OPT_LONG, &ntouch, "N",
		  "pages the touching child writes (default 16)" },
		{ 'k', VM_OPT_LONG, &pool, "N",
		  "children alive at once in the pool variant (default 64)" },
		{ 'D', VM_OPT_STR, &tdir, "DIR",
		  "tmpfs directory for the file (default: first tmpfs of "
		  "-d, /dev/shm, /tmp)" },
		{ 'a', VM_OPT_LONG, &press_mb, "MB",
		  "a cycler maps, touches and unmaps MB of anonymous memory "
		  "all through the variants (default 0: none)" },
		{ 0, 0, NULL, NULL, NULL },
	};
	struct press_snap ps;
	int alive;
	const char *fdir;
	char path[512];
	struct res r1, r2, r3;
	int fd = -1, ok;

	vm_init("fork_exit_rate", argc, argv, opts, summary, 600);
	if (total_mb < 0)
		total_mb = vm_cfg.mem_mb / 4;
	if (total_mb < 2)
		total_mb = 2;
	if (max_n < 1 || ntouch < 0 || pool < 1 || press_mb < 0) {
		fprintf(stderr, "fork_exit_rate: bad -n, -c, -k or -a\n");
		return 1;
	}
	shm_bytes = vm_vsize_cap((uint64_t)total_mb * VM_MB / 2);
	file_bytes = vm_vsize_cap((uint64_t)total_mb * VM_MB / 2);

	ktap_header(5);
	ktap_names(names);
	vm_fig_i("mem_mb", vm_cfg.mem_mb, "MB");
	vm_fig_i("shm_mb", (long long)(shm_bytes / VM_MB), "MB");
	vm_fig_i("file_mb", (long long)(file_bytes / VM_MB), "MB");
	vm_fig_f("time_per_variant_s", time_s, "s");
	vm_fig_i("touch_pages", ntouch, "pages");

	vm_phase("create mappings");
	fdir = vm_find_tmpfs(tdir);
	if (!fdir)
		fdir = vm_cfg.dir;
	snprintf(path, sizeof(path), "%s/vmshm_fork.%d", fdir, (int)getpid());
	ktap_diag("file %s (%s)", path, vm_is_tmpfs(fdir) == 1 ?
		  "tmpfs" : "not tmpfs");
	shm = vm_shm_create(shm_bytes, NULL);
	fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0600);
	if (fd >= 0) {
		vm_register_path(path);
		if (ftruncate(fd, (off_t)file_bytes) != 0) {
			ktap_diag("ftruncate: %s", strerror(errno));
		} else {
			fmap = mmap(NULL, (size_t)file_bytes,
				    PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
			if (fmap == MAP_FAILED) {
				ktap_diag("mmap file: %s", strerror(errno));
				fmap = NULL;
			}
		}
	} else {
		ktap_diag("open %s: %s", path, strerror(errno));
	}
	priv = mmap(NULL, PRIV_BYTES, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (priv == MAP_FAILED)
		priv = NULL;
	if (!shm || !fmap || !priv) {
		ktap_fail(names[0], "could not create the mappings");
		ktap_skip(names[1], "no mappings");
		ktap_skip(names[2], "no mappings");
		ktap_skip(names[3], "no mappings");
		goto cleanup;
	}
	touch_all(shm, shm_bytes, 0x22222222u);
	touch_all(fmap, file_bytes, 0x33333333u);
	touch_all(priv, PRIV_BYTES, 0x11111111u);
	memset(priv, 0x11, PRIV_BYTES);
	ktap_ok(names[0], NULL);

	if (press_mb > 0) {
		/* one mapping: within what a 32-bit process can map */
		uint64_t cb = vm_vsize_cap(vm_cap_pressure((uint64_t)press_mb *
							   VM_MB, shm_bytes +
							   file_bytes));

		vm_fig_i("pressure_mb", (long long)(cb / VM_MB), "MB");
		cyc = mmap(NULL, sizeof(*cyc), PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (cyc == MAP_FAILED) {
			cyc = NULL;
		} else {
			memset((void *)cyc, 0, sizeof(*cyc));
			cyc_pid = vm_fork();
			if (cyc_pid == 0)
				cycler(cb);
		}
		if (!cyc || cyc_pid < 0)
			ktap_diag("no pressure cycler: %s", strerror(errno));
	} else {
		vm_fig_i("pressure_mb", 0, "MB");
	}

	vm_phase("fork+exit");
	press_snap(&ps);
	run_variant("exit", 0, 0, max_n, time_s, &r1);
	alive = press_figs("exit", &ps);
	ktap_result(r1.forks > 0 && !r1.errors && alive, names[1], "%ld "
		    "forks, %ld errors%s", r1.forks, r1.errors,
		    alive ? "" : ", the pressure ended");
	vm_phase("fork+touch+exit");
	retouch();
	press_snap(&ps);
	run_variant("touch", 1, ntouch, max_n, time_s, &r2);
	alive = press_figs("touch", &ps);
	ktap_result(r2.forks > 0 && !r2.errors && alive, names[2], "%ld "
		    "forks, %ld errors%s", r2.forks, r2.errors,
		    alive ? "" : ", the pressure ended");
	if (r1.forks && r2.forks && r1.ms > 0 && r2.ms > 0)
		vm_fig_f("touch_over_exit", (r2.forks / r2.ms) /
			 (r1.forks / r1.ms), "ratio");
	vm_phase("pool");
	retouch();
	press_snap(&ps);
	run_pool(pool, max_n, time_s, &r3);
	alive = press_figs("pool", &ps);
	ktap_result(r3.forks > pool && !r3.errors && alive, names[3], "%ld "
		    "forks, %ld errors, %ld alive at a time%s", r3.forks,
		    r3.errors, pool, alive ? "" : ", the pressure ended");
	/* the same work per fork plus the chains: host speed cancels out */
	if (r1.forks && r3.forks && r1.ms > 0 && r3.ms > 0)
		vm_fig_f("pool_over_exit", (r3.forks / r3.ms) /
			 (r1.forks / r1.ms), "ratio");

cleanup:
	vm_phase("cleanup");
	if (cyc_pid > 0) {
		int st = 0;

		cyc->stop = 1;
		if (vm_wait_timeout(cyc_pid, &st, NULL, 60000) != 0 ||
		    !WIFEXITED(st) || WEXITSTATUS(st)) {
			ktap_diag("pressure cycler: status 0x%x", st);
			vm_kill_all();
		}
	}
	ok = vm_nchildren() == 0;
	vm_kill_all();
	if (shm && shmdt(shm) != 0) {
		ktap_diag("shmdt: %s", strerror(errno));
		ok = 0;
	}
	if (fmap && munmap(fmap, (size_t)file_bytes) != 0)
		ok = 0;
	if (fd >= 0) {
		close(fd);
		if (unlink(path) != 0)
			ok = 0;
		vm_unregister_path(path);
	}
	ktap_result(ok, names[4], NULL);
	ktap_exit();
}
