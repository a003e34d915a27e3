// SPDX-License-Identifier: GPL-2.0
/*
 * tools/testing/objrmap/unit.c - unit tests of mm/objrmap.c as the series
 * builds it (reconstructed from patches/ at build time, compiled against
 * the shims in shim/include).  KTAP output; each case runs in a child
 * process of its own.
 *
 * Every call into the objrmap code goes through reclaim_unmap() or
 * reclaim_referenced(), which hold what the kernel's callers hold
 * (shrink_list: a reference, the page lock and pte_chain_lock;
 * refill_inactive_zone: a reference and pte_chain_lock) and check after
 * the call that no lock and no pte kmap was left behind.  Most cases end
 * with world_check(): mapcount, ptes, rss and nr_mapped agree.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/ktap.h"
#include "lib/world.h"

#define NMM	6
#define NVMA	16

static struct world_file F, G;		/* two files */
static struct mm_struct *mm[NMM];
static struct vm_area_struct vma[NVMA];

/* Every vma of a case starts in a 4 MB slot of its own (its own table). */
#define SLOT(n)	(0x10000000UL + (unsigned long)(n) * PGDIR_SIZE)

#define YOUNG	_PAGE_ACCESSED
#define DIRTY	(_PAGE_DIRTY | _PAGE_RW)

static int slow_reclaim;	/* see slow_reclaim_on() */

static void setup(void)
{
	int i;

	world_init(4096);
	shim_jiffies = HZ;
	slow_reclaim = 0;
	world_file_init(&F);
	world_file_init(&G);
	for (i = 0; i < NMM; i++)
		mm[i] = world_mm_new();
}

/*
 * A second passes before every try_to_unmap(): longer than the nonlinear
 * sweep's lap gap, so the tests of its mechanics see a lap per call of a
 * small vma (test_nonlinear_lap_gap tests the gap).
 */
static void slow_reclaim_on(void)
{
	slow_reclaim = 1;
}

/* A vma of F in @m, linked on i_mmap or i_mmap_shared by @flags. */
static struct vm_area_struct *mkvma(int i, struct mm_struct *m,
				    unsigned long start, unsigned long npages,
				    unsigned long pgoff, unsigned long flags)
{
	world_vma_init(&vma[i], m, &F, start, npages, pgoff, flags);
	world_vma_link(&vma[i]);
	return &vma[i];
}

/* Where @index sits in a linear @v. */
static unsigned long addr_of(struct vm_area_struct *v, unsigned long index)
{
	return v->vm_start + (index - v->vm_pgoff) * PAGE_SIZE;
}

static int maps(struct mm_struct *m, unsigned long address, struct page *page)
{
	pte_t pte = world_read_pte(m, address);

	return pte_present(pte) && pte_pfn(pte) == page_to_pfn(page);
}

static int young(struct mm_struct *m, unsigned long address)
{
	return pte_young(world_read_pte(m, address));
}

/* The caller of the objrmap code must not come back holding anything. */
static void check_quiescent(struct page *page)
{
	int i;

	CHECK_EQ(shim_kmap_depth, 0);
	CHECK(!shim_pte_chain_held(page));
	CHECK(!shim_sema_held(&F.mapping.i_shared_sem));
	CHECK(!shim_sema_held(&G.mapping.i_shared_sem));
	for (i = 0; i < NMM; i++)
		CHECK(!shim_spin_held(&mm[i]->page_table_lock));
}

/* shrink_list(): reference, page lock, pte_chain_lock, try_to_unmap(). */
static int reclaim_unmap(struct page *page)
{
	int ret;

	if (slow_reclaim)
		shim_tick(HZ);
	get_page(page);
	CHECK(!TestSetPageLocked(page));
	pte_chain_lock(page);
	ret = try_to_unmap_obj(page);
	pte_chain_unlock(page);
	unlock_page(page);
	put_page(page);
	check_quiescent(page);
	return ret;
}

/* refill_inactive_zone(): reference, pte_chain_lock, page_referenced(). */
static int reclaim_referenced(struct page *page)
{
	int ret;

	get_page(page);
	pte_chain_lock(page);
	ret = page_referenced_obj(page);
	pte_chain_unlock(page);
	put_page(page);
	check_quiescent(page);
	return ret;
}

static void check_world(void)
{
	CHECK_EQ(world_check(mm, NMM), 0);
	CHECK_EQ(world_file_check(&F), 0);
	CHECK_EQ(world_file_check(&G), 0);
}

static const char *swap_name(int ret)
{
	switch (ret) {
	case SWAP_SUCCESS: return "SWAP_SUCCESS";
	case SWAP_AGAIN: return "SWAP_AGAIN";
	case SWAP_FAIL: return "SWAP_FAIL";
	}
	return "?";
}

#define CHECK_SWAP(call, expected)					\
	do {								\
		int __r = (call);					\
		if (__r != (expected)) {				\
			ktap_diag("%s:%d: %s returned %s, expected %s",	\
				  __FILE__, __LINE__, #call,		\
				  swap_name(__r), swap_name(expected));	\
			ktap_case_failed = 1;				\
		}							\
	} while (0)

/*
 * Another thread holding a lock for as long as a case needs it busy:
 * that is what the trylocks in the objrmap code must cope with.
 */
enum hold_kind { HOLD_SEM, HOLD_SPIN, HOLD_CHAIN };

struct holder {
	enum hold_kind kind;
	void *lock;
	pthread_t thread;
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	int held, release;
};

static void *holder_main(void *arg)
{
	struct holder *h = arg;

	switch (h->kind) {
	case HOLD_SEM: down(h->lock); break;
	case HOLD_SPIN: spin_lock(h->lock); break;
	case HOLD_CHAIN: pte_chain_lock(h->lock); break;
	}
	pthread_mutex_lock(&h->mutex);
	h->held = 1;
	pthread_cond_broadcast(&h->cond);
	while (!h->release)
		pthread_cond_wait(&h->cond, &h->mutex);
	pthread_mutex_unlock(&h->mutex);
	switch (h->kind) {
	case HOLD_SEM: up(h->lock); break;
	case HOLD_SPIN: spin_unlock(h->lock); break;
	case HOLD_CHAIN: pte_chain_unlock(h->lock); break;
	}
	return NULL;
}

static void hold(struct holder *h, enum hold_kind kind, void *lock)
{
	memset(h, 0, sizeof(*h));
	h->kind = kind;
	h->lock = lock;
	pthread_mutex_init(&h->mutex, NULL);
	pthread_cond_init(&h->cond, NULL);
	if (pthread_create(&h->thread, NULL, holder_main, h))
		shim_fatal("pthread_create");
	pthread_mutex_lock(&h->mutex);
	while (!h->held)
		pthread_cond_wait(&h->cond, &h->mutex);
	pthread_mutex_unlock(&h->mutex);
}

static void release(struct holder *h)
{
	pthread_mutex_lock(&h->mutex);
	h->release = 1;
	pthread_cond_broadcast(&h->cond);
	pthread_mutex_unlock(&h->mutex);
	pthread_join(h->thread, NULL);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- page_add_objrmap / page_remove_objrmap ---- */

static void test_add_remove_bookkeeping(void)
{
	struct page *page;

	setup();
	page = world_file_page(&F, 3);
	CHECK(!PageObjrmap(page));
	CHECK(!page_mapped(page));
	CHECK_EQ(shim_page_state.nr_mapped, 0);

	pte_chain_lock(page);
	page_add_objrmap(page);
	CHECK(PageObjrmap(page));
	CHECK(page_mapped(page));
	CHECK_EQ(page->pte.mapcount, 1);
	CHECK_EQ(page->pte.direct, 1);	/* the 64-bit PAE word: no stray high bits */
	CHECK_EQ(shim_page_state.nr_mapped, 1);

	page_add_objrmap(page);
	CHECK_EQ(page->pte.mapcount, 2);
	CHECK_EQ(shim_page_state.nr_mapped, 1);	/* one page, counted once */

	page_remove_objrmap(page);
	CHECK(PageObjrmap(page));
	CHECK_EQ(page->pte.mapcount, 1);
	CHECK_EQ(shim_page_state.nr_mapped, 1);

	page_remove_objrmap(page);
	CHECK(!PageObjrmap(page));
	CHECK(!page_mapped(page));
	CHECK_EQ(page->pte.direct, 0);
	CHECK_EQ(shim_page_state.nr_mapped, 0);
	CHECK(!PageDirty(page));
	pte_chain_unlock(page);
	CHECK_EQ(page_count(page), 1);	/* the count is not touched */
}

/* The s390 branch: a storage-key dirty bit moves to the page with the
 * last pte, and only then. */
static void test_remove_last_moves_storage_dirty(void)
{
	struct page *page;

	setup();
	page = world_file_page(&F, 0);
	pte_chain_lock(page);
	page_add_objrmap(page);
	page_add_objrmap(page);
	page->shim_storage_dirty = 1;
	page_remove_objrmap(page);
	CHECK(!PageDirty(page));
	CHECK_EQ(page->shim_storage_dirty, 1);
	page_remove_objrmap(page);
	CHECK(PageDirty(page));
	CHECK_EQ(page->shim_storage_dirty, 0);
	pte_chain_unlock(page);
}

static int remove_bugs(struct page *page)
{
	jmp_buf catcher;

	if (setjmp(catcher))
		return 1;
	shim_bug_catcher = &catcher;
	page_remove_objrmap(page);
	shim_bug_catcher = NULL;
	return 0;
}

static void test_remove_unmapped_bugs(void)
{
	struct page *page;

	setup();
	page = world_file_page(&F, 0);
	pte_chain_lock(page);
	CHECK(remove_bugs(page));		/* not mapped at all */
	SetPageObjrmap(page);
	CHECK(remove_bugs(page));		/* PG_objrmap, mapcount 0 */
	ClearPageObjrmap(page);
	page->pte.direct = 1;
	CHECK(remove_bugs(page));		/* a pte_chain page */
	page->pte.direct = 0;
	pte_chain_unlock(page);
	CHECK_EQ(shim_page_state.nr_mapped, 0);
}

/* ---- vma_address: where a page can be in a vma ---- */

/*
 * A vma of 4 pages at file offset 10; the page at @index gets a pte at
 * every page from two below the vma to two above it (all counted in its
 * mapcount: an unreachable pte of the page is legal, mremap makes them).
 * Only the pte at the page's own position in the vma may be touched.
 */
static void boundary_case(unsigned long index, int inside)
{
	const unsigned long first = 10, npages = 4;
	struct vm_area_struct *v;
	struct page *page;
	unsigned long a, right;
	int n = 0;

	setup();
	v = mkvma(0, mm[0], SLOT(1), npages, first, VM_READ | VM_SHARED);
	page = world_file_page(&F, index);
	right = v->vm_start + (index - first) * PAGE_SIZE; /* wraps if before */
	for (a = v->vm_start - 2 * PAGE_SIZE; a < v->vm_end + 2 * PAGE_SIZE;
	     a += PAGE_SIZE, n++)
		world_map(mm[0], a, page, YOUNG);

	CHECK_EQ(reclaim_referenced(page), inside);
	for (a = v->vm_start - 2 * PAGE_SIZE; a < v->vm_end + 2 * PAGE_SIZE;
	     a += PAGE_SIZE) {
		if (young(mm[0], a) != !(inside && a == right)) {
			ktap_diag("index %lu: young bit at %#lx is %d", index,
				  a, young(mm[0], a));
			ktap_case_failed = 1;
		}
	}

	CHECK_SWAP(reclaim_unmap(page), SWAP_AGAIN);	/* the strays remain */
	for (a = v->vm_start - 2 * PAGE_SIZE; a < v->vm_end + 2 * PAGE_SIZE;
	     a += PAGE_SIZE) {
		if (maps(mm[0], a, page) != !(inside && a == right)) {
			ktap_diag("index %lu: pte at %#lx %s", index, a,
				  maps(mm[0], a, page) ? "still maps the page" :
				  "was unmapped");
			ktap_case_failed = 1;
		}
	}
	CHECK_EQ(page->pte.mapcount, n - inside);
	check_world();
}

static void test_vma_address_before_vm_pgoff(void)	{ boundary_case(9, 0); }
static void test_vma_address_first_page(void)		{ boundary_case(10, 1); }
static void test_vma_address_last_page(void)		{ boundary_case(13, 1); }
static void test_vma_address_past_end(void)		{ boundary_case(14, 0); }

/* vm_pgoff 0 and index 0: nothing to underflow. */
static void test_vma_address_offset_zero(void)
{
	struct vm_area_struct *v;
	struct page *page;

	setup();
	v = mkvma(0, mm[0], SLOT(1), 1, 0, VM_READ);
	page = world_file_page(&F, 0);
	world_map(mm[0], v->vm_start, page, YOUNG);
	CHECK_EQ(reclaim_referenced(page), 1);
	CHECK_SWAP(reclaim_unmap(page), SWAP_SUCCESS);
	check_world();
}

/* ---- page_referenced_obj ---- */

static void test_referenced_private_and_shared(void)
{
	struct vm_area_struct *a, *b, *c, *d;
	struct page *page;

	setup();
	page = world_file_page(&F, 5);
	a = mkvma(0, mm[0], SLOT(1), 8, 0, VM_READ);		/* i_mmap */
	b = mkvma(1, mm[1], SLOT(2), 4, 3, VM_READ);		/* i_mmap */
	c = mkvma(2, mm[2], SLOT(3), 1, 5, VM_READ | VM_SHARED);
	d = mkvma(3, mm[2], SLOT(4), 2, 4, VM_READ | VM_SHARED);
	world_map(mm[0], addr_of(a, 5), page, YOUNG);
	world_map(mm[1], addr_of(b, 5), page, 0);		/* old */
	world_map(mm[2], addr_of(c, 5), page, YOUNG);
	world_map(mm[2], addr_of(d, 5), page, YOUNG);
	CHECK_EQ(page->pte.mapcount, 4);

	CHECK_EQ(reclaim_referenced(page), 3);
	CHECK(!young(mm[0], addr_of(a, 5)));
	CHECK(!young(mm[2], addr_of(c, 5)));
	CHECK(!young(mm[2], addr_of(d, 5)));
	CHECK_EQ(reclaim_referenced(page), 0);		/* cleared */
	CHECK(maps(mm[0], addr_of(a, 5), page));	/* nothing unmapped */
	CHECK(maps(mm[1], addr_of(b, 5), page));
	CHECK(maps(mm[2], addr_of(c, 5), page));
	CHECK(maps(mm[2], addr_of(d, 5), page));
	CHECK_EQ(page->pte.mapcount, 4);
	check_world();
}

/* A private vma whose pte at the page's place maps a COWed copy. */
static void test_referenced_skips_cow(void)
{
	struct vm_area_struct *a, *c;
	struct page *page, *anon;

	setup();
	page = world_file_page(&F, 2);
	anon = world_alloc_page();
	a = mkvma(0, mm[0], SLOT(1), 4, 0, VM_READ | VM_WRITE);
	c = mkvma(1, mm[1], SLOT(2), 4, 0, VM_READ | VM_SHARED);
	world_map(mm[0], addr_of(a, 2), anon, YOUNG | DIRTY);
	world_map(mm[1], addr_of(c, 2), page, YOUNG);

	CHECK_EQ(reclaim_referenced(page), 1);
	CHECK(young(mm[0], addr_of(a, 2)));		/* not ours: untouched */
	CHECK(!young(mm[1], addr_of(c, 2)));
	CHECK_SWAP(reclaim_unmap(page), SWAP_SUCCESS);
	CHECK(maps(mm[0], addr_of(a, 2), anon));	/* the copy stays */
	CHECK(!maps(mm[1], addr_of(c, 2), page));
	check_world();
}

/*
 * Once it has seen mapcount ptes the walk stops: later vmas' locks are
 * not even tried.  The walk goes in the order of the file's index: by
 * vm_pgoff (then by vma address), whatever order the lists are in.
 */
static void test_referenced_stops_early(void)
{
	struct vm_area_struct *a, *b;
	struct page *page;
	unsigned long address;

	setup();
	page = world_file_page(&F, 1);
	a = mkvma(0, mm[0], SLOT(1), 4, 0, VM_READ);
	b = mkvma(1, mm[1], SLOT(2), 4, 1, VM_READ);	/* covers, no pte */
	address = addr_of(a, 1);
	world_map(mm[0], address, page, YOUNG);
	CHECK_EQ(reclaim_referenced(page), 1);
	CHECK_EQ(mm[1]->page_table_lock.trylocks, 0);

	/* b before a in the index (moving a on the list would not do) */
	world_vma_unlink(a);
	world_vma_init(a, mm[0], &F, address, 3, 1, VM_READ);
	world_vma_link(a);
	world_vma_unlink(b);
	world_vma_init(b, mm[1], &F, SLOT(2), 4, 0, VM_READ);
	world_vma_link(b);
	CHECK_EQ(addr_of(a, 1), address);
	world_write_pte(mm[0], address,
			pte_mkyoung(world_read_pte(mm[0], address)));
	CHECK_EQ(reclaim_referenced(page), 1);
	CHECK_EQ(mm[1]->page_table_lock.trylocks, 1);
	check_world();
}

static void test_referenced_busy_i_shared_sem(void)
{
	struct vm_area_struct *a;
	struct page *page;
	struct holder h;
	double t;

	setup();
	page = world_file_page(&F, 1);
	a = mkvma(0, mm[0], SLOT(1), 4, 0, VM_READ);
	world_map(mm[0], addr_of(a, 1), page, YOUNG);
	hold(&h, HOLD_SEM, &F.mapping.i_shared_sem);
	t = now();
	CHECK_EQ(reclaim_referenced(page), 0);
	CHECK(now() - t < 1.0);
	CHECK(young(mm[0], addr_of(a, 1)));		/* kept for next time */
	release(&h);
	CHECK_EQ(reclaim_referenced(page), 1);
	check_world();
}

/* A busy page_table_lock: that vma counts as seen, not as referenced,
 * and its young bit stays; the walk goes on to the others. */
static void test_referenced_busy_page_table_lock(void)
{
	struct vm_area_struct *a, *b;
	struct page *page;
	struct holder h;

	setup();
	page = world_file_page(&F, 1);
	a = mkvma(0, mm[0], SLOT(1), 4, 0, VM_READ);
	b = mkvma(1, mm[1], SLOT(2), 4, 0, VM_READ);
	world_map(mm[0], addr_of(a, 1), page, YOUNG);
	world_map(mm[1], addr_of(b, 1), page, YOUNG);
	hold(&h, HOLD_SPIN, &mm[0]->page_table_lock);
	CHECK_EQ(reclaim_referenced(page), 1);
	release(&h);
	CHECK(young(mm[0], addr_of(a, 1)));
	CHECK(!young(mm[1], addr_of(b, 1)));
	check_world();
}

/* ---- try_to_unmap_obj ---- */

/*
 * The ptes of the page are old, as after a scan that found it unused:
 * try_to_unmap() keeps a page whose pte it finds young (see
 * test_unmap_young_pte_kept()).  The COWed anonymous copy is young.
 */
static void unmap_all_linear(int dirty)
{
	struct vm_area_struct *a, *b, *c, *d, *e;
	struct page *page, *anon;
	unsigned long mapped_before;

	setup();
	page = world_file_page(&F, 7);
	anon = world_alloc_page();
	a = mkvma(0, mm[0], SLOT(1), 8, 0, VM_READ);
	b = mkvma(1, mm[1], SLOT(2), 8, 4, VM_READ);
	e = mkvma(4, mm[4], SLOT(5), 8, 4, VM_READ | VM_WRITE);	/* COWed */
	c = mkvma(2, mm[2], SLOT(3), 1, 7, VM_READ | VM_WRITE | VM_SHARED);
	d = mkvma(3, mm[2], SLOT(4), 16, 0, VM_READ | VM_WRITE | VM_SHARED);
	world_map(mm[0], addr_of(a, 7), page, 0);
	world_map(mm[1], addr_of(b, 7), page, 0);
	world_map(mm[4], addr_of(e, 7), anon, YOUNG | DIRTY);
	world_map(mm[2], addr_of(c, 7), page, dirty ? DIRTY : 0);
	world_map(mm[2], addr_of(d, 7), page, 0);
	CHECK_EQ(page_count(page), 5);
	CHECK_EQ(mm[2]->rss, 2);
	mapped_before = shim_page_state.nr_mapped;

	CHECK_SWAP(reclaim_unmap(page), SWAP_SUCCESS);
	CHECK(!page_mapped(page));
	CHECK(!PageObjrmap(page));
	CHECK_EQ(page->pte.direct, 0);
	CHECK_EQ(page_count(page), 1);		/* the page cache's */
	CHECK_EQ(mm[0]->rss, 0);
	CHECK_EQ(mm[1]->rss, 0);
	CHECK_EQ(mm[2]->rss, 0);
	CHECK(pte_none(world_read_pte(mm[0], addr_of(a, 7))));
	CHECK(pte_none(world_read_pte(mm[1], addr_of(b, 7))));
	CHECK(pte_none(world_read_pte(mm[2], addr_of(c, 7))));
	CHECK(pte_none(world_read_pte(mm[2], addr_of(d, 7))));
	CHECK_EQ(shim_page_state.nr_mapped, mapped_before - 1);
	CHECK_EQ(!!PageDirty(page), dirty);
	CHECK(maps(mm[4], addr_of(e, 7), anon));	/* the COWed copy stays */
	CHECK_EQ(mm[4]->rss, 1);
	CHECK_EQ(anon->pte.direct, 1);
	check_world();
}

static void test_unmap_all_linear_dirty(void)	{ unmap_all_linear(1); }
static void test_unmap_all_linear_clean(void)	{ unmap_all_linear(0); }

/* An mlock()ed or VM_RESERVED vma that maps the page keeps it. */
static void unmap_kept(unsigned long flag)
{
	struct vm_area_struct *a, *b, *c;
	struct page *page;

	setup();
	page = world_file_page(&F, 3);
	a = mkvma(0, mm[0], SLOT(1), 4, 0, VM_READ);
	b = mkvma(1, mm[1], SLOT(2), 4, 0, VM_READ | flag);
	c = mkvma(2, mm[2], SLOT(3), 4, 0, VM_READ | VM_SHARED);
	world_map(mm[0], addr_of(a, 3), page, YOUNG);
	world_map(mm[1], addr_of(b, 3), page, YOUNG);
	world_map(mm[2], addr_of(c, 3), page, YOUNG);

	CHECK_SWAP(reclaim_unmap(page), SWAP_FAIL);
	CHECK(maps(mm[1], addr_of(b, 3), page));
	CHECK(PageObjrmap(page));
	CHECK(page->pte.mapcount >= 1);
	CHECK_SWAP(reclaim_unmap(page), SWAP_FAIL);	/* and again */
	CHECK(maps(mm[1], addr_of(b, 3), page));
	check_world();
}

static void test_unmap_vm_locked_fails(void)	{ unmap_kept(VM_LOCKED); }
static void test_unmap_vm_reserved_fails(void)	{ unmap_kept(VM_RESERVED); }

/* A locked vma that does not map the page does not keep it. */
static void test_unmap_locked_vma_without_pte(void)
{
	struct vm_area_struct *a, *b;
	struct page *page;

	setup();
	page = world_file_page(&F, 3);
	a = mkvma(0, mm[0], SLOT(1), 4, 0, VM_READ | VM_LOCKED);
	b = mkvma(1, mm[1], SLOT(2), 4, 0, VM_READ);
	world_map(mm[1], addr_of(b, 3), page, 0);
	(void)a;
	CHECK_SWAP(reclaim_unmap(page), SWAP_SUCCESS);
	CHECK(!page_mapped(page));
	check_world();
}

static void test_unmap_busy_i_shared_sem(void)
{
	struct vm_area_struct *a;
	struct page *page;
	struct holder h;
	unsigned long walks, busy;
	double t;

	setup();
	page = world_file_page(&F, 1);
	a = mkvma(0, mm[0], SLOT(1), 4, 0, VM_READ);
	world_map(mm[0], addr_of(a, 1), page, 0);
	hold(&h, HOLD_SEM, &F.mapping.i_shared_sem);
	walks = shim_page_state.rmap_file_walks;
	busy = shim_page_state.rmap_busy_i_shared_sem;
	t = now();
	CHECK_SWAP(reclaim_unmap(page), SWAP_AGAIN);
	CHECK(now() - t < 1.0);			/* did not wait for it */
	CHECK(maps(mm[0], addr_of(a, 1), page));
	CHECK_EQ(F.mapping.i_shared_sem.trylocks, 1);
	/* /proc/vmstat's counters: one walk, stopped by the busy lock */
	CHECK_EQ(shim_page_state.rmap_file_walks - walks, 1);
	CHECK_EQ(shim_page_state.rmap_busy_i_shared_sem - busy, 1);
	release(&h);
	CHECK_SWAP(reclaim_unmap(page), SWAP_SUCCESS);
	CHECK_EQ(shim_page_state.rmap_file_walks - walks, 2);
	CHECK_EQ(shim_page_state.rmap_busy_i_shared_sem - busy, 1);
	check_world();
}

static void test_unmap_busy_page_table_lock(void)
{
	struct vm_area_struct *a, *b, *c;
	struct page *page;
	struct holder h;
	unsigned long busy;
	double t;

	setup();
	page = world_file_page(&F, 2);
	a = mkvma(0, mm[0], SLOT(1), 4, 0, VM_READ);
	b = mkvma(1, mm[1], SLOT(2), 4, 0, VM_READ);
	c = mkvma(2, mm[2], SLOT(3), 4, 0, VM_READ | VM_SHARED);
	world_map(mm[0], addr_of(a, 2), page, 0);
	world_map(mm[1], addr_of(b, 2), page, 0);
	world_map(mm[2], addr_of(c, 2), page, 0);
	hold(&h, HOLD_SPIN, &mm[1]->page_table_lock);
	busy = shim_page_state.rmap_busy_page_table_lock;
	t = now();
	CHECK_SWAP(reclaim_unmap(page), SWAP_AGAIN);
	CHECK(now() - t < 1.0);
	CHECK_EQ(shim_page_state.rmap_busy_page_table_lock - busy, 1);
	CHECK(!maps(mm[0], addr_of(a, 2), page));	/* the others went */
	CHECK(!maps(mm[2], addr_of(c, 2), page));
	CHECK_EQ(mm[0]->rss, 0);
	CHECK_EQ(mm[2]->rss, 0);
	CHECK_EQ(page->pte.mapcount, 1);
	release(&h);
	CHECK(maps(mm[1], addr_of(b, 2), page));
	CHECK_SWAP(reclaim_unmap(page), SWAP_SUCCESS);
	CHECK(!page_mapped(page));
	check_world();
}

/* A pte no vma describes (mremap moving it): SWAP_AGAIN, left alone. */
static void test_unmap_unreachable_pte(void)
{
	struct vm_area_struct *a;
	struct page *page;

	setup();
	page = world_file_page(&F, 1);
	a = mkvma(0, mm[0], SLOT(1), 4, 0, VM_READ);
	world_map(mm[0], addr_of(a, 1), page, 0);
	world_map(mm[0], SLOT(7), page, 0);		/* no vma there */
	CHECK_SWAP(reclaim_unmap(page), SWAP_AGAIN);
	CHECK(!maps(mm[0], addr_of(a, 1), page));
	CHECK(maps(mm[0], SLOT(7), page));
	CHECK_EQ(page->pte.mapcount, 1);
	check_world();
}

/* The pte lookup skips what does not map the page: no page table, a bad
 * pmd, a nonlinear file pte, another page. */
static void test_find_pte_skips(void)
{
	struct vm_area_struct *none, *bad, *file, *other, *good;
	struct page *page, *page2;

	setup();
	page = world_file_page(&F, 1);
	page2 = world_file_page(&F, 2);
	none = mkvma(0, mm[0], SLOT(1), 4, 0, VM_READ | VM_SHARED);
	bad = mkvma(1, mm[1], SLOT(2), 4, 0, VM_READ | VM_SHARED);
	file = mkvma(2, mm[2], SLOT(3), 4, 0, VM_READ | VM_SHARED);
	other = mkvma(3, mm[3], SLOT(4), 4, 0, VM_READ | VM_SHARED);
	good = mkvma(4, mm[4], SLOT(5), 4, 0, VM_READ | VM_SHARED);
	(void)none;
	world_map(mm[1], addr_of(bad, 1), page, YOUNG);
	mm[1]->pgd[pgd_index(addr_of(bad, 1))].bad = 1;
	world_write_pte(mm[2], addr_of(file, 1), pgoff_to_pte(1));
	world_map(mm[3], addr_of(other, 1), page2, YOUNG);
	world_map(mm[4], addr_of(good, 1), page, YOUNG);

	CHECK_EQ(reclaim_referenced(page), 1);
	CHECK(young(mm[1], addr_of(bad, 1)));
	CHECK(young(mm[3], addr_of(other, 1)));
	CHECK_SWAP(reclaim_unmap(page), SWAP_AGAIN);	/* behind the bad pmd */
	CHECK(maps(mm[1], addr_of(bad, 1), page));
	CHECK(pte_file(world_read_pte(mm[2], addr_of(file, 1))));
	CHECK(maps(mm[3], addr_of(other, 1), page2));
	CHECK(!maps(mm[4], addr_of(good, 1), page));
	CHECK_EQ(page->pte.mapcount, 1);
	mm[1]->pgd[pgd_index(addr_of(bad, 1))].bad = 0;
	/* page_referenced() never saw that pte: it is still young */
	CHECK_SWAP(reclaim_unmap(page), SWAP_FAIL);
	CHECK(maps(mm[1], addr_of(bad, 1), page));
	CHECK(!young(mm[1], addr_of(bad, 1)));
	CHECK_SWAP(reclaim_unmap(page), SWAP_SUCCESS);
	check_world();
}

/*
 * page_referenced() skips a vma whose page_table_lock is busy, so it may
 * report a page in use as unreferenced; try_to_unmap() then finds the
 * young pte and keeps the page (SWAP_FAIL: shrink_list() activates it),
 * clearing the bit so that an unused page goes on the next scan.
 */
static void test_unmap_young_pte_kept(void)
{
	struct vm_area_struct *a, *b;
	struct page *page;
	struct holder h;

	setup();
	page = world_file_page(&F, 2);
	a = mkvma(0, mm[0], SLOT(1), 4, 0, VM_READ | VM_SHARED);
	b = mkvma(1, mm[1], SLOT(2), 4, 0, VM_READ | VM_SHARED);
	world_map(mm[0], addr_of(a, 2), page, 0);
	world_map(mm[1], addr_of(b, 2), page, YOUNG);
	hold(&h, HOLD_SPIN, &mm[1]->page_table_lock);
	CHECK_EQ(reclaim_referenced(page), 0);
	release(&h);
	CHECK(young(mm[1], addr_of(b, 2)));
	CHECK_SWAP(reclaim_unmap(page), SWAP_FAIL);
	CHECK(maps(mm[1], addr_of(b, 2), page));
	CHECK(!young(mm[1], addr_of(b, 2)));
	CHECK(page_mapped(page));
	CHECK_SWAP(reclaim_unmap(page), SWAP_SUCCESS);
	CHECK(!page_mapped(page));
	CHECK_EQ(mm[0]->rss, 0);
	CHECK_EQ(mm[1]->rss, 0);
	check_world();
}

/* ---- nonlinear vmas (remap_file_pages) ---- */

/*
 * A nonlinear vma: VM_SHARED | VM_NONLINEAR on i_mmap_shared and on
 * i_mmap_nonlinear (not in the index), ptes put anywhere in it by
 * install_page().
 */
static struct vm_area_struct *mknonlinear(int i, struct mm_struct *m,
					  unsigned long start,
					  unsigned long npages,
					  unsigned long flags)
{
	struct vm_area_struct *n;

	n = mkvma(i, m, start, npages, 0,
		  VM_READ | VM_WRITE | VM_SHARED | VM_NONLINEAR | flags);
	/*
	 * As if the sweep's last lap of it ended a second ago (the jiffy
	 * in the low bits of the cursor): the next call starts a lap.
	 */
	n->vm_private_data = (void *)(n->vm_start |
				      ((shim_jiffies - HZ) % PAGE_SIZE));
	return n;
}

/* The linear position of a page is still looked at in a nonlinear vma. */
static void test_nonlinear_linear_position(void)
{
	struct vm_area_struct *n;
	struct page *page;

	setup();
	page = world_file_page(&F, 5);
	n = mknonlinear(0, mm[0], SLOT(1), 16, 0);
	world_map(mm[0], addr_of(n, 5), page, YOUNG);
	CHECK_EQ(reclaim_referenced(page), 1);
	CHECK_SWAP(reclaim_unmap(page), SWAP_SUCCESS);
	CHECK(!page_mapped(page));
	check_world();
}

/*
 * A page mapped only at a nonlinear position of a large nonlinear vma
 * must still leave memory, through repeated try_to_unmap() calls each of
 * which reads a bounded number of ptes (far fewer than the vma has).
 * Other pages of the file met on the way are unmapped too; every
 * unmapped pte becomes a file pte with the page's offset.
 */
static void test_nonlinear_reclaimable(void)
{
	const unsigned long npages = 1024;	/* a whole page table */
	struct vm_area_struct *n;
	struct page *page, *other[8], *foreign;
	unsigned long i, calls = 0, maxread = 0;
	int ret = SWAP_AGAIN;

	setup();
	slow_reclaim_on();
	n = mknonlinear(0, mm[0], SLOT(1), npages, 0);
	page = world_file_page(&F, 3);
	world_map(mm[0], n->vm_start + 900 * PAGE_SIZE, page, YOUNG | DIRTY);
	for (i = 0; i < 8; i++) {	/* reversed, like the integrity test */
		other[i] = world_file_page(&F, 100 + i);
		world_map(mm[0], n->vm_start + (100 * i + 7) * PAGE_SIZE,
			  other[i], YOUNG);
	}
	foreign = world_file_page(&G, 3);	/* another file's page */
	world_map(mm[0], n->vm_start + 500 * PAGE_SIZE, foreign, YOUNG);

	while (ret != SWAP_SUCCESS && calls < npages + 1) {
		unsigned long before = shim_pte_maps;

		ret = reclaim_unmap(page);
		calls++;
		shim_tick(HZ / 16);	/* a lap of 32 calls takes 2 s */
		if (shim_pte_maps - before > maxread)
			maxread = shim_pte_maps - before;
		if (ret == SWAP_FAIL)
			break;
		CHECK_EQ(world_check(mm, NMM), 0);
	}
	ktap_diag("unmapped after %lu calls reading at most %lu ptes each",
		  calls, maxread);
	if (ret != SWAP_SUCCESS) {
		ktap_diag("page mapped only through a nonlinear vma is still mapped after %lu try_to_unmap calls (%s): not reclaimable",
			  calls, swap_name(ret));
		ktap_case_failed = 1;
	}
	CHECK(maxread < npages / 4);
	CHECK(!page_mapped(page));
	CHECK(PageDirty(page));
	{
		pte_t pte = world_read_pte(mm[0], n->vm_start + 900 * PAGE_SIZE);

		CHECK(!pte_present(pte));
		if (!pte_none(pte)) {		/* a file pte, at the offset */
			CHECK(pte_file(pte));
			CHECK_EQ(pte_to_pgoff(pte), 3);
		}
	}
	for (i = 0; i < 8; i++) {
		pte_t pte = world_read_pte(mm[0],
					   n->vm_start + (100 * i + 7) * PAGE_SIZE);

		if (pte_present(pte))
			continue;	/* not swept yet: allowed */
		CHECK(pte_file(pte));
		CHECK_EQ(pte_to_pgoff(pte), 100 + i);
		CHECK(!page_mapped(other[i]));
	}
	CHECK(maps(mm[0], n->vm_start + 500 * PAGE_SIZE, foreign));
	check_world();
}

/* A victim page whose pte_chain_lock is busy is passed over, at once. */
static void test_nonlinear_busy_victim(void)
{
	struct vm_area_struct *n;
	struct page *page, *victim;
	struct holder h;
	double t;

	setup();
	slow_reclaim_on();
	n = mknonlinear(0, mm[0], SLOT(1), 4, 0);
	page = world_file_page(&F, 9);
	victim = world_file_page(&F, 8);
	world_map(mm[0], n->vm_start + 1 * PAGE_SIZE, victim, 0);
	world_map(mm[0], n->vm_start + 2 * PAGE_SIZE, page, 0);
	hold(&h, HOLD_CHAIN, victim);
	t = now();
	CHECK_SWAP(reclaim_unmap(page), SWAP_SUCCESS);
	CHECK(now() - t < 1.0);
	release(&h);
	CHECK(maps(mm[0], n->vm_start + 1 * PAGE_SIZE, victim));
	CHECK(!page_mapped(page));
	check_world();
}

/*
 * The sweep is the clock hand of nonlinear ptes: a young one loses its
 * young bit and stays mapped for one turn, an old one is unmapped.
 */
static void test_nonlinear_young_kept_one_turn(void)
{
	struct vm_area_struct *n;
	struct page *page;

	setup();
	slow_reclaim_on();
	n = mknonlinear(0, mm[0], SLOT(1), 4, 0);
	page = world_file_page(&F, 9);
	world_map(mm[0], n->vm_start + 2 * PAGE_SIZE, page, YOUNG);
	CHECK_SWAP(reclaim_unmap(page), SWAP_AGAIN);
	CHECK(maps(mm[0], n->vm_start + 2 * PAGE_SIZE, page));
	CHECK(!young(mm[0], n->vm_start + 2 * PAGE_SIZE));
	shim_tick(HZ);
	CHECK_SWAP(reclaim_unmap(page), SWAP_SUCCESS);
	CHECK(!page_mapped(page));
	check_world();
}

/*
 * However often reclaim calls, a lap starts no sooner
 * than HZ/2 after the last one ended: a pte in use (touched more often
 * than that) is never found old twice, and an old one is unmapped once
 * the time is up.  A new vma's first lap starts at once, whatever
 * jiffies says (no stamp of jiffy 0 that looks recent).
 */
static void touch(struct mm_struct *m, unsigned long address)
{
	world_write_pte(m, address, pte_mkyoung(world_read_pte(m, address)));
}

static void test_nonlinear_lap_gap(void)
{
	struct vm_area_struct *n;
	struct page *page, *hot;
	unsigned long cold_addr, hot_addr;
	int i;

	setup();
	shim_jiffies = 4096 * 7 + 3;	/* stamp 0 would look fresh here */
	n = mknonlinear(0, mm[0], SLOT(1), 4, 0);
	n->vm_private_data = NULL;	/* as remap_file_pages() leaves it */
	page = world_file_page(&F, 9);
	hot = world_file_page(&F, 8);
	cold_addr = n->vm_start + 2 * PAGE_SIZE;
	hot_addr = n->vm_start + 1 * PAGE_SIZE;
	world_map(mm[0], cold_addr, page, YOUNG);
	world_map(mm[0], hot_addr, hot, YOUNG);
	/* a new vma: its first lap starts at once and ages both */
	CHECK_SWAP(reclaim_unmap(page), SWAP_AGAIN);
	CHECK(!young(mm[0], cold_addr));
	CHECK(!young(mm[0], hot_addr));
	/* reclaim calls a thousand times within the same jiffy */
	for (i = 0; i < 1000; i++)
		if (reclaim_unmap(page) != SWAP_AGAIN)
			break;
	CHECK_EQ(i, 1000);
	shim_tick(HZ / 2 - 1);
	touch(mm[0], hot_addr);		/* used in the meantime */
	CHECK_SWAP(reclaim_unmap(page), SWAP_AGAIN);
	CHECK(maps(mm[0], cold_addr, page));
	shim_tick(1);
	CHECK_SWAP(reclaim_unmap(page), SWAP_SUCCESS);	/* lap 2 */
	CHECK(maps(mm[0], hot_addr, hot));
	CHECK(!young(mm[0], hot_addr));
	check_world();
}


/*
 * A cursor outside its vma (the vma shrank under it in mid-lap) starts
 * a new lap after the gap, not at once: the ptes it already aged on
 * this lap get their time to be touched again.
 */
static void test_nonlinear_reset_waits(void)
{
	struct vm_area_struct *n;
	struct page *page, *hot;
	unsigned long hot_addr;
	int i;

	setup();
	n = mknonlinear(0, mm[0], SLOT(1), 128, 0);
	page = world_file_page(&F, 9);
	hot = world_file_page(&F, 8);
	hot_addr = n->vm_start + 1 * PAGE_SIZE;
	world_map(mm[0], n->vm_start + 100 * PAGE_SIZE, page, 0);
	world_map(mm[0], hot_addr, hot, YOUNG);
	reclaim_unmap(page);		/* ptes 0-31: ages the hot one */
	CHECK(!young(mm[0], hot_addr));
	CHECK(maps(mm[0], hot_addr, hot));
	/* the vma loses its tail, the cursor (at 32) is now outside it */
	n->vm_end = n->vm_start + 16 * PAGE_SIZE;
	for (i = 0; i < 100; i++)
		reclaim_unmap(page);
	CHECK(maps(mm[0], hot_addr, hot));
	n->vm_end = n->vm_start + 128 * PAGE_SIZE;
	check_world();
}

/* SHM_LOCK: the page stays mapped everywhere, no pte is looked at. */
static void test_unmap_shm_locked(void)
{
	struct vm_area_struct *a;
	struct page *page;

	setup();
	page = world_file_page(&F, 1);
	a = mkvma(0, mm[0], SLOT(1), 4, 0, VM_READ | VM_SHARED);
	world_map(mm[0], addr_of(a, 1), page, 0);
	F.mapping.shim_shm_locked = 1;
	CHECK_SWAP(reclaim_unmap(page), SWAP_FAIL);
	CHECK(maps(mm[0], addr_of(a, 1), page));
	F.mapping.shim_shm_locked = 0;
	CHECK_SWAP(reclaim_unmap(page), SWAP_SUCCESS);
	check_world();
}

/* An mlock()ed or VM_RESERVED nonlinear vma keeps what it maps. */
static void nonlinear_kept(unsigned long flag)
{
	struct vm_area_struct *n;
	struct page *page;
	int i;

	setup();
	n = mknonlinear(0, mm[0], SLOT(1), 8, flag);
	page = world_file_page(&F, 1);
	world_map(mm[0], n->vm_start + 6 * PAGE_SIZE, page, YOUNG);
	for (i = 0; i < 4; i++) {
		CHECK_SWAP(reclaim_unmap(page), SWAP_FAIL);
		CHECK(maps(mm[0], n->vm_start + 6 * PAGE_SIZE, page));
	}
	check_world();
}

static void test_nonlinear_vm_locked_fails(void)	{ nonlinear_kept(VM_LOCKED); }
static void test_nonlinear_vm_reserved_fails(void)	{ nonlinear_kept(VM_RESERVED); }

/* The sweep never leaves its vma, whatever state its cursor was left in
 * (mremap and split_vma change the bounds under it). */
static void test_nonlinear_cursor_bounds(void)
{
	struct vm_area_struct *n;
	struct page *page, *outside;
	unsigned long cursor;
	int i;

	setup();
	slow_reclaim_on();
	n = mknonlinear(0, mm[0], SLOT(1), 8, 0);
	page = world_file_page(&F, 1);
	outside = world_file_page(&F, 2);
	world_map(mm[0], n->vm_start + 5 * PAGE_SIZE, page, YOUNG);
	world_map(mm[0], n->vm_end, outside, YOUNG);	/* not in the vma */
	world_map(mm[0], n->vm_start - PAGE_SIZE, outside, YOUNG);
	n->vm_private_data = (void *)(n->vm_end + 100 * PAGE_SIZE);
	for (i = 0; i < 16 && page_mapped(page); i++) {
		reclaim_unmap(page);
		shim_tick(HZ);
		/* the low bits hold the jiffy the last lap ended */
		cursor = (unsigned long)n->vm_private_data & PAGE_MASK;
		if (cursor && (cursor < n->vm_start || cursor >= n->vm_end)) {
			ktap_diag("cursor %#lx outside [%#lx, %#lx)", cursor,
				  n->vm_start, n->vm_end);
			ktap_case_failed = 1;
		}
	}
	CHECK(!page_mapped(page));
	CHECK(maps(mm[0], n->vm_end, outside));
	CHECK(maps(mm[0], n->vm_start - PAGE_SIZE, outside));
	CHECK_EQ(outside->pte.mapcount, 2);
	check_world();
}

static void test_nonlinear_busy_page_table_lock(void)
{
	struct vm_area_struct *n;
	struct page *page;
	struct holder h;
	void *cursor;
	double t;

	setup();
	slow_reclaim_on();
	n = mknonlinear(0, mm[0], SLOT(1), 8, 0);
	page = world_file_page(&F, 1);
	world_map(mm[0], n->vm_start + 6 * PAGE_SIZE, page, 0);
	cursor = n->vm_private_data;
	hold(&h, HOLD_SPIN, &mm[0]->page_table_lock);
	t = now();
	CHECK_SWAP(reclaim_unmap(page), SWAP_AGAIN);
	CHECK(now() - t < 1.0);
	CHECK(n->vm_private_data == cursor);
	release(&h);
	CHECK(maps(mm[0], n->vm_start + 6 * PAGE_SIZE, page));
	CHECK_SWAP(reclaim_unmap(page), SWAP_SUCCESS);
	check_world();
}

/*
 * mlock() racing with reclaim.  mlock_fixup() sets VM_LOCKED under
 * page_table_lock, so a reclaimer that gets that lock after it must see
 * the flag and leave the vma's ptes alone (try_to_unmap_one() in 2.6.3
 * and try_to_unmap_shared_vma() test it under the lock).  The trylock
 * hook plays the other CPU: its mlock_fixup() ends just before the
 * reclaimer's spin_trylock().
 */
static struct vm_area_struct *mlock_target;

static void mlock_fixup_now(spinlock_t *lock)
{
	if (!mlock_target || lock != &mlock_target->vm_mm->page_table_lock)
		return;
	spin_lock(lock);
	mlock_target->vm_flags |= VM_LOCKED;
	spin_unlock(lock);
	mlock_target = NULL;		/* once */
}

static void mlock_window(int nonlinear)
{
	struct vm_area_struct *v;
	struct page *page;
	unsigned long address;
	int ret;

	setup();
	if (nonlinear) {
		/* the page's offset is outside the vma's linear range: only
		 * the sweep looks at this vma's lock */
		v = mknonlinear(0, mm[0], SLOT(1), 8, 0);
		page = world_file_page(&F, 100);
		address = v->vm_start + 3 * PAGE_SIZE;
	} else {
		v = mkvma(0, mm[0], SLOT(1), 8, 0, VM_READ | VM_SHARED);
		page = world_file_page(&F, 3);
		address = addr_of(v, 3);
	}
	world_map(mm[0], address, page, YOUNG);
	mlock_target = v;
	shim_spin_trylock_hook = mlock_fixup_now;
	ret = reclaim_unmap(page);
	shim_spin_trylock_hook = NULL;
	CHECK(mlock_target == NULL);		/* the window was hit */
	if (!maps(mm[0], address, page)) {
		ktap_diag("a pte of a vma mlock()ed before reclaim took its page_table_lock was unmapped (%s)",
			  swap_name(ret));
		if (nonlinear)
			ktap_diag("sweep_nonlinear_vma() tests VM_LOCKED|VM_RESERVED before spin_trylock(&mm->page_table_lock), the lock mlock_fixup() sets vm_flags under");
		ktap_case_failed = 1;
	}
	CHECK_SWAP(ret, SWAP_FAIL);
	check_world();
}

static void test_unmap_mlock_window(void)		{ mlock_window(0); }
static void test_nonlinear_mlock_window(void)		{ mlock_window(1); }

/*
 * try_to_unmap_obj() promises SWAP_SUCCESS once the page is no longer
 * mapped.  A locked nonlinear vma that does not map the page, before the
 * nonlinear vma that does on i_mmap_nonlinear, must not turn the sweep's
 * success into SWAP_FAIL (shrink_list() would put back on the active
 * list a page it can free now).
 */
static void test_nonlinear_unmapped_despite_locked_vma(void)
{
	struct vm_area_struct *locked, *n;
	struct page *page;
	int ret;

	setup();
	slow_reclaim_on();
	locked = mknonlinear(0, mm[0], SLOT(1), 8, VM_LOCKED);
	n = mknonlinear(1, mm[1], SLOT(2), 8, 0);
	page = world_file_page(&F, 100);	/* outside both linear ranges */
	world_map(mm[1], n->vm_start + 2 * PAGE_SIZE, page, 0);
	(void)locked;
	ret = reclaim_unmap(page);
	if (!page_mapped(page) && ret != SWAP_SUCCESS) {
		ktap_diag("the page was unmapped, yet try_to_unmap_obj() returned %s: try_to_unmap_nonlinear() fails for every locked nonlinear vma of the mapping, mapped or not",
			  swap_name(ret));
		ktap_case_failed = 1;
	}
	CHECK(!page_mapped(page));
	check_world();
}

/* ---- the index: only the vmas that cover the page are visited ---- */

/*
 * A file mapped by 10,000 one-page vmas at distinct offsets (private and
 * shared, in two mms), plus a big shared vma over all of them and a
 * private one-page twin of the page's own: page_referenced_obj() and
 * try_to_unmap_obj() of one page trylock the page_table_lock of exactly
 * the 3 vmas that cover its offset, not one per vma of the file.  A pte
 * no vma describes keeps the page mapped, so neither walk stops early.
 * With a nonlinear vma in the file, i_mmap_nonlinear is walked as well,
 * and it holds only that vma: one trylock for page_referenced (the
 * linear position), two for try_to_unmap (the linear position, then the
 * sweep, which reads a bounded number of ptes).
 */
#define MANY		10000
#define MANY_BASE	0x40000000UL

static void only_overlapping(int nonlinear)
{
	const unsigned long target = 4321, covering = 3;
	struct vm_area_struct *many, *big, *twin, *n = NULL;
	struct page *page;
	unsigned long i, tries, reads, nl_tries;
	int ret;

	setup();
	many = calloc(MANY, sizeof(*many));
	if (!many)
		shim_fatal("out of memory for %d vmas", MANY);
	for (i = 0; i < MANY; i++) {
		world_vma_init(&many[i], mm[i % 2], &F, MANY_BASE + i * PAGE_SIZE,
			       1, i, VM_READ | (i % 3 ? VM_SHARED : 0));
		world_vma_link(&many[i]);
	}
	big = mkvma(0, mm[2], SLOT(1), MANY, 0, VM_READ | VM_SHARED);
	twin = mkvma(1, mm[3], SLOT(5), 1, target, VM_READ);
	if (nonlinear)
		n = mknonlinear(2, mm[5], SLOT(8), 1024, 0);
	CHECK_EQ(list_empty(&F.mapping.i_mmap_nonlinear), !nonlinear);
	if (n)
		CHECK(F.mapping.i_mmap_nonlinear.next == &n->vm_index.nonlinear &&
		      F.mapping.i_mmap_nonlinear.prev == &n->vm_index.nonlinear);

	page = world_file_page(&F, target);
	world_map(mm[target % 2], addr_of(&many[target], target), page, YOUNG);
	world_map(mm[2], addr_of(big, target), page, YOUNG);
	world_map(mm[3], addr_of(twin, target), page, YOUNG);
	world_map(mm[4], SLOT(7), page, YOUNG);		/* no vma there */
	if (n)	/* at a nonlinear position the sweep does not reach at once */
		world_map(mm[5], n->vm_start + 700 * PAGE_SIZE, page, YOUNG);
	nl_tries = nonlinear ? 1 : 0;

	tries = shim_spin_trylocks;
	CHECK_EQ(reclaim_referenced(page), covering);
	tries = shim_spin_trylocks - tries;
	ktap_diag("%s: page_referenced_obj() trylocked %lu page_table_locks among %d vmas",
		  nonlinear ? "with a nonlinear vma" : "linear only", tries,
		  MANY + 2 + nonlinear);
	CHECK_EQ(tries, covering + nl_tries);

	tries = shim_spin_trylocks;
	reads = shim_pte_maps;
	ret = reclaim_unmap(page);
	tries = shim_spin_trylocks - tries;
	reads = shim_pte_maps - reads;
	ktap_diag("%s: try_to_unmap_obj() trylocked %lu page_table_locks, read %lu ptes",
		  nonlinear ? "with a nonlinear vma" : "linear only", tries, reads);
	CHECK_SWAP(ret, SWAP_AGAIN);		/* the stray pte */
	CHECK_EQ(tries, covering + 2 * nl_tries);
	CHECK(reads <= covering + nl_tries * (1 + 1024 / 4));
	CHECK(!maps(mm[target % 2], addr_of(&many[target], target), page));
	CHECK(!maps(mm[2], addr_of(big, target), page));
	CHECK(!maps(mm[3], addr_of(twin, target), page));
	CHECK(maps(mm[4], SLOT(7), page));
	CHECK_EQ(page->pte.mapcount, 1 + nl_tries);
	check_world();
}

static void test_index_only_overlapping(void)		{ only_overlapping(0); }
static void test_index_only_overlapping_nonlinear(void)	{ only_overlapping(1); }

#define CASE(fn) { &#fn[5], fn }	/* without "test_" */

static const struct ktap_case cases[] = {
	CASE(test_add_remove_bookkeeping),
	CASE(test_remove_last_moves_storage_dirty),
	CASE(test_remove_unmapped_bugs),
	CASE(test_vma_address_before_vm_pgoff),
	CASE(test_vma_address_first_page),
	CASE(test_vma_address_last_page),
	CASE(test_vma_address_past_end),
	CASE(test_vma_address_offset_zero),
	CASE(test_referenced_private_and_shared),
	CASE(test_referenced_skips_cow),
	CASE(test_referenced_stops_early),
	CASE(test_referenced_busy_i_shared_sem),
	CASE(test_referenced_busy_page_table_lock),
	CASE(test_unmap_all_linear_dirty),
	CASE(test_unmap_all_linear_clean),
	CASE(test_unmap_vm_locked_fails),
	CASE(test_unmap_vm_reserved_fails),
	CASE(test_unmap_locked_vma_without_pte),
	CASE(test_unmap_busy_i_shared_sem),
	CASE(test_unmap_busy_page_table_lock),
	CASE(test_unmap_unreachable_pte),
	CASE(test_find_pte_skips),
	CASE(test_unmap_young_pte_kept),
	CASE(test_nonlinear_linear_position),
	CASE(test_nonlinear_reclaimable),
	CASE(test_nonlinear_busy_victim),
	CASE(test_nonlinear_young_kept_one_turn),
	CASE(test_nonlinear_lap_gap),
	CASE(test_nonlinear_reset_waits),
	CASE(test_unmap_shm_locked),
	CASE(test_nonlinear_vm_locked_fails),
	CASE(test_nonlinear_vm_reserved_fails),
	CASE(test_nonlinear_cursor_bounds),
	CASE(test_nonlinear_busy_page_table_lock),
	CASE(test_unmap_mlock_window),
	CASE(test_nonlinear_mlock_window),
	CASE(test_nonlinear_unmapped_despite_locked_vma),
	CASE(test_index_only_overlapping),
	CASE(test_index_only_overlapping_nonlinear),
};

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	return ktap_run(cases, sizeof(cases) / sizeof(cases[0]), 20);
}
