// SPDX-License-Identifier: GPL-2.0
/*
 * tools/testing/objrmap/index.c - unit tests of mm/vma_index.c, the
 * interval tree (a treap) of a file's linear vmas, as the series builds
 * it.  KTAP output; each case runs in a child process of its own.
 *
 * The reconstructed mm/vma_index.c is #included below, unmodified, so
 * that the heap order can be checked with its own (static) node_prio();
 * everything else is checked from the outside (lib/index_check.c):
 * parent pointers, in-order sorted by (vm_pgoff, last pgoff), every
 * subtree maximum, the same lists of identical ranges.  After every
 * insert and remove the whole tree is checked, and overlap queries
 * through vma_index_foreach() are compared with a brute-force scan of
 * the vmas that are in: the same vmas, in order of (vm_pgoff, last
 * pgoff), each range's vmas together.
 *
 * OBJRMAP_SEED (default 1) seeds the random cases.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/index_check.h"
#include "lib/ktap.h"

#include "mm/vma_index.c"	/* the series' own source, -I build/objrmap/src */

static struct address_space M;
static struct file FILE_M = { .f_mapping = &M };

struct pool {
	struct vm_area_struct *vma;	/* one array: sequential addresses */
	char *in;			/* vma[i] is in the index */
	unsigned long n;
};

static unsigned long long rng_state;

static unsigned long long rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void seed(unsigned long salt)
{
	const char *env = getenv("OBJRMAP_SEED");
	unsigned long long s = env ? strtoull(env, NULL, 0) : 1;

	ktap_diag("OBJRMAP_SEED=%llu", s);
	rng_state = (s ^ 0x9e3779b97f4a7c15ULL) * (2 * salt + 1);
	if (!rng_state)
		rng_state = 1;
}

static void pool_init(struct pool *p, unsigned long n)
{
	memset(&M, 0, sizeof(M));
	INIT_LIST_HEAD(&M.i_mmap_nonlinear);	/* as inode_init_once() */
	p->vma = calloc(n, sizeof(*p->vma));
	p->in = calloc(n, 1);
	if (!p->vma || !p->in)
		shim_fatal("out of memory for %lu vmas", n);
	p->n = n;
}

/* Give pool vma @i the file range [first, first + npages - 1]. */
static void set_range(struct pool *p, unsigned long i, unsigned long first,
		      unsigned long npages)
{
	struct vm_area_struct *v = &p->vma[i];

	BUG_ON(p->in[i]);
	BUG_ON(npages == 0 || npages > (ULONG_MAX >> PAGE_SHIFT));
	v->vm_file = &FILE_M;
	v->vm_flags = VM_READ | VM_SHARED;
	v->vm_start = 0;
	v->vm_end = npages << PAGE_SHIFT;
	v->vm_pgoff = first;
}

static unsigned long first_of(struct vm_area_struct *v)
{
	return v->vm_pgoff;
}

static unsigned long last_of(struct vm_area_struct *v)
{
	return v->vm_pgoff + ((v->vm_end - v->vm_start) >> PAGE_SHIFT) - 1;
}

/* Heap order with the index's own priorities; returns violations. */
static int heap_check(struct vma_index_node *node)
{
	int bad = 0;

	if (!node)
		return 0;
	if (node->left && node_prio(node->left) > node_prio(node)) {
		ktap_diag("heap order: left child of vma (pgoff %lu) has the higher priority",
			  node_vma(node)->vm_pgoff);
		bad++;
	}
	if (node->right && node_prio(node->right) > node_prio(node)) {
		ktap_diag("heap order: right child of vma (pgoff %lu) has the higher priority",
			  node_vma(node)->vm_pgoff);
		bad++;
	}
	if (bad)
		return bad;
	return heap_check(node->left) + heap_check(node->right);
}

/* The walk's order: by range; within a range, any. */
static int by_range(struct vm_area_struct *x, struct vm_area_struct *y)
{
	if (x->vm_pgoff != y->vm_pgoff)
		return x->vm_pgoff < y->vm_pgoff ? -1 : 1;
	if (last_of(x) != last_of(y))
		return last_of(x) < last_of(y) ? -1 : 1;
	return 0;
}

static int by_key(const void *a, const void *b)
{
	struct vm_area_struct *x = *(struct vm_area_struct **)a;
	struct vm_area_struct *y = *(struct vm_area_struct **)b;
	int r = by_range(x, y);

	if (r)
		return r;
	return x < y ? -1 : x > y;
}

/*
 * vma_index_foreach() over [first, last] yields exactly the vmas of the
 * pool that are in and overlap it, each once, in order of range.
 * Returns 0 if so.
 */
static int query(struct pool *p, unsigned long first, unsigned long last)
{
	struct vm_area_struct **want = malloc((p->n + 1) * sizeof(*want));
	struct vm_area_struct **res = malloc((p->n + 1) * sizeof(*res));
	struct vm_area_struct *v;
	unsigned long i, nwant = 0, got = 0;
	int bad = 0;

	if (!want || !res)
		shim_fatal("out of memory");
	for (i = 0; i < p->n; i++)
		if (p->in[i] && first_of(&p->vma[i]) <= last &&
		    last_of(&p->vma[i]) >= first)
			want[nwant++] = &p->vma[i];
	qsort(want, nwant, sizeof(*want), by_key);
	vma_index_foreach(v, &M.i_mmap_index, first, last) {
		if (v < p->vma || v >= p->vma + p->n) {
			ktap_diag("query [%lu, %lu]: result %lu is not a vma of the pool",
				  first, last, got);
			bad = 1;
			break;
		}
		if (got && by_range(res[got - 1], v) > 0) {
			ktap_diag("query [%lu, %lu]: result %lu, vma %ld [%lu, %lu], comes after vma %ld [%lu, %lu]",
				  first, last, got, (long)(v - p->vma),
				  first_of(v), last_of(v),
				  (long)(res[got - 1] - p->vma),
				  first_of(res[got - 1]), last_of(res[got - 1]));
			bad = 1;
			break;
		}
		res[got] = v;
		if (++got > p->n)
			break;		/* a cycle */
	}
	if (!bad) {
		qsort(res, got, sizeof(*res), by_key);
		for (i = 0; i < got && i < nwant; i++)
			if (res[i] != want[i])
				break;
		if (i < got || got != nwant) {
			ktap_diag("query [%lu, %lu]: %lu vmas, expected %lu; sorted, they differ at %lu: vma %ld against %ld",
				  first, last, got, nwant, i,
				  i < got ? (long)(res[i] - p->vma) : -1L,
				  i < nwant ? (long)(want[i] - p->vma) : -1L);
			bad = 1;
		}
	}
	free(res);
	free(want);
	if (bad)
		ktap_case_failed = 1;
	return bad;
}

/* The whole tree: shape, heap order, count.  Returns 0 if all is well. */
static int check_tree(struct pool *p, const char *after)
{
	unsigned long count, in = 0, i;
	int bad;

	for (i = 0; i < p->n; i++)
		in += p->in[i];
	bad = index_check(&M.i_mmap_index, &count, NULL);
	bad += heap_check(M.i_mmap_index.root);
	if (count != in) {
		ktap_diag("%lu vmas in the index, %lu inserted", count, in);
		bad++;
	}
	if (M.i_mmap_index.root && M.i_mmap_index.root->parent) {
		ktap_diag("the root has a parent");
		bad++;
	}
	if (bad) {
		ktap_diag("... after %s", after);
		ktap_case_failed = 1;
	}
	return bad;
}

static void insert(struct pool *p, unsigned long i)
{
	vma_index_insert(&M.i_mmap_index, &p->vma[i]);
	p->in[i] = 1;
}

static void remove_vma(struct pool *p, unsigned long i)
{
	vma_index_remove(&M.i_mmap_index, &p->vma[i]);
	p->in[i] = 0;
}

/* Queries around every boundary of vma @i, and a few wide ones. */
static int probe(struct pool *p, unsigned long i)
{
	struct vm_area_struct *v = &p->vma[i];
	unsigned long f = first_of(v), l = last_of(v);

	return query(p, f, f) || query(p, l, l) ||
	       (f > 0 && query(p, f - 1, f - 1)) ||
	       (l < ULONG_MAX && query(p, l + 1, l + 1)) ||
	       (f > 0 && query(p, f - 1, f)) ||
	       (l < ULONG_MAX && query(p, l, l + 1)) ||
	       query(p, 0, ULONG_MAX) || query(p, 0, 0) ||
	       query(p, ULONG_MAX, ULONG_MAX);
}

/* A random range: mostly small and overlapping, sometimes extreme. */
static void random_range(struct pool *p, unsigned long i)
{
	unsigned long first, npages;

	switch (rnd() % 16) {
	case 0:		/* huge, from 0 */
		first = 0;
		npages = 1 + rnd() % (ULONG_MAX >> PAGE_SHIFT);
		break;
	case 1:		/* ending at ULONG_MAX */
		npages = 1 + rnd() % 64;
		first = ULONG_MAX - npages + 1;
		break;
	case 2:		/* at 0 */
		first = 0;
		npages = 1 + rnd() % 8;
		break;
	case 3:		/* anywhere */
		first = rnd();
		npages = 1 + rnd() % 4096;
		if (first > ULONG_MAX - npages + 1)
			first = ULONG_MAX - npages + 1;
		break;
	default:	/* a small file: lots of overlaps and ties */
		first = rnd() % 256;
		npages = rnd() % 4 ? 1 + rnd() % 16 : 1;
		break;
	}
	set_range(p, i, first, npages);
}

/* ---- the cases ---- */

/*
 * Random inserts and removes of 1500 vmas, 20000 operations; the tree
 * checked after each one, and queries around the vma just moved plus a
 * random one compared with the brute-force scan.
 */
static void test_random_ops(void)
{
	const unsigned long n = 1500, ops = 20000;
	struct pool p;
	unsigned long op, i;
	char what[64];

	seed(1);
	pool_init(&p, n);
	for (op = 0; op < ops; op++) {
		unsigned long a, b;

		i = rnd() % n;
		if (p.in[i]) {
			remove_vma(&p, i);
			snprintf(what, sizeof(what), "op %lu: remove vma %lu", op, i);
		} else {
			random_range(&p, i);
			insert(&p, i);
			snprintf(what, sizeof(what), "op %lu: insert vma %lu", op, i);
		}
		if (check_tree(&p, what) || probe(&p, i))
			break;
		a = rnd() % 300;
		b = a + rnd() % 32;
		if (query(&p, a, b) || query(&p, rnd(), ULONG_MAX))
			break;
	}
	if (ktap_case_failed)
		return;
	for (i = 0; i < n; i++)
		if (p.in[i]) {
			remove_vma(&p, i);
			if (check_tree(&p, "emptying"))
				return;
		}
	CHECK(!M.i_mmap_index.root);
}

/*
 * Thousands of vmas with the same range, inserted as mmap does: one node,
 * the rest on its same list.  Touching neighbours either side must not
 * be returned.
 */
static void test_identical_ranges(void)
{
	const unsigned long n = 4000;
	struct pool p;
	unsigned long i, k, *order;

	seed(2);
	pool_init(&p, n + 2);
	set_range(&p, n, 90, 10);	/* [90, 99]: ends just before */
	set_range(&p, n + 1, 110, 5);	/* [110, 114]: starts just after */
	insert(&p, n);
	insert(&p, n + 1);
	for (i = 0; i < n; i++) {
		set_range(&p, i, 100, 10);	/* [100, 109] */
		insert(&p, i);
		if (i % 97 == 0 && (check_tree(&p, "an identical insert") ||
				    query(&p, 100, 100)))
			return;
	}
	if (check_tree(&p, "4000 identical inserts") || probe(&p, 0) ||
	    query(&p, 99, 99) || query(&p, 109, 110) || query(&p, 105, 105))
		return;
	/* out in a random order, checked all along */
	order = malloc(n * sizeof(*order));
	for (i = 0; i < n; i++)
		order[i] = i;
	for (i = n - 1; i > 0; i--) {
		unsigned long j = rnd() % (i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (k = 0; k < n; k++) {
		remove_vma(&p, order[k]);
		if (k % 97 == 0 && (check_tree(&p, "an identical remove") ||
				    query(&p, 100, 109)))
			break;
	}
	free(order);
	check_tree(&p, "removing the identical ones");
	query(&p, 0, ULONG_MAX);
	query(&p, 100, 109);
}

/*
 * Ranges that touch: [10k, 10k + 9] side by side, so last + 1 is the
 * next one's first; and ranges that end together, [k, 99] for every k.
 * A query of one page gets exactly the ranges holding it.
 */
static void test_touching_ranges(void)
{
	const unsigned long n = 200;
	struct pool p;
	unsigned long i, q;

	pool_init(&p, 2 * n);
	for (i = 0; i < n; i++) {
		set_range(&p, i, 10 * i, 10);		/* side by side */
		insert(&p, i);
	}
	for (i = 0; i < n; i++) {
		set_range(&p, n + i, i % 100, 100 - i % 100);	/* end at 99 */
		insert(&p, n + i);
	}
	if (check_tree(&p, "the touching inserts"))
		return;
	for (q = 0; q < 10 * n + 2; q++)
		if (query(&p, q, q))
			return;
	for (i = 0; i < n; i++)
		if (query(&p, 10 * i + 9, 10 * i + 10) || probe(&p, i))
			return;
	query(&p, 99, 99);
	query(&p, 100, 100);
	/* take every other one out: the gaps must answer empty */
	for (i = 0; i < n; i += 2) {
		remove_vma(&p, i);
		if (check_tree(&p, "a touching remove") ||
		    query(&p, 10 * i, 10 * i + 9) ||
		    query(&p, 10 * i + 9, 10 * i + 10))
			return;
	}
}

/* Single pages and the extremes of the offset space. */
static void test_extremes(void)
{
	struct pool p;
	const unsigned long huge = ULONG_MAX >> PAGE_SHIFT;	/* pages */
	unsigned long i;
	static const unsigned long q[][2] = {
		{ 0, 0 }, { 1, 1 }, { 0, ULONG_MAX }, { ULONG_MAX, ULONG_MAX },
		{ ULONG_MAX - 1, ULONG_MAX - 1 }, { ULONG_MAX - 9, ULONG_MAX },
		{ ULONG_MAX - 10, ULONG_MAX - 10 }, { 1UL << 40, 1UL << 40 },
		{ ULONG_MAX >> PAGE_SHIFT, ULONG_MAX >> PAGE_SHIFT },
		{ (ULONG_MAX >> PAGE_SHIFT) - 1, (ULONG_MAX >> PAGE_SHIFT) - 1 },
		{ (ULONG_MAX >> PAGE_SHIFT) + 1, ULONG_MAX - 11 },
	};

	pool_init(&p, 8);
	set_range(&p, 0, 0, 1);				/* [0, 0] */
	set_range(&p, 1, ULONG_MAX, 1);			/* [max, max] */
	set_range(&p, 2, ULONG_MAX - 9, 10);		/* [max - 9, max] */
	set_range(&p, 3, 0, huge);			/* [0, huge - 1] */
	set_range(&p, 4, 1, huge);			/* [1, huge] */
	set_range(&p, 5, ULONG_MAX - huge + 1, huge);	/* ... to max */
	set_range(&p, 6, 1UL << 40, 1);
	set_range(&p, 7, ULONG_MAX - 1, 1);		/* [max - 1, max - 1] */
	for (i = 0; i < 8; i++) {
		insert(&p, i);
		if (check_tree(&p, "an extreme insert"))
			return;
	}
	for (i = 0; i < sizeof(q) / sizeof(q[0]); i++)
		if (query(&p, q[i][0], q[i][1]))
			return;
	for (i = 0; i < 8; i++)
		if (probe(&p, i))
			return;
	for (i = 0; i < 8; i++) {
		unsigned long j;

		remove_vma(&p, (i * 3) % 8);
		if (check_tree(&p, "an extreme remove"))
			return;
		for (j = 0; j < sizeof(q) / sizeof(q[0]); j++)
			if (query(&p, q[j][0], q[j][1]))
				return;
	}
	CHECK(!M.i_mmap_index.root);
}

/*
 * M.i_mmap_nonlinear holds exactly the pool's nonlinear vmas that are
 * linked (@linked[i]), none of them in the index, its links consistent
 * both ways.  Returns 0 if so.
 */
static int check_nonlinear(struct pool *p, const char *linked,
			   const char *after)
{
	struct list_head *head = &M.i_mmap_nonlinear, *pos;
	unsigned long want = 0, n = 0, i;
	char *seen = calloc(p->n, 1);
	int bad = 0;

	if (!seen)
		shim_fatal("out of memory");
	for (i = 0; i < p->n; i++)
		if (linked[i] && (p->vma[i].vm_flags & VM_NONLINEAR))
			want++;
	for (pos = head->next; pos != head; pos = pos->next) {
		struct vm_area_struct *v = container_of(pos,
				struct vm_area_struct, vm_index.nonlinear);
		long k = v - p->vma;

		if (pos->next->prev != pos || pos->prev->next != pos) {
			ktap_diag("i_mmap_nonlinear: entry %lu's links are inconsistent",
				  n);
			bad++;
			break;
		}
		if (++n > p->n) {
			ktap_diag("i_mmap_nonlinear: more entries than vmas, a cycle");
			bad++;
			break;
		}
		if (k < 0 || k >= (long)p->n) {
			ktap_diag("i_mmap_nonlinear: entry %lu is not a vma of the pool",
				  n);
			bad++;
			break;
		}
		if (!(v->vm_flags & VM_NONLINEAR) || !linked[k] || p->in[k] ||
		    seen[k]) {
			ktap_diag("i_mmap_nonlinear: vma %ld:%s%s%s%s", k,
				  v->vm_flags & VM_NONLINEAR ? "" : " not VM_NONLINEAR",
				  linked[k] ? "" : " not linked",
				  p->in[k] ? " in the index" : "",
				  seen[k] ? " twice" : "");
			bad++;
		}
		seen[k] = 1;
	}
	if (!bad && n != want) {
		ktap_diag("i_mmap_nonlinear holds %lu vmas, %lu nonlinear ones are linked",
			  n, want);
		bad++;
	}
	free(seen);
	if (bad) {
		ktap_diag("... after %s", after);
		ktap_case_failed = 1;
	}
	return bad;
}

/*
 * __vma_index_link()/__vma_index_unlink(): linear vmas go in the index,
 * nonlinear ones on i_mmap_nonlinear (at the tail, in link order);
 * vma_index_begin_change()/end_change() move a vma whose range changes,
 * holding i_shared_sem meanwhile.
 */
static void test_link_and_change(void)
{
	struct pool p;
	struct address_space *mapping;
	struct vm_area_struct *v;
	char linked[64];
	unsigned long i, n;

	pool_init(&p, 64);
	memset(linked, 0, sizeof(linked));
	init_MUTEX(&M.i_shared_sem);
	for (i = 0; i < 64; i++) {
		set_range(&p, i, 4 * i, 8);
		if (i % 4 == 3)
			p.vma[i].vm_flags |= VM_NONLINEAR;
		down(&M.i_shared_sem);
		__vma_index_link(&p.vma[i], &M);
		up(&M.i_shared_sem);
		p.in[i] = !(p.vma[i].vm_flags & VM_NONLINEAR);
		linked[i] = 1;
	}
	if (check_tree(&p, "linking") || check_nonlinear(&p, linked, "linking") ||
	    query(&p, 0, ULONG_MAX) || query(&p, 15, 15))
		return;
	n = 0;				/* in link order */
	list_for_each_entry(v, &M.i_mmap_nonlinear, vm_index.nonlinear) {
		CHECK(v == &p.vma[4 * n + 3]);
		n++;
	}
	CHECK_EQ(n, 16);
	for (i = 0; i < 64; i += 5) {	/* grow, shrink, move */
		mapping = vma_index_begin_change(&p.vma[i]);
		CHECK(mapping == &M);
		CHECK(shim_sema_held(&M.i_shared_sem));
		p.in[i] = 0;
		linked[i] = 0;		/* off the list too, if nonlinear */
		if (check_tree(&p, "begin_change") ||
		    check_nonlinear(&p, linked, "begin_change"))
			return;
		p.vma[i].vm_end += (i % 3) * PAGE_SIZE;
		p.vma[i].vm_pgoff = (p.vma[i].vm_pgoff * 7) % 251;
		vma_index_end_change(&p.vma[i], mapping);
		CHECK(!shim_sema_held(&M.i_shared_sem));
		p.in[i] = !(p.vma[i].vm_flags & VM_NONLINEAR);
		linked[i] = 1;
		if (check_tree(&p, "end_change") ||
		    check_nonlinear(&p, linked, "end_change") || probe(&p, i))
			return;
	}
	p.vma[0].vm_file = NULL;	/* no file: nothing to do, no lock */
	CHECK(vma_index_begin_change(&p.vma[0]) == NULL);
	CHECK(!shim_sema_held(&M.i_shared_sem));
	vma_index_end_change(&p.vma[0], NULL);
	p.vma[0].vm_file = &FILE_M;
	for (i = 0; i < 64; i++) {
		down(&M.i_shared_sem);
		__vma_index_unlink(&p.vma[i], &M);
		up(&M.i_shared_sem);
		p.in[i] = 0;
		linked[i] = 0;
		if (i % 8 == 0 && (check_tree(&p, "unlinking") ||
				   check_nonlinear(&p, linked, "unlinking")))
			return;
	}
	CHECK(list_empty(&M.i_mmap_nonlinear));
	CHECK(!M.i_mmap_index.root);
}

/*
 * The treap's depth with vmas as the slab hands them out (one array,
 * sequential addresses) in pgoff order, both ways, and all identical:
 * reported as figures, and bounded so that a degenerate tree (say,
 * priorities that follow the addresses) fails.
 */
static int depth_of(struct pool *p, const char *how)
{
	int depth;

	if (check_tree(p, how))
		return -1;
	index_check(&M.i_mmap_index, NULL, &depth);
	return depth;
}

static void test_depth(void)
{
	const unsigned long n = 10000;
	const int log2n = 63 - __builtin_clzl(n);	/* floor */
	const int bound = 4 * log2n + 8;
	struct pool p;
	unsigned long i;
	int inc, dec, same, after;

	pool_init(&p, n);
	for (i = 0; i < n; i++) {
		set_range(&p, i, 3 * i, 4);
		insert(&p, i);
	}
	inc = depth_of(&p, "increasing inserts");
	for (i = 0; i < n; i += 2)
		remove_vma(&p, i);
	after = depth_of(&p, "removing every other one");
	for (i = 1; i < n; i += 2)
		remove_vma(&p, i);
	for (i = 0; i < n; i++) {
		set_range(&p, i, 3 * (n - 1 - i), 4);
		insert(&p, i);
	}
	dec = depth_of(&p, "decreasing inserts");
	query(&p, 0, ULONG_MAX);
	for (i = 0; i < n; i++)
		remove_vma(&p, i);
	for (i = 0; i < n; i++) {
		set_range(&p, i, 42, 16);
		insert(&p, i);
	}
	same = depth_of(&p, "identical inserts");
	query(&p, 42, 42);

	ktap_diag("fig: index.depth_increasing %d levels", inc);
	ktap_diag("fig: index.depth_decreasing %d levels", dec);
	ktap_diag("fig: index.depth_identical %d levels", same);
	ktap_diag("fig: index.depth_half_removed %d levels", after);
	ktap_diag("fig: index.depth_bound %d levels", bound);
	ktap_diag("%lu vmas of %zu bytes each at sequential addresses; bound 4 * floor(log2(n)) + 8",
		  n, sizeof(struct vm_area_struct));
	CHECK(inc > 0 && inc <= bound);
	CHECK(dec > 0 && dec <= bound);
	CHECK(same > 0 && same <= bound);
	CHECK(after > 0 && after <= bound);
}

/* Tree nodes, not counting the vmas on their same lists. */
static unsigned long tree_nodes(struct vma_index_node *node)
{
	if (!node)
		return 0;
	return 1 + tree_nodes(node->left) + tree_nodes(node->right);
}

/*
 * fork: vma_index_insert_beside() puts a copy on the list of the range
 * it copies, right after the original in the walk, without a tree node.
 * Four generations of copies of 300 random ranges, then random removes
 * (parents and children, nodes whose list takes their place, listed
 * vmas), the tree checked and probed after each one.
 */
static void test_fork_beside(void)
{
	const unsigned long n0 = 300, n = 16 * n0;
	struct pool p;
	unsigned long i, k, used = n0, ranges;
	int gen;

	seed(3);
	pool_init(&p, n);
	for (i = 0; i < n0; i++) {
		random_range(&p, i);
		insert(&p, i);
	}
	if (check_tree(&p, "the first generation"))
		return;
	ranges = tree_nodes(M.i_mmap_index.root);
	for (gen = 1; gen < 5; gen++) {
		unsigned long parents = used;

		for (i = 0; i < parents; i++) {
			struct vm_area_struct *v, *after = NULL;
			unsigned long j = used++;

			if (!p.in[i])
				continue;
			set_range(&p, j, first_of(&p.vma[i]),
				  last_of(&p.vma[i]) - first_of(&p.vma[i]) + 1);
			vma_index_insert_beside(&p.vma[j], &p.vma[i]);
			p.in[j] = 1;
			if (node_in_tree(&p.vma[j].vm_index.node)) {
				ktap_diag("generation %d: vma %lu, beside %lu, is a tree node",
					  gen, j, i);
				ktap_case_failed = 1;
				return;
			}
			vma_index_foreach(v, &M.i_mmap_index,
					  first_of(&p.vma[i]),
					  first_of(&p.vma[i])) {
				if (after == &p.vma[i]) {
					after = v;
					break;
				}
				after = v;
			}
			if (after != &p.vma[j]) {
				ktap_diag("generation %d: vma %lu does not follow vma %lu in the walk",
					  gen, j, i);
				ktap_case_failed = 1;
				return;
			}
		}
		if (check_tree(&p, "a generation of copies") ||
		    query(&p, 0, ULONG_MAX) || query(&p, 0, 300))
			return;
		CHECK_EQ(tree_nodes(M.i_mmap_index.root), ranges);
		if (used > n / 2)
			break;
	}
	for (k = 0; k < 4 * used; k++) {
		i = rnd() % used;
		if (!p.in[i])
			continue;
		remove_vma(&p, i);
		if (check_tree(&p, "a remove after fork") || probe(&p, i))
			return;
	}
	for (i = 0; i < used; i++)
		if (p.in[i]) {
			remove_vma(&p, i);
			if (check_tree(&p, "emptying after fork"))
				return;
		}
	CHECK(!M.i_mmap_index.root);
}

/* ---- fork_churn: the kernel's entry points, interleaved ---- */

/* A pool vma with @want for linked, or ULONG_MAX if none turns up. */
static unsigned long churn_pick(struct pool *p, const char *linked, int want,
				int linear)
{
	int t;

	for (t = 0; t < 256; t++) {
		unsigned long i = rnd() % p->n;

		if (!!linked[i] != want)
			continue;
		if (linear && want &&
		    (p->vma[i].vm_flags & VM_NONLINEAR))
			continue;
		return i;
	}
	return ULONG_MAX;
}

/* Pages of pool vma @i. */
static unsigned long churn_pages(struct pool *p, unsigned long i)
{
	return (p->vma[i].vm_end - p->vma[i].vm_start) >> PAGE_SHIFT;
}

/*
 * A range for vma @i: mostly one of a few dozen small ones, so that
 * most ranges have a node with a list; sometimes any.
 */
static void churn_range(struct pool *p, unsigned long i)
{
	if (rnd() % 8)
		set_range(p, i, rnd() % 40, 1 + rnd() % 4);
	else
		random_range(p, i);
}

/* Give the unlinked vma @i a new range, keeping it below ULONG_MAX. */
static void churn_reshape(struct pool *p, unsigned long i,
			  struct vm_area_struct *like)
{
	struct vm_area_struct *v = &p->vma[i];
	unsigned long n = churn_pages(p, i), k = 1 + rnd() % 3;

	switch (rnd() % 5) {
	case 0:		/* mremap grows it in place */
		if (last_of(v) + k > last_of(v))
			v->vm_end += k << PAGE_SHIFT;
		break;
	case 1:		/* mremap or munmap shrinks it */
		if (n > k)
			v->vm_end -= k << PAGE_SHIFT;
		break;
	case 2:		/* expand_stack, or vma_merge in front of it */
		if (v->vm_pgoff >= k) {
			v->vm_pgoff -= k;
			v->vm_end += k << PAGE_SHIFT;
		}
		break;
	case 3:		/* onto another vma's range, a node or listed */
		if (like) {
			v->vm_pgoff = like->vm_pgoff;
			v->vm_end = v->vm_start +
				    (like->vm_end - like->vm_start);
		}
		break;
	default:	/* split_vma() keeping the upper part */
		if (n > k) {
			v->vm_pgoff += k;
			v->vm_end -= k << PAGE_SHIFT;
		}
		break;
	}
}

/*
 * Everything the kernel does to a file's index, interleaved at random
 * through its entry points and in its order: mmap (__vma_index_link),
 * fork (__vma_index_link_beside, of linear and nonlinear vmas, from a
 * node or from a listed vma), munmap and exit (__vma_index_unlink),
 * mremap in place, expand_stack and a split's old vma
 * (vma_index_begin_change, the range changed, vma_index_end_change),
 * split_vma (the whole vma copied first, stale links and all, as
 * "*new = *vma" does, then linked while the old one is out), vma_merge
 * (prev out, next unlinked, prev back with next's pages), mremap's move
 * (a copy linked, the old one unlinked) and remap_file_pages (out of
 * the index, VM_NONLINEAR, onto i_mmap_nonlinear).  Ranges come mostly
 * from a few dozen, so the changes keep hitting nodes whose list must
 * take their place, listed vmas, and vmas that land on another node's
 * range.  Tree, heap order, lists, i_mmap_nonlinear and queries around
 * the vmas touched are checked after every step.
 */
static void test_fork_churn(void)
{
	const unsigned long n = 1200, ops = 12000;
	struct address_space *m;
	struct pool p;
	char *linked;
	unsigned long op, i, j, k, count[9] = { 0 };
	char what[96];

	seed(4);
	pool_init(&p, n);
	init_MUTEX(&M.i_shared_sem);
	linked = calloc(n, 1);
	if (!linked)
		shim_fatal("out of memory");
	for (op = 0; op < ops && !ktap_case_failed; op++) {
		unsigned int kind = rnd() % 9;

		i = j = ULONG_MAX;
		switch (kind) {
		case 0:		/* mmap */
			i = churn_pick(&p, linked, 0, 0);
			if (i == ULONG_MAX)
				break;
			k = churn_pick(&p, linked, 1, 0);
			if (k != ULONG_MAX && rnd() % 3 == 0)
				set_range(&p, i, first_of(&p.vma[k]),
					  churn_pages(&p, k));
			else
				churn_range(&p, i);
			down(&M.i_shared_sem);
			__vma_index_link(&p.vma[i], &M);
			up(&M.i_shared_sem);
			break;
		case 1:		/* fork: beside the parent's vma */
		case 2:
			k = churn_pick(&p, linked, 1, 0);
			i = churn_pick(&p, linked, 0, 0);
			if (k == ULONG_MAX || i == ULONG_MAX) {
				i = ULONG_MAX;
				break;
			}
			p.vma[i] = p.vma[k];		/* *tmp = *mpnt */
			down(&M.i_shared_sem);
			__vma_index_link_beside(&p.vma[i], &p.vma[k], &M);
			up(&M.i_shared_sem);
			j = k;
			break;
		case 3:		/* munmap, exit */
			i = churn_pick(&p, linked, 1, 0);
			if (i == ULONG_MAX)
				break;
			down(&M.i_shared_sem);
			__vma_index_unlink(&p.vma[i], &M);
			up(&M.i_shared_sem);
			p.in[i] = linked[i] = 0;
			count[kind]++;
			snprintf(what, sizeof(what), "op %lu: unlink vma %lu",
				 op, i);
			check_tree(&p, what);
			check_nonlinear(&p, linked, what);
			i = ULONG_MAX;
			break;
		case 4:		/* mremap in place, expand_stack */
			i = churn_pick(&p, linked, 1, 0);
			if (i == ULONG_MAX)
				break;
			k = churn_pick(&p, linked, 1, 0);
			m = vma_index_begin_change(&p.vma[i]);
			p.in[i] = linked[i] = 0;
			snprintf(what, sizeof(what),
				 "op %lu: begin_change vma %lu", op, i);
			if (check_tree(&p, what) ||
			    check_nonlinear(&p, linked, what))
				break;
			churn_reshape(&p, i, k == ULONG_MAX ? NULL : &p.vma[k]);
			vma_index_end_change(&p.vma[i], m);
			break;
		case 5:		/* split_vma */
			i = churn_pick(&p, linked, 1, 0);
			j = churn_pick(&p, linked, 0, 0);
			if (i == ULONG_MAX || j == ULONG_MAX ||
			    churn_pages(&p, i) < 2) {
				i = j = ULONG_MAX;
				break;
			}
			p.vma[j] = p.vma[i];		/* *new = *vma */
			m = vma_index_begin_change(&p.vma[i]);
			p.in[i] = linked[i] = 0;
			k = 1 + rnd() % (churn_pages(&p, i) - 1);
			if (rnd() % 2) {		/* new_below */
				p.vma[j].vm_end = k << PAGE_SHIFT;
				p.vma[i].vm_pgoff += k;
				p.vma[i].vm_end -= k << PAGE_SHIFT;
			} else {
				p.vma[j].vm_pgoff += k;
				p.vma[j].vm_end -= k << PAGE_SHIFT;
				p.vma[i].vm_end = k << PAGE_SHIFT;
			}
			__vma_index_link(&p.vma[j], m);	/* __insert_vm_struct */
			p.in[j] = !(p.vma[j].vm_flags & VM_NONLINEAR);
			linked[j] = 1;
			vma_index_end_change(&p.vma[i], m);
			break;
		case 6:		/* vma_merge: prev grows over next */
			i = churn_pick(&p, linked, 1, 1);
			j = churn_pick(&p, linked, 1, 1);
			if (i == ULONG_MAX || j == ULONG_MAX || i == j) {
				i = j = ULONG_MAX;
				break;
			}
			m = vma_index_begin_change(&p.vma[i]);
			p.in[i] = linked[i] = 0;
			if (last_of(&p.vma[i]) + churn_pages(&p, j) >
			    last_of(&p.vma[i]))
				p.vma[i].vm_end += p.vma[j].vm_end -
						   p.vma[j].vm_start;
			__vma_index_unlink(&p.vma[j], m);
			p.in[j] = linked[j] = 0;
			vma_index_end_change(&p.vma[i], m);
			k = j;
			j = ULONG_MAX;
			snprintf(what, sizeof(what),
				 "op %lu: vma %lu merged over vma %lu",
				 op, i, k);
			break;
		case 7:		/* mremap moves it: copy in, old out */
			i = churn_pick(&p, linked, 1, 0);
			j = churn_pick(&p, linked, 0, 0);
			if (i == ULONG_MAX || j == ULONG_MAX) {
				i = j = ULONG_MAX;
				break;
			}
			p.vma[j] = p.vma[i];		/* init_moved_vma() */
			k = rnd() % churn_pages(&p, i);
			p.vma[j].vm_pgoff += k;
			p.vma[j].vm_end = (churn_pages(&p, i) - k +
					   rnd() % 3) << PAGE_SHIFT;
			if (!p.vma[j].vm_end ||
			    last_of(&p.vma[j]) < first_of(&p.vma[j]))
				p.vma[j].vm_end = PAGE_SIZE;
			down(&M.i_shared_sem);
			__vma_index_link(&p.vma[j], &M);
			up(&M.i_shared_sem);
			p.in[j] = !(p.vma[j].vm_flags & VM_NONLINEAR);
			linked[j] = 1;
			down(&M.i_shared_sem);
			__vma_index_unlink(&p.vma[i], &M);
			up(&M.i_shared_sem);
			p.in[i] = linked[i] = 0;
			k = i;
			i = j;
			j = ULONG_MAX;
			break;
		default:	/* remap_file_pages makes it nonlinear */
			i = churn_pick(&p, linked, 1, 1);
			if (i == ULONG_MAX)
				break;
			down(&M.i_shared_sem);
			__vma_index_unlink(&p.vma[i], &M);
			p.vma[i].vm_flags |= VM_NONLINEAR;
			__vma_index_link(&p.vma[i], &M);
			up(&M.i_shared_sem);
			break;
		}
		if (ktap_case_failed)
			break;
		if (i == ULONG_MAX)
			continue;
		count[kind]++;
		p.in[i] = !(p.vma[i].vm_flags & VM_NONLINEAR);
		linked[i] = 1;
		if (kind != 6)
			snprintf(what, sizeof(what), "op %lu: kind %u, vma %lu",
				 op, kind, i);
		if (check_tree(&p, what) || check_nonlinear(&p, linked, what) ||
		    probe(&p, i) || (j != ULONG_MAX && probe(&p, j)))
			break;
		if (kind == 1 && p.in[i]) {
			struct vm_area_struct *v, *prev = NULL;

			/* the copy comes right after its parent's vma */
			vma_index_foreach(v, &M.i_mmap_index,
					  first_of(&p.vma[j]),
					  first_of(&p.vma[j])) {
				if (prev == &p.vma[j])
					break;
				prev = v;
			}
			if (v != &p.vma[i] || prev != &p.vma[j]) {
				ktap_diag("%s: the copy does not follow vma %lu",
					  what, j);
				ktap_case_failed = 1;
				break;
			}
		}
	}
	ktap_diag("steps: mmap %lu, fork %lu, munmap %lu, change %lu",
		  count[0], count[1] + count[2], count[3], count[4]);
	ktap_diag("steps: split %lu, merge %lu, move %lu, nonlinear %lu",
		  count[5], count[6], count[7], count[8]);
	for (i = 0; i < n && !ktap_case_failed; i++)
		if (linked[i]) {
			down(&M.i_shared_sem);
			__vma_index_unlink(&p.vma[i], &M);
			up(&M.i_shared_sem);
			p.in[i] = linked[i] = 0;
			if (i % 16 == 0 &&
			    (check_tree(&p, "emptying after the churn") ||
			     check_nonlinear(&p, linked, "emptying")))
				break;
		}
	if (!ktap_case_failed) {
		CHECK(!M.i_mmap_index.root);
		CHECK(list_empty(&M.i_mmap_nonlinear));
	}
	free(linked);
}

#define CASE(fn) { &#fn[5], fn }	/* without "test_" */

static const struct ktap_case cases[] = {
	CASE(test_random_ops),
	CASE(test_identical_ranges),
	CASE(test_fork_beside),
	CASE(test_fork_churn),
	CASE(test_touching_ranges),
	CASE(test_extremes),
	CASE(test_link_and_change),
	CASE(test_depth),
};

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	return ktap_run(cases, sizeof(cases) / sizeof(cases[0]), 120);
}
