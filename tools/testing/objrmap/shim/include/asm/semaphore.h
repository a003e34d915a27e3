/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim of <asm/semaphore.h> for tools/testing/objrmap.
 *
 * Only mutex semaphores (count 1: init_MUTEX, sema_init(sem, 1)), which is
 * what mapping->i_shared_sem is in 2.6.3.  One is an error-checking
 * pthread mutex, so ThreadSanitizer puts down() in its lock-order graph
 * and treats down_trylock() as a trylock.  up() from a task that did not
 * down() is legal in the kernel but never done with i_shared_sem; here
 * it is reported.
 */
#ifndef _SHIM_ASM_SEMAPHORE_H
#define _SHIM_ASM_SEMAPHORE_H

#include <shim/core.h>
#include <asm/bug.h>

struct semaphore {
	pthread_mutex_t mutex;
	int owner;			/* shim_thread_id() of the holder, 0 if free */
	unsigned long trylocks;		/* down_trylock() calls */
	unsigned long trylock_fails;	/* ... that found it busy */
};

static inline void sema_init(struct semaphore *sem, int val)
{
	BUG_ON(val != 1);	/* counting semaphores are not modelled */
	shim_mutex_init(&sem->mutex);
	sem->owner = 0;
	sem->trylocks = 0;
	sem->trylock_fails = 0;
}

static inline void init_MUTEX(struct semaphore *sem)
{
	sema_init(sem, 1);
}

static inline void shim_sema_destroy(struct semaphore *sem)
{
	shim_mutex_destroy(&sem->mutex);
}

static inline void down(struct semaphore *sem)
{
	shim_mutex_lock(&sem->mutex);
	__atomic_store_n(&sem->owner, shim_thread_id(), __ATOMIC_RELAXED);
}

/* As in the kernel: 0 if the semaphore was taken, 1 if it was busy. */
static inline int down_trylock(struct semaphore *sem)
{
	__atomic_fetch_add(&sem->trylocks, 1, __ATOMIC_RELAXED);
	if (!shim_mutex_trylock(&sem->mutex)) {
		__atomic_fetch_add(&sem->trylock_fails, 1, __ATOMIC_RELAXED);
		return 1;
	}
	__atomic_store_n(&sem->owner, shim_thread_id(), __ATOMIC_RELAXED);
	return 0;
}

static inline void up(struct semaphore *sem)
{
	BUG_ON(__atomic_load_n(&sem->owner, __ATOMIC_RELAXED) !=
	       shim_thread_id());
	__atomic_store_n(&sem->owner, 0, __ATOMIC_RELAXED);
	shim_mutex_unlock(&sem->mutex);
}

/* Not a kernel API: does the calling thread hold @sem? */
static inline int shim_sema_held(struct semaphore *sem)
{
	return __atomic_load_n(&sem->owner, __ATOMIC_RELAXED) ==
	       shim_thread_id();
}

#endif /* _SHIM_ASM_SEMAPHORE_H */
