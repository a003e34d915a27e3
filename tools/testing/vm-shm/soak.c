// SPDX-License-Identifier: GPL-2.0
/*
 * soak - hours of mixed, concurrent, checksummed load on shared objects.
 *
 * Worker processes (and children they fork, which come and go) operate
 * at random on shared objects: SysV shm segments (shmat, shmdt,
 * SHM_LOCK), tmpfs files and files in -d (ext2 in the guest), mapped
 * MAP_SHARED and MAP_PRIVATE, and an anonymous region of their own.
 * The operations: map, unmap, write through the mapping, verify
 * through the mapping, pwrite, pread, ftruncate down and up while
 * mapped, mremap grow, shrink and move, mprotect, mlock and munlock,
 * remap_file_pages windows, msync, madvise(MADV_DONTNEED), lockless
 * touching (faults racing with truncate and reclaim), fork with COW of
 * the anonymous and private pages.  Objects and anonymous memory
 * overcommit memory (-o percent) so swap stays busy.
 *
 * Every page is checkable.  A page of object o at offset p holds the
 * block vm_fill_blk(seed of o, p, gen) where gen comes from a model in
 * shared memory (gen 0: all zero, never written or truncated away),
 * updated under a per-object lock by whoever writes it; the model also
 * keeps the operation and pid of the last write, printed on a mismatch
 * beside what the page held (the block names its offset, gen and seed).
 * Private copies (MAP_PRIVATE after a write, the anonymous region) are
 * modelled per process, which fork copies as the kernel copies the
 * pages.  A read beyond EOF must raise SIGBUS and one below must not.
 * Nonlinear windows are forgotten (unmapped unchecked) once their file
 * was truncated: 2.6.3 leaves nonlinear ptes past a truncation mapped.
 *
 * The sequence of operations of each process follows from -s; how the
 * processes interleave depends on scheduling.
 *
 * Tests: no mismatch during the run; every worker and child exited
 * normally; a final check of every object by the parent (through a
 * fresh mapping and through read); swap was used (SKIP without swap or
 * when -m is well below MemTotal).  Figures: operations per kind,
 * verified_mb, mismatches, swap traffic.  A stall (no operation done by
 * anyone for -S seconds) fails; a kernel that stops the parent too is
 * left to the runner's quiet timeout.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "vmshm.h"

static const char summary[] =
	"soak: workers and their children map, write, verify, truncate,\n"
	"remap, lock and fork over shm, tmpfs and disk files and anonymous\n"
	"memory, overcommitted; every page checked against a model";

static const char *const names[] = {
	"no mismatch while the load ran",
	"every worker and child exited normally",
	"final check of every object",
	"the load pushed pages to swap and back",
	NULL
};

static long dur_s = 60, nworkers = 4, over_pct = 150, seed = 1;
static long stall_s = 120, prog_s = 10, child_ops = 300, swapoff_s;
static const char *mix_arg;

static const struct vm_opt opts[] = {
	{ 't', VM_OPT_LONG, &dur_s, "SEC", "duration (60)" },
	{ 'w', VM_OPT_LONG, &nworkers, "N", "worker processes (4)" },
	{ 'o', VM_OPT_LONG, &over_pct, "PCT",
	  "objects plus anonymous memory, percent of memory (150)" },
	{ 's', VM_OPT_LONG, &seed, "SEED", "seed of every process (1)" },
	{ 'S', VM_OPT_LONG, &stall_s, "SEC",
	  "no operation done for SEC seconds is a stall (120)" },
	{ 'p', VM_OPT_LONG, &prog_s, "SEC", "progress line period (10)" },
	{ 'c', VM_OPT_LONG, &child_ops, "N", "operations of a child (300)" },
	{ 'W', VM_OPT_LONG, &swapoff_s, "SEC",
	  "swapoff and swapon again every SEC seconds (0: never)" },
	{ 'x', VM_OPT_STR, &mix_arg, "MIX",
	  "operation weights, e.g. trunc=0:fork=5 (names as in the figures)" },
	{ 0 }
};

/* ---- operations ---- */
enum {
	OP_MAP, OP_UNMAP, OP_WRITE, OP_VERIFY, OP_PWRITE, OP_PREAD,
	OP_TRUNC, OP_MREMAP, OP_MPROTECT, OP_MLOCK, OP_RFP, OP_MSYNC,
	OP_DONTNEED, OP_TOUCH, OP_ANONW, OP_ANONV, OP_FORK, OP_SHMLOCK,
	OP_N
};

static const char *const op_name[OP_N] = {
	"map", "unmap", "write", "verify", "pwrite", "pread", "trunc",
	"mremap", "mprotect", "mlock", "rfp", "msync", "dontneed", "touch",
	"anonw", "anonv", "fork", "shmlock"
};

static long op_weight[OP_N] = {
	8, 5, 20, 20, 6, 6, 3, 4, 3, 3, 4, 2, 3, 6, 8, 8, 2, 1
};

/* ---- the model, in memory shared by every process ---- */
enum { K_SHM, K_TMPFS, K_DISK, K_N };
static const char *const kind_name[K_N] = { "shm", "tmpfs", "disk" };

#define MAX_OBJ		24
#define TLOG		64
#define MAX_SLOTS	64	/* workers, their children share a slot */
#define MAX_REPORTS	30

struct obj {
	int kind;
	int shmid;
	char path[96];
	uint32_t seed;
	uint32_t max;			/* pages */
	uint32_t first;			/* index of page 0 in the page array */
	volatile int lock;
	volatile int holder;
	volatile uint32_t size;		/* pages; max for shm */
	volatile uint32_t tseq;		/* truncations so far */
	volatile uint32_t tlog[TLOG];	/* size after truncation tseq % TLOG */
	volatile int shm_locked;
};

struct pmodel {
	uint32_t gen;
	int32_t pid;
	int32_t op;
};

struct slot {
	volatile uint32_t ops[OP_N];
	volatile uint32_t refused[OP_N];	/* EINVAL, EPERM, budget... */
	volatile uint32_t pages_checked;
	volatile uint32_t mismatches;
	volatile uint32_t sigbus_ok;
	volatile uint32_t dropped;	/* views forgotten unchecked */
	volatile uint32_t children, child_bad;
};

struct shared {
	volatile int stop;
	volatile uint32_t gen;		/* last generation handed out */
	volatile uint32_t beat;		/* operations done by anyone */
	volatile uint32_t locked;	/* pages mlocked or SHM_LOCKed */
	volatile uint32_t reports;
	volatile uint32_t swapoffs, swapoff_fail, swapoff_max_ms;
	uint32_t lock_budget;
	int nobj;
	struct obj obj[MAX_OBJ];
	struct slot slot[MAX_SLOTS];
	struct pmodel page[];
};

static struct shared *sh;
static size_t sh_bytes;

static uint32_t new_gen(void)
{
	uint32_t g;

	do
		g = __sync_add_and_fetch(&sh->gen, 1);
	while (!g);
	return g;
}

static struct pmodel *obj_page(const struct obj *o, uint32_t p)
{
	return &sh->page[o->first + p];
}

/* the seed of a page copied by MAP_PRIVATE: its object's, marked */
#define PRIVATE_SEED(o)	((o)->seed ^ 0x0f000000u)

/* ---- per-process state ---- */
#define MAX_VIEWS	8
enum { V_SHARED, V_PRIVATE, V_SHMAT };

struct view {
	int used;
	int obj;
	int type;
	char *addr;
	uint32_t pgoff;
	uint32_t n;			/* pages */
	int ro, locked, nonlinear;
	uint32_t tseq;			/* truncations seen */
	uint32_t *map;			/* nonlinear: view page -> obj page */
	uint32_t *pgen;			/* private: copy's gen, 0 = none */
};

static struct view view[MAX_VIEWS];
static int fds[MAX_OBJ];
static int slot_no, is_child;
static pid_t me;
static uint64_t rng;
static char *anon;
static uint32_t anon_n, *anon_gen, anon_seed;
static pid_t child_pid;
static long child_no;
static uint32_t max_view;

static struct slot *myslot(void)
{
	return &sh->slot[slot_no];
}

static uint32_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (uint32_t)((rng * 2685821657736338717ULL) >> 32);
}

static uint32_t rnd_below(uint32_t n)
{
	return n ? rnd() % n : 0;
}

static void seed_rng(long a, long b, long c)
{
	rng = 0x9e3779b97f4a7c15ULL ^ ((uint64_t)a << 40) ^
	      ((uint64_t)b << 20) ^ (uint64_t)c;
	if (!rng)
		rng = 1;
	rnd();
}

static void count(int op)
{
	__sync_add_and_fetch(&myslot()->ops[op], 1);
	__sync_add_and_fetch(&sh->beat, 1);
}

static void refuse(int op)
{
	__sync_add_and_fetch(&myslot()->refused[op], 1);
	__sync_add_and_fetch(&sh->beat, 1);
}

/*
 * The object lock: a spin lock in shared memory, the holder's pid
 * beside it for the report.  One object at a time, so no order.  A
 * waiter gives up (exit 3) only once the run has stopped and the
 * holder is gone: killed while holding it.
 */
static void obj_lock(struct obj *o)
{
	double t0 = 0, t_stop = 0, now;
	unsigned long spins = 0;
	int said = 0, holder;

	while (__sync_lock_test_and_set(&o->lock, 1)) {
		sched_yield();
		if (++spins % 256)
			continue;
		now = vm_now_ms();
		if (!t0)
			t0 = now;
		holder = o->holder;
		if (!said && now - t0 > 60000) {
			ktap_diag("pid %d: lock of object %d held by pid %d "
				  "for 60 s", (int)me, (int)(o - sh->obj),
				  holder);
			said = 1;
		}
		if (sh->stop && !t_stop)
			t_stop = now;
		if (t_stop && now - t_stop > 30000 && holder &&
		    kill(holder, 0) && errno == ESRCH)
			_exit(3);
	}
	o->holder = me;
}

static void obj_unlock(struct obj *o)
{
	o->holder = 0;
	__sync_lock_release(&o->lock);
}

/* ---- checking ---- */
static const char *view_desc(const struct view *v)
{
	static char buf[96];

	if (!v)
		return "read()";
	snprintf(buf, sizeof(buf), "%s%s view at page %u of %u%s%s",
		 v->type == V_PRIVATE ? "MAP_PRIVATE" :
		 v->type == V_SHMAT ? "shmat" : "MAP_SHARED",
		 v->nonlinear ? " nonlinear" : "", v->pgoff, v->n,
		 v->locked ? " mlocked" : "", v->ro ? " read-only" : "");
	return buf;
}

static void mismatch(const struct obj *o, uint32_t p, const char *where,
		     int op, uint32_t eseed, uint32_t egen, int lastop,
		     int lastpid, const char *what)
{
	uint32_t n;

	__sync_add_and_fetch(&myslot()->mismatches, 1);
	n = __sync_add_and_fetch(&sh->reports, 1);
	if (n > MAX_REPORTS)
		return;
	ktap_diag("MISMATCH pid %d op %s: %s object %d page %u via %s: "
		  "expected seed %#x gen %u (last %s by pid %d): %s",
		  (int)me, op_name[op], o ? kind_name[o->kind] : "anonymous",
		  o ? (int)(o - sh->obj) : -1, p, where, eseed, egen,
		  lastop >= 0 && lastop < OP_N ? op_name[lastop] : "none",
		  lastpid, what);
}

/*
 * Check one 4096-byte block against (seed, blk, gen), gen 0 meaning all
 * zero; describe what was found.  Returns 0 when it matches.
 */
static int check_blk(const void *p, uint32_t bseed, uint32_t blk,
		     uint32_t gen, char *what, size_t len)
{
	const volatile uint32_t *w = p;
	uint32_t e = 0, g = 0;
	long bad = 0, nbad;
	int i;

	if (gen) {
		nbad = vm_check_blk(p, bseed, blk, gen, &bad, &e, &g);
	} else {
		nbad = 0;
		for (i = 0; i < VM_BLK_WORDS; i++)
			if (w[i] && !nbad++) {
				bad = i;
				g = w[i];
			}
	}
	__sync_add_and_fetch(&myslot()->pages_checked, 1);
	if (!nbad)
		return 0;
	snprintf(what, len, "%ld bad words, first word %ld exp %#x got %#x; "
		 "page holds blk %#x gen %u seed %#x",
		 nbad, bad, e, g, w[0] ^ VM_MAGIC, w[1], w[2]);
	return 1;
}

/* ---- views ---- */
static uint32_t view_page(const struct view *v, uint32_t i)
{
	return v->map ? v->map[i] : v->pgoff + i;
}

static void view_free(struct view *v)
{
	if (v->locked && !is_child)
		__sync_sub_and_fetch(&sh->locked, v->n);
	free(v->map);
	free(v->pgen);
	memset(v, 0, sizeof(*v));
}

static void view_unmap(struct view *v, int shmdt_ok)
{
	if (v->type != V_SHMAT || !shmdt_ok || shmdt(v->addr))
		munmap(v->addr, (size_t)v->n * VM_BLK);
	view_free(v);
}

/*
 * Bring a view up to date with the truncations of its object since it
 * last looked (object lock held): private copies at or past a size the
 * file was cut to are gone (truncate unmaps COW pages too), nonlinear
 * windows are forgotten.  Returns 0 when the view may be used.
 */
static int view_sync(struct view *v)
{
	struct obj *o = &sh->obj[v->obj];
	uint32_t s, low = UINT32_MAX, i;

	if (v->tseq == o->tseq)
		return 0;
	if (v->nonlinear || o->tseq - v->tseq > TLOG) {
		__sync_add_and_fetch(&myslot()->dropped, 1);
		view_unmap(v, 0);
		return -1;
	}
	for (s = v->tseq + 1; s - 1 != o->tseq; s++)
		if (o->tlog[s % TLOG] < low)
			low = o->tlog[s % TLOG];
	if (v->pgen)
		for (i = 0; i < v->n; i++)
			if (view_page(v, i) >= low)
				v->pgen[i] = 0;
	v->tseq = o->tseq;
	return 0;
}

static int pick_view(int want_rw, int want_file)
{
	int idx[MAX_VIEWS], n = 0, i;

	for (i = 0; i < MAX_VIEWS; i++) {
		struct view *v = &view[i];

		if (!v->used || (want_rw && v->ro))
			continue;
		if (want_file && v->type == V_SHMAT)
			continue;
		idx[n++] = i;
	}
	return n ? idx[rnd_below(n)] : -1;
}

/* pages [*a, *a + *k) of a view to work on */
static void pick_range(uint32_t n, uint32_t *a, uint32_t *k)
{
	*k = 1 + rnd_below(VM_MIN(n, 64));
	*a = rnd_below(n - *k + 1);
}

/*
 * Verify view page i (object lock held).  Past EOF a read must raise
 * SIGBUS; below it the page must match the private copy or the object.
 */
static void verify_view_page(struct view *v, uint32_t i, int op)
{
	struct obj *o = &sh->obj[v->obj];
	uint32_t p = view_page(v, i), val, bseed, gen;
	char *addr = v->addr + (size_t)i * VM_BLK;
	char what[200];
	struct pmodel *pg;
	int bus;

	bus = vm_read_bus((const volatile uint32_t *)addr, &val);
	if (p >= o->size) {
		if (bus) {
			__sync_add_and_fetch(&myslot()->sigbus_ok, 1);
			return;
		}
		pg = obj_page(o, VM_MIN(p, o->max - 1));
		mismatch(o, p, view_desc(v), op, 0, 0, pg->op, pg->pid,
			 "read past EOF did not raise SIGBUS");
		return;
	}
	pg = obj_page(o, p);
	if (bus) {
		mismatch(o, p, view_desc(v), op, o->seed, pg->gen, pg->op,
			 pg->pid, "SIGBUS below EOF");
		return;
	}
	if (v->pgen && v->pgen[i]) {
		bseed = PRIVATE_SEED(o);
		gen = v->pgen[i];
	} else {
		bseed = o->seed;
		gen = pg->gen;
	}
	if (check_blk(addr, bseed, p, gen, what, sizeof(what)))
		mismatch(o, p, view_desc(v), op, bseed, gen,
			 v->pgen && v->pgen[i] ? OP_WRITE : pg->op,
			 v->pgen && v->pgen[i] ? (int)me : pg->pid, what);
}

static int new_view(int oi, int type)
{
	struct obj *o = &sh->obj[oi];
	struct view *v = NULL;
	uint32_t n, off;
	void *a;
	int i;

	for (i = 0; i < MAX_VIEWS; i++)
		if (!view[i].used) {
			v = &view[i];
			break;
		}
	if (!v)
		return -1;
	if (type == V_SHMAT) {
		a = shmat(o->shmid, NULL, 0);
		if (a == (void *)-1)
			return -1;
		off = 0;
		n = o->max;
	} else {
		n = 1 + rnd_below(VM_MIN(o->max, max_view));
		off = rnd_below(o->max - n + 1);
		a = mmap(NULL, (size_t)n * VM_BLK, PROT_READ | PROT_WRITE,
			 type == V_PRIVATE ? MAP_PRIVATE : MAP_SHARED,
			 fds[oi], (off_t)off * VM_BLK);
		if (a == MAP_FAILED)
			return -1;
	}
	memset(v, 0, sizeof(*v));
	v->used = 1;
	v->obj = oi;
	v->type = type;
	v->addr = a;
	v->pgoff = off;
	v->n = n;
	v->tseq = o->tseq;
	if (type == V_PRIVATE) {
		v->pgen = calloc(n, sizeof(uint32_t));
		if (!v->pgen) {
			view_unmap(v, 1);
			return -1;
		}
	}
	return 0;
}

/* ---- the operations ---- */
static void op_map(void)
{
	int oi = rnd_below(sh->nobj);
	int kind = sh->obj[oi].kind, i, type;

	for (i = 0; i < MAX_VIEWS; i++)
		if (!view[i].used)
			break;
	if (i == MAX_VIEWS)
		view_unmap(&view[rnd_below(MAX_VIEWS)], 1);
	type = kind == K_SHM ? V_SHMAT :
	       rnd_below(10) < 7 ? V_SHARED : V_PRIVATE;
	if (new_view(oi, type) < 0) {
		refuse(OP_MAP);
		return;
	}
	count(OP_MAP);
}

static void op_unmap(void)
{
	int i = pick_view(0, 0);

	if (i < 0) {
		refuse(OP_UNMAP);
		return;
	}
	view_unmap(&view[i], 1);
	count(OP_UNMAP);
}

static void op_write(void)
{
	int i = pick_view(1, 0);
	struct view *v;
	struct obj *o;
	uint32_t a, k, j, p, gen, val;
	char *addr;

	if (i < 0) {
		refuse(OP_WRITE);
		return;
	}
	v = &view[i];
	o = &sh->obj[v->obj];
	obj_lock(o);
	if (view_sync(v) < 0) {
		obj_unlock(o);
		refuse(OP_WRITE);
		return;
	}
	pick_range(v->n, &a, &k);
	for (j = a; j < a + k; j++) {
		p = view_page(v, j);
		if (p >= o->size)
			continue;
		addr = v->addr + (size_t)j * VM_BLK;
		if (vm_read_bus((const volatile uint32_t *)addr, &val)) {
			mismatch(o, p, view_desc(v), OP_WRITE, o->seed, 0,
				 -1, 0, "SIGBUS below EOF");
			continue;
		}
		gen = new_gen();
		if (v->pgen) {
			vm_fill_blk(addr, PRIVATE_SEED(o), p, gen);
			v->pgen[j] = gen;
		} else {
			vm_fill_blk(addr, o->seed, p, gen);
			obj_page(o, p)->gen = gen;
			obj_page(o, p)->pid = me;
			obj_page(o, p)->op = OP_WRITE;
		}
	}
	obj_unlock(o);
	count(OP_WRITE);
}

/*
 * Verify pages [a, a + k) of a view, 64 at a time under the object lock
 * so that a whole shm segment does not keep the others waiting.
 */
static void verify_view(struct view *v, uint32_t a, uint32_t k, int op)
{
	struct obj *o = &sh->obj[v->obj];
	uint32_t j, n;

	while (k && a < v->n) {
		n = VM_MIN(VM_MIN(k, 64), v->n - a);
		obj_lock(o);
		if (view_sync(v) < 0) {		/* forgotten: no more v */
			obj_unlock(o);
			return;
		}
		for (j = a; j < a + n; j++)
			verify_view_page(v, j, op);
		obj_unlock(o);
		__sync_add_and_fetch(&sh->beat, 1);
		a += n;
		k -= n;
	}
}

static void op_verify(void)
{
	int i = pick_view(0, 0);
	uint32_t a, k;

	if (i < 0) {
		refuse(OP_VERIFY);
		return;
	}
	pick_range(view[i].n, &a, &k);
	verify_view(&view[i], a, k, OP_VERIFY);
	count(OP_VERIFY);
}

static int pick_file(void)
{
	int idx[MAX_OBJ], n = 0, i;

	for (i = 0; i < sh->nobj; i++)
		if (sh->obj[i].kind != K_SHM)
			idx[n++] = i;
	return n ? idx[rnd_below(n)] : -1;
}

static void op_pwrite(void)
{
	static uint32_t buf[VM_BLK_WORDS];
	int oi = pick_file();
	struct obj *o;
	uint32_t a, k, p, gen;

	if (oi < 0) {
		refuse(OP_PWRITE);
		return;
	}
	o = &sh->obj[oi];
	obj_lock(o);
	if (!o->size) {
		obj_unlock(o);
		refuse(OP_PWRITE);
		return;
	}
	pick_range(o->size, &a, &k);
	for (p = a; p < a + k; p++) {
		gen = new_gen();
		vm_fill_blk(buf, o->seed, p, gen);
		if (vm_pwrite_all(fds[oi], buf, VM_BLK, (off_t)p * VM_BLK)) {
			ktap_diag("pid %d: pwrite %s page %u: %s", (int)me,
				  o->path, p, strerror(errno));
			__sync_add_and_fetch(&myslot()->mismatches, 1);
			break;
		}
		obj_page(o, p)->gen = gen;
		obj_page(o, p)->pid = me;
		obj_page(o, p)->op = OP_PWRITE;
	}
	obj_unlock(o);
	count(OP_PWRITE);
}

static void op_pread(void)
{
	static uint32_t buf[VM_BLK_WORDS];
	int oi = pick_file();
	struct obj *o;
	uint32_t a, k, p;
	struct pmodel *pg;
	char what[200];
	ssize_t r;

	if (oi < 0) {
		refuse(OP_PREAD);
		return;
	}
	o = &sh->obj[oi];
	obj_lock(o);
	pick_range(o->max, &a, &k);
	for (p = a; p < a + k; p++) {
		pg = obj_page(o, p);
		r = pread(fds[oi], buf, VM_BLK, (off_t)p * VM_BLK);
		if (p >= o->size) {
			if (r != 0)
				mismatch(o, p, "read()", OP_PREAD, 0, 0, pg->op,
					 pg->pid,
					 "read past EOF returned data");
			continue;
		}
		if (r != VM_BLK) {
			snprintf(what, sizeof(what), "read returned %ld (%s)",
				 (long)r, r < 0 ? strerror(errno) : "short");
			mismatch(o, p, "read()", OP_PREAD, o->seed, pg->gen,
				 pg->op, pg->pid, what);
			continue;
		}
		if (check_blk(buf, o->seed, p, pg->gen, what, sizeof(what)))
			mismatch(o, p, "read()", OP_PREAD, o->seed, pg->gen,
				 pg->op, pg->pid, what);
	}
	obj_unlock(o);
	count(OP_PREAD);
}

static void op_trunc(void)
{
	int oi = pick_file();
	struct obj *o;
	uint32_t ns, p;

	if (oi < 0) {
		refuse(OP_TRUNC);
		return;
	}
	o = &sh->obj[oi];
	obj_lock(o);
	/* mostly partial cuts; now and then to nothing or all the way up */
	switch (rnd_below(8)) {
	case 0:
		ns = 0;
		break;
	case 1:
		ns = o->max;
		break;
	default:
		ns = rnd_below(o->max + 1);
	}
	if (ftruncate(fds[oi], (off_t)ns * VM_BLK)) {
		ktap_diag("pid %d: ftruncate %s to %u pages: %s", (int)me,
			  o->path, ns, strerror(errno));
		obj_unlock(o);
		refuse(OP_TRUNC);
		return;
	}
	for (p = ns; p < o->size; p++) {
		obj_page(o, p)->gen = 0;
		obj_page(o, p)->pid = me;
		obj_page(o, p)->op = OP_TRUNC;
	}
	o->size = ns;
	o->tlog[(o->tseq + 1) % TLOG] = ns;
	o->tseq++;
	obj_unlock(o);
	count(OP_TRUNC);
}

static void op_mremap(void)
{
	int i = pick_view(0, 0);
	struct obj *o;
	struct view *v;
	uint32_t nn, j, *pg;
	void *a, *hole;

	if (i < 0 || view[i].nonlinear || view[i].locked) {
		refuse(OP_MREMAP);
		return;
	}
	v = &view[i];
	o = &sh->obj[v->obj];
	switch (rnd_below(3)) {
	case 0:		/* grow, maybe moving */
		if (v->pgoff + v->n >= o->max) {
			refuse(OP_MREMAP);
			return;
		}
		nn = v->n + 1 + rnd_below(VM_MIN(o->max - v->pgoff - v->n,
						 max_view));
		a = mremap(v->addr, (size_t)v->n * VM_BLK,
			   (size_t)nn * VM_BLK, MREMAP_MAYMOVE);
		break;
	case 1:		/* shrink */
		if (v->n < 2) {
			refuse(OP_MREMAP);
			return;
		}
		nn = 1 + rnd_below(v->n - 1);
		a = mremap(v->addr, (size_t)v->n * VM_BLK,
			   (size_t)nn * VM_BLK, 0);
		break;
	default:	/* move: grow into a fresh hole, then shrink back */
		nn = v->n;
		a = mmap(NULL, (size_t)nn * VM_BLK, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (a == MAP_FAILED) {
			refuse(OP_MREMAP);
			return;
		}
		hole = a;
		a = mremap(v->addr, (size_t)v->n * VM_BLK,
			   (size_t)nn * VM_BLK, MREMAP_MAYMOVE | MREMAP_FIXED,
			   hole);
		if (a == MAP_FAILED)
			munmap(hole, (size_t)nn * VM_BLK);
	}
	if (a == MAP_FAILED) {
		refuse(OP_MREMAP);
		return;
	}
	if (v->pgen) {
		pg = realloc(v->pgen, nn * sizeof(uint32_t));
		if (!pg) {
			munmap(a, (size_t)nn * VM_BLK);
			view_free(v);
			refuse(OP_MREMAP);
			return;
		}
		for (j = v->n; j < nn; j++)
			pg[j] = 0;
		v->pgen = pg;
	}
	v->addr = a;
	v->n = nn;
	count(OP_MREMAP);
	verify_view(v, 0, VM_MIN(nn, 16), OP_MREMAP);
}

static void op_mprotect(void)
{
	int i = pick_view(0, 0);
	struct view *v;

	if (i < 0) {
		refuse(OP_MPROTECT);
		return;
	}
	v = &view[i];
	if (mprotect(v->addr, (size_t)v->n * VM_BLK,
		     v->ro ? PROT_READ | PROT_WRITE : PROT_READ)) {
		refuse(OP_MPROTECT);
		return;
	}
	v->ro = !v->ro;
	count(OP_MPROTECT);
}

static void op_mlock(void)
{
	int i = pick_view(0, 0);
	struct view *v;

	/*
	 * Not MAP_PRIVATE: mlock faults a writable private mapping for
	 * write, copying every page the model thinks still shared.
	 */
	if (i < 0 || is_child || view[i].type == V_PRIVATE) {
		refuse(OP_MLOCK);
		return;
	}
	v = &view[i];
	if (v->locked) {
		munlock(v->addr, (size_t)v->n * VM_BLK);
		__sync_sub_and_fetch(&sh->locked, v->n);
		v->locked = 0;
		count(OP_MLOCK);
		return;
	}
	if (__sync_add_and_fetch(&sh->locked, v->n) > sh->lock_budget) {
		__sync_sub_and_fetch(&sh->locked, v->n);
		refuse(OP_MLOCK);
		return;
	}
	/* a view reaching past EOF may fail or half succeed: both fine */
	if (mlock(v->addr, (size_t)v->n * VM_BLK)) {
		munlock(v->addr, (size_t)v->n * VM_BLK);
		__sync_sub_and_fetch(&sh->locked, v->n);
		refuse(OP_MLOCK);
		return;
	}
	v->locked = 1;
	count(OP_MLOCK);
}

static void op_rfp(void)
{
	int i = pick_view(0, 1);
	struct view *v;
	struct obj *o;
	uint32_t a, k, p, j, *map;

	if (i < 0 || view[i].type != V_SHARED) {
		refuse(OP_RFP);
		return;
	}
	v = &view[i];
	o = &sh->obj[v->obj];
	obj_lock(o);
	if (view_sync(v) < 0 || !o->size) {
		obj_unlock(o);
		refuse(OP_RFP);
		return;
	}
	pick_range(v->n, &a, &k);
	if (k > o->size)
		k = o->size;
	p = rnd_below(o->size - k + 1);
	map = v->map;
	if (!map) {
		map = malloc(v->n * sizeof(uint32_t));
		if (!map) {
			obj_unlock(o);
			refuse(OP_RFP);
			return;
		}
		for (j = 0; j < v->n; j++)
			map[j] = v->pgoff + j;
	}
	if (remap_file_pages(v->addr + (size_t)a * VM_BLK,
			     (size_t)k * VM_BLK, 0, p, 0)) {
		if (map != v->map)
			free(map);
		/*
		 * EINVAL comes before any pte changes (a range past EOF, a
		 * mapping without ->populate); anything else may have
		 * remapped part of the range (2.6.3) or left a hole (a
		 * kernel that emulates it with mmap): forget the view.
		 */
		if (errno != EINVAL) {
			__sync_add_and_fetch(&myslot()->dropped, 1);
			view_unmap(v, 0);
		}
		obj_unlock(o);
		refuse(OP_RFP);
		return;
	}
	v->map = map;
	v->nonlinear = 1;
	for (j = 0; j < k; j++)
		v->map[a + j] = p + j;
	for (j = a; j < a + k; j++)
		verify_view_page(v, j, OP_RFP);
	obj_unlock(o);
	count(OP_RFP);
}

static void op_msync(void)
{
	int i = pick_view(0, 1);
	struct view *v;

	if (i < 0 || view[i].type != V_SHARED) {
		refuse(OP_MSYNC);
		return;
	}
	v = &view[i];
	if (msync(v->addr, (size_t)v->n * VM_BLK,
		  rnd_below(2) ? MS_SYNC : MS_ASYNC)) {
		/* EIO or ENOSPC: data lost, the kernel says so */
		mismatch(&sh->obj[v->obj], v->pgoff, view_desc(v), OP_MSYNC,
			 0, 0, -1, 0, strerror(errno));
		return;
	}
	count(OP_MSYNC);
}

static void anon_dontneed(void)
{
	uint32_t a, k, j;

	pick_range(anon_n, &a, &k);
	if (madvise(anon + (size_t)a * VM_BLK, (size_t)k * VM_BLK,
		    MADV_DONTNEED)) {
		refuse(OP_DONTNEED);
		return;
	}
	for (j = a; j < a + k; j++)
		anon_gen[j] = 0;
	count(OP_DONTNEED);
}

static void op_dontneed(void)
{
	int i = pick_view(0, 0);
	struct view *v;
	struct obj *o;
	uint32_t a, k, j;

	/*
	 * A nonlinear window loses its offsets when zapped on 2.6.3 and
	 * keeps them on kernels that emulate it with vmas: leave it be.
	 * Locked views refuse (EINVAL) on 2.6.3.
	 */
	if (i < 0 || view[i].nonlinear || view[i].locked || rnd_below(3) == 0) {
		anon_dontneed();
		return;
	}
	v = &view[i];
	o = &sh->obj[v->obj];
	obj_lock(o);
	if (view_sync(v) < 0) {
		obj_unlock(o);
		refuse(OP_DONTNEED);
		return;
	}
	pick_range(v->n, &a, &k);
	if (madvise(v->addr + (size_t)a * VM_BLK, (size_t)k * VM_BLK,
		    MADV_DONTNEED)) {
		obj_unlock(o);
		refuse(OP_DONTNEED);
		return;
	}
	if (v->pgen)
		for (j = a; j < a + k; j++)
			v->pgen[j] = 0;
	for (j = a; j < a + k; j++)
		verify_view_page(v, j, OP_DONTNEED);
	obj_unlock(o);
	count(OP_DONTNEED);
}

/* faults with no lock held, racing with truncate, reclaim and writers */
static void op_touch(void)
{
	int i = pick_view(0, 0);
	struct view *v;
	uint32_t j, val, sum = 0;

	if (i < 0) {
		refuse(OP_TOUCH);
		return;
	}
	v = &view[i];
	for (j = 0; j < v->n; j += 1 + rnd_below(4))
		if (!vm_read_bus((const volatile uint32_t *)
				 (v->addr + (size_t)j * VM_BLK), &val))
			sum += val;
	(void)sum;
	count(OP_TOUCH);
}

static void op_anonw(void)
{
	uint32_t a, k, j;

	pick_range(anon_n, &a, &k);
	for (j = a; j < a + k; j++) {
		anon_gen[j] = new_gen();
		vm_fill_blk(anon + (size_t)j * VM_BLK, anon_seed, j,
			    anon_gen[j]);
	}
	count(OP_ANONW);
}

static void anon_verify(uint32_t a, uint32_t k, int op)
{
	char what[200];
	uint32_t j;

	for (j = a; j < a + k; j++)
		if (check_blk(anon + (size_t)j * VM_BLK, anon_seed, j,
			      anon_gen[j], what, sizeof(what)))
			mismatch(NULL, j, "anonymous region", op, anon_seed,
				 anon_gen[j], anon_gen[j] ? OP_ANONW : -1,
				 (int)me, what);
}

static void op_anonv(void)
{
	uint32_t a, k;

	pick_range(anon_n, &a, &k);
	anon_verify(a, k, OP_ANONV);
	count(OP_ANONV);
}

static void op_shmlock(void)
{
	int idx[MAX_OBJ], n = 0, i;
	struct obj *o;

	for (i = 0; i < sh->nobj; i++)
		if (sh->obj[i].kind == K_SHM)
			idx[n++] = i;
	if (!n || is_child) {
		refuse(OP_SHMLOCK);
		return;
	}
	o = &sh->obj[idx[rnd_below(n)]];
	obj_lock(o);
	if (o->shm_locked) {
		shmctl(o->shmid, SHM_UNLOCK, NULL);
		__sync_sub_and_fetch(&sh->locked, o->max);
		o->shm_locked = 0;
	} else if (__sync_add_and_fetch(&sh->locked, o->max) >
		   sh->lock_budget || shmctl(o->shmid, SHM_LOCK, NULL)) {
		__sync_sub_and_fetch(&sh->locked, o->max);
		obj_unlock(o);
		refuse(OP_SHMLOCK);
		return;
	} else {
		o->shm_locked = 1;
	}
	obj_unlock(o);
	count(OP_SHMLOCK);
}

static void run_ops(long limit);
static void final_verify(void);

/*
 * A child runs -c operations on copies of its worker's views and
 * anonymous region, checks all of them and exits 0; mismatches go to
 * the worker's counters.
 */
static void op_fork(void)
{
	pid_t pid;
	int i;

	if (is_child || child_pid) {
		refuse(OP_FORK);
		return;
	}
	child_no++;
	pid = vm_fork();
	if (pid < 0) {
		refuse(OP_FORK);
		return;
	}
	if (pid == 0) {
		is_child = 1;
		me = getpid();
		seed_rng(seed, slot_no + 1, child_no);
		/* mlock is not inherited; the worker keeps the budget */
		for (i = 0; i < MAX_VIEWS; i++)
			view[i].locked = 0;
		run_ops(child_ops);
		final_verify();
		_exit(0);
	}
	child_pid = pid;
	__sync_add_and_fetch(&myslot()->children, 1);
	count(OP_FORK);
}

static void reap_child(int block)
{
	int st;

	if (!child_pid)
		return;
	if (vm_wait_timeout(child_pid, &st, NULL, block ? 60000 : 0) != 0) {
		if (block) {
			ktap_diag("pid %d: child %d did not exit in 60 s",
				  (int)me, (int)child_pid);
			__sync_add_and_fetch(&myslot()->child_bad, 1);
			child_pid = 0;
		}
		return;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) > 1) {
		ktap_diag("pid %d: child %d ended with %s %d", (int)me,
			  (int)child_pid, WIFEXITED(st) ? "exit" : "signal",
			  WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
		__sync_add_and_fetch(&myslot()->child_bad, 1);
	}
	child_pid = 0;
}

static void do_op(int op)
{
	switch (op) {
	case OP_MAP: op_map(); break;
	case OP_UNMAP: op_unmap(); break;
	case OP_WRITE: op_write(); break;
	case OP_VERIFY: op_verify(); break;
	case OP_PWRITE: op_pwrite(); break;
	case OP_PREAD: op_pread(); break;
	case OP_TRUNC: op_trunc(); break;
	case OP_MREMAP: op_mremap(); break;
	case OP_MPROTECT: op_mprotect(); break;
	case OP_MLOCK: op_mlock(); break;
	case OP_RFP: op_rfp(); break;
	case OP_MSYNC: op_msync(); break;
	case OP_DONTNEED: op_dontneed(); break;
	case OP_TOUCH: op_touch(); break;
	case OP_ANONW: op_anonw(); break;
	case OP_ANONV: op_anonv(); break;
	case OP_FORK: op_fork(); break;
	case OP_SHMLOCK: op_shmlock(); break;
	}
}

static void run_ops(long limit)
{
	long total = 0, n = 0, w;
	int op;

	for (op = 0; op < OP_N; op++)
		total += op_weight[op];
	while (!sh->stop && (limit < 0 || n++ < limit)) {
		w = rnd_below(total);
		for (op = 0; w >= op_weight[op]; op++)
			w -= op_weight[op];
		do_op(op);
		reap_child(0);
	}
}

/* at the end: every view and the whole anonymous region */
static void final_verify(void)
{
	int i;

	for (i = 0; i < MAX_VIEWS; i++)
		if (view[i].used)
			verify_view(&view[i], 0, view[i].n, OP_VERIFY);
	anon_verify(0, anon_n, OP_ANONV);
}

static void worker(int w)
{
	int i;

	slot_no = w;
	me = getpid();
	seed_rng(seed, w + 1, 0);
	anon_seed = 0xa0000000u + w;
	vm_sigbus_install(5);
	for (i = 0; i < sh->nobj; i++) {
		fds[i] = -1;
		if (sh->obj[i].kind == K_SHM)
			continue;
		fds[i] = open(sh->obj[i].path, O_RDWR);
		if (fds[i] < 0) {
			ktap_diag("worker %d: open %s: %s", w,
				  sh->obj[i].path, strerror(errno));
			_exit(2);
		}
	}
	anon = mmap(NULL, (size_t)anon_n * VM_BLK, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	anon_gen = calloc(anon_n, sizeof(uint32_t));
	if (anon == MAP_FAILED || !anon_gen) {
		ktap_diag("worker %d: anonymous region of %u pages: %s", w,
			  anon_n, strerror(errno));
		_exit(2);
	}
	run_ops(-1);
	reap_child(1);
	final_verify();
	_exit(myslot()->mismatches ? 1 : 0);
}

/*
 * A swap file of @pages pages in -d, for -W: written out (swapon wants
 * no holes) with a version 1 header.  0 on success.
 */
static int make_swapfile(const char *path, uint32_t pages)
{
	static uint32_t buf[VM_BLK_WORDS];
	uint32_t i;
	int fd;

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -1;
	memset(buf, 0, sizeof(buf));
	buf[1024 / 4] = 1;			/* info.version */
	buf[1028 / 4] = pages - 1;		/* info.last_page */
	memcpy((char *)buf + VM_BLK - 10, "SWAPSPACE2", 10);
	for (i = 0; i < pages; i++) {
		if (vm_write_all(fd, buf, VM_BLK)) {
			close(fd);
			return -1;
		}
		if (!i)
			memset(buf, 0, sizeof(buf));
	}
	if (fsync(fd)) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/*
 * -W: take each swap device away and give it back, one at a time,
 * again and again while the workers run.  A swap file of a quarter of
 * memory in -d joins the swap disk, so swap never goes away entirely:
 * swapoff must move every page of shm, tmpfs and anonymous memory on
 * the device into memory or onto the other device while the workers
 * fault on them.  ENOMEM (they do not fit) is a refusal, counted; a
 * device that cannot be turned on again is a failure.
 */
static void swapper(void)
{
	char dev[8][128], line[256], file[128];
	int n = 0, i, tries;
	double t;
	FILE *f;

	slot_no = MAX_SLOTS - 2;
	me = getpid();
	f = fopen("/proc/swaps", "r");
	while (f && fgets(line, sizeof(line), f) && n < 7)
		if (line[0] == '/' && sscanf(line, "%127s", dev[n]) == 1)
			n++;
	if (f)
		fclose(f);
	snprintf(file, sizeof(file), "%s/soak-swapfile", vm_cfg.dir);
	if (vm_is_tmpfs(vm_cfg.dir) != 1 &&
	    !make_swapfile(file, (uint32_t)(vm_mem_bytes() / 4 / VM_BLK)) &&
	    !swapon(file, 0))
		snprintf(dev[n++], sizeof(dev[0]), "%s", file);
	else
		ktap_diag("-W: no swap file in %s: %s", vm_cfg.dir,
			  strerror(errno));
	if (!n) {
		ktap_diag("-W: no swap device to take away");
		_exit(1);
	}
	while (!sh->stop) {
		for (i = 0; i < n && !sh->stop; i++) {
			for (t = vm_now_ms(); !sh->stop &&
			     vm_now_ms() - t < swapoff_s * 1000.0; )
				vm_sleep_ms(200);
			if (sh->stop)
				break;
			t = vm_now_ms();
			if (swapoff(dev[i])) {
				__sync_add_and_fetch(&sh->swapoff_fail, 1);
				continue;
			}
			t = vm_now_ms() - t;
			__sync_add_and_fetch(&sh->swapoffs, 1);
			if (t > sh->swapoff_max_ms)
				sh->swapoff_max_ms = (uint32_t)t;
			for (tries = 0; swapon(dev[i], 0); tries++) {
				if (tries == 3) {
					ktap_diag("-W: swapon %s again: %s",
						  dev[i], strerror(errno));
					_exit(1);
				}
				vm_sleep_ms(1000);
			}
		}
	}
	/* the swap file goes; its pages come back first */
	if (n && !strcmp(dev[n - 1], file)) {
		if (swapoff(file))
			ktap_diag("-W: swapoff %s at the end: %s", file,
				  strerror(errno));
		unlink(file);
	}
	_exit(0);
}

/* ---- the parent ---- */
static long rtc0 = -1, rtc_days, rtc_last;

/*
 * Seconds since the start: by the CMOS clock where there is one (the
 * host's time in QEMU), else by the guest's own.
 */
static double elapsed_s(double t0, double now)
{
	static double last = -1;
	long r;

	if (rtc0 < 0)
		return (now - t0) / 1000;
	r = vm_cmos_seconds();
	if (r < 0)			/* unreadable this time */
		return last < 0 ? 0 : last;
	if (r < rtc_last) {
		if (rtc_last > 80000 && r < 6400)
			rtc_days++;	/* midnight */
		else
			r = rtc_last;	/* a step back: hold */
	}
	rtc_last = r;
	last = (double)(r + rtc_days * 86400 - rtc0);
	return last;
}

static int test_guest(void)
{
	struct utsname u;

	return uname(&u) == 0 && !strncmp(u.release, "2.6.", 4);
}

static void parse_mix(void)
{
	char buf[256], *tok, *save, *eq;
	int op;

	if (!mix_arg)
		return;
	snprintf(buf, sizeof(buf), "%s", mix_arg);
	/* ':' and '+' too: the guest's command line turns ',' into ' ' */
	for (tok = strtok_r(buf, ",:+", &save); tok;
	     tok = strtok_r(NULL, ",:+", &save)) {
		eq = strchr(tok, '=');
		if (!eq)
			goto bad;
		*eq = '\0';
		for (op = 0; op < OP_N; op++)
			if (!strcmp(tok, op_name[op]))
				break;
		if (op == OP_N)
			goto bad;
		op_weight[op] = atol(eq + 1);
		if (op_weight[op] < 0)
			goto bad;
	}
	return;
bad:
	fprintf(stderr, "%s: -x %s: want name=weight,... with names:",
		vm_prog, mix_arg);
	for (op = 0; op < OP_N; op++)
		fprintf(stderr, " %s", op_name[op]);
	fprintf(stderr, "\n");
	exit(1);
}

static int add_obj(int kind, uint32_t pages, const char *dir, int n)
{
	struct obj *o = &sh->obj[sh->nobj];
	int fd;

	if (sh->nobj == MAX_OBJ || !pages)
		return 0;
	memset(o, 0, sizeof(*o));
	if (sh->nobj)
		o->first = o[-1].first + o[-1].max;
	o->kind = kind;
	o->seed = 0x50000000u + (uint32_t)sh->nobj;
	o->max = pages;
	o->size = pages;
	o->shmid = -1;
	if (kind == K_SHM) {
		/*
		 * Attached by the parent and removed at once (the helper
		 * does both): it lives as long as the parent, and Linux
		 * lets the workers attach a removed segment by its id.
		 */
		if (!vm_shm_create((uint64_t)pages * VM_BLK, &o->shmid))
			return -1;
	} else {
		snprintf(o->path, sizeof(o->path), "%s/soak-%s-%d", dir,
			 kind_name[kind], n);
		fd = open(o->path, O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || ftruncate(fd, (off_t)pages * VM_BLK)) {
			ktap_diag("create %s: %s", o->path, strerror(errno));
			return -1;
		}
		close(fd);
		vm_register_path(o->path);
	}
	sh->nobj++;
	return 0;
}

static void remove_objs(void)
{
	int i;

	for (i = 0; i < sh->nobj; i++) {
		if (sh->obj[i].kind != K_SHM)
			unlink(sh->obj[i].path);
	}
}

/* the parent's check, all workers gone: fresh mappings and read() */
static int final_check(void)
{
	static uint32_t buf[VM_BLK_WORDS];
	uint32_t p, val;
	char what[200], *a;
	struct pmodel *pg;
	int i, fd;
	uint32_t bad0 = myslot()->mismatches;

	for (i = 0; i < sh->nobj; i++) {
		struct obj *o = &sh->obj[i];

		/* its holder died half way through a page: nothing to expect */
		if (o->lock) {
			ktap_diag("final check: object %d still locked by pid "
				  "%d: not checked", i, o->holder);
			__sync_add_and_fetch(&myslot()->mismatches, 1);
			continue;
		}
		if (o->kind == K_SHM) {
			a = shmat(o->shmid, NULL, SHM_RDONLY);
			fd = -1;
		} else {
			fd = open(o->path, O_RDONLY);
			a = fd < 0 ? (void *)-1 :
			    mmap(NULL, (size_t)o->max * VM_BLK, PROT_READ,
				 MAP_SHARED, fd, 0);
			if (a == MAP_FAILED)
				a = (void *)-1;
		}
		if (a == (void *)-1) {
			ktap_diag("final check: object %d: %s", i,
				  strerror(errno));
			__sync_add_and_fetch(&myslot()->mismatches, 1);
			continue;
		}
		for (p = 0; p < o->max; p++) {
			char *page = a + (size_t)p * VM_BLK;
			int bus = vm_read_bus((const volatile uint32_t *)page,
					      &val);

			pg = obj_page(o, p);
			if (p >= o->size) {
				if (!bus)
					mismatch(o, p, "final mapping",
						 OP_VERIFY, 0, 0, pg->op,
						 pg->pid, "read past EOF did "
						 "not raise SIGBUS");
				continue;
			}
			if (bus)
				mismatch(o, p, "final mapping", OP_VERIFY,
					 o->seed, pg->gen, pg->op, pg->pid,
					 "SIGBUS below EOF");
			else if (check_blk(page, o->seed, p, pg->gen, what,
					   sizeof(what)))
				mismatch(o, p, "final mapping", OP_VERIFY,
					 o->seed, pg->gen, pg->op, pg->pid,
					 what);
			if (fd >= 0) {
				if (vm_pread_all(fd, buf, VM_BLK,
						 (off_t)p * VM_BLK))
					mismatch(o, p, "final read()", OP_PREAD,
						 o->seed, pg->gen, pg->op,
						 pg->pid, "read failed");
				else if (check_blk(buf, o->seed, p, pg->gen,
						   what, sizeof(what)))
					mismatch(o, p, "final read()", OP_PREAD,
						 o->seed, pg->gen, pg->op,
						 pg->pid, what);
			}
		}
		if (o->kind == K_SHM) {
			shmdt(a);
		} else {
			munmap(a, (size_t)o->max * VM_BLK);
			close(fd);
		}
	}
	return myslot()->mismatches == bad0;
}

static void totals(struct slot *t)
{
	int w, op;

	memset(t, 0, sizeof(*t));
	for (w = 0; w < nworkers; w++) {
		struct slot *s = &sh->slot[w];

		for (op = 0; op < OP_N; op++) {
			t->ops[op] += s->ops[op];
			t->refused[op] += s->refused[op];
		}
		t->pages_checked += s->pages_checked;
		t->mismatches += s->mismatches;
		t->sigbus_ok += s->sigbus_ok;
		t->dropped += s->dropped;
		t->children += s->children;
		t->child_bad += s->child_bad;
	}
}

static long long sum_ops(const struct slot *t)
{
	long long n = 0;
	int op;

	for (op = 0; op < OP_N; op++)
		n += t->ops[op];
	return n;
}

int main(int argc, char **argv)
{
	uint64_t mem, want, swapb, diskb, anonb, avail;
	uint32_t objpages[K_N], per, pages_total = 0;
	const char *tmpfs_dir;
	struct vm_vmstat_snap s0, s1;
	pid_t pid[MAX_SLOTS];
	int alive[MAX_SLOTS], nalive, w, k, i, st, bad_exit = 0, stalled = 0;
	int nworkers_all, stuck = 0;
	double t_stop = 0;
	double t0, now, last_prog, last_beat_t;
	uint32_t last_beat;
	long long swaptotal, memtotal;
	struct slot t;

	vm_init("soak", argc, argv, opts, summary, 900);
	parse_mix();
	if (nworkers < 1 || nworkers > MAX_SLOTS - 2 || dur_s < 1 ||
	    over_pct < 10) {
		fprintf(stderr, "soak: -w 1..%d, -t >= 1, -o >= 10\n",
			MAX_SLOTS - 2);
		return 1;
	}
	if (swapoff_s > 0 && !test_guest()) {
		fprintf(stderr, "soak: -W takes swap away: only in a 2.6 test "
			"guest, not on this machine\n");
		return 1;
	}
	if (vm_cfg.timeout_s < dur_s + 600)
		vm_cfg.timeout_s = dur_s + 600;
	alarm(vm_cfg.timeout_s);
	ktap_header(4);
	ktap_names(names);

	/*
	 * Sizes: of -o percent of memory, shm 30, tmpfs 25, disk files 25
	 * and anonymous 20 percent; what swap must hold is capped to what
	 * memory and swap can take, the disk part to half the disk.
	 */
	mem = vm_mem_bytes();
	want = mem * (uint64_t)over_pct / 100;
	swapb = want * 75 / 100;
	avail = vm_avail_bytes(0);
	if (swapb > avail * 9 / 10) {
		ktap_diag("objects in memory and swap capped from %llu to "
			  "%llu MB",
			  (unsigned long long)(swapb / VM_MB),
			  (unsigned long long)(avail * 9 / 10 / VM_MB));
		swapb = avail * 9 / 10;
	}
	diskb = VM_MIN(want / 4, vm_fs_avail(vm_cfg.dir) / 2);
	anonb = swapb * 20 / 75;
	objpages[K_SHM] = (uint32_t)(swapb * 30 / 75 / VM_BLK);
	objpages[K_TMPFS] = (uint32_t)(swapb * 25 / 75 / VM_BLK);
	objpages[K_DISK] = (uint32_t)(diskb / VM_BLK);
	anon_n = (uint32_t)VM_MAX(anonb / VM_BLK / nworkers, 16);
	tmpfs_dir = vm_find_tmpfs("/dev/shm");
	if (!tmpfs_dir) {
		ktap_diag("no tmpfs: its share goes to shm");
		objpages[K_SHM] += objpages[K_TMPFS];
		objpages[K_TMPFS] = 0;
	}
	for (k = 0; k < K_N; k++)
		pages_total += objpages[k];

	sh_bytes = sizeof(*sh) + (size_t)pages_total * sizeof(struct pmodel);
	sh = mmap(NULL, sh_bytes, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		ktap_skip_all("cannot map the model");
	/* the model must not be what breaks: keep it in memory if allowed */
	if (mlock(sh, sh_bytes))
		ktap_diag("model of %zu KB not locked: %s", sh_bytes / 1024,
			  strerror(errno));
	sh->lock_budget = (uint32_t)(mem / 4 / VM_BLK);
	me = getpid();
	slot_no = MAX_SLOTS - 1;	/* the parent's own counters */

	/*
	 * Two or more objects of each kind, of 64 MB at most until
	 * MAX_OBJ / K_N of a kind; larger ones past that.
	 */
	for (k = 0; k < K_N; k++) {
		int nobj = (int)VM_MIN(VM_MAX(2, (objpages[k] + 16383) / 16384),
				       MAX_OBJ / K_N);

		if (!objpages[k])
			continue;
		per = objpages[k] / nobj;
		for (i = 0; i < nobj; i++) {
			if (add_obj(k, per, k == K_TMPFS ? tmpfs_dir :
				    vm_cfg.dir, i)) {
				remove_objs();
				ktap_skip_all("cannot create the objects");
			}
		}
	}
	max_view = 0;
	for (i = 0; i < sh->nobj; i++)
		max_view = VM_MAX(max_view, sh->obj[i].max / 2);
	max_view = VM_MAX(VM_MIN(max_view, 8192), 1);

	for (k = 0; k < K_N; k++)
		vm_fig_i(k == K_SHM ? "shm_mb" : k == K_TMPFS ? "tmpfs_mb" :
			 "disk_mb", (long long)objpages[k] * VM_BLK / VM_MB,
			 "MB");
	vm_fig_i("anon_mb", (long long)anon_n * nworkers * VM_BLK / VM_MB,
		 "MB");
	vm_fig_i("objects", sh->nobj, "");
	vm_fig_i("workers", nworkers, "");
	vm_fig_i("seed", seed, "");
	ktap_diag("seed %ld, %ld workers, %ld s, -x %s", seed, nworkers, dur_s,
		  mix_arg ? mix_arg : "(default)");

	vm_vmstat_snap(&s0);
	t0 = vm_now_ms();
	/* the guest's CMOS clock only: no port I/O on a real machine's */
	rtc0 = rtc_last = test_guest() ? vm_cmos_seconds() : -1;
	if (rtc0 >= 0)
		ktap_diag("-t counts by the CMOS clock (the host's time)");
	nworkers_all = (int)nworkers;
	for (w = 0; w < nworkers; w++) {
		pid[w] = vm_fork();
		if (pid[w] < 0) {
			ktap_diag("fork worker %d: %s", w, strerror(errno));
			sh->stop = 1;
			nworkers = w;
			nworkers_all = w;
			break;
		}
		if (pid[w] == 0)
			worker(w);
		alive[w] = 1;
	}
	if (swapoff_s > 0) {
		pid[nworkers] = vm_fork();
		if (pid[nworkers] == 0)
			swapper();
		if (pid[nworkers] > 0)
			nworkers_all = nworkers + 1;
	}
	for (w = nworkers; w < nworkers_all; w++)
		alive[w] = 1;
	nalive = nworkers_all;
	last_prog = last_beat_t = 0;	/* seconds, by elapsed_s() */
	last_beat = 0;
	vm_phase("load");
	while (nalive) {
		vm_sleep_ms(200);
		/*
		 * Every time here by elapsed_s(): 2.6.3's own clock can
		 * jump by 2^32 us and then stand still under TCG.
		 */
		now = elapsed_s(t0, vm_now_ms());
		if (!sh->stop && now >= dur_s) {
			sh->stop = 1;
			vm_phase("workers' final checks");
		}
		if (sh->stop && !t_stop)
			t_stop = now;
		/* a process in D state cannot be killed or reaped: report it */
		if (t_stop && now - t_stop > 120) {
			ktap_diag("%d processes still there 120 s after the "
				  "stop: stuck in the kernel", nalive);
			stuck = nalive;
			break;
		}
		if (sh->beat != last_beat) {
			last_beat = sh->beat;
			last_beat_t = now;
		} else if (!stalled && now - last_beat_t > stall_s) {
			ktap_diag("stall: no operation done for %ld s",
				  stall_s);
			stalled = 1;
			sh->stop = 1;
			for (w = 0; w < nworkers_all; w++)
				if (alive[w])
					kill(pid[w], SIGKILL);
		}
		for (w = 0; w < nworkers_all; w++) {
			if (!alive[w] ||
			    vm_wait_timeout(pid[w], &st, NULL, 0) != 0)
				continue;
			alive[w] = 0;
			nalive--;
			/* workers exit 1 after a mismatch, counted apart */
			if (WIFEXITED(st) && (WEXITSTATUS(st) == 0 ||
			    (WEXITSTATUS(st) == 1 && w < nworkers)))
				continue;
			bad_exit++;
			ktap_diag("%s %d (pid %d) ended early with %s %d%s",
				  w < nworkers ? "worker" : "swapper", w,
				  (int)pid[w],
				  WIFEXITED(st) ? "exit" : "signal",
				  WIFEXITED(st) ? WEXITSTATUS(st) :
				  WTERMSIG(st),
				  WIFEXITED(st) && WEXITSTATUS(st) == 5 ?
				  " (unexpected SIGBUS)" : "");
			if (!sh->stop) {
				sh->stop = 1;
				vm_phase("workers' final checks");
			}
		}
		if (now - last_prog >= prog_s || !nalive) {
			vm_vmstat_snap(&s1);
			totals(&t);
			printf("# soak: t=%.0fs ops=%lld checked_mb=%u "
			       "mismatches=%u children=%u pswpout=%lld "
			       "pswpin=%lld locked_mb=%u swapoffs=%u\n",
			       now, sum_ops(&t),
			       (unsigned)((uint64_t)t.pages_checked * VM_BLK /
					  VM_MB),
			       t.mismatches, t.children,
			       vm_vmstat_delta(&s0, &s1, VMS_PSWPOUT),
			       vm_vmstat_delta(&s0, &s1, VMS_PSWPIN),
			       (unsigned)((uint64_t)sh->locked * VM_BLK /
					  VM_MB), sh->swapoffs);
			last_prog = now;
		}
	}
	vm_vmstat_snap(&s1);
	totals(&t);
	for (i = 0; i < OP_N; i++) {
		char key[32];

		snprintf(key, sizeof(key), "ops_%s", op_name[i]);
		vm_fig_i(key, t.ops[i], "");
		if (t.refused[i]) {
			snprintf(key, sizeof(key), "refused_%s", op_name[i]);
			vm_fig_i(key, t.refused[i], "");
		}
	}
	vm_fig_i("ops", sum_ops(&t), "");
	vm_fig_f("ran_s", (vm_now_ms() - t0) / 1000, "s");
	if (rtc0 >= 0)
		vm_fig_f("ran_cmos_s", elapsed_s(t0, vm_now_ms()), "s");
	vm_fig_i("children", t.children, "");
	vm_fig_i("sigbus_expected", t.sigbus_ok, "");
	vm_fig_i("views_dropped", t.dropped, "");
	vm_fig_i("pswpout", vm_vmstat_delta(&s0, &s1, VMS_PSWPOUT), "pages");
	vm_fig_i("pswpin", vm_vmstat_delta(&s0, &s1, VMS_PSWPIN), "pages");
	vm_fig_i("mismatches", t.mismatches, "");
	if (swapoff_s > 0) {
		vm_fig_i("swapoffs", sh->swapoffs, "");
		vm_fig_i("swapoff_refused", sh->swapoff_fail, "");
		vm_fig_f("swapoff_max_s", sh->swapoff_max_ms / 1000.0, "s");
	}

	ktap_result(t.mismatches == 0 && !stalled, names[0],
		    "%u mismatches in %u pages checked%s", t.mismatches,
		    t.pages_checked, stalled ? ", stalled" : "");
	ktap_result(!bad_exit && !t.child_bad && !stalled && !stuck, names[1],
		    "%d workers and %u of %u children ended abnormally, %d "
		    "stuck", bad_exit, t.child_bad, t.children, stuck);
	if (stuck) {
		/* one may be half way through a page: nothing to compare */
		ktap_fail(names[2], "not done: %d processes stuck", stuck);
		ktap_skip(names[3], "not judged after a stuck run");
		remove_objs();
		/* ktap_exit() would wait for them: forget them instead */
		for (w = 0; w < nworkers_all; w++)
			if (alive[w]) {
				kill(pid[w], SIGKILL);
				vm_forget_child(pid[w]);
			}
		exit(ktap_totals());
	}
	vm_phase("final check");
	vm_sigbus_install(5);
	i = final_check();
	vm_fig_i("final_mismatches", myslot()->mismatches, "");
	vm_fig_i("verified_mb", (long long)(t.pages_checked +
		 myslot()->pages_checked) * VM_BLK / VM_MB, "MB");
	ktap_result(i, names[2], "%u objects, %u pages",
		    (unsigned)sh->nobj, pages_total);
	remove_objs();

	swaptotal = vm_meminfo_kb("SwapTotal");
	memtotal = vm_meminfo_kb("MemTotal");
	if (swaptotal <= 0)
		ktap_skip(names[3], "no swap");
	else if ((long long)vm_cfg.mem_mb * 1024 < memtotal * 9 / 10)
		ktap_skip(names[3], "-m %ld is well below MemTotal: this "
			  "load does not overcommit the machine",
			  vm_cfg.mem_mb);
	else
		ktap_result(vm_vmstat_delta(&s0, &s1, VMS_PSWPOUT) > 0 &&
			    vm_vmstat_delta(&s0, &s1, VMS_PSWPIN) > 0,
			    names[3], "pswpout %lld pswpin %lld",
			    vm_vmstat_delta(&s0, &s1, VMS_PSWPOUT),
			    vm_vmstat_delta(&s0, &s1, VMS_PSWPIN));
	ktap_exit();
}
