// SPDX-License-Identifier: GPL-2.0
/*
 * tools/testing/objrmap/stress.c - the objrmap walk under concurrency.
 *
 * Threads stand for the kernel paths that map and unmap file pages, each
 * taking the locks in the order the 2.6.3 code does (mm/objrmap.c's
 * header: i_shared_sem -> page_table_lock -> pte_chain_lock), while
 * reclaim threads call page_referenced_obj() and try_to_unmap_obj() the
 * way shrink_list() does (page lock and pte_chain_lock held).  After a
 * bounded run the world is checked: every PG_objrmap page's mapcount
 * equals the ptes that map it, no pte maps an unmapped page, rss and
 * nr_mapped agree, page counts cover every pte and the page cache.
 *
 * Built plain, this finds broken bookkeeping.  Built with ThreadSanitizer
 * it also finds data races and lock-order inversions: the shims make
 * every kernel lock a pthread mutex (trylocks stay trylocks, which add no
 * edge to TSan's lock graph), and page table entries are plain memory
 * touched only under page_table_lock.
 *
 * Each scenario adds, to a common base, one more kernel path that changes
 * what the walk reads; each runs in a process of its own (lib/ktap.c), so
 * a report names the scenario that provoked it.
 *
 * Environment: OBJRMAP_STRESS_SECONDS (default 2) bounds each scenario,
 * OBJRMAP_STRESS_ITERS (default: no limit) each thread's operations;
 * OBJRMAP_SEED (default 1) seeds the threads' generators.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/ktap.h"
#include "lib/world.h"

#define NMM		4	/* address spaces */
#define NSLOT		4	/* vma slots per address space */
#define NFILE		48	/* pages in the file */
#define MAXLEN		24	/* pages in a new vma */
#define MAXGROW		64	/* pages a vma may grow to (mremap) */
#define NANON		8	/* anonymous pages COW copies map */
#define POOL		(1 << 15)

#define SLOT_START(s)	(0x10000000UL + (unsigned long)(s) * PGDIR_SIZE)

struct scenario {
	const char *name;
	const char *about;
	int nonlinear;		/* nonlinear vmas + install_page */
	int truncate_zap;	/* vmtruncate's zap under i_shared_sem */
	int truncate_pages;	/* truncate_inode_pages: ->mapping = NULL */
	int refill;		/* refill_inactive_zone: page trylocked */
	int mlock;		/* mlock_fixup: vm_flags under page_table_lock */
	int mremap;		/* mremap in place: vm_end under page_table_lock */
	int set_nonlinear;	/* remap_file_pages sets VM_NONLINEAR */
};

static const struct scenario *sc;

struct sim_vma {
	struct vm_area_struct vma;
	int in_use;		/* under the mm's mmap_sem */
};

struct sim_mm {
	struct mm_struct *mm;
	pthread_rwlock_t mmap_sem;
	struct sim_vma slot[NSLOT];
};

static struct world_file file;
static struct sim_mm mms[NMM];
static struct mm_struct *mm_list[NMM];

/* The page cache of the file, under tree_lock (2.6.3: mapping->page_lock). */
static spinlock_t tree_lock;
static struct page *cache[NFILE];

/* The LRU reclaim picks pages from (zone->lru_lock). */
static spinlock_t lru_lock;
static struct page *lru[POOL];
static unsigned long nr_lru;

static struct page *anon[NANON];

static void mmap_sem_read(struct sim_mm *m)
{
	int err = pthread_rwlock_rdlock(&m->mmap_sem);

	if (err)
		shim_fatal("down_read(mmap_sem): %s", strerror(err));
}

static void mmap_sem_write(struct sim_mm *m)
{
	int err = pthread_rwlock_wrlock(&m->mmap_sem);

	if (err)
		shim_fatal("down_write(mmap_sem): %s", strerror(err));
}

static void mmap_sem_up(struct sim_mm *m)
{
	int err = pthread_rwlock_unlock(&m->mmap_sem);

	if (err)
		shim_fatal("up(mmap_sem): %s", strerror(err));
}

static int stop;
static unsigned long max_iters;	/* 0: until the time is up */

/* Statistics, atomically counted. */
static unsigned long st_faults, st_cows, st_mmaps, st_munmaps, st_installs,
	st_truncates, st_refs, st_referenced, st_unmap[3], st_refills,
	st_mlocks, st_mremaps, st_set_nonlinear;

#define STAT(x)	__atomic_fetch_add(&(x), 1, __ATOMIC_RELAXED)

static unsigned long rnd(unsigned long long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (unsigned long)(*s >> 11);
}

static int get_page_unless_zero(struct page *page)
{
	int c = atomic_read(&page->count);

	while (c) {
		/* relaxed, as the kernel's page_cache_get(): lru_lock,
		 * not the count, orders what the reclaimer sees */
		if (__atomic_compare_exchange_n(&page->count.counter, &c, c + 1,
						0, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			return 1;
	}
	return 0;
}

static void lru_add(struct page *page)
{
	spin_lock(&lru_lock);
	if (nr_lru < POOL)
		lru[nr_lru++] = page;
	spin_unlock(&lru_lock);
}

/* find_get_page() or page_cache_alloc() + add_to_page_cache_lru():
 * the page at @index with a reference for the caller, or NULL. */
static struct page *find_or_create(unsigned long index)
{
	struct page *page, *new = NULL;

	spin_lock(&tree_lock);
	page = cache[index];
	if (page) {
		get_page(page);
	} else {
		new = world_file_page(&file, index);	/* count 1: the cache */
		if (new) {
			get_page(new);			/* and ours */
			cache[index] = new;
		}
		page = new;
	}
	spin_unlock(&tree_lock);
	if (new)
		lru_add(new);
	return page;
}

static struct sim_vma *pick_vma(struct sim_mm *m, unsigned long long *rng)
{
	struct sim_vma *v = &m->slot[rnd(rng) % NSLOT];

	return v->in_use ? v : NULL;
}

static int is_anon(struct page *page)
{
	int i;

	for (i = 0; i < NANON; i++)
		if (anon[i] == page)
			return 1;
	return 0;
}

/*
 * do_no_page() / do_file_page() / do_wp_page(): under mmap_sem (read),
 * look the page up without locks, then set the pte under page_table_lock;
 * page_add_rmap() takes pte_chain_lock inside.  A present pte is touched
 * (young, dirty on a shared write) or, on a private write to a file
 * page, COW-broken to an anonymous page.
 */
static void op_fault(struct sim_mm *m, unsigned long long *rng)
{
	struct mm_struct *mm = m->mm;
	struct sim_vma *sv;
	struct vm_area_struct *vma;
	unsigned long address, off, index;
	int write = rnd(rng) % 4 == 0;
	struct page *page;
	pte_t *ptep, cur;

	mmap_sem_read(m);
	sv = pick_vma(m, rng);
	if (!sv)
		goto out;
	vma = &sv->vma;
	off = rnd(rng) % ((vma->vm_end - vma->vm_start) >> PAGE_SHIFT);
	address = vma->vm_start + off * PAGE_SIZE;
	STAT(st_faults);

	spin_lock(&mm->page_table_lock);
	ptep = world_pte(mm, address, 1);
	cur = *ptep;
	if (pte_present(cur)) {
		page = pfn_to_page(pte_pfn(cur));
		if (write && !(vma->vm_flags & VM_SHARED) && !is_anon(page)) {
			struct page *copy = anon[rnd(rng) % NANON];

			get_page(copy);
			set_pte(ptep, pfn_pte(page_to_pfn(copy),
				__pgprot(_PAGE_PRESENT | _PAGE_USER | _PAGE_RW |
					 _PAGE_ACCESSED | _PAGE_DIRTY)));
			world_page_add_rmap(copy);
			world_page_remove_rmap(page);
			put_page(page);
			STAT(st_cows);
		} else {
			cur = pte_mkyoung(cur);
			if (write && (vma->vm_flags & VM_SHARED))
				cur = pte_mkdirty(cur);
			set_pte(ptep, cur);
		}
		spin_unlock(&mm->page_table_lock);
		goto out;
	}
	spin_unlock(&mm->page_table_lock);

	index = pte_file(cur) ? pte_to_pgoff(cur) : vma->vm_pgoff + off;
	if (index >= NFILE)
		goto out;			/* SIGBUS */
	page = find_or_create(index);
	if (!page)
		goto out;
	if (rnd(rng) % 16 == 0)
		usleep(100);	/* ->nopage waits for the read: truncate may run */
	if (write && !(vma->vm_flags & VM_SHARED)) {	/* COW at fault */
		put_page(page);
		page = anon[rnd(rng) % NANON];
		get_page(page);
	}
	spin_lock(&mm->page_table_lock);
	if (pte_val(*ptep) == pte_val(cur)) {
		set_pte(ptep, pfn_pte(page_to_pfn(page),
			__pgprot(_PAGE_PRESENT | _PAGE_USER | _PAGE_ACCESSED |
				 (write ? _PAGE_DIRTY | _PAGE_RW : 0))));
		mm->rss++;
		world_page_add_rmap(page);	/* the reference goes to the pte */
		page = NULL;
	}
	spin_unlock(&mm->page_table_lock);
	if (page)
		put_page(page);			/* lost the race */
out:
	mmap_sem_up(m);
}

/*
 * do_mmap_pgoff() + vma_link(), or do_munmap(): under mmap_sem (write).
 * A new vma is filled in before vma_link() puts it on the file's list
 * under i_shared_sem and page_table_lock; flags given at mmap time
 * (MAP_LOCKED, VM_RESERVED, and here VM_NONLINEAR too) are set then.
 * munmap zaps the ptes under page_table_lock (unmap_region), then takes
 * the vma off the list under i_shared_sem (remove_shared_vm_struct).
 */
static void op_mmap(struct sim_mm *m, unsigned long long *rng)
{
	struct sim_vma *sv = &m->slot[rnd(rng) % NSLOT];
	struct vm_area_struct *vma = &sv->vma;

	mmap_sem_write(m);
	if (sv->in_use) {
		world_zap_range(m->mm, vma->vm_start, vma->vm_end);
		world_vma_unlink(vma);
		sv->in_use = 0;
		STAT(st_munmaps);
	} else {
		unsigned long npages = 1 + rnd(rng) % MAXLEN;
		unsigned long pgoff = rnd(rng) % (NFILE - npages + 4);
		unsigned long flags = VM_READ | VM_WRITE;

		if (rnd(rng) % 2)
			flags |= VM_SHARED;
		if ((flags & VM_SHARED) && sc->nonlinear && rnd(rng) % 3 == 0)
			flags |= VM_NONLINEAR;
		if (rnd(rng) % 10 == 0)
			flags |= VM_LOCKED;
		if (rnd(rng) % 20 == 0)
			flags |= VM_RESERVED;
		world_vma_init(vma, m->mm, &file, SLOT_START(sv - m->slot),
			       npages, pgoff, flags);
		world_vma_link(vma);
		sv->in_use = 1;
		STAT(st_mmaps);
	}
	mmap_sem_up(m);
}

/*
 * remap_file_pages()'s populate: install_page() for a few pages at
 * arbitrary offsets of a nonlinear vma, each under page_table_lock,
 * zapping what was there.  When the scenario has set_nonlinear, a
 * shared vma that is not yet nonlinear becomes so the way the series'
 * sys_remap_file_pages() does it, under mmap_sem (write) and
 * i_shared_sem: out of the file's index (__vma_index_unlink), vm_flags
 * |= VM_NONLINEAR under page_table_lock, back in as a nonlinear vma
 * (__vma_index_link puts it on i_mmap_nonlinear).  (The populate runs
 * under mmap_sem for write here; the kernel downgrades to read, which
 * excludes less, not more.)
 */
static void op_remap(struct sim_mm *m, unsigned long long *rng)
{
	struct mm_struct *mm = m->mm;
	struct sim_vma *sv;
	struct vm_area_struct *vma;
	unsigned long npages, i, n;

	mmap_sem_write(m);
	sv = pick_vma(m, rng);
	if (!sv || !(sv->vma.vm_flags & VM_SHARED))
		goto out;
	vma = &sv->vma;
	if (!(vma->vm_flags & VM_NONLINEAR)) {
		if (!sc->set_nonlinear)
			goto out;
		down(&file.mapping.i_shared_sem);
		__vma_index_unlink(vma, &file.mapping);
		spin_lock(&mm->page_table_lock);
		vma->vm_flags |= VM_NONLINEAR;
		spin_unlock(&mm->page_table_lock);
		__vma_index_link(vma, &file.mapping);
		up(&file.mapping.i_shared_sem);
		STAT(st_set_nonlinear);
	}
	npages = (vma->vm_end - vma->vm_start) >> PAGE_SHIFT;
	n = 1 + rnd(rng) % 4;
	for (i = 0; i < n; i++) {
		unsigned long address = vma->vm_start +
					(rnd(rng) % npages) * PAGE_SIZE;
		struct page *page = find_or_create(rnd(rng) % NFILE);
		pte_t *ptep;

		if (!page)
			break;
		spin_lock(&mm->page_table_lock);
		ptep = world_pte(mm, address, 1);
		world_zap_pte(mm, address);
		mm->rss++;
		set_pte(ptep, mk_pte(page, __pgprot(_PAGE_PRESENT | _PAGE_USER |
						   _PAGE_RW | _PAGE_ACCESSED)));
		world_page_add_rmap(page);	/* the reference goes to the pte */
		spin_unlock(&mm->page_table_lock);
		STAT(st_installs);
	}
out:
	mmap_sem_up(m);
}

/*
 * vmtruncate(), as the series leaves it: invalidate_mmap_range() zaps,
 * under i_shared_sem, the part of every linear vma that maps offsets
 * past the new size (the vmas the file's index yields for the hole), and
 * in every nonlinear vma on i_mmap_nonlinear each pte of the file whose
 * page index is in the hole (zap_nonlinear_vma(): the kernel leaves a
 * file pte, the model just clears it), without a look at vm_flags
 * (page_table_lock, then pte_chain_lock in page_remove_rmap(): the full
 * nesting).  Then truncate_inode_pages() takes each page out of the page
 * cache under its page lock, but only when page_mapped() is false under
 * pte_chain_lock (remove_unmapped_page()); a page mapped meanwhile is
 * unmapped again first.  So no counted page ever has ->mapping NULL: the
 * world check fails on one.  The file is at once extended again.
 */
static void zap_vma(struct vm_area_struct *vp, unsigned long hba)
{
	unsigned long vba = vp->vm_pgoff;
	unsigned long vea = vba + ((vp->vm_end - vp->vm_start) >> PAGE_SHIFT) - 1;
	unsigned long zba;

	if (hba > vea)
		return;
	zba = hba <= vba ? vba : hba;
	world_zap_range(vp->vm_mm, vp->vm_start + ((zba - vba) << PAGE_SHIFT),
			vp->vm_end);
}

/* zap_nonlinear_vma(): the pages of @mapping from index @first on. */
static void zap_nonlinear(struct vm_area_struct *vp,
			  struct address_space *mapping, unsigned long first,
			  unsigned long last)
{
	struct mm_struct *m = vp->vm_mm;
	unsigned long address;

	spin_lock(&m->page_table_lock);
	for (address = vp->vm_start; address < vp->vm_end;
	     address += PAGE_SIZE) {
		pte_t *ptep = world_pte(m, address, 0);
		struct page *page;

		if (!ptep || !pte_present(*ptep))
			continue;
		page = pfn_to_page(pte_pfn(*ptep));
		/* stable: the page is mapped, so truncate cannot take it */
		if (world_page_mapping(page) != mapping ||
		    page->index < first || page->index > last)
			continue;
		world_zap_pte(m, address);
	}
	spin_unlock(&m->page_table_lock);
}

static unsigned long st_zapped_indexed, st_truncate_retries;

static void zap_range(struct address_space *mapping, unsigned long first,
		      unsigned long last)
{
	struct vm_area_struct *vp;

	vma_index_foreach(vp, &mapping->i_mmap_index, first, last) {
		zap_vma(vp, first);
		STAT(st_zapped_indexed);
	}
	list_for_each_entry(vp, &mapping->i_mmap_nonlinear, vm_index.nonlinear)
		zap_nonlinear(vp, mapping, first, last);
}

static void zap_hole(struct address_space *mapping, unsigned long hba)
{
	zap_range(mapping, hba, ULONG_MAX);
}

static void op_truncate(unsigned long long *rng)
{
	unsigned long size = NFILE / 2 + rnd(rng) % (NFILE / 2), index;

	if (sc->truncate_zap) {
		down(&file.mapping.i_shared_sem);
		zap_hole(&file.mapping, size);
		up(&file.mapping.i_shared_sem);
	}
	if (!sc->truncate_pages)
		goto out;
	for (index = size; index < NFILE; index++) {
		struct page *page;
		int removed = 0;

		spin_lock(&tree_lock);
		page = cache[index];
		if (page)
			get_page(page);
		spin_unlock(&tree_lock);
		if (!page)
			continue;
		lock_page(page);
		/* wait_on_page_writeback(), do_invalidatepage(): truncate
		 * can hold the page lock a while before the page goes */
		usleep(20);
		for (;;) {
			pte_chain_lock(page);
			if (!page_mapped(page) ||
			    world_page_mapping(page) != &file.mapping)
				break;
			pte_chain_unlock(page);
			/* invalidate_mmap_range() of this one page:
			 * page lock, then i_shared_sem */
			down(&file.mapping.i_shared_sem);
			zap_range(&file.mapping, index, index);
			up(&file.mapping.i_shared_sem);
			STAT(st_truncate_retries);
		}
		spin_lock(&tree_lock);
		if (cache[index] == page) {
			cache[index] = NULL;
			__atomic_store_n(&page->mapping, NULL, __ATOMIC_RELAXED);
			removed = 1;
		}
		spin_unlock(&tree_lock);
		pte_chain_unlock(page);
		unlock_page(page);
		if (removed)
			put_page(page);		/* the page cache's */
		put_page(page);
	}
out:
	STAT(st_truncates);
}

static struct page *lru_pick(unsigned long long *rng)
{
	struct page *page = NULL;

	spin_lock(&lru_lock);
	if (nr_lru) {
		page = lru[rnd(rng) % nr_lru];
		if (!get_page_unless_zero(page))
			page = NULL;
	}
	spin_unlock(&lru_lock);
	return page;
}

/*
 * shrink_list(): a page off the LRU with a reference, locked with
 * TestSetPageLocked(), then under pte_chain_lock page_referenced() and,
 * if the page is not referenced and has a mapping, try_to_unmap() - the
 * patched mm/rmap.c dispatches PG_objrmap pages to the objrmap code.
 * (Referenced pages are unmapped too, one time in four, so that
 * try_to_unmap_obj() runs often.)
 */
static void op_reclaim(unsigned long long *rng)
{
	struct page *page = lru_pick(rng);
	struct address_space *mapping;
	int referenced, ret;

	if (!page)
		return;
	shim_tick(1);		/* a reclaim call takes about a jiffy */
	if (TestSetPageLocked(page))
		goto out;
	mapping = page->mapping;
	pte_chain_lock(page);
	if (page_mapped(page) && PageObjrmap(page)) {
		referenced = page_referenced_obj(page);
		STAT(st_refs);
		if (referenced)
			STAT(st_referenced);
		if (mapping && (!referenced || rnd(rng) % 4 == 0)) {
			ret = try_to_unmap_obj(page);
			if (ret < 0 || ret > 2)
				shim_fatal("try_to_unmap_obj returned %d", ret);
			STAT(st_unmap[ret]);
		}
	}
	pte_chain_unlock(page);
	unlock_page(page);
out:
	put_page(page);
	BUG_ON(shim_kmap_depth);
}

/*
 * refill_inactive_zone(): with the series it trylocks the page before
 * page_referenced() (2.6.3 took only pte_chain_lock, and the walk's read
 * of page->mapping raced with truncate); a page it cannot lock stays
 * active.
 */
static void op_refill(unsigned long long *rng)
{
	struct page *page = lru_pick(rng);

	if (!page)
		return;
	if (TestSetPageLocked(page))
		goto out;
	pte_chain_lock(page);
	if (page_mapped(page) && PageObjrmap(page))
		page_referenced_obj(page);
	pte_chain_unlock(page);
	unlock_page(page);
out:
	put_page(page);
	STAT(st_refills);
}

/* mlock()/munlock() of a whole vma: mlock_fixup() changes vm_flags under
 * mmap_sem (write) and page_table_lock. */
static void op_mlock(struct sim_mm *m, unsigned long long *rng)
{
	struct sim_vma *sv;

	mmap_sem_write(m);
	sv = pick_vma(m, rng);
	if (sv) {
		spin_lock(&m->mm->page_table_lock);
		sv->vma.vm_flags ^= VM_LOCKED;
		spin_unlock(&m->mm->page_table_lock);
		STAT(st_mlocks);
	}
	mmap_sem_up(m);
}

/*
 * mremap() in place, under mmap_sem (write).  Growing sets vm_end under
 * page_table_lock (2.6.3 mm/mremap.c, "can we just expand the current
 * mapping?"), which the series wraps in vma_index_begin_change() /
 * vma_index_end_change(): i_shared_sem held and the vma out of the
 * file's index while its range changes.  Shrinking is do_munmap() of the
 * tail: split_vma(), which does the same around its change of vm_end,
 * the tail zapped.
 */
static void op_mremap(struct sim_mm *m, unsigned long long *rng)
{
	struct sim_vma *sv;
	struct vm_area_struct *vma;
	unsigned long npages;

	mmap_sem_write(m);
	sv = pick_vma(m, rng);
	if (!sv)
		goto out;
	vma = &sv->vma;
	npages = (vma->vm_end - vma->vm_start) >> PAGE_SHIFT;
	if (npages < MAXGROW && rnd(rng) % 2) {
		struct address_space *mapping = vma_index_begin_change(vma);

		spin_lock(&m->mm->page_table_lock);
		vma->vm_end += (1 + rnd(rng) % (MAXGROW - npages)) * PAGE_SIZE;
		spin_unlock(&m->mm->page_table_lock);
		vma_index_end_change(vma, mapping);
	} else if (npages > 1) {
		unsigned long end = vma->vm_start + (npages / 2) * PAGE_SIZE;
		struct address_space *mapping;

		world_zap_range(m->mm, end, vma->vm_end);
		mapping = vma_index_begin_change(vma);
		spin_lock(&m->mm->page_table_lock);
		vma->vm_end = end;
		spin_unlock(&m->mm->page_table_lock);
		vma_index_end_change(vma, mapping);
	}
	STAT(st_mremaps);
out:
	mmap_sem_up(m);
}

enum role { FAULT, MMAP, TRUNCATE, RECLAIM, REFILL, MLOCK, MREMAP };

struct worker {
	enum role role;
	int idx;
	pthread_t thread;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	unsigned long long rng = 0x9e3779b97f4a7c15ULL * (w->idx + 1);
	unsigned long i;
	const char *seed = getenv("OBJRMAP_SEED");

	rng ^= seed ? strtoull(seed, NULL, 0) : 1;
	if (!rng)
		rng = 1;
	for (i = 0; (!max_iters || i < max_iters) &&
		    !__atomic_load_n(&stop, __ATOMIC_RELAXED); i++) {
		struct sim_mm *m = &mms[rnd(&rng) % NMM];

		switch (w->role) {
		case FAULT:
			op_fault(m, &rng);
			break;
		case MMAP:
			if (sc->nonlinear && rnd(&rng) % 3 == 0)
				op_remap(m, &rng);
			else
				op_mmap(m, &rng);
			break;
		case TRUNCATE:
			op_truncate(&rng);
			break;
		case RECLAIM:
			op_reclaim(&rng);
			break;
		case REFILL:
			op_refill(&rng);
			break;
		case MLOCK:
			op_mlock(m, &rng);
			break;
		case MREMAP:
			op_mremap(m, &rng);
			break;
		}
		if (w->role == TRUNCATE)
			usleep(1000);	/* let the faults repopulate */
		else if (w->role == MMAP || w->role == MLOCK ||
			 w->role == MREMAP)
			usleep(100);
	}
	return NULL;
}

static void setup(void)
{
	pthread_rwlockattr_t attr;
	int i, s;

	world_init(POOL);
	world_file_init(&file);
	spin_lock_init(&tree_lock);
	spin_lock_init(&lru_lock);
	for (i = 0; i < NANON; i++)
		anon[i] = world_alloc_page();
	for (i = 0; i < NMM; i++) {
		mms[i].mm = world_mm_new();
		mm_list[i] = mms[i].mm;
		/* rw_semaphores queue writers: readers do not starve them */
		pthread_rwlockattr_init(&attr);
		pthread_rwlockattr_setkind_np(&attr,
			PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
		pthread_rwlock_init(&mms[i].mmap_sem, &attr);
		pthread_rwlockattr_destroy(&attr);
		for (s = 0; s < NSLOT; s++)
			mms[i].slot[s].in_use = 0;
	}
}

/* Every reference is accounted for: the page cache's and the ptes'. */
static int check_counts(void)
{
	unsigned long pfn, n = world_nr_allocated(), orphans = 0;
	int bad = 0, i, m;

	for (pfn = 1; pfn < n; pfn++) {
		struct page *page = pfn_to_page(pfn);
		long ptes = 0, want;
		int cached = 0;

		if (is_anon(page))
			continue;
		for (m = 0; m < NMM; m++)
			ptes += world_count_ptes(mm_list[m], pfn);
		for (i = 0; i < NFILE; i++)
			if (cache[i] == page)
				cached = 1;
		want = ptes + cached;
		if (page_count(page) != want) {
			ktap_diag("pfn %lu (index %lu): count %d, expected %ld (%ld ptes%s)",
				  pfn, page->index, page_count(page), want,
				  ptes, cached ? " + page cache" : "");
			bad++;
		}
		if (!page->mapping && ptes)
			orphans++;
	}
	ktap_diag("%lu truncated pages still mapped (orphans)", orphans);
	return bad;
}

static void run_scenario(const struct scenario *s)
{
	static const struct { enum role role; int n; } crew[] = {
		{ FAULT, 2 }, { MMAP, 1 }, { TRUNCATE, 1 }, { RECLAIM, 2 },
		{ REFILL, 2 }, { MLOCK, 1 }, { MREMAP, 1 },
	};
	struct worker w[16];
	const char *env;
	double seconds = 2;
	int nw = 0, i, j, m, sl;
	struct timespec ts;

	sc = s;
	ktap_diag("%s: %s", s->name, s->about);
	if ((env = getenv("OBJRMAP_STRESS_SECONDS")))
		seconds = atof(env);
	if ((env = getenv("OBJRMAP_STRESS_ITERS")))
		max_iters = strtoul(env, NULL, 0);
	setup();
	for (i = 0; i < (int)(sizeof(crew) / sizeof(crew[0])); i++) {
		if ((crew[i].role == TRUNCATE && !s->truncate_zap && !s->truncate_pages) ||
		    (crew[i].role == REFILL && !s->refill) ||
		    (crew[i].role == MLOCK && !s->mlock) ||
		    (crew[i].role == MREMAP && !s->mremap))
			continue;
		for (j = 0; j < crew[i].n; j++, nw++) {
			w[nw].role = crew[i].role;
			w[nw].idx = nw;
			if (pthread_create(&w[nw].thread, NULL, worker_main, &w[nw]))
				shim_fatal("pthread_create");
		}
	}
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < nw; i++)
		pthread_join(w[i].thread, NULL);

	ktap_diag("%d threads: %lu faults (%lu COW), %lu mmap, %lu munmap, %lu install_page, %lu truncate, %lu refill, %lu mlock, %lu mremap, %lu made nonlinear",
		  nw, st_faults, st_cows, st_mmaps, st_munmaps, st_installs,
		  st_truncates, st_refills, st_mlocks, st_mremaps,
		  st_set_nonlinear);
	ktap_diag("truncate: %lu indexed vmas zapped, %lu mapped pages "
		  "unmapped again", st_zapped_indexed, st_truncate_retries);
	ktap_diag("reclaim: %lu page_referenced_obj (%lu referenced), try_to_unmap_obj: %lu SWAP_SUCCESS, %lu SWAP_AGAIN, %lu SWAP_FAIL",
		  st_refs, st_referenced, st_unmap[SWAP_SUCCESS],
		  st_unmap[SWAP_AGAIN], st_unmap[SWAP_FAIL]);
	CHECK_EQ(world_check(mm_list, NMM), 0);
	CHECK_EQ(world_file_check(&file), 0);
	CHECK_EQ(check_counts(), 0);
	if (!st_unmap[SWAP_SUCCESS]) {
		ktap_diag("try_to_unmap_obj never succeeded: the run tested nothing");
		ktap_case_failed = 1;
	}

	/* exit_mmap(): everything goes; then nothing may be left mapped */
	for (m = 0; m < NMM; m++)
		for (sl = 0; sl < NSLOT; sl++)
			if (mms[m].slot[sl].in_use) {
				struct vm_area_struct *v = &mms[m].slot[sl].vma;

				world_zap_range(mms[m].mm, v->vm_start, v->vm_end);
				world_vma_unlink(v);
				mms[m].slot[sl].in_use = 0;
			}
	CHECK_EQ(world_check(mm_list, NMM), 0);
	CHECK_EQ(world_file_check(&file), 0);
	CHECK(!file.mapping.i_mmap_index.root);
	CHECK(list_empty(&file.mapping.i_mmap_nonlinear));
	CHECK_EQ(shim_page_state.nr_mapped, 0);
}

#define SCENARIO(id, ...)						\
	static const struct scenario sc_##id = { #id, __VA_ARGS__ };	\
	static void run_##id(void) { run_scenario(&sc_##id); }

SCENARIO(base,
	 "faults and COW, mmap/munmap (linear, nonlinear, mlocked, reserved vmas), install_page, vmtruncate's zap, shrink_list",
	 .nonlinear = 1, .truncate_zap = 1)
SCENARIO(truncate,
	 "linear vmas, vmtruncate's zap and truncate_inode_pages (->mapping = NULL under the page lock), shrink_list",
	 .truncate_zap = 1, .truncate_pages = 1)
SCENARIO(truncate_nonlinear,
	 "base + truncate_inode_pages: the nonlinear sweep meets pages being truncated",
	 .nonlinear = 1, .truncate_zap = 1, .truncate_pages = 1)
SCENARIO(refill,
	 "truncate + refill_inactive_zone's page_referenced() (page trylocked, as the series does)",
	 .truncate_zap = 1, .truncate_pages = 1, .refill = 1)
SCENARIO(mlock,
	 "base + mlock/munlock of whole vmas (vm_flags under page_table_lock)",
	 .nonlinear = 1, .truncate_zap = 1, .mlock = 1)
SCENARIO(mremap,
	 "base + mremap in place (vm_end changed under i_shared_sem, out of the index, + page_table_lock)",
	 .nonlinear = 1, .truncate_zap = 1, .mremap = 1)
SCENARIO(remap_file_pages,
	 "base + remap_file_pages making linked vmas nonlinear (out of the index onto i_mmap_nonlinear, VM_NONLINEAR under i_shared_sem + page_table_lock)",
	 .nonlinear = 1, .truncate_zap = 1, .set_nonlinear = 1)

static const struct ktap_case cases[] = {
	{ "base", run_base },
	{ "truncate", run_truncate },
	{ "truncate_nonlinear", run_truncate_nonlinear },
	{ "refill", run_refill },
	{ "mlock", run_mlock },
	{ "mremap", run_mremap },
	{ "remap_file_pages", run_remap_file_pages },
};

int main(int argc, char **argv)
{
	const int n = sizeof(cases) / sizeof(cases[0]);
	struct ktap_case chosen[sizeof(cases) / sizeof(cases[0])];
	int i, j, nchosen = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 1; i < argc; i++) {	/* stress [scenario...] */
		for (j = 0; j < n; j++)
			if (!strcmp(argv[i], cases[j].name))
				chosen[nchosen++] = cases[j];
		if (nchosen != i) {
			fprintf(stderr, "stress: no scenario %s\n", argv[i]);
			return 2;
		}
	}
	if (!nchosen)
		return ktap_run(cases, n, 300);
	return ktap_run(chosen, nchosen, 300);
}
