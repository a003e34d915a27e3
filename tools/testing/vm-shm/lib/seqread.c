// SPDX-License-Identifier: GPL-2.0
/*
 * seqread.c - the sequential file of the copy scenarios (see seqread.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vmshm.h"
#include "seqread.h"

static void file_fill(char *b, uint64_t first_blk)
{
	uint32_t *w;
	size_t i;

	for (i = 0; i < VM_RD_BUF / VM_BLK; i++) {
		w = (uint32_t *)(b + i * VM_BLK);
		w[0] = VM_MAGIC ^ (uint32_t)(first_blk + i);
		w[1] = ~(uint32_t)(first_blk + i);
	}
}

int vm_file_create(const char *path, uint64_t size, char *buf)
{
	uint64_t off;
	int fd;

	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if (fd < 0) {
		ktap_diag("create %s: %s", path, strerror(errno));
		return -1;
	}
	vm_register_path(path);
	memset(buf, 0xa5, VM_RD_BUF);	/* non-zero content */
	for (off = 0; off < size; off += VM_RD_BUF) {
		size_t n = (size_t)VM_MIN((uint64_t)VM_RD_BUF, size - off);

		file_fill(buf, off / VM_BLK);
		if (vm_write_all(fd, buf, n) != 0) {
			ktap_diag("write %s: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
		vm_progress("creating %s: %llu of %llu MB", path,
			    (unsigned long long)(off / VM_MB),
			    (unsigned long long)(size / VM_MB));
	}
	if (fsync(fd) != 0) {
		ktap_diag("fsync %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return close(fd);
}

/*
 * The length is spelled out: 2.6.3 takes a length of 0 literally (one
 * page), not as "to the end of the file" as POSIX and later kernels do.
 */
void vm_file_drop_cache(int fd, uint64_t size)
{
	int e;

	if (fsync(fd) != 0 && errno != EINVAL && errno != EROFS)
		ktap_diag("fsync: %s", strerror(errno));
	e = posix_fadvise(fd, 0, (off_t)size, POSIX_FADV_DONTNEED);
	if (e)
		ktap_diag("fadvise(DONTNEED): %s", strerror(e));
}

void vm_file_read(int fd, uint64_t size, uint64_t tail_from, int verify,
		  double bound_ms, struct vm_rd *r, char *buf,
		  const char *what)
{
	double t0 = vm_now_ms(), t_tail = -1;
	ssize_t n;

	memset(r, 0, sizeof(*r));
	if (lseek(fd, 0, SEEK_SET) != 0) {
		r->err = errno;
		return;
	}
	while (r->bytes < size) {
		n = read(fd, buf, VM_RD_BUF);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r->err = errno;
			break;
		}
		if (n == 0)
			break;
		if (verify) {
			uint64_t blk = r->bytes / VM_BLK;
			ssize_t i;

			for (i = 0; i + 8 <= n; i += VM_BLK, blk++) {
				uint32_t *w = (uint32_t *)(buf + i);

				if (w[0] == (VM_MAGIC ^ (uint32_t)blk) &&
				    w[1] == ~(uint32_t)blk)
					continue;
				if (r->bad < 3)
					ktap_diag("%s: bad block at offset "
						  "0x%llx: expected 0x%08x got "
						  "0x%08x", what,
						  (unsigned long long)blk *
						  VM_BLK,
						  VM_MAGIC ^ (uint32_t)blk,
						  w[0]);
				r->bad++;
			}
		}
		r->bytes += n;
		if (t_tail < 0 && r->bytes >= tail_from) {
			t_tail = vm_now_ms();
			r->tail_bytes = r->bytes;
		}
		vm_progress("%s: %llu of %llu MB", what,
			    (unsigned long long)(r->bytes / VM_MB),
			    (unsigned long long)(size / VM_MB));
		if (bound_ms > 0 && vm_now_ms() - t0 > bound_ms) {
			r->truncated = 1;
			break;
		}
	}
	r->ms = vm_now_ms() - t0;
	if (t_tail >= 0) {
		r->tail_bytes = r->bytes - r->tail_bytes;
		r->tail_ms = t0 + r->ms - t_tail;
	}
}

double vm_rd_mbps(const struct vm_rd *r)
{
	return r->ms > 0 ? (double)r->bytes / VM_MB / (r->ms / 1000) : 0;
}

double vm_rd_tail_mbps(const struct vm_rd *r)
{
	return r->tail_ms > 0 ?
		(double)r->tail_bytes / VM_MB / (r->tail_ms / 1000) : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double vm_median(const double *v, long n, double *lo, double *hi)
{
	double t[15];
	long i;

	if (lo)
		*lo = 0;
	if (hi)
		*hi = 0;
	if (n < 1)
		return 0;
	if (n > 15)
		n = 15;
	for (i = 0; i < n; i++)
		t[i] = v[i];
	qsort(t, n, sizeof(t[0]), cmp_double);
	if (lo)
		*lo = t[0];
	if (hi)
		*hi = t[n - 1];
	return t[n / 2];
}
