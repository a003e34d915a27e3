/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim of <asm/rmap.h> (asm-generic/rmap.h) for
 * tools/testing/objrmap: a pte_chain records a pte by its "physical"
 * address, which here is just its address (pte_addr_t is 64 bits, as
 * with CONFIG_HIGHMEM64G), and mapping one back is the identity.
 */
#ifndef _SHIM_ASM_RMAP_H
#define _SHIM_ASM_RMAP_H

#include <asm/pgtable.h>

static inline pte_addr_t ptep_to_paddr(pte_t *ptep)
{
	return (pte_addr_t)(unsigned long)ptep;
}

static inline pte_t *rmap_ptep_map(pte_addr_t pte_paddr)
{
	return (pte_t *)(unsigned long)pte_paddr;
}

static inline void rmap_ptep_unmap(pte_t *pte)
{
	(void)pte;
}

/* What shim_pte_table_alloc() noted next to the table @ptep is in. */
struct shim_pte_table_note {
	struct mm_struct *mm;
	unsigned long base;		/* address of the table's first pte */
};

#define SHIM_PTE_TABLE_BYTES	(PTRS_PER_PTE * sizeof(pte_t))

static inline struct shim_pte_table_note *shim_pte_table_note(pte_t *ptep)
{
	unsigned long table = (unsigned long)ptep &
			      ~(2 * SHIM_PTE_TABLE_BYTES - 1);

	return (struct shim_pte_table_note *)(table + SHIM_PTE_TABLE_BYTES);
}

static inline struct mm_struct *ptep_to_mm(pte_t *ptep)
{
	return shim_pte_table_note(ptep)->mm;
}

static inline unsigned long ptep_to_address(pte_t *ptep)
{
	unsigned long low = (unsigned long)ptep & (SHIM_PTE_TABLE_BYTES - 1);

	return shim_pte_table_note(ptep)->base +
	       low / sizeof(pte_t) * PAGE_SIZE;
}

#endif /* _SHIM_ASM_RMAP_H */
