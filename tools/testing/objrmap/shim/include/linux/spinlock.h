/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim of <linux/spinlock.h> for tools/testing/objrmap.
 *
 * A spinlock is an error-checking pthread mutex, so that ThreadSanitizer
 * sees every acquisition: blocking ones add edges to its lock-order
 * graph, trylocks do not (a trylock cannot deadlock), exactly the rule
 * the kernel relies on.  The owner is recorded so that the page table
 * accessors can assert that their caller holds mm->page_table_lock, and
 * the trylock attempts are counted so that tests can tell whether a
 * walk touched a lock at all.
 */
#ifndef _SHIM_LINUX_SPINLOCK_H
#define _SHIM_LINUX_SPINLOCK_H

#include <shim/core.h>
#include <asm/bug.h>

typedef struct {
	pthread_mutex_t mutex;
	int owner;			/* shim_thread_id() of the holder, 0 if free */
	unsigned long trylocks;		/* spin_trylock() calls */
	unsigned long trylock_fails;	/* ... that found it busy */
} spinlock_t;

static inline void spin_lock_init(spinlock_t *lock)
{
	shim_mutex_init(&lock->mutex);
	lock->owner = 0;
	lock->trylocks = 0;
	lock->trylock_fails = 0;
}

static inline void shim_spin_destroy(spinlock_t *lock)
{
	shim_mutex_destroy(&lock->mutex);
}

static inline void spin_lock(spinlock_t *lock)
{
	shim_mutex_lock(&lock->mutex);
	__atomic_store_n(&lock->owner, shim_thread_id(), __ATOMIC_RELAXED);
}

/*
 * Not a kernel API: if set, called at the start of every spin_trylock()
 * of the calling thread, so a unit test can make another CPU's critical
 * section (say mlock_fixup()'s) fall right before a trylock.
 */
extern __thread void (*shim_spin_trylock_hook)(spinlock_t *lock);
/* Not a kernel API: spin_trylock() calls made by this thread, on any
 * lock: how many vmas a walk looked at. */
extern __thread unsigned long shim_spin_trylocks;

static inline int spin_trylock(spinlock_t *lock)
{
	if (shim_spin_trylock_hook)
		shim_spin_trylock_hook(lock);
	shim_spin_trylocks++;
	__atomic_fetch_add(&lock->trylocks, 1, __ATOMIC_RELAXED);
	if (!shim_mutex_trylock(&lock->mutex)) {
		__atomic_fetch_add(&lock->trylock_fails, 1, __ATOMIC_RELAXED);
		return 0;
	}
	__atomic_store_n(&lock->owner, shim_thread_id(), __ATOMIC_RELAXED);
	return 1;
}

static inline void spin_unlock(spinlock_t *lock)
{
	BUG_ON(__atomic_load_n(&lock->owner, __ATOMIC_RELAXED) !=
	       shim_thread_id());
	__atomic_store_n(&lock->owner, 0, __ATOMIC_RELAXED);
	shim_mutex_unlock(&lock->mutex);
}

/* Not a kernel API: does the calling thread hold @lock? */
static inline int shim_spin_held(spinlock_t *lock)
{
	return __atomic_load_n(&lock->owner, __ATOMIC_RELAXED) ==
	       shim_thread_id();
}

#endif /* _SHIM_LINUX_SPINLOCK_H */
