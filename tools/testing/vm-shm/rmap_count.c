// SPDX-License-Identifier: GPL-2.0
/*
 * rmap_count - the reverse mapping counts every pte of a page once,
 * whichever path made the pte, and forgets it once.
 *
 * nr_mapped (/proc/vmstat) is the number of pages with at least one
 * pte: page_add_rmap() adds a page at its first pte, page_remove_rmap()
 * takes it away at its last.  A page of a file counts its ptes in its
 * struct page instead of chaining them (objrmap), and every path that
 * makes, copies or moves such a pte must count it: fork (copy_page_range),
 * mremap (move_one_page), remap_file_pages (install_page), the fault
 * (do_no_page), copy-on-write (do_wp_page).  A path that copies a pte
 * without counting it leaves the page "unmapped" while a pte still
 * maps it, and reclaim then never unmaps it; a path that moves a pte
 * without uncounting the old one leaves a page "mapped" that nothing
 * maps, which reclaim walks for ever.  Both show in nr_mapped: it falls
 * while pages are still mapped, or it stays up after every pte is gone.
 *
 * Per file kind (a tmpfs file; a file in -d unless that is a tmpfs),
 * each on -n pages (1024), with nr_mapped read before and at each
 * stage; the figure is the change, which must be within -n/16 + 16 of
 * what the ptes say (the program's own stack and the guest's other
 * tasks move it by a few pages):
 *  1 fault: map shared, read every page: +n; unmap: 0.
 *  2 fork: map, read, fork a holder; the parent unmaps: +n (the
 *    holder's copies); the holder exits: 0.
 *  3 mremap: map, read, fork a holder; the parent moves its mapping
 *    (MREMAP_FIXED) and the holder exits: +n (the moved ptes); the
 *    parent unmaps: 0.
 *  4 remap_file_pages: map, remap every page to the file's page at the
 *    other end, one call each (install_page): +n; fork a holder, the
 *    parent unmaps: +n; the holder exits: 0.
 *  5 private: map MAP_PRIVATE, read, fork a holder that writes every
 *    other page (copy-on-write: anonymous copies); the parent unmaps:
 *    +n (n/2 file pages, n/2 copies); the holder exits: 0.
 *
 * The series' lazy pte_chain allocation moved all these paths; 2.6.3
 * passes every step too (its pte_chains count the same).  Planted back
 * in a local build, fork's copy without page_add_rmap() failed step 2
 * (and 4, 5) and mremap without page_remove_rmap() of the old pte
 * failed step 3.
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
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "vmshm.h"

static const char summary[] =
	"rmap_count: nr_mapped follows the ptes of file pages through\n"
	"fault, fork, mremap, remap_file_pages, copy-on-write and exit";

static const char *const names[] = {
	"tmpfs: fault",
	"tmpfs: fork",
	"tmpfs: mremap",
	"tmpfs: remap_file_pages",
	"tmpfs: private copy-on-write",
	"disk file: fault",
	"disk file: fork",
	"disk file: mremap",
	"disk file: remap_file_pages",
	"disk file: private copy-on-write",
	NULL
};

enum { FAULT, FORK, MREMAP, REMAP, PRIVATE, NSTEPS };

static const char *const step_key[NSTEPS] = {
	"fault", "fork", "mremap", "remap", "private"
};

#define MAGIC	0x52430000u	/* first word of file page j: MAGIC | j */

static long npages = 1024;

static const struct vm_opt opts[] = {
	{ 'n', VM_OPT_LONG, &npages, "PAGES", "pages per step (1024)" },
	{ 0 }
};

struct step {
	const char *name;	/* the KTAP line */
	const char *kind;	/* "tmpfs" or "disk", for the figures */
	int idx;		/* FAULT..PRIVATE */
	long long base;		/* nr_mapped before the step */
	long worst;		/* largest miss, pages */
	int err;		/* errno of a step that could not be done */
	char why[200];		/* the first stage out of tolerance */
};

/*
 * nr_mapped against what the ptes say: @want pages above the step's
 * base.  Only the first stage that misses is reported.
 */
static void expect(struct step *s, const char *stage, long want)
{
	long long got = vm_vmstat("nr_mapped") - s->base;
	long tol = npages / 16 + 16;
	long miss = (long)(got > want ? got - want : want - got);

	if (miss > s->worst)
		s->worst = miss;
	if (miss > tol && !s->why[0])
		snprintf(s->why, sizeof(s->why), "%s: nr_mapped moved by %lld "
			 "pages, the ptes say %ld (tolerance %ld)", stage,
			 got, want, tol);
}

static void touch(const char *p, long n)
{
	long i;

	for (i = 0; i < n; i++)
		(void)*(const volatile uint32_t *)(p + i * vm_pagesize);
}

/* pages of @p whose first word is not file page @first + @step * i's */
static long wrong_pages(const char *p, long n, long first, long step)
{
	long i, bad = 0;

	for (i = 0; i < n; i++)
		if (*(const volatile uint32_t *)(p + i * vm_pagesize) !=
		    (MAGIC | (uint32_t)(first + step * i)))
			bad++;
	return bad;
}

/*
 * A holder is a child that keeps the parent's mappings (its copies of
 * the ptes) until release(): it writes to every other page of @cow
 * first (copy-on-write), tells the parent it is ready, and waits for
 * the end of its pipe.
 */
struct holder {
	pid_t pid;
	int hold;		/* write end: closing it lets the child go */
};

static int hold(struct holder *h, char *cow)
{
	int ready[2], go[2];
	char c;
	long i;

	if (pipe(ready))
		return -1;
	if (pipe(go)) {
		close(ready[0]);
		close(ready[1]);
		return -1;
	}
	h->pid = vm_fork();
	if (h->pid == 0) {
		close(ready[0]);
		close(go[1]);
		if (cow)
			for (i = 0; i < npages; i += 2)
				*(volatile uint32_t *)(cow + i * vm_pagesize) =
					~(MAGIC | (uint32_t)i);
		if (write(ready[1], "r", 1) != 1)
			_exit(2);
		while (read(go[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(ready[1]);
	close(go[0]);
	h->hold = go[1];
	if (h->pid < 0 || read(ready[0], &c, 1) != 1) {
		close(ready[0]);
		close(go[1]);
		return -1;
	}
	close(ready[0]);
	return 0;
}

static int release(struct holder *h)
{
	int st;

	close(h->hold);
	if (vm_wait_timeout(h->pid, &st, NULL, 30000))
		return -1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static long remap_file_pages_(void *addr, size_t len, long pgoff)
{
	return syscall(SYS_remap_file_pages, addr, len, 0, pgoff, 0);
}

/* -1 with s->why set when the step could not be carried out */
static int run_step(struct step *s, int fd)
{
	size_t len = (size_t)npages * vm_pagesize;
	int prot = PROT_READ | PROT_WRITE;
	struct holder h;
	char *p, *q;
	long i;

	s->base = vm_vmstat("nr_mapped");
	p = mmap(NULL, len, prot, s->idx == PRIVATE ? MAP_PRIVATE : MAP_SHARED,
		 fd, 0);
	if (p == MAP_FAILED)
		goto sys;
	switch (s->idx) {
	case FAULT:
		touch(p, npages);
		expect(s, "mapped", npages);
		munmap(p, len);
		expect(s, "unmapped", 0);
		return 0;
	case FORK:
		touch(p, npages);
		if (hold(&h, NULL))
			goto sys_unmap;
		expect(s, "forked", npages);
		munmap(p, len);
		expect(s, "parent unmapped", npages);
		if (release(&h))
			goto holder;
		expect(s, "holder gone", 0);
		return 0;
	case MREMAP:
		touch(p, npages);
		if (hold(&h, NULL))
			goto sys_unmap;
		q = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
		if (q == MAP_FAILED ||
		    mremap(p, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, q) != q) {
			release(&h);
			goto sys_unmap;
		}
		expect(s, "moved", npages);
		if (release(&h))
			goto holder;
		expect(s, "holder gone", npages);
		i = wrong_pages(q, npages, 0, 1);
		munmap(q, len);
		expect(s, "unmapped", 0);
		if (i)
			snprintf(s->why, sizeof(s->why), "%ld pages of the "
				 "moved mapping show the wrong page", i);
		return 0;
	case REMAP:
		for (i = 0; i < npages; i++)
			if (remap_file_pages_(p + i * vm_pagesize, vm_pagesize,
					      npages - 1 - i))
				goto sys_unmap;
		expect(s, "remapped", npages);
		i = wrong_pages(p, npages, npages - 1, -1);
		if (i && !s->why[0])
			snprintf(s->why, sizeof(s->why), "%ld pages of the "
				 "nonlinear mapping show the wrong page", i);
		if (hold(&h, NULL))
			goto sys_unmap;
		munmap(p, len);
		expect(s, "parent unmapped", npages);
		if (release(&h))
			goto holder;
		expect(s, "holder gone", 0);
		return 0;
	case PRIVATE:
		touch(p, npages);
		if (hold(&h, p))
			goto sys_unmap;
		/* the parent's n file pages, the holder's n/2 copies */
		expect(s, "copied", npages + (npages + 1) / 2);
		munmap(p, len);
		/* the holder's n/2 file pages and n/2 copies */
		expect(s, "parent unmapped", npages);
		if (release(&h))
			goto holder;
		expect(s, "holder gone", 0);
		return 0;
	}
	return 0;
sys_unmap:
	i = errno;
	munmap(p, len);
	errno = (int)i;
sys:
	s->err = errno;
	snprintf(s->why, sizeof(s->why), "%s", strerror(errno));
	return -1;
holder:
	snprintf(s->why, sizeof(s->why), "the holder did not exit cleanly");
	return -1;
}

static void one_file(int first, const char *dir, const char *kind)
{
	char path[256], key[96];
	uint32_t *buf;
	long i, j;
	int fd;

	fd = vm_scratch_open(dir, kind, -1, path, sizeof(path));
	buf = calloc(1, vm_pagesize);
	for (i = 0; fd >= 0 && buf && i < npages; i++) {
		buf[0] = MAGIC | (uint32_t)i;
		if (vm_pwrite_all(fd, buf, vm_pagesize, i * vm_pagesize))
			break;
	}
	if (fd < 0 || !buf || i < npages) {
		for (j = 0; j < NSTEPS; j++)
			ktap_fail(names[first + j], "cannot make %s: %s", path,
				  strerror(errno));
		if (fd >= 0)
			vm_scratch_close(fd, path);
		free(buf);
		return;
	}
	for (j = 0; j < NSTEPS; j++) {
		struct step s = { names[first + j], kind, (int)j, 0, 0, 0,
				  "" };
		int err;

		vm_phase(s.name);
		err = run_step(&s, fd);
		snprintf(key, sizeof(key), "%s_%s_worst_miss", kind,
			 step_key[j]);
		vm_fig_i(key, s.worst, "pages");
		if (err && j == REMAP && (s.err == ENOSYS || s.err == EINVAL))
			ktap_skip(s.name, "remap_file_pages: %s", s.why);
		else if (err)
			ktap_fail(s.name, "%s", s.why);
		else if (s.why[0])
			ktap_fail(s.name, "%s", s.why);
		else
			ktap_ok(s.name, "nr_mapped within %ld pages of the "
				"ptes at every stage", s.worst);
	}
	vm_scratch_close(fd, path);
	free(buf);
}

int main(int argc, char **argv)
{
	const char *tmpfs;
	struct utsname u;
	int minor;

	vm_init("rmap_count", argc, argv, opts, summary, 300);
	ktap_names(names);
	if (npages < 32 || (uint64_t)npages * vm_pagesize >
	    vm_mem_bytes() / 4)
		ktap_skip_all("-n from 32 pages to a quarter of memory");
	/* from 2.6.18 nr_mapped counts pages of files only */
	if (uname(&u) || sscanf(u.release, "2.6.%d", &minor) != 1 ||
	    minor >= 18)
		ktap_skip_all("nr_mapped counts every mapped page on 2.6.0 "
			      "to 2.6.17 only");
	if (vm_vmstat("nr_mapped") < 0)
		ktap_skip_all("no nr_mapped in /proc/vmstat");
	ktap_header(2 * NSTEPS);
	tmpfs = vm_find_tmpfs("/dev/shm");
	if (tmpfs)
		one_file(0, tmpfs, "tmpfs");
	else
		for (int j = 0; j < NSTEPS; j++)
			ktap_skip(names[j], "no tmpfs");
	if (vm_is_tmpfs(vm_cfg.dir) == 1)
		for (int j = 0; j < NSTEPS; j++)
			ktap_skip(names[NSTEPS + j], "%s is a tmpfs",
				  vm_cfg.dir);
	else
		one_file(NSTEPS, vm_cfg.dir, "disk");
	ktap_exit();
}
