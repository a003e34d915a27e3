// SPDX-License-Identifier: GPL-2.0
/*
 * tools/testing/objrmap/lifecycle.c - the life of a file page around
 * the objrmap code: page_add_rmap()/page_remove_rmap() (mm/rmap.c),
 * install_page() (mm/fremap.c), invalidate_mmap_range() with its
 * nonlinear zap (mm/memory.c), truncate_complete_page() and
 * remove_unmapped_page() (mm/truncate.c) and mremap's copy_one_pte()
 * (mm/mremap.c).
 *
 * The series modifies those files, so they cannot be rebuilt from the
 * patches alone: extract.py copies the functions, verbatim, out of a
 * patched tree (make PATCHED=<dir>) into $(O)/gen/mm_extract.c, which
 * this file #includes (as index.c includes vma_index.c), so that the
 * static ones can be called too.  Without a tree the program says
 * "1..0 # SKIP" and exits 4 (kselftest's KSFT_SKIP).
 *
 * What the extracted code calls beyond the shims is modelled below,
 * each model citing the 2.6.3 function it stands for.  KTAP output;
 * each case runs in a child process of its own.
 */
/* install_page() computes pgd_offset() before taking the lock */
#define SHIM_PGD_OFFSET_UNLOCKED
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lifecycle_tree.h"	/* generated: LIFECYCLE_NO_TREE, or not */

#ifdef LIFECYCLE_NO_TREE
int main(void)
{
	printf("KTAP version 1\n1..0 # SKIP no patched kernel tree (make PATCHED=<dir>)\n");
	return 4;
}
#else

#include "lib/ktap.h"
#include "lib/world.h"
#include <linux/fs.h>
#include <linux/swapops.h>
#include <linux/pagevec.h>
#include <linux/cache.h>
#include <linux/linkage.h>
#include <asm/rmap.h>
#include <asm/cacheflush.h>

/* -- what the extracted code calls: kernel API, modelled ------------- */

#define CONFIG_SWAP	1	/* as the series' configs: shrink_list()'s
				 * anonymous-page branch is compiled in */

#define __GFP_IO	0x40u	/* Can start physical IO? */
#define __GFP_FS	0x80u	/* Can call down to low-level FS? */
#define GFP_KERNEL	(__GFP_IO | __GFP_FS)
#define prefetch(x)	((void)(x))
#define unlikely(x)	__builtin_expect(!!(x), 0)

/*
 * <linux/kernel.h>: a warning is a failure here, counted so a test can
 * say which step warned (the shim's asm/bug.h turns it into a BUG).
 */
static int lc_warnings;
#undef WARN_ON
#define WARN_ON(condition)						\
	do {								\
		if (condition) {					\
			__atomic_fetch_add(&lc_warnings, 1,		\
					   __ATOMIC_RELAXED);		\
			fprintf(stderr, "kernel WARNING at %s:%d\n",	\
				__FILE__, __LINE__);			\
		}							\
	} while (0)

static inline void cond_resched(void)
{
	sched_yield();
}

/* mm/swap.c: no LRU here; the reference is what matters */
static void mark_page_accessed(struct page *page)
{
	SetPageReferenced(page);
}

int block_invalidatepage(struct page *page, unsigned long offset)
{
	(void)page;
	(void)offset;
	BUG();		/* no page here has buffers */
}

/*
 * What shrink_list() (mm/vmscan.c) calls.  The file has no ->writepage,
 * so a dirty page is activated and writeback is never reached; no page
 * has buffers; there is no swap device, so add_to_swap() fails (as
 * 2.6.3's does when get_swap_page() finds no room) and no page is ever
 * in the swap cache: the swap functions BUG().
 */
#define WB_SYNC_NONE		0
#define WRITEPAGE_ACTIVATE	0x80000
struct writeback_control {
	int sync_mode;
	long nr_to_write;
	unsigned nonblocking:1;
	unsigned for_reclaim:1;
};
struct backing_dev_info;

static inline int current_is_kswapd(void)
{
	return 0;
}

static int may_write_to_queue(struct backing_dev_info *bdi)
{
	(void)bdi;
	BUG();
}

static void handle_write_error(struct address_space *mapping,
			       struct page *page, int error)
{
	(void)mapping;
	(void)page;
	(void)error;
	BUG();
}

static int try_to_release_page(struct page *page, int gfp_mask)
{
	(void)page;
	(void)gfp_mask;
	BUG();
}

static unsigned long lc_add_to_swap_calls;

/* mm/swap_state.c: no swap device here */
static int add_to_swap(struct page *page)
{
	(void)page;
	__atomic_fetch_add(&lc_add_to_swap_calls, 1, __ATOMIC_RELAXED);
	return 0;
}

static void __delete_from_swap_cache(struct page *page)
{
	(void)page;
	BUG();
}

static void swap_free(swp_entry_t entry)
{
	(void)entry;
	BUG();
}

static int swap_duplicate(swp_entry_t entry)
{
	(void)entry;
	BUG();
}

static pte_t swp_entry_to_pte(swp_entry_t entry)
{
	(void)entry;
	BUG();
}

/* mm/swap.c: the reference count is all there is to a page here */
static void __put_page(struct page *page)
{
	atomic_dec(&page->count);
}

/* mm/swap.c: release_pages() of pages off the LRU: each reference
 * here must be the page's last */
static unsigned long lc_freed;

void __pagevec_release_nonlru(struct pagevec *pvec)
{
	unsigned int i;

	for (i = 0; i < pagevec_count(pvec); i++) {
		struct page *page = pvec->pages[i];

		BUG_ON(page_mapped(page));
		BUG_ON(atomic_dec_return(&page->count) != 0);
		__atomic_fetch_add(&lc_freed, 1, __ATOMIC_RELAXED);
	}
	pagevec_init(pvec, pvec->cold);
}

/*
 * mm/mmap.c: the first vma with vm_end above @addr, from mm->mmap (a
 * list here, an rbtree there).  Caller holds the page_table_lock or
 * mmap_sem.
 */
static struct vm_area_struct *find_vma(struct mm_struct *mm,
				       unsigned long addr)
{
	struct vm_area_struct *vma;

	for (vma = mm->mmap; vma; vma = vma->vm_next)
		if (addr < vma->vm_end)
			return vma;
	return NULL;
}

/*
 * mm/rmap.c's pte_chain_alloc()/__pte_chain_free(): the slab hands out
 * constructed (zeroed) pte_chains and takes them back only empty, as
 * page_remove_rmap() leaves them.  Counted, so a case can tell a leak.
 */
struct pte_chain;
static long lc_chains;
struct pte_chain *pte_chain_alloc(int gfp_flags);
void __pte_chain_free(struct pte_chain *pte_chain);

static inline void pte_chain_free(struct pte_chain *pte_chain)
{
	if (pte_chain)
		__pte_chain_free(pte_chain);
}

/* mm/memory.c, 2.6.3 (unmap_vmas() -> zap_pte_range() of a linear vma),
 * modelled below; the nonlinear zap is the series' own, extracted */
void zap_page_range(struct vm_area_struct *vma, unsigned long address,
		    unsigned long size);
/* mm/filemap.c, modelled below */
void __remove_from_page_cache(struct page *page);
int install_page(struct mm_struct *mm, struct vm_area_struct *vma,
		 unsigned long addr, struct page *page, pgprot_t prot);

/* -- the series' code, extracted from the patched tree -------------- */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include "mm_extract.c"
#pragma GCC diagnostic pop

struct pte_chain *pte_chain_alloc(int gfp_flags)
{
	struct pte_chain *pc = aligned_alloc(L1_CACHE_BYTES, sizeof(*pc));

	(void)gfp_flags;
	if (!pc)
		shim_fatal("out of memory for a pte_chain");
	memset(pc, 0, sizeof(*pc));
	__atomic_fetch_add(&lc_chains, 1, __ATOMIC_RELAXED);
	return pc;
}

void __pte_chain_free(struct pte_chain *pte_chain)
{
	unsigned int i;

	for (i = 0; i < NRPTE; i++)
		BUG_ON(pte_chain->ptes[i]);	/* freed with ptes in it */
	__atomic_fetch_sub(&lc_chains, 1, __ATOMIC_RELAXED);
	free(pte_chain);
}

/*
 * 2.6.3's zap_page_range() over a linear vma: zap_pte_range() without
 * the mmu_gather (a page's reference is dropped at once), under the
 * page_table_lock.
 */
void zap_page_range(struct vm_area_struct *vma, unsigned long address,
		    unsigned long size)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long end = address + size;

	spin_lock(&mm->page_table_lock);
	for (; address < end; address += PAGE_SIZE) {
		pte_t *ptep = world_pte(mm, address, 0);
		struct page *page;
		pte_t pte;

		if (!ptep || pte_none(*ptep))
			continue;
		pte = ptep_get_and_clear(ptep);
		if (!pte_present(pte)) {
			BUG_ON(!pte_file(pte));	/* no swap ptes here */
			continue;
		}
		page = pte_page(pte);
		if (PageReserved(page))
			continue;
		if (pte_dirty(pte))
			set_page_dirty(page);
		if (page->mapping && pte_young(pte))
			mark_page_accessed(page);
		mm->rss--;
		page_remove_rmap(page, ptep);
		page_cache_release(page);
	}
	spin_unlock(&mm->page_table_lock);
}

/* -- the harness's page cache ---------------------------------------- */

#define NPG	64		/* pages of the file */

/* A file with a page cache: one slot per index, under mapping->page_lock. */
struct lc_file {
	struct world_file wf;
	struct page *cache[NPG];
};

static struct lc_file file;
static struct address_space *const fmap = &file.wf.mapping;

/* mm/filemap.c, 2.6.3: the radix tree is an array here.  Caller holds
 * mapping->page_lock (and, in the series, pte_chain_lock(page)). */
void __remove_from_page_cache(struct page *page)
{
	struct lc_file *f = container_of(page->mapping, struct lc_file,
					 wf.mapping);

	struct address_space *mapping = page->mapping;

	BUG_ON(!shim_spin_held(&mapping->page_lock));
	BUG_ON(f->cache[page->index] != page);
	f->cache[page->index] = NULL;
	page->mapping = NULL;
	mapping->nrpages--;
}

/* find_get_page(): the page at @index with a reference, or NULL */
static struct page *find_get_page(struct lc_file *f, unsigned long index)
{
	struct page *page;

	spin_lock(&f->wf.mapping.page_lock);
	page = f->cache[index];
	if (page)
		page_cache_get(page);
	spin_unlock(&f->wf.mapping.page_lock);
	return page;
}

/* add_to_page_cache() of a new, uptodate page at every empty index
 * below i_size.  Caller is alone with the file. */
static void fill_cache(struct lc_file *f)
{
	unsigned long index;

	for (index = 0; index < NPG; index++) {
		struct page *page;

		if (f->cache[index] || (loff_t)index << PAGE_CACHE_SHIFT >=
				       i_size_read(&f->wf.inode))
			continue;
		page = world_file_page(&f->wf, index);
		if (!page)
			shim_fatal("mem_map used up");
		SetPageUptodate(page);
		f->cache[index] = page;
		f->wf.mapping.nrpages++;
	}
}

/*
 * 2.6.3's vmtruncate() shrinking @f to @npages: i_size first, then the
 * mappings, then truncate_inode_pages(), whose per-page work is the
 * series' truncate_complete_page() under the page lock.
 */
static void vmtruncate(struct lc_file *f, unsigned long npages)
{
	loff_t offset = (loff_t)npages << PAGE_CACHE_SHIFT;
	unsigned long index;

	i_size_write(&f->wf.inode, offset);
	invalidate_mmap_range(&f->wf.mapping, offset, 0);
	for (index = npages; index < NPG; index++) {
		struct page *page = find_get_page(f, index);

		if (!page)
			continue;
		lock_page(page);
		truncate_complete_page(&f->wf.mapping, page);
		unlock_page(page);
		page_cache_release(page);
	}
}

/*
 * 2.6.3's filemap_populate() for one page: the i_size test on entry,
 * filemap_getpage() (a page-cache reference), install_page(), and the
 * reference dropped if that fails.  Returns install_page()'s result,
 * or 1 if there was nothing to install.
 */
static int populate_one(struct vm_area_struct *vma, unsigned long addr,
			unsigned long pgoff, int dawdle)
{
	struct inode *inode = vma->vm_file->f_mapping->host;
	unsigned long size;
	struct page *page;
	int err;

	size = (i_size_read(inode) + PAGE_CACHE_SIZE - 1) >> PAGE_CACHE_SHIFT;
	if (pgoff >= size)
		return 1;
	page = find_get_page(container_of(vma->vm_file->f_mapping,
					  struct lc_file, wf.mapping), pgoff);
	if (!page)
		return 1;
	if (dawdle)
		sched_yield();	/* truncate may pass here */
	err = install_page(vma->vm_mm, vma, addr, page, vma->vm_page_prot);
	if (err)
		page_cache_release(page);
	return err;
}

/* -- checks ----------------------------------------------------------- */

#define NMM	3
static struct mm_struct *mms[NMM];

/* Does the pte at @paddr map @page? */
static int pte_maps(pte_addr_t paddr, struct page *page)
{
	pte_t *ptep = rmap_ptep_map(paddr);

	return pte_present(*ptep) && pte_page(*ptep) == page;
}

/*
 * The world of this program, quiescent: every page's rmap agrees with
 * the ptes that map it (a counted page's mapcount, a PG_direct page's
 * pte, a pte_chain's entries), page counts cover the ptes, nr_mapped
 * and rss agree, nothing is left locked, and no PG_objrmap page has
 * lost its ->mapping.  With @no_orphans, no pte may map a page that is
 * not in the page cache or lies beyond EOF either.  Returns the number
 * of violations, each printed.
 */
static int lc_check(int no_orphans)
{
	unsigned long npages = world_nr_allocated(), pfn, mapped = 0;
	unsigned long *ptes = calloc(npages, sizeof(*ptes));
	loff_t i_size = i_size_read(&file.wf.inode);
	int bad = 0, m, i, j;

	if (!ptes)
		shim_fatal("out of memory");
	for (m = 0; m < NMM; m++) {
		unsigned long present = 0;

		for (i = 0; i < PTRS_PER_PGD; i++) {
			pte_t *table = mms[m]->pgd[i].table;

			for (j = 0; table && j < PTRS_PER_PTE; j++) {
				if (!pte_present(table[j]))
					continue;
				present++;
				ptes[pte_pfn(table[j])]++;
			}
		}
		if (mms[m]->rss != present) {
			ktap_diag("mm %d: rss %lu, %lu present ptes", m,
				  mms[m]->rss, present);
			bad++;
		}
	}
	for (pfn = 1; pfn < npages; pfn++) {
		struct page *page = pfn_to_page(pfn);
		unsigned long n = ptes[pfn], found = 0;

		if (page_mapped(page))
			mapped++;
		if (PageObjrmap(page)) {
			if (!page->mapping) {
				ktap_diag("pfn %lu (index %lu): PG_objrmap, mapped by %lu ptes, ->mapping NULL: reclaim cannot find them",
					  pfn, page->index, n);
				bad++;
			}
			if (page->pte.mapcount != n || !n) {
				ktap_diag("pfn %lu: PG_objrmap, mapcount %u, %lu ptes",
					  pfn, page->pte.mapcount, n);
				bad++;
			}
		} else if (PageDirect(page)) {
			if (n != 1 || !pte_maps(page->pte.direct, page)) {
				ktap_diag("pfn %lu: PG_direct, %lu ptes, the direct one %s",
					  pfn, n,
					  pte_maps(page->pte.direct, page) ?
					  "maps it" : "does not map it");
				bad++;
			}
		} else if (page->pte.chain) {
			struct pte_chain *pc;

			for (pc = page->pte.chain; pc; pc = pte_chain_next(pc))
				for (i = pte_chain_idx(pc); i < (int)NRPTE;
				     i++) {
					found++;
					if (!pte_maps(pc->ptes[i], page)) {
						ktap_diag("pfn %lu: a pte_chain entry does not map it",
							  pfn);
						bad++;
					}
				}
			if (found != n) {
				ktap_diag("pfn %lu: pte_chain of %lu, %lu ptes",
					  pfn, found, n);
				bad++;
			}
		} else if (n) {
			ktap_diag("pfn %lu: no rmap, %lu ptes", pfn, n);
			bad++;
		}
		if (n && no_orphans && (!page->mapping ||
		    (loff_t)page->index << PAGE_CACHE_SHIFT >= i_size)) {
			ktap_diag("pfn %lu (index %lu, i_size %lld): %s, still mapped by %lu ptes (%s)",
				  pfn, page->index, (long long)i_size,
				  page->mapping ? "beyond EOF" : "truncated",
				  n, PageObjrmap(page) ? "counted" :
				  "pte_chain");
			bad++;
		}
		if ((unsigned long)page_count(page) < n) {
			ktap_diag("pfn %lu: count %d below its %lu ptes", pfn,
				  page_count(page), n);
			bad++;
		}
		if (PageLocked(page) || test_bit(PG_chainlock, &page->flags)) {
			ktap_diag("pfn %lu: left locked", pfn);
			bad++;
		}
	}
	if (shim_page_state.nr_mapped != mapped) {
		ktap_diag("nr_mapped %lu, %lu pages mapped",
			  shim_page_state.nr_mapped, mapped);
		bad++;
	}
	if (lc_warnings) {
		ktap_diag("%d kernel warnings", lc_warnings);
		bad++;
	}
	free(ptes);
	return bad;
}

/* -- setup ------------------------------------------------------------ */

#define SLOT(n)	(0x10000000UL + (unsigned long)(n) * PGDIR_SIZE)

static struct vm_area_struct vmas[8];

/* mem_map of @npages, the file of NPG pages in the page cache, NMM mms */
static void setup_n(unsigned long npages)
{
	int i;

	world_init(npages);
	world_file_init(&file.wf);
	i_size_write(&file.wf.inode, (loff_t)NPG << PAGE_CACHE_SHIFT);
	fill_cache(&file);
	for (i = 0; i < NMM; i++)
		mms[i] = world_mm_new();
}

#define setup()	setup_n(4096)

/* vma @i of the file in mm @m at SLOT(@i): @npages from pgoff 0 */
static struct vm_area_struct *mkvma_n(int i, int m, unsigned long npages,
				      unsigned long flags)
{
	struct vm_area_struct *v = &vmas[i], **p;

	world_vma_init(v, mms[m], &file.wf, SLOT(i), npages, 0, flags);
	world_vma_link(v);
	/* on mm->mmap too, for find_vma() (mmap's __vma_link_list()) */
	spin_lock(&mms[m]->page_table_lock);
	for (p = &mms[m]->mmap; *p && (*p)->vm_start < v->vm_start;
	     p = &(*p)->vm_next)
		;
	v->vm_next = *p;
	*p = v;
	spin_unlock(&mms[m]->page_table_lock);
	return v;
}

#define mkvma(i, m, flags)	mkvma_n(i, m, NPG, flags)

/* the pte at @addr of @m, and the page it maps (NULL if none) */
static struct page *mapped_at(struct mm_struct *m, unsigned long addr)
{
	pte_t pte = world_read_pte(m, addr);

	return pte_present(pte) ? pte_page(pte) : NULL;
}

/* page_add_rmap() for a pte set at @addr of @m, as a fault does */
static void map_at(struct mm_struct *m, unsigned long addr, struct page *page)
{
	struct pte_chain *pc = pte_chain_alloc(GFP_KERNEL);
	pte_t *ptep;

	spin_lock(&m->page_table_lock);
	ptep = world_pte(m, addr, 1);
	BUG_ON(!pte_none(*ptep));
	set_pte(ptep, mk_pte(page, PAGE_SHARED));
	m->rss++;
	get_page(page);
	pc = page_add_rmap(page, ptep, pc);
	spin_unlock(&m->page_table_lock);
	pte_chain_free(pc);
}

static void unmap_at(struct mm_struct *m, unsigned long addr)
{
	struct page *page;
	pte_t *ptep, pte;

	spin_lock(&m->page_table_lock);
	ptep = world_pte(m, addr, 0);
	BUG_ON(!ptep || !pte_present(*ptep));
	pte = ptep_get_and_clear(ptep);
	page = pte_page(pte);
	page_remove_rmap(page, ptep);
	page_cache_release(page);
	m->rss--;
	spin_unlock(&m->page_table_lock);
}

/* -- page_add_rmap()/page_remove_rmap() ------------------------------- */

/* A page-cache page is counted from its first pte, and the pte_chain
 * its caller brought is handed back. */
static void test_rmap_file_page_counted(void)
{
	struct page *page;
	int i;

	setup();
	page = file.cache[3];
	for (i = 0; i < NMM; i++)
		map_at(mms[i], SLOT(i), page);
	CHECK(PageObjrmap(page));
	CHECK(!PageDirect(page));
	CHECK_EQ(page->pte.mapcount, NMM);
	CHECK_EQ(shim_page_state.nr_mapped, 1);
	CHECK_EQ(lc_chains, 0);
	CHECK_EQ(lc_check(0), 0);
	for (i = 0; i < NMM; i++)
		unmap_at(mms[i], SLOT(i));
	CHECK(!PageObjrmap(page));
	CHECK(!page_mapped(page));
	CHECK_EQ(shim_page_state.nr_mapped, 0);
	CHECK_EQ(lc_check(0), 0);
}

/* A page without ->mapping gets PG_direct, then a pte_chain, which grows
 * past one block and shrinks back in any order, freeing its blocks. */
static void test_rmap_anon_page_chain(void)
{
	enum { N = 3 * 7 + 2 };		/* > 3 blocks of NRPTE (7) */
	struct page *page;
	int i, order[N];

	setup();
	page = world_alloc_page();
	map_at(mms[0], SLOT(0), page);
	CHECK(PageDirect(page));
	CHECK(!PageObjrmap(page));
	CHECK_EQ(page->pte.direct,
		 ptep_to_paddr(world_pte(mms[0], SLOT(0), 0)));
	CHECK_EQ(lc_chains, 0);
	for (i = 1; i < N; i++)
		map_at(mms[i % NMM], SLOT(i % NMM) + (i / NMM) * PAGE_SIZE,
		       page);
	CHECK(!PageDirect(page));
	CHECK(!PageObjrmap(page));
	CHECK_EQ(lc_chains, (N - 1 + NRPTE - 1) / NRPTE);
	CHECK_EQ(shim_page_state.nr_mapped, 1);
	CHECK_EQ(lc_check(0), 0);
	for (i = 0; i < N; i++)
		order[i] = i;
	srand(1);
	for (i = N - 1; i > 0; i--) {
		int j = rand() % (i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < N; i++) {
		unmap_at(mms[order[i] % NMM], SLOT(order[i] % NMM) +
			 (order[i] / NMM) * PAGE_SIZE);
		if (lc_check(0))
			ktap_case_failed = 1;
	}
	CHECK(!page_mapped(page));
	CHECK_EQ(lc_chains, 0);
	CHECK_EQ(shim_page_state.nr_mapped, 0);
}

/* The swap cache has a ->mapping but is not a file: pte_chain. */
static void test_rmap_swap_cache_not_counted(void)
{
	struct page *page;

	setup();
	page = world_alloc_page();
	page->mapping = &swapper_space;
	map_at(mms[0], SLOT(0), page);
	map_at(mms[1], SLOT(1), page);
	CHECK(!PageObjrmap(page));
	CHECK_EQ(lc_chains, 1);
	CHECK_EQ(lc_check(0), 0);
	unmap_at(mms[0], SLOT(0));
	unmap_at(mms[1], SLOT(1));
	CHECK_EQ(lc_chains, 0);
	CHECK_EQ(lc_check(0), 0);
}

/*
 * The choice is made on the first pte and kept until the last goes: a
 * pte_chain page that gains a ->mapping stays on its chain, a counted
 * page that loses it stays counted; unmapped, each is chosen afresh.
 */
static void test_rmap_choice_kept_while_mapped(void)
{
	struct page *anon, *filep;

	setup();
	anon = world_alloc_page();
	map_at(mms[0], SLOT(0), anon);
	anon->mapping = fmap;
	map_at(mms[1], SLOT(1), anon);
	CHECK(!PageObjrmap(anon));
	CHECK_EQ(lc_chains, 1);

	filep = file.cache[5];
	map_at(mms[0], SLOT(0) + PAGE_SIZE, filep);
	filep->mapping = NULL;		/* as if taken out while mapped */
	map_at(mms[1], SLOT(1) + PAGE_SIZE, filep);
	CHECK(PageObjrmap(filep));
	CHECK_EQ(filep->pte.mapcount, 2);
	filep->mapping = fmap;
	CHECK_EQ(lc_check(0), 0);

	unmap_at(mms[0], SLOT(0));
	unmap_at(mms[1], SLOT(1));
	unmap_at(mms[0], SLOT(0) + PAGE_SIZE);
	unmap_at(mms[1], SLOT(1) + PAGE_SIZE);
	CHECK_EQ(lc_chains, 0);
	map_at(mms[2], SLOT(2), anon);	/* now it has a ->mapping */
	CHECK(PageObjrmap(anon));
	filep->mapping = NULL;
	map_at(mms[2], SLOT(2) + PAGE_SIZE, filep);
	CHECK(PageDirect(filep));
	filep->mapping = fmap;
	anon->mapping = NULL;
	unmap_at(mms[2], SLOT(2));
	unmap_at(mms[2], SLOT(2) + PAGE_SIZE);
	CHECK(!PageObjrmap(anon));
	CHECK(!PageDirect(filep));
	CHECK_EQ(shim_page_state.nr_mapped, 0);
}

/* Reserved pages have no rmap; removing a pte of an unmapped page (a
 * driver's remap_page_range()) does nothing. */
static void test_rmap_reserved_and_stray(void)
{
	struct page *page, *rsvd;
	struct pte_chain *pc = pte_chain_alloc(GFP_KERNEL), *back;
	pte_t *ptep;

	setup();
	rsvd = world_alloc_page();
	SetPageReserved(rsvd);
	page = file.cache[0];
	spin_lock(&mms[0]->page_table_lock);
	ptep = world_pte(mms[0], SLOT(0), 1);
	back = page_add_rmap(rsvd, ptep, pc);
	CHECK(back == pc);
	CHECK(!page_mapped(rsvd));
	page_remove_rmap(page, ptep);		/* never mapped */
	CHECK(!page_mapped(page));
	CHECK(!PageObjrmap(page));
	spin_unlock(&mms[0]->page_table_lock);
	pte_chain_free(back);
	CHECK_EQ(shim_page_state.nr_mapped, 0);
	CHECK_EQ(lc_chains, 0);
}

/* s390's storage-key dirty bit moves to the page when the last pte of
 * a pte_chain page goes. */
static void test_rmap_last_remove_storage_dirty(void)
{
	struct page *page;

	setup();
	page = world_alloc_page();
	map_at(mms[0], SLOT(0), page);
	page->shim_storage_dirty = 1;
	unmap_at(mms[0], SLOT(0));
	CHECK(PageDirty(page));
}

/* -- install_page() --------------------------------------------------- */

/* Inside EOF the page is mapped (and counted), replacing what the pte
 * held; beyond EOF it is refused and the pte left alone. */
static void test_install_page_eof(void)
{
	struct vm_area_struct *v;
	struct page *old, *page;
	int count;

	setup();
	v = mkvma(0, 0, VM_SHARED | VM_NONLINEAR);
	old = file.cache[1];
	page_cache_get(old);
	CHECK_EQ(install_page(mms[0], v, SLOT(0), old, v->vm_page_prot), 0);
	CHECK(mapped_at(mms[0], SLOT(0)) == old);
	CHECK(PageObjrmap(old));

	page = file.cache[NPG - 1];
	page_cache_get(page);
	CHECK_EQ(install_page(mms[0], v, SLOT(0), page, v->vm_page_prot), 0);
	CHECK(mapped_at(mms[0], SLOT(0)) == page);
	CHECK(!page_mapped(old));
	CHECK_EQ(page_count(old), 1);		/* the page cache's */

	/* truncated to NPG - 1 pages: the last one is beyond EOF */
	i_size_write(&file.wf.inode, (loff_t)(NPG - 1) << PAGE_CACHE_SHIFT);
	count = page_count(page);
	page_cache_get(page);
	CHECK_EQ(install_page(mms[0], v, SLOT(0) + PAGE_SIZE, page,
			      v->vm_page_prot), -EINVAL);
	page_cache_release(page);
	CHECK(!mapped_at(mms[0], SLOT(0) + PAGE_SIZE));
	CHECK_EQ(page_count(page), count);
	CHECK_EQ(page->pte.mapcount, 1);
	/* a partial last page is inside EOF */
	i_size_write(&file.wf.inode,
		     ((loff_t)(NPG - 1) << PAGE_CACHE_SHIFT) + 1);
	page_cache_get(page);
	CHECK_EQ(install_page(mms[0], v, SLOT(0) + PAGE_SIZE, page,
			      v->vm_page_prot), 0);
	CHECK_EQ(page->pte.mapcount, 2);
	CHECK_EQ(lc_chains, 0);
	CHECK_EQ(lc_check(0), 0);
}

/*
 * ->populate looks a page up, then truncate takes it out and the file
 * grows back before install_page() runs: the page is inside the new
 * EOF, so the i_size test lets it through, and a page no longer in the
 * page cache is mapped (2.6.3 did the same; do_no_page() retries on
 * truncate_count instead).  What must hold is that it is not counted:
 * with ->mapping NULL it gets a PG_direct pte, which reclaim can undo.
 */
static void test_install_page_after_truncate_and_extend(void)
{
	struct vm_area_struct *v;
	struct page *page;

	setup();
	v = mkvma(0, 0, VM_SHARED | VM_NONLINEAR);
	page = find_get_page(&file, NPG - 1);		/* ->populate */
	vmtruncate(&file, NPG - 1);
	i_size_write(&file.wf.inode, (loff_t)NPG << PAGE_CACHE_SHIFT);
	fill_cache(&file);
	CHECK(!page->mapping);
	CHECK_EQ(install_page(mms[0], v, SLOT(0), page, v->vm_page_prot), 0);
	if (mapped_at(mms[0], SLOT(0)) == page)
		ktap_diag("note: a truncated page was mapped after the file grew back (not counted: %s)",
			  PageObjrmap(page) ? "no" : "yes");
	CHECK(!PageObjrmap(page));
	CHECK_EQ(lc_check(0), 0);
}

/* -- truncate --------------------------------------------------------- */

/*
 * Truncating a file mapped by a nonlinear vma (pages at scrambled
 * addresses, some twice) and by a linear one leaves every page beyond
 * EOF unmapped - a file pte behind in the nonlinear vma - and in no
 * page cache, every page inside EOF mapped as before, and no truncated
 * page counted and mapped.
 */
static void test_truncate_nonlinear(void)
{
	struct vm_area_struct *nl, *lin;
	unsigned long i, keep = NPG / 2;
	struct page *before[NPG + 8];

	setup();
	nl = mkvma_n(0, 0, NPG + 8, VM_SHARED | VM_NONLINEAR);
	lin = mkvma(1, 1, VM_SHARED);
	for (i = 0; i < NPG; i++) {
		unsigned long pgoff = (i * 37 + 11) % NPG;

		CHECK_EQ(populate_one(nl, SLOT(0) + i * PAGE_SIZE, pgoff, 0),
			 0);
		CHECK_EQ(populate_one(lin, SLOT(1) + i * PAGE_SIZE, i, 0), 0);
	}
	for (i = 0; i < 8; i++)		/* twice in the nonlinear vma */
		CHECK_EQ(populate_one(nl, SLOT(0) + (NPG + i) * PAGE_SIZE,
				      NPG - 1 - i, 0), 0);
	for (i = 0; i < NPG; i++)
		before[i] = mapped_at(mms[0], SLOT(0) + i * PAGE_SIZE);
	CHECK_EQ(lc_check(1), 0);

	vmtruncate(&file, keep);

	for (i = 0; i < NPG; i++) {
		unsigned long pgoff = (i * 37 + 11) % NPG;
		pte_t pte = world_read_pte(mms[0], SLOT(0) + i * PAGE_SIZE);

		if (pgoff < keep ?
		    !(pte_present(pte) && pte_page(pte) == before[i]) :
		    !(!pte_present(pte) && pte_file(pte) &&
		      pte_to_pgoff(pte) == pgoff && !before[i]->mapping)) {
			ktap_diag("nonlinear pte %lu (index %lu, i_size %lu pages): pte %#lx",
				  i, pgoff, keep, pte_val(pte));
			ktap_case_failed = 1;
		}
		CHECK(!!mapped_at(mms[1], SLOT(1) + i * PAGE_SIZE) ==
		      (i < keep));
	}
	CHECK_EQ(fmap->nrpages, keep);
	CHECK_EQ(lc_warnings, 0);
	CHECK_EQ(lc_check(1), 0);
}

/*
 * A fault that started before i_size changed maps a page after the
 * unmap passed (here: mapped by hand in the linear vma between
 * invalidate_mmap_range() and truncate_inode_pages()).
 * truncate_complete_page() must unmap it again, not take it out of the
 * page cache mapped.
 */
static void test_truncate_remaps_late_fault(void)
{
	struct vm_area_struct *lin;
	struct page *page;

	setup();
	lin = mkvma(0, 0, VM_SHARED);
	page = file.cache[NPG - 1];
	i_size_write(&file.wf.inode, (loff_t)(NPG - 1) << PAGE_CACHE_SHIFT);
	invalidate_mmap_range(fmap, (loff_t)(NPG - 1) << PAGE_CACHE_SHIFT,
			      0);
	map_at(mms[0], SLOT(0) + (NPG - 1) * PAGE_SIZE, page);	/* late */
	CHECK(PageObjrmap(page));
	page_cache_get(page);
	lock_page(page);
	truncate_complete_page(fmap, page);
	unlock_page(page);
	CHECK(!page_mapped(page));
	CHECK(!page->mapping);
	CHECK(!mapped_at(mms[0], SLOT(0) + (NPG - 1) * PAGE_SIZE));
	page_cache_release(page);
	CHECK_EQ(page_count(page), 0);
	CHECK_EQ(lc_check(1), 0);
	(void)lin;
}

/*
 * remove_unmapped_page() takes a page out of the page cache only if no
 * pte maps it (tested under pte_chain_lock), and with @keep_dirty (for
 * invalidate_inode_pages()) only if it is clean.
 */
static void test_remove_unmapped_page(void)
{
	struct page *mapped, *dirty, *clean;

	setup();
	mapped = file.cache[0];
	dirty = file.cache[1];
	clean = file.cache[2];
	map_at(mms[0], SLOT(0), mapped);
	SetPageDirty(dirty);
	CHECK_EQ(remove_unmapped_page(fmap, mapped, 0, 0), 0);
	CHECK(mapped->mapping == fmap);
	CHECK(file.cache[0] == mapped);
	CHECK_EQ(remove_unmapped_page(fmap, dirty, 1, 0), 0);
	CHECK(dirty->mapping == fmap);
	page_cache_get(clean);
	CHECK_EQ(remove_unmapped_page(fmap, clean, 1, 0), 1);
	CHECK(!clean->mapping);
	CHECK(!file.cache[2]);
	CHECK_EQ(page_count(clean), 1);	/* ours, not the cache's */
	page_cache_release(clean);
	CHECK_EQ(fmap->nrpages, NPG - 1);
	/* even_mapped: truncate inside EOF lets it go with its ptes */
	CHECK_EQ(remove_unmapped_page(fmap, dirty, 0, 1), 1);
	CHECK(!dirty->mapping);
	CHECK_EQ(lc_check(0), 0);
}

/* -- shrink_list() ---------------------------------------------------- */

/*
 * shrink_cache() for one page: @page isolated from the LRU with a
 * reference (the caller's), shrink_list() on a list of it alone.  A page
 * it keeps goes back on the LRU (the reference dropped); *@activated
 * says whether it went to the active list, from which refill_inactive_zone()
 * would later take it back (PG_active cleared here).  Returns 1 if the
 * page was freed.
 */
static int reclaim_one(struct page *page, int *activated)
{
	int max_scan = 1, nr_mapped = 0, ret;
	LIST_HEAD(page_list);

	list_add(&page->lru, &page_list);
	ret = shrink_list(&page_list, GFP_KERNEL, &max_scan, &nr_mapped);
	*activated = 0;
	if (!ret) {
		BUG_ON(page_list.next != &page->lru);
		list_del(&page->lru);
		*activated = PageActive(page);
		ClearPageActive(page);
		page_cache_release(page);
	}
	return ret;
}

/* A counted page mapped by unreferenced ptes in three mms is unmapped
 * through the file's vmas and freed. */
static void test_shrink_list_counted_freed(void)
{
	struct page *page;
	int i, act;

	setup();
	for (i = 0; i < NMM; i++)
		mkvma(i, i, i ? VM_SHARED : 0);
	page = file.cache[5];
	for (i = 0; i < NMM; i++)
		map_at(mms[i], SLOT(i) + 5 * PAGE_SIZE, page);
	CHECK(PageObjrmap(page));
	page_cache_get(page);
	CHECK_EQ(reclaim_one(page, &act), 1);
	CHECK(!page->mapping);
	CHECK(!page_mapped(page));
	CHECK_EQ(page_count(page), 0);
	CHECK_EQ(lc_freed, 1);
	CHECK(!file.cache[5]);
	CHECK_EQ(lc_add_to_swap_calls, 0);
	CHECK_EQ(lc_check(1), 0);
}

/* A young pte keeps a counted page mapped: activated, young bit gone. */
static void test_shrink_list_referenced_activated(void)
{
	struct page *page;
	unsigned long addr = SLOT(1) + 5 * PAGE_SIZE;
	int act;

	setup();
	mkvma(0, 0, VM_SHARED);
	mkvma(1, 1, VM_SHARED);
	page = file.cache[5];
	map_at(mms[0], SLOT(0) + 5 * PAGE_SIZE, page);
	map_at(mms[1], addr, page);
	world_write_pte(mms[1], addr, pte_mkyoung(world_read_pte(mms[1], addr)));
	page_cache_get(page);
	CHECK_EQ(reclaim_one(page, &act), 0);
	CHECK(act);
	CHECK_EQ(page->pte.mapcount, 2);
	CHECK(!pte_young(world_read_pte(mms[1], addr)));
	CHECK(page->mapping == fmap);
	CHECK_EQ(lc_check(1), 0);
}

/*
 * A counted page that truncate inside EOF took out of the page cache
 * while mapped (->mapping NULL, still PG_objrmap) has no pte_chain:
 * shrink_list() must keep it (activate) and not hand it to add_to_swap(),
 * which would give it a swap ->mapping that its counted ptes know
 * nothing of.
 */
static void test_shrink_list_orphan_counted_kept(void)
{
	struct page *page;
	int act;

	setup();
	mkvma(0, 0, VM_SHARED);
	page = file.cache[7];
	map_at(mms[0], SLOT(0) + 7 * PAGE_SIZE, page);
	page_cache_get(page);		/* truncate_inode_pages()' */
	lock_page(page);
	CHECK_EQ(remove_unmapped_page(fmap, page, 0, 1), 1);
	unlock_page(page);
	CHECK(PageObjrmap(page));
	CHECK(!page->mapping);
	CHECK_EQ(reclaim_one(page, &act), 0);	/* takes over our ref */
	CHECK(act);
	CHECK_EQ(lc_add_to_swap_calls, 0);
	CHECK(PageObjrmap(page));
	CHECK_EQ(page->pte.mapcount, 1);
	CHECK(mapped_at(mms[0], SLOT(0) + 7 * PAGE_SIZE) == page);
	CHECK_EQ(page_count(page), 1);		/* the pte's */
}

/* A truncated page on a pte_chain (PG_direct) is anonymous to reclaim:
 * add_to_swap() is tried (and fails: no swap), as in 2.6.3. */
static void test_shrink_list_orphan_chain_to_swap(void)
{
	struct page *page;
	int act;

	setup();
	mkvma(0, 0, VM_SHARED);
	page = file.cache[8];
	page_cache_get(page);
	lock_page(page);
	CHECK_EQ(remove_unmapped_page(fmap, page, 0, 0), 1);
	unlock_page(page);
	map_at(mms[0], SLOT(0) + 8 * PAGE_SIZE, page);
	CHECK(PageDirect(page));
	CHECK_EQ(reclaim_one(page, &act), 0);
	CHECK(act);
	CHECK_EQ(lc_add_to_swap_calls, 1);
	CHECK(mapped_at(mms[0], SLOT(0) + 8 * PAGE_SIZE) == page);
	CHECK_EQ(lc_check(0), 0);
}

/* -- mremap ------------------------------------------------------------ */

/* The lowest page_mapped() seen at a pte_chain_unlock() of the page. */
static struct page *watched;
static int watched_min;

static void watch_unlock(struct page *page)
{
	if (page == watched && page->pte.direct < (unsigned long)watched_min)
		watched_min = (int)page->pte.direct;
}

/*
 * copy_one_pte() moves a counted page's pte with the new rmap added
 * before the old is removed: the page never looks unmapped, so truncate
 * cannot take it out of the page cache meanwhile.
 */
static void test_mremap_counted_stays_mapped(void)
{
	struct vm_area_struct *v;
	struct pte_chain *pc;
	struct page *page;
	pte_t *src, *dst;

	setup();
	v = mkvma(0, 0, VM_SHARED);
	page = file.cache[2];
	map_at(mms[0], SLOT(0) + 2 * PAGE_SIZE, page);
	CHECK(PageObjrmap(page));
	watched = page;
	watched_min = INT_MAX;
	shim_pte_chain_unlock_hook = watch_unlock;
	pc = pte_chain_alloc(GFP_KERNEL);
	spin_lock(&mms[0]->page_table_lock);
	src = world_pte(mms[0], SLOT(0) + 2 * PAGE_SIZE, 0);
	dst = world_pte(mms[0], SLOT(1) + 2 * PAGE_SIZE, 1);
	CHECK_EQ(copy_one_pte(v, SLOT(0) + 2 * PAGE_SIZE, src, dst, &pc), 0);
	spin_unlock(&mms[0]->page_table_lock);
	shim_pte_chain_unlock_hook = NULL;
	pte_chain_free(pc);
	ktap_diag("fig: lifecycle.mremap_min_mapcount %d", watched_min);
	CHECK(watched_min >= 1);
	CHECK(mapped_at(mms[0], SLOT(1) + 2 * PAGE_SIZE) == page);
	CHECK(!mapped_at(mms[0], SLOT(0) + 2 * PAGE_SIZE));
	CHECK_EQ(page->pte.mapcount, 1);
	CHECK_EQ(lc_check(0), 0);
}

/* -- threaded: truncate against install_page() ----------------------- */

static unsigned int stress_seconds = 2;
static int round_done;
static pthread_barrier_t barrier;
static int stop;
static struct vm_area_struct *stress_vma[3];
static unsigned long installed, refused;	/* install_page() 0, -EINVAL */
static unsigned long reclaimed, activated;	/* shrink_list() */

static unsigned long rnd(unsigned long *s)
{
	*s = *s * 6364136223846793005UL + 1442695040888963407UL;
	return *s >> 33;
}

/*
 * remap_file_pages()/MAP_POPULATE in a loop: thread @arg fills its vma
 * (0: nonlinear, at random addresses; 1: linear shared; 2: linear
 * private) through populate_one(), until each round is done.
 */
static void *populater(void *arg)
{
	long which = (long)arg;
	struct vm_area_struct *v = stress_vma[which];
	unsigned long seed = 12345 + which, pgoff, addr;

	for (;;) {
		pthread_barrier_wait(&barrier);	/* round starts */
		if (__atomic_load_n(&stop, __ATOMIC_RELAXED))
			return NULL;
		while (!__atomic_load_n(&round_done, __ATOMIC_RELAXED)) {
			pgoff = rnd(&seed) % NPG;
			addr = v->vm_start + (which ? pgoff :
					      rnd(&seed) % NPG) * PAGE_SIZE;
			switch (populate_one(v, addr, pgoff, rnd(&seed) & 1)) {
			case 0:
				__atomic_fetch_add(&installed, 1,
						   __ATOMIC_RELAXED);
				break;
			case -EINVAL:
				__atomic_fetch_add(&refused, 1,
						   __ATOMIC_RELAXED);
				break;
			}
		}
		pthread_barrier_wait(&barrier);		/* round ends */
	}
}

/*
 * shrink_cache() in a loop, over the page cache as its LRU: isolate a
 * page with a reference (find_get_page() here), shrink_list() it.
 */
static void *reclaimer(void *arg)
{
	unsigned long seed = 999, n = 0;
	struct page *page;
	int act;

	(void)arg;
	for (;;) {
		pthread_barrier_wait(&barrier);		/* round starts */
		if (__atomic_load_n(&stop, __ATOMIC_RELAXED))
			return NULL;
		while (!__atomic_load_n(&round_done, __ATOMIC_RELAXED)) {
			page = find_get_page(&file, rnd(&seed) % NPG);
			if (!page)
				continue;
			if (reclaim_one(page, &act))
				__atomic_fetch_add(&reclaimed, 1,
						   __ATOMIC_RELAXED);
			else if (act)
				__atomic_fetch_add(&activated, 1,
						   __ATOMIC_RELAXED);
			if (!(++n % 4))
				usleep(20);	/* leave the populaters some */
		}
		pthread_barrier_wait(&barrier);		/* round ends */
	}
}

/*
 * Rounds: the file grows back to NPG pages with fresh pages while the
 * threads wait, then shrinks to nothing in random steps while they
 * populate and a reclaimer runs shrink_list() over the page cache.  At
 * the end of each round, with everyone waiting, nothing may be mapped:
 * the series' fixes (install_page()'s i_size test, truncate unmapping
 * nonlinear vmas by index and taking out only unmapped pages) leave no
 * page beyond EOF or out of the page cache mapped, and no counted page
 * without ->mapping.
 */
static void test_stress_truncate_vs_install(void)
{
	const char *env = getenv("OBJRMAP_STRESS_SECONDS");
	unsigned long seed = 777, rounds = 0;
	pthread_t th[4];
	time_t end;
	long i;

	if (env)
		stress_seconds = atoi(env);
	setup_n(1 << 16);
	stress_vma[0] = mkvma(0, 0, VM_SHARED | VM_NONLINEAR);
	stress_vma[1] = mkvma(1, 1, VM_SHARED);
	stress_vma[2] = mkvma(2, 2, 0);
	pthread_barrier_init(&barrier, NULL, 5);
	for (i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, populater, (void *)i);
	pthread_create(&th[3], NULL, reclaimer, NULL);
	end = time(NULL) + stress_seconds;
	while (time(NULL) < end && world_nr_allocated() + NPG < max_mapnr) {
		unsigned long size = NPG;

		i_size_write(&file.wf.inode, (loff_t)NPG << PAGE_CACHE_SHIFT);
		fill_cache(&file);
		__atomic_store_n(&round_done, 0, __ATOMIC_RELAXED);
		pthread_barrier_wait(&barrier);
		while (size) {
			size -= 1 + rnd(&seed) % (size < 8 ? size : 8);
			vmtruncate(&file, size);
			usleep(50);
		}
		__atomic_store_n(&round_done, 1, __ATOMIC_RELAXED);
		pthread_barrier_wait(&barrier);
		rounds++;
		if (lc_check(1)) {
			ktap_diag("round %lu: the world is wrong", rounds);
			ktap_case_failed = 1;
			break;
		}
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_barrier_wait(&barrier);
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	ktap_diag("fig: lifecycle.truncate_rounds %lu", rounds);
	ktap_diag("fig: lifecycle.install_page_ok %lu", installed);
	ktap_diag("fig: lifecycle.install_page_einval %lu", refused);
	ktap_diag("fig: lifecycle.shrink_list_freed %lu", reclaimed);
	ktap_diag("fig: lifecycle.shrink_list_activated %lu", activated);
	CHECK(rounds > 0);
	CHECK_EQ(lc_check(1), 0);
}

#define CASE(fn) { &#fn[5], fn }	/* without "test_" */
static const struct ktap_case cases[] = {
	CASE(test_rmap_file_page_counted),
	CASE(test_rmap_anon_page_chain),
	CASE(test_rmap_swap_cache_not_counted),
	CASE(test_rmap_choice_kept_while_mapped),
	CASE(test_rmap_reserved_and_stray),
	CASE(test_rmap_last_remove_storage_dirty),
	CASE(test_install_page_eof),
	CASE(test_install_page_after_truncate_and_extend),
	CASE(test_truncate_nonlinear),
	CASE(test_truncate_remaps_late_fault),
	CASE(test_remove_unmapped_page),
	CASE(test_shrink_list_counted_freed),
	CASE(test_shrink_list_referenced_activated),
	CASE(test_shrink_list_orphan_counted_kept),
	CASE(test_shrink_list_orphan_chain_to_swap),
	CASE(test_mremap_counted_stays_mapped),
	CASE(test_stress_truncate_vs_install),
};

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	return ktap_run(cases, sizeof(cases) / sizeof(cases[0]), 60);
}

#endif /* LIFECYCLE_NO_TREE */
