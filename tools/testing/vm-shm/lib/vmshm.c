// SPDX-License-Identifier: GPL-2.0
/*
 * vmshm.c - helpers shared by the vm-shm testcases (see vmshm.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ipc.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/times.h>
#include <sys/wait.h>

#include "vmshm.h"

struct vm_common vm_cfg;
const char *vm_prog = "vmshm";
long vm_pagesize = 4096;
int vm_is_child;

/* ------------------------------------------------------------------ */
/* KTAP state                                                          */

static int ktap_planned;
static volatile int ktap_next = 1;
static volatile int ktap_npass, ktap_nfail, ktap_nskip;
static const char *const *ktap_namev;
static const char *volatile vm_cur_phase = "start";

void ktap_header(int n)
{
	ktap_planned = n;
	printf("KTAP version 1\n1..%d\n", n);
	fflush(stdout);
}

void ktap_names(const char *const *names)
{
	ktap_namev = names;
}

void vm_phase(const char *what)
{
	vm_cur_phase = what;
}

static void ktap_vdiag(const char *prefix, const char *fmt, va_list ap)
{
	char buf[1024];
	char *s, *nl;

	vsnprintf(buf, sizeof(buf), fmt, ap);
	/* every line of a multi-line message stays a diagnostic */
	for (s = buf; *s; s = nl + 1) {
		nl = strchr(s, '\n');
		if (nl)
			*nl = '\0';
		if (prefix)
			printf("# %s: %s\n", prefix, s);
		else
			printf("# %s\n", s);
		if (!nl)
			break;
	}
}

void ktap_diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ktap_vdiag(NULL, fmt, ap);
	va_end(ap);
}

static void ktap_line(int kind, const char *name, const char *fmt,
		      va_list ap)
{
	char reason[512] = "";
	int n = ktap_next;

	if (kind == 2) {
		if (fmt)
			vsnprintf(reason, sizeof(reason), fmt, ap);
		/* the reason must stay on one line */
		reason[strcspn(reason, "\n")] = '\0';
		printf("ok %d %s # SKIP %s\n", n, name, reason);
		ktap_nskip++;
	} else {
		if (fmt && *fmt)
			ktap_vdiag(name, fmt, ap);
		printf("%s %d %s\n", kind == 0 ? "ok" : "not ok", n, name);
		if (kind == 0)
			ktap_npass++;
		else
			ktap_nfail++;
	}
	ktap_next = n + 1;
	fflush(stdout);
}

void ktap_ok(const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ktap_line(0, name, fmt, ap);
	va_end(ap);
}

void ktap_fail(const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ktap_line(1, name, fmt, ap);
	va_end(ap);
}

void ktap_skip(const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ktap_line(2, name, fmt, ap);
	va_end(ap);
}

void ktap_result(int pass, const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ktap_line(pass ? 0 : 1, name, fmt, ap);
	va_end(ap);
}

int ktap_pending(void)
{
	int n = ktap_planned - (ktap_next - 1);

	return n > 0 ? n : 0;
}

int ktap_totals(void)
{
	int missing = ktap_planned - (ktap_next - 1);

	if (missing > 0) {
		ktap_diag("%d planned tests did not report", missing);
		ktap_nfail += missing;
	}
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0\n",
	       ktap_npass, ktap_nfail, ktap_nskip);
	fflush(stdout);
	if (ktap_nfail)
		return 1;
	if (ktap_nskip && !ktap_npass)
		return 4;
	return 0;
}

static char vm_paths[16][256];

static void vm_unlink_paths(void)
{
	unsigned int i;

	for (i = 0; i < VM_ARRAY_SIZE(vm_paths); i++)
		if (vm_paths[i][0])
			unlink(vm_paths[i]);
}

void ktap_exit(void)
{
	int rc;

	vm_kill_all();
	rc = ktap_totals();
	exit(rc);
}

void ktap_skip_all(const char *reason)
{
	printf("KTAP version 1\n1..0 # SKIP %s\n", reason);
	printf("# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:0 error:0\n");
	fflush(stdout);
	exit(4);
}

/* ------------------------------------------------------------------ */
/* figures and progress                                                */

static void vm_fmt_num(char *buf, size_t len, double v)
{
	double a = v < 0 ? -v : v;

	if (a >= 1e15 || a == (double)(long long)a)
		snprintf(buf, len, "%.0f", v);
	else if (a < 0.01)
		snprintf(buf, len, "%.6f", v);
	else
		snprintf(buf, len, "%.3f", v);
}

void vm_fig_i(const char *key, long long v, const char *unit)
{
	printf("# fig: %s.%s %lld %s\n", vm_prog, key, v, unit);
}

void vm_fig_f(const char *key, double v, const char *unit)
{
	char num[64];

	vm_fmt_num(num, sizeof(num), v);
	printf("# fig: %s.%s %s %s\n", vm_prog, key, num, unit);
}

void vm_progress(const char *fmt, ...)
{
	static double last = -1e9;
	double now = vm_now_ms();
	char buf[512];
	va_list ap;

	if (now - last < 2000)
		return;
	last = now;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	buf[strcspn(buf, "\n")] = '\0';
	printf("# progress: %s\n", buf);
	fflush(stdout);
}

/* ------------------------------------------------------------------ */
/* time                                                                */

/*
 * 2.6.3 does not normalise wall_to_monotonic, so CLOCK_MONOTONIC can come
 * back with a negative tv_nsec.  Normalise it; if the clock is missing
 * use gettimeofday for good.  Under TCG 2.6.3's clock can also leap by
 * about 2^32 us and then stand still, while jiffies go on: so the time
 * is built from steps, and a step of the clock more than a second away
 * from the step of times() (jiffies) is replaced by the latter.  Never
 * goes backwards.
 */
static double vm_raw_ms(int *ok)
{
	static int use_tod = -1;
	struct timespec ts;
	struct timeval tv;
	long long sec, nsec;

	*ok = 0;
	if (use_tod != 1) {
		if (clock_gettime(CLOCK_MONOTONIC, &ts) == 0)
			use_tod = 0;
		else if (use_tod == -1)
			use_tod = 1;
		else
			return 0;	/* worked before: keep the last value */
	}
	if (use_tod == 1) {
		if (gettimeofday(&tv, NULL) != 0)
			return 0;
		sec = tv.tv_sec;
		nsec = (long long)tv.tv_usec * 1000;
	} else {
		sec = ts.tv_sec;
		nsec = ts.tv_nsec;
	}
	while (nsec < 0) {
		nsec += 1000000000LL;
		sec--;
	}
	while (nsec >= 1000000000LL) {
		nsec -= 1000000000LL;
		sec++;
	}
	*ok = 1;
	return (double)sec * 1e3 + (double)nsec / 1e6;
}

double vm_now_ms(void)
{
	static double last, raw_last;
	static unsigned long jif_last;
	static int started, jif_ok;
	static long tck;
	double raw, step, jstep;
	unsigned long jif;
	clock_t j;
	int ok;

	raw = vm_raw_ms(&ok);
	if (!ok)
		return last;
	if (!tck)
		tck = sysconf(_SC_CLK_TCK) > 0 ? sysconf(_SC_CLK_TCK) : 100;
	/* 2.6.3 starts jiffies 5 minutes short of a wrap: -1 may be real */
	j = times(NULL);
	jif = (unsigned long)j;
	if (!started) {
		started = 1;
		last = raw;
	} else {
		step = raw - raw_last;
		if (jif_ok && j != (clock_t)-1) {
			jstep = (double)(jif - jif_last) * 1000.0 / tck;
			if (step - jstep > 1000.0 || jstep - step > 1000.0)
				step = jstep;
		}
		if (step > 0)
			last += step;
	}
	raw_last = raw;
	jif_ok = j != (clock_t)-1;
	jif_last = jif;
	return last;
}

void vm_sleep_ms(long ms)
{
	struct timespec ts, rem;

	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000L;
	while (nanosleep(&ts, &rem) != 0 && errno == EINTR)
		ts = rem;
}

/* ------------------------------------------------------------------ */
/* /proc readers                                                       */

static long long vm_keyed(const char *path, const char *key, int colon)
{
	size_t klen = strlen(key);
	char line[512];
	long long v = -1;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, klen))
			continue;
		if (colon ? line[klen] != ':' : line[klen] != ' ')
			continue;
		v = strtoll(line + klen + 1, NULL, 10);
		break;
	}
	fclose(f);
	return v;
}

long long vm_meminfo_kb(const char *key)
{
	return vm_keyed("/proc/meminfo", key, 1);
}

long long vm_lowfree_kb(void)
{
	long long v = vm_meminfo_kb("LowFree");

	return v >= 0 ? v : vm_meminfo_kb("MemFree");
}

long long vm_vmstat(const char *key)
{
	return vm_keyed("/proc/vmstat", key, 0);
}

long long vm_status_kb(const char *key)
{
	return vm_keyed("/proc/self/status", key, 1);
}

long long vm_pid_status_kb(pid_t pid, const char *key)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	return vm_keyed(path, key, 1);
}

#if defined(__i386__) || defined(__x86_64__)
#include <sys/io.h>

static int vm_cmos(int reg)
{
	outb(reg, 0x70);
	return inb(0x71);
}

static int vm_bcd(int v)
{
	return (v & 15) + 10 * (v >> 4);
}

long vm_cmos_seconds(void)
{
	static int ok = -1;
	int tries, s, m, h, s2, b, pm;

	if (ok < 0)
		ok = ioperm(0x70, 2, 1) == 0;
	if (!ok)
		return -1;
	for (tries = 0; tries < 1000; tries++) {
		if (vm_cmos(0x0a) & 0x80) {	/* update in progress */
			usleep(100);
			continue;
		}
		s = vm_cmos(0x00);
		m = vm_cmos(0x02);
		h = vm_cmos(0x04);
		s2 = vm_cmos(0x00);
		if (s != s2)
			continue;
		b = vm_cmos(0x0b);
		pm = h & 0x80;
		h &= 0x7f;
		if (!(b & 0x04)) {		/* BCD */
			s = vm_bcd(s);
			m = vm_bcd(m);
			h = vm_bcd(h);
		}
		if (!(b & 0x02))		/* 12-hour mode */
			h = h % 12 + (pm ? 12 : 0);
		if (s < 60 && m < 60 && h < 24)
			return (long)h * 3600 + m * 60 + s;
	}
	return -1;
}
#else
long vm_cmos_seconds(void)
{
	return -1;
}
#endif

int vm_oom_killed_pids(pid_t *pids, int max)
{
	static char buf[1 << 17];
	const char *p, *key = "Out of Memory: Killed process ";
	int len, n = 0;

	len = klogctl(3, buf, sizeof(buf) - 1);	/* read all, keep */
	if (len < 0)
		return -1;
	buf[len] = 0;
	/* the last @max of them: the ring drops the oldest first */
	for (p = buf; (p = strstr(p, key)); p++) {
		if (n == max) {
			memmove(pids, pids + 1, (max - 1) * sizeof(*pids));
			n--;
		}
		pids[n++] = (pid_t)atol(p + strlen(key));
	}
	return n;
}

long vm_oom_kills(void)
{
	static char buf[1 << 17];
	const char *p;
	long n = 0;
	int len;

	len = klogctl(3, buf, sizeof(buf) - 1);	/* read all, keep */
	if (len < 0)
		return -1;
	buf[len] = 0;
	for (p = buf; (p = strstr(p, "Out of Memory: Killed")); p++)
		n++;
	return n;
}

/* the start of a small file, NUL-terminated; its length or -1 */
static ssize_t vm_read_head(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return n;
}

long long vm_proc_long(const char *path)
{
	char buf[64];
	unsigned long long v;

	if (vm_read_head(path, buf, sizeof(buf)) < 0)
		return -1;
	errno = 0;
	v = strtoull(buf, NULL, 10);
	if (errno)
		return LLONG_MAX;
	return v > (unsigned long long)LLONG_MAX ? LLONG_MAX : (long long)v;
}

long long vm_proc_stat_ticks(const char *path)
{
	unsigned long long ut, st;
	char buf[512], *p;

	if (vm_read_head(path, buf, sizeof(buf)) < 0)
		return -1;
	p = strrchr(buf, ')');		/* the command may hold spaces */
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u "
			 "%*u %llu %llu", &ut, &st) != 2)
		return -1;
	return (long long)(ut + st);
}

long vm_clk_tck(void)
{
	long t = sysconf(_SC_CLK_TCK);

	return t > 0 ? t : 100;
}

int vm_slab(const char *name, long long *active_bytes,
	    long long *total_bytes, long long *pages)
{
	char line[1024], cname[128];
	long long act, num, osz, operslab, ppslab, aslabs, nslabs;
	int found = -1;
	char *s;
	FILE *f;

	if (active_bytes)
		*active_bytes = -1;
	if (total_bytes)
		*total_bytes = -1;
	if (pages)
		*pages = -1;
	f = fopen("/proc/slabinfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s %lld %lld %lld %lld %lld", cname, &act,
			   &num, &osz, &operslab, &ppslab) != 6)
			continue;
		if (strcmp(cname, name))
			continue;
		if (active_bytes)
			*active_bytes = act * osz;
		if (total_bytes)
			*total_bytes = num * osz;
		s = strstr(line, "slabdata");
		if (pages && s &&
		    sscanf(s, "slabdata %lld %lld", &aslabs, &nslabs) == 2)
			*pages = nslabs * ppslab;
		found = 0;
		break;
	}
	fclose(f);
	return found;
}

static const char *const vms_names[VMS_N] = {
	"pswpin", "pswpout", "pgpgin", "pgpgout", "pgfault", "pgmajfault",
};

void vm_vmstat_snap(struct vm_vmstat_snap *s)
{
	char line[256];
	size_t len;
	FILE *f;
	int i;

	for (i = 0; i < VMS_N; i++)
		s->v[i] = -1;
	f = fopen("/proc/vmstat", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		for (i = 0; i < VMS_N; i++) {
			len = strlen(vms_names[i]);
			if (!strncmp(line, vms_names[i], len) &&
			    line[len] == ' ') {
				s->v[i] = strtoll(line + len + 1, NULL, 10);
				break;
			}
		}
	}
	fclose(f);
}

long long vm_vmstat_delta(const struct vm_vmstat_snap *a,
			  const struct vm_vmstat_snap *b, int idx)
{
	if (a->v[idx] < 0 || b->v[idx] < 0)
		return -1;
	return b->v[idx] - a->v[idx];
}

/* ------------------------------------------------------------------ */
/* memory budget                                                       */

uint64_t vm_mem_bytes(void)
{
	return (uint64_t)vm_cfg.mem_mb * VM_MB;
}

uint64_t vm_reserve_bytes(void)
{
	long long total = vm_meminfo_kb("MemTotal");
	uint64_t r = 16 * VM_MB;

	if (total > 0 && (uint64_t)total * VM_KB / 8 > r)
		r = (uint64_t)total * VM_KB / 8;
	return r;
}

uint64_t vm_avail_bytes(uint64_t held)
{
	long long mfree = vm_meminfo_kb("MemFree");
	long long buf = vm_meminfo_kb("Buffers");
	long long cached = vm_meminfo_kb("Cached");
	long long sfree = vm_meminfo_kb("SwapFree");
	uint64_t have, need;

	have = (uint64_t)VM_MAX(mfree, 0LL) + VM_MAX(buf, 0LL) +
	       VM_MAX(cached, 0LL) + VM_MAX(sfree, 0LL);
	have *= VM_KB;
	need = held + vm_reserve_bytes();
	return have > need ? have - need : 0;
}

uint64_t vm_cap_pressure(uint64_t bytes, uint64_t held)
{
	uint64_t avail = vm_avail_bytes(held);

	if (bytes <= avail)
		return bytes;
	ktap_diag("pressure capped from %llu to %llu MB (memory + free swap)",
		  (unsigned long long)(bytes / VM_MB),
		  (unsigned long long)(avail / VM_MB));
	return avail;
}

uint64_t vm_vsize_cap(uint64_t bytes)
{
	if (sizeof(void *) == 4 && bytes > 1536 * VM_MB)
		return 1536 * VM_MB;
	return bytes;
}

/* ------------------------------------------------------------------ */
/* files                                                               */

#define VM_TMPFS_MAGIC	0x01021994
#define VM_RAMFS_MAGIC	0x858458f6

int vm_is_tmpfs(const char *dir)
{
	struct statfs sf;

	if (statfs(dir, &sf) != 0)
		return -1;
	if ((unsigned long)sf.f_type == VM_TMPFS_MAGIC)
		return 1;
	if ((unsigned long)sf.f_type == VM_RAMFS_MAGIC)
		return 2;
	return 0;
}

const char *vm_find_tmpfs(const char *pref)
{
	const char *cand[] = { pref, vm_cfg.dir, "/dev/shm", "/tmp",
			       "/run/shm" };
	unsigned int i;

	for (i = 0; i < VM_ARRAY_SIZE(cand); i++) {
		if (!cand[i])
			continue;
		if (vm_is_tmpfs(cand[i]) == 1 && access(cand[i], W_OK) == 0)
			return cand[i];
	}
	return NULL;
}

uint64_t vm_fs_avail(const char *dir)
{
	struct statvfs sv;

	if (statvfs(dir, &sv) != 0)
		return 0;
	return (uint64_t)sv.f_bavail * sv.f_frsize;
}

void vm_register_path(const char *path)
{
	unsigned int i;

	for (i = 0; i < VM_ARRAY_SIZE(vm_paths); i++) {
		if (!vm_paths[i][0]) {
			snprintf(vm_paths[i], sizeof(vm_paths[i]), "%s", path);
			return;
		}
	}
}

void vm_unregister_path(const char *path)
{
	unsigned int i;

	for (i = 0; i < VM_ARRAY_SIZE(vm_paths); i++)
		if (!strcmp(vm_paths[i], path))
			vm_paths[i][0] = '\0';
}

int vm_scratch_open(const char *dir, const char *tag, long n, char *path,
		    size_t len)
{
	int fd;

	if (n < 0)
		snprintf(path, len, "%s/vmshm-%s-%s-%d", dir, vm_prog, tag,
			 (int)getpid());
	else
		snprintf(path, len, "%s/vmshm-%s-%s-%d-%ld", dir, vm_prog, tag,
			 (int)getpid(), n);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd >= 0)
		vm_register_path(path);
	return fd;
}

void vm_scratch_close(int fd, const char *path)
{
	close(fd);
	unlink(path);
	vm_unregister_path(path);
}

char *vm_scratch_map(const char *dir, const char *tag, long n,
		     uint64_t file_bytes, uint64_t map_bytes, char *path,
		     size_t len, int *fdp)
{
	char *map;
	int e, fd;

	fd = vm_scratch_open(dir, tag, n, path, len);
	if (fd < 0)
		return NULL;
	map = MAP_FAILED;
	if (ftruncate(fd, (off_t)file_bytes) == 0)
		map = mmap(NULL, map_bytes, PROT_READ | PROT_WRITE,
			   MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		e = errno;
		vm_scratch_close(fd, path);
		errno = e;
		return NULL;
	}
	*fdp = fd;
	return map;
}

void vm_remap_probe(const char *dir)
{
	char path[256], *m;
	int e, fd;

	m = vm_scratch_map(dir, "probe", -1, 2 * VM_BLK, 2 * VM_BLK, path,
			   sizeof(path), &fd);
	if (!m)
		ktap_skip_all("cannot make and map a file for remap_file_pages");
	if (syscall(SYS_remap_file_pages, m, VM_BLK, 0, 1UL, 0)) {
		e = errno;
		vm_scratch_close(fd, path);
		ktap_skip_all(e == ENOSYS ? "no remap_file_pages" :
			      "remap_file_pages refused the file");
	}
	munmap(m, 2 * VM_BLK);
	vm_scratch_close(fd, path);
}

int vm_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

int vm_pread_all(int fd, void *buf, size_t len, off_t off)
{
	char *p = buf;
	ssize_t n;

	while (len) {
		n = pread(fd, p, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0) {
			errno = EIO;
			return -1;
		}
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

int vm_pwrite_all(int fd, const void *buf, size_t len, off_t off)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = pwrite(fd, p, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* SysV shm                                                            */

static void vm_raise_sysctl(const char *path, unsigned long long want)
{
	long long cur = vm_proc_long(path);
	char buf[32];
	int fd, len;

	if (cur < 0 || (unsigned long long)cur >= want)
		return;
	fd = open(path, O_WRONLY);
	if (fd < 0) {
		ktap_diag("%s is %lld, need %llu, cannot raise it: %s", path,
			  cur, want, strerror(errno));
		return;
	}
	len = snprintf(buf, sizeof(buf), "%llu\n", want);
	if (write(fd, buf, len) != len)
		ktap_diag("raising %s to %llu failed: %s", path, want,
			  strerror(errno));
	else
		ktap_diag("raised %s from %lld to %llu", path, cur, want);
	close(fd);
}

void *vm_shm_create(uint64_t bytes, int *idp)
{
	uint64_t pages = (bytes + vm_pagesize - 1) / vm_pagesize;
	long long all;
	int id, err;
	void *p;

	if (bytes != (size_t)bytes) {
		errno = ENOMEM;
		ktap_diag("shm segment of %llu bytes does not fit size_t",
			  (unsigned long long)bytes);
		return NULL;
	}
	/*
	 * 2.6.3 defaults to SHMMAX 32 MB: raise it when we may, and SHMALL,
	 * the pages of all segments together, to what memory and swap can
	 * hold, since a program may create several (shm_swap_storm on a
	 * guest of many GB)
	 */
	all = (vm_meminfo_kb("MemTotal") + vm_meminfo_kb("SwapTotal")) *
	      1024 / vm_pagesize;
	vm_raise_sysctl("/proc/sys/kernel/shmmax", pages * vm_pagesize);
	vm_raise_sysctl("/proc/sys/kernel/shmall",
			VM_MAX(pages * 2 + 65536, (uint64_t)VM_MAX(all, 0)));

	id = shmget(IPC_PRIVATE, (size_t)bytes, IPC_CREAT | IPC_EXCL | 0600);
	if (id < 0) {
		err = errno;
		ktap_diag("shmget(%llu bytes) failed: %s",
			  (unsigned long long)bytes, strerror(err));
		errno = err;
		return NULL;
	}
	p = shmat(id, NULL, 0);
	if (p == (void *)-1) {
		err = errno;
		ktap_diag("shmat failed: %s", strerror(err));
		if (shmctl(id, IPC_RMID, NULL) != 0)
			ktap_diag("shmctl(IPC_RMID) failed: %s",
				  strerror(errno));
		errno = err;
		return NULL;
	}
	/* removed now: it goes away with the last detach, even if killed */
	if (shmctl(id, IPC_RMID, NULL) != 0) {
		err = errno;
		ktap_diag("shmctl(IPC_RMID) failed: %s", strerror(err));
		shmdt(p);
		errno = err;
		return NULL;
	}
	if (idp)
		*idp = id;
	return p;
}

/* ------------------------------------------------------------------ */
/* children                                                            */

#define VM_MAX_CHILDREN	32768
static volatile pid_t vm_children[VM_MAX_CHILDREN];
static volatile int vm_nchild;

pid_t vm_fork(void)
{
	pid_t parent = getpid();
	struct sigaction sa;
	pid_t pid;

	if (vm_nchild >= VM_MAX_CHILDREN) {
		errno = EAGAIN;
		return -1;
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0) {
		vm_is_child = 1;
		vm_nchild = 0;
		alarm(0);
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_DFL;
		sigaction(SIGALRM, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		/* never outlive the test */
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		if (getppid() != parent)
			_exit(1);
		return 0;
	}
	if (pid > 0)
		vm_children[vm_nchild++] = pid;
	return pid;
}

static void vm_forget(pid_t pid)
{
	int i;

	for (i = vm_nchild - 1; i >= 0; i--) {
		if (vm_children[i] == pid) {
			vm_children[i] = vm_children[vm_nchild - 1];
			vm_nchild--;
			return;
		}
	}
}

int vm_wait(pid_t pid, int *status, struct rusage *ru)
{
	int st = 0;
	pid_t r;

	do {
		r = wait4(pid, &st, 0, ru);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		return -1;
	vm_forget(pid);
	if (status)
		*status = st;
	return 0;
}

int vm_wait_timeout(pid_t pid, int *status, struct rusage *ru,
		    double timeout_ms)
{
	double end = vm_now_ms() + timeout_ms;
	int st = 0;
	pid_t r;

	for (;;) {
		r = wait4(pid, &st, WNOHANG, ru);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == pid) {
			vm_forget(pid);
			if (status)
				*status = st;
			return 0;
		}
		if (vm_now_ms() >= end)
			return 1;
		vm_sleep_ms(5);
	}
}

/* async-signal-safe: used from the timeout handler too */
static void vm_kill_all_raw(void)
{
	int i, n = vm_nchild;
	pid_t r;

	for (i = 0; i < n; i++)
		if (vm_children[i] > 0)
			kill(vm_children[i], SIGKILL);
	for (i = 0; i < n; i++) {
		if (vm_children[i] <= 0)
			continue;
		do {
			r = waitpid(vm_children[i], NULL, 0);
		} while (r < 0 && errno == EINTR);
	}
	vm_nchild = 0;
}

void vm_kill_all(void)
{
	vm_kill_all_raw();
}

void vm_forget_child(pid_t pid)
{
	vm_forget(pid);
}

void vm_kill_group(pid_t pid, int reaped, const char *what)
{
	int st;

	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	if (!reaped && vm_wait_timeout(pid, &st, NULL, 10000) != 0) {
		ktap_diag("%s %d did not die within 10 s of SIGKILL", what,
			  (int)pid);
		vm_forget_child(pid);
	}
}

int vm_nchildren(void)
{
	return vm_nchild;
}

static void vm_tv_add(struct timeval *a, const struct timeval *b)
{
	a->tv_sec += b->tv_sec;
	a->tv_usec += b->tv_usec;
	if (a->tv_usec >= 1000000) {
		a->tv_usec -= 1000000;
		a->tv_sec++;
	}
}

void vm_rusage_add(struct rusage *sum, const struct rusage *r)
{
	vm_tv_add(&sum->ru_utime, &r->ru_utime);
	vm_tv_add(&sum->ru_stime, &r->ru_stime);
	sum->ru_minflt += r->ru_minflt;
	sum->ru_majflt += r->ru_majflt;
	sum->ru_nvcsw += r->ru_nvcsw;
	sum->ru_nivcsw += r->ru_nivcsw;
}

/* ------------------------------------------------------------------ */
/* signals: timeout and termination                                    */

static char vm_sigbuf[8192];
static size_t vm_siglen;

static void vm_sig_puts(const char *s)
{
	while (*s && vm_siglen < sizeof(vm_sigbuf) - 1)
		vm_sigbuf[vm_siglen++] = *s++;
}

static void vm_sig_putl(long v)
{
	char tmp[24];
	int i = 0;

	if (v < 0) {
		vm_sig_puts("-");
		v = -v;
	}
	do {
		tmp[i++] = '0' + v % 10;
		v /= 10;
	} while (v && i < (int)sizeof(tmp));
	while (i > 0) {
		char c[2] = { tmp[--i], 0 };

		vm_sig_puts(c);
	}
}

static void vm_sig_flush(void)
{
	size_t off = 0;
	ssize_t n;

	while (off < vm_siglen) {
		n = write(1, vm_sigbuf + off, vm_siglen - off);
		if (n <= 0)
			break;
		off += n;
	}
	vm_siglen = 0;
}

static void vm_on_signal(int sig)
{
	int k, fail;

	if (vm_is_child)
		_exit(128 + sig);
	vm_siglen = 0;
	if (sig == SIGALRM) {
		vm_sig_puts("# timeout: ");
		vm_sig_puts(vm_prog);
		vm_sig_puts(" exceeded ");
		vm_sig_putl(vm_cfg.timeout_s);
		vm_sig_puts(" s (-T) during: ");
	} else {
		vm_sig_puts("# killed by signal ");
		vm_sig_putl(sig);
		vm_sig_puts(" during: ");
	}
	vm_sig_puts(vm_cur_phase);
	vm_sig_puts("\n");
	vm_sig_flush();
	/* children first, so that they stop eating memory */
	vm_kill_all_raw();
	vm_unlink_paths();
	fail = ktap_nfail;
	for (k = ktap_next; k <= ktap_planned; k++) {
		vm_sig_puts("not ok ");
		vm_sig_putl(k);
		vm_sig_puts(" ");
		vm_sig_puts(ktap_namev && ktap_namev[k - 1] ?
			    ktap_namev[k - 1] : "unfinished");
		vm_sig_puts("\n");
		fail++;
		if (vm_siglen > sizeof(vm_sigbuf) - 256)
			vm_sig_flush();
	}
	if (ktap_next > ktap_planned)
		fail++;		/* all reported, still a failure */
	vm_sig_puts("# totals: pass:");
	vm_sig_putl(ktap_npass);
	vm_sig_puts(" fail:");
	vm_sig_putl(fail);
	vm_sig_puts(" skip:");
	vm_sig_putl(ktap_nskip);
	vm_sig_puts("\n");
	vm_sig_flush();
	_exit(1);
}

/* ------------------------------------------------------------------ */
/* options                                                             */

static void vm_usage(FILE *f, const char *summary, const struct vm_opt *opts)
{
	const struct vm_opt *o;

	fprintf(f, "usage: %s [options]\n%s\n\n", vm_prog, summary);
	fprintf(f, "  -m MB      memory to scale to (default MemTotal: %ld)\n",
		vm_cfg.mem_mb);
	fprintf(f, "  -d DIR     directory for files (default %s)\n",
		vm_cfg.dir);
	fprintf(f, "  -T SEC     safety timeout, 0 = none (default %ld)\n",
		vm_cfg.timeout_s);
	for (o = opts; o && o->c; o++)
		fprintf(f, "  -%c %-7s %s\n", o->c, o->arg ? o->arg : "",
			o->help);
	fprintf(f, "  -h         this help\n");
}

static int vm_parse_num(const char *s, enum vm_opt_type t, void *ptr)
{
	char *end;

	errno = 0;
	if (t == VM_OPT_LONG) {
		long v = strtol(s, &end, 0);

		if (errno || end == s || *end)
			return -1;
		*(long *)ptr = v;
	} else {
		double v = strtod(s, &end);

		if (errno || end == s || *end)
			return -1;
		*(double *)ptr = v;
	}
	return 0;
}

void vm_init(const char *prog, int argc, char **argv,
	     const struct vm_opt *opts, const char *summary, long timeout_s)
{
	char optstr[128] = "m:d:T:h";
	const struct vm_opt *o;
	struct sigaction sa;
	struct stat st;
	long long total;
	size_t len;
	int c;

	vm_prog = prog;
	vm_pagesize = sysconf(_SC_PAGESIZE);
	if (vm_pagesize <= 0)
		vm_pagesize = 4096;
	setvbuf(stdout, NULL, _IOLBF, 0);

	total = vm_meminfo_kb("MemTotal");
	vm_cfg.mem_mb = total > 0 ? (long)(total / 1024) : 256;
	vm_cfg.dir = (stat("/data", &st) == 0 && S_ISDIR(st.st_mode)) ?
		     "/data" : "/tmp";
	vm_cfg.timeout_s = timeout_s;

	for (o = opts; o && o->c; o++) {
		len = strlen(optstr);
		if (len + 3 >= sizeof(optstr))
			break;
		optstr[len] = o->c;
		optstr[len + 1] = o->type == VM_OPT_FLAG ? '\0' : ':';
		optstr[len + 2] = '\0';
	}

	while ((c = getopt(argc, argv, optstr)) != -1) {
		int bad = 0;

		switch (c) {
		case 'm':
			bad = vm_parse_num(optarg, VM_OPT_LONG, &vm_cfg.mem_mb);
			break;
		case 'd':
			vm_cfg.dir = optarg;
			break;
		case 'T':
			bad = vm_parse_num(optarg, VM_OPT_LONG,
					   &vm_cfg.timeout_s);
			break;
		case 'h':
			vm_usage(stdout, summary, opts);
			exit(0);
		default:
			for (o = opts; o && o->c; o++)
				if (o->c == c)
					break;
			if (!o || !o->c) {
				vm_usage(stderr, summary, opts);
				exit(1);
			}
			if (o->type == VM_OPT_FLAG)
				*(int *)o->ptr = 1;
			else if (o->type == VM_OPT_STR)
				*(const char **)o->ptr = optarg;
			else
				bad = vm_parse_num(optarg, o->type, o->ptr);
			break;
		}
		if (bad) {
			fprintf(stderr, "%s: bad number for -%c: %s\n", prog,
				c, optarg);
			exit(1);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument %s\n", prog,
			argv[optind]);
		vm_usage(stderr, summary, opts);
		exit(1);
	}
	if (vm_cfg.mem_mb < 8) {
		fprintf(stderr, "%s: -m %ld: need at least 8 MB\n", prog,
			vm_cfg.mem_mb);
		exit(1);
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = vm_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGALRM);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGHUP);
	sigaction(SIGALRM, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	if (vm_cfg.timeout_s > 0)
		alarm((unsigned int)vm_cfg.timeout_s);
}

/* ------------------------------------------------------------------ */
/* data patterns                                                       */

uint32_t vm_pat_base(uint32_t seed, uint64_t blk, uint32_t gen)
{
	uint32_t x = seed ^ 0x9e3779b9u;

	x ^= (uint32_t)blk * 0x85ebca6bu;
	x ^= (uint32_t)(blk >> 32) * 0xc2b2ae35u;
	x ^= gen * 0x27d4eb2fu;
	x ^= x >> 15;
	x *= 0x2c1b3c6du;
	x ^= x >> 12;
	x *= 0x297a2d39u;
	x ^= x >> 15;
	return x;
}

#define VM_STEP	0x9e3779b9u

void vm_fill_blk(void *p, uint32_t seed, uint64_t blk, uint32_t gen)
{
	uint32_t *w = p;
	uint32_t v = vm_pat_base(seed, blk, gen);
	int i;

	w[0] = VM_MAGIC ^ (uint32_t)blk;
	w[1] = gen;
	w[2] = seed;
	for (i = 3; i < VM_BLK_WORDS; i++)
		w[i] = v + (uint32_t)i * VM_STEP;
}

long vm_check_blk(const void *p, uint32_t seed, uint64_t blk, uint32_t gen,
		  long *bad, uint32_t *exp, uint32_t *got)
{
	const volatile uint32_t *w = p;
	uint32_t v = vm_pat_base(seed, blk, gen);
	uint32_t e, g;
	long nbad = 0;
	int i;

	for (i = 0; i < VM_BLK_WORDS; i++) {
		if (i == 0)
			e = VM_MAGIC ^ (uint32_t)blk;
		else if (i == 1)
			e = gen;
		else if (i == 2)
			e = seed;
		else
			e = v + (uint32_t)i * VM_STEP;
		g = w[i];
		if (g != e) {
			if (!nbad) {
				if (bad)
					*bad = i;
				if (exp)
					*exp = e;
				if (got)
					*got = g;
			}
			nbad++;
		}
	}
	return nbad;
}

/* ------------------------------------------------------------------ */
/* latency probe                                                       */

struct vm_probe_shared {
	volatile uint32_t reset_gen;
	volatile uint32_t max_gap_us;
	volatile uint32_t samples;
	volatile uint32_t ready;	/* the child has locked its memory */
	volatile uint32_t locked_kb;
	volatile int32_t lock_err;	/* first mlock errno, 0 none */
	volatile uint32_t lock_fail;	/* mlock calls that failed */
	volatile int32_t fifo_prio;	/* SCHED_FIFO priority, 0 SCHED_OTHER */
	volatile int32_t sched_err;	/* sched_setscheduler errno, 0 none */
	volatile int32_t sched_got;	/* policy read back, if not FIFO */
	volatile int32_t sleep_err;	/* nanosleep errno: the probe stopped */
};

/* from the linker: the start of the ELF image and the end of its bss */
extern char __executable_start[], end[];

static void vm_probe_lock(struct vm_probe_shared *sh, void *lo, void *hi)
{
	uintptr_t a = (uintptr_t)lo & ~((uintptr_t)vm_pagesize - 1);
	uintptr_t b = (uintptr_t)hi;

	if (b <= a)
		return;
	if (mlock((void *)a, b - a) == 0) {
		sh->locked_kb += (uint32_t)((b - a) / 1024);
	} else {
		if (!sh->lock_err)
			sh->lock_err = errno;
		sh->lock_fail++;
	}
}

/* grow the stack by what the probe may use, so that it can be locked */
static __attribute__((noinline)) void vm_probe_grow_stack(void)
{
	volatile char buf[64 * 1024];
	size_t i;

	for (i = 0; i < sizeof(buf); i += 512)
		buf[i] = 0;
}

/*
 * The probe must measure the kernel, not its own page-ins: under a hog
 * that takes all memory its text, data and stack would be swapped out
 * and every wakeup would wait for them.  Lock what it runs on: the
 * mappings of the binary itself (text, data, bss: those overlapping
 * [__executable_start, end)), the C library's where it is a shared
 * object (host builds), the stack and the shared page.  Not mlockall():
 * the child inherited every mapping of the test (e.g. thousands of file
 * vmas) and locking them would change the scenario.
 */
static void vm_probe_lock_self(struct vm_probe_shared *sh)
{
	uintptr_t img_lo = (uintptr_t)__executable_start;
	uintptr_t img_hi = (uintptr_t)end;
	uintptr_t here;
	char line[1024];
	FILE *f;

	vm_probe_grow_stack();
	here = (uintptr_t)&line;
	f = fopen("/proc/self/maps", "r");
	if (!f) {
		/* at least the image and the stack pages in use */
		vm_probe_lock(sh, (void *)img_lo, (void *)img_hi);
		vm_probe_lock(sh, (void *)(here - 64 * 1024),
			      (void *)(here + 4096));
	} else {
		while (fgets(line, sizeof(line), f)) {
			char *path = strchr(line, '/'), *base;
			unsigned long lo, hi;
			int lock;

			if (sscanf(line, "%lx-%lx", &lo, &hi) != 2)
				continue;
			lock = (lo < img_hi && hi > img_lo) ||
			       (here >= lo && here < hi);
			if (!lock && path) {
				path[strcspn(path, "\n")] = '\0';
				base = strrchr(path, '/') + 1;
				lock = !strncmp(base, "libc.", 5) ||
				       !strncmp(base, "libc-", 5) ||
				       !strncmp(base, "ld-", 3);
			}
			if (lock)
				vm_probe_lock(sh, (void *)lo, (void *)hi);
		}
		fclose(f);
	}
	vm_probe_lock(sh, (void *)sh, (char *)sh + vm_pagesize);
}

/*
 * SCHED_FIFO priority of the probe.  Any SCHED_FIFO priority runs ahead
 * of every SCHED_OTHER task, which is all the probe needs: it must not
 * wait for its turn behind the test's CPU-bound processes (with 32
 * touchers runnable on one CPU the O(1) scheduler's round robin alone
 * gives 11-14 s gaps), only for the kernel.  The lowest one, 1, puts it
 * behind any real-time task a machine may have (the migration threads
 * of an SMP kernel, a host's audio or interrupt threads), whose delays
 * are not what it measures either.
 */
#define VM_PROBE_FIFO_PRIO	1

/*
 * The probe child switches to SCHED_FIFO.  musl's sched_setscheduler()
 * is a stub that fails with ENOSYS, hence the raw system calls.  Sets
 * fifo_prio to the priority in effect (0: still SCHED_OTHER) and
 * sched_err or sched_got to why not.
 */
static void vm_probe_set_fifo(struct vm_probe_shared *sh)
{
	struct sched_param sp;
	long pol;

	sh->fifo_prio = 0;
	memset(&sp, 0, sizeof(sp));
	sp.sched_priority = VM_PROBE_FIFO_PRIO;
	if (syscall(SYS_sched_setscheduler, 0, SCHED_FIFO, &sp) != 0) {
		sh->sched_err = errno ? errno : EINVAL;
		return;
	}
	/* believe the kernel's answer; no answer: believe the set */
	pol = syscall(SYS_sched_getscheduler, 0);
	if (pol >= 0 && pol != SCHED_FIFO) {
		sh->sched_got = (int32_t)pol;
		return;
	}
	sh->fifo_prio = VM_PROBE_FIFO_PRIO;
}

/* back to SCHED_OTHER, should the probe ever fail to sleep */
static void vm_probe_set_other(void)
{
	struct sched_param sp;

	memset(&sp, 0, sizeof(sp));
	syscall(SYS_sched_setscheduler, 0, SCHED_OTHER, &sp);
}

/*
 * The probe's sleep.  A SCHED_FIFO task that does not block keeps every
 * SCHED_OTHER task off the CPU for good (a UP guest hangs), so the probe
 * must never loop without sleeping: a nanosleep that fails other than
 * with EINTR makes it drop SCHED_FIFO and block in pause() until it is
 * killed (its samples stop; the parent sees sleep_err).
 */
static void vm_probe_sleep(struct vm_probe_shared *sh, long ms)
{
	struct timespec ts, rem;

	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000L;
	while (nanosleep(&ts, &rem) != 0) {
		if (errno == EINTR) {
			ts = rem;
			continue;
		}
		sh->sleep_err = errno;
		vm_probe_set_other();
		sh->fifo_prio = 0;
		for (;;)
			pause();
	}
}

static void *vm_shared_page(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

int vm_probe_start(struct vm_probe *p, long period_ms)
{
	uint32_t seen;
	double t0, t1, gap;
	uint32_t max;

	p->pid = -1;
	p->sh = vm_shared_page(vm_pagesize);
	if (!p->sh) {
		ktap_diag("probe: mmap shared page: %s", strerror(errno));
		return -1;
	}
	p->pid = vm_fork();
	if (p->pid < 0) {
		ktap_diag("probe: fork: %s", strerror(errno));
		munmap(p->sh, vm_pagesize);
		p->sh = NULL;
		return -1;
	}
	if (period_ms < 1)
		period_ms = 1;	/* it must sleep: it may run SCHED_FIFO */
	if (p->pid) {
		static int fig_prio = -2;	/* the figure printed last */
		double end_ms = vm_now_ms() + 2000;
		char pol[64], why[64];
		int prio = -1;

		/* the parent runs SCHED_OTHER, and sleeps while it waits */
		while (!p->sh->ready && vm_now_ms() < end_ms)
			vm_sleep_ms(1);
		if (!p->sh->ready) {
			ktap_diag("probe: not ready after 2 s (scheduling "
				  "policy not known)");
		} else {
			prio = p->sh->fifo_prio;
			if (prio) {
				snprintf(pol, sizeof(pol), "SCHED_FIFO %d",
					 prio);
			} else {
				if (p->sh->sched_err)
					snprintf(why, sizeof(why), "%s",
						 strerror(p->sh->sched_err));
				else
					snprintf(why, sizeof(why), "policy %d "
						 "after it",
						 (int)p->sh->sched_got);
				ktap_diag("probe: sched_setscheduler(SCHED_FIFO "
					  "%d): %s: it runs SCHED_OTHER, so its "
					  "gaps include waiting for its turn "
					  "behind the runnable processes, not "
					  "only the kernel", VM_PROBE_FIFO_PRIO,
					  why);
				snprintf(pol, sizeof(pol), "SCHED_OTHER");
			}
			if (p->sh->lock_fail)
				ktap_diag("probe: %s, %u mlock calls failed "
					  "(%s), %u kB locked: it may measure "
					  "its own page-ins", pol,
					  p->sh->lock_fail,
					  strerror(p->sh->lock_err),
					  p->sh->locked_kb);
			else
				ktap_diag("probe: %s, %u kB of its own memory "
					  "locked", pol, p->sh->locked_kb);
		}
		/* once per program, unless a later probe differs */
		if (prio != fig_prio) {
			vm_fig_i("probe_fifo_prio", prio, "count");
			fig_prio = prio;
		}
		return 0;
	}
	/*
	 * child: runs until killed (or until the parent dies).  It locks
	 * its memory first (page-ins under SCHED_OTHER), then switches to
	 * SCHED_FIFO; from there on the only loop is the one below, which
	 * sleeps on every pass (vm_probe_sleep).
	 */
	vm_probe_lock_self(p->sh);
	vm_probe_set_fifo(p->sh);
	p->sh->ready = 1;
	seen = p->sh->reset_gen;
	max = 0;
	t0 = vm_now_ms();
	for (;;) {
		vm_probe_sleep(p->sh, period_ms);
		t1 = vm_now_ms();
		gap = t1 - t0;
		t0 = t1;
		if (p->sh->reset_gen != seen) {
			seen = p->sh->reset_gen;
			max = 0;
			p->sh->samples = 0;
		}
		if (gap * 1000 > max)
			max = gap * 1000 > 4e9 ? 4000000000u :
			      (uint32_t)(gap * 1000);
		p->sh->max_gap_us = max;
		p->sh->samples++;
	}
}

void vm_probe_reset(struct vm_probe *p)
{
	if (!p->sh)
		return;
	p->sh->max_gap_us = 0;
	p->sh->reset_gen++;
}

double vm_probe_max_ms(struct vm_probe *p)
{
	return p->sh ? p->sh->max_gap_us / 1000.0 : -1;
}

long vm_probe_samples(struct vm_probe *p)
{
	return p->sh ? (long)p->sh->samples : -1;
}

void vm_probe_stop(struct vm_probe *p)
{
	if (p->sh && p->sh->sleep_err)
		ktap_diag("probe: nanosleep: %s: it stopped sampling",
			  strerror(p->sh->sleep_err));
	if (p->pid > 0) {
		kill(p->pid, SIGKILL);
		vm_wait(p->pid, NULL, NULL);
		p->pid = -1;
	}
	/* keep sh mapped: the figures are read after stop */
}

/* ------------------------------------------------------------------ */
/* anonymous hog                                                       */

struct vm_hog_shared {
	volatile uint32_t touched[VM_HOG_MAX];	/* pages */
	volatile uint32_t state[VM_HOG_MAX];	/* 0 run, 1 done, 2 failed */
	volatile uint32_t done_ms[VM_HOG_MAX];
	volatile int32_t err[VM_HOG_MAX];
	volatile uint32_t share[VM_HOG_MAX];	/* pages, set by vm_hog_go */
	volatile double t0;
	volatile double rate;		/* bytes per ms per worker, 0 no pace */
};

#define VM_HOG_CHUNK	(8 * VM_MB)
/*
 * Bytes per hog process.  Each one inherits its caller's mappings, and
 * on i386 a shm segment of 0.75 * mem attached at 1 GB leaves a 2 GB
 * guest's hog about 500 MB of address space below the stack: keep each
 * share well under that.
 */
#define VM_HOG_WORKER	(256 * VM_MB)

/* sleep while the worker is ahead of its share of vm_hog_set_rate() */
static void vm_hog_pace(double rate, double t0, uint64_t done)
{
	double ahead = done / rate - (vm_now_ms() - t0);

	if (ahead >= 1)
		usleep((useconds_t)(ahead * 1000));
}

/*
 * A worker waits for vm_hog_go() on the pipe (blocked, using no CPU),
 * then touches its share.
 */
static void vm_hog_worker(struct vm_hog *h, int i)
{
	struct vm_hog_shared *sh = h->sh;
	uint64_t done = 0, bytes;
	size_t len, off;
	ssize_t got;
	double rate, t0;
	char c, *p;
	int go = h->go_fd[0];

	close(h->go_fd[1]);
	do
		got = read(go, &c, 1);
	while (got < 0 && errno == EINTR);
	close(go);
	if (got != 1)
		_exit(0);		/* the caller went away */
	bytes = (uint64_t)sh->share[i] * vm_pagesize;
	/* the pace counts from this worker's own start: clocks differ */
	rate = sh->rate;
	t0 = vm_now_ms();
	while (done < bytes) {
		len = (size_t)VM_MIN(bytes - done, (uint64_t)VM_HOG_CHUNK);
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			sh->err[i] = errno;
			sh->state[i] = 2;
			break;
		}
		for (off = 0; off < len; off += vm_pagesize) {
			volatile uint32_t *w = (volatile uint32_t *)(p + off);

			*w = (uint32_t)(done + off);
			if (!((off / vm_pagesize) & 63) && rate > 0)
				vm_hog_pace(rate, t0, done + off);
			if (!((off / vm_pagesize) & 255))
				sh->touched[i] = (done + off) / vm_pagesize;
		}
		done += len;
		sh->touched[i] = done / vm_pagesize;
	}
	if (sh->state[i] == 0) {
		sh->done_ms[i] = (uint32_t)(vm_now_ms() - sh->t0);
		sh->state[i] = 1;
	}
	/* hold the memory until killed */
	for (;;)
		pause();
}

int vm_hog_start(struct vm_hog *h, uint64_t bytes)
{
	return vm_hog_start_nice(h, bytes, 0);
}

int vm_hog_start_nice(struct vm_hog *h, uint64_t bytes, int inc)
{
	if (vm_hog_prepare(h, bytes, inc) != 0)
		return -1;
	vm_hog_go(h, bytes);
	return 0;
}

int vm_hog_prepare(struct vm_hog *h, uint64_t max_bytes, int inc)
{
	int i;

	memset(h, 0, sizeof(*h));
	max_bytes = max_bytes / vm_pagesize * vm_pagesize;
	h->n = (int)((max_bytes + VM_HOG_WORKER - 1) / VM_HOG_WORKER);
	if (h->n < 1)
		h->n = 1;
	if (h->n > VM_HOG_MAX)
		h->n = VM_HOG_MAX;
	h->sh = vm_shared_page(vm_pagesize);
	if (!h->sh) {
		ktap_diag("hog: mmap shared page: %s", strerror(errno));
		return -1;
	}
	if (pipe(h->go_fd) != 0) {
		ktap_diag("hog: pipe: %s", strerror(errno));
		return -1;
	}
	for (i = 0; i < h->n; i++) {
		h->pid[i] = vm_fork();
		if (h->pid[i] < 0) {
			ktap_diag("hog: fork: %s", strerror(errno));
			h->sh->state[i] = 2;
			h->sh->err[i] = errno;
			continue;
		}
		if (h->pid[i] == 0) {
			if (inc)
				nice(inc);
			vm_hog_worker(h, i);
		}
	}
	close(h->go_fd[0]);
	return 0;
}

void vm_hog_set_rate(struct vm_hog *h, uint64_t bytes_per_s)
{
	if (h->sh && h->n > 0)
		h->sh->rate = bytes_per_s / 1000.0 / h->n;
}

void vm_hog_go(struct vm_hog *h, uint64_t bytes)
{
	uint64_t per, left;
	char go[VM_HOG_MAX];
	int i;

	bytes = bytes / vm_pagesize * vm_pagesize;
	h->bytes = bytes;
	per = (bytes / h->n + vm_pagesize - 1) / vm_pagesize * vm_pagesize;
	left = bytes;
	for (i = 0; i < h->n; i++) {
		uint64_t mine = VM_MIN(per, left);

		left -= mine;
		h->sh->share[i] = (uint32_t)(mine / vm_pagesize);
	}
	h->t0 = vm_now_ms();
	h->sh->t0 = h->t0;
	__sync_synchronize();
	memset(go, 'g', sizeof(go));
	if (vm_write_all(h->go_fd[1], go, h->n) != 0)
		ktap_diag("hog: go: %s", strerror(errno));
	close(h->go_fd[1]);
}

uint64_t vm_hog_touched(struct vm_hog *h)
{
	uint64_t t = 0;
	int i;

	for (i = 0; i < h->n; i++)
		t += h->sh->touched[i];
	return t * vm_pagesize;
}

int vm_hog_done(struct vm_hog *h)
{
	int i, all = 1;

	for (i = 0; i < h->n; i++) {
		if (h->sh->state[i] == 2)
			return -1;
		if (h->sh->state[i] != 1)
			all = 0;
	}
	return all;
}

double vm_hog_done_ms(struct vm_hog *h)
{
	uint32_t m = 0;
	int i;

	if (vm_hog_done(h) != 1)
		return -1;
	for (i = 0; i < h->n; i++)
		if (h->sh->done_ms[i] > m)
			m = h->sh->done_ms[i];
	return m;
}

int vm_hog_wait(struct vm_hog *h, double timeout_s,
		void (*tick)(void *), void *arg)
{
	double end = vm_now_ms() + timeout_s * 1000;
	int i, st, d;
	pid_t r;

	for (;;) {
		d = vm_hog_done(h);
		if (d)
			return d == 1 ? 0 : -1;
		for (i = 0; i < h->n; i++) {
			if (h->pid[i] <= 0)
				continue;
			r = waitpid(h->pid[i], &st, WNOHANG);
			if (r == h->pid[i]) {
				ktap_diag("hog worker %d died (%s %d)", i,
					  WIFSIGNALED(st) ? "signal" : "exit",
					  WIFSIGNALED(st) ? WTERMSIG(st) :
					  WEXITSTATUS(st));
				vm_forget(h->pid[i]);
				h->pid[i] = -1;
				h->sh->state[i] = 2;
				return -1;
			}
		}
		if (vm_now_ms() >= end)
			return 1;
		if (tick)
			tick(arg);
		vm_progress("hog: %llu of %llu MB touched",
			    (unsigned long long)(vm_hog_touched(h) / VM_MB),
			    (unsigned long long)(h->bytes / VM_MB));
		vm_sleep_ms(50);
	}
}

void vm_hog_stop(struct vm_hog *h, struct rusage *ru)
{
	struct rusage r;
	int i;

	for (i = 0; i < h->n; i++)
		if (h->pid[i] > 0)
			kill(h->pid[i], SIGKILL);
	for (i = 0; i < h->n; i++) {
		if (h->pid[i] <= 0)
			continue;
		memset(&r, 0, sizeof(r));
		if (vm_wait(h->pid[i], NULL, &r) == 0 && ru)
			vm_rusage_add(ru, &r);
		h->pid[i] = -1;
	}
}

/* ---- SIGBUS probing ---- */
static sigjmp_buf bus_jmp;
static volatile sig_atomic_t bus_armed;
static int bus_exit_code;

static void on_bus(int sig)
{
	(void)sig;
	if (bus_armed)
		siglongjmp(bus_jmp, 1);
	_exit(bus_exit_code);
}

void vm_sigbus_install(int code)
{
	struct sigaction sa;

	bus_exit_code = code;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_bus;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
}

long vm_resident_pages(void *p, size_t len)
{
	size_t n = (len + vm_pagesize - 1) / vm_pagesize, i;
	unsigned char *vec = malloc(n ? n : 1);
	long r = 0;

	if (!vec)
		return -1;
	if (mincore(p, len, vec) != 0) {
		free(vec);
		return -1;
	}
	for (i = 0; i < n; i++)
		r += vec[i] & 1;
	free(vec);
	return r;
}

int vm_read_bus(const volatile uint32_t *p, uint32_t *val)
{
	if (sigsetjmp(bus_jmp, 1)) {
		bus_armed = 0;
		return 1;
	}
	bus_armed = 1;
	*val = *p;
	bus_armed = 0;
	return 0;
}
