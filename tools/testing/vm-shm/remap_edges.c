// SPDX-License-Identifier: GPL-2.0
/*
 * remap_edges - the edges of remap_file_pages(): where a window's slots
 * come back from after truncate and reclaim, and offsets that wrap.
 *
 * 1, 2. refault at own offset (tmpfs, then a file in -d): a window of
 *    -w pages (32) over a file of twice that, every slot faulted
 *    linearly, the upper half then remap_file_pages()d to the file's
 *    second half; written, the file truncated to a quarter of the
 *    window, re-extended, written again through every slot: each slot
 *    must SIGBUS beyond EOF, read zeros once re-extended, and its write
 *    must land at its own file offset (pread), the linear slots at
 *    their linear one, the nonlinear slots at the one they were
 *    remapped to.
 * 3. slots keep their pages through reclaim (tmpfs): a window of mem/8
 *    (at most 8,192 pages), lower half linear, upper half remapped page
 *    by page to the end of the file in reverse, written, then an
 *    anonymous hog of -x (1.2) times memory: every slot must still show
 *    its own page, and writes through it land at its own offset.
 * 4. ptrace beyond EOF (-d): after truncate to 0, PTRACE_PEEKDATA at a
 *    linear slot and at a nonlinear slot must both fail, as a fault
 *    there raises SIGBUS.
 * 5. remap_file_pages(pgoff 0xffffffff, one page, MAP_NONBLOCK) on a
 *    file in -d must be refused (EINVAL): pgoff + 1 wraps to 0, and the
 *    file pte would get an offset it cannot hold.
 * 6. the same without MAP_NONBLOCK on a file of 16 dirty pages, then a
 *    truncate to 8: the 8 pages inside the new EOF must keep their data
 *    and stay coherent with the mapping.  A page cache page at index
 *    0xffffffff makes truncate_inode_pages() wrap its index to 0 and
 *    drop every page of the file.
 *
 * 7, 8. MAP_NONBLOCK back to the linear offset (tmpfs, then -d): slot 0
 *    of a window over a file of 4 pages, remapped to page 1 and read,
 *    then remapped with MAP_NONBLOCK to its own offset 0, a hole that
 *    is not in the page cache: the slot must read zeros, and a write
 *    through it must land at offset 0.  The populate leaves a file pte
 *    for a page it cannot map at once; it used to skip that at a slot's
 *    linear offset, which kept the pte of page 1.
 * 9. populate racing fadvise(POSIX_FADV_DONTNEED) (-d): a child remaps
 *    slot 0 of a window over a 2-page file to page 0 and 1 in turn
 *    (slot 1 remapped too, so that the vma is nonlinear), dropping the
 *    page cache before each call, while another child drops it in a
 *    loop, for -r seconds (5): no call may fail with ENOMEM, the child
 *    must not be killed, and slot 0 must show the page it was remapped
 *    to.  The populate waits for the page's read; a page the other
 *    child dropped meanwhile (i_size unchanged) was made -ENOMEM, and
 *    a fault on a file pte got VM_FAULT_OOM.
 *
 * 5 and 6 are about a 32-bit page offset: 5 is skipped where it is 64
 * bits (a 64-bit build or kernel); 6 runs everywhere.
 *
 * 2.6.3 without the objrmap series fails 1, 2 and 4 by its own design:
 * truncate zaps a nonlinear vma by linear offsets, leaving none ptes
 * that refault at the slot's linear offset, and filemap_nopage() lets a
 * ptracer read beyond EOF.  There (release 2.6.3, no rmap_file_walks in
 * /proc/vmstat) those lines are skipped with what was seen, as long as
 * only nonlinear slots went wrong (1, 2) or the read beyond EOF was the
 * only fault (4).  5 to 9 fail on 2.6.3 itself (the fix is in the
 * fixes series): the program is run on request, not in the full run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "vmshm.h"

#ifndef MAP_NONBLOCK
#define MAP_NONBLOCK 0x10000
#endif

static const char summary[] =
	"remap_edges: remap_file_pages window slots refault at their own\n"
	"offsets after truncate and reclaim, ptrace sees no page beyond\n"
	"EOF, and an offset range that wraps is refused";

static const char *const names[] = {
	"refault at own offset after truncate+extend (tmpfs)",
	"refault at own offset after truncate+extend (disk)",
	"slots keep their pages through reclaim (tmpfs)",
	"ptrace beyond EOF fails at linear and nonlinear slot (disk)",
	"remap_file_pages refuses pgoff 0xffffffff (MAP_NONBLOCK)",
	"truncate keeps pages inside EOF after pgoff 0xffffffff remap",
	"MAP_NONBLOCK remap to the linear offset replaces the page (tmpfs)",
	"MAP_NONBLOCK remap to the linear offset replaces the page (disk)",
	"populate racing fadvise(DONTNEED) is not refused (disk)",
	NULL
};

#define BLK	VM_BLK

static long window = 32;
static double hog_factor = 1.2;
static long hog_s = 240;
static long fadv_s = 5;

static const struct vm_opt opts[] = {
	{ 'w', VM_OPT_LONG, &window, "PAGES",
	  "window of subtests 1 and 2, at least 8 (32)" },
	{ 'x', VM_OPT_DOUBLE, &hog_factor, "X",
	  "subtest 3's hog: X * mem, capped (1.2)" },
	{ 'H', VM_OPT_LONG, &hog_s, "S", "the hog gets S seconds (240)" },
	{ 'r', VM_OPT_LONG, &fadv_s, "S", "subtest 9 races S seconds (5)" },
	{ 0 }
};

static int stale_known;		/* 2.6.3 without the objrmap series */
static int wide_pgoff;		/* the kernel's page offset is 64 bits */

static long remap(void *addr, size_t len, unsigned long pgoff, int flags)
{
	return syscall(SYS_remap_file_pages, addr, len, 0, pgoff, flags);
}

static int is_zero(const char *p)
{
	long i;

	for (i = 0; i < BLK; i++)
		if (p[i])
			return 0;
	return 1;
}

/* ---- 1, 2 ---- */
static void test_refault(const char *name, const char *dir,
			 const char *fig)
{
	long W = window, H = W / 2, Q = W / 4, i, p;
	/* [0] linear slots and everything else, [1] nonlinear slots */
	long before[2] = { 0, 0 }, after[2] = { 0, 0 };
	long extend[2] = { 0, 0 }, file[2] = { 0, 0 };
	long stale = 0, misplaced = 0, lin, non;
	static char buf[BLK];
	char path[256], key[64];
	long bad;
	uint32_t exp, got, v;
	char *map;
	int fd;

	map = vm_scratch_map(dir, "rf", -1, 2 * W * BLK, W * BLK,
			     path, sizeof(path), &fd);
	if (!map) {
		ktap_fail(name, "file in %s: %s", dir, strerror(errno));
		return;
	}
	for (p = 0; p < 2 * W; p++) {
		vm_fill_blk(buf, 41, p, 1);
		vm_pwrite_all(fd, buf, BLK, p * BLK);
	}
	for (i = 0; i < W; i++)		/* fault every slot linearly */
		(void)*(volatile char *)(map + i * BLK);
	/* upper half: slot i shows file page W + i */
	if (remap(map + H * BLK, H * BLK, W + H, 0)) {
		ktap_fail(name, "remap_file_pages: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < W; i++) {
		p = i < H ? i : W + i;
		if (vm_check_blk(map + i * BLK, 41, p, 1, &bad, &exp, &got))
			before[i >= H]++;
		vm_fill_blk(map + i * BLK, 41, p, 2);
	}
	if (ftruncate(fd, Q * BLK)) {
		ktap_fail(name, "ftruncate: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < W; i++) {
		int b = vm_read_bus((uint32_t *)(map + i * BLK), &v);

		if (b != (i >= Q)) {
			if (!after[0] && !after[1])
				ktap_diag("%s: slot %ld (%s) %s after truncate "
					  "to %ld pages", dir, i, i < H ?
					  "linear" : "nonlinear", b ? "SIGBUS"
					  : "readable", Q);
			after[i >= H]++;
			if (!b && i >= H)
				stale++;
		} else if (!b) {
			if (vm_check_blk(map + i * BLK, 41, i, 2, &bad, &exp,
					 &got))
				after[0]++;
		}
	}
	if (ftruncate(fd, 2 * W * BLK)) {
		ktap_fail(name, "ftruncate up: %s", strerror(errno));
		goto out;
	}
	for (i = Q; i < W; i++) {
		if (vm_read_bus((uint32_t *)(map + i * BLK), &v) ||
		    !is_zero(map + i * BLK)) {
			if (!extend[0] && !extend[1])
				ktap_diag("%s: slot %ld (%s) not zero after "
					  "re-extend", dir, i, i < H ?
					  "linear" : "nonlinear");
			extend[i >= H]++;
		}
	}
	for (i = 0; i < W; i++)
		vm_fill_blk(map + i * BLK, 41, i < H ? i : W + i, 3);
	msync(map, W * BLK, MS_SYNC);
	for (p = 0; p < 2 * W; p++) {
		int want = p < H || p >= W + H;

		vm_pread_all(fd, buf, BLK, p * BLK);
		if (want ? vm_check_blk(buf, 41, p, 3, &bad, &exp, &got) != 0
			 : !is_zero(buf)) {
			/* nonlinear slot p wrote at its linear offset? */
			int moved = !want && p >= H && p < W &&
				!vm_check_blk(buf, 41, W + p, 3, &bad, &exp,
					      &got);

			if (!file[0] && !file[1])
				ktap_diag("%s: file page %ld %s", dir, p,
					  want ? "lacks the write through its "
					  "slot" : moved ? "has the write of "
					  "the nonlinear slot at that linear "
					  "offset" : "written, but no slot "
					  "shows it");
			misplaced += moved;
			file[(want && p >= W + H) || moved]++;
		}
	}
	lin = before[0] + after[0] + extend[0] + file[0];
	non = before[1] + after[1] + extend[1] + file[1];
	snprintf(key, sizeof(key), "%s_refault_bad", fig);
	vm_fig_i(key, lin + non, "pages");
	snprintf(key, sizeof(key), "%s_refault_stale", fig);
	vm_fig_i(key, stale, "pages");
	snprintf(key, sizeof(key), "%s_refault_misplaced", fig);
	vm_fig_i(key, misplaced, "pages");
	if (lin + non == 0)
		ktap_ok(name, "%s: %ld slots, %ld linear, %ld nonlinear", dir,
			W, H, W - H);
	else if (stale_known && !lin)
		ktap_skip(name, "2.6.3: %ld nonlinear slot checks failed (%ld "
			  "slots mapped past EOF, %ld wrote at their linear "
			  "offset)", non, stale, misplaced);
	else
		ktap_fail(name, "%s: linear/nonlinear slots bad before %ld/%ld,"
			  " after truncate %ld/%ld, after extend %ld/%ld, "
			  "file %ld/%ld", dir, before[0], before[1], after[0],
			  after[1], extend[0], extend[1], file[0], file[1]);
out:
	munmap(map, W * BLK);
	vm_scratch_close(fd, path);
}

/* ---- 3 ---- */
static long sweep_target(long j, long W, long H)
{
	return j < H ? j : 2 * W - 1 - (j - H);
}

static void test_sweep(const char *dir)
{
	const char *name = names[2];
	long W, H, j, p, slot_bad = 0, file_bad = 0;
	long long rss0, rss1, sw0, sw1;
	static char buf[BLK];
	struct vm_hog hog;
	uint64_t bytes;
	char path[256], *map;
	long bad;
	uint32_t exp, got;
	int fd, hr = -2;

	W = (long)(vm_mem_bytes() / 8 / BLK);
	if (W > 8192)
		W = 8192;
	H = W / 2;
	map = vm_scratch_map(dir, "sw", -1, 2 * W * BLK, W * BLK,
			     path, sizeof(path), &fd);
	if (!map) {
		ktap_fail(name, "file: %s", strerror(errno));
		return;
	}
	for (j = 0; j < H; j++)
		vm_fill_blk(map + j * BLK, 52, j, 1);
	for (j = H; j < W; j++)
		if (remap(map + j * BLK, BLK, sweep_target(j, W, H), 0)) {
			ktap_fail(name, "remap_file_pages: %s",
				  strerror(errno));
			goto out;
		}
	for (j = H; j < W; j++)
		vm_fill_blk(map + j * BLK, 52, sweep_target(j, W, H), 1);
	rss0 = vm_status_kb("VmRSS");
	sw0 = vm_vmstat("pswpout");
	bytes = vm_cap_pressure((uint64_t)(hog_factor * vm_mem_bytes()),
				(uint64_t)W * BLK);
	vm_phase("sweep hog");
	if (vm_hog_start(&hog, bytes) == 0) {
		hr = vm_hog_wait(&hog, hog_s, NULL, NULL);
		vm_hog_stop(&hog, NULL);
	}
	rss1 = vm_status_kb("VmRSS");
	sw1 = vm_vmstat("pswpout");
	vm_fig_i("sweep_window_pages", W, "pages");
	vm_fig_i("sweep_hog_mb", (long long)(bytes / VM_MB), "MB");
	vm_fig_i("sweep_rss_before", rss0, "kB");
	vm_fig_i("sweep_rss_after_hog", rss1, "kB");
	vm_fig_i("sweep_pswpout", sw0 >= 0 && sw1 >= 0 ? sw1 - sw0 : -1,
		 "pages");
	ktap_diag("hog %llu MB, %s; VmRSS %lld -> %lld kB, pswpout %lld",
		  (unsigned long long)(bytes >> 20), hr == 0 ? "done" :
		  hr == 1 ? "timed out" : "failed", rss0, rss1, sw1 - sw0);
	for (j = 0; j < W; j++) {
		p = sweep_target(j, W, H);
		if (vm_check_blk(map + j * BLK, 52, p, 1, &bad, &exp, &got)) {
			if (!slot_bad)
				ktap_diag("slot %ld (page %ld): word %ld is "
					  "%#x, want %#x", j, p, bad, got,
					  exp);
			slot_bad++;
		}
		vm_fill_blk(map + j * BLK, 52, p, 2);
	}
	msync(map, W * BLK, MS_SYNC);
	for (p = 0; p < 2 * W; p++) {
		int want = p < H || p >= W + H;

		vm_pread_all(fd, buf, BLK, p * BLK);
		if (want ? vm_check_blk(buf, 52, p, 2, &bad, &exp, &got) != 0
			 : !is_zero(buf)) {
			if (!file_bad)
				ktap_diag("file page %ld wrong after writes "
					  "through the window", p);
			file_bad++;
		}
	}
	vm_fig_i("sweep_bad", slot_bad + file_bad, "pages");
	if (hr != 0)
		ktap_fail(name, "the hog %s", hr == 1 ? "timed out" :
			  "failed");
	else if (!slot_bad && !file_bad)
		ktap_ok(name, "%ld slots, RSS %lld -> %lld kB", W, rss0, rss1);
	else
		ktap_fail(name, "%ld slots wrong, %ld file pages wrong",
			  slot_bad, file_bad);
out:
	munmap(map, W * BLK);
	vm_scratch_close(fd, path);
}

/* ---- 4 ---- */
static void test_ptrace(const char *dir)
{
	const char *name = names[3];
	long W = 8, H = W / 2, i;
	char path[256], *map;
	long r_lin, r_non;
	int e_lin, e_non, fd, st;
	pid_t pid;

	map = vm_scratch_map(dir, "pt", -1, 2 * W * BLK, W * BLK,
			     path, sizeof(path), &fd);
	if (!map) {
		ktap_fail(name, "file: %s", strerror(errno));
		return;
	}
	for (i = 0; i < W; i++)
		map[i * BLK] = 1;
	if (remap(map + H * BLK, H * BLK, W + H, 0)) {
		ktap_fail(name, "remap_file_pages: %s", strerror(errno));
		goto out;
	}
	for (i = H; i < W; i++)
		map[i * BLK] = 2;
	if (ftruncate(fd, 0)) {
		ktap_fail(name, "ftruncate: %s", strerror(errno));
		goto out;
	}
	pid = vm_fork();
	if (pid < 0) {
		ktap_fail(name, "fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, 0, 0))
			_exit(2);
		raise(SIGSTOP);
		_exit(0);
	}
	if (waitpid(pid, &st, WUNTRACED) != pid || !WIFSTOPPED(st)) {
		vm_wait(pid, &st, NULL);
		ktap_skip(name, "the child could not be traced (PTRACE_TRACEME "
			  "refused?)");
		goto out;
	}
	errno = 0;
	r_lin = ptrace(PTRACE_PEEKDATA, pid, map, 0);
	e_lin = errno;
	errno = 0;
	r_non = ptrace(PTRACE_PEEKDATA, pid, map + H * BLK, 0);
	e_non = errno;
	kill(pid, SIGKILL);
	vm_wait(pid, &st, NULL);
	ktap_diag("%s: PEEKDATA beyond EOF: linear slot -> %ld (%s), "
		  "nonlinear slot -> %ld (%s)", dir, r_lin, e_lin ?
		  strerror(e_lin) : "ok", r_non, e_non ? strerror(e_non) :
		  "ok");
	vm_fig_i("ptrace_linear_read", !e_lin, "count");
	vm_fig_i("ptrace_nonlinear_read", !e_non, "count");
	if (e_lin && e_non)
		ktap_ok(name, "both refused");
	else if (stale_known)
		ktap_skip(name, "2.6.3's filemap_nopage() lets a ptracer read "
			  "beyond EOF (linear slot %s, nonlinear slot %s)",
			  e_lin ? "refused" : "read", e_non ? "refused" :
			  "read");
	else
		ktap_fail(name, "linear slot %s, nonlinear slot %s",
			  e_lin ? "refused" : "READ beyond EOF",
			  e_non ? "refused" : "READ beyond EOF");
out:
	munmap(map, W * BLK);
	vm_scratch_close(fd, path);
}

/* ---- 5 ---- */
static void test_wrap_nonblock(const char *dir)
{
	const char *name = names[4];
	char path[256], *map;
	long r, r29;
	int e, e29, fd, bus;
	uint32_t v;

	if (wide_pgoff) {
		ktap_skip(name, "64-bit page offsets: pgoff 0xffffffff + 1 "
			  "does not wrap");
		return;
	}
	map = vm_scratch_map(dir, "wn", -1, 4 * BLK, 2 * BLK,
			     path, sizeof(path), &fd);
	if (!map) {
		ktap_fail(name, "file: %s", strerror(errno));
		return;
	}
	/* for comparison: an offset a non-PAE file pte cannot hold */
	errno = 0;
	r29 = remap(map + BLK, BLK, 1UL << 29, MAP_NONBLOCK);
	e29 = errno;
	errno = 0;
	r = remap(map, BLK, 0xffffffffUL, MAP_NONBLOCK);
	e = errno;
	bus = vm_read_bus((uint32_t *)map, &v);
	ktap_diag("%s: remap pgoff 1<<29 -> %ld (%s); pgoff 0xffffffff "
		  "MAP_NONBLOCK -> %ld (%s); touching the slot: %s", dir, r29,
		  r29 ? strerror(e29) : "ok", r, r ? strerror(e) : "ok",
		  bus ? "SIGBUS" : "readable");
	vm_fig_i("wrap_nonblock_accepted", r == 0, "count");
	if (r && e == EINVAL)
		ktap_ok(name, "EINVAL");
	else if (r)
		ktap_fail(name, "refused, but with %s", strerror(e));
	else
		ktap_fail(name, "accepted (returned %ld)", r);
	munmap(map, 2 * BLK);
	vm_scratch_close(fd, path);
}

/* ---- 6 ---- */
static void test_wrap_truncate(const char *dir)
{
	const char *name = names[5];
	long N = 16, i, lost = 0, incoherent = 0;
	static char buf[BLK];
	char path[256], *win, *map;
	long r, bad;
	uint32_t exp, got;
	int e, fd;

	fd = vm_scratch_open(dir, "wt", -1, path, sizeof(path));
	if (fd < 0) {
		ktap_fail(name, "file: %s", strerror(errno));
		return;
	}
	for (i = 0; i < N; i++) {		/* dirty page cache, no fsync */
		vm_fill_blk(buf, 63, i, 7);
		vm_pwrite_all(fd, buf, BLK, i * BLK);
	}
	map = mmap(NULL, N * BLK, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	win = mmap(NULL, BLK, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED || win == MAP_FAILED) {
		ktap_fail(name, "mmap: %s", strerror(errno));
		if (map != MAP_FAILED)
			munmap(map, N * BLK);
		if (win != MAP_FAILED)
			munmap(win, BLK);
		vm_scratch_close(fd, path);
		return;
	}
	for (i = 0; i < N; i++)
		(void)*(volatile char *)(map + i * BLK);
	errno = 0;
	r = remap(win, BLK, 0xffffffffUL, 0);
	e = errno;
	munmap(win, BLK);
	if (ftruncate(fd, N / 2 * BLK)) {
		ktap_fail(name, "ftruncate: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < N / 2; i++) {
		vm_pread_all(fd, buf, BLK, i * BLK);
		if (vm_check_blk(buf, 63, i, 7, &bad, &exp, &got)) {
			if (!lost)
				ktap_diag("page %ld after truncate: word %ld "
					  "is %#x, want %#x", i, bad, got,
					  exp);
			lost++;
		}
	}
	for (i = 0; i < N / 2; i++) {
		vm_fill_blk(map + i * BLK, 63, i, 8);
		vm_pread_all(fd, buf, BLK, i * BLK);
		if (vm_check_blk(buf, 63, i, 8, &bad, &exp, &got))
			incoherent++;
	}
	ktap_diag("%s: remap pgoff 0xffffffff -> %ld (%s); after truncate "
		  "to %ld pages: %ld of them lost their data, %ld no longer "
		  "see writes through the mapping", dir, r,
		  r ? strerror(e) : "ok", N / 2, lost, incoherent);
	vm_fig_i("wrap_remap_accepted", r == 0, "count");
	vm_fig_i("wrap_lost_pages", lost, "pages");
	vm_fig_i("wrap_incoherent_pages", incoherent, "pages");
	if (!lost && !incoherent)
		ktap_ok(name, "%ld pages intact", N / 2);
	else
		ktap_fail(name, "%ld pages lost, %ld incoherent", lost,
			  incoherent);
out:
	munmap(map, N * BLK);
	vm_scratch_close(fd, path);
}

/* ---- 7, 8 ---- */
static void test_nonblock_linear(const char *name, const char *dir,
				 const char *fig)
{
	static char buf[BLK];
	char path[256], key[64], *map;
	long bad, p;
	uint32_t exp, got, v;
	int fd, wrong = -1;

	map = vm_scratch_map(dir, "nb", -1, 4 * BLK, 4 * BLK, path,
			     sizeof(path), &fd);
	if (!map) {
		ktap_fail(name, "file in %s: %s", dir, strerror(errno));
		return;
	}
	for (p = 1; p < 4; p++) {	/* page 0 stays a hole, never read */
		vm_fill_blk(buf, 71, p, 1);
		vm_pwrite_all(fd, buf, BLK, p * BLK);
	}
	if (remap(map, BLK, 1, 0)) {
		ktap_fail(name, "remap to page 1: %s", strerror(errno));
		goto out;
	}
	if (vm_check_blk(map, 71, 1, 1, &bad, &exp, &got)) {
		ktap_fail(name, "slot 0 does not show page 1 after the first "
			  "remap (word %ld is %#x)", bad, got);
		goto out;
	}
	if (remap(map, BLK, 0, MAP_NONBLOCK)) {
		ktap_fail(name, "MAP_NONBLOCK remap to page 0: %s",
			  strerror(errno));
		goto out;
	}
	if (vm_read_bus((uint32_t *)map, &v)) {
		ktap_fail(name, "slot 0 raised SIGBUS inside EOF");
		goto out;
	}
	wrong = !is_zero(map);
	if (!wrong) {
		vm_fill_blk(map, 72, 0, 1);
		vm_pread_all(fd, buf, BLK, 0);
		wrong = vm_check_blk(buf, 72, 0, 1, &bad, &exp, &got) ? 2 : 0;
	}
	snprintf(key, sizeof(key), "%s_nonblock_linear_wrong", fig);
	vm_fig_i(key, wrong != 0, "count");
	if (!wrong)
		ktap_ok(name, "slot 0 shows page 0");
	else if (wrong == 2)
		ktap_fail(name, "slot 0 reads zeros, but a write through it "
			  "is not at offset 0");
	else
		ktap_fail(name, "slot 0 %s after the MAP_NONBLOCK remap to "
			  "page 0", vm_check_blk(map, 71, 1, 1, &bad, &exp,
						 &got) ? "is not zero" :
			  "still shows page 1");
out:
	munmap(map, 4 * BLK);
	vm_scratch_close(fd, path);
}

/* ---- 9 ---- */
struct fadv_shared {
	volatile int stop, done;
	volatile long calls, enomem, eother, wrong, drops;
};

static void fadv_mapper(char *map, int fd, struct fadv_shared *sh)
{
	long r, bad;
	uint32_t exp, got;

	for (r = 0; !sh->stop; r++) {
		long pg = 1 - (r & 1);

		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		/* slot 1 keeps the vma nonlinear; slot 0 is checked */
		if (remap(map + BLK, BLK, r & 1, 0) || remap(map, BLK, pg, 0)) {
			if (errno == ENOMEM)
				sh->enomem++;
			else
				sh->eother++;
			continue;
		}
		sh->calls++;
		if (vm_check_blk(map, 81, pg, 1, &bad, &exp, &got))
			sh->wrong++;
	}
	sh->done = 1;
	_exit(0);
}

static void test_fadvise_race(const char *dir)
{
	const char *name = names[8];
	static char buf[BLK];
	struct fadv_shared *sh;
	char path[256], *map;
	pid_t ev, mp;
	int fd, st = 0;
	double t0;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		ktap_fail(name, "mmap: %s", strerror(errno));
		return;
	}
	map = vm_scratch_map(dir, "fa", -1, 2 * BLK, 2 * BLK, path,
			     sizeof(path), &fd);
	if (!map) {
		ktap_fail(name, "file: %s", strerror(errno));
		munmap((void *)sh, sizeof(*sh));
		return;
	}
	vm_fill_blk(buf, 81, 0, 1);
	vm_pwrite_all(fd, buf, BLK, 0);
	vm_fill_blk(buf, 81, 1, 1);
	vm_pwrite_all(fd, buf, BLK, BLK);
	fsync(fd);
	if (posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)) {
		ktap_skip(name, "no fadvise");
		goto out;
	}
	vm_phase("fadvise");
	ev = vm_fork();
	if (ev == 0) {
		while (!sh->stop) {
			posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
			sh->drops++;
		}
		_exit(0);
	}
	mp = vm_fork();
	if (mp == 0)
		fadv_mapper(map, fd, sh);
	t0 = vm_now_ms();
	while (vm_now_ms() - t0 < fadv_s * 1000.0 && !sh->done)
		vm_sleep_ms(200);
	sh->stop = 1;
	vm_wait(mp, &st, NULL);
	vm_wait(ev, NULL, NULL);
	vm_fig_i("fadvise_calls", sh->calls, "count");
	vm_fig_i("fadvise_enomem", sh->enomem, "count");
	vm_fig_i("fadvise_wrong", sh->wrong, "count");
	if (sh->done && !sh->enomem && !sh->eother && !sh->wrong)
		ktap_ok(name, "%ld remaps, %ld drops", sh->calls, sh->drops);
	else if (!sh->done)
		ktap_fail(name, "the remapping child ended with status %#x "
			  "(%ld ENOMEM before)", st, sh->enomem);
	else
		ktap_fail(name, "%ld of %ld remaps failed with ENOMEM, %ld "
			  "with another error, %ld showed another page",
			  sh->enomem, sh->calls + sh->enomem + sh->eother,
			  sh->eother, sh->wrong);
out:
	munmap(map, 2 * BLK);
	vm_scratch_close(fd, path);
	munmap((void *)sh, sizeof(*sh));
}

int main(int argc, char **argv)
{
	const char *tmp, *data;
	struct utsname u;

	vm_init("remap_edges", argc, argv, opts, summary, 900);
	ktap_names(names);
	if (window < 8)
		window = 8;
	tmp = vm_find_tmpfs(NULL);
	if (!tmp)
		ktap_skip_all("no writable tmpfs");
	vm_remap_probe(tmp);

	data = vm_cfg.dir;
	if (vm_is_tmpfs(data) != 0 || access(data, W_OK))
		data = NULL;
	if (uname(&u) == 0) {
		if (!strncmp(u.release, "2.6.3", 5) &&
		    (u.release[5] == 0 || u.release[5] == '-') &&
		    !strstr(u.release, "vmshm") &&
		    vm_vmstat("rmap_file_walks") < 0)
			stale_known = 1;
		if (strstr(u.machine, "64"))
			wide_pgoff = 1;
	}
	if (sizeof(long) > 4)
		wide_pgoff = 1;
	ktap_diag("tmpfs %s, disk file system %s; %s page offsets",
		  tmp, data ? data : "none", wide_pgoff ? "64-bit" : "32-bit");
	vm_fig_i("window_pages", window, "pages");
	vm_sigbus_install(3);

	ktap_header(9);
	test_refault(names[0], tmp, "tmpfs");
	if (data)
		test_refault(names[1], data, "disk");
	else
		ktap_skip(names[1], "-d is not a disk file system");
	test_sweep(tmp);
	if (data) {
		test_ptrace(data);
		test_wrap_nonblock(data);
		test_wrap_truncate(data);
	} else {
		ktap_skip(names[3], "-d is not a disk file system");
		ktap_skip(names[4], "-d is not a disk file system");
		ktap_skip(names[5], "-d is not a disk file system");
	}
	test_nonblock_linear(names[6], tmp, "tmpfs");
	if (data)
		test_nonblock_linear(names[7], data, "disk");
	else
		ktap_skip(names[7], "-d is not a disk file system");
	if (data)
		test_fadvise_race(data);
	else
		ktap_skip(names[8], "-d is not a disk file system");
	ktap_exit();
}
