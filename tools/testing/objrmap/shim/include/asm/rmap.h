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

#endif /* _SHIM_ASM_RMAP_H */
