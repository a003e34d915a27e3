/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tools/testing/objrmap: the little world the objrmap code runs in -
 * pages, files, address spaces, vmas, page tables - and the harness's
 * model of the patched mm/rmap.c (which picks PG_objrmap or a pte_chain
 * for a page when it gets its first pte).  Nothing here is kernel code;
 * each function says which kernel path it stands for.
 */
#ifndef _OBJRMAP_WORLD_H
#define _OBJRMAP_WORLD_H

#include <linux/mm.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/pagemap.h>
#include <linux/rmap-locking.h>
#include <linux/swap.h>
#include <linux/objrmap.h>
#include <asm/pgtable.h>

/* A file: its inode and address_space, and a struct file for vmas to
 * point at.  i_size starts at WORLD_FILE_SIZE. */
struct world_file {
	struct inode inode;
	struct address_space mapping;
	struct file file;
};
#define WORLD_FILE_SIZE	(1LL << 40)

/* mem_map of @nr_pages; pages are handed out from pfn 1 on, never reused. */
void world_init(unsigned long nr_pages);
void world_fini(void);

/* A fresh page (count 1, no mapping), or NULL when mem_map is used up. */
struct page *world_alloc_page(void);
/* A page of @f's page cache at @index: count 1 (the page cache's). */
struct page *world_file_page(struct world_file *f, unsigned long index);
/* How many pfns have been handed out (pages are pfn 1 .. n - 1). */
unsigned long world_nr_allocated(void);

void world_file_init(struct world_file *f);
void world_file_destroy(struct world_file *f);

struct mm_struct *world_mm_new(void);
void world_mm_free(struct mm_struct *mm);	/* page tables must be empty */

/*
 * The pte for @address, allocating its page table if @alloc.  Caller
 * holds mm->page_table_lock, or is alone.  NULL if there is no table.
 */
pte_t *world_pte(struct mm_struct *mm, unsigned long address, int alloc);

/* Fill in @vma; @f may be NULL for an anonymous vma. */
void world_vma_init(struct vm_area_struct *vma, struct mm_struct *mm,
		    struct world_file *f, unsigned long start,
		    unsigned long npages, unsigned long pgoff,
		    unsigned long flags);
/* vma_link(): on i_mmap or i_mmap_shared (VM_SHARED), under i_shared_sem
 * and page_table_lock, at the tail as __vma_link_file() does, and into
 * the file's index (__vma_index_link(): on i_mmap_nonlinear instead if
 * VM_NONLINEAR). */
void world_vma_link(struct vm_area_struct *vma);
/* remove_shared_vm_struct(): off the list and out of the index or off
 * i_mmap_nonlinear (__vma_index_unlink()), under i_shared_sem. */
void world_vma_unlink(struct vm_area_struct *vma);

/*
 * index_check() (lib/index_check.h) of @f's index, and that it agrees with the lists:
 * every linear vma on i_mmap or i_mmap_shared is in it and nothing else;
 * i_mmap_nonlinear holds exactly the nonlinear ones (all on
 * i_mmap_shared, none in the index), its links consistent.
 * Takes i_shared_sem.  Returns the number of violations.
 */
int world_file_check(struct world_file *f);

/*
 * The patched page_add_rmap()/page_remove_rmap() of mm/rmap.c: a page
 * with a ->mapping that is not yet mapped, or already PG_objrmap, is
 * counted by page_add_objrmap(); any other page stands for a pte_chain
 * page, whose pte_chain the harness reduces to a count kept in
 * ->pte.direct (nonzero exactly while mapped, as the kernel's).  Caller
 * holds the page_table_lock of the mm whose pte it just set or cleared;
 * these take pte_chain_lock(page).
 */
void world_page_add_rmap(struct page *page);
void world_page_remove_rmap(struct page *page);

/* ->mapping as the harness reads and truncate writes it: untorn word
 * accesses, which is what the kernel relies on. */
static inline struct address_space *world_page_mapping(struct page *page)
{
	return __atomic_load_n(&page->mapping, __ATOMIC_RELAXED);
}

/*
 * Map @page at @address in @mm as do_no_page()/install_page() do: under
 * page_table_lock, set the pte (present, user, plus @pte_bits such as
 * _PAGE_ACCESSED|_PAGE_DIRTY|_PAGE_RW), rss++, take a reference for the
 * pte, page_add_rmap.  The pte must be empty.
 */
void world_map(struct mm_struct *mm, unsigned long address,
	       struct page *page, unsigned long pte_bits);

/*
 * zap_pte_range() for one pte, caller holding page_table_lock: clear it,
 * move its dirty bit to the page, page_remove_rmap, drop the pte's
 * reference, rss--.  A file pte is just cleared.  Returns the old pte.
 */
pte_t world_zap_pte(struct mm_struct *mm, unsigned long address);

/* world_zap_pte() over [start, end) under page_table_lock. */
void world_zap_range(struct mm_struct *mm, unsigned long start,
		     unsigned long end);

/* The pte at @address, read under page_table_lock (0 if no table). */
pte_t world_read_pte(struct mm_struct *mm, unsigned long address);
/* Set the pte at @address under page_table_lock, no rmap accounting. */
void world_write_pte(struct mm_struct *mm, unsigned long address, pte_t pte);

/* Number of present ptes in @mm that map pfn @pfn (walks all tables). */
unsigned long world_count_ptes(struct mm_struct *mm, unsigned long pfn);

/*
 * Check the invariants of the whole world against the page tables of
 * @mms: for every page handed out, PG_objrmap pages have a mapcount equal
 * to the number of present ptes mapping them and >0, other pages keep
 * ->pte.direct equal to that number; page_count() covers every pte;
 * nr_mapped counts the mapped pages; each mm's rss is its number of
 * present ptes; no present pte maps an unmapped page; no PG_objrmap page
 * has lost its ->mapping (truncated while mapped).  Each violation
 * is printed as a KTAP diagnostic; returns their number.  Call it with
 * the world quiescent.
 */
int world_check(struct mm_struct **mms, int nmm);

#endif /* _OBJRMAP_WORLD_H */
