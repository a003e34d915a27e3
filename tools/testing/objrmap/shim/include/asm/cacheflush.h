/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim of <asm/cacheflush.h> for tools/testing/objrmap: i386's
 * caches need no flushing, and there are none here. */
#ifndef _SHIM_ASM_CACHEFLUSH_H
#define _SHIM_ASM_CACHEFLUSH_H

struct vm_area_struct;

static inline void flush_cache_page(struct vm_area_struct *vma,
				    unsigned long address)
{
	(void)vma;
	(void)address;
}

#endif /* _SHIM_ASM_CACHEFLUSH_H */
