// SPDX-License-Identifier: GPL-2.0
/*
 * load.c - shm touchers (see load.h).
 *
 * Block b of the segment is owned by toucher b % nproc.  The owner checks
 * the whole block against the generation it wrote last (kept in a private
 * byte array, so a stale block coming back from swap is caught too) and
 * rewrites it with the next generation.  The other touchers only read the
 * block's first word, which never changes: every process faults every
 * page, only one writes it, so the checks never race.
 *
 * With l->light the owner checks the header and generation words only and
 * writes the first word back: the page is still referenced and dirtied
 * on every pass, at a fraction of the CPU (a full check and rewrite of
 * each owned block costs a guest CPU about 15 us a page under emulation,
 * which a read measured beside it would pay for).  The whole segment is
 * still checked by vm_load_verify() at the end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/wait.h>

#include "vmshm.h"
#include "load.h"

struct vm_load_toucher {
	volatile uint32_t passes;
	volatile uint32_t blocks;	/* blocks visited, all passes */
	volatile uint32_t errors;
	volatile uint32_t bad_blk;
	volatile uint32_t bad_word;
	volatile uint32_t bad_exp;
	volatile uint32_t bad_got;
	volatile uint32_t bad_kind;	/* 1 header, 2 generation, 3 data */
};

struct vm_load_shared {
	volatile uint32_t stop;
	struct vm_load_toucher t[VM_LOAD_MAX];
};

int vm_load_create(struct vm_load *l, uint64_t bytes, uint32_t seed)
{
	uint64_t b;

	memset(l, 0, sizeof(*l));
	l->bytes = bytes / VM_BLK * VM_BLK;
	l->nblk = l->bytes / VM_BLK;
	l->nhot = l->nblk;
	l->seed = seed;
	l->sh = mmap(NULL, sizeof(*l->sh), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (l->sh == MAP_FAILED) {
		l->sh = NULL;
		ktap_diag("load: mmap control page: %s", strerror(errno));
		return -1;
	}
	l->base = vm_shm_create(l->bytes, NULL);
	if (!l->base)
		return -1;
	l->fill_ms = vm_now_ms();
	for (b = 0; b < l->nblk; b++) {
		vm_fill_blk(l->base + b * VM_BLK, seed, b, 0);
		if (!(b & 1023))
			vm_progress("filling shm: %llu of %llu MB",
				    (unsigned long long)(b * VM_BLK / VM_MB),
				    (unsigned long long)(l->bytes / VM_MB));
	}
	l->fill_ms = vm_now_ms() - l->fill_ms;
	return 0;
}

static void vm_load_bad(struct vm_load_toucher *t, uint64_t b, long w,
			uint32_t e, uint32_t g, uint32_t kind)
{
	if (!t->errors) {
		t->bad_blk = (uint32_t)b;
		t->bad_word = (uint32_t)w;
		t->bad_exp = e;
		t->bad_got = g;
		t->bad_kind = kind;
	}
	t->errors++;
}

static void vm_load_toucher(struct vm_load *l, int me)
{
	struct vm_load_toucher *t = &l->sh->t[me];
	uint64_t nown = l->nblk / l->nproc + 1;
	uint64_t per_pass = (l->nhot + l->stride - 1) / l->stride, seen;
	uint32_t pass, g, e, got;
	uint8_t *lastgen;
	double t_pass;
	uint64_t b;
	long bad;

	lastgen = calloc(nown, 1);
	if (!lastgen)
		_exit(3);
	for (pass = 0; !l->sh->stop; pass++) {
		t_pass = vm_now_ms();
		seen = 0;
		for (b = pass % l->stride; b < l->nhot; b += l->stride) {
			volatile uint32_t *w;

			if (l->sh->stop)
				break;
			if (l->pass_ms > 0 && !(++seen & 63)) {
				/* a rate, not a spin; a second late: resync */
				double due = t_pass + (double)l->pass_ms *
					     seen / per_pass;
				double now = vm_now_ms();

				if (now + 1 < due)
					vm_sleep_ms((long)(due - now));
				else if (now > due + 1000)
					t_pass = now - (double)l->pass_ms *
						 seen / per_pass;
			}
			w = (volatile uint32_t *)(l->base + b * VM_BLK);
			t->blocks++;
			if (b % l->nproc != (uint64_t)me) {
				e = VM_MAGIC ^ (uint32_t)b;
				if (w[0] != e)
					vm_load_bad(t, b, 0, e, w[0], 1);
				continue;
			}
			g = w[1];
			if ((uint8_t)g != lastgen[b / l->nproc]) {
				vm_load_bad(t, b, 1, lastgen[b / l->nproc],
					    g, 2);
				continue;
			}
			if (l->light) {
				e = VM_MAGIC ^ (uint32_t)b;
				got = w[0];
				if (got != e)
					vm_load_bad(t, b, 0, e, got, 1);
				else
					w[0] = got;
				continue;
			}
			if (vm_check_blk((const void *)w, l->seed, b, g, &bad,
					 &e, &got)) {
				vm_load_bad(t, b, bad, e, got, 3);
				continue;
			}
			vm_fill_blk((void *)w, l->seed, b, g + 1);
			lastgen[b / l->nproc] = (uint8_t)(g + 1);
		}
		if (b >= l->nhot)
			t->passes = pass + 1;
		if (l->pause_ms > 0 && !l->sh->stop)
			vm_sleep_ms(l->pause_ms);
	}
	_exit(0);
}

int vm_load_start(struct vm_load *l, int nproc, int stride)
{
	int i;

	if (nproc < 1)
		nproc = 1;
	if (nproc > VM_LOAD_MAX)
		nproc = VM_LOAD_MAX;
	if (stride < 1)
		stride = 1;
	if (!l->nhot || l->nhot > l->nblk)
		l->nhot = l->nblk;
	l->nproc = nproc;
	l->stride = stride;
	l->sh->stop = 0;
	for (i = 0; i < nproc; i++) {
		l->pid[i] = vm_fork();
		if (l->pid[i] < 0) {
			ktap_diag("load: fork toucher %d: %s", i,
				  strerror(errno));
			return -1;
		}
		if (l->pid[i] == 0)
			vm_load_toucher(l, i);
	}
	return 0;
}

double vm_load_cpu_s(struct vm_load *l)
{
	double s = 0;
	int i;

	for (i = 0; i < l->nproc; i++) {
		char path[64];
		long long v;

		if (l->pid[i] <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)l->pid[i]);
		v = vm_proc_stat_ticks(path);
		if (v > 0)
			s += (double)v / vm_clk_tck();
	}
	return s;
}

uint32_t vm_load_min_passes(struct vm_load *l)
{
	uint32_t m = UINT32_MAX;
	int i;

	for (i = 0; i < l->nproc; i++)
		if (l->sh->t[i].passes < m)
			m = l->sh->t[i].passes;
	return l->nproc ? m : 0;
}

uint64_t vm_load_blocks_touched(struct vm_load *l)
{
	uint64_t s = 0;
	int i;

	for (i = 0; i < l->nproc; i++)
		s += l->sh->t[i].blocks;
	return s;
}

uint32_t vm_load_errors(struct vm_load *l)
{
	uint32_t s = 0;
	int i;

	for (i = 0; i < l->nproc; i++)
		s += l->sh->t[i].errors;
	return s;
}

int vm_load_check_dead(struct vm_load *l)
{
	struct rusage r;
	int i, st;
	pid_t p;

	for (i = 0; i < l->nproc; i++) {
		if (l->pid[i] <= 0)
			continue;
		memset(&r, 0, sizeof(r));
		p = wait4(l->pid[i], &st, WNOHANG, &r);
		if (p != l->pid[i])
			continue;
		ktap_diag("load: toucher %d ended early (%s %d)", i,
			  WIFSIGNALED(st) ? "signal" : "exit",
			  WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
		vm_rusage_add(&l->ru, &r);
		vm_forget_child(l->pid[i]);
		l->pid[i] = -1;
		l->died++;
	}
	return l->died;
}

void vm_load_stop(struct vm_load *l, double timeout_ms)
{
	double end = vm_now_ms() + timeout_ms;
	struct rusage r;
	int i, st, rc;

	if (!l->sh)
		return;
	l->sh->stop = 1;
	for (i = 0; i < l->nproc; i++) {
		double left;

		if (l->pid[i] <= 0)
			continue;
		left = end - vm_now_ms();
		memset(&r, 0, sizeof(r));
		rc = vm_wait_timeout(l->pid[i], &st, &r, left > 0 ? left : 0);
		if (rc == 1) {
			ktap_diag("load: toucher %d did not stop, killing", i);
			kill(l->pid[i], SIGKILL);
			rc = vm_wait(l->pid[i], &st, &r);
			l->died++;
		} else if (rc == 0 && !(WIFEXITED(st) &&
					WEXITSTATUS(st) == 0)) {
			ktap_diag("load: toucher %d ended with %s %d", i,
				  WIFSIGNALED(st) ? "signal" : "exit",
				  WIFSIGNALED(st) ? WTERMSIG(st) :
				  WEXITSTATUS(st));
			l->died++;
		}
		if (rc == 0)
			vm_rusage_add(&l->ru, &r);
		l->pid[i] = -1;
	}
}

static const char *const vm_load_kinds[] = {
	"?", "header", "generation", "data"
};

void vm_load_report_errors(struct vm_load *l, const char *what)
{
	int i;

	for (i = 0; i < l->nproc; i++) {
		struct vm_load_toucher *t = &l->sh->t[i];

		if (!t->errors)
			continue;
		ktap_diag("%s: toucher %d saw %u bad blocks; first: %s "
			  "mismatch at offset 0x%llx: expected 0x%08x got "
			  "0x%08x", what, i, t->errors,
			  vm_load_kinds[t->bad_kind & 3],
			  (unsigned long long)t->bad_blk * VM_BLK +
			  t->bad_word * 4, t->bad_exp, t->bad_got);
	}
}

long vm_load_verify(struct vm_load *l, const char *what)
{
	uint32_t e, g;
	long nbad = 0, w;
	uint64_t b;

	for (b = 0; b < l->nblk; b++) {
		const uint32_t *p = (const uint32_t *)(l->base + b * VM_BLK);

		if (vm_check_blk(p, l->seed, b, p[1], &w, &e, &g)) {
			if (nbad < 5)
				ktap_diag("%s: mismatch at offset 0x%llx: "
					  "expected 0x%08x got 0x%08x", what,
					  (unsigned long long)b * VM_BLK +
					  w * 4, e, g);
			nbad++;
		}
		if (!(b & 4095))
			vm_progress("verifying shm: %llu of %llu MB",
				    (unsigned long long)(b * VM_BLK / VM_MB),
				    (unsigned long long)(l->bytes / VM_MB));
	}
	if (nbad)
		ktap_diag("%s: %ld of %llu blocks bad", what, nbad,
			  (unsigned long long)l->nblk);
	return nbad;
}

void vm_load_destroy(struct vm_load *l)
{
	if (l->base && shmdt(l->base) != 0)
		ktap_diag("load: shmdt: %s", strerror(errno));
	l->base = NULL;
}
