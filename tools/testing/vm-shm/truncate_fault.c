// SPDX-License-Identifier: GPL-2.0
/*
 * truncate_fault - a page truncated while another CPU faults it in must
 * not stay mapped past EOF, nor come back when the file grows again.
 *
 * Toucher processes (-p, 2) map a file MAP_SHARED and read a word of
 * every page, round after round, catching SIGBUS; the parent truncates
 * the file to nothing while they do.  Then the touchers stop and each
 * checks its whole mapping: every read must raise SIGBUS (a page that
 * reads is a pte the truncate left behind).  The parent extends the file
 * again and the touchers check that every page reads zero (old data is
 * a page the truncate left mapped); then the parent fills
 * the file with a new pattern through write() and the next round starts.
 * -r rounds (200), on a tmpfs file and on a file in -d.
 *
 * Found by the soak on 2.6.3.  vmtruncate() sets i_size, bumps
 * truncate_count and zaps the ptes, and only then truncate_inode_pages()
 * drops the pages.  shmem_nopage() maps a page it finds in the page
 * cache without looking at i_size (shmem_getpage() checks it only on
 * the way to swap or a new page), so a fault that installs its pte
 * after the zap has passed that vma maps a page the truncate is about
 * to drop; do_no_page()'s truncate_count retry does not help, the retry
 * finds the same page.  truncate_complete_page() then drops it from the
 * cache although it is mapped: the pte keeps an orphan page, readable
 * past EOF and, once the file grows back, instead of the new zero page
 * (so on 2.6.3 stale_data counts the same ptes again).
 * filemap_nopage() checks i_size, written before truncate_count is
 * bumped, so faults on a disk file are safe; remap_file_pages() and
 * MAP_POPULATE (install_page(), which checks neither) are not exercised
 * here.  On UP the race needs a reschedule inside ftruncate: it is
 * much rarer there.
 *
 * Figures per file kind: rounds, stale_mapped (pages readable past EOF),
 * stale_data (old data after the file grew back), sigbus_seen.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "vmshm.h"

static const char summary[] =
	"truncate_fault: pages truncated under concurrent faults must not\n"
	"stay mapped past EOF nor come back after the file grows";

static const char *const names[] = {
	"tmpfs: no page mapped past EOF or back after truncate",
	"disk file: no page mapped past EOF or back after truncate",
	NULL
};

static long rounds = 200, ntouch = 2, npages = 1024;

static const struct vm_opt opts[] = {
	{ 'r', VM_OPT_LONG, &rounds, "N", "truncate rounds per file (200)" },
	{ 'p', VM_OPT_LONG, &ntouch, "N", "toucher processes (2)" },
	{ 'n', VM_OPT_LONG, &npages, "PAGES", "file size (1024)" },
	{ 0 }
};

enum { RUN, CHECK_GONE, CHECK_ZERO, QUIT };

struct shared {
	volatile int state;		/* seq << 2 | phase, in one word */
	volatile int acked[16];		/* seq each toucher has finished */
	volatile long stale_mapped, stale_data, sigbus;
	volatile long first_page, first_round;
};

static struct shared *sh;

static void toucher(int me, int fd)
{
	char *p = mmap(NULL, npages * vm_pagesize, PROT_READ, MAP_SHARED, fd,
		       0);
	int seen = 0;
	uint32_t v;
	long i, n;

	if (p == MAP_FAILED)
		_exit(2);
	vm_sigbus_install(3);
	for (;;) {
		/* one load: a phase never pairs with another phase's seq */
		int st = __atomic_load_n(&sh->state, __ATOMIC_ACQUIRE);
		int phase = st & 3, seq = st >> 2;

		if (phase == QUIT)
			_exit(0);
		if (phase == RUN || seen == seq) {
			/* race the truncate, or wait for the next phase */
			for (i = 0; i < npages && sh->state == st; i++)
				if (vm_read_bus((const volatile uint32_t *)
						(p + i * vm_pagesize), &v))
					__sync_add_and_fetch(&sh->sigbus, 1);
			if (phase != RUN)
				sched_yield();
			continue;
		}
		n = 0;
		for (i = 0; i < npages; i++) {
			int bus = vm_read_bus((const volatile uint32_t *)
					      (p + i * vm_pagesize), &v);

			if (phase == CHECK_GONE && !bus) {
				__sync_add_and_fetch(&sh->stale_mapped, 1);
				n++;
			} else if (phase == CHECK_ZERO && (bus || v)) {
				__sync_add_and_fetch(&sh->stale_data, 1);
				n++;
			}
			if (n == 1 && sh->first_page < 0) {
				sh->first_page = i;
				sh->first_round = seq;
			}
		}
		seen = seq;
		__atomic_store_n(&sh->acked[me], seq, __ATOMIC_RELEASE);
	}
}

/* 0 when every toucher has done the phase's check; -1 after 60 s */
static int set_phase(int phase)
{
	int i, seq = (sh->state >> 2) + 1;
	double t0 = vm_now_ms();

	__atomic_store_n(&sh->state, seq << 2 | phase, __ATOMIC_RELEASE);
	if (phase == RUN || phase == QUIT)
		return 0;
	for (i = 0; i < ntouch; i++)
		while (sh->acked[i] != seq) {
			if (vm_now_ms() - t0 > 60000) {
				ktap_diag("toucher %d did not check in 60 s",
					  i);
				return -1;
			}
			vm_sleep_ms(1);
		}
	return 0;
}

static void one_file(int idx, const char *dir, const char *kind)
{
	const char *why = "a toucher did not check in 60 s";	/* default */
	char path[256], key[64];
	uint32_t *buf;
	pid_t pid[16];
	long r, i;
	int fd, st;

	snprintf(path, sizeof(path), "%s/truncate_fault-%s", dir, kind);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	buf = malloc(vm_pagesize);
	if (fd < 0 || !buf) {
		ktap_fail(names[idx], "open %s: %s", path, strerror(errno));
		return;
	}
	unlink(path);
	memset((void *)sh, 0, sizeof(*sh));
	sh->first_page = -1;
	for (i = 0; i < npages; i++) {
		vm_fill_blk(buf, 1, i, 1);
		if (vm_pwrite_all(fd, buf, vm_pagesize, i * vm_pagesize)) {
			ktap_fail(names[idx], "write: %s", strerror(errno));
			close(fd);
			return;
		}
	}
	for (i = 0; i < ntouch; i++) {
		pid[i] = vm_fork();
		if (pid[i] == 0)
			toucher(i, fd);
	}
	vm_phase(names[idx]);
	for (r = 0; r < rounds; r++) {
		set_phase(RUN);
		vm_sleep_ms(2);
		if (ftruncate(fd, 0)) {
			why = strerror(errno);
			break;
		}
		/* a late check would see the file grown again: stop */
		if (set_phase(CHECK_GONE))
			break;
		if (ftruncate(fd, npages * vm_pagesize)) {
			why = strerror(errno);
			break;
		}
		if (set_phase(CHECK_ZERO))
			break;
		for (i = 0; i < npages; i++) {
			vm_fill_blk(buf, 1, i, (uint32_t)r + 2);
			if (vm_pwrite_all(fd, buf, vm_pagesize,
					  i * vm_pagesize))
				break;
		}
		if (i < npages) {
			why = strerror(errno);
			break;
		}
		vm_progress("%s: round %ld, %ld stale mapped, %ld stale data",
			    kind, r + 1, sh->stale_mapped, sh->stale_data);
	}
	set_phase(QUIT);
	for (i = 0; i < ntouch; i++)
		if (vm_wait_timeout(pid[i], &st, NULL, 10000))
			vm_kill_group(pid[i], 0, "toucher");
	close(fd);
	free(buf);

	snprintf(key, sizeof(key), "%s_rounds", kind);
	vm_fig_i(key, r, "");
	snprintf(key, sizeof(key), "%s_stale_mapped", kind);
	vm_fig_i(key, sh->stale_mapped, "pages");
	snprintf(key, sizeof(key), "%s_stale_data", kind);
	vm_fig_i(key, sh->stale_data, "pages");
	snprintf(key, sizeof(key), "%s_sigbus_seen", kind);
	vm_fig_i(key, sh->sigbus, "");
	if (r < rounds)
		ktap_fail(names[idx], "round %ld not finished: %s (%ld stale "
			  "mapped, %ld stale data so far)", r, why,
			  sh->stale_mapped, sh->stale_data);
	else if (sh->stale_mapped || sh->stale_data)
		ktap_fail(names[idx], "%ld pages mapped past EOF, %ld with old "
			  "data after growing back (first: page %ld, check "
			  "%ld)",
			  sh->stale_mapped, sh->stale_data, sh->first_page,
			  sh->first_round);
	else
		ktap_ok(names[idx], "%ld rounds, %ld SIGBUS while racing", r,
			sh->sigbus);
}

int main(int argc, char **argv)
{
	const char *tmpfs;

	vm_init("truncate_fault", argc, argv, opts, summary, 900);
	ktap_names(names);
	if (ntouch < 1 || ntouch > 16 || npages < 1 || rounds < 1)
		ktap_skip_all("-p 1..16, -n and -r at least 1");
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		ktap_skip_all("cannot map the shared state");
	ktap_header(2);
	tmpfs = vm_find_tmpfs("/dev/shm");
	if (tmpfs)
		one_file(0, tmpfs, "tmpfs");
	else
		ktap_skip(names[0], "no tmpfs");
	if (vm_is_tmpfs(vm_cfg.dir) == 1)
		ktap_skip(names[1], "%s is a tmpfs", vm_cfg.dir);
	else
		one_file(1, vm_cfg.dir, "disk");
	ktap_exit();
}
