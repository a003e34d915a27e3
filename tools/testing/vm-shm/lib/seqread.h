/* SPDX-License-Identifier: GPL-2.0 */
/*
 * seqread.h - the large sequential file the copy scenarios read
 * (copy_during_swap, overcommit_copy): created with self-describing
 * blocks, dropped from the page cache, read back in 1 MB reads and
 * checked, with a tail rate for the part past a given offset.
 */
#ifndef VMSHM_SEQREAD_H
#define VMSHM_SEQREAD_H

#include <stdint.h>

#define VM_RD_BUF	(1024 * 1024)

struct vm_rd {
	uint64_t bytes;
	double ms;
	uint64_t tail_bytes;	/* read after tail_from */
	double tail_ms;
	long bad;
	int err;
	int truncated;		/* stopped by the time bound */
};

/* @buf of VM_RD_BUF bytes; 0, or -1 having said why */
int vm_file_create(const char *path, uint64_t size, char *buf);
/* write back and drop [0, @size) of @fd from the page cache */
void vm_file_drop_cache(int fd, uint64_t size);
/*
 * Read @fd from its start to @size into @buf (VM_RD_BUF bytes), checking
 * every block when @verify; stop after @bound_ms when it is > 0.
 */
void vm_file_read(int fd, uint64_t size, uint64_t tail_from, int verify,
		  double bound_ms, struct vm_rd *r, char *buf,
		  const char *what);
double vm_rd_mbps(const struct vm_rd *r);
double vm_rd_tail_mbps(const struct vm_rd *r);

/* median of @n <= 15 values (the upper one of the middle two); extremes */
double vm_median(const double *v, long n, double *lo, double *hi);

#endif /* VMSHM_SEQREAD_H */
