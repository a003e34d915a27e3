// SPDX-License-Identifier: GPL-2.0
/*
 * many_vmas - scenario 4: many small MAP_SHARED mappings of one file,
 * under reclaim, and truncate of a file mapped by many vmas (the
 * object-based rmap search problem: to unmap one page, or to truncate
 * the tail of a file, the VM may walk every vma of the file).
 *
 * Three parts, one after the other:
 *
 *  one     one process holds N one-page mappings of a file (mapped page
 *          by page, in reverse file order, into one reserved area:
 *          neighbours have non-contiguous offsets so none merge, and
 *          /proc/self/maps must show N of them) and touches them round
 *          after round (check the page's header, write its slot word)
 *          while an anonymous process allocates about -a MB, until the
 *          pressure has all its memory and the process made -r more
 *          rounds.
 *  shared  the same with K processes sharing M mappings each of another
 *          file (they inherit them by fork).
 *  truncate  with the file of "shared" still mapped by the K processes
 *          (K * M vmas), ftruncate() cuts its last page, -R times (the
 *          file is re-extended and the page rewritten between cuts):
 *          only K vmas overlap it.  Then one cut of the second half of
 *          the file, which K * M / 2 vmas overlap.  Without an index
 *          of the vmas by offset both walk every vma of the file.
 *          Checked: the cut page raises SIGBUS through a mapping, reads
 *          as zeros through the mapping and pread() once the file is
 *          re-extended, and the pages before the cut keep their data.
 *
 * The mapping parent unmaps its own copy once the touchers are forked,
 * so only they hold the vmas (and the pressure and the latency probe,
 * forked later, hold none).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "vmshm.h"

static const char summary[] =
	"many_vmas: N one-page MAP_SHARED mappings of a file in one process,\n"
	"M in each of K processes, touched under memory pressure; then the\n"
	"time to truncate the tail and the half of a file mapped by K * M vmas";

enum { T_ONE_MAP, T_ONE_TOUCH, T_ONE_DATA, T_SH_MAP, T_SH_FORK,
       T_SH_TOUCH, T_SH_DATA, T_TR_TAIL, T_TR_HALF, T_CLEANUP, T_N };

static const char *const names[] = {
	"one: mappings created", "one: touch rounds under pressure",
	"one: data integrity",
	"shared: mappings created", "shared: processes forked",
	"shared: touch rounds under pressure", "shared: data integrity",
	"truncate: tail", "truncate: half", "cleanup", NULL
};

#define MAXPROC		256
#define SLOT0		16		/* first slot word in a block */
#define SEED		0x7a5e

struct ctl {
	volatile uint32_t go;
	volatile uint32_t stop;		/* checked between rounds */
	volatile uint32_t verified;	/* a toucher checked its mapping */
	volatile int32_t vbad;		/* bad blocks it found */
	volatile uint32_t stopped[MAXPROC];
	volatile uint32_t rounds[MAXPROC];
	volatile uint32_t errors[MAXPROC];
	volatile uint32_t bad_blk[MAXPROC];
	volatile uint32_t bad_got[MAXPROC];
	volatile uint32_t round_ms_max[MAXPROC];
};

/* one part: a file, its mappings and the processes touching them */
struct part {
	const char *pfx;		/* figure prefix */
	int t_map, t_fork, t_touch, t_data;	/* test numbers, -1 none */
	long nvma;
	int nproc;
	char path[512];
	int fd;
	char *area;			/* the parent's, until it unmaps */
	struct ctl *ctl;
	int cmd[2];			/* pipe: 'v' verify, 'x' exit */
	pid_t pids[MAXPROC];
	int nforked;
	uint32_t rdone[MAXPROC];
};

static int tmpfs;
static long rounds = 3, time_s = 600, press_mb = -1;

static uint32_t slot_val(int k, uint32_t round, uint64_t blk)
{
	return vm_pat_base(0x5107u + k, blk, round);
}

/*
 * Block @blk must hold the file pattern except the slot words: slot k
 * holds what process k wrote in its last round, rounds[k] (or the round
 * after, if it was killed in the middle of one).
 */
static long check_block(const uint32_t *p, uint64_t blk, int nproc,
			const uint32_t *rounds, const char *what, long nbad)
{
	uint32_t base = vm_pat_base(SEED, blk, 0), e;
	int w, k;

	for (w = 0; w < VM_BLK_WORDS; w++) {
		k = w - SLOT0;
		if (k >= 0 && k < nproc) {
			e = rounds[k] ? slot_val(k, rounds[k], blk) :
			    base + (uint32_t)w * 0x9e3779b9u;
			if (p[w] == e ||
			    p[w] == slot_val(k, rounds[k] + 1, blk))
				continue;
		} else if (w == 0) {
			e = VM_MAGIC ^ (uint32_t)blk;
		} else if (w == 1) {
			e = 0;
		} else if (w == 2) {
			e = SEED;
		} else {
			e = base + (uint32_t)w * 0x9e3779b9u;
		}
		if (p[w] == e)
			continue;
		if (nbad < 5)
			ktap_diag("%s: mismatch at file offset 0x%llx: "
				  "expected 0x%08x got 0x%08x", what,
				  (unsigned long long)blk * VM_BLK + w * 4,
				  e, p[w]);
		return 1;
	}
	return 0;
}

/*
 * Touch every mapping, round after round, until told to stop; then wait
 * on the command pipe: 'v' checks every page through this process's
 * mappings (the parent has none left), 'x' exits.
 */
static void toucher(struct part *pt, int k)
{
	struct ctl *ctl = pt->ctl;
	char *area = pt->area;
	long n = pt->nvma, j;
	uint32_t r;
	char c;

	close(pt->cmd[1]);
	while (!ctl->go)
		vm_sleep_ms(1);
	for (r = 1; !ctl->stop; r++) {
		double t0 = vm_now_ms(), ms;

		for (j = 0; j < n; j++) {
			volatile uint32_t *p =
				(volatile uint32_t *)(area + j * VM_BLK);
			uint64_t blk = n - 1 - j;

			if (p[0] != (VM_MAGIC ^ (uint32_t)blk)) {
				if (!ctl->errors[k]) {
					ctl->bad_blk[k] = (uint32_t)blk;
					ctl->bad_got[k] = p[0];
				}
				ctl->errors[k]++;
			}
			p[SLOT0 + k] = slot_val(k, r, blk);
		}
		ms = vm_now_ms() - t0;
		if (ms > ctl->round_ms_max[k])
			ctl->round_ms_max[k] = (uint32_t)ms;
		ctl->rounds[k] = r;
	}
	ctl->stopped[k] = 1;
	for (;;) {
		ssize_t got = read(pt->cmd[0], &c, 1);

		if (got < 0 && errno == EINTR)
			continue;
		if (got != 1 || c == 'x')
			_exit(0);
		if (c == 'v') {
			static uint32_t rd[MAXPROC];
			long nbad = 0;
			int i;

			for (i = 0; i < pt->nproc; i++)
				rd[i] = ctl->rounds[i];
			for (j = 0; j < n; j++)
				nbad += check_block((uint32_t *)(area +
						    j * VM_BLK), n - 1 - j,
						    pt->nproc, rd, "mapping",
						    nbad);
			ctl->vbad = (int32_t)nbad;
			ctl->verified = 1;
		}
	}
}

static long count_maps(const char *path)
{
	char line[1024];
	long n = 0;
	FILE *f;

	f = fopen("/proc/self/maps", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *s = strchr(line, '/');

		if (s) {
			s[strcspn(s, "\n")] = '\0';
			if (!strcmp(s, path))
				n++;
		}
	}
	fclose(f);
	return n;
}

static int write_blocks(int fd, long from, long to)
{
	static uint32_t b[VM_BLK_WORDS * 64];
	long i, j, chunk;

	for (i = from; i < to; i += 64) {
		chunk = VM_MIN(64L, to - i);
		for (j = 0; j < chunk; j++)
			vm_fill_blk(b + j * VM_BLK_WORDS, SEED, i + j, 0);
		if (vm_pwrite_all(fd, b, chunk * VM_BLK, (off_t)i * VM_BLK))
			return -1;
	}
	return 0;
}

static void fig(const struct part *pt, const char *key, long long v,
		const char *unit)
{
	char k[64];

	snprintf(k, sizeof(k), "%s_%s", pt->pfx, key);
	vm_fig_i(k, v, unit);
}

static void figf(const struct part *pt, const char *key, double v,
		 const char *unit)
{
	char k[64];

	snprintf(k, sizeof(k), "%s_%s", pt->pfx, key);
	vm_fig_f(k, v, unit);
}

/* report test @t and every test of @pt after it as skipped */
static void skip_rest(const struct part *pt, int from, const char *why)
{
	int t[4] = { pt->t_map, pt->t_fork, pt->t_touch, pt->t_data }, i;

	for (i = 0; i < 4; i++)
		if (t[i] >= from)
			ktap_skip(names[t[i]], "%s", why);
}

/*
 * Create the file and its mappings, fork the touchers, unmap the
 * parent's copy.  0 when every process holds every mapping.
 */
static int part_setup(struct part *pt)
{
	double t0;
	long j, maps;
	int k;

	pt->fd = -1;
	pt->area = NULL;
	pt->cmd[0] = pt->cmd[1] = -1;
	pt->ctl = mmap(NULL, sizeof(*pt->ctl), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (pt->ctl == MAP_FAILED) {
		pt->ctl = NULL;
		ktap_fail(names[pt->t_map], "mmap: %s", strerror(errno));
		return -1;
	}
	snprintf(pt->path, sizeof(pt->path), "%s/vmshm_vmas_%s.%d",
		 vm_cfg.dir, pt->pfx, (int)getpid());
	pt->fd = open(pt->path, O_CREAT | O_TRUNC | O_RDWR, 0600);
	if (pt->fd < 0) {
		ktap_fail(names[pt->t_map], "open %s: %s", pt->path,
			  strerror(errno));
		return -1;
	}
	vm_register_path(pt->path);
	if (write_blocks(pt->fd, 0, pt->nvma) != 0) {
		ktap_fail(names[pt->t_map], "write %s: %s", pt->path,
			  strerror(errno));
		return -1;
	}
	t0 = vm_now_ms();
	pt->area = mmap(NULL, (size_t)pt->nvma * VM_BLK, PROT_NONE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (pt->area == MAP_FAILED) {
		pt->area = NULL;
		ktap_fail(names[pt->t_map], "reserve %ld pages: %s",
			  pt->nvma, strerror(errno));
		return -1;
	}
	for (j = 0; j < pt->nvma; j++) {
		void *p = mmap(pt->area + j * VM_BLK, VM_BLK,
			       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
			       pt->fd, (off_t)(pt->nvma - 1 - j) * VM_BLK);

		if (p == MAP_FAILED) {
			ktap_fail(names[pt->t_map], "mapping %ld: %s", j,
				  strerror(errno));
			return -1;
		}
		if (!(j & 1023))
			vm_progress("%s: mapping %ld of %ld", pt->pfx, j,
				    pt->nvma);
	}
	figf(pt, "map_s", (vm_now_ms() - t0) / 1000, "s");
	maps = count_maps(pt->path);
	fig(pt, "maps_lines", maps, "count");
	ktap_result(maps == pt->nvma, names[pt->t_map],
		    "%ld vmas of %s in /proc/self/maps, wanted %ld", maps,
		    pt->path, pt->nvma);
	if (maps != pt->nvma)
		return -1;

	if (pipe(pt->cmd) != 0) {
		ktap_diag("pipe: %s", strerror(errno));
		return -1;
	}
	t0 = vm_now_ms();
	for (k = 0; k < pt->nproc; k++) {
		pt->pids[k] = vm_fork();
		if (pt->pids[k] < 0) {
			ktap_diag("fork %d: %s", k, strerror(errno));
			break;
		}
		if (pt->pids[k] == 0)
			toucher(pt, k);
		pt->nforked++;
	}
	t0 = vm_now_ms() - t0;
	if (pt->t_fork >= 0) {
		figf(pt, "fork_s", t0 / 1000, "s");
		figf(pt, "fork_ms_per_proc",
		     pt->nforked ? t0 / pt->nforked : 0, "ms");
		ktap_result(pt->nforked == pt->nproc, names[pt->t_fork],
			    "%d of %d forked", pt->nforked, pt->nproc);
	} else if (pt->nforked != pt->nproc) {
		ktap_diag("%s: %d of %d processes forked", pt->pfx,
			  pt->nforked, pt->nproc);
	}
	close(pt->cmd[0]);
	pt->cmd[0] = -1;
	/* from now on only the touchers hold the mappings */
	if (munmap(pt->area, (size_t)pt->nvma * VM_BLK) != 0)
		ktap_diag("munmap: %s", strerror(errno));
	pt->area = NULL;
	return pt->nforked == pt->nproc ? 0 : -1;
}

/* the touch phase under pressure; 0 when every process made its rounds */
static int part_touch(struct part *pt)
{
	struct ctl *ctl = pt->ctl;
	struct vm_vmstat_snap s0, s1;
	struct vm_probe probe;
	struct vm_hog hog;
	uint64_t press_bytes;
	static uint32_t base[MAXPROC];
	uint32_t errs = 0, round_max = 0, min_rounds = UINT32_MAX;
	uint32_t min_base = UINT32_MAX;
	double t0, touch_ms = 0, t_stop = 0;
	int k, hog_on = 0, press_done, died = 0, timed_out = 0, ok;
	int nstopped;

	if (vm_probe_start(&probe, 10) != 0)
		ktap_diag("no latency probe");
	press_bytes = vm_cap_pressure((uint64_t)press_mb * VM_MB,
				      tmpfs ? (uint64_t)pt->nvma * VM_BLK : 0);
	fig(pt, "pressure_mb", (long long)(press_bytes / VM_MB), "MB");
	vm_vmstat_snap(&s0);
	t0 = vm_now_ms();
	if (press_bytes && vm_hog_start(&hog, press_bytes) == 0)
		hog_on = 1;
	ctl->go = 1;
	/*
	 * Until the pressure has all its memory and every process has made
	 * -r more rounds since then; a process never stops mid-round.
	 */
	press_done = !hog_on;
	for (k = 0; k < pt->nforked; k++)
		base[k] = 0;
	for (;;) {
		uint32_t minr = UINT32_MAX;
		int enough = press_done;

		if (!press_done && vm_hog_done(&hog)) {
			if (vm_hog_done(&hog) < 0)
				ktap_diag("pressure failed");
			press_done = 1;
			for (k = 0; k < pt->nforked; k++)
				base[k] = ctl->rounds[k];
			enough = 1;
		}
		nstopped = 0;
		for (k = 0; k < pt->nforked; k++) {
			int st;

			if (ctl->rounds[k] - base[k] < minr)
				minr = ctl->rounds[k] - base[k];
			if (pt->pids[k] <= 0) {
				nstopped++;
				continue;
			}
			if (ctl->rounds[k] < base[k] + rounds)
				enough = 0;
			if (ctl->stopped[k])
				nstopped++;
			if (vm_wait_timeout(pt->pids[k], &st, NULL, 0) == 0) {
				ktap_diag("%s: process %d ended early, "
					  "status 0x%x", pt->pfx, k, st);
				died++;
				pt->pids[k] = 0;
			}
		}
		if (enough && !ctl->stop) {
			touch_ms = vm_now_ms() - t0;
			ctl->stop = 1;
			t_stop = vm_now_ms();
		}
		if (ctl->stop && nstopped == pt->nforked)
			break;
		if (ctl->stop && vm_now_ms() - t_stop > 60000) {
			ktap_diag("processes did not stop within 60 s");
			break;
		}
		if (!ctl->stop && vm_now_ms() - t0 > time_s * 1000.0) {
			ktap_diag("%s: touch phase hit the %ld s bound",
				  pt->pfx, time_s);
			timed_out = 1;
			break;
		}
		vm_progress("%s: rounds since the pressure was satisfied "
			    "(slowest) %u of %ld, pressure %llu MB, stall "
			    "%.0f ms", pt->pfx, press_done ? minr : 0,
			    rounds, hog_on ? (unsigned long long)
			    (vm_hog_touched(&hog) / VM_MB) : 0ULL,
			    vm_probe_max_ms(&probe));
		vm_sleep_ms(20);
	}
	if (!ctl->stop)
		touch_ms = vm_now_ms() - t0;
	vm_vmstat_snap(&s1);
	ctl->stop = 1;
	if (hog_on) {
		figf(pt, "pressure_ms", vm_hog_done_ms(&hog), "ms");
		vm_hog_stop(&hog, NULL);
	}
	vm_probe_stop(&probe);
	/* a toucher stopped by the bound may still be mid-round */
	for (k = 0; k < pt->nforked; k++) {
		double end = vm_now_ms() + 60000;

		while (pt->pids[k] > 0 && !ctl->stopped[k] &&
		       vm_now_ms() < end)
			vm_sleep_ms(20);
	}

	ok = pt->nforked == pt->nproc && !died && !timed_out;
	for (k = 0; k < pt->nforked; k++) {
		pt->rdone[k] = ctl->rounds[k];
		if (pt->rdone[k] < base[k] + rounds)
			ok = 0;
		if (pt->rdone[k] < min_rounds)
			min_rounds = pt->rdone[k];
		if (base[k] < min_base)
			min_base = base[k];
		errs += ctl->errors[k];
		if (ctl->round_ms_max[k] > round_max)
			round_max = ctl->round_ms_max[k];
		if (ctl->errors[k])
			ktap_diag("%s: process %d: %u bad headers, first at "
				  "file offset 0x%llx: got 0x%08x", pt->pfx,
				  k, ctl->errors[k],
				  (unsigned long long)ctl->bad_blk[k] *
				  VM_BLK, ctl->bad_got[k]);
	}
	figf(pt, "touch_s", touch_ms / 1000, "s");
	fig(pt, "rounds_min", pt->nforked ? min_rounds : 0, "count");
	fig(pt, "rounds_before_pressure_done", pt->nforked ? min_base : 0,
	    "count");
	figf(pt, "round_max_s", round_max / 1000.0, "s");
	figf(pt, "probe_max_ms", vm_probe_max_ms(&probe), "ms");
	fig(pt, "probe_samples", vm_probe_samples(&probe), "count");
	fig(pt, "pswpout", vm_vmstat_delta(&s0, &s1, VMS_PSWPOUT), "pages");
	fig(pt, "pswpin", vm_vmstat_delta(&s0, &s1, VMS_PSWPIN), "pages");
	fig(pt, "pgpgin", vm_vmstat_delta(&s0, &s1, VMS_PGPGIN), "kB");
	fig(pt, "pgpgout", vm_vmstat_delta(&s0, &s1, VMS_PGPGOUT), "kB");
	fig(pt, "pgmajfault", vm_vmstat_delta(&s0, &s1, VMS_PGMAJFAULT),
	    "count");
	ktap_result(ok, names[pt->t_touch], ok ? NULL : "not every process "
		    "made its rounds after the pressure was satisfied");
	return (int)errs;
}

/* one toucher checks its mappings, the parent the file: bad blocks */
static long part_verify(struct part *pt, long errs)
{
	static uint32_t b[VM_BLK_WORDS];
	long j, nbad = 0;
	double end;

	if (write(pt->cmd[1], "v", 1) != 1) {
		ktap_diag("%s: command pipe: %s", pt->pfx, strerror(errno));
		nbad++;
	}
	end = vm_now_ms() + 120000;
	while (!pt->ctl->verified && vm_now_ms() < end)
		vm_sleep_ms(10);
	if (!pt->ctl->verified) {
		ktap_diag("%s: no toucher checked its mappings", pt->pfx);
		nbad++;
	}
	nbad += pt->ctl->vbad;
	for (j = 0; j < pt->nvma; j++) {
		if (vm_pread_all(pt->fd, b, VM_BLK, (off_t)j * VM_BLK)) {
			ktap_diag("pread: %s", strerror(errno));
			nbad++;
			break;
		}
		nbad += check_block(b, j, pt->nforked, pt->rdone, "file",
				    nbad);
	}
	fig(pt, "bad_blocks", nbad + errs, "count");
	ktap_result(!nbad && !errs, names[pt->t_data], NULL);
	return nbad + errs;
}

/* release the touchers and reap them; 0 if all ended as told */
static int part_end(struct part *pt)
{
	struct rusage ru, sum;
	int k, st, bad = 0;
	static const char xs[MAXPROC] = { [0 ... MAXPROC - 1] = 'x' };

	memset(&sum, 0, sizeof(sum));
	if (pt->ctl) {
		/* touchers that never started stop at once */
		pt->ctl->stop = 1;
		pt->ctl->go = 1;
	}
	if (pt->cmd[1] >= 0 && pt->nforked &&
	    write(pt->cmd[1], xs, pt->nforked) != pt->nforked)
		ktap_diag("%s: command pipe: %s", pt->pfx, strerror(errno));
	for (k = 0; k < pt->nforked; k++) {
		if (pt->pids[k] <= 0)
			continue;
		memset(&ru, 0, sizeof(ru));
		if (vm_wait_timeout(pt->pids[k], &st, &ru, 30000) != 0) {
			ktap_diag("%s: process %d did not exit", pt->pfx, k);
			kill(pt->pids[k], SIGKILL);
			vm_wait(pt->pids[k], &st, &ru);
			bad++;
		} else if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			ktap_diag("%s: process %d ended with status 0x%x",
				  pt->pfx, k, st);
			bad++;
		}
		vm_rusage_add(&sum, &ru);
		pt->pids[k] = 0;
	}
	if (pt->nforked) {
		fig(pt, "procs_minflt", sum.ru_minflt, "count");
		fig(pt, "procs_majflt", sum.ru_majflt, "count");
	}
	if (pt->cmd[1] >= 0)
		close(pt->cmd[1]);
	pt->cmd[1] = -1;
	if (pt->area)
		munmap(pt->area, (size_t)pt->nvma * VM_BLK);
	pt->area = NULL;
	if (pt->fd >= 0) {
		close(pt->fd);
		pt->fd = -1;
		if (unlink(pt->path) != 0) {
			ktap_diag("unlink %s: %s", pt->path, strerror(errno));
			bad++;
		}
		vm_unregister_path(pt->path);
	}
	if (pt->ctl)
		munmap(pt->ctl, sizeof(*pt->ctl));
	pt->ctl = NULL;
	return bad;
}

/* ---- truncate ---- */

static sigjmp_buf bus_jmp;

static void on_bus(int sig)
{
	(void)sig;
	siglongjmp(bus_jmp, 1);
}

/* read @p: 1 if it raised SIGBUS, else 0 and the word in *val */
static int read_bus(const volatile uint32_t *p, uint32_t *val)
{
	struct sigaction sa, old;
	volatile int bus = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_bus;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &old);
	if (sigsetjmp(bus_jmp, 1) == 0)
		*val = *p;
	else
		bus = 1;
	sigaction(SIGBUS, &old, NULL);
	return bus;
}

/* page @blk beyond EOF: SIGBUS through @map; 0 if so */
static int expect_bus(const char *map, long blk, const char *what)
{
	uint32_t v;

	if (read_bus((const uint32_t *)(map + blk * VM_BLK), &v))
		return 0;
	ktap_diag("%s: file page %ld beyond EOF read 0x%08x, no SIGBUS",
		  what, blk, v);
	return 1;
}

/* page @blk after re-extension: zeros through @map and pread; 0 if so */
static int expect_zero(int fd, const char *map, long blk, const char *what)
{
	static uint32_t b[VM_BLK_WORDS];
	const volatile uint32_t *p =
		(const volatile uint32_t *)(map + blk * VM_BLK);
	uint32_t v = 0;
	int w;

	if (read_bus(p, &v)) {
		ktap_diag("%s: file page %ld: SIGBUS after re-extension",
			  what, blk);
		return 1;
	}
	for (w = 0; w < VM_BLK_WORDS; w++) {
		if (p[w]) {
			ktap_diag("%s: file page %ld word %d through the "
				  "mapping: 0x%08x, wanted 0", what, blk, w,
				  p[w]);
			return 1;
		}
	}
	if (vm_pread_all(fd, b, VM_BLK, (off_t)blk * VM_BLK)) {
		ktap_diag("%s: pread: %s", what, strerror(errno));
		return 1;
	}
	for (w = 0; w < VM_BLK_WORDS; w++) {
		if (b[w]) {
			ktap_diag("%s: file page %ld word %d with pread: "
				  "0x%08x, wanted 0", what, blk, w, b[w]);
			return 1;
		}
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double cut_us(int fd, long pages)
{
	double t0 = vm_now_ms();

	if (ftruncate(fd, (off_t)pages * VM_BLK) != 0) {
		ktap_diag("ftruncate to %ld pages: %s", pages,
			  strerror(errno));
		return -1;
	}
	return (vm_now_ms() - t0) * 1000;
}

/*
 * The file of @pt is mapped once by each of its live touchers, page by
 * page; the parent maps it whole (one vma) for the checks.
 */
static void truncate_tests(struct part *pt, long reps)
{
	long n = pt->nvma, half = n / 2, r, nbad = 0, nalive = 0, j;
	static uint32_t b[VM_BLK_WORDS];
	double *us, total = 0, t, med = -1;
	char *map;
	int k, fail = 0;

	for (k = 0; k < pt->nforked; k++)
		nalive += pt->pids[k] > 0;
	fig(pt, "procs_alive", nalive, "count");
	vm_fig_i("truncate_file_vmas", nalive * n + 1, "count");
	map = mmap(NULL, (size_t)n * VM_BLK, PROT_READ | PROT_WRITE,
		   MAP_SHARED, pt->fd, 0);
	us = calloc((size_t)reps, sizeof(*us));
	if (map == MAP_FAILED || !us) {
		ktap_fail(names[T_TR_TAIL], "mmap or calloc: %s",
			  strerror(errno));
		ktap_skip(names[T_TR_HALF], "no mapping");
		if (map != MAP_FAILED)
			munmap(map, (size_t)n * VM_BLK);
		free(us);
		return;
	}

	/*
	 * Tail: cut the last page, check it is gone, re-extend, check it
	 * reads as zeros, write its data back; -R times.  Each cut
	 * overlaps one vma per toucher plus the parent's.
	 */
	vm_phase("truncate the tail");
	for (r = 0; r < reps && !fail; r++) {
		us[r] = cut_us(pt->fd, n - 1);
		if (us[r] < 0) {
			fail = 1;
			break;
		}
		total += us[r];
		fail |= expect_bus(map, n - 1, "tail");
		if (ftruncate(pt->fd, (off_t)n * VM_BLK) != 0) {
			ktap_diag("re-extend: %s", strerror(errno));
			fail = 1;
			break;
		}
		fail |= expect_zero(pt->fd, map, n - 1, "tail");
		if (write_blocks(pt->fd, n - 1, n) != 0) {
			ktap_diag("rewrite: %s", strerror(errno));
			fail = 1;
		}
		vm_progress("truncate: tail cut %ld of %ld, %.0f us", r + 1,
			    reps, us[r]);
	}
	if (r > 0) {
		qsort(us, (size_t)r, sizeof(*us), cmp_double);
		med = us[r / 2];
		vm_fig_f("truncate_tail_us", med, "us");
		vm_fig_f("truncate_tail_us_mean", total / r, "us");
		vm_fig_f("truncate_tail_us_min", us[0], "us");
		vm_fig_f("truncate_tail_us_max", us[r - 1], "us");
		vm_fig_i("truncate_tail_reps", r, "count");
	}
	vm_fig_i("truncate_tail_vmas", nalive + 1, "count");
	ktap_result(!fail, names[T_TR_TAIL], "%ld cuts of the last page, "
		    "median %.0f us", r, med);
	free(us);

	/*
	 * Half: one cut of pages half..n-1, which every toucher maps in
	 * n - half vmas.  The pages before it must keep their data (the
	 * touchers' last slot words included), the ones after must raise
	 * SIGBUS, then read as zeros once the file is re-extended.
	 */
	vm_phase("truncate the half");
	fail = 0;
	t = cut_us(pt->fd, half);
	if (t < 0) {
		fail = 1;
	} else {
		vm_fig_f("truncate_half_us", t, "us");
		fail |= expect_bus(map, half, "half");
		fail |= expect_bus(map, n - 1, "half");
		if (ftruncate(pt->fd, (off_t)n * VM_BLK) != 0) {
			ktap_diag("re-extend: %s", strerror(errno));
			fail = 1;
		}
		for (j = half; j < n && !fail; j++)
			fail |= expect_zero(pt->fd, map, j, "half");
	}
	vm_fig_i("truncate_half_vmas", nalive * (n - half) + 1, "count");
	for (j = 0; j < half; j++) {
		if (vm_pread_all(pt->fd, b, VM_BLK, (off_t)j * VM_BLK)) {
			ktap_diag("pread: %s", strerror(errno));
			nbad++;
			break;
		}
		nbad += check_block(b, j, pt->nforked, pt->rdone,
				    "before the cut", nbad);
	}
	vm_fig_i("truncate_bad_blocks", nbad, "count");
	if (t > 0 && med > 0)
		vm_fig_f("truncate_half_over_tail", t / med, "ratio");
	ktap_result(!fail && !nbad, names[T_TR_HALF], "cut %ld of %ld pages "
		    "in %.0f us", n - half, n, t);
	munmap(map, (size_t)n * VM_BLK);
}

int main(int argc, char **argv)
{
	long nvma = -1, mvma = -1, nproc = 32, reps = 32;
	const struct vm_opt opts[] = {
		{ 'n', VM_OPT_LONG, &nvma, "N",
		  "mappings of the one process (default min(10000, mem/4 in "
		  "pages, max_map_count - 1000))" },
		{ 'M', VM_OPT_LONG, &mvma, "M",
		  "mappings of each shared process (default min(3000, mem/8 "
		  "in pages, max_map_count - 1000, mem/16 / (100 bytes * "
		  "K)))" },
		{ 'k', VM_OPT_LONG, &nproc, "K",
		  "processes sharing M mappings (default 32, max 256)" },
		{ 'r', VM_OPT_LONG, &rounds, "R",
		  "rounds each process makes once the pressure has all its "
		  "memory (default 3)" },
		{ 'a', VM_OPT_LONG, &press_mb, "MB",
		  "anonymous pressure (default mem)" },
		{ 't', VM_OPT_LONG, &time_s, "SEC",
		  "bound of each touch phase (default 600)" },
		{ 'R', VM_OPT_LONG, &reps, "N",
		  "cuts of the last page of the file (default 32)" },
		{ 0, 0, NULL, NULL, NULL },
	};
	struct part one, sh;
	long long maxmap;
	long nbad = 0;
	int cleanup_bad = 0, sh_ok = 0;

	vm_init("many_vmas", argc, argv, opts, summary, 1800);
	maxmap = vm_proc_long("/proc/sys/vm/max_map_count");
	if (maxmap <= 0)
		maxmap = 65536;		/* 2.6.3: MAX_MAP_COUNT, no sysctl */
	if (nvma < 0) {
		nvma = VM_MIN(10000L,
			      (long)(vm_mem_bytes() / 4 / VM_BLK));
		nvma = VM_MIN(nvma, (long)maxmap - 1000);
	}
	if (mvma < 0 && nproc >= 1) {
		mvma = VM_MIN(3000L, (long)(vm_mem_bytes() / 8 / VM_BLK));
		mvma = VM_MIN(mvma, (long)maxmap - 1000);
		/* a vma is 64 to 80 bytes on i386: keep them to mem/16 */
		mvma = VM_MIN(mvma, (long)(vm_mem_bytes() / 16 / 100 /
					   (uint64_t)nproc));
	}
	if (press_mb < 0)
		press_mb = vm_cfg.mem_mb;
	if (nvma < 1 || mvma < 2 || nproc < 1 || nproc > MAXPROC ||
	    rounds < 1 || reps < 1) {
		fprintf(stderr, "many_vmas: bad -n, -M, -k, -r or -R\n");
		return 1;
	}
	if (nvma > maxmap - 100)
		nvma = (long)maxmap - 100;
	if (mvma > maxmap - 100)
		mvma = (long)maxmap - 100;

	ktap_header(T_N);
	ktap_names(names);
	vm_fig_i("mem_mb", vm_cfg.mem_mb, "MB");
	vm_fig_i("max_map_count", maxmap, "count");
	vm_fig_i("rounds", rounds, "count");
	vm_fig_i("nvmas", nvma, "count");
	vm_fig_f("one_file_mb", (double)nvma * VM_BLK / VM_MB, "MB");
	vm_fig_i("shared_nvmas", mvma, "count");
	vm_fig_i("shared_procs", nproc, "count");
	vm_fig_f("shared_file_mb", (double)mvma * VM_BLK / VM_MB, "MB");
	tmpfs = vm_is_tmpfs(vm_cfg.dir) == 1;
	ktap_diag("files in %s (%s)", vm_cfg.dir, tmpfs ? "tmpfs" :
		  "not tmpfs");

	memset(&one, 0, sizeof(one));
	one.pfx = "one";
	one.t_map = T_ONE_MAP;
	one.t_fork = -1;
	one.t_touch = T_ONE_TOUCH;
	one.t_data = T_ONE_DATA;
	one.nvma = nvma;
	one.nproc = 1;
	vm_phase("one: create file and mappings");
	if (part_setup(&one) == 0) {
		long errs;

		vm_phase("one: touch under pressure");
		errs = part_touch(&one);
		vm_phase("one: verify");
		nbad += part_verify(&one, errs);
	} else {
		skip_rest(&one, T_N - ktap_pending(), "setup failed");
	}
	vm_phase("one: end");
	cleanup_bad += part_end(&one);

	memset(&sh, 0, sizeof(sh));
	sh.pfx = "shared";
	sh.t_map = T_SH_MAP;
	sh.t_fork = T_SH_FORK;
	sh.t_touch = T_SH_TOUCH;
	sh.t_data = T_SH_DATA;
	sh.nvma = mvma;
	sh.nproc = (int)nproc;
	vm_phase("shared: create file, mappings and processes");
	if (part_setup(&sh) == 0) {
		long errs;

		vm_phase("shared: touch under pressure");
		errs = part_touch(&sh);
		vm_phase("shared: verify");
		errs = part_verify(&sh, errs);
		nbad += errs;
		sh_ok = !errs;
	} else {
		skip_rest(&sh, T_N - ktap_pending(), "setup failed");
	}
	if (sh_ok) {
		truncate_tests(&sh, reps);
	} else {
		ktap_skip(names[T_TR_TAIL], "shared part failed");
		ktap_skip(names[T_TR_HALF], "shared part failed");
	}
	vm_fig_i("bad_blocks", nbad, "count");

	vm_phase("cleanup");
	cleanup_bad += part_end(&sh);
	if (vm_nchildren() != 0) {
		ktap_diag("%d children left", vm_nchildren());
		cleanup_bad++;
	}
	vm_kill_all();
	ktap_result(!cleanup_bad, names[T_CLEANUP], NULL);
	ktap_exit();
}
