// SPDX-License-Identifier: GPL-2.0
/*
 * many_vmas - scenario 4: many small MAP_SHARED mappings of one file in
 * many processes, under reclaim (the object-based rmap search problem:
 * to unmap one page the VM may walk every vma of the file).
 *
 * One file of N pages is mapped page by page, in reverse file order, into
 * one reserved area: neighbouring mappings have non-contiguous offsets so
 * none merge, and /proc/self/maps must show N of them.  K forked
 * processes inherit all N vmas; once started they touch every mapping
 * round after round (check the page's header, write their own slot word)
 * while an anonymous process allocates about -a MB, until the pressure has
 * all its memory and each made -r more rounds.  Reported: time to map,
 * fork and finish, the longest probe stall and swap/page traffic.
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
#include <sys/wait.h>

#include "vmshm.h"

static const char summary[] =
	"many_vmas: N one-page MAP_SHARED mappings of a file in K processes,\n"
	"touched under memory pressure";

static const char *const names[] = {
	"mappings created", "processes forked", "touch rounds under pressure",
	"data integrity", "cleanup", NULL
};

#define MAXPROC		256
#define SLOT0		16		/* first slot word in a block */
#define SEED		0x7a5e

struct ctl {
	volatile uint32_t go;
	volatile uint32_t stop;		/* checked between rounds */
	volatile uint32_t rounds[MAXPROC];
	volatile uint32_t errors[MAXPROC];
	volatile uint32_t bad_blk[MAXPROC];
	volatile uint32_t bad_got[MAXPROC];
	volatile uint32_t round_ms_max[MAXPROC];
};

static uint32_t slot_val(int k, uint32_t round, uint64_t blk)
{
	return vm_pat_base(0x5107u + k, blk, round);
}

/*
 * Block @blk must hold the file pattern except the slot words: slot k
 * holds what process k wrote in its last round, rounds[k] (or the round
 * after, if it was killed in the middle of one).
 */
static long check_block(const uint32_t *p, uint64_t blk, int nproc,
			const uint32_t *rounds, const char *what, long nbad)
{
	uint32_t base = vm_pat_base(SEED, blk, 0), e;
	int w, k;

	for (w = 0; w < VM_BLK_WORDS; w++) {
		k = w - SLOT0;
		if (k >= 0 && k < nproc) {
			e = rounds[k] ? slot_val(k, rounds[k], blk) :
			    base + (uint32_t)w * 0x9e3779b9u;
			if (p[w] == e ||
			    p[w] == slot_val(k, rounds[k] + 1, blk))
				continue;
		} else if (w == 0) {
			e = VM_MAGIC ^ (uint32_t)blk;
		} else if (w == 1) {
			e = 0;
		} else if (w == 2) {
			e = SEED;
		} else {
			e = base + (uint32_t)w * 0x9e3779b9u;
		}
		if (p[w] == e)
			continue;
		if (nbad < 5)
			ktap_diag("%s: mismatch at file offset 0x%llx: "
				  "expected 0x%08x got 0x%08x", what,
				  (unsigned long long)blk * VM_BLK + w * 4,
				  e, p[w]);
		return 1;
	}
	return 0;
}

/* touch every mapping, round after round, until told to stop */
static void toucher(char *area, long n, int k, struct ctl *ctl)
{
	uint32_t r;
	long j;

	while (!ctl->go)
		vm_sleep_ms(1);
	for (r = 1; !ctl->stop; r++) {
		double t0 = vm_now_ms(), ms;

		for (j = 0; j < n; j++) {
			volatile uint32_t *p =
				(volatile uint32_t *)(area + j * VM_BLK);
			uint64_t blk = n - 1 - j;

			if (p[0] != (VM_MAGIC ^ (uint32_t)blk)) {
				if (!ctl->errors[k]) {
					ctl->bad_blk[k] = (uint32_t)blk;
					ctl->bad_got[k] = p[0];
				}
				ctl->errors[k]++;
			}
			p[SLOT0 + k] = slot_val(k, r, blk);
		}
		ms = vm_now_ms() - t0;
		if (ms > ctl->round_ms_max[k])
			ctl->round_ms_max[k] = (uint32_t)ms;
		ctl->rounds[k] = r;
	}
	_exit(0);
}

static long count_maps(const char *path)
{
	char line[1024];
	long n = 0;
	FILE *f;

	f = fopen("/proc/self/maps", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *s = strchr(line, '/');

		if (s) {
			s[strcspn(s, "\n")] = '\0';
			if (!strcmp(s, path))
				n++;
		}
	}
	fclose(f);
	return n;
}

static int make_file(int fd, long n)
{
	static uint32_t b[VM_BLK_WORDS * 64];
	long i, j, chunk;

	for (i = 0; i < n; i += 64) {
		chunk = VM_MIN(64L, n - i);
		for (j = 0; j < chunk; j++)
			vm_fill_blk(b + j * VM_BLK_WORDS, SEED, i + j, 0);
		if (vm_pwrite_all(fd, b, chunk * VM_BLK, (off_t)i * VM_BLK))
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	long nvma = -1, nproc = 8, rounds = 3, press_mb = -1, time_s = 600;
	const struct vm_opt opts[] = {
		{ 'n', VM_OPT_LONG, &nvma, "N",
		  "mappings (default min(10000, mem/4 in pages, "
		  "max_map_count - 1000))" },
		{ 'k', VM_OPT_LONG, &nproc, "K",
		  "processes sharing them (default 8, max 256)" },
		{ 'r', VM_OPT_LONG, &rounds, "R",
		  "rounds each process makes once the pressure has all its "
		  "memory (default 3)" },
		{ 'a', VM_OPT_LONG, &press_mb, "MB",
		  "anonymous pressure (default mem)" },
		{ 't', VM_OPT_LONG, &time_s, "SEC",
		  "bound of the touch phase (default 600)" },
		{ 0, 0, NULL, NULL, NULL },
	};
	struct vm_vmstat_snap s0, s1;
	struct rusage ru, sum;
	struct vm_probe probe;
	struct vm_hog hog;
	struct ctl *ctl;
	char path[512];
	pid_t pids[MAXPROC];
	uint64_t press_bytes, held;
	long long maxmap;
	double t0, map_ms, fork_ms, touch_ms = 0;
	int fd, k, nforked = 0, ok, hog_on = 0, tmpfs;
	long j, maps, nbad = 0, nalive;
	uint32_t errs = 0, round_max = 0, min_rounds = UINT32_MAX;
	uint32_t min_base = UINT32_MAX;
	static uint32_t base[MAXPROC], rdone[MAXPROC];
	int press_done, died = 0, timed_out = 0;
	double t_stop = 0;
	char *area;

	vm_init("many_vmas", argc, argv, opts, summary, 1200);
	maxmap = vm_proc_long("/proc/sys/vm/max_map_count");
	if (maxmap <= 0)
		maxmap = 65536;		/* 2.6.3: MAX_MAP_COUNT, no sysctl */
	if (nvma < 0) {
		nvma = VM_MIN(10000L,
			      (long)(vm_mem_bytes() / 4 / VM_BLK));
		nvma = VM_MIN(nvma, (long)maxmap - 1000);
	}
	if (press_mb < 0)
		press_mb = vm_cfg.mem_mb;
	if (nvma < 1 || nproc < 1 || nproc > MAXPROC || rounds < 1) {
		fprintf(stderr, "many_vmas: bad -n, -k or -r\n");
		return 1;
	}
	if (nvma > maxmap - 100)
		nvma = (long)maxmap - 100;

	ktap_header(5);
	ktap_names(names);
	vm_fig_i("mem_mb", vm_cfg.mem_mb, "MB");
	vm_fig_i("nvmas", nvma, "count");
	vm_fig_i("procs", nproc, "count");
	vm_fig_i("rounds", rounds, "count");
	vm_fig_i("max_map_count", maxmap, "count");
	vm_fig_f("file_mb", (double)nvma * VM_BLK / VM_MB, "MB");

	ctl = mmap(NULL, sizeof(*ctl), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ctl == MAP_FAILED) {
		ktap_fail(names[0], "mmap: %s", strerror(errno));
		ktap_exit();
	}

	vm_phase("create file and mappings");
	tmpfs = vm_is_tmpfs(vm_cfg.dir) == 1;
	snprintf(path, sizeof(path), "%s/vmshm_vmas.%d", vm_cfg.dir,
		 (int)getpid());
	fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0600);
	if (fd < 0) {
		ktap_fail(names[0], "open %s: %s", path, strerror(errno));
		ktap_exit();
	}
	vm_register_path(path);
	if (make_file(fd, nvma) != 0) {
		ktap_fail(names[0], "write %s: %s", path, strerror(errno));
		goto out_file;
	}
	ktap_diag("file %s (%s)", path, tmpfs ? "tmpfs" : "not tmpfs");
	t0 = vm_now_ms();
	area = mmap(NULL, (size_t)nvma * VM_BLK, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (area == MAP_FAILED) {
		ktap_fail(names[0], "reserve %ld pages: %s", nvma,
			  strerror(errno));
		goto out_file;
	}
	for (j = 0; j < nvma; j++) {
		void *p = mmap(area + j * VM_BLK, VM_BLK,
			       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
			       fd, (off_t)(nvma - 1 - j) * VM_BLK);

		if (p == MAP_FAILED) {
			ktap_fail(names[0], "mapping %ld: %s", j,
				  strerror(errno));
			munmap(area, (size_t)nvma * VM_BLK);
			goto out_file;
		}
		if (!(j & 1023))
			vm_progress("mapping: %ld of %ld", j, nvma);
	}
	map_ms = vm_now_ms() - t0;
	vm_fig_f("map_s", map_ms / 1000, "s");
	maps = count_maps(path);
	vm_fig_i("maps_lines", maps, "count");
	ktap_result(maps == nvma, names[0], "%ld vmas of %s in /proc/self/maps"
		    ", wanted %ld", maps, path, nvma);

	vm_phase("fork");
	t0 = vm_now_ms();
	for (k = 0; k < nproc; k++) {
		pids[k] = vm_fork();
		if (pids[k] < 0) {
			ktap_diag("fork %d: %s", k, strerror(errno));
			break;
		}
		if (pids[k] == 0)
			toucher(area, nvma, k, ctl);
		nforked++;
	}
	fork_ms = vm_now_ms() - t0;
	vm_fig_f("fork_s", fork_ms / 1000, "s");
	vm_fig_f("fork_ms_per_proc", nforked ? fork_ms / nforked : 0, "ms");
	ktap_result(nforked == nproc, names[1], "%d of %ld forked", nforked,
		    nproc);

	vm_phase("touch under pressure");
	if (vm_probe_start(&probe, 10) != 0)
		ktap_diag("no latency probe");
	held = tmpfs ? (uint64_t)nvma * VM_BLK : 0;
	press_bytes = vm_cap_pressure((uint64_t)press_mb * VM_MB, held);
	vm_fig_i("pressure_mb", (long long)(press_bytes / VM_MB), "MB");
	vm_vmstat_snap(&s0);
	t0 = vm_now_ms();
	if (press_bytes && vm_hog_start(&hog, press_bytes) == 0)
		hog_on = 1;
	ctl->go = 1;
	memset(&sum, 0, sizeof(sum));
	/*
	 * Until the pressure has all its memory and every process has made
	 * -r more rounds since then; a process never stops mid-round.
	 */
	nalive = nforked;
	press_done = !hog_on;
	for (k = 0; k < nforked; k++)
		base[k] = 0;
	while (nalive > 0) {
		uint32_t minr = UINT32_MAX;
		int enough = press_done;

		if (!press_done && vm_hog_done(&hog)) {
			if (vm_hog_done(&hog) < 0)
				ktap_diag("pressure failed");
			press_done = 1;
			for (k = 0; k < nforked; k++)
				base[k] = ctl->rounds[k];
			enough = 1;
		}
		for (k = 0; k < nforked; k++) {
			int st, rc;

			if (ctl->rounds[k] - base[k] < minr)
				minr = ctl->rounds[k] - base[k];
			if (ctl->rounds[k] < base[k] + rounds)
				enough = 0;
			if (pids[k] <= 0)
				continue;
			memset(&ru, 0, sizeof(ru));
			rc = vm_wait_timeout(pids[k], &st, &ru, 0);
			if (rc == 0) {
				if (!WIFEXITED(st) || WEXITSTATUS(st) ||
				    !ctl->stop) {
					ktap_diag("process %d ended early, "
						  "status 0x%x", k, st);
					died++;
				}
				vm_rusage_add(&sum, &ru);
				pids[k] = 0;
				nalive--;
			}
		}
		if (enough && !ctl->stop) {
			touch_ms = vm_now_ms() - t0;
			ctl->stop = 1;
			t_stop = vm_now_ms();
		}
		if (ctl->stop && vm_now_ms() - t_stop > 60000) {
			ktap_diag("processes did not stop within 60 s");
			break;
		}
		if (!ctl->stop && vm_now_ms() - t0 > time_s * 1000.0) {
			ktap_diag("touch phase hit the %ld s bound", time_s);
			timed_out = 1;
			break;
		}
		if (!nalive)
			break;
		vm_progress("rounds since the pressure was satisfied (slowest) "
			    "%u of %ld, pressure %llu MB, stall %.0f ms",
			    press_done ? minr : 0, rounds,
			    hog_on ? (unsigned long long)
			    (vm_hog_touched(&hog) / VM_MB) : 0ULL,
			    vm_probe_max_ms(&probe));
		vm_sleep_ms(20);
	}
	if (!ctl->stop)
		touch_ms = vm_now_ms() - t0;
	vm_vmstat_snap(&s1);
	ctl->stop = 1;
	for (k = 0; k < nforked; k++) {
		if (pids[k] > 0) {
			kill(pids[k], SIGKILL);
			vm_wait(pids[k], NULL, &ru);
			vm_rusage_add(&sum, &ru);
		}
	}
	if (hog_on) {
		vm_fig_f("pressure_ms", vm_hog_done_ms(&hog), "ms");
		vm_hog_stop(&hog, NULL);
	}
	vm_probe_stop(&probe);

	ok = nforked == nproc && !died && !timed_out;
	for (k = 0; k < nforked; k++) {
		rdone[k] = ctl->rounds[k];
		if (rdone[k] < base[k] + rounds)
			ok = 0;
		if (rdone[k] < min_rounds)
			min_rounds = rdone[k];
		if (base[k] < min_base)
			min_base = base[k];
		errs += ctl->errors[k];
		if (ctl->round_ms_max[k] > round_max)
			round_max = ctl->round_ms_max[k];
		if (ctl->errors[k])
			ktap_diag("process %d: %u bad headers, first at file "
				  "offset 0x%llx: got 0x%08x", k,
				  ctl->errors[k],
				  (unsigned long long)ctl->bad_blk[k] *
				  VM_BLK, ctl->bad_got[k]);
	}
	vm_fig_f("touch_s", touch_ms / 1000, "s");
	vm_fig_i("rounds_min", nforked ? min_rounds : 0, "count");
	vm_fig_i("rounds_before_pressure_done", nforked ? min_base : 0,
		 "count");
	vm_fig_f("round_max_s", round_max / 1000.0, "s");
	vm_fig_f("probe_max_ms", vm_probe_max_ms(&probe), "ms");
	vm_fig_i("pswpout", vm_vmstat_delta(&s0, &s1, VMS_PSWPOUT), "pages");
	vm_fig_i("pswpin", vm_vmstat_delta(&s0, &s1, VMS_PSWPIN), "pages");
	vm_fig_i("pgpgin", vm_vmstat_delta(&s0, &s1, VMS_PGPGIN), "kB");
	vm_fig_i("pgpgout", vm_vmstat_delta(&s0, &s1, VMS_PGPGOUT), "kB");
	vm_fig_i("pgmajfault", vm_vmstat_delta(&s0, &s1, VMS_PGMAJFAULT),
		 "count");
	vm_fig_i("procs_minflt", sum.ru_minflt, "count");
	vm_fig_i("procs_majflt", sum.ru_majflt, "count");
	ktap_result(ok, names[2], ok ? NULL : "not every process made its "
		    "rounds after the pressure was satisfied");

	vm_phase("verify");
	for (j = 0; j < nvma; j++)
		nbad += check_block((uint32_t *)(area + j * VM_BLK),
				    nvma - 1 - j, nforked, rdone, "mapping",
				    nbad);
	for (j = 0; j < nvma; j++) {
		static uint32_t b[VM_BLK_WORDS];

		if (vm_pread_all(fd, b, VM_BLK, (off_t)j * VM_BLK)) {
			ktap_diag("pread: %s", strerror(errno));
			nbad++;
			break;
		}
		nbad += check_block(b, j, nforked, rdone, "file", nbad);
	}
	vm_fig_i("bad_blocks", nbad + errs, "count");
	ktap_result(!nbad && !errs, names[3], NULL);

	vm_phase("cleanup");
	if (munmap(area, (size_t)nvma * VM_BLK) != 0)
		ktap_diag("munmap: %s", strerror(errno));
out_file:
	ok = vm_nchildren() == 0;
	vm_kill_all();
	close(fd);
	if (unlink(path) != 0) {
		ktap_diag("unlink %s: %s", path, strerror(errno));
		ok = 0;
	}
	vm_unregister_path(path);
	/* fill in the lines an early failure skipped */
	while (ktap_pending() > 1)
		ktap_skip(names[5 - ktap_pending()], "earlier failure");
	ktap_result(ok, names[4], NULL);
	ktap_exit();
}
