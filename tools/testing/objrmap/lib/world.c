// SPDX-License-Identifier: GPL-2.0
/* tools/testing/objrmap: the world the objrmap code runs in (world.h). */
#include <stdlib.h>
#include <string.h>

#include <shim/mem.h>
#include "index_check.h"
#include "ktap.h"
#include "world.h"

static unsigned long world_next_pfn;

void world_init(unsigned long nr_pages)
{
	shim_mem_map_init(nr_pages);
	world_next_pfn = 1;
}

void world_fini(void)
{
	shim_mem_map_free();
}

struct page *world_alloc_page(void)
{
	unsigned long pfn = __atomic_fetch_add(&world_next_pfn, 1,
					       __ATOMIC_RELAXED);
	struct page *page;

	if (pfn >= max_mapnr)
		return NULL;
	page = pfn_to_page(pfn);
	atomic_set(&page->count, 1);
	return page;
}

unsigned long world_nr_allocated(void)
{
	unsigned long n = __atomic_load_n(&world_next_pfn, __ATOMIC_RELAXED);

	return n < max_mapnr ? n : max_mapnr;
}

struct page *world_file_page(struct world_file *f, unsigned long index)
{
	struct page *page = world_alloc_page();

	if (page) {
		page->index = index;
		__atomic_store_n(&page->mapping, &f->mapping, __ATOMIC_RELAXED);
	}
	return page;
}

void world_file_init(struct world_file *f)
{
	memset(f, 0, sizeof(*f));
	f->inode.i_size = WORLD_FILE_SIZE;
	f->inode.i_mapping = &f->mapping;
	f->mapping.host = &f->inode;
	spin_lock_init(&f->mapping.page_lock);
	INIT_LIST_HEAD(&f->mapping.i_mmap);
	INIT_LIST_HEAD(&f->mapping.i_mmap_shared);
	f->mapping.i_mmap_index.root = NULL;	/* as inode_init_once() */
	INIT_LIST_HEAD(&f->mapping.i_mmap_nonlinear);
	init_MUTEX(&f->mapping.i_shared_sem);
	f->file.f_mapping = &f->mapping;
}

void world_file_destroy(struct world_file *f)
{
	shim_sema_destroy(&f->mapping.i_shared_sem);
	shim_spin_destroy(&f->mapping.page_lock);
}

struct mm_struct *world_mm_new(void)
{
	struct mm_struct *mm = calloc(1, sizeof(*mm));

	if (!mm || !(mm->pgd = calloc(PTRS_PER_PGD, sizeof(pgd_t))))
		shim_fatal("out of memory for an mm");
	spin_lock_init(&mm->page_table_lock);
	return mm;
}

void world_mm_free(struct mm_struct *mm)
{
	int i;

	for (i = 0; i < PTRS_PER_PGD; i++)
		free(mm->pgd[i].table);
	free(mm->pgd);
	shim_spin_destroy(&mm->page_table_lock);
	free(mm);
}

pte_t *world_pte(struct mm_struct *mm, unsigned long address, int alloc)
{
	pgd_t *pgd = mm->pgd + pgd_index(address);

	if (!pgd->table) {
		if (!alloc)
			return NULL;
		pgd->table = shim_pte_table_alloc(mm, address);
		if (!pgd->table)
			shim_fatal("out of memory for a page table");
	}
	return pgd->table + pte_index(address);
}

void world_vma_init(struct vm_area_struct *vma, struct mm_struct *mm,
		    struct world_file *f, unsigned long start,
		    unsigned long npages, unsigned long pgoff,
		    unsigned long flags)
{
	memset(vma, 0, sizeof(*vma));
	vma->vm_mm = mm;
	vma->vm_start = start;
	vma->vm_end = start + npages * PAGE_SIZE;
	vma->vm_page_prot = (flags & VM_SHARED) ? PAGE_SHARED : PAGE_READONLY;
	vma->vm_flags = flags;
	INIT_LIST_HEAD(&vma->shared);
	vma->vm_pgoff = pgoff;
	vma->vm_file = f ? &f->file : NULL;
}

void world_vma_link(struct vm_area_struct *vma)
{
	struct address_space *mapping = vma->vm_file->f_mapping;

	down(&mapping->i_shared_sem);
	spin_lock(&vma->vm_mm->page_table_lock);
	list_add_tail(&vma->shared, (vma->vm_flags & VM_SHARED) ?
		      &mapping->i_mmap_shared : &mapping->i_mmap);
	__vma_index_link(vma, mapping);
	spin_unlock(&vma->vm_mm->page_table_lock);
	up(&mapping->i_shared_sem);
}

void world_vma_unlink(struct vm_area_struct *vma)
{
	struct address_space *mapping = vma->vm_file->f_mapping;

	down(&mapping->i_shared_sem);
	list_del_init(&vma->shared);
	__vma_index_unlink(vma, mapping);
	up(&mapping->i_shared_sem);
}

static unsigned long vma_last(struct vm_area_struct *vma)
{
	return vma->vm_pgoff + ((vma->vm_end - vma->vm_start) >> PAGE_SHIFT) - 1;
}

/*
 * Is @vma in @index?  Its range searched by key, as vma_index_insert()
 * does, then the same list of the node with that range.
 */
static int index_holds(struct vma_index *index, struct vm_area_struct *vma)
{
	struct vma_index_node *node = index->root;
	unsigned long last = vma_last(vma);

	while (node) {
		struct vm_area_struct *other =
			container_of(node, struct vm_area_struct, vm_index.node);

		if (other->vm_pgoff == vma->vm_pgoff &&
		    vma_last(other) == last) {
			if (other == vma)
				return 1;
			list_for_each_entry(other, &node->same,
					    vm_index.node.same)
				if (other == vma)
					return 1;
			return 0;
		}
		if (vma->vm_pgoff < other->vm_pgoff ||
		    (vma->vm_pgoff == other->vm_pgoff &&
		     last < vma_last(other)))
			node = node->left;
		else
			node = node->right;
	}
	return 0;
}

/* Is @vma on @head, linked through its ->shared? */
static int list_holds(struct list_head *head, struct vm_area_struct *vma)
{
	struct vm_area_struct *other;

	list_for_each_entry(other, head, shared)
		if (other == vma)
			return 1;
	return 0;
}

/* Is @vma on @mapping->i_mmap_nonlinear? */
static int nonlinear_holds(struct address_space *mapping,
			   struct vm_area_struct *vma)
{
	struct vm_area_struct *other;

	list_for_each_entry(other, &mapping->i_mmap_nonlinear,
			    vm_index.nonlinear)
		if (other == vma)
			return 1;
	return 0;
}

/*
 * i_mmap_nonlinear itself: the links agree both ways, and every vma on
 * it is nonlinear, on i_mmap_shared and not in the index.  @max bounds
 * the walk (a cycle that misses the head).  Returns the violations;
 * *@count gets the number of entries.
 */
static int nonlinear_check(struct address_space *mapping, unsigned long max,
			   unsigned long *count)
{
	struct list_head *head = &mapping->i_mmap_nonlinear, *pos;
	unsigned long n = 0;
	int bad = 0;

	for (pos = head->next; pos != head; pos = pos->next) {
		struct vm_area_struct *vma = container_of(pos,
				struct vm_area_struct, vm_index.nonlinear);

		if (pos->next->prev != pos) {
			ktap_diag("i_mmap_nonlinear: vma %p: next->prev is %p",
				  (void *)vma, (void *)pos->next->prev);
			bad++;
			break;
		}
		if (++n > max) {
			ktap_diag("i_mmap_nonlinear: more than %lu entries, a cycle?",
				  max);
			bad++;
			break;
		}
		if (!(vma->vm_flags & VM_NONLINEAR)) {
			ktap_diag("vma %p (pgoff %lu): on i_mmap_nonlinear without VM_NONLINEAR",
				  (void *)vma, vma->vm_pgoff);
			bad++;
		}
		if (!list_holds(&mapping->i_mmap_shared, vma)) {
			ktap_diag("vma %p: on i_mmap_nonlinear, not on i_mmap_shared",
				  (void *)vma);
			bad++;
		}
		if (index_holds(&mapping->i_mmap_index, vma)) {
			ktap_diag("vma %p: on i_mmap_nonlinear and in the index",
				  (void *)vma);
			bad++;
		}
	}
	if (head->prev->next != head) {
		ktap_diag("i_mmap_nonlinear: the head's prev does not lead back to it");
		bad++;
	}
	*count = n;
	return bad;
}

int world_file_check(struct world_file *f)
{
	struct address_space *mapping = &f->mapping;
	struct list_head *heads[2] = { &mapping->i_mmap,
				       &mapping->i_mmap_shared };
	unsigned long indexed, linear = 0, nonlinear = 0, listed;
	struct vm_area_struct *vma;
	int bad, i;

	down(&mapping->i_shared_sem);
	bad = index_check(&mapping->i_mmap_index, &indexed, NULL);
	for (i = 0; i < 2; i++) {
		list_for_each_entry(vma, heads[i], shared) {
			if (vma->vm_flags & VM_NONLINEAR) {
				nonlinear++;
				if (i == 0) {
					ktap_diag("vma %p: nonlinear on i_mmap",
						  (void *)vma);
					bad++;
				}
				if (!nonlinear_holds(mapping, vma)) {
					ktap_diag("vma %p (pgoff %lu): nonlinear, on a list, not on i_mmap_nonlinear",
						  (void *)vma, vma->vm_pgoff);
					bad++;
				}
				continue;
			}
			linear++;
			if (!index_holds(&mapping->i_mmap_index, vma)) {
				ktap_diag("vma %p (pgoff %lu): linear, on a list, not in the index",
					  (void *)vma, vma->vm_pgoff);
				bad++;
			}
		}
	}
	if (indexed != linear) {
		ktap_diag("index holds %lu vmas, the lists %lu linear ones",
			  indexed, linear);
		bad++;
	}
	bad += nonlinear_check(mapping, linear + nonlinear, &listed);
	if (listed != nonlinear) {
		ktap_diag("i_mmap_nonlinear holds %lu vmas, the lists %lu nonlinear ones",
			  listed, nonlinear);
		bad++;
	}
	up(&mapping->i_shared_sem);
	return bad;
}

void world_page_add_rmap(struct page *page)
{
	pte_chain_lock(page);
	if (PageObjrmap(page) ||
	    (!page_mapped(page) && world_page_mapping(page))) {
		page_add_objrmap(page);
	} else {
		/* a pte_chain page: PG_direct/pte_chain, reduced to a count */
		if (!page_mapped(page))
			inc_page_state(nr_mapped);
		page->pte.direct++;
	}
	pte_chain_unlock(page);
}

void world_page_remove_rmap(struct page *page)
{
	pte_chain_lock(page);
	BUG_ON(!page_mapped(page));	/* the harness never zaps a stray pte */
	if (PageObjrmap(page)) {
		page_remove_objrmap(page);
	} else if (!--page->pte.direct) {
		dec_page_state(nr_mapped);
	}
	pte_chain_unlock(page);
}

void world_map(struct mm_struct *mm, unsigned long address,
	       struct page *page, unsigned long pte_bits)
{
	pte_t *pte;

	spin_lock(&mm->page_table_lock);
	pte = world_pte(mm, address, 1);
	BUG_ON(!pte_none(*pte));
	set_pte(pte, pfn_pte(page_to_pfn(page),
			     __pgprot(_PAGE_PRESENT | _PAGE_USER | pte_bits)));
	mm->rss++;
	get_page(page);
	world_page_add_rmap(page);
	spin_unlock(&mm->page_table_lock);
}

pte_t world_zap_pte(struct mm_struct *mm, unsigned long address)
{
	pte_t *ptep = world_pte(mm, address, 0);
	pte_t pte;
	struct page *page;

	BUG_ON(!shim_spin_held(&mm->page_table_lock));
	if (!ptep || pte_none(*ptep))
		return __pte(0);
	pte = ptep_get_and_clear(ptep);
	if (!pte_present(pte))
		return pte;		/* a file pte: nothing to account */
	page = pfn_to_page(pte_pfn(pte));
	if (pte_dirty(pte))
		set_page_dirty(page);
	world_page_remove_rmap(page);
	put_page(page);
	mm->rss--;
	return pte;
}

void world_zap_range(struct mm_struct *mm, unsigned long start,
		     unsigned long end)
{
	unsigned long address;

	spin_lock(&mm->page_table_lock);
	for (address = start; address < end; address += PAGE_SIZE)
		world_zap_pte(mm, address);
	spin_unlock(&mm->page_table_lock);
}

pte_t world_read_pte(struct mm_struct *mm, unsigned long address)
{
	pte_t *ptep, pte = __pte(0);

	spin_lock(&mm->page_table_lock);
	ptep = world_pte(mm, address, 0);
	if (ptep)
		pte = *ptep;
	spin_unlock(&mm->page_table_lock);
	return pte;
}

void world_write_pte(struct mm_struct *mm, unsigned long address, pte_t pte)
{
	spin_lock(&mm->page_table_lock);
	set_pte(world_pte(mm, address, 1), pte);
	spin_unlock(&mm->page_table_lock);
}

unsigned long world_count_ptes(struct mm_struct *mm, unsigned long pfn)
{
	unsigned long n = 0;
	int i, j;

	spin_lock(&mm->page_table_lock);
	for (i = 0; i < PTRS_PER_PGD; i++) {
		pte_t *table = mm->pgd[i].table;

		if (!table)
			continue;
		for (j = 0; j < PTRS_PER_PTE; j++)
			if (pte_present(table[j]) && pte_pfn(table[j]) == pfn)
				n++;
	}
	spin_unlock(&mm->page_table_lock);
	return n;
}

int world_check(struct mm_struct **mms, int nmm)
{
	unsigned long npages = world_nr_allocated(), pfn, mapped = 0;
	unsigned long *ptes = calloc(npages ? npages : 1, sizeof(*ptes));
	int bad = 0, m, i, j;

	if (!ptes)
		shim_fatal("out of memory");
	for (m = 0; m < nmm; m++) {
		unsigned long present = 0;

		for (i = 0; i < PTRS_PER_PGD; i++) {
			pte_t *table = mms[m]->pgd[i].table;

			if (!table)
				continue;
			for (j = 0; j < PTRS_PER_PTE; j++) {
				if (!pte_present(table[j]))
					continue;
				present++;
				pfn = pte_pfn(table[j]);
				if (pfn == 0 || pfn >= npages) {
					ktap_diag("mm %d: pte %#lx maps pfn %lu, never handed out",
						  m, (unsigned long)i * PGDIR_SIZE +
						  (unsigned long)j * PAGE_SIZE, pfn);
					bad++;
					continue;
				}
				ptes[pfn]++;
			}
		}
		if (mms[m]->rss != present) {
			ktap_diag("mm %d: rss %lu but %lu present ptes", m,
				  mms[m]->rss, present);
			bad++;
		}
	}
	for (pfn = 1; pfn < npages; pfn++) {
		struct page *page = pfn_to_page(pfn);

		if (page_mapped(page))
			mapped++;
		if (PageObjrmap(page)) {
			/* the series' invariant: reclaim finds it by ->mapping */
			if (!page->mapping) {
				ktap_diag("pfn %lu (index %lu): PG_objrmap and mapped, but truncated (->mapping NULL)",
					  pfn, page->index);
				bad++;
			}
			if (page->pte.direct != page->pte.mapcount) {
				ktap_diag("pfn %lu: PG_objrmap, pte.direct %#llx has bits above mapcount %u",
					  pfn, page->pte.direct, page->pte.mapcount);
				bad++;
			}
			if (page->pte.mapcount != ptes[pfn] || !ptes[pfn]) {
				ktap_diag("pfn %lu (index %lu%s): PG_objrmap, mapcount %u, %lu ptes map it",
					  pfn, page->index,
					  page->mapping ? "" : ", truncated",
					  page->pte.mapcount, ptes[pfn]);
				bad++;
			}
		} else if (page->pte.direct != ptes[pfn]) {
			ktap_diag("pfn %lu (index %lu): %s, pte.direct %llu, %lu ptes map it",
				  pfn, page->index,
				  page->mapping ? "file page" : "no mapping",
				  page->pte.direct, ptes[pfn]);
			bad++;
		}
		if ((unsigned long)page_count(page) < ptes[pfn]) {
			ktap_diag("pfn %lu: count %d below its %lu ptes",
				  pfn, page_count(page), ptes[pfn]);
			bad++;
		}
		if (PageLocked(page) || test_bit(PG_chainlock, &page->flags)) {
			ktap_diag("pfn %lu: left locked (flags %#lx)", pfn,
				  page->flags);
			bad++;
		}
	}
	if (shim_page_state.nr_mapped != mapped) {
		ktap_diag("nr_mapped %lu, but %lu pages are mapped",
			  shim_page_state.nr_mapped, mapped);
		bad++;
	}
	free(ptes);
	return bad;
}
