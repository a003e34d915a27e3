/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim of <linux/cache.h> for tools/testing/objrmap.  64-byte
 * lines: mm/rmap.c's NRPTE is then 7 on this 64-bit host, and 7 is a
 * mask of the low bits of a 64-byte aligned pte_chain, as NRPTE must
 * be (pte_chain_next() and pte_chain_idx() rely on it).
 */
#ifndef _SHIM_LINUX_CACHE_H
#define _SHIM_LINUX_CACHE_H

#define L1_CACHE_BYTES		64
#define ____cacheline_aligned	__attribute__((aligned(L1_CACHE_BYTES)))

#endif /* _SHIM_LINUX_CACHE_H */
