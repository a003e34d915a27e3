// SPDX-License-Identifier: GPL-2.0
/*
 * The out-of-line part of the shims of tools/testing/objrmap: thread ids,
 * checked mutexes, BUG(), mem_map and the page_state counters, and a
 * model of mm/rmap.c's unmap_page_pte().
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/mm.h>
#include <linux/jiffies.h>
#include <linux/rmap-locking.h>
#include <linux/swap.h>
#include <asm/rmap.h>
#include <shim/mem.h>

struct page *mem_map;
unsigned long max_mapnr;
unsigned long shim_jiffies = HZ;
struct page_state shim_page_state;
struct address_space swapper_space;	/* only its address is used */

__thread jmp_buf *shim_bug_catcher;
__thread const char *shim_bug_last;
__thread int shim_kmap_depth;
__thread unsigned long shim_pte_maps;
__thread void (*shim_spin_trylock_hook)(spinlock_t *lock);
__thread unsigned long shim_spin_trylocks;
__thread void (*shim_pte_chain_unlock_hook)(struct page *page);

static int shim_next_thread_id;
static __thread int shim_my_thread_id;

int shim_thread_id(void)
{
	if (!shim_my_thread_id)
		shim_my_thread_id = __atomic_add_fetch(&shim_next_thread_id, 1,
						       __ATOMIC_RELAXED);
	return shim_my_thread_id;
}

void shim_fatal(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

void shim_mutex_init(pthread_mutex_t *m)
{
	pthread_mutexattr_t attr;
	int err;

	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK);
	err = pthread_mutex_init(m, &attr);
	pthread_mutexattr_destroy(&attr);
	if (err)
		shim_fatal("pthread_mutex_init: %s", strerror(err));
}

void shim_mutex_destroy(pthread_mutex_t *m)
{
	int err = pthread_mutex_destroy(m);

	if (err)
		shim_fatal("pthread_mutex_destroy: %s (still locked?)",
			   strerror(err));
}

void shim_mutex_lock(pthread_mutex_t *m)
{
	int err = pthread_mutex_lock(m);

	if (err)
		shim_fatal("lock: %s (taking a lock this thread holds?)",
			   strerror(err));
}

int shim_mutex_trylock(pthread_mutex_t *m)
{
	int err = pthread_mutex_trylock(m);

	if (err == EBUSY)
		return 0;
	if (err)
		shim_fatal("trylock: %s", strerror(err));
	return 1;
}

void shim_mutex_unlock(pthread_mutex_t *m)
{
	int err = pthread_mutex_unlock(m);

	if (err)
		shim_fatal("unlock: %s (releasing a lock this thread does not hold?)",
			   strerror(err));
}

void shim_bug(const char *file, int line, const char *func, const char *what)
{
	static __thread char where[256];

	snprintf(where, sizeof(where), "%s:%d", file, line);
	if (shim_bug_catcher) {
		jmp_buf *catcher = shim_bug_catcher;

		shim_bug_catcher = NULL;
		shim_bug_last = where;
		longjmp(*catcher, 1);
	}
	shim_fatal("kernel BUG at %s! %s in %s()", where, what, func);
}

pte_t *shim_pte_table_alloc(struct mm_struct *mm, unsigned long address)
{
	size_t bytes = PTRS_PER_PTE * sizeof(pte_t);
	struct shim_pte_table_note *note;
	pte_t *table = aligned_alloc(2 * bytes, 2 * bytes);

	if (!table)
		return NULL;
	memset(table, 0, bytes);
	note = shim_pte_table_note(table);
	note->mm = mm;
	note->base = address & ~(PGDIR_SIZE - 1);
	return table;
}

void shim_mem_map_init(unsigned long nr_pages)
{
	unsigned long pfn;

	mem_map = calloc(nr_pages, sizeof(*mem_map));
	if (!mem_map)
		shim_fatal("out of memory for %lu struct pages", nr_pages);
	max_mapnr = nr_pages;
	for (pfn = 0; pfn < nr_pages; pfn++) {
		shim_mutex_init(&mem_map[pfn].shim_lock_mutex);
		shim_mutex_init(&mem_map[pfn].shim_chain_mutex);
	}
	SetPageReserved(&mem_map[0]);	/* pfn 0: a pte of 0 is no page */
	memset(&shim_page_state, 0, sizeof(shim_page_state));
}

void shim_mem_map_free(void)
{
	unsigned long pfn;

	for (pfn = 0; pfn < max_mapnr; pfn++) {
		shim_mutex_destroy(&mem_map[pfn].shim_lock_mutex);
		shim_mutex_destroy(&mem_map[pfn].shim_chain_mutex);
	}
	free(mem_map);
	mem_map = NULL;
	max_mapnr = 0;
}

/*
 * mm/rmap.c's unmap_page_pte(), for unit and stress, which build only
 * mm/objrmap.c and mm/vma_index.c: clear the pte, leave a file pte where
 * the page is not at its linear offset, move the dirty bit, drop the rss.
 * The harness has no swap cache.  Weak: lifecycle links the real one,
 * extracted from the patched tree, in its place.
 */
__attribute__((weak))
pte_t unmap_page_pte(struct vm_area_struct *vma, unsigned long address,
		     pte_t *ptep, struct page *page)
{
	unsigned long pgidx;
	pte_t pte;

	BUG_ON(!shim_spin_held(&vma->vm_mm->page_table_lock));
	BUG_ON(PageSwapCache(page));
	pte = ptep_clear_flush(vma, address, ptep);
	pgidx = ((address - vma->vm_start) >> PAGE_SHIFT) + vma->vm_pgoff;
	if (page->index != pgidx)
		set_pte(ptep, pgoff_to_pte(page->index));
	if (pte_dirty(pte))
		set_page_dirty(page);
	vma->vm_mm->rss--;
	return pte;
}
