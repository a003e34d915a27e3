// SPDX-License-Identifier: GPL-2.0
/*
 * fork_file_race - processes that fork, fault, remap_file_pages and
 * mremap pages of a file that is being truncated, under memory pressure,
 * must see the file's data or SIGBUS beyond EOF: never a page truncate
 * took away, a pte fork or mremap lost or copied stale, nor the wrong
 * page in a nonlinear window.
 *
 * For a tmpfs file, then for a file in -d (skipped on a tmpfs), for -t
 * seconds (30) each, these run at once:
 *
 * - the forker maps -k (32) pieces of the file (-n pages, mem * 8
 *   between 256 and 8,192) of 8 to 64 pages, MAP_SHARED and MAP_PRIVATE
 *   in turn, writes a private copy of every other page of its private
 *   pieces, and holds anonymous memory (-A MB, mem / 16) and a SysV shm
 *   segment (mem / 32, attached 4 times), both filled with patterns.  It
 *   forks checkers in waves of -c (8): each reads every page it
 *   inherited, moves a private piece with mremap, reads it again, says
 *   how it went and stays, so that every fork of the wave adds a mapper
 *   to the anonymous pages and private copies and needs new pte_chains;
 *   then the forker ends the wave (20 s at most) and starts the next.
 *   Before each fork it reads its pieces again (a truncate zapped some:
 *   fork copies only the ptes there are), writes the private copies of a
 *   piece again and, every -M (4) forks, moves a piece with mremap.
 * - the truncator cuts the file's tail (the pages above its first
 *   quarter) at a random page, keeps it short for 0-3 ms, grows it back,
 *   and stamps every regrown page with the round number (one word).
 * - the remapper keeps a nonlinear window on the file (remap_file_pages)
 *   and moves a random page of the file into a random slot, then reads it.
 * - -P (2) hogs write anonymous memory (mem in all, capped to memory +
 *   free swap less a reserve) page after page, pass after pass, so that
 *   memory stays short while fork and mremap allocate pte_chains with
 *   GFP_ATOMIC: where that fails they drop their locks to allocate with
 *   GFP_KERNEL and read the pte again.
 *
 * Every page read is checked against what the file may hold there at that
 * moment, from what the truncator publishes per page (the last cut begun,
 * the last cut done, the last stamp done) and its phase (file full,
 * being cut, short, growing), read before and after the page: the first
 * quarter always holds its first data and never raises SIGBUS; a page of
 * the tail holds its first data only if it was never cut, zeros only if a
 * cut began after its last stamp, a stamp only if no older than its last
 * cut and last stamp; SIGBUS is wrong while the file stayed whole, and a
 * readable page wrong while the file stayed short below it; a private
 * copy is right unless a cut that began after the forker wrote it has
 * ended.  A page read while a cut of it is under way may mix two pages,
 * and one read while its stamp is written may show part of the stamp
 * (2.6.3 copies a 4-byte write a byte at a time): it is read again.  A
 * pte that outlived its page shows old data; a lost pte shows the
 * file's page where the private copy should be; a nonlinear slot left
 * empty shows its linear page, from the first quarter.
 *
 * Exercises the objrmap series' lazy pte_chain allocation: do_no_page,
 * fork's copy_page_range (file pages need no pte_chain, anonymous ones
 * do), install_page (remap_file_pages and faults on file ptes) and
 * mremap.  -V PREFIX reports the change in the /proc/vmstat counters
 * whose names start with PREFIX (an instrumented kernel's) as figures
 * (kernel_<name>).
 *
 * Ends at the deadline.  A fork that fails is counted and tried again
 * after 20 ms.  A process the kernel kills (SIGKILL: the OOM killer, or a
 * fault that failed for want of memory) is counted: a checker's wave goes
 * on, the truncator and the remapper start again, and without the forker
 * the file kind ends.  Every worker has an alarm 20 s after the deadline
 * (the forker 40 s) and dies with its parent; the program waits for them
 * 50 s after the deadline at most, then kills them.
 *
 * Tests (KTAP): per file kind, every process sees the file's data or
 * SIGBUS beyond EOF (not ok on a wrong page, a checker dead of another
 * signal than SIGKILL or a worker that failed; SKIP if no fork
 * succeeded, if there is no tmpfs, or if -d is a tmpfs), and cleanup
 * (every process reaped).  The first wrong page is described in the
 * not ok line.  Exit status 0 if all passed, 1 if one failed, 4 if all
 * were skipped (bad options, no memory for the shared state).
 *
 * Figures per file kind (tmpfs_, disk_): pages, forks, fork_failed,
 * checkers_ok, checkers_bad, checkers_killed, pages_checked, sigbus_seen,
 * cut_rounds, remaps, remap_einval, remap_enomem, mremaps,
 * mremap_failed, private_writes, workers_killed, bad_pages, reread,
 * pswpout; and mem_mb, seconds, pieces, checkers, anon_mb, hog_mb.
 */
#define _GNU_SOURCE
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
#include <sys/shm.h>
#include <sys/wait.h>

#include "vmshm.h"

static const char summary[] =
	"fork_file_race: fork, faults, remap_file_pages and mremap of a file\n"
	"being truncated, under memory pressure, see its data or SIGBUS";

static const char *const names[] = {
	"tmpfs: every process sees the file's data or SIGBUS beyond EOF",
	"disk file: every process sees the file's data or SIGBUS beyond EOF",
	"cleanup: every process ended",
	NULL
};

static long duration_s = 30, npieces = 32, nchecker = 8, nhog = 2;
static long mremap_every = 4;
static long file_pages = -1, anon_mb = -1;
static const char *vmstat_keys = "";

static const struct vm_opt opts[] = {
	{ 't', VM_OPT_LONG, &duration_s, "SEC", "seconds per file kind (30)" },
	{ 'n', VM_OPT_LONG, &file_pages, "PAGES",
	  "file size (mem * 8, 256..8192)" },
	{ 'k', VM_OPT_LONG, &npieces, "N", "pieces the forker maps (32)" },
	{ 'c', VM_OPT_LONG, &nchecker, "N", "checkers in a wave (8)" },
	{ 'A', VM_OPT_LONG, &anon_mb, "MB", "the forker's anonymous memory "
	  "(mem / 16)" },
	{ 'P', VM_OPT_LONG, &nhog, "N", "hog processes, 0: none (2)" },
	{ 'M', VM_OPT_LONG, &mremap_every, "N",
	  "the forker moves a piece every N forks, 0: never (4)" },
	{ 'V', VM_OPT_STR, &vmstat_keys, "PREFIX",
	  "report the /proc/vmstat counters named PREFIX..." },
	{ 0 }
};

#define SEED_FILE	0x46494c45u	/* the file's first data */
#define SEED_PRIV	0x50524956u	/* the forker's private copies */
#define SEED_ANON	0x414e4f4eu
#define SEED_SHM	0x53484d20u
#define NO_PRIV		0xffffffffu

/* a stamp: bit 31 (never set in word 0 of a pattern), round, page */
#define STAMP(r, i)	(0x80000000u | ((uint32_t)(r) & 0x7ffffu) << 12 | \
			 ((uint32_t)(i) & 0xfffu))
#define STAMP_ROUND(w)	(((w) >> 12) & 0x7ffffu)

/* the truncator's phase: seq & 3 */
enum { PH_FULL, PH_CUTTING, PH_SHORT, PH_GROWING };

#define MAX_PIECES	256
#define MAX_CHECKERS	32
#define SHM_ATTACH	4

struct shared {
	volatile uint32_t seq;		/* phase, bumped at each change */
	volatile uint32_t short_size;	/* pages, valid in PH_SHORT */
	volatile uint32_t rounds;	/* cuts begun */
	volatile int stop;
	volatile int bad_claimed;
	volatile long forks, fork_failed, checkers_ok, checkers_bad;
	volatile long checkers_killed, pages_checked, sigbus_seen;
	volatile long remaps, remap_einval, remap_enomem, mremaps;
	volatile long mremap_failed, private_writes, bad_pages;
	volatile long workers_killed, reread;
	char first_bad[256];
	/* per page, the round of: the last cut begun and done, stamp done */
	volatile uint32_t page[][3];
};

enum { CUT_BEGUN, CUT_DONE, STAMP_DONE };

static struct shared *sh;
static uint32_t npages, head;	/* file pages; the never cut head */
static double deadline;
static int file_fd;

static uint32_t ld(const volatile uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void st(volatile uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static void add(volatile long *p, long v)
{
	__sync_add_and_fetch(p, v);
}

/* xorshift, seeded per process */
static uint32_t rnd_state;

static uint32_t rnd(void)
{
	uint32_t x = rnd_state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	rnd_state = x;
	return x;
}

static void rnd_seed(void)
{
	rnd_state = (uint32_t)getpid() * 2654435761u ^
		    (uint32_t)(vm_now_ms() * 1000);
	if (!rnd_state)
		rnd_state = 1;
}

/* -------------------------------------------------------------------- */
/* reading and writing a page that may raise SIGBUS                      */

static sigjmp_buf bus_env;
static volatile sig_atomic_t bus_armed;

static void on_bus(int sig)
{
	if (bus_armed) {
		bus_armed = 0;
		siglongjmp(bus_env, 1);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

/* SA_NODEFER: the jump out of the handler leaves SIGBUS unblocked */
static void bus_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_bus;
	sa.sa_flags = SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
}

/* copy the page at @p to @buf; 1 if that raised SIGBUS */
static int read_page(const void *p, uint32_t *buf)
{
	const volatile uint32_t *w = p;
	int i;

	if (sigsetjmp(bus_env, 0))
		return 1;
	bus_armed = 1;
	for (i = 0; i < VM_BLK_WORDS; i++)
		buf[i] = w[i];
	bus_armed = 0;
	return 0;
}

/* write @buf to the page at @p; 1 if that raised SIGBUS */
static int write_page(void *p, const uint32_t *buf)
{
	volatile uint32_t *w = p;
	int i;

	if (sigsetjmp(bus_env, 0))
		return 1;
	bus_armed = 1;
	for (i = 0; i < VM_BLK_WORDS; i++)
		w[i] = buf[i];
	bus_armed = 0;
	return 0;
}

/* -------------------------------------------------------------------- */
/* what a page may hold                                                  */

static void bad(const char *fmt, ...) VM_PRINTF(1, 2);

/* count a wrong page; the first one is described */
static void bad(const char *fmt, ...)
{
	va_list ap;

	add(&sh->bad_pages, 1);
	if (!__sync_bool_compare_and_swap(&sh->bad_claimed, 0, 1))
		return;
	va_start(ap, fmt);
	vsnprintf(sh->first_bad, sizeof(sh->first_bad), fmt, ap);
	va_end(ap);
}

enum { K_FILE, K_PRIV, K_ZERO, K_STAMP, K_OTHER };

static const char *const kind_name[] = {
	"its first data", "the forker's private copy", "zeros", "a stamp",
	"something else"
};

static int classify(const uint32_t *b, uint32_t i, uint32_t *round)
{
	long badw;
	uint32_t e, g;
	int k;

	if (b[0] & 0x80000000u) {
		if ((b[0] & 0xfffu) != (i & 0xfffu))
			return K_OTHER;
		for (k = 1; k < VM_BLK_WORDS; k++)
			if (b[k])
				return K_OTHER;
		*round = STAMP_ROUND(b[0]);
		return K_STAMP;
	}
	for (k = 0; k < VM_BLK_WORDS && !b[k]; k++)
		;
	if (k == VM_BLK_WORDS)
		return K_ZERO;
	if (!vm_check_blk(b, SEED_FILE, i, 1, &badw, &e, &g))
		return K_FILE;
	if (!vm_check_blk(b, SEED_PRIV, i, 1, &badw, &e, &g))
		return K_PRIV;
	return K_OTHER;
}

/*
 * Read file page @i at @p and check it.  @priv_rb: the rounds begun when
 * the caller's private copy of the page had been written, NO_PRIV if it
 * has none.  @what names the mapping in the message.  Returns 1 if it
 * raised SIGBUS, -1 if it was wrong, 0 if right.
 *
 * The page is read a word at a time: a cut of the page while it is read
 * may zap it half way, the rest then comes from the regrown file.  Such
 * a mix is read again, after the cut.
 */
static int check_file_page(const void *p, uint32_t i, uint32_t priv_rb,
			   const char *what)
{
	static uint32_t buf[VM_BLK_WORDS];
	uint32_t cut_done, stamp_done, cut_begun, q1, q2, size, r = 0;
	int bus, k, ok, tries = 0;

again:
	cut_done = ld(&sh->page[i][CUT_DONE]);
	stamp_done = ld(&sh->page[i][STAMP_DONE]);
	q1 = ld(&sh->seq);
	size = ld(&sh->short_size);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	bus = read_page(p, buf);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	q2 = ld(&sh->seq);
	cut_begun = ld(&sh->page[i][CUT_BEGUN]);
	add(&sh->pages_checked, 1);

	if (bus) {
		add(&sh->sigbus_seen, 1);
		if (i < head) {
			bad("%s: page %u raised SIGBUS, below the cut part",
			    what, i);
			return -1;
		}
		if (q1 == q2 && (q1 & 3) == PH_FULL) {
			bad("%s: page %u raised SIGBUS while the file had all "
			    "its %u pages", what, i, npages);
			return -1;
		}
		return 1;
	}
	k = classify(buf, i, &r);
	if (q1 == q2 && (q1 & 3) == PH_SHORT && i >= size) {
		bad("%s: page %u readable, %s, while the file had %u pages "
		    "(round %u)", what, i, kind_name[k], size, cut_done);
		return -1;
	}
	switch (k) {
	case K_FILE:
		ok = cut_done == 0;
		break;
	case K_PRIV:
		ok = priv_rb != NO_PRIV && cut_done <= priv_rb;
		break;
	case K_ZERO:
		ok = cut_begun > stamp_done;
		break;
	case K_STAMP:
		ok = r >= cut_done && r >= stamp_done;
		break;
	default:
		ok = 0;
		/*
		 * A cut under way, or a stamp being written: 2.6.3 copies
		 * a write of less than 8 bytes a byte at a time (rep movsb
		 * in __copy_user), so a reader through a mapping may see
		 * the first bytes of the stamp only.  Read it again.
		 */
		if ((cut_begun > cut_done || cut_done > stamp_done) &&
		    ++tries < 100) {
			add(&sh->reread, 1);
			vm_sleep_ms(1);
			goto again;
		}
	}
	if (ok)
		return 0;
	if (k == K_OTHER && (buf[0] ^ VM_MAGIC) < npages &&
	    buf[2] == SEED_FILE)
		bad("%s: page %u holds the first data of page %u (cut begun "
		    "%u, done %u, stamp %u)", what, i, buf[0] ^ VM_MAGIC,
		    cut_begun, cut_done, stamp_done);
	else if (k == K_OTHER)
		bad("%s: page %u holds something else: %08x %08x %08x (cut "
		    "begun %u, done %u, stamp %u)", what, i, buf[0], buf[1],
		    buf[2], cut_begun, cut_done, stamp_done);
	else
		bad("%s: page %u holds %s%s (round %u; cut begun %u, done %u, "
		    "stamp %u; private copy written by round %d)", what, i,
		    kind_name[k], k == K_STAMP ? " of that round" : "", r,
		    cut_begun, cut_done, stamp_done,
		    priv_rb == NO_PRIV ? -1 : (int)priv_rb);
	return -1;
}

/* -------------------------------------------------------------------- */
/* the truncator                                                         */

static void truncator(void)
{
	off_t full = (off_t)npages * vm_pagesize;
	uint32_t r, s, i, w;

	rnd_seed();
	while (!sh->stop && vm_now_ms() < deadline) {
		r = ld(&sh->rounds) + 1;
		s = head + rnd() % (npages - head);
		for (i = s; i < npages; i++)
			st(&sh->page[i][CUT_BEGUN], r);
		st(&sh->rounds, r);
		st(&sh->seq, (ld(&sh->seq) & ~3u) + 4 + PH_CUTTING);
		if (ftruncate(file_fd, (off_t)s * vm_pagesize))
			_exit(10);
		st(&sh->short_size, s);
		for (i = s; i < npages; i++)
			st(&sh->page[i][CUT_DONE], r);
		st(&sh->seq, (ld(&sh->seq) & ~3u) + PH_SHORT);
		vm_sleep_ms(rnd() % 4);
		st(&sh->seq, (ld(&sh->seq) & ~3u) + PH_GROWING);
		if (ftruncate(file_fd, full))
			_exit(11);
		st(&sh->seq, (ld(&sh->seq) & ~3u) + 4 + PH_FULL);
		for (i = s; i < npages; i++) {
			w = STAMP(r, i);
			if (pwrite(file_fd, &w, sizeof(w),
				   (off_t)i * vm_pagesize) != sizeof(w))
				_exit(12);
			st(&sh->page[i][STAMP_DONE], r);
		}
		vm_sleep_ms(rnd() % 4);
	}
	_exit(0);
}

/* -------------------------------------------------------------------- */
/* the remapper                                                          */

/*
 * Which of file pages @a and @b the page at @p shows, by the page number
 * its first word holds (zeros hold none: @a).
 */
static uint32_t which_page(const void *p, uint32_t a, uint32_t b)
{
	uint32_t buf[VM_BLK_WORDS], w;

	if (read_page(p, buf))
		return a;
	w = buf[0];
	if (w == (VM_MAGIC ^ b) ||
	    ((w & 0x80000000u) && (w & 0xfffu) == (b & 0xfffu)))
		return b;
	return a;
}

static void remapper(void)
{
	uint32_t nslot = VM_MIN(head, 256u), j, p, *slot;
	char *win, *at, what[64];
	long n = 0;

	rnd_seed();
	bus_install();
	slot = calloc(nslot, sizeof(*slot));
	win = mmap(NULL, nslot * vm_pagesize, PROT_READ, MAP_SHARED, file_fd,
		   0);
	if (!slot || win == MAP_FAILED)
		_exit(20);
	for (j = 0; j < nslot; j++)
		slot[j] = j;
	while (!sh->stop && vm_now_ms() < deadline) {
		j = rnd() % nslot;
		p = rnd() % npages;
		at = win + j * vm_pagesize;
		if (p == j)
			continue;
		add(&sh->remaps, 1);
		if (!remap_file_pages(at, vm_pagesize, 0, p, 0)) {
			slot[j] = p;
		} else if (errno == EINVAL) {
			add(&sh->remap_einval, 1);	/* beyond EOF */
		} else if (errno == ENOMEM) {
			/*
			 * The slot shows the page it had, or the one asked
			 * for, but never its linear page (unless it had it).
			 */
			add(&sh->remap_enomem, 1);
			slot[j] = which_page(at, slot[j], p);
		} else {
			_exit(21);
		}
		snprintf(what, sizeof(what), "nonlinear slot %u", j);
		check_file_page(at, slot[j], NO_PRIV, what);
		if (++n & 63)
			continue;
		for (j = 0; j < nslot; j++) {
			snprintf(what, sizeof(what), "nonlinear slot %u", j);
			check_file_page(win + j * vm_pagesize, slot[j],
					NO_PRIV, what);
		}
	}
	_exit(0);
}

/* -------------------------------------------------------------------- */
/* the forker and its checkers                                           */

struct piece {
	char *addr;		/* where it is now */
	char *spare;		/* reserved, PROT_NONE: its next place */
	uint32_t off, len;	/* file pages */
	int priv;
	uint32_t *rb;		/* per page: rounds begun when copied */
};

static struct piece piece[MAX_PIECES];
static char *anon, *shm[SHM_ATTACH];
static size_t anon_pages, shm_pages;
static int nshm;

static void fill_words(uint32_t *b, uint32_t seed, uint64_t blk)
{
	vm_fill_blk(b, seed, blk, 1);
}

/* read every page of @pc and check it; the number of wrong pages */
static long check_piece(struct piece *pc, const char *who)
{
	char what[96];
	long nbad = 0;
	uint32_t j;

	snprintf(what, sizeof(what), "%s, %s piece at page %u", who,
		 pc->priv ? "private" : "shared", pc->off);
	for (j = 0; j < pc->len; j++)
		if (check_file_page(pc->addr + j * vm_pagesize, pc->off + j,
				    pc->rb[j], what) < 0)
			nbad++;
	return nbad;
}

/* words 0, 3 and the last of each page of a pattern area */
static long check_area(const char *p, size_t pages, uint32_t seed,
		       const char *what)
{
	const uint32_t step = 0x9e3779b9u;	/* lib/vmshm.c's VM_STEP */
	const int last = VM_BLK_WORDS - 1;
	long nbad = 0;
	size_t i;

	for (i = 0; i < pages; i++) {
		const volatile uint32_t *w =
			(const volatile uint32_t *)(p + i * vm_pagesize);
		uint32_t v = vm_pat_base(seed, i, 1);

		if (w[0] == (VM_MAGIC ^ (uint32_t)i) && w[3] == v + 3 * step &&
		    w[last] == v + (uint32_t)last * step)
			continue;
		bad("%s: page %zu holds %08x %08x, not its pattern", what, i,
		    w[0], w[3]);
		nbad++;
	}
	return nbad;
}

/*
 * Write the private copy of page @j of private piece @pc, then note the
 * rounds begun: a cut that begins later removes it.  A cut that zaps the
 * page half way through the write leaves a page half written on the
 * regrown file: write it again, and if that keeps happening, drop it.
 */
static void write_private(struct piece *pc, uint32_t j)
{
	static uint32_t b[VM_BLK_WORDS], back[VM_BLK_WORDS];
	char *p = pc->addr + j * vm_pagesize;
	uint32_t got;
	int tries;

	fill_words(b, SEED_PRIV, pc->off + j);
	pc->rb[j] = NO_PRIV;
	for (tries = 0; tries < 4; tries++) {
		if (write_page(p, b))
			return;		/* beyond EOF now: no copy */
		add(&sh->private_writes, 1);
		if (!read_page(p, back) &&
		    classify(back, pc->off + j, &got) == K_PRIV) {
			__atomic_thread_fence(__ATOMIC_SEQ_CST);
			pc->rb[j] = ld(&sh->rounds);
			return;
		}
	}
	madvise(p, vm_pagesize, MADV_DONTNEED);
}

/* move @pc to its spare place and keep the old one reserved */
static int move_piece(struct piece *pc)
{
	size_t len = pc->len * vm_pagesize;
	char *to = pc->spare, *from = pc->addr, *r;

	r = mremap(from, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, to);
	add(&sh->mremaps, 1);
	if (r == MAP_FAILED) {
		add(&sh->mremap_failed, 1);
		return -1;
	}
	if (mmap(from, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
		 MAP_FIXED, -1, 0) == MAP_FAILED)
		_exit(33);
	pc->addr = to;
	pc->spare = from;
	return 0;
}

/*
 * A checker reads everything it inherited, moves a private piece and
 * reads it again, says how it went, and stays: its ptes, and the
 * pte_chains of its anonymous pages, stay until the forker ends the wave.
 */
static void checker(void)
{
	long nbad = 0;
	int i;

	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	alarm(0);
	rnd_seed();
	for (i = 0; i < npieces; i++)
		nbad += check_piece(&piece[i], "checker");
	nbad += check_area(anon, anon_pages, SEED_ANON, "checker, anonymous");
	for (i = 0; i < nshm; i++)
		nbad += check_area(shm[i], shm_pages, SEED_SHM,
				   "checker, shm");
	/* a private piece, moved: its ptes, private copies and all */
	i = (int)(rnd() % npieces) | 1;
	if (i < npieces && !move_piece(&piece[i]))
		nbad += check_piece(&piece[i], "checker after mremap");
	add(nbad ? &sh->checkers_bad : &sh->checkers_ok, 1);
	for (;;)
		pause();
}

static void setup_pieces(void)
{
	size_t total = 0, at = 0;
	char *arena;
	uint32_t j;
	int i;

	for (i = 0; i < npieces; i++) {
		struct piece *pc = &piece[i];

		pc->len = 8 + rnd() % 57;
		if (pc->len > npages)
			pc->len = npages;
		pc->off = rnd() % (npages - pc->len + 1);
		pc->priv = i & 1;
		pc->rb = malloc(pc->len * sizeof(*pc->rb));
		if (!pc->rb)
			_exit(30);
		for (j = 0; j < pc->len; j++)
			pc->rb[j] = NO_PRIV;
		total += 2 * pc->len;
	}
	arena = mmap(NULL, total * vm_pagesize, PROT_NONE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (arena == MAP_FAILED)
		_exit(31);
	for (i = 0; i < npieces; i++) {
		struct piece *pc = &piece[i];

		pc->addr = mmap(arena + at * vm_pagesize,
				pc->len * vm_pagesize, PROT_READ | PROT_WRITE,
				(pc->priv ? MAP_PRIVATE : MAP_SHARED) |
				MAP_FIXED, file_fd,
				(off_t)pc->off * vm_pagesize);
		if (pc->addr == MAP_FAILED)
			_exit(32);
		pc->spare = arena + (at + pc->len) * vm_pagesize;
		at += 2 * pc->len;
	}
}

static void setup_areas(void)
{
	static uint32_t b[VM_BLK_WORDS];
	int id;
	size_t i;

	anon_pages = (size_t)((uint64_t)anon_mb * VM_MB / vm_pagesize);
	anon = mmap(NULL, VM_MAX(anon_pages, 1) * vm_pagesize,
		    PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (anon == MAP_FAILED)
		_exit(34);
	for (i = 0; i < anon_pages; i++)
		vm_fill_blk(anon + i * vm_pagesize, SEED_ANON, i, 1);
	shm_pages = (size_t)(vm_mem_bytes() / 32 / vm_pagesize);
	shm[0] = vm_shm_create(shm_pages * vm_pagesize, &id);
	if (!shm[0])
		return;		/* said why; go on without */
	for (i = 0; i < shm_pages; i++) {
		vm_fill_blk(b, SEED_SHM, i, 1);
		memcpy(shm[0] + i * vm_pagesize, b, vm_pagesize);
	}
	/* Linux attaches a segment marked for removal while it is attached */
	for (nshm = 1; nshm < SHM_ATTACH; nshm++) {
		shm[nshm] = shmat(id, NULL, SHM_RDONLY);
		if (shm[nshm] == (void *)-1)
			break;
	}
}

static long checkers_done(void)
{
	return sh->checkers_ok + sh->checkers_bad;
}

/*
 * End a wave of @n checkers: give those still reading until 10 s after
 * the deadline, at most 20 s, kill them all and reap them.  One that
 * died of another signal than SIGKILL counts as bad; one killed before
 * it was done (OOM, or too slow) as killed.
 */
static void end_wave(pid_t *pids, int n, long done_before)
{
	double end = VM_MIN(vm_now_ms() + 20000, deadline + 10000);
	int i, status;
	long unfinished;

	while (checkers_done() - done_before < n && vm_now_ms() < end)
		vm_sleep_ms(10);
	unfinished = n - (checkers_done() - done_before);
	for (i = 0; i < n; i++)
		kill(pids[i], SIGKILL);
	for (i = 0; i < n; i++) {
		while (waitpid(pids[i], &status, 0) < 0 && errno == EINTR)
			;
		if (WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL) {
			add(&sh->checkers_bad, 1);
			unfinished--;
		}
	}
	if (unfinished > 0)
		add(&sh->checkers_killed, unfinished);
}

/*
 * The forker forks -c checkers one after the other, each while the
 * ones before it still hold their mappings, so that every fork adds a
 * mapper to the pages of the anonymous memory and of the private copies
 * and needs new pte_chains for them, then ends the wave and starts the
 * next.  Before each fork it reads its pieces again (a cut zapped some:
 * fork copies only the ptes there are), writes the private copies of a
 * piece again, and moves a piece with mremap.
 */
static void forker(void)
{
	pid_t pids[MAX_CHECKERS], pid;
	long forks = 0, done_before = 0;
	int n = 0, i;
	uint32_t j;

	rnd_seed();
	bus_install();
	setup_areas();
	setup_pieces();
	for (i = 1; i < npieces; i += 2)
		for (j = 0; j < piece[i].len; j += 2)
			write_private(&piece[i], j);
	while (!sh->stop && vm_now_ms() < deadline) {
		if (n == nchecker) {
			end_wave(pids, n, done_before);
			n = 0;
		}
		if (!n)
			done_before = checkers_done();
		for (i = 0; i < npieces; i++)
			check_piece(&piece[i], "forker");
		i = (int)(rnd() % npieces);
		if (piece[i].priv)
			for (j = 0; j < piece[i].len; j += 2)
				write_private(&piece[i], j);
		if (mremap_every && !(forks % mremap_every) &&
		    !move_piece(&piece[i]))
			check_piece(&piece[i], "forker after mremap");
		pid = fork();
		if (pid == 0)
			checker();
		if (pid < 0) {
			add(&sh->fork_failed, 1);
			vm_sleep_ms(20);
			continue;
		}
		pids[n++] = pid;
		forks++;
		add(&sh->forks, 1);
	}
	end_wave(pids, n, done_before);
	_exit(0);
}

/* -------------------------------------------------------------------- */
/* the hog                                                               */

/* what a hog writes: "HG", the pass, the page; never a file's word 0 */
#define HOG_WORD(pass, off)	(0x48470000u | ((uint32_t)(pass) & 0xff) << 8 | \
				 ((uint32_t)((off) / vm_pagesize) & 0xff))

static void hog(size_t bytes)
{
	size_t off, pass;
	char *p;

	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(40);
	for (pass = 1;; pass++)
		for (off = 0; off < bytes; off += vm_pagesize)
			*(volatile uint32_t *)(p + off) = HOG_WORD(pass, off);
}

/* -------------------------------------------------------------------- */

/* a worker, with an alarm @grace_s after the deadline */
static pid_t start(void (*fn)(void), int grace_s)
{
	pid_t pid = vm_fork();

	if (pid == 0) {
		alarm((unsigned int)(deadline - vm_now_ms()) / 1000 +
		      grace_s);
		fn();
	}
	return pid;
}

#define MAX_VMSTAT	32

/*
 * The /proc/vmstat counters whose names start with -V's prefix: @take
 * keeps their values, else their change since is printed as figures.
 */
static void report_vmstat(const char *prefix, long long *before, int take)
{
	char line[128], name[96], key[160];
	long long v;
	FILE *f;
	int n = 0;

	if (!*vmstat_keys)
		return;
	f = fopen("/proc/vmstat", "r");
	if (!f)
		return;
	while (n < MAX_VMSTAT && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%95s %lld", name, &v) != 2 ||
		    strncmp(name, vmstat_keys, strlen(vmstat_keys)))
			continue;
		if (take) {
			before[n++] = v;
			continue;
		}
		snprintf(key, sizeof(key), "%s_kernel_%s", prefix, name);
		vm_fig_i(key, v - before[n++], "count");
	}
	fclose(f);
}

static void fig(const char *prefix, const char *key, long long v,
		const char *unit)
{
	char k[96];

	snprintf(k, sizeof(k), "%s_%s", prefix, key);
	vm_fig_i(k, v, unit);
}

static const char *const worker_name[] = { "forker", "truncator",
					    "remapper" };

static void one_file(int idx, const char *dir, const char *kind)
{
	static uint32_t b[VM_BLK_WORDS];
	long long vm_before[MAX_VMSTAT], swp_before;
	const char *ended = NULL;
	pid_t pid[3];
	char path[256];
	int i, status, alive = 3;
	uint32_t p;
	size_t shsize;

	snprintf(path, sizeof(path), "%s/fork_file_race-%s", dir, kind);
	file_fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (file_fd < 0) {
		ktap_fail(names[idx], "open %s: %s", path, strerror(errno));
		return;
	}
	unlink(path);
	for (p = 0; p < npages; p++) {
		vm_fill_blk(b, SEED_FILE, p, 1);
		if (vm_pwrite_all(file_fd, b, vm_pagesize,
				  (off_t)p * vm_pagesize)) {
			ktap_fail(names[idx], "write: %s", strerror(errno));
			close(file_fd);
			return;
		}
	}
	shsize = sizeof(*sh) + npages * sizeof(sh->page[0]);
	memset((void *)sh, 0, shsize);

	vm_phase(names[idx]);
	report_vmstat(kind, vm_before, 1);
	swp_before = vm_vmstat("pswpout");
	deadline = vm_now_ms() + duration_s * 1000.0;
	pid[0] = start(forker, 40);	/* it ends within 10 s */
	pid[1] = start(truncator, 20);
	pid[2] = start(remapper, 20);
	while (alive) {
		for (i = 0; i < 3; i++) {
			if (pid[i] <= 0 || waitpid(pid[i], &status,
						   WNOHANG) != pid[i])
				continue;
			vm_forget_child(pid[i]);
			pid[i] = 0;
			alive--;
			if (WIFEXITED(status) && !WEXITSTATUS(status))
				continue;
			/*
			 * SIGKILL is the kernel's: the OOM killer, or a
			 * fault that failed for want of memory ("VM:
			 * killing process").  The truncator and the
			 * remapper start again; without the forker the
			 * file kind ends.
			 */
			if (WIFSIGNALED(status) &&
			    WTERMSIG(status) == SIGKILL) {
				add(&sh->workers_killed, 1);
				if (i && !sh->stop &&
				    vm_now_ms() < deadline) {
					pid[i] = start(i == 1 ? truncator :
						       remapper, 20);
					alive += pid[i] > 0;
					continue;
				}
			} else if (!ended) {
				ended = worker_name[i];
			}
			ktap_diag("%s %s %d", worker_name[i],
				  WIFSIGNALED(status) ? "killed by signal" :
				  "exited", WIFSIGNALED(status) ?
				  WTERMSIG(status) : WEXITSTATUS(status));
			sh->stop = 1;	/* the others end too */
		}
		if (vm_now_ms() > deadline + 50000) {
			ktap_diag("workers still running 50 s after the "
				  "deadline: killed");
			for (i = 0; i < 3; i++)
				if (pid[i] > 0)
					vm_kill_group(pid[i], 0,
						      worker_name[i]);
			ended = "a worker that did not stop";
			break;
		}
		vm_progress("%s: %ld forks, %ld cuts, %ld remaps, %ld "
			    "mremaps, %ld pages checked, %ld wrong", kind,
			    sh->forks, (long)sh->rounds, sh->remaps,
			    sh->mremaps, sh->pages_checked, sh->bad_pages);
		vm_sleep_ms(20);
	}
	close(file_fd);

	fig(kind, "pages", npages, "pages");
	fig(kind, "forks", sh->forks, "count");
	fig(kind, "fork_failed", sh->fork_failed, "count");
	fig(kind, "checkers_ok", sh->checkers_ok, "count");
	fig(kind, "checkers_bad", sh->checkers_bad, "count");
	fig(kind, "checkers_killed", sh->checkers_killed, "count");
	fig(kind, "pages_checked", sh->pages_checked, "count");
	fig(kind, "sigbus_seen", sh->sigbus_seen, "count");
	fig(kind, "cut_rounds", sh->rounds, "count");
	fig(kind, "remaps", sh->remaps, "count");
	fig(kind, "remap_einval", sh->remap_einval, "count");
	fig(kind, "remap_enomem", sh->remap_enomem, "count");
	fig(kind, "mremaps", sh->mremaps, "count");
	fig(kind, "mremap_failed", sh->mremap_failed, "count");
	fig(kind, "private_writes", sh->private_writes, "count");
	fig(kind, "workers_killed", sh->workers_killed, "count");
	fig(kind, "bad_pages", sh->bad_pages, "pages");
	fig(kind, "reread", sh->reread, "count");
	fig(kind, "pswpout", swp_before < 0 ? -1 :
	    vm_vmstat("pswpout") - swp_before, "pages");
	report_vmstat(kind, vm_before, 0);

	if (sh->bad_pages)
		ktap_fail(names[idx], "%ld wrong pages; the first: %s",
			  sh->bad_pages, sh->first_bad);
	else if (sh->checkers_bad)
		ktap_fail(names[idx], "%ld checkers died of a signal other "
			  "than SIGKILL", sh->checkers_bad);
	else if (ended)
		ktap_fail(names[idx], "the %s failed", ended);
	else if (!sh->forks)
		ktap_skip(names[idx], "no fork succeeded (%ld failed, %ld "
			  "workers killed by the kernel)", sh->fork_failed,
			  sh->workers_killed);
	else
		ktap_ok(names[idx], "%ld forks, %ld cuts, %ld remaps, %ld "
			"mremaps, %ld pages checked, %ld workers killed by "
			"the kernel", sh->forks, (long)sh->rounds,
			sh->remaps, sh->mremaps, sh->pages_checked,
			sh->workers_killed);
}

int main(int argc, char **argv)
{
	const char *tmpfs;
	pid_t hogs[VM_HOG_MAX];
	uint64_t hog_bytes, held;
	size_t shsize;
	int i, nh = 0, lost = 0, status;

	vm_init("fork_file_race", argc, argv, opts, summary, 600);
	ktap_names(names);
	if (file_pages < 0)
		file_pages = VM_MIN(VM_MAX(vm_cfg.mem_mb * 8, 256L), 8192L);
	if (file_pages < 16 || file_pages > 65536 || npieces < 2 ||
	    npieces > MAX_PIECES || nchecker < 1 ||
	    nchecker > MAX_CHECKERS || nhog < 0 || nhog > VM_HOG_MAX ||
	    duration_s < 1 || anon_mb > 1024)
		ktap_skip_all("-n 16..65536, -k 2..256, -c 1..32, -P 0..16, "
			      "-A up to 1024, -t at least 1");
	if (anon_mb < 0)
		anon_mb = vm_cfg.mem_mb / 16;
	npages = (uint32_t)file_pages;
	head = npages / 4;
	shsize = sizeof(*sh) + npages * sizeof(sh->page[0]);
	sh = mmap(NULL, shsize, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		ktap_skip_all("cannot map the shared state");
	ktap_header(3);
	vm_fig_i("mem_mb", vm_cfg.mem_mb, "MB");
	vm_fig_i("seconds", duration_s, "s");
	vm_fig_i("pieces", npieces, "count");
	vm_fig_i("checkers", nchecker, "count");
	vm_fig_i("anon_mb", anon_mb, "MB");

	/* the hogs first, so that they map nothing of the test */
	held = (uint64_t)anon_mb * VM_MB + vm_mem_bytes() / 32 +
	       2ULL * npages * vm_pagesize;
	hog_bytes = nhog ? vm_cap_pressure(vm_mem_bytes(), held) : 0;
	vm_fig_i("hog_mb", (long long)(hog_bytes / VM_MB), "MB");
	for (i = 0; i < nhog && hog_bytes >= VM_MB; i++) {
		hogs[nh] = vm_fork();
		if (hogs[nh] == 0)
			hog((size_t)(hog_bytes / nhog));
		if (hogs[nh] > 0)
			nh++;
	}
	/* let them fill memory before the first fork */
	vm_sleep_ms(2000);

	tmpfs = vm_find_tmpfs("/dev/shm");
	if (tmpfs)
		one_file(0, tmpfs, "tmpfs");
	else
		ktap_skip(names[0], "no tmpfs");
	if (vm_is_tmpfs(vm_cfg.dir) == 1)
		ktap_skip(names[1], "%s is a tmpfs", vm_cfg.dir);
	else
		one_file(1, vm_cfg.dir, "disk");

	for (i = 0; i < nh; i++) {
		if (waitpid(hogs[i], &status, WNOHANG) == hogs[i]) {
			vm_forget_child(hogs[i]);
			ktap_diag("hog %d ended before the test: %s %d", i,
				  WIFSIGNALED(status) ? "signal" : "exit",
				  WIFSIGNALED(status) ? WTERMSIG(status) :
				  WEXITSTATUS(status));
			continue;
		}
		kill(hogs[i], SIGKILL);
		if (vm_wait_timeout(hogs[i], &status, NULL, 10000)) {
			ktap_diag("hog %d not reaped in 10 s", i);
			lost++;
		}
	}
	lost += vm_nchildren();
	if (lost)
		ktap_fail(names[2], "%d processes left", lost);
	else
		ktap_ok(names[2], "all reaped");
	ktap_exit();
}
