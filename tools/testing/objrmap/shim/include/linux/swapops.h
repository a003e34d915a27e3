/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim of <linux/swapops.h> (and free_swap_and_cache() of
 * <linux/swap.h>) for tools/testing/objrmap.  The harness never makes a
 * swap pte, so freeing one is a bug here.
 */
#ifndef _SHIM_LINUX_SWAPOPS_H
#define _SHIM_LINUX_SWAPOPS_H

#include <asm/pgtable.h>

typedef struct { unsigned long val; } swp_entry_t;

static inline swp_entry_t pte_to_swp_entry(pte_t pte)
{
	return (swp_entry_t) { pte.pte_low };
}

static inline void free_swap_and_cache(swp_entry_t entry)
{
	(void)entry;
	BUG();		/* no swap ptes in this harness */
}

#endif /* _SHIM_LINUX_SWAPOPS_H */
