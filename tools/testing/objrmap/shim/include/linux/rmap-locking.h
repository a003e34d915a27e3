/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim of <linux/rmap-locking.h> for tools/testing/objrmap.
 * pte_chain_lock() is bit_spin_lock(PG_chainlock) in the kernel: here a
 * mutex per page, with PG_chainlock kept in step and the holder noted.
 */
#ifndef _SHIM_LINUX_RMAP_LOCKING_H
#define _SHIM_LINUX_RMAP_LOCKING_H

#include <linux/mm.h>

static inline void pte_chain_lock(struct page *page)
{
	shim_mutex_lock(&page->shim_chain_mutex);
	BUG_ON(test_and_set_bit(PG_chainlock, &page->flags));
	__atomic_store_n(&page->shim_chain_owner, shim_thread_id(),
			 __ATOMIC_RELAXED);
}

/* bit_spin_trylock(): 1 if taken. */
static inline int pte_chain_trylock(struct page *page)
{
	if (!shim_mutex_trylock(&page->shim_chain_mutex))
		return 0;
	BUG_ON(test_and_set_bit(PG_chainlock, &page->flags));
	__atomic_store_n(&page->shim_chain_owner, shim_thread_id(),
			 __ATOMIC_RELAXED);
	return 1;
}

/*
 * Not a kernel API: if set, called by pte_chain_unlock() while the lock
 * is still held, so a test can watch what each critical section leaves.
 */
extern __thread void (*shim_pte_chain_unlock_hook)(struct page *page);

static inline void pte_chain_unlock(struct page *page)
{
	if (shim_pte_chain_unlock_hook)
		shim_pte_chain_unlock_hook(page);
	BUG_ON(__atomic_load_n(&page->shim_chain_owner, __ATOMIC_RELAXED) !=
	       shim_thread_id());
	__atomic_store_n(&page->shim_chain_owner, 0, __ATOMIC_RELAXED);
	BUG_ON(!test_and_clear_bit(PG_chainlock, &page->flags));
	shim_mutex_unlock(&page->shim_chain_mutex);
}

/* Not a kernel API: does the calling thread hold pte_chain_lock(page)? */
static inline int shim_pte_chain_held(struct page *page)
{
	return __atomic_load_n(&page->shim_chain_owner, __ATOMIC_RELAXED) ==
	       shim_thread_id();
}

#endif /* _SHIM_LINUX_RMAP_LOCKING_H */
