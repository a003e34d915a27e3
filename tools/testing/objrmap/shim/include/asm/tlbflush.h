/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim of <asm/tlbflush.h> for tools/testing/objrmap: no TLB. */
#ifndef _SHIM_ASM_TLBFLUSH_H
#define _SHIM_ASM_TLBFLUSH_H

struct vm_area_struct;

static inline void flush_tlb_page(struct vm_area_struct *vma,
				  unsigned long address)
{
	(void)vma;
	(void)address;
}

#endif /* _SHIM_ASM_TLBFLUSH_H */
