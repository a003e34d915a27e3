/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim of <asm/atomic.h> for tools/testing/objrmap.  Ordering
 * as the kernel's memory model gives it: atomic_inc()/atomic_dec() order
 * nothing (relaxed), value-returning operations are fully ordered.  A
 * stronger shim would hand ThreadSanitizer happens-before edges the
 * kernel does not have, and hide races.
 */
#ifndef _SHIM_ASM_ATOMIC_H
#define _SHIM_ASM_ATOMIC_H

typedef struct { volatile int counter; } atomic_t;

#define ATOMIC_INIT(i)	{ (i) }

static inline int atomic_read(const atomic_t *v)
{
	return __atomic_load_n(&v->counter, __ATOMIC_RELAXED);
}

static inline void atomic_set(atomic_t *v, int i)
{
	__atomic_store_n(&v->counter, i, __ATOMIC_RELAXED);
}

static inline void atomic_inc(atomic_t *v)
{
	__atomic_fetch_add(&v->counter, 1, __ATOMIC_RELAXED);
}

static inline void atomic_dec(atomic_t *v)
{
	__atomic_fetch_sub(&v->counter, 1, __ATOMIC_RELAXED);
}

/* Returns the new value. */
static inline int atomic_dec_return(atomic_t *v)
{
	return __atomic_sub_fetch(&v->counter, 1, __ATOMIC_SEQ_CST);
}

static inline int atomic_dec_and_test(atomic_t *v)
{
	return atomic_dec_return(v) == 0;
}

#endif /* _SHIM_ASM_ATOMIC_H */
