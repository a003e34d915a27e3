/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim of <asm/page.h> for tools/testing/objrmap: i386 pages. */
#ifndef _SHIM_ASM_PAGE_H
#define _SHIM_ASM_PAGE_H

#define PAGE_SHIFT	12
#define PAGE_SIZE	(1UL << PAGE_SHIFT)
#define PAGE_MASK	(~(PAGE_SIZE - 1))

/*
 * The page table entry types of i386 without PAE: a pte is one word,
 * the pfn above PAGE_SHIFT and the flag bits below (see <asm/pgtable.h>);
 * the pmd is folded into the pgd.  Each pgd entry points straight at a
 * table of PTRS_PER_PTE ptes (kept as a pointer rather than a physical
 * address: there is no physical memory here).
 */
typedef struct { unsigned long pte_low; } pte_t;
typedef struct { pte_t *table; int bad; } pgd_t;
typedef struct { pgd_t pgd; } pmd_t;
typedef struct { unsigned long pgprot; } pgprot_t;

#define pte_val(x)	((x).pte_low)
#define __pte(x)	((pte_t) { (x) })
#define __pgprot(x)	((pgprot_t) { (x) })

/*
 * mem_map is one flat array (i386 without NUMA): a pfn is an index.
 * The harness allocates it (shim_mem_map_init()); pfn 0 is never used.
 */
struct page;
extern struct page *mem_map;
extern unsigned long max_mapnr;

#define page_to_pfn(page)	((unsigned long)((page) - mem_map))
#define pfn_to_page(pfn)	(mem_map + (pfn))
#define pfn_valid(pfn)		((pfn) < max_mapnr)

#endif /* _SHIM_ASM_PAGE_H */
