// SPDX-License-Identifier: GPL-2.0
/*
 * integrity - scenario 6: data must survive swap-out and swap-in.
 *
 * Every subtest writes self-describing blocks (see vm_fill_blk), then an
 * anonymous hog of about 1.2 * mem (bounded by what memory plus free swap
 * can hold) pushes them out, and every block is checked again:
 *   shm segment; tmpfs file MAP_SHARED (checked through the mapping and
 *   with pread); MAP_PRIVATE COW of file pages (the private copy changes,
 *   the file does not; file writes show through pages not yet copied);
 *   mremap grow and move (anonymous and shared file); a nonlinear mapping
 *   made with remap_file_pages (page i shows file page n-1-i); truncate
 *   while mapped (SIGBUS beyond EOF, data before it intact, zeros after
 *   re-extending); mlock'ed pages (stay resident by mincore, VmLck).
 * Any mismatch fails the subtest and prints offset, expected and got.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/syscall.h>

#include "vmshm.h"

static const char summary[] =
	"integrity: patterns checked through swap-out and back in (shm,\n"
	"tmpfs, COW, mremap, nonlinear, truncate, mlock)";

enum { T_SHM, T_TMPFS, T_COW, T_MREMAP, T_NONLIN, T_TRUNC, T_MLOCK, T_N };

static const char *const names[] = {
	"shm segment", "tmpfs file MAP_SHARED", "MAP_PRIVATE COW of file pages",
	"mremap grow and move", "nonlinear remap_file_pages",
	"truncate while mapped", "mlock pages stay resident", NULL
};

#define BLK	VM_BLK

struct sub {
	int state;		/* 0 ready, 1 failed, 2 skipped */
	long nbad;		/* mismatches reported so far */
	char why[256];
};
static struct sub sub[T_N];

static void sub_fail(int t, const char *fmt, ...) VM_PRINTF(2, 3);
static void sub_fail(int t, const char *fmt, ...)
{
	va_list ap;

	if (sub[t].state)
		return;
	va_start(ap, fmt);
	vsnprintf(sub[t].why, sizeof(sub[t].why), fmt, ap);
	va_end(ap);
	sub[t].state = 1;
	ktap_diag("%s: %s", names[t], sub[t].why);
}

static void sub_skip(int t, const char *fmt, ...) VM_PRINTF(2, 3);
static void sub_skip(int t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sub[t].why, sizeof(sub[t].why), fmt, ap);
	va_end(ap);
	sub[t].state = 2;
}

/* check one block; report the first mismatches of a subtest loudly */
static int check(int t, const char *where, const void *p, uint64_t off,
		 uint32_t seed, uint64_t blk, uint32_t gen)
{
	uint32_t e, g;
	long w;

	if (!vm_check_blk(p, seed, blk, gen, &w, &e, &g))
		return 0;
	if (sub[t].nbad < 5)
		ktap_diag("%s: %s: mismatch at offset 0x%llx: expected "
			  "0x%08x got 0x%08x", names[t], where,
			  (unsigned long long)off + w * 4, e, g);
	sub[t].nbad++;
	if (!sub[t].state) {
		sub[t].state = 1;
		snprintf(sub[t].why, sizeof(sub[t].why), "data mismatch");
	}
	return 1;
}

static uint32_t fbuf[VM_BLK_WORDS];

static int pwrite_blk(int fd, uint64_t blk, uint32_t seed, uint32_t gen)
{
	vm_fill_blk(fbuf, seed, blk, gen);
	return vm_pwrite_all(fd, fbuf, BLK, (off_t)(blk * BLK));
}

static int check_file_blk(int t, int fd, uint64_t blk, uint32_t seed,
			  uint32_t gen)
{
	if (vm_pread_all(fd, fbuf, BLK, (off_t)(blk * BLK)) != 0) {
		sub_fail(t, "pread block %llu: %s", (unsigned long long)blk,
			 strerror(errno));
		return 1;
	}
	return check(t, "file", fbuf, blk * BLK, seed, blk, gen);
}

static int make_file(const char *dir, const char *tag, char *path,
		     size_t plen, uint64_t size)
{
	int fd;

	snprintf(path, plen, "%s/vmshm_int_%s.%d", dir, tag, (int)getpid());
	fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0600);
	if (fd < 0)
		return -1;
	vm_register_path(path);
	if (ftruncate(fd, (off_t)size) != 0) {
		close(fd);
		unlink(path);
		vm_unregister_path(path);
		return -1;
	}
	return fd;
}

static void drop_file(int fd, const char *path)
{
	if (fd >= 0)
		close(fd);
	if (path[0]) {
		unlink(path);
		vm_unregister_path(path);
	}
}


/* ------------------------------------------------------------------ */
/* sizes (blocks) and state                                            */

static const char *tdir;	/* tmpfs directory, NULL if none */
static uint64_t held_bytes;	/* shm/tmpfs/locked memory we hold */

/* A: shm */
#define S_SHM	0x1001
static char *shm;
static long shm_n;

static void prep_shm(void)
{
	long i;

	shm = vm_shm_create((uint64_t)shm_n * BLK, NULL);
	if (!shm) {
		sub_fail(T_SHM, "cannot create a %ld block segment", shm_n);
		return;
	}
	held_bytes += (uint64_t)shm_n * BLK;
	for (i = 0; i < shm_n; i++)
		vm_fill_blk(shm + i * BLK, S_SHM, i, 1);
}

static void verify_shm(int last)
{
	long i;

	(void)last;
	for (i = 0; i < shm_n; i++)
		check(T_SHM, "segment", shm + i * BLK, i * BLK, S_SHM, i, 1);
}

/* B: tmpfs file */
#define S_TMPFS	0x1002
static char tmpfs_path[512];
static int tmpfs_fd = -1;
static char *tmpfs_map;
static long tmpfs_n;

static void prep_tmpfs(void)
{
	long i;

	if (!tdir) {
		/* the kernel's internal tmpfs file: same shmem paths */
		ktap_diag("%s: no tmpfs mounted (-D): using a shared anonymous "
			  "mapping, checked through the mapping only",
			  names[T_TMPFS]);
	} else {
		tmpfs_fd = make_file(tdir, "tmpfs", tmpfs_path,
				     sizeof(tmpfs_path),
				     (uint64_t)tmpfs_n * BLK);
		if (tmpfs_fd < 0) {
			sub_fail(T_TMPFS, "create file in %s: %s", tdir,
				 strerror(errno));
			return;
		}
	}
	tmpfs_map = mmap(NULL, (size_t)tmpfs_n * BLK, PROT_READ | PROT_WRITE,
			 tdir ? MAP_SHARED : MAP_SHARED | MAP_ANONYMOUS,
			 tdir ? tmpfs_fd : -1, 0);
	if (tmpfs_map == MAP_FAILED) {
		tmpfs_map = NULL;
		sub_fail(T_TMPFS, "mmap: %s", strerror(errno));
		return;
	}
	held_bytes += (uint64_t)tmpfs_n * BLK;
	for (i = 0; i < tmpfs_n; i++)
		vm_fill_blk(tmpfs_map + i * BLK, S_TMPFS, i, 1);
}

static void verify_tmpfs(int last)
{
	long i;

	(void)last;
	for (i = 0; i < tmpfs_n; i++)
		check(T_TMPFS, "mapping", tmpfs_map + i * BLK, i * BLK,
		      S_TMPFS, i, 1);
	for (i = 0; tmpfs_fd >= 0 && i < tmpfs_n && sub[T_TMPFS].state != 1;
	     i++)
		check_file_blk(T_TMPFS, tmpfs_fd, i, S_TMPFS, 1);
}

/*
 * C: COW.  File blocks start at gen 1; [0, n/4) rewritten in the file
 * (gen 2) before any COW; [n/8, n/2) then written through the private
 * mapping (gen 3, its own seed).
 */
#define S_COW	0x1003
#define S_PRIV	0x1103
static char cow_path[512];
static int cow_fd = -1;
static char *cow_map;
static long cow_n;

static uint32_t cow_file_gen(long b)
{
	return b < cow_n / 4 ? 2 : 1;
}

static void cow_check_map(const char *where)
{
	long b;

	for (b = 0; b < cow_n; b++) {
		if (b >= cow_n / 8 && b < cow_n / 2)
			check(T_COW, where, cow_map + b * BLK, b * BLK,
			      S_PRIV, b, 3);
		else
			check(T_COW, where, cow_map + b * BLK, b * BLK,
			      S_COW, b, cow_file_gen(b));
	}
}

static void cow_check_file(void)
{
	long b;

	for (b = 0; b < cow_n && sub[T_COW].state != 1; b++)
		check_file_blk(T_COW, cow_fd, b, S_COW, cow_file_gen(b));
}

static void prep_cow(void)
{
	long b;

	cow_fd = make_file(vm_cfg.dir, "cow", cow_path, sizeof(cow_path), 0);
	if (cow_fd < 0) {
		sub_fail(T_COW, "create file in %s: %s", vm_cfg.dir,
			 strerror(errno));
		return;
	}
	for (b = 0; b < cow_n; b++) {
		if (pwrite_blk(cow_fd, b, S_COW, 1) != 0) {
			sub_fail(T_COW, "pwrite: %s", strerror(errno));
			return;
		}
	}
	if (fsync(cow_fd) != 0)
		ktap_diag("%s: fsync: %s", names[T_COW], strerror(errno));
	cow_map = mmap(NULL, (size_t)cow_n * BLK, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE, cow_fd, 0);
	if (cow_map == MAP_FAILED) {
		cow_map = NULL;
		sub_fail(T_COW, "mmap: %s", strerror(errno));
		return;
	}
	/* fault every page in read-only: no copy yet */
	for (b = 0; b < cow_n; b++)
		check(T_COW, "mapping before COW", cow_map + b * BLK, b * BLK,
		      S_COW, b, 1);
	/* the file changes under the not yet copied pages */
	for (b = 0; b < cow_n / 4; b++) {
		if (pwrite_blk(cow_fd, b, S_COW, 2) != 0) {
			sub_fail(T_COW, "pwrite: %s", strerror(errno));
			return;
		}
	}
	for (b = 0; b < cow_n / 4; b++)
		check(T_COW, "file write seen through private mapping",
		      cow_map + b * BLK, b * BLK, S_COW, b, 2);
	/* now copy on write */
	for (b = cow_n / 8; b < cow_n / 2; b++)
		vm_fill_blk(cow_map + b * BLK, S_PRIV, b, 3);
	cow_check_map("private mapping after COW");
	cow_check_file();
}

static void verify_cow(int last)
{
	long b;

	cow_check_map("private mapping");
	cow_check_file();
	if (!last || sub[T_COW].state)
		return;
	/* after swap: a file write shows in a page never copied ... */
	b = cow_n - 1;
	if (pwrite_blk(cow_fd, b, S_COW, 4) != 0) {
		sub_fail(T_COW, "pwrite: %s", strerror(errno));
		return;
	}
	check(T_COW, "file write after swap, uncopied page",
	      cow_map + b * BLK, b * BLK, S_COW, b, 4);
	/* ... and not in a copied one */
	b = cow_n / 8;
	if (pwrite_blk(cow_fd, b, S_COW, 4) != 0) {
		sub_fail(T_COW, "pwrite: %s", strerror(errno));
		return;
	}
	check(T_COW, "file write after swap, copied page",
	      cow_map + b * BLK, b * BLK, S_PRIV, b, 3);
}

/* D: mremap */
#define S_MRA	0x1004
#define S_MRF	0x1104
static char *mra;		/* anonymous, 2 * mra_n blocks after grow */
static long mra_n;
static char mrf_path[512];
static int mrf_fd = -1;
static char *mrf;		/* shared file, 2 * mrf_n blocks after grow */
static long mrf_n;
static int mr_moved;

static char *grow(char *p, long n, long blocker_at, const char *what)
{
	char *q;

	q = mremap(p, (size_t)n * BLK, (size_t)n * 2 * BLK, MREMAP_MAYMOVE);
	if (q == MAP_FAILED) {
		sub_fail(T_MREMAP, "%s: mremap: %s", what, strerror(errno));
		return NULL;
	}
	if (q != p)
		mr_moved++;
	else
		ktap_diag("%s: %s grew in place", names[T_MREMAP], what);
	/* the blocker that forced the move is no longer needed */
	if (blocker_at >= 0 && q != p &&
	    munmap(p + blocker_at * BLK, BLK) != 0)
		ktap_diag("%s: munmap blocker: %s", names[T_MREMAP],
			  strerror(errno));
	return q;
}

static void prep_mremap(void)
{
	const char *d = tdir ? tdir : vm_cfg.dir;
	char *p;
	long b;

	/* anonymous: n blocks plus a read-only blocker page after them */
	p = mmap(NULL, (size_t)(mra_n + 1) * BLK, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		sub_fail(T_MREMAP, "mmap: %s", strerror(errno));
		return;
	}
	if (mprotect(p + mra_n * BLK, BLK, PROT_READ) != 0) {
		sub_fail(T_MREMAP, "mprotect: %s", strerror(errno));
		return;
	}
	for (b = 0; b < mra_n; b++)
		vm_fill_blk(p + b * BLK, S_MRA, b, 1);
	mra = grow(p, mra_n, mra_n, "anonymous");
	if (!mra)
		return;
	for (b = 0; b < mra_n; b++)
		check(T_MREMAP, "anonymous after move", mra + b * BLK,
		      b * BLK, S_MRA, b, 1);
	for (b = mra_n; b < 2 * mra_n; b++)
		vm_fill_blk(mra + b * BLK, S_MRA, b, 1);

	/* shared file: n blocks in a reservation of n + 1 pages */
	mrf_fd = make_file(d, "mremap", mrf_path, sizeof(mrf_path),
			   (uint64_t)mrf_n * BLK);
	if (mrf_fd < 0) {
		sub_fail(T_MREMAP, "create file in %s: %s", d,
			 strerror(errno));
		return;
	}
	p = mmap(NULL, (size_t)(mrf_n + 1) * BLK, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED ||
	    mmap(p, (size_t)mrf_n * BLK, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, mrf_fd, 0) == MAP_FAILED) {
		sub_fail(T_MREMAP, "mmap file: %s", strerror(errno));
		return;
	}
	if (tdir)
		held_bytes += (uint64_t)mrf_n * 2 * BLK;
	for (b = 0; b < mrf_n; b++)
		vm_fill_blk(p + b * BLK, S_MRF, b, 1);
	if (ftruncate(mrf_fd, (off_t)mrf_n * 2 * BLK) != 0) {
		sub_fail(T_MREMAP, "ftruncate: %s", strerror(errno));
		return;
	}
	mrf = grow(p, mrf_n, mrf_n, "shared file");
	if (!mrf)
		return;
	for (b = 0; b < mrf_n; b++)
		check(T_MREMAP, "shared file after move", mrf + b * BLK,
		      b * BLK, S_MRF, b, 1);
	for (b = mrf_n; b < 2 * mrf_n; b++)
		vm_fill_blk(mrf + b * BLK, S_MRF, b, 1);
}

static void verify_mremap(int last)
{
	long b;

	(void)last;
	for (b = 0; b < 2 * mra_n; b++)
		check(T_MREMAP, "anonymous", mra + b * BLK, b * BLK, S_MRA, b,
		      1);
	for (b = 0; b < 2 * mrf_n; b++)
		check(T_MREMAP, "shared file", mrf + b * BLK, b * BLK, S_MRF,
		      b, 1);
	for (b = 0; b < 2 * mrf_n && sub[T_MREMAP].state != 1; b++)
		check_file_blk(T_MREMAP, mrf_fd, b, S_MRF, 1);
}

/*
 * E: nonlinear.  Virtual page i maps file page n-1-i.  The file starts at
 * gen 1; even virtual pages are then rewritten through the mapping.
 */
#define S_NL	0x1005
static char nl_path[512];
static int nl_fd = -1;
static char *nl_map;
static long nl_n;

static uint32_t nl_gen_of_virt(long i)
{
	return (i & 1) ? 1 : 2;
}

static void prep_nonlinear(void)
{
	const char *d = tdir ? tdir : vm_cfg.dir;
	long i, b;

	nl_fd = make_file(d, "nonlin", nl_path, sizeof(nl_path),
			  (uint64_t)nl_n * BLK);
	if (nl_fd < 0) {
		sub_fail(T_NONLIN, "create file in %s: %s", d,
			 strerror(errno));
		return;
	}
	for (b = 0; b < nl_n; b++) {
		if (pwrite_blk(nl_fd, b, S_NL, 1) != 0) {
			sub_fail(T_NONLIN, "pwrite: %s", strerror(errno));
			return;
		}
	}
	nl_map = mmap(NULL, (size_t)nl_n * BLK, PROT_READ | PROT_WRITE,
		      MAP_SHARED, nl_fd, 0);
	if (nl_map == MAP_FAILED) {
		nl_map = NULL;
		sub_fail(T_NONLIN, "mmap: %s", strerror(errno));
		return;
	}
	if (tdir)
		held_bytes += (uint64_t)nl_n * BLK;
	for (i = 0; i < nl_n; i++) {
		if (syscall(SYS_remap_file_pages, nl_map + i * BLK, BLK, 0,
			    nl_n - 1 - i, 0) != 0) {
			if (errno == ENOSYS) {
				sub_skip(T_NONLIN, "remap_file_pages: ENOSYS");
				return;
			}
			sub_fail(T_NONLIN, "remap_file_pages page %ld: %s", i,
				 strerror(errno));
			return;
		}
	}
	for (i = 0; i < nl_n; i++)
		check(T_NONLIN, "nonlinear mapping", nl_map + i * BLK,
		      i * BLK, S_NL, nl_n - 1 - i, 1);
	for (i = 0; i < nl_n; i += 2)
		vm_fill_blk(nl_map + i * BLK, S_NL, nl_n - 1 - i, 2);
}

static void verify_nonlinear(int last)
{
	long i, b;

	(void)last;
	for (i = 0; i < nl_n; i++)
		check(T_NONLIN, "nonlinear mapping", nl_map + i * BLK,
		      i * BLK, S_NL, nl_n - 1 - i, nl_gen_of_virt(i));
	for (b = 0; b < nl_n && sub[T_NONLIN].state != 1; b++)
		check_file_blk(T_NONLIN, nl_fd, b, S_NL,
			       nl_gen_of_virt(nl_n - 1 - b));
}

/*
 * F: truncate.  n blocks mapped shared; the file is cut to n/2 blocks
 * plus 100 bytes; after the swap it is extended to n blocks again.
 */
#define S_TR	0x1006
#define TR_TAIL	100
static char tr_path[512];
static int tr_fd = -1;
static char *tr_map;
static long tr_n;

static void tr_check_cut(const char *where)
{
	const long h = tr_n / 2;
	uint32_t v;
	long b;
	int w;

	for (b = 0; b < h; b++)
		check(T_TRUNC, where, tr_map + b * BLK, b * BLK, S_TR, b, 1);
	/* the partial block: the first TR_TAIL bytes survive */
	vm_fill_blk(fbuf, S_TR, h, 1);
	for (w = 0; w < TR_TAIL / 4; w++) {
		if (vm_read_bus((uint32_t *)(tr_map + h * BLK) + w, &v)) {
			sub_fail(T_TRUNC, "%s: SIGBUS inside the last page",
				 where);
			return;
		}
		if (v != fbuf[w]) {
			sub_fail(T_TRUNC, "%s: mismatch at offset 0x%lx: "
				 "expected 0x%08x got 0x%08x", where,
				 h * BLK + w * 4, fbuf[w], v);
			return;
		}
	}
	/* whole pages beyond EOF */
	if (!vm_read_bus((uint32_t *)(tr_map + (h + 1) * BLK), &v))
		sub_fail(T_TRUNC, "%s: no SIGBUS one page beyond EOF (read "
			 "0x%08x)", where, v);
	else if (!vm_read_bus((uint32_t *)(tr_map + (tr_n - 1) * BLK), &v))
		sub_fail(T_TRUNC, "%s: no SIGBUS at the old last page",
			 where);
}

static void prep_truncate(void)
{
	long b;

	tr_fd = make_file(vm_cfg.dir, "trunc", tr_path, sizeof(tr_path),
			  (uint64_t)tr_n * BLK);
	if (tr_fd < 0) {
		sub_fail(T_TRUNC, "create file in %s: %s", vm_cfg.dir,
			 strerror(errno));
		return;
	}
	tr_map = mmap(NULL, (size_t)tr_n * BLK, PROT_READ | PROT_WRITE,
		      MAP_SHARED, tr_fd, 0);
	if (tr_map == MAP_FAILED) {
		tr_map = NULL;
		sub_fail(T_TRUNC, "mmap: %s", strerror(errno));
		return;
	}
	for (b = 0; b < tr_n; b++)
		vm_fill_blk(tr_map + b * BLK, S_TR, b, 1);
	if (msync(tr_map, (size_t)tr_n * BLK, MS_SYNC) != 0)
		ktap_diag("%s: msync: %s", names[T_TRUNC], strerror(errno));
	if (ftruncate(tr_fd, (off_t)(tr_n / 2) * BLK + TR_TAIL) != 0) {
		sub_fail(T_TRUNC, "ftruncate: %s", strerror(errno));
		return;
	}
	tr_check_cut("after truncate");
}

static void verify_truncate(int last)
{
	const long h = tr_n / 2;
	uint32_t v;
	long b;
	int w;

	tr_check_cut("after swap");
	if (!last || sub[T_TRUNC].state)
		return;
	if (ftruncate(tr_fd, (off_t)tr_n * BLK) != 0) {
		sub_fail(T_TRUNC, "re-extend: %s", strerror(errno));
		return;
	}
	for (b = h; b < tr_n; b++) {
		for (w = b == h ? TR_TAIL / 4 : 0; w < VM_BLK_WORDS; w++) {
			if (vm_read_bus((uint32_t *)(tr_map + b * BLK) + w, &v)) {
				sub_fail(T_TRUNC, "SIGBUS at 0x%lx after "
					 "re-extending", b * BLK + w * 4);
				return;
			}
			if (v) {
				sub_fail(T_TRUNC, "re-extended file not zero "
					 "at offset 0x%lx: got 0x%08x",
					 b * BLK + w * 4, v);
				return;
			}
		}
		if (vm_pread_all(tr_fd, fbuf, BLK, (off_t)b * BLK) != 0) {
			sub_fail(T_TRUNC, "pread: %s", strerror(errno));
			return;
		}
		for (w = b == h ? TR_TAIL / 4 : 0; w < VM_BLK_WORDS; w++) {
			if (fbuf[w]) {
				sub_fail(T_TRUNC, "pread after re-extending: "
					 "offset 0x%lx is 0x%08x, expected 0",
					 b * BLK + w * 4, fbuf[w]);
				return;
			}
		}
	}
	for (b = 0; b < h; b++)
		check(T_TRUNC, "after re-extending", tr_map + b * BLK,
		      b * BLK, S_TR, b, 1);
}

/*
 * G: mlock.  A shared anonymous (shmem) region, on which mincore works on
 * every kernel, and a private anonymous one (mincore may say ENOMEM on
 * old kernels: then only the data is checked).
 */
#define S_ML	0x1007
static char *ml_sh, *ml_pr;
static long ml_n;		/* blocks per region */
static long ml_min_res_sh = -1, ml_min_res_pr = -1;
static int ml_locked;

static void mlock_tick(void *arg)
{
	long r;

	(void)arg;
	if (!ml_locked)
		return;
	r = vm_resident_pages(ml_sh, (size_t)ml_n * BLK);
	if (r >= 0 && (ml_min_res_sh < 0 || r < ml_min_res_sh))
		ml_min_res_sh = r;
	r = vm_resident_pages(ml_pr, (size_t)ml_n * BLK);
	if (r >= 0 && (ml_min_res_pr < 0 || r < ml_min_res_pr))
		ml_min_res_pr = r;
}

static void prep_mlock(void)
{
	struct rlimit rl;
	long b, want = ml_n;

	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 &&
	    rl.rlim_cur != RLIM_INFINITY && geteuid() != 0) {
		long max = (long)(rl.rlim_cur / 2 / 2 / BLK);

		if (ml_n > max)
			ml_n = max;
	}
	if (ml_n < 1) {
		sub_skip(T_MLOCK, "RLIMIT_MEMLOCK too small");
		return;
	}
	if (ml_n < want)
		ktap_diag("%s: %ld blocks per region (RLIMIT_MEMLOCK)",
			  names[T_MLOCK], ml_n);
	ml_sh = mmap(NULL, (size_t)ml_n * BLK, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ml_pr = mmap(NULL, (size_t)ml_n * BLK, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ml_sh == MAP_FAILED || ml_pr == MAP_FAILED) {
		sub_fail(T_MLOCK, "mmap: %s", strerror(errno));
		ml_sh = ml_pr = NULL;
		return;
	}
	for (b = 0; b < ml_n; b++) {
		vm_fill_blk(ml_sh + b * BLK, S_ML, b, 1);
		vm_fill_blk(ml_pr + b * BLK, S_ML, b, 2);
	}
	if (mlock(ml_sh, (size_t)ml_n * BLK) != 0) {
		sub_skip(T_MLOCK, "mlock: %s", strerror(errno));
		return;
	}
	if (mlock(ml_pr, (size_t)ml_n * BLK) != 0) {
		munlock(ml_sh, (size_t)ml_n * BLK);
		sub_skip(T_MLOCK, "mlock: %s", strerror(errno));
		return;
	}
	ml_locked = 1;
	held_bytes += (uint64_t)ml_n * 2 * BLK;
	vm_fig_i("mlock_vmlck_kb", vm_status_kb("VmLck"), "kB");
}

static void verify_mlock(int last)
{
	long long lck = vm_status_kb("VmLck");
	long b;

	(void)last;
	mlock_tick(NULL);
	vm_fig_i("mlock_min_resident_shared", ml_min_res_sh, "pages");
	vm_fig_i("mlock_min_resident_private", ml_min_res_pr, "pages");
	if (ml_min_res_sh >= 0 && ml_min_res_sh < ml_n)
		sub_fail(T_MLOCK, "shared locked region: only %ld of %ld "
			 "pages resident at one point", ml_min_res_sh, ml_n);
	if (ml_min_res_pr >= 0 && ml_min_res_pr < ml_n)
		sub_fail(T_MLOCK, "private locked region: only %ld of %ld "
			 "pages resident at one point", ml_min_res_pr, ml_n);
	if (ml_min_res_pr < 0)
		ktap_diag("%s: mincore does not report anonymous memory here",
			  names[T_MLOCK]);
	if (lck >= 0 && lck < ml_n * 2 * (BLK / 1024))
		sub_fail(T_MLOCK, "VmLck %lld kB, expected >= %ld kB", lck,
			 ml_n * 2 * (BLK / 1024));
	for (b = 0; b < ml_n; b++) {
		check(T_MLOCK, "shared", ml_sh + b * BLK, b * BLK, S_ML, b, 1);
		check(T_MLOCK, "private", ml_pr + b * BLK, b * BLK, S_ML, b,
		      2);
	}
}

/* ------------------------------------------------------------------ */

struct subdef {
	void (*prep)(void);
	void (*verify)(int last);
};

static const struct subdef defs[T_N] = {
	[T_SHM] = { prep_shm, verify_shm },
	[T_TMPFS] = { prep_tmpfs, verify_tmpfs },
	[T_COW] = { prep_cow, verify_cow },
	[T_MREMAP] = { prep_mremap, verify_mremap },
	[T_NONLIN] = { prep_nonlinear, verify_nonlinear },
	[T_TRUNC] = { prep_truncate, verify_truncate },
	[T_MLOCK] = { prep_mlock, verify_mlock },
};

static long blocks_of(uint64_t bytes, long min, long max)
{
	long n = (long)(bytes / BLK);

	if (n < min)
		n = min;
	if (max > 0 && n > max)
		n = max;
	return n;
}

static void fig_resident(const char *key, void *p, long n)
{
	if (p)
		vm_fig_i(key, vm_resident_pages(p, (size_t)n * BLK), "pages");
}

int main(int argc, char **argv)
{
	long hog_mb = -1, rounds = 1, time_s = 600;
	const struct vm_opt opts[] = {
		{ 'D', VM_OPT_STR, &tdir, "DIR",
		  "tmpfs directory (default: first tmpfs of -d, /dev/shm, "
		  "/tmp)" },
		{ 'H', VM_OPT_LONG, &hog_mb, "MB",
		  "hog size (default 1.2 * mem, bounded by memory + free "
		  "swap)" },
		{ 'r', VM_OPT_LONG, &rounds, "N",
		  "hog + verify rounds (default 1)" },
		{ 't', VM_OPT_LONG, &time_s, "SEC",
		  "bound of each hog run (default 600)" },
		{ 0, 0, NULL, NULL, NULL },
	};
	struct vm_vmstat_snap s0, s1;
	uint64_t mem, hog_bytes, avail;
	struct vm_hog hog;
	double t0;
	long r;
	int t, hr;

	vm_init("integrity", argc, argv, opts, summary, 1800);
	mem = vm_mem_bytes();
	tdir = vm_find_tmpfs(tdir);
	if (rounds < 1)
		rounds = 1;
	shm_n = blocks_of(vm_vsize_cap(mem / 8), 64, 0);
	tmpfs_n = blocks_of(vm_vsize_cap(mem / 8), 64, 0);
	cow_n = blocks_of(mem / 16, 64, 0);
	mra_n = blocks_of(mem / 64, 16, 0);
	mrf_n = blocks_of(mem / 64, 16, 0);
	nl_n = blocks_of(mem / 32, 16, 512);
	tr_n = blocks_of(mem / 32, 16, 0) & ~1L;
	ml_n = blocks_of(mem / 64, 4, 0);

	ktap_header(T_N);
	ktap_names(names);
	vm_fig_i("mem_mb", vm_cfg.mem_mb, "MB");
	vm_fig_i("rounds", rounds, "count");
	vm_fig_i("shm_blocks", shm_n, "pages");
	vm_fig_i("tmpfs_blocks", tmpfs_n, "pages");
	vm_fig_i("cow_blocks", cow_n, "pages");
	vm_fig_i("mremap_blocks", 2 * (mra_n + mrf_n), "pages");
	vm_fig_i("nonlinear_blocks", nl_n, "pages");
	vm_fig_i("truncate_blocks", tr_n, "pages");
	ktap_diag("files in %s, tmpfs %s", vm_cfg.dir, tdir ? tdir : "none");

	vm_sigbus_install(70);

	vm_phase("prepare");
	for (t = 0; t < T_N; t++) {
		vm_progress("preparing: %s", names[t]);
		defs[t].prep();
	}
	vm_fig_i("mlock_blocks", ml_locked ? 2 * ml_n : 0, "pages");

	for (r = 1; r <= rounds; r++) {
		vm_phase("hog");
		avail = vm_avail_bytes(held_bytes);
		hog_bytes = hog_mb >= 0 ? (uint64_t)hog_mb * VM_MB :
			    mem / 10 * 12;
		if (hog_bytes > avail) {
			ktap_diag("hog capped from %llu to %llu MB (memory + "
				  "free swap)",
				  (unsigned long long)(hog_bytes / VM_MB),
				  (unsigned long long)(avail / VM_MB));
			hog_bytes = avail;
		}
		if (r == 1)
			vm_fig_i("hog_mb", (long long)(hog_bytes / VM_MB),
				 "MB");
		vm_vmstat_snap(&s0);
		t0 = vm_now_ms();
		hr = -1;
		if (hog_bytes && vm_hog_start(&hog, hog_bytes) == 0) {
			hr = vm_hog_wait(&hog, time_s, mlock_tick, NULL);
			/* keep it a moment so reclaim settles */
			mlock_tick(NULL);
			vm_hog_stop(&hog, NULL);
		}
		vm_vmstat_snap(&s1);
		if (hr != 0)
			ktap_diag("round %ld: hog %s", r, hr > 0 ?
				  "hit the time bound" : "did not run to the "
				  "end");
		if (r == 1) {
			vm_fig_f("hog_s", (vm_now_ms() - t0) / 1000, "s");
			vm_fig_i("hog_pswpout",
				 vm_vmstat_delta(&s0, &s1, VMS_PSWPOUT),
				 "pages");
			fig_resident("shm_resident_after_hog", shm, shm_n);
			fig_resident("tmpfs_resident_after_hog", tmpfs_map,
				     tmpfs_n);
			fig_resident("cow_resident_after_hog", cow_map, cow_n);
			fig_resident("nonlinear_resident_after_hog", nl_map,
				     nl_n);
		}

		vm_phase("verify");
		vm_vmstat_snap(&s0);
		for (t = 0; t < T_N; t++) {
			if (sub[t].state)
				continue;
			vm_progress("round %ld: verifying %s", r, names[t]);
			defs[t].verify(r == rounds);
		}
		vm_vmstat_snap(&s1);
		if (r == 1)
			vm_fig_i("verify_pswpin",
				 vm_vmstat_delta(&s0, &s1, VMS_PSWPIN),
				 "pages");
	}

	for (t = 0; t < T_N; t++) {
		if (sub[t].state == 2)
			ktap_skip(names[t], "%s", sub[t].why);
		else if (sub[t].nbad)
			ktap_fail(names[t], "%ld bad blocks", sub[t].nbad);
		else
			ktap_result(!sub[t].state, names[t], NULL);
	}

	vm_phase("cleanup");
	if (shm)
		shmdt(shm);
	drop_file(tmpfs_fd, tmpfs_path);
	drop_file(cow_fd, cow_path);
	drop_file(mrf_fd, mrf_path);
	drop_file(nl_fd, nl_path);
	drop_file(tr_fd, tr_path);
	ktap_exit();
}
