/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim of <asm/bitops.h> for tools/testing/objrmap.  The
 * kernel's set_bit() & co. are atomic (lock-prefixed on i386), and so are
 * these; test_bit() is a plain load there, a relaxed atomic load here
 * (the same thing on x86, and not a data race to ThreadSanitizer).
 * Ordering as the kernel's memory model gives it: set_bit()/clear_bit()
 * order nothing (relaxed), test_and_*() are fully ordered; anything
 * stronger would hand ThreadSanitizer happens-before edges the kernel
 * does not have.
 */
#ifndef _SHIM_ASM_BITOPS_H
#define _SHIM_ASM_BITOPS_H

#define BITS_PER_LONG	(__SIZEOF_LONG__ * 8)	/* usable in #if */

#define __shim_bit_word(nr, addr) \
	((volatile unsigned long *)(addr) + (nr) / BITS_PER_LONG)
#define __shim_bit_mask(nr)	(1UL << ((nr) % BITS_PER_LONG))

static inline void set_bit(int nr, volatile unsigned long *addr)
{
	__atomic_fetch_or(__shim_bit_word(nr, addr), __shim_bit_mask(nr),
			  __ATOMIC_RELAXED);
}

static inline void clear_bit(int nr, volatile unsigned long *addr)
{
	__atomic_fetch_and(__shim_bit_word(nr, addr), ~__shim_bit_mask(nr),
			   __ATOMIC_RELAXED);
}

static inline int test_and_set_bit(int nr, volatile unsigned long *addr)
{
	return (__atomic_fetch_or(__shim_bit_word(nr, addr),
				  __shim_bit_mask(nr), __ATOMIC_SEQ_CST) &
		__shim_bit_mask(nr)) != 0;
}

static inline int test_and_clear_bit(int nr, volatile unsigned long *addr)
{
	return (__atomic_fetch_and(__shim_bit_word(nr, addr),
				   ~__shim_bit_mask(nr), __ATOMIC_SEQ_CST) &
		__shim_bit_mask(nr)) != 0;
}

static inline int test_bit(int nr, const volatile unsigned long *addr)
{
	return (__atomic_load_n(__shim_bit_word(nr, addr), __ATOMIC_RELAXED) &
		__shim_bit_mask(nr)) != 0;
}

#endif /* _SHIM_ASM_BITOPS_H */
