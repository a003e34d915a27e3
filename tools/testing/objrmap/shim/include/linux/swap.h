/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim of <linux/swap.h> for tools/testing/objrmap. */
#ifndef _SHIM_LINUX_SWAP_H
#define _SHIM_LINUX_SWAP_H

#include <linux/mm.h>

/* return values of try_to_unmap */
#define SWAP_SUCCESS	0
#define SWAP_AGAIN	1
#define SWAP_FAIL	2

#define SWAP_CLUSTER_MAX 32

/* mm/rmap.c: shim/shim.c has a model; lifecycle links the real one */
pte_t unmap_page_pte(struct vm_area_struct *vma, unsigned long address,
		     pte_t *ptep, struct page *page);

#endif /* _SHIM_LINUX_SWAP_H */
