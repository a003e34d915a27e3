/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim of <linux/pagemap.h> for tools/testing/objrmap. */
#ifndef _SHIM_LINUX_PAGEMAP_H
#define _SHIM_LINUX_PAGEMAP_H

#include <linux/mm.h>

#define PAGE_CACHE_SHIFT	PAGE_SHIFT
#define PAGE_CACHE_SIZE		PAGE_SIZE
#define PAGE_CACHE_MASK		PAGE_MASK

#define page_cache_get(page)		get_page(page)
#define page_cache_release(page)	put_page(page)

/* The page lock sleeps in the kernel; a blocking mutex here. */
static inline void lock_page(struct page *page)
{
	shim_mutex_lock(&page->shim_lock_mutex);
	BUG_ON(test_and_set_bit(PG_locked, &page->flags));
}

static inline void unlock_page(struct page *page)
{
	BUG_ON(!test_and_clear_bit(PG_locked, &page->flags));
	shim_mutex_unlock(&page->shim_lock_mutex);
}

#endif /* _SHIM_LINUX_PAGEMAP_H */
