/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmshm.h - helpers shared by the vm-shm testcases.
 *
 * KTAP output, figures, /proc readers, a clock that survives the 2.6.3
 * CLOCK_MONOTONIC bug, option parsing, child bookkeeping, a latency
 * probe and an anonymous memory hog.  Everything here must build with
 * musl (static i386, run on 2.6.3) and with the host libc.
 */
#ifndef VMSHM_H
#define VMSHM_H

#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/resource.h>

#define VM_KB		1024ULL
#define VM_MB		(1024ULL * 1024ULL)
#define VM_BLK		4096		/* unit of the data patterns */
#define VM_BLK_WORDS	(VM_BLK / 4)

#define VM_PRINTF(a, b)	__attribute__((format(printf, a, b)))
#define VM_NORETURN	__attribute__((noreturn))

/* ---- common configuration (set by vm_init) ---- */
struct vm_common {
	long mem_mb;		/* -m: memory the test scales to */
	const char *dir;	/* -d: directory for files */
	long timeout_s;		/* -T: safety alarm */
};
extern struct vm_common vm_cfg;
extern const char *vm_prog;
extern long vm_pagesize;
extern int vm_is_child;

/* ---- options ---- */
enum vm_opt_type { VM_OPT_LONG, VM_OPT_DOUBLE, VM_OPT_STR, VM_OPT_FLAG };

struct vm_opt {
	char c;			/* option letter; 0 terminates the table */
	enum vm_opt_type type;
	void *ptr;		/* long *, double *, const char **, int * */
	const char *arg;	/* argument name for usage */
	const char *help;
};

/*
 * Parse -m -d -T -h plus @opts, install the exit/timeout handlers, set
 * stdout line buffered and arm the alarm.  Defaults: -m MemTotal, -d
 * /data if it is a directory else /tmp, -T @timeout_s.
 */
void vm_init(const char *prog, int argc, char **argv,
	     const struct vm_opt *opts, const char *summary, long timeout_s);

/* ---- KTAP ---- */
void ktap_header(int n);
void ktap_names(const char *const *names);	/* for timeout lines */
void ktap_diag(const char *fmt, ...) VM_PRINTF(1, 2);
void ktap_ok(const char *name, const char *fmt, ...) VM_PRINTF(2, 3);
void ktap_fail(const char *name, const char *fmt, ...) VM_PRINTF(2, 3);
void ktap_skip(const char *name, const char *fmt, ...) VM_PRINTF(2, 3);
void ktap_result(int pass, const char *name, const char *fmt, ...)
	VM_PRINTF(3, 4);
int ktap_pending(void);		/* planned tests not yet reported */
int ktap_totals(void);		/* prints totals, returns the exit code */
void ktap_exit(void) VM_NORETURN;	/* kill children, totals, exit */
void ktap_skip_all(const char *reason) VM_NORETURN;
void vm_phase(const char *what);	/* named in the timeout message */

/* ---- figures and progress ---- */
void vm_fig_i(const char *key, long long v, const char *unit);
void vm_fig_f(const char *key, double v, const char *unit);
void vm_progress(const char *fmt, ...) VM_PRINTF(1, 2);	/* <= 1 per 2 s */

/* ---- time ---- */
double vm_now_ms(void);		/* monotonic, never goes backwards */
void vm_sleep_ms(long ms);
/*
 * Seconds since midnight by the PC's CMOS clock, which QEMU keeps on
 * the host's time while the guest's own clock may run fast or slow
 * (2.6.3 under TCG); -1 without port access (not root, not x86).
 */
long vm_cmos_seconds(void);

/* ---- /proc readers; -1 when absent ---- */
long long vm_meminfo_kb(const char *key);
long long vm_lowfree_kb(void);		/* LowFree, else MemFree */
long long vm_vmstat(const char *key);
long long vm_status_kb(const char *key);	/* /proc/self/status */
long long vm_pid_status_kb(pid_t pid, const char *key);	/* another's */
/* "Out of Memory: Killed" lines in the kernel log since boot */
long vm_oom_kills(void);
/* the pids of those lines, the last @max; -1 if the log is unreadable */
int vm_oom_killed_pids(pid_t *pids, int max);
long long vm_proc_long(const char *path);	/* first number of a file */
/* utime + stime of /proc/<pid>/stat, in clock ticks; -1 on error */
long long vm_proc_stat_ticks(const char *path);
long vm_clk_tck(void);
/*
 * Slab cache @name from /proc/slabinfo: active_objs*objsize,
 * num_objs*objsize and the slab pages.  -1 when unreadable or absent.
 */
int vm_slab(const char *name, long long *active_bytes,
	    long long *total_bytes, long long *pages);

enum { VMS_PSWPIN, VMS_PSWPOUT, VMS_PGPGIN, VMS_PGPGOUT, VMS_PGFAULT,
       VMS_PGMAJFAULT, VMS_N };
struct vm_vmstat_snap {
	long long v[VMS_N];
};
void vm_vmstat_snap(struct vm_vmstat_snap *s);
long long vm_vmstat_delta(const struct vm_vmstat_snap *a,
			  const struct vm_vmstat_snap *b, int idx);

/* ---- memory budget ---- */
uint64_t vm_mem_bytes(void);		/* -m in bytes */
/* what can still be allocated: free + cache + swap free - @held - reserve */
uint64_t vm_avail_bytes(uint64_t held);
/* @bytes of pressure capped to vm_avail_bytes(@held), saying so if it is */
uint64_t vm_cap_pressure(uint64_t bytes, uint64_t held);
uint64_t vm_reserve_bytes(void);
uint64_t vm_vsize_cap(uint64_t bytes);	/* keep one mapping sane on 32 bit */

/* ---- files ---- */
int vm_is_tmpfs(const char *dir);
const char *vm_find_tmpfs(const char *pref);	/* NULL if none */
uint64_t vm_fs_avail(const char *dir);
void vm_register_path(const char *path);	/* unlinked on timeout */
void vm_unregister_path(const char *path);
/*
 * Scratch files: dir/vmshm-<prog>-<tag>-<pid>[-<n>] (no -n for n < 0),
 * created empty and registered; vm_scratch_close() closes and unlinks.
 * vm_scratch_map() also sizes the file to @file_bytes and maps its
 * first @map_bytes MAP_SHARED read-write: NULL (the file gone, errno
 * kept) if any step fails.  vm_remap_probe() ends the program with
 * SKIP unless remap_file_pages() takes a file in @dir.
 */
int vm_scratch_open(const char *dir, const char *tag, long n, char *path,
		    size_t len);
void vm_scratch_close(int fd, const char *path);
char *vm_scratch_map(const char *dir, const char *tag, long n,
		     uint64_t file_bytes, uint64_t map_bytes, char *path,
		     size_t len, int *fdp);
void vm_remap_probe(const char *dir);
int vm_write_all(int fd, const void *buf, size_t len);
int vm_pread_all(int fd, void *buf, size_t len, off_t off);
int vm_pwrite_all(int fd, const void *buf, size_t len, off_t off);

/*
 * SIGBUS probing: after vm_sigbus_install(code), vm_read_bus() reads one
 * word and returns 1 if the read raised SIGBUS (a page beyond EOF); a
 * SIGBUS anywhere else ends the program with exit status @code.
 */
void vm_sigbus_install(int code);
int vm_read_bus(const volatile uint32_t *p, uint32_t *val);

/* pages of [@p, @p + @len) resident in memory (mincore); -1 on error */
long vm_resident_pages(void *p, size_t len);

/* ---- SysV shm: created, attached and IPC_RMID'd at once ---- */
void *vm_shm_create(uint64_t bytes, int *idp);

/* ---- children ---- */
pid_t vm_fork(void);		/* bookkept; the child dies with us */
int vm_wait(pid_t pid, int *status, struct rusage *ru);
int vm_wait_timeout(pid_t pid, int *status, struct rusage *ru,
		    double timeout_ms);
void vm_kill_all(void);
void vm_forget_child(pid_t pid);	/* reaped by hand */
/*
 * SIGKILL the process group led by @pid (a child that called setpgid(0,
 * 0)) and, unless @reaped, reap the leader within 10 s or say so.
 */
void vm_kill_group(pid_t pid, int reaped, const char *what);
int vm_nchildren(void);
void vm_rusage_add(struct rusage *sum, const struct rusage *r);

/* ---- data patterns: one 4096-byte block, self-describing ---- */
#define VM_MAGIC	0x564d5348u	/* "VMSH" */
uint32_t vm_pat_base(uint32_t seed, uint64_t blk, uint32_t gen);
void vm_fill_blk(void *p, uint32_t seed, uint64_t blk, uint32_t gen);
/* returns number of bad words; first bad word index/expected/got */
long vm_check_blk(const void *p, uint32_t seed, uint64_t blk, uint32_t gen,
		  long *bad, uint32_t *exp, uint32_t *got);

/* ---- latency probe ---- */
struct vm_probe_shared;
struct vm_probe {
	pid_t pid;
	struct vm_probe_shared *sh;
};
/*
 * Fork the probe: a child that locks its own memory, switches to
 * SCHED_FIFO when allowed (figure probe_fifo_prio; SCHED_OTHER and a
 * diagnostic otherwise) and sleeps @period_ms in a loop, recording the
 * longest gap between two wakeups: how long the kernel kept it waiting.
 */
int vm_probe_start(struct vm_probe *p, long period_ms);
void vm_probe_reset(struct vm_probe *p);
double vm_probe_max_ms(struct vm_probe *p);	/* longest wakeup gap */
long vm_probe_samples(struct vm_probe *p);
void vm_probe_stop(struct vm_probe *p);

/* ---- anonymous memory hog / pressure ---- */
#define VM_HOG_MAX	16
struct vm_hog_shared;
struct vm_hog {
	int n;
	pid_t pid[VM_HOG_MAX];
	uint64_t bytes;
	double t0;
	struct vm_hog_shared *sh;
	int go_fd[2];
};
/* start workers touching @bytes in total; they hold it until stopped */
int vm_hog_start(struct vm_hog *h, uint64_t bytes);
/* the same, the workers at nice(@inc) */
int vm_hog_start_nice(struct vm_hog *h, uint64_t bytes, int inc);
/*
 * The same in two steps: fork the workers for up to @max_bytes now, so
 * that they do not inherit (and map, at fork's cost) what the caller maps
 * later, such as a shm segment; they wait, blocked, until vm_hog_go()
 * hands them @bytes (at most @max_bytes) to touch.  vm_hog_stop() as
 * usual, started or not.
 */
int vm_hog_prepare(struct vm_hog *h, uint64_t max_bytes, int inc);
void vm_hog_go(struct vm_hog *h, uint64_t bytes);
/* before vm_hog_go(): touch at most @bytes_per_s in all, 0 as fast as can be */
void vm_hog_set_rate(struct vm_hog *h, uint64_t bytes_per_s);
uint64_t vm_hog_touched(struct vm_hog *h);
int vm_hog_done(struct vm_hog *h);	/* 1 all touched, -1 a worker failed */
double vm_hog_done_ms(struct vm_hog *h);	/* -1 if not done */
/*
 * Wait until all touched or @timeout_s; @tick is called every ~50 ms
 * (may be NULL).  0 done, 1 timeout, -1 worker failed.
 */
int vm_hog_wait(struct vm_hog *h, double timeout_s,
		void (*tick)(void *), void *arg);
void vm_hog_stop(struct vm_hog *h, struct rusage *ru);

#define VM_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define VM_MIN(a, b)		((a) < (b) ? (a) : (b))
#define VM_MAX(a, b)		((a) > (b) ? (a) : (b))

#endif /* VMSHM_H */
