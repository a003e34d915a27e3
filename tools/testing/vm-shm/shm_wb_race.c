// SPDX-License-Identifier: GPL-2.0
/*
 * shm_wb_race - review-32 stress: shm/tmpfs pages swapped out (and, with
 * shmem-writepage-start-io, under writeback at once) while other tasks
 * truncate, SHM_LOCK/SHM_UNLOCK, munmap/mmap, fork/exit, and swapoff/
 * swapon the swap devices.  Every block is self-describing
 * (vm_fill_blk); any mismatch is reported.
 *
 * Workers (all run -t seconds, default 55):
 *  - 2 shm writers: own half of the segment's W part each; check a block
 *    against its generation, then rewrite it with the next one;
 *  - forker: forks short-lived children that check random blocks of the
 *    segment's R part (filled once);
 *  - locker: shmctl SHM_LOCK / SHM_UNLOCK in a loop;
 *  - cycler: mmap the tmpfs file's prefix, check and rewrite blocks,
 *    munmap (pread/pwrite every other round);
 *  - truncator: fills the file's tail, waits 0-400 ms, truncates it at a
 *    random (often unaligned) cut, checks below the cut, regrows, checks
 *    that everything past the cut reads zero;
 *  - 2 hog workers: anonymous memory mapped, touched, held, unmapped;
 *  - swapper: swapoff/swapon of the swap disk and of a swap file made on
 *    the data disk, alternately (swapoff bounded by SIGKILL -> EINTR).
 * At the end: a full check, then swapoff of both devices (a swap entry
 * leaked by the race keeps swapoff looping: reported).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/swap.h>
#include <sys/wait.h>

#include "vmshm.h"

static const char summary[] =
	"shm_wb_race: shm/tmpfs swap-out under writeback racing truncate,\n"
	"SHM_LOCK, munmap, fork/exit and swapoff; data must stay intact";

static const char *const names[] = {
	"shm segment data intact",
	"tmpfs file data intact (mmap/munmap, pread/pwrite)",
	"tmpfs truncated tail: intact below the cut, zero past it",
	"no worker died or hung",
	"swap released at the end (swapoff of both devices)",
	NULL
};

/* sizes default to shares of the guest's memory (0: set in main()) */
static long race_s = 55, shm_mb, file_mb, hog_mb, swapfile_mb = -1,
	    swap_period_ms = 5000;
static int plant;

static const struct vm_opt opts[] = {
	{ 't', VM_OPT_LONG, &race_s, "S", "race seconds (55)" },
	{ 's', VM_OPT_LONG, &shm_mb, "MB", "shm segment (0.28 * mem)" },
	{ 'f', VM_OPT_LONG, &file_mb, "MB", "tmpfs file (0.16 * mem)" },
	{ 'H', VM_OPT_LONG, &hog_mb, "MB",
	  "anonymous hog, 2 workers (0.55 * mem)" },
	{ 'S', VM_OPT_LONG, &swapfile_mb, "MB",
	  "swap file on -d, 0 none (0.5 * mem)" },
	{ 'P', VM_OPT_LONG, &swap_period_ms, "MS", "swapoff period (5000)" },
	{ 'X', VM_OPT_FLAG, &plant, NULL,
	  "plant: corrupt one R block and one tmpfs block mid-race "
	  "(self-test)" },
	{ 0 }
};

enum { E_SHM_W, E_SHM_R, E_SHM_FINAL, E_FILE, E_TAIL_KEEP, E_TAIL_ZERO,
       E_TAIL_DATA, E_NK };
static const char *const ekind[E_NK] = {
	"shm writer", "shm reader child", "shm final R check", "tmpfs prefix",
	"tail below cut", "tail past cut not zero", "tail after fill"
};

struct shared {
	volatile int stop;
	volatile int first_lock;
	char first[E_NK][200];
	volatile long err[E_NK];
	volatile long shm_ops, rd_forks, rd_fail, locks, lock_err, unlocks;
	volatile long maps, file_ops, truncs, unaligned, tail_rounds;
	volatile long hog_rounds, swapoff_ok, swapoff_eintr, swapoff_err;
	volatile long swapon_err, swapoff_maxms, last_errno;
};
static struct shared *sh;

static char *shm;
static int shmid, fd;
static uint64_t nshm, nR, nfile, nP, nT;
static char fpath[256], swapfile[256], swapdisk[128];
#define SEED_SHM 0x5157
#define SEED_FILE 0xf11e

static uint32_t rnd_state;
static uint32_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

static void note(int kind, uint64_t blk, uint32_t gen, const void *p,
		 long nbad, long bad, uint32_t exp, uint32_t got)
{
	const uint32_t *w = p;

	__sync_add_and_fetch(&sh->err[kind], 1);
	if (sh->first[kind][0] || __sync_lock_test_and_set(&sh->first_lock, 1))
		return;
	if (!sh->first[kind][0])
		snprintf(sh->first[kind], sizeof(sh->first[kind]),
			 "blk %llu gen %u: %ld bad words, first word %ld "
			 "exp %08x got %08x (hdr %08x gen %u seed %x)",
			 (unsigned long long)blk, gen, nbad, bad, exp, got,
			 w ? w[0] : 0, w ? w[1] : 0, w ? w[2] : 0);
	__sync_lock_release(&sh->first_lock);
}

static int check(int kind, const void *p, uint32_t seed, uint64_t blk,
		 uint32_t gen)
{
	long bad = 0, n;
	uint32_t e = 0, g = 0;

	n = vm_check_blk(p, seed, blk, gen, &bad, &e, &g);
	if (n)
		note(kind, blk, gen, p, n, bad, e, g);
	return n != 0;
}

static int zero_words(const uint32_t *w, long from, long to)
{
	long i;

	for (i = from; i < to; i++)
		if (w[i])
			return (int)i + 1;
	return 0;
}

/* ---- shm writers ---- */
static VM_NORETURN void shm_writer(int me)
{
	uint64_t lo = nR + (nshm - nR) * me / 2, hi = nR + (nshm - nR) *
		      (me + 1) / 2, b;
	uint32_t *gen = calloc(hi - lo, sizeof(*gen));
	long i;

	rnd_state = 0x1234567 + me * 7919;
	if (!gen)
		_exit(2);
	for (b = lo; b < hi; b++)
		gen[b - lo] = 1;
	while (!sh->stop) {
		for (i = 0; i < 64; i++) {
			b = lo + rnd() % (hi - lo);
			check(E_SHM_W, shm + b * VM_BLK, SEED_SHM, b,
			      gen[b - lo]);
			gen[b - lo]++;
			vm_fill_blk(shm + b * VM_BLK, SEED_SHM, b, gen[b - lo]);
		}
		__sync_add_and_fetch(&sh->shm_ops, 64);
		vm_sleep_ms(5);
	}
	for (b = lo; b < hi; b++)
		check(E_SHM_W, shm + b * VM_BLK, SEED_SHM, b, gen[b - lo]);
	_exit(0);
}

/* ---- forker: children check random R blocks and exit ---- */
static VM_NORETURN void forker(void)
{
	int st;

	rnd_state = 0xabcdef;
	while (!sh->stop) {
		pid_t pid[2];
		int k;

		for (k = 0; k < 2; k++) {
			pid[k] = fork();
			if (pid[k] == 0) {
				long i;

				rnd_state = 0x9999 + getpid() * 31;
				for (i = 0; i < 256; i++) {
					uint64_t b = rnd() % nR;

					check(E_SHM_R, shm + b * VM_BLK,
					      SEED_SHM, b, 1);
				}
				_exit(0);
			}
		}
		for (k = 0; k < 2; k++) {
			if (pid[k] < 0)
				continue;
			__sync_add_and_fetch(&sh->rd_forks, 1);
			if (waitpid(pid[k], &st, 0) == pid[k] &&
			    !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
				__sync_add_and_fetch(&sh->rd_fail, 1);
		}
		vm_sleep_ms(20);
	}
	_exit(0);
}

/* ---- SHM_LOCK / SHM_UNLOCK ---- */
static VM_NORETURN void locker(void)
{
	double t0 = vm_now_ms();

	rnd_state = 0x10c4;
	while (!sh->stop) {
		if (plant == 1 && vm_now_ms() - t0 > 10000) {
			uint32_t w = 0x0badf00d;

			plant = 2;
			shm[5 * VM_BLK + 100] ^= 1;	/* an R block */
			pwrite(fd, &w, 4, 7 * VM_BLK + 400);	/* prefix */
		}
		if (shmctl(shmid, SHM_LOCK, NULL) == 0)
			__sync_add_and_fetch(&sh->locks, 1);
		else {
			__sync_add_and_fetch(&sh->lock_err, 1);
			sh->last_errno = errno;
		}
		vm_sleep_ms(rnd() % 60);
		if (shmctl(shmid, SHM_UNLOCK, NULL) == 0)
			__sync_add_and_fetch(&sh->unlocks, 1);
		vm_sleep_ms(rnd() % 120);
	}
	shmctl(shmid, SHM_UNLOCK, NULL);
	_exit(0);
}

/* ---- tmpfs prefix: mmap, check, rewrite, munmap ---- */
static VM_NORETURN void cycler(void)
{
	uint32_t *gen = calloc(nP, sizeof(*gen));
	char *buf = malloc(VM_BLK);
	uint64_t b;
	long round = 0, i;

	rnd_state = 0xc1c1e;
	if (!gen || !buf)
		_exit(2);
	for (b = 0; b < nP; b++)
		gen[b] = 1;
	while (!sh->stop) {
		if (round++ & 1) {
			char *p = mmap(NULL, nP * VM_BLK,
				       PROT_READ | PROT_WRITE, MAP_SHARED,
				       fd, 0);

			if (p == MAP_FAILED)
				_exit(3);
			__sync_add_and_fetch(&sh->maps, 1);
			for (i = 0; i < 96; i++) {
				b = rnd() % nP;
				check(E_FILE, p + b * VM_BLK, SEED_FILE, b,
				      gen[b]);
				if (i & 1) {
					gen[b]++;
					vm_fill_blk(p + b * VM_BLK, SEED_FILE,
						    b, gen[b]);
				}
			}
			munmap(p, nP * VM_BLK);
		} else {
			for (i = 0; i < 64; i++) {
				b = rnd() % nP;
				if (vm_pread_all(fd, buf, VM_BLK, b * VM_BLK))
					_exit(4);
				check(E_FILE, buf, SEED_FILE, b, gen[b]);
				if (i & 1) {
					gen[b]++;
					vm_fill_blk(buf, SEED_FILE, b, gen[b]);
					if (vm_pwrite_all(fd, buf, VM_BLK,
							  b * VM_BLK))
						_exit(5);
				}
			}
		}
		__sync_add_and_fetch(&sh->file_ops, 96);
		vm_sleep_ms(5);
	}
	for (b = 0; b < nP; b++) {
		if (vm_pread_all(fd, buf, VM_BLK, b * VM_BLK))
			_exit(4);
		check(E_FILE, buf, SEED_FILE, b, gen[b]);
	}
	_exit(0);
}

/* ---- tmpfs tail: fill, wait, truncate at a cut, check, regrow ---- */
static VM_NORETURN void truncator(void)
{
	uint32_t *buf = malloc(VM_BLK);
	uint32_t gen = 1;
	uint64_t b, full = (nP + nT) * VM_BLK;
	long z;

	rnd_state = 0x7a11;
	if (!buf)
		_exit(2);
	while (!sh->stop) {
		char *p;
		uint64_t cut;
		int partial;

		if (ftruncate(fd, full))
			_exit(3);
		p = mmap(NULL, nT * VM_BLK, PROT_READ | PROT_WRITE, MAP_SHARED,
			 fd, nP * VM_BLK);
		if (p == MAP_FAILED)
			_exit(4);
		gen++;
		for (b = 0; b < nT; b++)
			vm_fill_blk(p + b * VM_BLK, SEED_FILE, nP + b, gen);
		munmap(p, nT * VM_BLK);
		vm_sleep_ms(rnd() % 400);
		/* a sample after the fill: swapped in from swap cache/disk */
		for (b = 0; b < nT; b += 7) {
			if (vm_pread_all(fd, buf, VM_BLK, (nP + b) * VM_BLK))
				_exit(5);
			check(E_TAIL_DATA, buf, SEED_FILE, nP + b, gen);
		}
		vm_sleep_ms(rnd() % 200);
		cut = nP * VM_BLK + (uint64_t)(rnd() % nT) * VM_BLK;
		partial = rnd() % 3 != 0;
		if (partial)
			cut += 4 * (1 + rnd() % (VM_BLK / 4 - 1));
		if (ftruncate(fd, cut))
			_exit(6);
		__sync_add_and_fetch(&sh->truncs, 1);
		if (partial)
			__sync_add_and_fetch(&sh->unaligned, 1);
		for (b = nP; b * VM_BLK + VM_BLK <= cut; b++) {
			if (vm_pread_all(fd, buf, VM_BLK, b * VM_BLK))
				_exit(7);
			check(E_TAIL_KEEP, buf, SEED_FILE, b, gen);
		}
		if (ftruncate(fd, full))
			_exit(8);
		for (b = cut / VM_BLK; b < nP + nT; b++) {
			long from = 0;

			if (vm_pread_all(fd, buf, VM_BLK, b * VM_BLK))
				_exit(9);
			if (b == cut / VM_BLK && (cut & (VM_BLK - 1))) {
				/* the head of the cut block must be kept */
				uint32_t ref[VM_BLK / 4];
				long w = (long)(cut & (VM_BLK - 1)) / 4, i;

				vm_fill_blk(ref, SEED_FILE, b, gen);
				for (i = 0; i < w; i++)
					if (buf[i] != ref[i]) {
						note(E_TAIL_KEEP, b, gen, buf,
						     1, i, ref[i], buf[i]);
						break;
					}
				from = w;
			}
			z = zero_words(buf, from, VM_BLK / 4);
			if (z)
				note(E_TAIL_ZERO, b, gen, buf, 1, z - 1, 0,
				     buf[z - 1]);
		}
		__sync_add_and_fetch(&sh->tail_rounds, 1);
	}
	_exit(0);
}

/* ---- anonymous pressure ---- */
static VM_NORETURN void hog(int me)
{
	size_t len = (size_t)hog_mb * VM_MB / 2;

	rnd_state = 0x40c + me;
	while (!sh->stop) {
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		size_t off;
		double t;

		if (p == MAP_FAILED) {
			vm_sleep_ms(100);
			continue;
		}
		for (off = 0; off < len && !sh->stop; off += VM_BLK)
			p[off] = (char)off | 1;
		t = vm_now_ms();
		while (vm_now_ms() - t < 1000 && !sh->stop) {
			int i;

			for (i = 0; i < 256; i++)
				p[(rnd() % (len / VM_BLK)) * VM_BLK] ^= 1;
			vm_sleep_ms(2);
		}
		munmap(p, len);
		__sync_add_and_fetch(&sh->hog_rounds, 1);
		vm_sleep_ms(150 + me * 100);
	}
	_exit(0);
}

/* swapoff(@dev) in a child, SIGKILLed (-> EINTR) after @ms: 0, errno, or
 * -1 if it had to be killed */
static int bounded_swapoff(const char *dev, long ms, long *took)
{
	double t0 = vm_now_ms();
	pid_t pid = fork();
	int st, killed = 0;

	if (pid < 0)
		return errno;
	if (pid == 0)
		_exit(swapoff(dev) == 0 ? 0 : (errno & 0x7f));
	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			break;
		if (!killed && vm_now_ms() - t0 > ms) {
			kill(pid, SIGKILL);
			killed = 1;
		}
		if (killed && vm_now_ms() - t0 > ms + 30000) {
			*took = (long)(vm_now_ms() - t0);
			return -2;	/* unkillable */
		}
		vm_sleep_ms(10);
	}
	*took = (long)(vm_now_ms() - t0);
	if (killed)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -3;
}

static VM_NORETURN void swapper(void)
{
	int k = 0;

	vm_sleep_ms(swap_period_ms / 2);
	while (!sh->stop) {
		const char *dev = (k++ & 1) ? swapfile : swapdisk;
		long took = 0;
		int r;

		r = bounded_swapoff(dev, 20000, &took);
		if (took > sh->swapoff_maxms)
			sh->swapoff_maxms = took;
		if (r == 0)
			__sync_add_and_fetch(&sh->swapoff_ok, 1);
		else if (r == -1 || r == EINTR)
			__sync_add_and_fetch(&sh->swapoff_eintr, 1);
		else {
			__sync_add_and_fetch(&sh->swapoff_err, 1);
			sh->last_errno = r;
		}
		if (r == -2) {
			ktap_diag("swapoff %s did not end 30 s after SIGKILL",
				  dev);
			_exit(7);
		}
		if (r == 0 && swapon(dev, 0) != 0) {
			__sync_add_and_fetch(&sh->swapon_err, 1);
			sh->last_errno = errno;
			ktap_diag("swapon %s: %s", dev, strerror(errno));
		}
		vm_sleep_ms(swap_period_ms);
	}
	_exit(0);
}

static int make_swapfile(const char *dir)
{
	uint64_t pages = (uint64_t)swapfile_mb * VM_MB / VM_BLK, i;
	char *buf;
	int sfd;

	if (!swapfile_mb || vm_is_tmpfs(dir) == 1 ||
	    vm_fs_avail(dir) < (uint64_t)swapfile_mb * VM_MB + 64 * VM_MB)
		return -1;
	snprintf(swapfile, sizeof(swapfile), "%s/shm_wb_race.swap", dir);
	sfd = open(swapfile, O_RDWR | O_CREAT | O_TRUNC, 0600);
	buf = calloc(1, 64 * VM_BLK);
	if (sfd < 0 || !buf)
		return -1;
	vm_register_path(swapfile);
	for (i = 0; i < pages; i += 64)
		if (vm_write_all(sfd, buf, 64 * VM_BLK))
			return -1;
	/* the v1 header: version 1, last_page, no bad pages; the magic */
	{
		uint32_t *h = (uint32_t *)(buf + 1024);

		memset(buf, 0, VM_BLK);
		h[0] = 1;
		h[1] = (uint32_t)(pages - 1);
		h[2] = 0;
		memcpy(buf + VM_BLK - 10, "SWAPSPACE2", 10);
	}
	if (vm_pwrite_all(sfd, buf, VM_BLK, 0) || fsync(sfd))
		return -1;
	close(sfd);
	free(buf);
	if (swapon(swapfile, 0) != 0) {
		ktap_diag("swapon %s: %s", swapfile, strerror(errno));
		unlink(swapfile);
		return -1;
	}
	return 0;
}

static void find_swapdisk(void)
{
	FILE *f = fopen("/proc/swaps", "r");
	char line[256], name[128], type[32];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%127s %31s", name, type) == 2 &&
		    !strcmp(type, "partition") && !swapdisk[0])
			strcpy(swapdisk, name);
	fclose(f);
}

static void show_swaps(const char *when)
{
	FILE *f = fopen("/proc/swaps", "r");
	char line[256];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		ktap_diag("%s: %s", when, line);
	}
	fclose(f);
}

enum { W_SHM0, W_SHM1, W_FORK, W_LOCK, W_CYC, W_TRUNC, W_HOG0, W_HOG1,
       W_SWAP, W_N };
static const char *const wname[W_N] = {
	"shm writer 0", "shm writer 1", "forker", "locker", "cycler",
	"truncator", "hog 0", "hog 1", "swapper"
};

int main(int argc, char **argv)
{
	pid_t pid[W_N];
	int st[W_N], died = 0, hung = 0, i, have_file, swap_ok = 1;
	const char *tmpfs;
	double t0;
	uint64_t b;
	char *buf, why[256] = "";
	long k, shm_err, oom0;

	vm_init("shm_wb_race", argc, argv, opts, summary, 175);
	ktap_names(names);
	/* the shares of the 256 MB guest this was written for */
	if (!shm_mb)
		shm_mb = VM_MAX(vm_cfg.mem_mb * 72 / 256, 8L);
	if (!file_mb)
		file_mb = VM_MAX(vm_cfg.mem_mb * 40 / 256, 4L);
	if (!hog_mb)
		hog_mb = VM_MAX(vm_cfg.mem_mb * 140 / 256, 16L);
	if (swapfile_mb < 0)
		swapfile_mb = vm_cfg.mem_mb / 2;
	if (vm_meminfo_kb("SwapTotal") <= 0)
		ktap_skip_all("no swap");
	tmpfs = vm_find_tmpfs("/dev/shm");
	if (!tmpfs)
		ktap_skip_all("no tmpfs");
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		ktap_skip_all("cannot map the shared state");
	mlock(sh, sizeof(*sh));
	memset(sh, 0, sizeof(*sh));
	oom0 = vm_oom_kills();
	find_swapdisk();
	have_file = swapdisk[0] && make_swapfile(vm_cfg.dir) == 0;
	if (!have_file)
		ktap_diag("no swap file on %s: swapoff is not raced",
			  vm_cfg.dir);
	show_swaps("start");
	ktap_header(5);

	nshm = (uint64_t)shm_mb * VM_MB / VM_BLK;
	nR = nshm / 3;
	shm = vm_shm_create(nshm * VM_BLK, &shmid);
	if (!shm)
		ktap_skip_all("no shm segment");
	for (b = 0; b < nshm; b++)
		vm_fill_blk(shm + b * VM_BLK, SEED_SHM, b, 1);

	nfile = (uint64_t)file_mb * VM_MB / VM_BLK;
	nP = nfile * 3 / 5;
	nT = nfile - nP;
	snprintf(fpath, sizeof(fpath), "%s/shm_wb_race-%d", tmpfs,
		 (int)getpid());
	fd = open(fpath, O_RDWR | O_CREAT | O_TRUNC, 0600);
	buf = malloc(VM_BLK);
	if (fd < 0 || !buf)
		ktap_skip_all("no tmpfs file");
	vm_register_path(fpath);
	for (b = 0; b < nfile; b++) {
		vm_fill_blk(buf, SEED_FILE, b, 1);
		if (vm_pwrite_all(fd, buf, VM_BLK, b * VM_BLK))
			ktap_skip_all("cannot fill the tmpfs file");
	}
	ktap_diag("shm %ld MB (R %llu blocks), tmpfs %s %ld MB, hog %ld MB, "
		  "race %ld s", shm_mb, (unsigned long long)nR, fpath, file_mb,
		  hog_mb, race_s);

	for (i = 0; i < W_N; i++) {
		if (i == W_SWAP && !have_file) {
			pid[i] = 0;
			continue;
		}
		pid[i] = vm_fork();
		if (pid[i] < 0)
			ktap_skip_all("fork failed");
		if (pid[i] == 0) {
			switch (i) {
			case W_SHM0: case W_SHM1: shm_writer(i - W_SHM0);
			case W_FORK: forker();
			case W_LOCK: locker();
			case W_CYC: cycler();
			case W_TRUNC: truncator();
			case W_HOG0: case W_HOG1: hog(i - W_HOG0);
			case W_SWAP: swapper();
			}
			_exit(0);
		}
	}
	vm_phase("race");
	t0 = vm_now_ms();
	while (vm_now_ms() - t0 < race_s * 1000.0) {
		for (i = 0; i < W_N; i++) {
			int s;

			if (pid[i] <= 0)
				continue;
			if (waitpid(pid[i], &s, WNOHANG) == pid[i]) {
				vm_forget_child(pid[i]);
				pid[i] = -1;
				died++;
				snprintf(why + strlen(why),
					 sizeof(why) - strlen(why),
					 "%s %s %d; ", wname[i],
					 WIFSIGNALED(s) ? "signal" : "exit",
					 WIFSIGNALED(s) ? WTERMSIG(s) :
					 WEXITSTATUS(s));
			}
		}
		vm_progress("%.0f s: shm ops %ld, forks %ld, locks %ld, maps "
			    "%ld, truncs %ld, swapoff ok %ld eintr %ld err %ld"
			    ", pswpout %lld, errors %ld/%ld/%ld/%ld/%ld/%ld",
			    (vm_now_ms() - t0) / 1000, sh->shm_ops,
			    sh->rd_forks, sh->locks, sh->maps, sh->truncs,
			    sh->swapoff_ok, sh->swapoff_eintr,
			    sh->swapoff_err, vm_vmstat("pswpout"),
			    sh->err[0], sh->err[1], sh->err[3], sh->err[4],
			    sh->err[5], sh->err[6]);
		vm_sleep_ms(100);
	}
	vm_phase("stop");
	sh->stop = 1;
	for (i = 0; i < W_N; i++) {
		if (pid[i] <= 0) {
			st[i] = 0;
			continue;
		}
		if (vm_wait_timeout(pid[i], &st[i], NULL, 45000)) {
			hung++;
			snprintf(why + strlen(why), sizeof(why) - strlen(why),
				 "%s hung; ", wname[i]);
			vm_kill_group(pid[i], 0, wname[i]);
			continue;
		}
		if (!(WIFEXITED(st[i]) && WEXITSTATUS(st[i]) == 0)) {
			died++;
			snprintf(why + strlen(why), sizeof(why) - strlen(why),
				 "%s %s %d; ", wname[i],
				 WIFSIGNALED(st[i]) ? "signal" : "exit",
				 WIFSIGNALED(st[i]) ? WTERMSIG(st[i]) :
				 WEXITSTATUS(st[i]));
		}
	}
	vm_phase("final check");
	for (b = 0; b < nR; b++)
		check(E_SHM_FINAL, shm + b * VM_BLK, SEED_SHM, b, 1);

	shm_err = sh->err[E_SHM_W] + sh->err[E_SHM_R] + sh->err[E_SHM_FINAL];
	vm_fig_i("shm_ops", sh->shm_ops, "blocks");
	vm_fig_i("reader_forks", sh->rd_forks, "count");
	vm_fig_i("shm_locks", sh->locks, "count");
	vm_fig_i("shm_lock_errors", sh->lock_err, "count");
	vm_fig_i("maps", sh->maps, "count");
	vm_fig_i("file_ops", sh->file_ops, "blocks");
	vm_fig_i("truncs", sh->truncs, "count");
	vm_fig_i("truncs_unaligned", sh->unaligned, "count");
	vm_fig_i("hog_rounds", sh->hog_rounds, "count");
	vm_fig_i("swapoff_ok", sh->swapoff_ok, "count");
	vm_fig_i("swapoff_eintr", sh->swapoff_eintr, "count");
	vm_fig_i("swapoff_err", sh->swapoff_err, "count");
	vm_fig_i("swapoff_max_ms", sh->swapoff_maxms, "ms");
	vm_fig_i("pswpout", vm_vmstat("pswpout"), "pages");
	vm_fig_i("pswpin", vm_vmstat("pswpin"), "pages");
	vm_fig_i("oom_kills", vm_oom_kills() - oom0, "count");
	for (k = 0; k < E_NK; k++) {
		char key[64];

		snprintf(key, sizeof(key), "err_%ld", k);
		vm_fig_i(key, sh->err[k], "blocks");
		if (sh->err[k])
			ktap_diag("%s: %ld bad blocks, first: %s", ekind[k],
				  sh->err[k], sh->first[k]);
	}
	if (shm_err)
		ktap_fail(names[0], "%ld bad blocks (writer %ld, reader %ld, "
			  "final %ld, reader children failed %ld)", shm_err,
			  sh->err[E_SHM_W], sh->err[E_SHM_R],
			  sh->err[E_SHM_FINAL], sh->rd_fail);
	else
		ktap_ok(names[0], "%ld ops, %ld reader forks, %ld SHM_LOCKs",
			sh->shm_ops, sh->rd_forks, sh->locks);
	if (sh->err[E_FILE])
		ktap_fail(names[1], "%ld bad blocks", sh->err[E_FILE]);
	else
		ktap_ok(names[1], "%ld blocks, %ld maps", sh->file_ops,
			sh->maps);
	if (sh->err[E_TAIL_KEEP] + sh->err[E_TAIL_ZERO] + sh->err[E_TAIL_DATA])
		ktap_fail(names[2], "%ld below the cut, %ld past it not zero, "
			  "%ld after the fill (%ld truncs)",
			  sh->err[E_TAIL_KEEP], sh->err[E_TAIL_ZERO],
			  sh->err[E_TAIL_DATA], sh->truncs);
	else
		ktap_ok(names[2], "%ld truncs (%ld unaligned)", sh->truncs,
			sh->unaligned);
	ktap_result(!died && !hung, names[3], "%s%ld OOM kills",
		    why[0] ? why : "all ended; ", vm_oom_kills() - oom0);

	/* release everything, then swapoff both: a leaked entry loops */
	shmdt(shm);
	close(fd);
	unlink(fpath);
	vm_unregister_path(fpath);
	vm_sleep_ms(500);
	show_swaps("end, before swapoff");
	if (have_file) {
		long took = 0;
		int r = bounded_swapoff(swapfile, 30000, &took);

		vm_fig_i("end_swapoff_file_ms", took, "ms");
		if (r) {
			swap_ok = 0;
			ktap_diag("end: swapoff %s: %d after %ld ms", swapfile,
				  r, took);
		} else {
			unlink(swapfile);
			vm_unregister_path(swapfile);
		}
	}
	if (swapdisk[0]) {
		long took = 0;
		int r = bounded_swapoff(swapdisk, 30000, &took);

		vm_fig_i("end_swapoff_disk_ms", took, "ms");
		if (r) {
			swap_ok = 0;
			ktap_diag("end: swapoff %s: %d after %ld ms", swapdisk,
				  r, took);
		}
		if (r == 0 && swapon(swapdisk, 0) != 0)
			ktap_diag("end: swapon %s: %s", swapdisk,
				  strerror(errno));
	}
	show_swaps("end, after");
	ktap_result(swap_ok, names[4], "swapoff at the end %s",
		    swap_ok ? "released everything" : "did not finish");
	ktap_exit();
}
