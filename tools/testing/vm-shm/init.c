// SPDX-License-Identifier: GPL-2.0
/*
 * init.c - PID 1 of the vm-shm QEMU guests.
 *
 * Runs on Linux 2.6.3 (root = ext2 image on /dev/ram0) and on a modern
 * kernel (root = initramfs), as one static i386 binary.  It sets up the
 * guest (proc, sys, /dev nodes, optional modules, swap disk, data disk),
 * runs the scenario programs named on the kernel command line and prints a
 * KTAP stream on the console:
 *
 *   KTAP version 1
 *   # vmshm: ...                      guest facts, "# fig: guest.*" figures
 *   1..N
 *   # vmshm: start <prog>
 *       <the program's own output, indented by 4 spaces>
 *   # vmstat: <prog> t_ms=... free_kb=... ...   (one a second, from a child)
 *       # fig: kernel.<counter> <n> count   (init's, see rmap_counters)
 *   # vmshm: end <prog> exit=<code>|signal=<sig> ms=<ms>
 *   ok N <prog>  |  not ok N <prog>  |  ok N <prog> # SKIP
 *   # Totals: pass:N fail:N xfail:0 xpass:0 skip:N error:0
 *   # vmshm: done
 *
 * then syncs and reboots (QEMU runs with -no-reboot, so that ends it).
 *
 * Command line options (read from /proc/cmdline; 2.6.3 ignores dotted
 * options with a warning):
 *   vmshm.run=all|prog,prog,...    programs, in order (default all, i.e.
 *                                  the order of /etc/vmshm/programs)
 *   vmshm.mem=MB                   passed to every program as -m (default
 *                                  MemTotal)
 *   vmshm.args.<prog>=a,b,...      extra arguments (commas become spaces)
 *   vmshm.timeout=S                kill a program after S seconds (0: never)
 *   vmshm.sysctl=path:val,...      write val to /proc/sys/<path> first, e.g.
 *                                  vmshm.sysctl=vm/vm_cache_scan_ratio:0
 *   vmshm.sysrq=S                  when a program prints nothing for S
 *                                  seconds, have the kernel dump its tasks
 *                                  (SysRq t, if built in), once a program
 *   vmshm.disks=N                  wait up to 5 s for N vm-shm disks to
 *                                  appear (after loading modules)
 *
 * With the kernel's own profile=N, /proc/profile is cleared before each
 * program and its non-zero buckets are printed after it as "# prof:"
 * lines (tools/vmshm profile turns them into functions).
 *
 * Files in the root: /bin/<prog>, /etc/vmshm/programs (one name a line),
 * optionally /etc/vmshm/modules (paths of .ko files loaded in that order
 * with finit_module, for kernels whose disk drivers are modules).
 *
 * Disks are recognised by content, not by name: a swap signature
 * (SWAPSPACE2) is swapped on, an ext2 file system labelled "vmshm-data" is
 * mounted on /data.  Without a data disk /data is a tmpfs.
 *
 * PID 1 rules kept here: never exit (that panics), never wait for "any
 * child" until ECHILD (kernel threads are our children too), reap zombies
 * that get reparented to us.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/times.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DATA_LABEL	"vmshm-data"
#define MAX_PROGS	32
#define MAX_ARGS	32
#define LINE_MAX_LEN	4096

static char cmdline[4096];
static char data_dir[64] = "/data";

/* ---- output ------------------------------------------------------------ */

static void write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		buf += n;
		len -= n;
	}
}

/* One write() per line, so that lines of init and of the sampler child do
 * not interleave on the console. */
static void out(const char *fmt, ...)
{
	char buf[LINE_MAX_LEN + 64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	write_all(1, buf, n);
}

static void finish(void) __attribute__((noreturn));

static void finish(void)
{
	sync();
	out("# vmshm: rebooting");
	reboot(RB_AUTOBOOT);
	/* reboot() returned: nothing sensible is left to do but idle. */
	reboot(RB_POWER_OFF);
	out("# vmshm: reboot failed: %s", strerror(errno));
	for (;;)
		pause();
}

static void fatal(const char *fmt, ...) __attribute__((noreturn));

static void fatal(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	out("# vmshm: error: %s", buf);
	out("Bail out! vmshm init: %s", buf);
	finish();
}

/* ---- time --------------------------------------------------------------- */

/* Milliseconds of CLOCK_MONOTONIC.  2.6.3 can hand out a negative tv_nsec
 * (wall_to_monotonic is not normalised), so add the fields as signed
 * numbers, and never let the result go backwards. */
/*
 * Milliseconds, built from steps: a step of the clock more than a second
 * away from the step of times() (jiffies) is replaced by the latter, as
 * 2.6.3's clock can leap by about 2^32 us under TCG and then stand still.
 */
static int64_t now_ms(void)
{
	static int64_t last, raw_last;
	static unsigned long jif_last;
	static int started, jif_ok;
	struct timespec ts;
	int64_t raw, step, jstep;
	unsigned long jif;
	clock_t j;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0 &&
	    clock_gettime(CLOCK_REALTIME, &ts) != 0)
		return last;
	raw = (int64_t)ts.tv_sec * 1000 + (int64_t)ts.tv_nsec / 1000000;
	j = times(NULL);
	jif = (unsigned long)j;
	if (!started) {
		started = 1;
		last = raw;
	} else {
		step = raw - raw_last;
		if (jif_ok && j != (clock_t)-1) {
			jstep = (int64_t)(jif - jif_last) * 1000 /
				sysconf(_SC_CLK_TCK);
			if (step - jstep > 1000 || jstep - step > 1000)
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

static void sleep_ms(int64_t ms)
{
	struct timespec ts;

	if (ms <= 0)
		return;
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000;
	nanosleep(&ts, NULL);	/* an interruption only shortens a tick */
}

/* ---- small file helpers ------------------------------------------------- */

static int read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	size_t len = 0;
	ssize_t n;

	if (fd < 0)
		return -1;
	while (len + 1 < size && (n = read(fd, buf + len, size - 1 - len)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		len += n;
	}
	buf[len] = 0;
	close(fd);
	return len;
}

/* Value of "Key:" in a /proc/meminfo style buffer, -1 if absent. */
static long long field(const char *buf, const char *key, int colon)
{
	size_t klen = strlen(key);
	const char *p = buf;

	while (p && *p) {
		if (!strncmp(p, key, klen) &&
		    (colon ? p[klen] == ':' : p[klen] == ' '))
			return strtoll(p + klen + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

/*
 * vmshm.sysctl=path:val,path:val: write each val to /proc/sys/<path>
 * before the programs run, so one kernel can be measured with a tunable
 * set both ways.  Each write is reported; a failed one is fatal, since
 * the run would not measure what was asked.
 */
static void set_sysctls(const char *list)
{
	char buf[512], path[320], *item, *save, *colon;
	int fd;

	snprintf(buf, sizeof(buf), "%s", list);
	for (item = strtok_r(buf, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		colon = strchr(item, ':');
		if (!colon)
			fatal("vmshm.sysctl: \"%s\" is not path:value", item);
		*colon = 0;
		snprintf(path, sizeof(path), "/proc/sys/%s", item);
		fd = open(path, O_WRONLY);
		if (fd < 0 || write(fd, colon + 1, strlen(colon + 1)) < 0)
			fatal("vmshm.sysctl: %s = %s: %s", path, colon + 1,
			      strerror(errno));
		close(fd);
		out("# vmshm: sysctl %s = %s", item, colon + 1);
	}
}

/* ---- console, file systems, devices ------------------------------------ */

static void setup_console(void)
{
	int fd;

	/* The kernel opened /dev/console for us if the root had one. */
	if (fcntl(0, F_GETFD) >= 0 && fcntl(1, F_GETFD) >= 0 &&
	    fcntl(2, F_GETFD) >= 0)
		return;
	mkdir("/dev", 0755);
	mknod("/dev/console", S_IFCHR | 0600, makedev(5, 1));
	fd = open("/dev/console", O_RDWR | O_NOCTTY);
	if (fd < 0) {
		mknod("/dev/ttyS0", S_IFCHR | 0600, makedev(4, 64));
		fd = open("/dev/ttyS0", O_RDWR | O_NOCTTY);
	}
	if (fd < 0)
		finish();	/* nobody would hear us */
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
	out("# vmshm: console opened by init (the root had no /dev/console)");
}

static void node(const char *path, mode_t mode, unsigned maj, unsigned min)
{
	if (mknod(path, mode | 0600, makedev(maj, min)) != 0 && errno != EEXIST)
		out("# vmshm: mknod %s: %s", path, strerror(errno));
}

static void mount_fs(const char *src, const char *dir, const char *type,
		     int quiet)
{
	mkdir(dir, 0755);
	if (mount(src, dir, type, 0, NULL) != 0 && !quiet)
		out("# vmshm: mount %s on %s: %s", type, dir, strerror(errno));
}

/* Block device nodes for every disk the kernel knows, from /proc/partitions
 * (works on 2.6.3 IDE hdX and on modern vdX/sdX alike). */
static void make_disk_nodes(void)
{
	static char buf[8192];
	char *line, *save;

	if (read_file("/proc/partitions", buf, sizeof(buf)) < 0)
		return;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned maj, min;
		unsigned long long blocks;
		char name[64], path[80];

		if (sscanf(line, " %u %u %llu %63s", &maj, &min, &blocks,
			   name) != 4 || strchr(name, '/'))
			continue;
		snprintf(path, sizeof(path), "/dev/%s", name);
		node(path, S_IFBLK, maj, min);
	}
}

static void load_modules(void)
{
	static char buf[4096];
	char *line, *save;

	if (read_file("/etc/vmshm/modules", buf, sizeof(buf)) < 0)
		return;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		int fd = open(line, O_RDONLY);
		long r;

		if (fd < 0) {
			out("# vmshm: module %s: %s", line, strerror(errno));
			continue;
		}
		r = syscall(SYS_finit_module, fd, "", 0);
		if (r != 0 && errno != EEXIST)
			out("# vmshm: module %s: %s", line, strerror(errno));
		close(fd);
	}
}

struct disks {
	char swap[80];
	char data[80];
};

static int ignored_disk(const char *name)
{
	static const char *const skip[] = { "ram", "loop", "sr", "fd", "md",
					    "dm-", "zram", "nbd", NULL };
	int i;

	for (i = 0; skip[i]; i++)
		if (!strncmp(name, skip[i], strlen(skip[i])))
			return 1;
	return 0;
}

static int find_disks(struct disks *d)
{
	static char buf[8192];
	static unsigned char blk[4096];
	long pagesize = sysconf(_SC_PAGESIZE);
	char *line, *save;
	int found = 0;

	memset(d, 0, sizeof(*d));
	if (pagesize <= 0 || pagesize > (long)sizeof(blk))
		pagesize = 4096;
	if (read_file("/proc/partitions", buf, sizeof(buf)) < 0)
		return 0;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned maj, min;
		unsigned long long blocks;
		char name[64], path[80];
		int fd;

		if (sscanf(line, " %u %u %llu %63s", &maj, &min, &blocks,
			   name) != 4 || strchr(name, '/') || ignored_disk(name))
			continue;
		snprintf(path, sizeof(path), "/dev/%s", name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		memset(blk, 0, sizeof(blk));
		if (read(fd, blk, pagesize) == pagesize) {
			if (!memcmp(blk + pagesize - 10, "SWAPSPACE2", 10) &&
			    !d->swap[0]) {
				strcpy(d->swap, path);
				found++;
			} else if (blk[1024 + 56] == 0x53 &&
				   blk[1024 + 57] == 0xef &&
				   !strncmp((char *)blk + 1024 + 120,
					    DATA_LABEL, 16) && !d->data[0]) {
				strcpy(d->data, path);
				found++;
			}
		}
		close(fd);
	}
	return found;
}

static void setup_disks(int want)
{
	struct disks d;
	int tries = 0;

	for (;;) {
		make_disk_nodes();
		if (find_disks(&d) >= want || ++tries > 50)
			break;
		sleep_ms(100);	/* module-probed disks may come a bit later */
	}
	if (d.swap[0]) {
		if (swapon(d.swap, 0) == 0)
			out("# vmshm: swap on %s", d.swap);
		else
			out("# vmshm: swapon %s: %s", d.swap, strerror(errno));
	} else {
		out("# vmshm: no swap disk");
	}
	mkdir("/data", 0755);
	if (d.data[0] && (mount(d.data, "/data", "ext2", 0, NULL) == 0 ||
			  mount(d.data, "/data", "ext4", 0, NULL) == 0)) {
		out("# vmshm: data disk %s mounted on /data", d.data);
	} else {
		if (d.data[0])
			out("# vmshm: mount %s: %s", d.data, strerror(errno));
		if (mount("tmpfs", "/data", "tmpfs", 0, NULL) != 0)
			strcpy(data_dir, "/tmp");
		out("# vmshm: no data disk, %s is a tmpfs", data_dir);
	}
}

/* ---- command line ------------------------------------------------------- */

/* Value of option "key=" in the kernel command line, copied to val. */
static int option(const char *key, char *val, size_t size)
{
	size_t klen = strlen(key);
	const char *p = cmdline;

	while (*p) {
		const char *end;

		while (*p == ' ' || *p == '\n')
			p++;
		end = p + strcspn(p, " \n");
		if ((size_t)(end - p) > klen && !strncmp(p, key, klen) &&
		    p[klen] == '=') {
			size_t len = end - p - klen - 1;

			if (len >= size)
				len = size - 1;
			memcpy(val, p + klen + 1, len);
			val[len] = 0;
			return 1;
		}
		p = end;
	}
	return 0;
}

static long option_long(const char *key, long def)
{
	char val[32];

	return option(key, val, sizeof(val)) ? strtol(val, NULL, 10) : def;
}

/* Split "a,b,c" (in place) into words; returns their number. */
static int split(char *s, char sep, char **words, int max)
{
	int n = 0;

	while (s && *s && n < max) {
		char *next = strchr(s, sep);

		if (next)
			*next++ = 0;
		if (*s)
			words[n++] = s;
		s = next;
	}
	return n;
}

/* ---- the vmstat sampler ------------------------------------------------- */

static volatile sig_atomic_t sampler_stop;

static void on_term(int sig)
{
	(void)sig;
	sampler_stop = 1;
}

static void sample(const char *prog, int64_t t0)
{
	static char mi[4096], vm[8192];
	long long total, sfree;

	if (read_file("/proc/meminfo", mi, sizeof(mi)) < 0)
		mi[0] = 0;
	if (read_file("/proc/vmstat", vm, sizeof(vm)) < 0)
		vm[0] = 0;
	total = field(mi, "SwapTotal", 1);
	sfree = field(mi, "SwapFree", 1);
	out("# vmstat: %s t_ms=%lld free_kb=%lld swap_used_kb=%lld "
	    "cached_kb=%lld pswpin=%lld pswpout=%lld pgpgin=%lld "
	    "pgpgout=%lld lowfree_kb=%lld",
	    prog, (long long)(now_ms() - t0), field(mi, "MemFree", 1),
	    total >= 0 && sfree >= 0 ? total - sfree : -1,
	    field(mi, "Cached", 1), field(vm, "pswpin", 0),
	    field(vm, "pswpout", 0), field(vm, "pgpgin", 0),
	    field(vm, "pgpgout", 0), field(mi, "LowFree", 1));
}

/*
 * The series' counters of reverse mapping walks that reclaim cut short
 * on a busy lock, over each program, reported among the program's own
 * figures as kernel.<counter> (-1 on a kernel without them): whether a
 * scenario left reclaim blind is then in every result.
 */
static const char *const rmap_counters[] = {
	"rmap_file_walks", "rmap_busy_i_shared_sem",
	"rmap_busy_page_table_lock",
};
#define NR_RMAP_COUNTERS (sizeof(rmap_counters) / sizeof(rmap_counters[0]))

static void rmap_snapshot(long long *v)
{
	static char vm[8192];
	size_t i;

	if (read_file("/proc/vmstat", vm, sizeof(vm)) < 0)
		vm[0] = 0;
	for (i = 0; i < NR_RMAP_COUNTERS; i++)
		v[i] = field(vm, rmap_counters[i], 0);
}

static void rmap_report(const long long *before)
{
	long long after[NR_RMAP_COUNTERS];
	size_t i;

	rmap_snapshot(after);
	for (i = 0; i < NR_RMAP_COUNTERS; i++)
		out("    # fig: kernel.%s %lld count", rmap_counters[i],
		    before[i] >= 0 && after[i] >= 0 ?
		    after[i] - before[i] : -1);
}

/*
 * The kernel's profile (boot with profile=N): cleared before a program
 * and dumped after it as
 *
 *   # prof: <prog> step=<bytes per bucket> buckets=<n>
 *   # prof: <prog> <bucket>:<hits> <bucket>:<hits> ...
 *
 * for the non-zero buckets only; bucket i counts the timer ticks that
 * found the kernel at _stext + i * step.  Nothing without /proc/profile.
 */
static void profile_reset(void)
{
	int fd = open("/proc/profile", O_WRONLY);

	if (fd < 0)
		return;
	/* any write but of sizeof(int) (SMP: the multiplier) clears it */
	if (write(fd, "0", 1) != 1)
		out("# vmshm: clear /proc/profile: %s", strerror(errno));
	close(fd);
}

static void profile_dump(const char *prog)
{
	static unsigned int buf[16384];		/* 64 kB at a time */
	char line[256];
	size_t len = 0, i, n, first = 1, bucket = 0, have = 0;
	unsigned int step = 0;
	ssize_t got;
	int fd, pos = 0, on_line = 0;

	fd = open("/proc/profile", O_RDONLY);
	if (fd < 0)
		return;
	/*
	 * Streamed, so PID 1 needs no buffer of the profile's size (4
	 * bytes per 2^shift bytes of kernel text).  proc gives the file
	 * its size, (1 + buckets) * 4, which says how many to expect.
	 */
	{
		struct stat st;

		if (fstat(fd, &st) == 0 && st.st_size >= 8)
			have = (size_t)st.st_size / sizeof(unsigned int) - 1;
	}
	for (;;) {
		got = read(fd, (char *)buf + len, sizeof(buf) - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			out("# vmshm: read /proc/profile: %s",
			    strerror(errno));
			break;
		}
		len += got;
		n = len / sizeof(unsigned int);
		for (i = 0; i < n; i++) {
			if (first) {
				step = buf[0];
				out("# prof: %s step=%u buckets=%zu", prog, step,
				    have);
				first = 0;
				continue;
			}
			if (buf[i]) {
				pos += snprintf(line + pos, sizeof(line) - pos,
						" %zu:%u", bucket, buf[i]);
				if (++on_line == 12 ||
				    pos > (int)sizeof(line) - 32) {
					out("# prof: %s%s", prog, line);
					pos = on_line = 0;
				}
			}
			bucket++;
		}
		/* keep a partial word for the next read */
		memmove(buf, (char *)buf + n * sizeof(unsigned int),
			len - n * sizeof(unsigned int));
		len -= n * sizeof(unsigned int);
		if (got == 0)
			break;
	}
	close(fd);
	if (on_line)
		out("# prof: %s%s", prog, line);
	if (!first)
		out("# prof: %s end buckets=%zu", prog, bucket);
}

/*
 * A program that went silent may be stuck in the kernel: the task dump
 * of SysRq t (CONFIG_MAGIC_SYSRQ) shows where, on the console.
 */
static void dump_tasks(const char *prog, long silent_s)
{
	int fd;

	out("# vmshm: %s silent for %ld s: SysRq t", prog, silent_s);
	fd = open("/proc/sys/kernel/sysrq", O_WRONLY);
	if (fd >= 0) {
		write_all(fd, "1", 1);
		close(fd);
	}
	fd = open("/proc/sysrq-trigger", O_WRONLY);
	if (fd < 0) {
		out("# vmshm: no /proc/sysrq-trigger: %s", strerror(errno));
		return;
	}
	write_all(fd, "t", 1);
	close(fd);
}

/* Child of init: one sample a second until SIGTERM, then a last one. */
static pid_t start_sampler(const char *prog, int64_t t0)
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	signal(SIGTERM, on_term);
	for (int64_t tick = 0; !sampler_stop; tick++) {
		sample(prog, t0);
		sleep_ms(t0 + (tick + 1) * 1000 - now_ms());
	}
	sample(prog, t0);
	_exit(0);
}

/* ---- running one program ------------------------------------------------ */

struct prog_result {
	int status;		/* wait status */
	int64_t ms;
	int timed_out;
};

/* Copy program output to the console, indented, one write per line. */
struct relay {
	char buf[LINE_MAX_LEN];
	size_t len;
};

static void relay_flush(struct relay *r)
{
	if (r->len)
		out("    %.*s", (int)r->len, r->buf);
	r->len = 0;
}

static void relay_bytes(struct relay *r, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '\n') {
			relay_flush(r);
		} else if (p[i] != '\r') {
			r->buf[r->len++] = p[i];
			if (r->len == sizeof(r->buf))
				relay_flush(r);
		}
	}
}

static void run_prog(const char *name, long mem_mb, const char *extra,
		     long timeout_s, long sysrq_s, struct prog_result *res)
{
	char path[128], mem[32], extra_buf[512];
	char *argv[MAX_ARGS + 6];
	struct relay relay = { .len = 0 };
	long long rmap_before[NR_RMAP_COUNTERS];
	int pfd[2], argc = 0, eof = 0, done = 0, killed = 0;
	pid_t pid, sampler, p;
	int64_t t0, t_done = 0, t_out;
	int st, dumped = 0;

	snprintf(path, sizeof(path), "/bin/%s", name);
	snprintf(mem, sizeof(mem), "%ld", mem_mb);
	argv[argc++] = path;
	argv[argc++] = "-m";
	argv[argc++] = mem;
	argv[argc++] = "-d";
	argv[argc++] = data_dir;
	snprintf(extra_buf, sizeof(extra_buf), "%s", extra ? extra : "");
	argc += split(extra_buf, ',', argv + argc, MAX_ARGS);
	argv[argc] = NULL;

	if (pipe(pfd) != 0)
		fatal("pipe: %s", strerror(errno));
	rmap_snapshot(rmap_before);
	profile_reset();
	t0 = now_ms();
	pid = fork();
	if (pid < 0)
		fatal("fork: %s", strerror(errno));
	if (pid == 0) {
		setpgid(0, 0);
		close(pfd[0]);
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		if (pfd[1] > 2)
			close(pfd[1]);
		chdir(data_dir);
		execv(path, argv);
		printf("# vmshm: exec %s: %s\n", path, strerror(errno));
		fflush(stdout);
		_exit(127);
	}
	setpgid(pid, pid);	/* also here: no race with the kill below */
	close(pfd[1]);
	sampler = start_sampler(name, t0);

	res->timed_out = 0;
	t_out = t0;
	while (!(done && eof)) {
		struct pollfd pf = { .fd = pfd[0], .events = POLLIN };
		char chunk[2048];

		if (!eof && poll(&pf, 1, 250) > 0) {
			ssize_t n = read(pfd[0], chunk, sizeof(chunk));

			if (n > 0) {
				relay_bytes(&relay, chunk, n);
				t_out = now_ms();
			}
			else if (n == 0 || errno != EINTR)
				eof = 1;
		} else if (eof) {
			sleep_ms(100);
		}
		/* Reap everything that died: our program, the sampler if it
		 * died early, and orphans reparented to PID 1. */
		while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
			if (p == pid) {
				done = 1;
				res->status = st;
				res->ms = now_ms() - t0;
				t_done = now_ms();
				/* Leftover children of the program would
				 * keep the pipe open and disturb the next
				 * scenario. */
				kill(-pid, SIGKILL);
			} else if (p == sampler) {
				sampler = 0;
			}
		}
		if (!done && !killed && timeout_s > 0 &&
		    now_ms() - t0 > timeout_s * 1000) {
			out("# vmshm: %s timed out after %ld s, killing it",
			    name, timeout_s);
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			killed = res->timed_out = 1;
		}
		if (!done && !dumped && sysrq_s > 0 &&
		    now_ms() - t_out > sysrq_s * 1000) {
			dump_tasks(name, sysrq_s);
			dumped = 1;
		}
		if (done && !eof && now_ms() - t_done > 5000) {
			out("# vmshm: %s: output pipe still open 5 s after exit",
			    name);
			eof = 1;
		}
	}
	relay_flush(&relay);
	close(pfd[0]);
	rmap_report(rmap_before);

	if (sampler > 0) {
		int64_t t = now_ms();

		kill(sampler, SIGTERM);
		while ((p = waitpid(sampler, &st, WNOHANG)) == 0 &&
		       now_ms() - t < 3000)
			sleep_ms(20);
		if (p == 0) {
			kill(sampler, SIGKILL);
			waitpid(sampler, &st, 0);
		}
	}
	/* after the sampler, whose samples are not the program's */
	profile_dump(name);
}

/* ---- main --------------------------------------------------------------- */

static void print_guest(void)
{
	static char mi[4096], ci[16384];
	struct utsname u;
	long long mem, low, high, swap;
	int cpus = 0;
	char *p;

	if (uname(&u) == 0)
		out("# vmshm: kernel %s %s %s %s", u.sysname, u.release,
		    u.version, u.machine);
	read_file("/proc/meminfo", mi, sizeof(mi));
	if (read_file("/proc/cpuinfo", ci, sizeof(ci)) > 0)
		for (p = ci; (p = strstr(p, "processor")); p++)
			if (p == ci || p[-1] == '\n')
				cpus++;
	mem = field(mi, "MemTotal", 1);
	low = field(mi, "LowTotal", 1);
	high = field(mi, "HighTotal", 1);
	swap = field(mi, "SwapTotal", 1);
	out("# vmshm: MemTotal=%lld LowTotal=%lld HighTotal=%lld "
	    "SwapTotal=%lld kB CPUs=%d", mem, low, high, swap, cpus);
	out("# fig: guest.mem_kb %lld kB", mem);
	if (low >= 0)
		out("# fig: guest.low_kb %lld kB", low);
	if (high >= 0)
		out("# fig: guest.high_kb %lld kB", high);
	out("# fig: guest.swap_kb %lld kB", swap);
	out("# fig: guest.cpus %d cpus", cpus);
}

int main(void)
{
	static char list[4096], run[1024], mi[4096];
	char *progs[MAX_PROGS];
	int nprogs, i, npass = 0, nfail = 0, nskip = 0;
	long mem_mb, timeout_s, sysrq_s;

	setup_console();
	if (getpid() != 1)
		out("# vmshm: warning: not PID 1 (pid %d)", (int)getpid());
	out("KTAP version 1");
	mount_fs("proc", "/proc", "proc", 0);
	mount_fs("sysfs", "/sys", "sysfs", 1);
	mount_fs("tmpfs", "/tmp", "tmpfs", 0);
	mkdir("/dev", 0755);
	node("/dev/null", S_IFCHR, 1, 3);
	node("/dev/zero", S_IFCHR, 1, 5);
	node("/dev/urandom", S_IFCHR, 1, 9);
	node("/dev/tty", S_IFCHR, 5, 0);
	node("/dev/ram0", S_IFBLK, 1, 0);

	if (read_file("/proc/cmdline", cmdline, sizeof(cmdline)) < 0)
		fatal("cannot read /proc/cmdline: %s", strerror(errno));
	out("# vmshm: cmdline %.*s", (int)strcspn(cmdline, "\n"), cmdline);

	load_modules();
	setup_disks(option_long("vmshm.disks", 0));
	print_guest();
	{
		char sysctls[512];

		if (option("vmshm.sysctl", sysctls, sizeof(sysctls)))
			set_sysctls(sysctls);
	}

	read_file("/proc/meminfo", mi, sizeof(mi));
	mem_mb = option_long("vmshm.mem", field(mi, "MemTotal", 1) / 1024);
	timeout_s = option_long("vmshm.timeout", 0);
	sysrq_s = option_long("vmshm.sysrq", 0);
	if (!option("vmshm.run", run, sizeof(run)) || !strcmp(run, "all")) {
		if (read_file("/etc/vmshm/programs", list, sizeof(list)) < 0)
			fatal("no /etc/vmshm/programs and no vmshm.run=");
		nprogs = split(list, '\n', progs, MAX_PROGS);
	} else {
		nprogs = split(run, ',', progs, MAX_PROGS);
	}
	out("# vmshm: mem=%ld MB data=%s programs=%d", mem_mb, data_dir,
	    nprogs);
	out("1..%d", nprogs);

	for (i = 0; i < nprogs; i++) {
		struct prog_result res = { 0 };
		char key[96], extra[512];
		const char *verdict = "not ok", *directive = "";
		int st;

		snprintf(key, sizeof(key), "vmshm.args.%s", progs[i]);
		if (!option(key, extra, sizeof(extra)))
			extra[0] = 0;
		out("# vmshm: start %s", progs[i]);
		run_prog(progs[i], mem_mb, extra, timeout_s, sysrq_s, &res);
		st = res.status;
		if (WIFEXITED(st)) {
			out("# vmshm: end %s exit=%d ms=%lld", progs[i],
			    WEXITSTATUS(st), (long long)res.ms);
			if (WEXITSTATUS(st) == 0) {
				verdict = "ok";
			} else if (WEXITSTATUS(st) == 4) {
				verdict = "ok";
				directive = " # SKIP";
			}
		} else {
			out("# vmshm: end %s signal=%d ms=%lld%s", progs[i],
			    WIFSIGNALED(st) ? WTERMSIG(st) : -1,
			    (long long)res.ms,
			    res.timed_out ? " timeout" : "");
		}
		out("%s %d %s%s", verdict, i + 1, progs[i], directive);
		if (*directive)
			nskip++;
		else if (!strcmp(verdict, "ok"))
			npass++;
		else
			nfail++;
	}
	/* kselftest's counts line, as the objrmap harness prints it too */
	out("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0",
	    npass, nfail, nskip);
	out("# vmshm: done");
	finish();
}
