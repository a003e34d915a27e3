/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim of <linux/page-flags.h> for tools/testing/objrmap:
 * the 2.6.3 bit numbers, PG_objrmap as the series' first patch
 * (patches/vm/objrmap-page-flag.patch) defines it, and the page_state
 * counters.  Included by <linux/mm.h> once struct page is known.
 */
#ifndef _SHIM_LINUX_PAGE_FLAGS_H
#define _SHIM_LINUX_PAGE_FLAGS_H

#include <asm/bitops.h>

#define PG_locked		 0	/* Page is locked. Don't touch. */
#define PG_error		 1
#define PG_referenced		 2
#define PG_uptodate		 3
#define PG_dirty		 4
#define PG_lru			 5
#define PG_active		 6
#define PG_slab			 7
#define PG_highmem		 8
#define PG_checked		 9
#define PG_arch_1		10
#define PG_reserved		11
#define PG_private		12
#define PG_writeback		13
#define PG_nosave		14
#define PG_chainlock		15	/* lock bit for ->pte_chain */
#define PG_direct		16	/* ->pte_chain points directly at pte */
#define PG_mappedtodisk		17
#define PG_reclaim		18
#define PG_compound		19
#define PG_objrmap		20	/* ->pte.mapcount, not a pte_chain */

#define PageLocked(page)	test_bit(PG_locked, &(page)->flags)

#define PageReferenced(page)	test_bit(PG_referenced, &(page)->flags)
#define SetPageReferenced(page)	set_bit(PG_referenced, &(page)->flags)
#define ClearPageReferenced(page) clear_bit(PG_referenced, &(page)->flags)
#define TestClearPageReferenced(page) \
	test_and_clear_bit(PG_referenced, &(page)->flags)

#define PageDirty(page)		test_bit(PG_dirty, &(page)->flags)
#define SetPageDirty(page)	set_bit(PG_dirty, &(page)->flags)
#define TestSetPageDirty(page)	test_and_set_bit(PG_dirty, &(page)->flags)
#define ClearPageDirty(page)	clear_bit(PG_dirty, &(page)->flags)

#define PageLRU(page)		test_bit(PG_lru, &(page)->flags)
#define PageActive(page)	test_bit(PG_active, &(page)->flags)
#define SetPageActive(page)	set_bit(PG_active, &(page)->flags)
#define ClearPageActive(page)	clear_bit(PG_active, &(page)->flags)
#define PageWriteback(page)	test_bit(PG_writeback, &(page)->flags)
#define SetPageReclaim(page)	set_bit(PG_reclaim, &(page)->flags)
#define ClearPageReclaim(page)	clear_bit(PG_reclaim, &(page)->flags)

#define PageReserved(page)	test_bit(PG_reserved, &(page)->flags)
#define SetPageReserved(page)	set_bit(PG_reserved, &(page)->flags)

#define PageDirect(page)	test_bit(PG_direct, &(page)->flags)
#define SetPageDirect(page)	set_bit(PG_direct, &(page)->flags)
#define ClearPageDirect(page)	clear_bit(PG_direct, &(page)->flags)

#define PageUptodate(page)	test_bit(PG_uptodate, &(page)->flags)
#define SetPageUptodate(page)	set_bit(PG_uptodate, &(page)->flags)
#define ClearPageUptodate(page)	clear_bit(PG_uptodate, &(page)->flags)
#define ClearPageMappedToDisk(page) clear_bit(PG_mappedtodisk, &(page)->flags)
#define PagePrivate(page)	test_bit(PG_private, &(page)->flags)
#define TestClearPageDirty(page) test_and_clear_bit(PG_dirty, &(page)->flags)

/*
 * As 2.6.3 with CONFIG_SWAP: the swap cache is the page cache of
 * swapper_space.  The harness puts a page there by setting ->mapping.
 */
struct address_space;
extern struct address_space swapper_space;
#define PageSwapCache(page)	((page)->mapping == &swapper_space)

/* test_clear_page_dirty() without the nr_dirty accounting (no
 * backing_dev_info here) */
#define test_clear_page_dirty(page)	TestClearPageDirty(page)
#define clear_page_dirty(page)	((void)TestClearPageDirty(page))

#define PageObjrmap(page)	test_bit(PG_objrmap, &(page)->flags)
#define SetPageObjrmap(page)	set_bit(PG_objrmap, &(page)->flags)
#define ClearPageObjrmap(page)	clear_bit(PG_objrmap, &(page)->flags)

/*
 * The page lock is a mutex per page (so ThreadSanitizer sees it) kept in
 * step with PG_locked.  TestSetPageLocked() is a trylock: 0 if taken.
 */
static inline int TestSetPageLocked(struct page *page)
{
	if (!shim_mutex_trylock(&page->shim_lock_mutex))
		return 1;
	BUG_ON(test_and_set_bit(PG_locked, &page->flags));
	return 0;
}

/*
 * Per-cpu in the kernel, so never a race there; one set of atomic
 * counters here.
 */
struct page_state {
	unsigned long nr_dirty;
	unsigned long nr_writeback;
	unsigned long nr_mapped;
	unsigned long pgactivate;
	unsigned long pgdeactivate;
	unsigned long pgsteal;
	unsigned long kswapd_steal;
	unsigned long rmap_file_walks;
	unsigned long rmap_busy_i_shared_sem;
	unsigned long rmap_busy_page_table_lock;
};
extern struct page_state shim_page_state;

#define mod_page_state(member, delta) \
	((void)__atomic_fetch_add(&shim_page_state.member, (delta), \
				  __ATOMIC_RELAXED))
#define inc_page_state(member)	mod_page_state(member, 1UL)
#define dec_page_state(member)	mod_page_state(member, 0UL - 1)
#define add_page_state(member, delta) mod_page_state(member, (delta))
#define sub_page_state(member, delta) mod_page_state(member, 0UL - (delta))

#endif /* _SHIM_LINUX_PAGE_FLAGS_H */
