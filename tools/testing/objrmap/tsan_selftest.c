// SPDX-License-Identifier: GPL-2.0
/*
 * tools/testing/objrmap/tsan_selftest.c - does the ThreadSanitizer build
 * see what the stress test relies on it to see?
 *
 * Negative tests: each takes the shims' kernel locks in the wrong order
 * (blocking locks, in the harness, not in mm/objrmap.c), or touches a pte
 * without page_table_lock, and passes only if TSan reports it.  The
 * threads run one after the other, so nothing really deadlocks: TSan
 * finds the cycle in its lock-order graph.  One positive test shows that
 * the trylock pattern of the reclaim side (mm/objrmap.c's header) is not
 * reported: without it a clean stress run would prove nothing either way.
 */
#include <pthread.h>
#include <stdio.h>

#include "lib/ktap.h"
#include "lib/world.h"

static struct world_file F;
static struct mm_struct *mm;
static struct page *page;

static void setup(void)
{
	world_init(16);
	world_file_init(&F);
	mm = world_mm_new();
	page = world_file_page(&F, 0);
}

static void run_thread(void *(*fn)(void *))
{
	pthread_t t;

	if (pthread_create(&t, NULL, fn, NULL))
		shim_fatal("pthread_create");
	pthread_join(t, NULL);
}

/* The fault/truncate order: i_shared_sem -> page_table_lock -> pte_chain_lock. */
static void *kernel_order(void *arg)
{
	(void)arg;
	down(&F.mapping.i_shared_sem);
	spin_lock(&mm->page_table_lock);
	pte_chain_lock(page);
	pte_chain_unlock(page);
	spin_unlock(&mm->page_table_lock);
	up(&F.mapping.i_shared_sem);
	return NULL;
}

/* page_table_lock, then a blocking down(i_shared_sem): inverted. */
static void *ptl_then_sem(void *arg)
{
	(void)arg;
	spin_lock(&mm->page_table_lock);
	down(&F.mapping.i_shared_sem);
	up(&F.mapping.i_shared_sem);
	spin_unlock(&mm->page_table_lock);
	return NULL;
}

/* What reclaim would do if it waited: pte_chain_lock, then spin_lock. */
static void *chain_then_ptl(void *arg)
{
	(void)arg;
	pte_chain_lock(page);
	spin_lock(&mm->page_table_lock);
	spin_unlock(&mm->page_table_lock);
	pte_chain_unlock(page);
	return NULL;
}

/* ... and what it does: trylocks under pte_chain_lock. */
static void *chain_then_trylocks(void *arg)
{
	(void)arg;
	pte_chain_lock(page);
	if (!down_trylock(&F.mapping.i_shared_sem)) {
		if (spin_trylock(&mm->page_table_lock))
			spin_unlock(&mm->page_table_lock);
		up(&F.mapping.i_shared_sem);
	}
	pte_chain_unlock(page);
	return NULL;
}

static void test_inversion_sem_page_table_lock(void)
{
	setup();
	run_thread(kernel_order);
	run_thread(ptl_then_sem);
}

static void test_inversion_blocking_reclaim(void)
{
	setup();
	run_thread(kernel_order);
	run_thread(chain_then_ptl);
}

static void test_trylocks_are_not_inversions(void)
{
	setup();
	run_thread(kernel_order);
	run_thread(chain_then_trylocks);
	run_thread(kernel_order);
}

/* A pte read without page_table_lock while another thread sets it. */
static pthread_barrier_t barrier;

static void *set_pte_locked(void *arg)
{
	(void)arg;
	spin_lock(&mm->page_table_lock);
	set_pte(world_pte(mm, 0x10000000UL, 1), pgoff_to_pte(1));
	spin_unlock(&mm->page_table_lock);
	pthread_barrier_wait(&barrier);
	return NULL;
}

static void test_race_on_pte(void)
{
	pthread_t t;
	pte_t pte;

	setup();
	spin_lock(&mm->page_table_lock);
	world_pte(mm, 0x10000000UL, 1);		/* the table exists */
	spin_unlock(&mm->page_table_lock);
	pthread_barrier_init(&barrier, NULL, 2);
	if (pthread_create(&t, NULL, set_pte_locked, NULL))
		shim_fatal("pthread_create");
	pte = mm->pgd[pgd_index(0x10000000UL)].table[0];	/* no lock */
	pthread_barrier_wait(&barrier);
	pthread_join(t, NULL);
	printf("# read %#lx\n", pte.pte_low);
}

static const struct ktap_case cases[] = {
	{ "inversion_sem_page_table_lock", test_inversion_sem_page_table_lock,
	  "lock-order-inversion" },
	{ "inversion_blocking_reclaim", test_inversion_blocking_reclaim,
	  "lock-order-inversion" },
	{ "trylocks_are_not_inversions", test_trylocks_are_not_inversions,
	  NULL },
	{ "race_on_pte", test_race_on_pte, "data race" },
};

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	return ktap_run(cases, sizeof(cases) / sizeof(cases[0]), 60);
}
