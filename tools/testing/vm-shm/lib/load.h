/* SPDX-License-Identifier: GPL-2.0 */
/*
 * load.h - the shm swap load shared by shm_swap_storm, copy_during_swap
 * and overcommit_copy: one SysV segment filled with self-describing blocks,
 * touched by several processes, each owning (rewriting) every nproc-th
 * block and reading the header of all others.
 */
#ifndef VMSHM_LOAD_H
#define VMSHM_LOAD_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/resource.h>

#define VM_LOAD_MAX	64

struct vm_load_shared;

struct vm_load {
	char *base;
	uint64_t bytes;
	uint64_t nblk;
	uint32_t seed;
	int nproc;
	int stride;
	uint64_t nhot;		/* touchers visit blocks [0, nhot) only */
	long pause_ms;		/* and sleep this long after each pass */
	long pass_ms;		/* spread each pass evenly over this long */
	int light;		/* owners write one word of their blocks */
	pid_t pid[VM_LOAD_MAX];
	struct vm_load_shared *sh;
	struct rusage ru;	/* summed over the reaped touchers */
	double fill_ms;
	int died;		/* touchers that did not exit cleanly */
};

/* create the segment and fill it (generation 0); 0 or -1 */
int vm_load_create(struct vm_load *l, uint64_t bytes, uint32_t seed);
/*
 * fork @nproc touchers walking every @stride-th block per pass, of the
 * first l->nhot blocks (all of them unless set before the call), with
 * l->pause_ms of sleep between passes (none unless set); with l->pass_ms
 * a toucher that is ahead of an even pace over that long sleeps, one
 * that is behind it (faulting) goes on at once
 */
int vm_load_start(struct vm_load *l, int nproc, int stride);
uint32_t vm_load_min_passes(struct vm_load *l);
uint64_t vm_load_blocks_touched(struct vm_load *l);
uint32_t vm_load_errors(struct vm_load *l);
int vm_load_check_dead(struct vm_load *l);	/* touchers gone early */
/* CPU seconds (user + system) the running touchers have used so far */
double vm_load_cpu_s(struct vm_load *l);
/* stop the touchers, reap them within @timeout_ms, then SIGKILL */
void vm_load_stop(struct vm_load *l, double timeout_ms);
/* print the first toucher-detected mismatches */
void vm_load_report_errors(struct vm_load *l, const char *what);
/* full check of every block by the caller; returns bad blocks */
long vm_load_verify(struct vm_load *l, const char *what);
void vm_load_destroy(struct vm_load *l);

#endif /* VMSHM_LOAD_H */
