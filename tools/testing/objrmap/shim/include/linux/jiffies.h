/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim of <linux/jiffies.h> for tools/testing/objrmap: time
 * is what the harness says it is.  The kernel reads jiffies as a
 * volatile word; here the reads and the harness's ticks are relaxed
 * atomics, so that ThreadSanitizer sees no race where there is none.
 */
#ifndef _SHIM_LINUX_JIFFIES_H
#define _SHIM_LINUX_JIFFIES_H

#define HZ		1000	/* i386 in 2.6 */

extern unsigned long shim_jiffies;

#define jiffies		__atomic_load_n(&shim_jiffies, __ATOMIC_RELAXED)

/* The harness's clock: let @n jiffies pass. */
static inline void shim_tick(unsigned long n)
{
	__atomic_add_fetch(&shim_jiffies, n, __ATOMIC_RELAXED);
}

#endif /* _SHIM_LINUX_JIFFIES_H */
