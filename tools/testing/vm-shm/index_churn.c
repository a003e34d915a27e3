// SPDX-License-Identifier: GPL-2.0
/*
 * index_churn - a vma lost from, or left in, the index of a file's vmas
 * must show.
 *
 * The series finds the vmas that map a file page, or a truncated range,
 * in an index of the file's linear vmas by offset (mm/vma_index.c).
 * Every path that creates, changes or frees a file vma keeps it: mmap,
 * munmap, split_vma (mprotect of a page in the middle), vma_merge,
 * mremap (shrink, grow in place, move, old_len 0 copies), fork (the
 * child's vma goes beside the parent's), exit, remap_file_pages (out of
 * the index, onto i_mmap_nonlinear), and a fork that fails halfway
 * through dup_mmap.  A vma the index lost keeps its ptes when the file
 * is truncated: its pages stay mapped past EOF, and once the file grows
 * back they show the old data instead of the new.  A vma the index kept
 * after it was freed sends the next walk into freed memory: an oops, a
 * hang, or a walk that skips vmas.
 *
 * For a tmpfs file, then for a file in -d (not a tmpfs): a process maps
 * small MAP_SHARED and MAP_PRIVATE pieces of the file (1-4 pages, most
 * offsets from a few dozen, so ranges repeat) into -a pages of address
 * space, and a tree of up to -w processes forked from it, and from each
 * other, churns them at random, -o steps per process and round: map
 * (sometimes over old mappings), munmap, mprotect a page or two
 * (splits), mremap (shrink, grow in place, move with MREMAP_FIXED, an
 * old_len 0 copy of a shared piece), remap_file_pages of one page
 * (unless -N), touch (read; write a private page: copy on write;
 * rewrite a word of a shared one with its own value), fork, exit.
 * Each process keeps a model of its address space, inherited by fork:
 * what every page maps, and what a private page it wrote holds.  Each
 * round ends with a check: every process stops, touches every page it
 * maps (so that every vma has ptes) and checks it; the file is
 * truncated to a random size; every page past EOF must raise SIGBUS and
 * every page below must read what it should; the file grows back and
 * the truncated part is rewritten with a new generation of data, which
 * every page must then show.  An anonymous hog (-p MB) keeps reclaim
 * walking the index meanwhile.  Pages moved by remap_file_pages are
 * checked alike but reported on a line of their own (2.6.3 leaves them
 * mapped past EOF, see truncate_nonlinear).
 *
 * As root, every third round one process also maps an untouched private
 * anonymous area above its file mappings, 3/4 of the commit headroom
 * (with vm.overcommit_memory = 1), and forks with it = 2, for the length
 * of those two calls: dup_mmap fails at the area, after the child's
 * copies of the file vmas went beside the parent's, and the child's mm
 * is torn down.
 *
 * Last, for 2.6.3: a one-page mapping at file page 2^32 - 2, grown in
 * place by mremap to 2 + W pages, maps file pages 0..W-1 with vm_pgoff
 * wrapping past ULONG_MAX (do_mremap does not check).  Those pages must
 * stay reclaimable under an anonymous hog, like the pages of a control
 * file mapped at offset 0 (mincore on both files).  A kernel may refuse
 * the mremap instead (EINVAL: the series does, since its rmap walk finds
 * vmas by offset); skipped where vm_pgoff does not wrap (64-bit) and
 * without swap.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "vmshm.h"

#ifndef PR_SET_CHILD_SUBREAPER
#define PR_SET_CHILD_SUBREAPER	36
#endif
#ifndef MREMAP_FIXED
#define MREMAP_FIXED	2
#endif

static const char summary[] =
	"index_churn: many small shared and private mappings of a file,\n"
	"split, merged, moved, remapped, forked and torn down by a tree of\n"
	"processes; after each truncate every mapping must SIGBUS past EOF\n"
	"and show the right data below it";

enum { T_TMPFS, T_TMPFS_NL, T_DISK, T_DISK_NL, T_FORKFAIL, T_WRAP,
       T_CLEANUP, T_N };

static const char *const names[] = {
	"tmpfs: every mapping SIGBUS past EOF, right data below, "
	"after each truncate",
	"tmpfs: pages moved by remap_file_pages likewise",
	"disk file: every mapping SIGBUS past EOF, right data below, "
	"after each truncate",
	"disk file: pages moved by remap_file_pages likewise",
	"a fork failing in dup_mmap leaves the index whole",
	"a mapping grown past pgoff ULONG_MAX stays reclaimable",
	"cleanup: every process ended and was reaped",
	NULL
};

#define MAXW		32		/* process slots */
#define SEED		0x1dc4u
#define W_MARK		5		/* word a private write changes */
#define W_DIRTY		3		/* word a shared write rewrites */
#define NHOT		24		/* offsets most mappings start at */

static long npages = -1, area_pages = 4096, maxw = 8, rounds = 8;
static long steps = 200, press_mb = -1, seed_opt = 1;
static int no_nonlinear, no_forkfail, no_wrap;

static const struct vm_opt opts[] = {
	{ 'n', VM_OPT_LONG, &npages, "PAGES",
	  "file size (mem * 4, 256..4096)" },
	{ 'a', VM_OPT_LONG, &area_pages, "PAGES",
	  "address space each process maps into (4096)" },
	{ 'w', VM_OPT_LONG, &maxw, "N", "processes at most (8, <= 32)" },
	{ 'r', VM_OPT_LONG, &rounds, "N", "truncate rounds per file (8)" },
	{ 'o', VM_OPT_LONG, &steps, "N", "steps per process and round (200)" },
	{ 'p', VM_OPT_LONG, &press_mb, "MB",
	  "anonymous pressure (mem; 0 none)" },
	{ 's', VM_OPT_LONG, &seed_opt, "N", "random seed (1)" },
	{ 'N', VM_OPT_FLAG, &no_nonlinear, NULL, "no remap_file_pages" },
	{ 'F', VM_OPT_FLAG, &no_forkfail, NULL, "no failing fork" },
	{ 'W', VM_OPT_FLAG, &no_wrap, NULL, "no wrapped pgoff check" },
	{ 0 }
};

/* ---- what the processes share ---- */

enum { P_RUN, P_FORKFAIL, P_QUIET, P_CHECK, P_QUIT };
enum { S_FREE, S_CLAIMED, S_ALIVE, S_EXITED, S_LOST };
enum { K_MAP, K_MUNMAP, K_MPROTECT, K_SHRINK, K_GROW, K_MOVE, K_DUP,
       K_REMAP, K_TOUCH, K_FORK, K_EXIT, K_N };
static const char *const kind_name[K_N] = {
	"map", "munmap", "mprotect", "shrink", "grow", "move", "dup",
	"remap", "touch", "fork", "exit"
};
/* failure classes: a page past EOF that reads, SIGBUS below EOF, data */
enum { F_STALE, F_BUS, F_DATA, F_NL_STALE, F_NL_BUS, F_NL_DATA,
       F_LOST, F_HARNESS, F_N };
static const char *const fail_name[F_N] = {
	"pages readable past EOF", "SIGBUS below EOF", "wrong data",
	"nonlinear pages readable past EOF", "nonlinear SIGBUS below EOF",
	"nonlinear wrong data", "processes died", "harness errors"
};

struct wslot {
	volatile int32_t state;
	volatile int32_t pid;
	volatile uint32_t ack;		/* phase seq done */
	volatile int32_t reaped;
};

struct ctl {
	volatile uint32_t phase;	/* seq << 3 | P_* */
	volatile uint32_t size;		/* file size in pages, for checks */
	volatile int32_t forkfail_slot;
	volatile int32_t driver;	/* pid */
	volatile int64_t deadline_ms;
	volatile uint32_t fail[F_N];
	volatile uint32_t kinds[K_N];
	volatile uint32_t kind_failed[K_N];
	volatile uint32_t vmas;		/* sum over processes, last check */
	volatile uint32_t forkfail_ok, forkfail_other;
	volatile int32_t forkfail_errno;
	volatile int32_t msg_taken[F_N];
	char msg[F_N][200];
	struct wslot w[MAXW];
	volatile uint32_t gen[];	/* per file block */
};

static struct ctl *ctl;
static size_t ctl_bytes;
static int ovc_fd = -1;			/* /proc/sys/vm/overcommit_memory */
static char ovc_saved[8];

/* ---- one process's model of its area ---- */

#define F_MAPPED	1
#define F_SHARED	2
#define F_WRITE		4
#define F_COW		8		/* private page it wrote: val */
#define F_NL		16		/* moved by remap_file_pages */

static char *area;
static long A;				/* pages of the area */
static long NP;				/* pages of the file */
static int fd = -1;
static uint8_t *fl;
static uint32_t *cur, *lin, *vid, *val;
static uint32_t next_id = 1;
static int me;				/* slot */
static uint64_t rng;
static long done_steps;
static char detail[128];		/* last step, INDEX_CHURN_VERIFY */

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void reseed(uint64_t salt)
{
	rng = ((uint64_t)seed_opt * 0x9e3779b97f4a7c15ULL) ^
	      (salt * 0xbf58476d1ce4e5b9ULL) ^ 0x94d049bb133111ebULL;
	if (!rng)
		rng = 1;
	rnd();
}

static char *pg(long i)
{
	return area + i * vm_pagesize;
}

/* Record a failure of class @f; the first one of each class is told. */
static void failf(int f, const char *fmt, ...) VM_PRINTF(2, 3);
static void failf(int f, const char *fmt, ...)
{
	va_list ap;

	__sync_fetch_and_add(&ctl->fail[f], 1);
	if (__sync_lock_test_and_set(&ctl->msg_taken[f], 1))
		return;
	va_start(ap, fmt);
	vsnprintf(ctl->msg[f], sizeof(ctl->msg[f]), fmt, ap);
	va_end(ap);
}

/* ---- SIGBUS-safe access ---- */

static sigjmp_buf bus_jmp;
static volatile sig_atomic_t bus_armed;

static void on_bus(int sig)
{
	(void)sig;
	if (bus_armed)
		siglongjmp(bus_jmp, 1);
	_exit(90);
}

static const char *volatile cur_step = "start";

/* A fault where the model says a page is mapped: the model is wrong. */
static void on_segv(int sig, siginfo_t *si, void *uc)
{
	long i = ((char *)si->si_addr - area) / vm_pagesize;

	(void)sig;
	(void)uc;
	if (ctl) {
		__sync_fetch_and_add(&ctl->fail[F_HARNESS], 1);
		if (!__sync_lock_test_and_set(&ctl->msg_taken[F_HARNESS], 1))
			snprintf(ctl->msg[F_HARNESS],
				 sizeof(ctl->msg[F_HARNESS]),
				 "SIGSEGV in %s at page %ld of the area "
				 "(model: flags 0x%x)", cur_step, i,
				 i >= 0 && i < A ? fl[i] : 0);
	}
	_exit(91);
}

/* Read words 0, 1, W_DIRTY and W_MARK of page @i; 1 on SIGBUS. */
static int read_page(long i, uint32_t w[4])
{
	volatile uint32_t *p = (volatile uint32_t *)pg(i);

	if (sigsetjmp(bus_jmp, 0)) {
		bus_armed = 0;
		return 1;
	}
	bus_armed = 1;
	w[0] = p[0];
	w[1] = p[1];
	w[2] = p[W_DIRTY];
	w[3] = p[W_MARK];
	bus_armed = 0;
	return 0;
}

static int read_word(const volatile uint32_t *p, uint32_t *v)
{
	if (sigsetjmp(bus_jmp, 0)) {
		bus_armed = 0;
		return 1;
	}
	bus_armed = 1;
	*v = *p;
	bus_armed = 0;
	return 0;
}

static int write_word(long i, int word, uint32_t v)
{
	volatile uint32_t *p = (volatile uint32_t *)pg(i);

	if (sigsetjmp(bus_jmp, 0)) {
		bus_armed = 0;
		return 1;
	}
	bus_armed = 1;
	p[word] = v;
	bus_armed = 0;
	return 0;
}

static uint32_t pat_word(uint32_t blk, uint32_t gen, int word)
{
	return vm_pat_base(SEED, blk, gen) + (uint32_t)word * 0x9e3779b9u;
}

/*
 * Page @i against a file of @size pages: SIGBUS past EOF, the file's
 * data (or its own private data) below.  Returns 1 if it is wrong.
 */
static int check_page(long i, uint32_t size, const char *when)
{
	uint32_t w[4], c = cur[i], g;
	int nl = !!(fl[i] & F_NL), bus = read_page(i, w);

	if (c >= size) {
		if (!bus) {
			failf(nl ? F_NL_STALE : F_STALE,
			      "%s: pid %d page %ld (file page %u) reads "
			      "0x%08x 0x%08x past EOF (%u pages)%s%s", when,
			      (int)getpid(), i, c, w[0], w[1], size,
			      fl[i] & F_SHARED ? "" : ", private",
			      fl[i] & F_COW ? ", written" : "");
			return 1;
		}
		fl[i] &= ~F_COW;	/* truncate took its private copy */
		return 0;
	}
	if (bus) {
		failf(nl ? F_NL_BUS : F_BUS,
		      "%s: pid %d page %ld (file page %u of %u) SIGBUS",
		      when, (int)getpid(), i, c, size);
		return 1;
	}
	g = ctl->gen[c];
	if (w[0] != (VM_MAGIC ^ c) ||
	    (fl[i] & F_COW ? w[3] != val[i] :
	     (w[1] != g || w[2] != pat_word(c, g, W_DIRTY)))) {
		failf(nl ? F_NL_DATA : F_DATA,
		      "%s: pid %d page %ld (file page %u, gen %u%s) reads "
		      "0x%08x gen %u, 0x%08x 0x%08x", when, (int)getpid(), i,
		      c, g, fl[i] & F_COW ? ", private copy" : "", w[0],
		      w[1], w[2], w[3]);
		return 1;
	}
	return 0;
}

/* ---- the model ---- */

/* The run of page @i: contiguous pages of its id, one kernel vma. */
static void run_of(long i, long *s, long *e)
{
	long a = i, b = i + 1;

	while (a > 0 && (fl[a - 1] & F_MAPPED) && vid[a - 1] == vid[i])
		a--;
	while (b < A && (fl[b] & F_MAPPED) && vid[b] == vid[i])
		b++;
	*s = a;
	*e = b;
}

/* Pages from @e on that shared a run with @e - 1 become a run apart. */
static void cut_before(long e)
{
	uint32_t old, id;

	if (e <= 0 || e >= A || !(fl[e] & F_MAPPED) ||
	    !(fl[e - 1] & F_MAPPED) || vid[e] != vid[e - 1])
		return;
	old = vid[e];
	id = next_id++;
	for (; e < A && (fl[e] & F_MAPPED) && vid[e] == old; e++)
		vid[e] = id;
}

static void unmap_model(long s, long e)
{
	cut_before(e);
	for (; s < e; s++)
		fl[s] = 0;
}

static long pick_mapped(uint8_t need)
{
	int t;

	for (t = 0; t < 64; t++) {
		long i = rnd() % A;

		if ((fl[i] & (F_MAPPED | need)) == (F_MAPPED | need))
			return i;
	}
	return -1;
}

static long pick_free(long len)
{
	int t;

	for (t = 0; t < 64; t++) {
		long s = rnd() % (A - len + 1), j;

		for (j = 0; j < len && !(fl[s + j] & F_MAPPED); j++)
			;
		if (j == len)
			return s;
	}
	return -1;
}

static int run_has_nl(long s, long e)
{
	for (; s < e; s++)
		if (fl[s] & F_NL)
			return 1;
	return 0;
}

static int prot_of(uint8_t f)
{
	return PROT_READ | (f & F_WRITE ? PROT_WRITE : 0);
}

/*
 * INDEX_CHURN_VERIFY=1 (debugging the harness): after every step, the
 * model against /proc/self/maps, page by page (a modern kernel: pages
 * remapped by remap_file_pages are vmas of their own there).
 */
static int verify_model(const char *after)
{
	static char buf[1 << 20];
	static char seen[1 << 18];
	unsigned long lo = (unsigned long)area;
	unsigned long hi = lo + (unsigned long)A * vm_pagesize;
	long got, have = 0, i;
	int mfd = open("/proc/self/maps", O_RDONLY), bad = 0;
	char *p;

	if (mfd < 0)
		return 0;
	while ((got = read(mfd, buf + have, sizeof(buf) - 1 - have)) > 0)
		have += got;
	close(mfd);
	buf[have] = 0;
	memset(seen, 0, A);
	for (p = buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 :
	     NULL) {
		unsigned long start, end, off;
		char perms[8];

		if (sscanf(p, "%lx-%lx %7s %lx", &start, &end, perms,
			   &off) != 4)
			continue;
		if (start < lo || start >= hi)
			continue;
		for (i = (start - lo) / vm_pagesize;
		     i < (long)((end - lo) / vm_pagesize); i++) {
			long first = (long)((start - lo) / vm_pagesize);
			uint32_t want = (uint32_t)(off / vm_pagesize) +
					(uint32_t)(i - first);

			seen[i] = 1;
			if (!(fl[i] & F_MAPPED) ||
			    !!(fl[i] & F_WRITE) != (perms[1] == 'w') ||
			    !!(fl[i] & F_SHARED) != (perms[3] == 's') ||
			    cur[i] != want) {
				if (bad++ < 3)
					failf(F_HARNESS, "after %s (%s): page "
					      "%ld: model flags 0x%x cur %u, "
					      "kernel %s pgoff %u", after,
					      detail, i, fl[i], cur[i], perms,
					      want);
			}
		}
	}
	for (i = 0; i < A; i++)
		if ((fl[i] & F_MAPPED) && !seen[i] && bad++ < 3)
			failf(F_HARNESS, "after %s: page %ld: model flags "
			      "0x%x, kernel unmapped", after, i, fl[i]);
	return bad;
}

static int verify_on;

/* ---- the steps ---- */

static int step_map(void)
{
	long len = 1 + rnd() % 4, s, j;
	uint32_t pgoff, id = next_id++;
	uint8_t f = F_MAPPED;
	void *p;

	if (rnd() % 8 == 0)
		s = rnd() % (A - len + 1);	/* over whatever is there */
	else
		s = pick_free(len);
	if (s < 0)
		return 0;
	if (rnd() % 4)
		pgoff = (uint32_t)((rnd() % NHOT) * (NP / NHOT));
	else
		pgoff = (uint32_t)(rnd() % (NP - len + 1));
	if (rnd() % 3)
		f |= F_SHARED;
	if (rnd() % 8)
		f |= F_WRITE;
	p = mmap(pg(s), len * vm_pagesize, prot_of(f),
		 (f & F_SHARED ? MAP_SHARED : MAP_PRIVATE) | MAP_FIXED, fd,
		 (off_t)pgoff * vm_pagesize);
	if (p == MAP_FAILED) {
		/* the old mappings may be gone already: make sure */
		munmap(pg(s), len * vm_pagesize);
		unmap_model(s, s + len);
		return -1;
	}
	cut_before(s + len);
	for (j = 0; j < len; j++) {
		fl[s + j] = f;
		cur[s + j] = lin[s + j] = pgoff + (uint32_t)j;
		vid[s + j] = id;
		val[s + j] = 0;
	}
	return 1;
}

static int step_munmap(void)
{
	long i = pick_mapped(0), s, e;

	if (i < 0)
		return 0;
	if (rnd() % 3 == 0) {
		run_of(i, &s, &e);
	} else {
		s = i;
		e = s + 1 + (long)(rnd() % 3);	/* not in VM_MIN: twice */
		if (e > A)
			e = A;
	}
	if (munmap(pg(s), (e - s) * vm_pagesize))
		return -1;
	unmap_model(s, e);
	return 1;
}

static int step_mprotect(void)
{
	long i = pick_mapped(0), s, e, a, b, j;
	uint32_t id = next_id++;
	uint8_t f;

	if (i < 0)
		return 0;
	run_of(i, &s, &e);
	/* usually a page in the middle: three vmas out of one */
	a = e - s > 2 ? s + 1 + (long)(rnd() % (e - s - 2)) : s;
	b = a + 1 + (long)(rnd() % 2);
	if (b > e)
		b = e;
	f = fl[a] ^ F_WRITE;
	snprintf(detail, sizeof(detail), "run %ld-%ld, pages %ld-%ld to %d",
		 s, e, a, b, prot_of(f));
	if (mprotect(pg(a), (b - a) * vm_pagesize, prot_of(f)))
		return -1;
	cut_before(b);
	for (j = a; j < b; j++) {
		fl[j] ^= F_WRITE;
		vid[j] = id;
	}
	return 1;
}

static int step_shrink(void)
{
	long i = pick_mapped(0), s, e, n;

	if (i < 0)
		return 0;
	run_of(i, &s, &e);
	if (e - s < 2)
		return 0;
	n = 1 + rnd() % (e - s - 1);
	if (mremap(pg(s), (e - s) * vm_pagesize, n * vm_pagesize, 0) !=
	    pg(s))
		return -1;
	unmap_model(s + n, e);
	return 1;
}

static int step_grow(void)
{
	long i = pick_mapped(0), s, e, k, j;

	if (i < 0)
		return 0;
	run_of(i, &s, &e);
	k = 1 + rnd() % 3;
	if (run_has_nl(s, e) || e + k > A)
		return 0;
	for (j = e; j < e + k; j++)
		if (fl[j] & F_MAPPED)
			return 0;
	if (lin[e - 1] + (uint32_t)k >= (uint32_t)NP + 64)
		return 0;		/* keep the offsets in reach */
	if (mremap(pg(s), (e - s) * vm_pagesize, (e - s + k) * vm_pagesize,
		   0) != pg(s))
		return -1;
	for (j = e; j < e + k; j++) {
		fl[j] = fl[e - 1] & (F_MAPPED | F_SHARED | F_WRITE);
		cur[j] = lin[j] = lin[e - 1] + (uint32_t)(j - e + 1);
		vid[j] = vid[e - 1];
		val[j] = 0;
	}
	return 1;
}

/* mremap a piece of a run elsewhere (@dup: old_len 0, a new copy) */
static int step_move(int dup)
{
	long i = pick_mapped(dup ? F_SHARED : 0), s, e, a, b, n, d, j;
	uint32_t id = next_id++;
	void *r;

	if (i < 0)
		return 0;
	run_of(i, &s, &e);
	if (run_has_nl(s, e))
		return 0;
	a = s + rnd() % (e - s);
	b = a + 1 + rnd() % (e - a);
	n = (b - a) + (long)(rnd() % 3);		/* never shrinks */
	if (dup)
		n = 1 + rnd() % 3;
	if (lin[a] + (uint32_t)n >= (uint32_t)NP + 64)
		return 0;
	d = pick_free(n);
	if (d < 0)
		return 0;
	r = mremap(pg(a), dup ? 0 : (b - a) * vm_pagesize, n * vm_pagesize,
		   MREMAP_MAYMOVE | MREMAP_FIXED, pg(d));
	if (r != pg(d))
		return -1;
	for (j = 0; j < n; j++) {
		long from = a + j;

		if (!dup && from < b) {
			fl[d + j] = fl[from];
			cur[d + j] = cur[from];
			val[d + j] = val[from];
		} else {
			fl[d + j] = fl[a] & (F_MAPPED | F_SHARED | F_WRITE);
			cur[d + j] = lin[a] + (uint32_t)j;
			val[d + j] = 0;
		}
		lin[d + j] = lin[a] + (uint32_t)j;
		vid[d + j] = id;
	}
	if (!dup)
		unmap_model(a, b);
	return 1;
}

static int step_remap(void)
{
	long i = pick_mapped(F_SHARED);
	uint32_t to;

	if (i < 0 || no_nonlinear)
		return 0;
	to = (uint32_t)(rnd() % NP);
	if (remap_file_pages(pg(i), vm_pagesize, 0, to, 0))
		return -1;
	cut_before(i + 1);
	cut_before(i);
	vid[i] = next_id++;
	cur[i] = to;
	fl[i] |= F_NL;
	return 1;
}

/* Read some pages, write some: private ones get their own copy. */
static int step_touch(uint32_t size)
{
	int n = 1 + rnd() % 16, t;

	for (t = 0; t < n; t++) {
		long i = pick_mapped(0);
		uint32_t v;

		if (i < 0)
			return 0;
		if (check_page(i, size, "touch"))
			continue;
		if (!(fl[i] & F_WRITE) || cur[i] >= size || rnd() % 2)
			continue;
		if (fl[i] & F_SHARED) {
			/* dirty it, its content unchanged */
			v = pat_word(cur[i], ctl->gen[cur[i]], W_DIRTY);
			write_word(i, W_DIRTY, v);
		} else {
			v = (uint32_t)rnd() | 1;
			if (write_word(i, W_MARK, v) == 0) {
				val[i] = v;
				fl[i] |= F_COW;
			}
		}
	}
	return 1;
}

static int live_workers(void)
{
	int s, n = 0;

	for (s = 0; s < MAXW; s++)
		if (ctl->w[s].state == S_ALIVE || ctl->w[s].state == S_CLAIMED)
			n++;
	return n;
}

static void worker_birth(int slot);

static int step_fork(void)
{
	int s;
	pid_t pid;

	if (live_workers() >= maxw)
		return 0;
	for (s = 0; s < MAXW; s++)
		if (__sync_bool_compare_and_swap(&ctl->w[s].state, S_FREE,
						 S_CLAIMED))
			break;
	if (s == MAXW)
		return 0;
	ctl->w[s].ack = ctl->w[me].ack;
	ctl->w[s].reaped = 0;
	ctl->w[s].pid = 0;
	pid = fork();
	if (pid < 0) {
		ctl->w[s].state = S_FREE;
		return -1;
	}
	if (pid == 0) {
		worker_birth(s);
		return 0;		/* the parent counts the fork */
	}
	ctl->w[s].pid = pid;
	return 1;
}

static void worker_exit(void)
{
	ctl->w[me].state = S_EXITED;
	_exit(0);
}

static int step_exit(void)
{
	if (live_workers() <= 2 || rnd() % 4)
		return 0;
	__sync_fetch_and_add(&ctl->kinds[K_EXIT], 1);
	worker_exit();
	return 1;
}

static void one_step(void)
{
	unsigned int r = rnd() % 100;
	int kind, ret;

	if (r < 22)
		kind = K_MAP;
	else if (r < 34)
		kind = K_MUNMAP;
	else if (r < 46)
		kind = K_MPROTECT;
	else if (r < 52)
		kind = K_SHRINK;
	else if (r < 60)
		kind = K_GROW;
	else if (r < 68)
		kind = K_MOVE;
	else if (r < 73)
		kind = K_DUP;
	else if (r < 78)
		kind = K_REMAP;
	else if (r < 96)
		kind = K_TOUCH;
	else if (r < 99)
		kind = K_FORK;
	else
		kind = K_EXIT;
	cur_step = kind_name[kind];
	switch (kind) {
	case K_MAP:
		ret = step_map();
		break;
	case K_MUNMAP:
		ret = step_munmap();
		break;
	case K_MPROTECT:
		ret = step_mprotect();
		break;
	case K_SHRINK:
		ret = step_shrink();
		break;
	case K_GROW:
		ret = step_grow();
		break;
	case K_MOVE:
		ret = step_move(0);
		break;
	case K_DUP:
		ret = step_move(1);
		break;
	case K_REMAP:
		ret = step_remap();
		break;
	case K_TOUCH:
		ret = step_touch((uint32_t)NP);
		break;
	case K_FORK:
		ret = step_fork();
		break;
	default:
		ret = step_exit();
		break;
	}
	if (verify_on && ret && verify_model(kind_name[kind]))
		_exit(92);
	if (ret > 0)
		__sync_fetch_and_add(&ctl->kinds[kind], 1);
	else if (ret < 0)
		__sync_fetch_and_add(&ctl->kind_failed[kind], 1);
}

/* ---- checks, counting, the failing fork ---- */


static void check_all(uint32_t size, const char *when)
{
	long i;

	for (i = 0; i < A; i++)
		if (fl[i] & F_MAPPED)
			check_page(i, size, when);
}

/* vmas of this process in the area, from /proc/self/maps */
static long count_vmas(void)
{
	static char buf[16384];
	unsigned long lo = (unsigned long)area;
	unsigned long hi = lo + (unsigned long)A * vm_pagesize;
	long n = 0, have = 0, got;
	int mfd = open("/proc/self/maps", O_RDONLY);

	if (mfd < 0)
		return -1;
	for (;;) {
		char *p = buf, *nl;

		got = read(mfd, buf + have, sizeof(buf) - 1 - have);
		if (got <= 0)
			break;
		have += got;
		buf[have] = 0;
		while ((nl = strchr(p, '\n'))) {
			unsigned long start = strtoul(p, NULL, 16);

			if (start >= lo && start < hi)
				n++;
			p = nl + 1;
		}
		have -= p - buf;
		memmove(buf, p, have);
	}
	close(mfd);
	return n;
}

/* Commit headroom in kB under vm.overcommit_memory = 2, or -1. */
static long long commit_headroom_kb(void)
{
	long long limit = vm_meminfo_kb("CommitLimit");
	long long used = vm_meminfo_kb("Committed_AS");

	if (limit < 0) {	/* 2.6.3: totalram * ratio / 100 + swap */
		long long ratio = vm_proc_long("/proc/sys/vm/overcommit_ratio");
		long long total = vm_meminfo_kb("MemTotal");
		long long swap = vm_meminfo_kb("SwapTotal");

		if (ratio < 0 || total < 0 || swap < 0)
			return -1;
		limit = total * ratio / 100 + swap;
	}
	if (used < 0)
		return -1;
	return limit - used;
}

static void ovc_write(const char *v)
{
	if (pwrite(ovc_fd, v, strlen(v), 0) < 0)
		failf(F_HARNESS, "writing vm.overcommit_memory: %s",
		      strerror(errno));
}

/*
 * Fork with an untouched private area above the file's mappings that
 * strict overcommit cannot account twice: dup_mmap copies the file vmas
 * (beside ours in the index), then fails, and tears the child down.
 * The area is mapped with overcommit_memory = 1, so that the heuristic
 * (free memory and swap, both low under the hog) cannot refuse it, and
 * still accounted; the fork is made with 2.  Signals are blocked from
 * the first write to the last, which puts the old value back.
 */
static void forkfail(void)
{
	long long room = commit_headroom_kb();
	size_t len;
	sigset_t block, old;
	char *b;
	pid_t pid = -1;
	int e = 0;

	if (room < 32 * 1024) {
		ctl->forkfail_errno = -1;
		return;
	}
	len = (size_t)(room * 3 / 4) * 1024;
	len = (size_t)vm_vsize_cap(len) & ~(size_t)(vm_pagesize - 1);
	sigemptyset(&block);
	sigaddset(&block, SIGALRM);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	ovc_write("1\n");
	b = mmap(area + (A + 4096) * vm_pagesize, len,
		 PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b == MAP_FAILED) {
		e = -errno;
	} else {
		ovc_write("2\n");
		pid = fork();
		e = errno;
		if (pid == 0)
			_exit(0);
	}
	ovc_write(ovc_saved);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (b == MAP_FAILED) {
		ctl->forkfail_errno = e;
		return;
	}
	if (pid > 0) {
		waitpid(pid, NULL, 0);
		ctl->forkfail_other++;
	} else if (e == ENOMEM) {
		ctl->forkfail_ok++;
	} else {
		ctl->forkfail_errno = e;
	}
	munmap(b, len);
}

/* ---- the worker loop ---- */

/* A reaped process's slot can be claimed again. */
static void slot_free(int s, int32_t from)
{
	ctl->w[s].pid = 0;
	__sync_bool_compare_and_swap(&ctl->w[s].state, from, S_FREE);
}

static void reap_children(void)
{
	int st, s;
	pid_t p;

	while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
		for (s = 0; s < MAXW; s++)
			if (ctl->w[s].pid == p)
				break;
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
			if (s < MAXW)
				slot_free(s, S_EXITED);
			continue;
		}
		if (s < MAXW) {
			ctl->w[s].reaped = 1;
			ctl->w[s].state = S_LOST;
		}
		failf(F_LOST, "process %d (slot %d) died: %s %d", (int)p, s,
		      WIFSIGNALED(st) ? "signal" : "exit status",
		      WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	}
}

static void worker_birth(int slot)
{
	int64_t left;

	me = slot;
	ctl->w[me].pid = getpid();
	ctl->w[me].state = S_ALIVE;
	reseed((uint64_t)getpid() << 8 | (uint64_t)slot);
	left = (ctl->deadline_ms - (int64_t)vm_now_ms()) / 1000 + 30;
	alarm(left > 0 ? (unsigned int)left : 1);
}

static void worker_loop(void)
{
	uint32_t last_seq = ctl->w[me].ack;
	long idle = 0;

	for (;;) {
		uint32_t st = __atomic_load_n(&ctl->phase, __ATOMIC_ACQUIRE);
		uint32_t seq = st >> 3, ph = st & 7;

		reap_children();
		if (ph == P_QUIT)
			worker_exit();
		if ((++idle & 63) == 0 && kill(ctl->driver, 0) &&
		    errno == ESRCH)
			_exit(0);
		if (seq == last_seq) {
			vm_sleep_ms(1);
			continue;
		}
		switch (ph) {
		case P_RUN:
			while (done_steps < steps &&
			       __atomic_load_n(&ctl->phase,
					       __ATOMIC_ACQUIRE) == st) {
				one_step();
				done_steps++;
				if ((done_steps & 15) == 0)
					reap_children();
				if ((done_steps & 63) == 0 &&
				    kill(ctl->driver, 0) && errno == ESRCH)
					_exit(0);
			}
			done_steps = 0;
			break;
		case P_FORKFAIL:
			if (ctl->forkfail_slot == me)
				forkfail();
			break;
		case P_QUIET: {
			long n = count_vmas();

			cur_step = "the check before truncate";
			check_all((uint32_t)NP, "before truncate");
			if (n > 0)
				__sync_fetch_and_add(&ctl->vmas, (uint32_t)n);
			break;
		}
		case P_CHECK:
			cur_step = "a check";
			check_all(ctl->size, (long)ctl->size < NP ?
				  "after truncate" :
				  "after the file grew back");
			break;
		}
		last_seq = seq;
		__atomic_store_n(&ctl->w[me].ack, seq, __ATOMIC_RELEASE);
	}
}

/* First process: the area, its first mappings, then the loop. */
static void first_worker(void)
{
	struct sigaction sa;
	long i, n = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_bus;
	sa.sa_flags = SA_NODEFER;	/* siglongjmp: no mask to restore */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
	sa.sa_handler = NULL;
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	worker_birth(0);
	/* every step's first try finds most of the area free */
	for (i = 0; i < A / 2 && n < A / 6; i++)
		n += step_map() > 0;
	worker_loop();
}

/* ---- the driver ---- */

static int proc_gone(pid_t pid)
{
	char path[64], buf[256], *p;
	int f;
	ssize_t got;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = open(path, O_RDONLY);
	if (f < 0)
		return 1;
	got = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (got <= 0)
		return 1;
	buf[got] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

/* Reap the slots' processes that are our children (worker 0, orphans). */
static void reap_slots(void)
{
	int s, st;

	for (s = 0; s < MAXW; s++) {
		struct wslot *w = &ctl->w[s];

		pid_t pid = w->pid;
		pid_t got;

		if (pid <= 0 || w->reaped ||
		    (w->state != S_EXITED && w->state != S_LOST))
			continue;
		got = waitpid(pid, &st, WNOHANG);
		if (got == pid) {
			vm_forget_child(pid);
			if (WIFEXITED(st) && WEXITSTATUS(st) == 0 &&
			    w->state == S_EXITED) {
				slot_free(s, S_EXITED);
				continue;
			}
			w->reaped = 1;
			if (w->state != S_LOST) {
				w->state = S_LOST;
				failf(F_LOST, "process %d died: %s %d",
				      (int)pid, WIFSIGNALED(st) ? "signal" :
				      "exit status", WIFSIGNALED(st) ?
				      WTERMSIG(st) : WEXITSTATUS(st));
			}
		} else if (got < 0 && errno == ECHILD && proc_gone(pid)) {
			/* its parent's, or init's: it is gone or going */
			if (w->state == S_EXITED)
				slot_free(s, S_EXITED);
			else
				w->reaped = 1;
		}
	}
}

/* Start phase @ph; wait until every live process has done it. */
static int phase(uint32_t ph, double timeout_s)
{
	uint32_t seq = (ctl->phase >> 3) + 1;
	double t0 = vm_now_ms(), gone_since[MAXW];
	int s, waiting;

	for (s = 0; s < MAXW; s++)
		gone_since[s] = -1;
	__atomic_store_n(&ctl->phase, seq << 3 | ph, __ATOMIC_RELEASE);
	if (ph == P_QUIT)
		return 0;
	for (;;) {
		waiting = 0;
		reap_slots();
		for (s = 0; s < MAXW; s++) {
			struct wslot *w = &ctl->w[s];
			int state = w->state;

			if ((state != S_ALIVE && state != S_CLAIMED) ||
			    __atomic_load_n(&w->ack, __ATOMIC_ACQUIRE) == seq)
				continue;
			if (w->pid > 0 && proc_gone(w->pid)) {
				if (gone_since[s] < 0)
					gone_since[s] = vm_now_ms();
				/* its state may be on its way */
				if (vm_now_ms() - gone_since[s] > 2000 &&
				    __sync_bool_compare_and_swap(&w->state,
								 state,
								 S_LOST))
					failf(F_LOST, "process %d vanished",
					      (int)w->pid);
				continue;
			}
			waiting++;
		}
		if (!waiting)
			return 0;
		if (vm_now_ms() - t0 > timeout_s * 1000) {
			ktap_diag("%d processes did not finish phase %u in "
				  "%.0f s", waiting, ph, timeout_s);
			return -1;
		}
		vm_sleep_ms(2);
	}
}

static int write_blocks(int f, long from, long to, uint32_t gen)
{
	static uint32_t b[VM_BLK_WORDS * 16];
	long i, j, chunk;

	for (i = from; i < to; i += 16) {
		chunk = VM_MIN(16L, to - i);
		for (j = 0; j < chunk; j++)
			vm_fill_blk(b + j * VM_BLK_WORDS, SEED, i + j, gen);
		if (vm_pwrite_all(f, b, chunk * VM_BLK, (off_t)i * VM_BLK))
			return -1;
	}
	return 0;
}

static void end_workers(void)
{
	double t0 = vm_now_ms();
	int s;

	phase(P_QUIT, 0);
	while (live_workers() && vm_now_ms() - t0 < 60000) {
		reap_slots();
		vm_sleep_ms(5);
	}
	for (s = 0; s < MAXW; s++) {
		struct wslot *w = &ctl->w[s];

		if (w->pid > 0 && (w->state == S_ALIVE ||
				   w->state == S_CLAIMED)) {
			ktap_diag("process %d still running at the end: killed",
				  (int)w->pid);
			kill(w->pid, SIGKILL);
			w->state = S_LOST;
			__sync_fetch_and_add(&ctl->fail[F_LOST], 1);
		}
	}
	for (t0 = vm_now_ms(); vm_now_ms() - t0 < 10000;) {
		int left = 0;

		reap_slots();
		for (s = 0; s < MAXW; s++)
			if (ctl->w[s].pid > 0 && !ctl->w[s].reaped &&
			    !proc_gone(ctl->w[s].pid))
				left++;
		if (!left)
			break;
		vm_sleep_ms(5);
	}
}

static int cleanup_bad;

static void part(int t_main, int t_nl, const char *dir, const char *kind)
{
	char path[512], key[96];
	struct vm_hog hog;
	uint64_t press;
	long r, k, max_vmas = 0;
	pid_t pid;
	int hog_on = 0, broke = 0, s, f;
	uint32_t gen = 1;

	memset(ctl, 0, ctl_bytes);
	ctl->driver = getpid();
	ctl->deadline_ms = (int64_t)vm_now_ms() + vm_cfg.timeout_s * 1000;
	snprintf(path, sizeof(path), "%s/index_churn-%s.%d", dir, kind,
		 (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		ktap_fail(names[t_main], "open %s: %s", path, strerror(errno));
		ktap_skip(names[t_nl], "no file");
		return;
	}
	vm_register_path(path);
	if (write_blocks(fd, 0, NP, 0)) {
		ktap_fail(names[t_main], "write %s: %s", path, strerror(errno));
		ktap_skip(names[t_nl], "no file");
		close(fd);
		unlink(path);
		vm_unregister_path(path);
		return;
	}
	vm_phase(names[t_main]);
	press = press_mb ? vm_cap_pressure((uint64_t)press_mb * VM_MB,
					   (uint64_t)NP * VM_BLK) : 0;
	snprintf(key, sizeof(key), "%s_pressure_mb", kind);
	vm_fig_i(key, (long long)(press / VM_MB), "MB");
	if (press && vm_hog_start(&hog, press) == 0)
		hog_on = 1;

	ctl->w[0].state = S_CLAIMED;
	ctl->phase = 0;
	pid = vm_fork();
	if (pid < 0) {
		ktap_fail(names[t_main], "fork: %s", strerror(errno));
		ctl->w[0].state = S_FREE;
		broke = 1;
	} else if (pid == 0) {
		first_worker();
	} else {
		ctl->w[0].pid = pid;
	}
	for (r = 0; r < rounds && !broke; r++) {
		uint32_t t;

		vm_progress("%s: round %ld of %ld, %d processes, %u vmas",
			    kind, r + 1, rounds, live_workers(), ctl->vmas);
		if (phase(P_RUN, 600) < 0) {
			broke = 1;
			break;
		}
		if (ovc_fd >= 0 && r % 3 == 1) {
			int alive[MAXW], na = 0;

			for (s = 0; s < MAXW; s++)
				if (ctl->w[s].state == S_ALIVE)
					alive[na++] = s;
			ctl->forkfail_slot = na ? alive[rnd() % na] : -1;
			if (phase(P_FORKFAIL, 600) < 0) {
				broke = 1;
				break;
			}
		}
		ctl->vmas = 0;
		if (phase(P_QUIET, 600) < 0) {
			broke = 1;
			break;
		}
		if ((long)ctl->vmas > max_vmas)
			max_vmas = (long)ctl->vmas;
		t = (uint32_t)(rnd() % (NP + 1));
		if (ftruncate(fd, (off_t)t * VM_BLK)) {
			ktap_diag("ftruncate: %s", strerror(errno));
			broke = 1;
			break;
		}
		ctl->size = t;
		if (phase(P_CHECK, 600) < 0) {
			broke = 1;
			break;
		}
		if (ftruncate(fd, (off_t)NP * VM_BLK) ||
		    write_blocks(fd, t, NP, gen)) {
			ktap_diag("growing the file back: %s", strerror(errno));
			broke = 1;
			break;
		}
		for (k = t; k < NP; k++)
			ctl->gen[k] = gen;
		gen++;
		ctl->size = (uint32_t)NP;
		if (phase(P_CHECK, 600) < 0) {
			broke = 1;
			break;
		}
	}
	end_workers();
	if (hog_on)
		vm_hog_stop(&hog, NULL);
	close(fd);
	fd = -1;
	unlink(path);
	vm_unregister_path(path);

	snprintf(key, sizeof(key), "%s_rounds", kind);
	vm_fig_i(key, r, "count");
	snprintf(key, sizeof(key), "%s_max_vmas", kind);
	vm_fig_i(key, max_vmas, "count");
	for (k = 0; k < K_N; k++) {
		snprintf(key, sizeof(key), "%s_%s", kind, kind_name[k]);
		vm_fig_i(key, ctl->kinds[k], "count");
		if (ctl->kind_failed[k]) {
			snprintf(key, sizeof(key), "%s_%s_refused", kind,
				 kind_name[k]);
			vm_fig_i(key, ctl->kind_failed[k], "count");
		}
	}
	for (f = 0; f < F_N; f++) {
		snprintf(key, sizeof(key), "%s_fail_%d", kind, f);
		if (ctl->fail[f])
			ktap_diag("%s: %u %s; first: %s", kind, ctl->fail[f],
				  fail_name[f], ctl->msg[f]);
	}
	snprintf(key, sizeof(key), "%s_stale_pages", kind);
	vm_fig_i(key, ctl->fail[F_STALE], "count");
	snprintf(key, sizeof(key), "%s_wrong_data", kind);
	vm_fig_i(key, ctl->fail[F_DATA] + ctl->fail[F_BUS], "count");
	snprintf(key, sizeof(key), "%s_nl_wrong", kind);
	vm_fig_i(key, ctl->fail[F_NL_STALE] + ctl->fail[F_NL_DATA] +
		 ctl->fail[F_NL_BUS], "count");
	snprintf(key, sizeof(key), "%s_lost_processes", kind);
	vm_fig_i(key, ctl->fail[F_LOST], "count");
	for (s = 0; s < MAXW; s++)
		if (ctl->w[s].pid > 0 && !ctl->w[s].reaped &&
		    !proc_gone(ctl->w[s].pid))
			cleanup_bad++;

	if (broke || ctl->fail[F_STALE] || ctl->fail[F_BUS] ||
	    ctl->fail[F_DATA] || ctl->fail[F_LOST] || ctl->fail[F_HARNESS])
		ktap_fail(names[t_main], "%ld of %ld rounds; %u stale, %u "
			  "SIGBUS below EOF, %u wrong data, %u processes "
			  "died, %u harness errors", r, rounds,
			  ctl->fail[F_STALE], ctl->fail[F_BUS],
			  ctl->fail[F_DATA], ctl->fail[F_LOST],
			  ctl->fail[F_HARNESS]);
	else
		ktap_ok(names[t_main], "%ld rounds, up to %ld vmas of the "
			"file, %u forks, %u exits", r, max_vmas,
			ctl->kinds[K_FORK], ctl->kinds[K_EXIT]);
	if (no_nonlinear)
		ktap_skip(names[t_nl], "-N");
	else if (!ctl->kinds[K_REMAP])
		ktap_skip(names[t_nl], "remap_file_pages never succeeded");
	else
		ktap_result(!ctl->fail[F_NL_STALE] && !ctl->fail[F_NL_BUS] &&
			    !ctl->fail[F_NL_DATA], names[t_nl],
			    "%u pages remapped; %u stale, %u SIGBUS below "
			    "EOF, %u wrong data", ctl->kinds[K_REMAP],
			    ctl->fail[F_NL_STALE], ctl->fail[F_NL_BUS],
			    ctl->fail[F_NL_DATA]);
}

/* ---- the wrapped pgoff ---- */

static long wrap_resident(int f, long w)
{
	char *m = mmap(NULL, (size_t)w * vm_pagesize, PROT_READ, MAP_SHARED,
		       f, 0);
	long n;

	if (m == MAP_FAILED)
		return -1;
	n = vm_resident_pages(m, (size_t)w * vm_pagesize);
	munmap(m, (size_t)w * vm_pagesize);
	return n;
}

static void wrap_check(void)
{
	const char *tmpfs = vm_find_tmpfs("/dev/shm");
	char pw[512], pc[512];
	long w = (long)(vm_mem_bytes() / 8 / vm_pagesize), i, rw, rc;
	int fw = -1, fc = -1;
	char *res = MAP_FAILED, *q, *c = MAP_FAILED;
	size_t span;
	struct vm_hog hog;
	uint64_t press;
	uint32_t v;
	struct sigaction sa;

	if (no_wrap) {
		ktap_skip(names[T_WRAP], "-W");
		return;
	}
	if (!tmpfs) {
		ktap_skip(names[T_WRAP], "no tmpfs");
		return;
	}
	if (vm_meminfo_kb("SwapTotal") <= 0) {
		ktap_skip(names[T_WRAP], "no swap: tmpfs pages cannot leave");
		return;
	}
	vm_phase(names[T_WRAP]);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_bus;
	sa.sa_flags = SA_NODEFER;	/* siglongjmp: no mask to restore */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
	snprintf(pw, sizeof(pw), "%s/index_churn-wrap.%d", tmpfs,
		 (int)getpid());
	snprintf(pc, sizeof(pc), "%s/index_churn-ctl.%d", tmpfs,
		 (int)getpid());
	fw = open(pw, O_RDWR | O_CREAT | O_TRUNC, 0600);
	fc = open(pc, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fw < 0 || fc < 0) {
		ktap_fail(names[T_WRAP], "open: %s", strerror(errno));
		goto out;
	}
	vm_register_path(pw);
	vm_register_path(pc);
	if (write_blocks(fw, 0, w, 0) || write_blocks(fc, 0, w, 0)) {
		ktap_fail(names[T_WRAP], "write: %s", strerror(errno));
		goto out;
	}
	span = (size_t)(w + 2) * vm_pagesize;
	res = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
		   MAP_NORESERVE, -1, 0);
	if (res == MAP_FAILED) {
		ktap_fail(names[T_WRAP], "reserve: %s", strerror(errno));
		goto out;
	}
	munmap(res, span);
	/* file page 2^32 - 2: the last two pgoffs a 32-bit kernel has */
	q = mmap(res, vm_pagesize, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, fw, (off_t)0xfffffffeULL * 4096);
	if (q == MAP_FAILED) {
		ktap_skip(names[T_WRAP], "mmap at file page 2^32 - 2: %s",
			  strerror(errno));
		res = MAP_FAILED;
		goto out;
	}
	if (mremap(q, vm_pagesize, span, 0) != q) {
		/* the series refuses it: the rmap walk could not find it */
		ktap_result(errno == EINVAL, names[T_WRAP],
			    "the kernel does not grow it past pgoff 2^32 - 1: %s",
			    strerror(errno));
		goto out;
	}
	if (read_word((volatile uint32_t *)(q + 2 * vm_pagesize), &v)) {
		ktap_skip(names[T_WRAP], "page 2^32 is past EOF here: "
			  "vm_pgoff does not wrap (64-bit)");
		goto out;
	}
	if (v != VM_MAGIC) {
		ktap_fail(names[T_WRAP], "page 2 of the wrapped mapping reads "
			  "0x%08x, not file page 0", v);
		goto out;
	}
	/* every page through the wrap, every control page at offset 0 */
	c = mmap(NULL, (size_t)w * vm_pagesize, PROT_READ | PROT_WRITE,
		 MAP_SHARED, fc, 0);
	if (c == MAP_FAILED) {
		ktap_fail(names[T_WRAP], "mmap control: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < w; i++) {
		((volatile uint32_t *)(q + (i + 2) * vm_pagesize))[1] = 1;
		((volatile uint32_t *)(c + i * vm_pagesize))[1] = 1;
	}
	press = vm_cap_pressure(vm_mem_bytes(), 2 * (uint64_t)w * VM_BLK);
	vm_fig_i("wrap_pages", w, "pages");
	vm_fig_i("wrap_pressure_mb", (long long)(press / VM_MB), "MB");
	if (press < vm_mem_bytes() / 2) {
		ktap_skip(names[T_WRAP], "only %llu MB of pressure possible",
			  (unsigned long long)(press / VM_MB));
		goto out;
	}
	if (vm_hog_start(&hog, press) == 0) {
		vm_hog_wait(&hog, 300, NULL, NULL);
		vm_sleep_ms(2000);
		rw = wrap_resident(fw, w);
		rc = wrap_resident(fc, w);
		vm_hog_stop(&hog, NULL);
	} else {
		ktap_fail(names[T_WRAP], "no hog");
		goto out;
	}
	vm_fig_i("wrap_resident_pages", rw, "pages");
	vm_fig_i("wrap_control_resident_pages", rc, "pages");
	if (rw < 0 || rc < 0)
		ktap_fail(names[T_WRAP], "mincore failed");
	else if (rc > w / 2)
		ktap_skip(names[T_WRAP], "the pressure left %ld of %ld control "
			  "pages resident: no verdict", rc, w);
	else
		ktap_result(rw <= rc + w / 4, names[T_WRAP],
			    "%ld of %ld pages mapped through the wrap still "
			    "resident, %ld of the control file's", rw, w, rc);
out:
	if (c != MAP_FAILED)
		munmap(c, (size_t)w * vm_pagesize);
	if (res != MAP_FAILED)
		munmap(res, span);
	if (fw >= 0) {
		close(fw);
		unlink(pw);
		vm_unregister_path(pw);
	}
	if (fc >= 0) {
		close(fc);
		unlink(pc);
		vm_unregister_path(pc);
	}
}

/* ---- main ---- */

static void (*lib_on_alarm)(int);

/* The library's timeout handler, after putting overcommit back. */
static void on_alarm(int sig)
{
	if (ovc_fd >= 0 && ovc_saved[0])
		pwrite(ovc_fd, ovc_saved, strlen(ovc_saved), 0);
	if (lib_on_alarm)
		lib_on_alarm(sig);
	_exit(1);
}

static void open_overcommit(void)
{
	struct sigaction sa, old;
	ssize_t n;
	int f;

	if (no_forkfail)
		return;
	f = open("/proc/sys/vm/overcommit_memory", O_RDWR);
	if (f < 0)
		return;
	n = pread(f, ovc_saved, sizeof(ovc_saved) - 1, 0);
	if (n <= 0 || ovc_saved[0] == '2' ||
	    pwrite(f, ovc_saved, (size_t)n, 0) != n) {
		close(f);		/* not root, or strict already */
		ovc_saved[0] = 0;
		return;
	}
	ovc_saved[n] = 0;
	ovc_fd = f;
	sigaction(SIGALRM, NULL, &old);
	if (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN) {
		lib_on_alarm = old.sa_handler;
		sa = old;
		sa.sa_handler = on_alarm;
		sigaction(SIGALRM, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
	}
}

int main(int argc, char **argv)
{
	const char *tmpfs;
	size_t model;

	vm_init("index_churn", argc, argv, opts, summary, 1800);
	ktap_names(names);
	if (npages < 0)
		npages = VM_MAX(256L, VM_MIN(4096L, vm_cfg.mem_mb * 4));
	if (npages < NHOT * 2 || npages > (1L << 20) || area_pages < 64 ||
	    area_pages > (1L << 18) || maxw < 1 || maxw > MAXW ||
	    rounds < 1 || steps < 1)
		ktap_skip_all("-n 48..2^20, -a 64..2^18, -w 1..32, -r and -o "
			      "at least 1");
	if (press_mb < 0)
		press_mb = vm_cfg.mem_mb;
	NP = npages;
	A = area_pages;
	ctl_bytes = sizeof(*ctl) + (size_t)NP * sizeof(ctl->gen[0]);
	ctl = mmap(NULL, ctl_bytes, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	model = (size_t)A * (1 + 4 * sizeof(uint32_t));
	fl = malloc(model);
	area = mmap(NULL, (size_t)A * vm_pagesize, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (ctl == MAP_FAILED || !fl || area == MAP_FAILED)
		ktap_skip_all("cannot allocate the shared state or the area");
	/* the workers map into it with MAP_FIXED; nothing else goes there */
	munmap(area, (size_t)A * vm_pagesize);
	memset(fl, 0, model);
	cur = (uint32_t *)(fl + A);
	lin = cur + A;
	vid = lin + A;
	val = vid + A;
	/* orphaned workers come back to us to be reaped (not on 2.6.3) */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	open_overcommit();
	reseed(0x5eed);
	verify_on = getenv("INDEX_CHURN_VERIFY") != NULL;

	vm_fig_i("file_pages", NP, "pages");
	vm_fig_i("area_pages", A, "pages");
	vm_fig_i("max_processes", maxw, "count");
	vm_fig_i("rounds", rounds, "count");
	vm_fig_i("steps", steps, "count");
	ktap_header(T_N);

	tmpfs = vm_find_tmpfs("/dev/shm");
	if (tmpfs) {
		part(T_TMPFS, T_TMPFS_NL, tmpfs, "tmpfs");
	} else {
		ktap_skip(names[T_TMPFS], "no tmpfs");
		ktap_skip(names[T_TMPFS_NL], "no tmpfs");
	}
	{
		uint32_t ok = ctl->forkfail_ok, other = ctl->forkfail_other;
		int32_t e = ctl->forkfail_errno;

		if (vm_is_tmpfs(vm_cfg.dir) == 1) {
			ktap_skip(names[T_DISK], "%s is a tmpfs", vm_cfg.dir);
			ktap_skip(names[T_DISK_NL], "%s is a tmpfs",
				  vm_cfg.dir);
		} else {
			part(T_DISK, T_DISK_NL, vm_cfg.dir, "disk");
			ok += ctl->forkfail_ok;
			other += ctl->forkfail_other;
			if (ctl->forkfail_errno)
				e = ctl->forkfail_errno;
		}
		vm_fig_i("forkfail_enomem", ok, "count");
		vm_fig_i("forkfail_succeeded", other, "count");
		if (ovc_fd < 0)
			ktap_skip(names[T_FORKFAIL], no_forkfail ? "-F" :
				  "vm.overcommit_memory not writable, or 2");
		else if (ok)
			ktap_ok(names[T_FORKFAIL], "%u forks failed in "
				"dup_mmap (ENOMEM), %u did not; the checks "
				"after them above", ok, other);
		else
			ktap_skip(names[T_FORKFAIL], "no fork failed (%u "
				  "succeeded, last error %d)", other, (int)e);
	}
	wrap_check();
	ktap_result(!cleanup_bad, names[T_CLEANUP],
		    "%d processes not reaped", cleanup_bad);
	if (ovc_fd >= 0)
		pwrite(ovc_fd, ovc_saved, strlen(ovc_saved), 0);
	ktap_exit();
}
