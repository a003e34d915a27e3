/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim of <asm/pgtable.h> (with the asm-generic parts) for
 * tools/testing/objrmap: i386 two-level page tables, the pmd folded into
 * the pgd.  The pte bits are i386's.
 *
 * There is no MMU here, so nothing changes a pte behind the
 * page_table_lock: the accessors are plain loads and stores where the
 * kernel uses locked operations (ptep_test_and_clear_young(),
 * ptep_get_and_clear()).  A walk that touched a pte without holding the
 * lock would so race with the harness's own locked updates, and
 * ThreadSanitizer would report it.  pgd_offset() also asserts that its
 * caller holds mm->page_table_lock, and pte_offset_map()/pte_unmap()
 * check that a thread holds at most one atomic pte kmap and returns it.
 */
#ifndef _SHIM_ASM_PGTABLE_H
#define _SHIM_ASM_PGTABLE_H

#include <linux/mm.h>
#include <asm/tlbflush.h>

#define PGDIR_SHIFT	22
#define PGDIR_SIZE	(1UL << PGDIR_SHIFT)
#define PTRS_PER_PGD	1024
#define PTRS_PER_PMD	1
#define PTRS_PER_PTE	1024
#define PMD_SIZE	PGDIR_SIZE	/* folded */
#define PMD_MASK	(~(PMD_SIZE - 1))

#define _PAGE_PRESENT	0x001
#define _PAGE_RW	0x002
#define _PAGE_USER	0x004
#define _PAGE_ACCESSED	0x020
#define _PAGE_DIRTY	0x040
#define _PAGE_PROTNONE	0x080	/* if the user mapped it with PROT_NONE */
#define _PAGE_FILE	0x040	/* !present: a nonlinear file pte */

#define PAGE_SHARED	__pgprot(_PAGE_PRESENT | _PAGE_RW | _PAGE_USER)
#define PAGE_READONLY	__pgprot(_PAGE_PRESENT | _PAGE_USER)
#define pgprot_val(x)	((x).pgprot)

#define pgd_index(address)	(((address) >> PGDIR_SHIFT) & (PTRS_PER_PGD - 1))
#define pte_index(address)	(((address) >> PAGE_SHIFT) & (PTRS_PER_PTE - 1))

/*
 * The pgd lives as long as the mm, and the kernel may compute a pgd
 * pointer unlocked (install_page() does).  The walks of mm/objrmap.c
 * always hold the lock, and this checks it, unless the compilation unit
 * defines SHIM_PGD_OFFSET_UNLOCKED (the code extract.py copies out of
 * the patched tree).
 */
static inline pgd_t *pgd_offset(struct mm_struct *mm, unsigned long address)
{
#ifndef SHIM_PGD_OFFSET_UNLOCKED
	BUG_ON(!shim_spin_held(&mm->page_table_lock));
#endif
	return mm->pgd + pgd_index(address);
}

/* Folded, as on i386: the pgd level is always there. */
static inline int pgd_none(pgd_t pgd)	{ (void)pgd; return 0; }
static inline int pgd_bad(pgd_t pgd)	{ (void)pgd; return 0; }

static inline pmd_t *pmd_offset(pgd_t *dir, unsigned long address)
{
	(void)address;
	return (pmd_t *)dir;
}

static inline int pmd_none(pmd_t pmd)	{ return pmd.pgd.table == NULL; }
static inline int pmd_bad(pmd_t pmd)	{ return pmd.pgd.bad; }

static inline pte_t *pte_offset_map(pmd_t *pmd, unsigned long address)
{
	BUG_ON(shim_kmap_depth != 0);	/* KM_PTE0 already in use */
	shim_kmap_depth++;
	shim_pte_maps++;
	return pmd->pgd.table + pte_index(address);
}

static inline void pte_unmap(pte_t *pte)
{
	(void)pte;
	BUG_ON(shim_kmap_depth != 1);
	shim_kmap_depth--;
}

/*
 * A page table, zeroed, for the ptes of @mm from @address (rounded down
 * to PGDIR_SIZE); NULL when out of memory.  As the kernel's
 * pgtable_add_rmap() notes the mm and address in the struct page of a
 * pte page, this notes them next to the table, where ptep_to_mm() and
 * ptep_to_address() (<asm/rmap.h>) find them from a pte's address.
 * free() frees it.
 */
pte_t *shim_pte_table_alloc(struct mm_struct *mm, unsigned long address);

/*
 * pmd_alloc() cannot fail with the pmd folded; pte_alloc_map() allocates
 * a page table under page_table_lock (the kernel drops the lock to
 * allocate and rechecks; with calloc() there is no need).  NULL when
 * out of memory, as in the kernel.
 */
static inline pmd_t *pmd_alloc(struct mm_struct *mm, pgd_t *pgd,
			       unsigned long address)
{
	(void)address;
	BUG_ON(!shim_spin_held(&mm->page_table_lock));
	return (pmd_t *)pgd;
}

static inline pte_t *pte_alloc_map(struct mm_struct *mm, pmd_t *pmd,
				   unsigned long address)
{
	BUG_ON(!shim_spin_held(&mm->page_table_lock));
	if (!pmd->pgd.table) {
		pmd->pgd.table = shim_pte_table_alloc(mm, address);
		if (!pmd->pgd.table)
			return NULL;
	}
	return pte_offset_map(pmd, address);
}

#define pte_none(x)	(!(x).pte_low)
#define pte_present(x)	((x).pte_low & (_PAGE_PRESENT | _PAGE_PROTNONE))
#define pte_pfn(x)	((unsigned long)((x).pte_low >> PAGE_SHIFT))
#define pfn_pte(pfn, prot) __pte(((pfn) << PAGE_SHIFT) | pgprot_val(prot))
#define mk_pte(page, prot) pfn_pte(page_to_pfn(page), (prot))
#define pte_page(x)	pfn_to_page(pte_pfn(x))
#define pte_same(a, b)	((a).pte_low == (b).pte_low)

/* i386: no icache to flush, no MMU cache to update */
#define flush_icache_page(vma, page)	((void)(vma), (void)(page))
#define update_mmu_cache(vma, address, pte) \
	((void)(vma), (void)(address), (void)(pte))

static inline int pte_dirty(pte_t pte)	{ return (pte.pte_low & _PAGE_DIRTY) != 0; }
static inline int pte_young(pte_t pte)	{ return (pte.pte_low & _PAGE_ACCESSED) != 0; }
static inline int pte_write(pte_t pte)	{ return (pte.pte_low & _PAGE_RW) != 0; }
static inline int pte_file(pte_t pte)	{ return (pte.pte_low & _PAGE_FILE) != 0; }

static inline pte_t pte_mkyoung(pte_t pte) { pte.pte_low |= _PAGE_ACCESSED; return pte; }
static inline pte_t pte_mkold(pte_t pte)   { pte.pte_low &= ~_PAGE_ACCESSED; return pte; }
static inline pte_t pte_mkdirty(pte_t pte) { pte.pte_low |= _PAGE_DIRTY; return pte; }
static inline pte_t pte_mkclean(pte_t pte) { pte.pte_low &= ~_PAGE_DIRTY; return pte; }

/* A nonlinear file pte keeps the page offset where the pfn would be. */
#define PTE_FILE_MAX_BITS	29	/* as i386 without PAE */
#define pte_to_pgoff(pte)	((pte).pte_low >> PAGE_SHIFT)
#define pgoff_to_pte(off)	__pte(((unsigned long)(off) << PAGE_SHIFT) | _PAGE_FILE)

#define set_pte(pteptr, pteval)	(*(pteptr) = (pteval))
#define pte_clear(xp)		set_pte((xp), __pte(0))

static inline int ptep_test_and_clear_young(pte_t *ptep)
{
	int young = pte_young(*ptep);

	ptep->pte_low &= ~_PAGE_ACCESSED;
	return young;
}

static inline pte_t ptep_get_and_clear(pte_t *ptep)
{
	pte_t pte = *ptep;

	pte_clear(ptep);
	return pte;
}

static inline pte_t ptep_clear_flush(struct vm_area_struct *vma,
				     unsigned long address, pte_t *ptep)
{
	pte_t pte = ptep_get_and_clear(ptep);

	flush_tlb_page(vma, address);
	return pte;
}

/* asm-generic: no storage key with a young bit */
#define page_test_and_clear_young(page)	(0)

/*
 * s390 keeps a dirty bit in the storage key of the page; i386 has none
 * and this is (0) there.  Here a test can set page->shim_storage_dirty
 * to take the s390 branch.
 */
#define page_test_and_clear_dirty(page) \
	(__atomic_exchange_n(&(page)->shim_storage_dirty, 0, __ATOMIC_RELAXED) != 0)

#endif /* _SHIM_ASM_PGTABLE_H */
