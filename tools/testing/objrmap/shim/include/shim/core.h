/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The userspace machinery under the kernel-named shim headers of
 * tools/testing/objrmap: thread ids, checked pthread mutexes, BUG().
 * Nothing here has a kernel counterpart; mm/objrmap.c never names it.
 */
#ifndef _SHIM_CORE_H
#define _SHIM_CORE_H

#include <pthread.h>
#include <setjmp.h>

/* A small positive id for the calling thread (1, 2, ...); never 0. */
int shim_thread_id(void);

/* pthread mutex with error checking: misuse (unlock by a non-owner,
 * relocking one's own mutex) is reported at once, not left to hang. */
void shim_mutex_init(pthread_mutex_t *m);
void shim_mutex_destroy(pthread_mutex_t *m);
void shim_mutex_lock(pthread_mutex_t *m);
int shim_mutex_trylock(pthread_mutex_t *m);	/* 1 if taken */
void shim_mutex_unlock(pthread_mutex_t *m);

/* BUG(): report and abort, unless the calling thread is catching. */
__attribute__((noreturn))
void shim_bug(const char *file, int line, const char *func, const char *what);
__attribute__((noreturn, format(printf, 1, 2)))
void shim_fatal(const char *fmt, ...);

/*
 * A test that expects a BUG() sets shim_bug_catcher to a jmp_buf of its
 * own; BUG() then longjmp()s there with value 1 instead of aborting.
 */
extern __thread jmp_buf *shim_bug_catcher;
extern __thread const char *shim_bug_last;	/* "file:line" of the last caught BUG */

/*
 * pte_offset_map() and pte_unmap() bracket an atomic kmap (KM_PTE0 with
 * CONFIG_HIGHPTE): a thread may hold one at a time, and must give it back.
 */
extern __thread int shim_kmap_depth;
/* pte_offset_map() calls made by this thread: how many ptes a walk read. */
extern __thread unsigned long shim_pte_maps;

#endif /* _SHIM_CORE_H */
