// SPDX-License-Identifier: GPL-2.0
/*
 * syscall_regs - every system call the vm-shm testcases (and their libc)
 * use must return with all user registers but %eax unchanged.
 *
 * On i386 the kernel's C syscall functions receive their arguments in the
 * very stack slots that hold the saved user registers (struct pt_regs);
 * a compiler that stores into an argument (mode &= ~umask in sys_mknod)
 * silently changes the caller's %ecx.  Each test loads %ebx, %ecx, %edx,
 * %esi, %edi and %ebp with real arguments (sentinels where unused), enters
 * the kernel with int $0x80 (the path that always reloads the registers
 * from pt_regs) and, when the kernel offers one, again through the
 * AT_SYSINFO vsyscall entry that libc uses, then compares all six.  The
 * arguments are chosen so that the kernel really runs the code that might
 * modify them (umask bits in the mode, unaligned lengths, a timeout that
 * gets converted, ...).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <poll.h>
#include <stdarg.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "vmshm.h"

static const char summary[] =
	"syscall_regs: check that i386 syscalls preserve user registers";

#if !defined(__i386__)

int main(int argc, char **argv)
{
	vm_init("syscall_regs", argc, argv, NULL, summary, 60);
	ktap_skip_all("not i386");
}

#else /* __i386__ */

#include <sched.h>
#include <sys/auxv.h>
#include <sys/shm.h>
#include <sys/syscall.h>

/*
 * long sc_raw(long nr, const unsigned long in[6], unsigned long out[6],
 *	       void *entry)
 *
 * in/out: ebx ecx edx esi edi ebp.  entry == NULL: int $0x80, else call
 * the vsyscall entry.  Written as a whole function so that no register
 * (the PIC %ebx, the frame pointer %ebp) is live across the syscall.
 */
long sc_raw(long nr, const unsigned long *in, unsigned long *out,
	    void *entry);
__asm__(
	".text\n"
	".globl sc_raw\n"
	".type sc_raw, @function\n"
	"sc_raw:\n"
	"	pushl %ebp\n"
	"	pushl %ebx\n"
	"	pushl %esi\n"
	"	pushl %edi\n"
	"	movl 20(%esp), %eax\n"		/* nr */
	"	movl 24(%esp), %ecx\n"		/* in */
	"	movl 0(%ecx), %ebx\n"
	"	movl 8(%ecx), %edx\n"
	"	movl 12(%ecx), %esi\n"
	"	movl 16(%ecx), %edi\n"
	"	movl 20(%ecx), %ebp\n"
	"	movl 4(%ecx), %ecx\n"
	"	cmpl $0, 32(%esp)\n"		/* entry */
	"	jne 1f\n"
	"	int $0x80\n"
	"	jmp 2f\n"
	"1:	call *32(%esp)\n"
	"2:	pushl %ecx\n"
	"	movl 32(%esp), %ecx\n"		/* out (28 + the push) */
	"	movl %ebx, 0(%ecx)\n"
	"	popl 4(%ecx)\n"
	"	movl %edx, 8(%ecx)\n"
	"	movl %esi, 12(%ecx)\n"
	"	movl %edi, 16(%ecx)\n"
	"	movl %ebp, 20(%ecx)\n"
	"	popl %edi\n"
	"	popl %esi\n"
	"	popl %ebx\n"
	"	popl %ebp\n"
	"	ret\n"
	".size sc_raw, .-sc_raw\n"
);

static const char *const regname[6] = {
	"ebx", "ecx", "edx", "esi", "edi", "ebp"
};

/* fixture */
static char dir[200];
static char path_file[256], path_tmp[256], path_dir[256], path_fifo[256];
static int fd_file = -1, fd_w = -1, pipefd[2] = { -1, -1 };
static char *anon;		/* 8 pages, anonymous */
static char buf[8192];
static volatile sig_atomic_t got_usr1;

/* per-test scratch */
static char why[256];
static pid_t child;
static char *map;
static size_t map_len;
static int shmid = -1;
static unsigned long scratch[64];

#define NPAGE	4		/* pages of path_file */

static void on_usr1(int sig)
{
	(void)sig;
	got_usr1 = 1;
}

static int fail(const char *fmt, ...) VM_PRINTF(1, 2);
static int fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return 1;
}

static int expect_ok(long ret, const char *what)
{
	if (ret < 0 && ret > -4096)
		return fail("%s returned %s", what, strerror((int)-ret));
	return 0;
}

static int expect_val(long ret, long want, const char *what)
{
	if (ret != want) {
		if (ret < 0 && ret > -4096)
			return fail("%s: %s, expected %ld", what,
				    strerror((int)-ret), want);
		return fail("%s returned %ld, expected %ld", what, ret, want);
	}
	return 0;
}

/* 0 ok, 2 ok-but-not-run (privilege): noted in why */
static int expect_errs(long ret, const int *errs, int n, const char *what)
{
	int i;

	if (ret >= 0 || ret <= -4096)
		return 0;
	for (i = 0; i < n; i++) {
		if (-ret == errs[i]) {
			snprintf(why, sizeof(why), "%s: %s (expected)", what,
				 strerror(errs[i]));
			return 0;
		}
	}
	return fail("%s returned %s", what, strerror((int)-ret));
}

static void make_file(const char *p, size_t len)
{
	int fd = open(p, O_CREAT | O_TRUNC | O_WRONLY, 0644);

	if (fd >= 0) {
		memset(buf, 'f', sizeof(buf));
		while (len) {
			size_t n = VM_MIN(len, sizeof(buf));

			if (vm_write_all(fd, buf, n) != 0)
				break;
			len -= n;
		}
		close(fd);
	}
}

static void kill_child(void)
{
	if (child > 0) {
		kill(child, SIGKILL);
		vm_wait(child, NULL, NULL);
	}
	child = 0;
}

static void unmap(void)
{
	if (map && map != MAP_FAILED)
		munmap(map, map_len);
	map = NULL;
}

/* ---- the tests: prep fills the arguments, post checks the result ---- */

struct sc_test {
	const char *name;
	long nr;
	int nargs;
	int (*prep)(unsigned long *a);	/* 0 run, 1 error (why), 2 skip */
	int (*post)(long ret, unsigned long *a);	/* 0 ok, 1 fail */
	int forks;			/* the child returns here too */
	int noreturn;			/* exit: checked by status only */
};

static int p_none(unsigned long *a)
{
	(void)a;
	return 0;
}

static int q_ok(long ret, unsigned long *a)
{
	(void)a;
	return expect_ok(ret, "syscall");
}

static int p_mknod(unsigned long *a)
{
	unlink(path_fifo);
	a[0] = (unsigned long)path_fifo;
	a[1] = S_IFIFO | 0777;		/* umask 022 clears bits */
	a[2] = 0;
	return 0;
}

static int q_mknod(long ret, unsigned long *a)
{
	struct stat st;
	int r;

	(void)a;
	r = expect_ok(ret, "mknod");
	if (!r && (stat(path_fifo, &st) != 0 || (st.st_mode & 0777) != 0755))
		r = fail("fifo missing or mode not 0755");
	unlink(path_fifo);
	return r;
}

static int p_mkdir(unsigned long *a)
{
	rmdir(path_dir);
	a[0] = (unsigned long)path_dir;
	a[1] = 0777;
	return 0;
}

static int q_mkdir(long ret, unsigned long *a)
{
	int r = expect_ok(ret, "mkdir");

	(void)a;
	rmdir(path_dir);
	return r;
}

static int p_rmdir(unsigned long *a)
{
	if (mkdir(path_dir, 0755) != 0 && errno != EEXIST)
		return fail("mkdir: %s", strerror(errno));
	a[0] = (unsigned long)path_dir;
	return 0;
}

static int p_chdir(unsigned long *a)
{
	a[0] = (unsigned long)dir;
	return 0;
}

static int q_chdir(long ret, unsigned long *a)
{
	(void)a;
	if (chdir("/") != 0)
		return fail("chdir /: %s", strerror(errno));
	return expect_ok(ret, "chdir");
}

static int p_open(unsigned long *a)
{
	unlink(path_tmp);
	a[0] = (unsigned long)path_tmp;
	a[1] = O_CREAT | O_RDWR | O_TRUNC | O_LARGEFILE;
	a[2] = 0666;
	return 0;
}

static int q_open(long ret, unsigned long *a)
{
	int r = expect_ok(ret, "open");

	(void)a;
	if (!r)
		close((int)ret);
	unlink(path_tmp);
	return r;
}

static int p_close(unsigned long *a)
{
	int fd = open(path_file, O_RDONLY);

	if (fd < 0)
		return fail("open: %s", strerror(errno));
	a[0] = fd;
	return 0;
}

static int p_read(unsigned long *a)
{
	if (lseek(fd_file, 0, SEEK_SET) != 0)
		return fail("lseek: %s", strerror(errno));
	a[0] = fd_file;
	a[1] = (unsigned long)buf;
	a[2] = 100;
	return 0;
}

static int q_read(long ret, unsigned long *a)
{
	(void)a;
	return expect_val(ret, 100, "read");
}

static int p_write(unsigned long *a)
{
	memset(buf, 'w', 123);
	a[0] = fd_w;
	a[1] = (unsigned long)buf;
	a[2] = 123;
	return 0;
}

static int q_write(long ret, unsigned long *a)
{
	(void)a;
	return expect_val(ret, 123, "write");
}

static struct iovec iov[2];

static int p_writev(unsigned long *a)
{
	iov[0].iov_base = buf;
	iov[0].iov_len = 10;
	iov[1].iov_base = buf + 100;
	iov[1].iov_len = 20;
	a[0] = fd_w;
	a[1] = (unsigned long)iov;
	a[2] = 2;
	return 0;
}

static int q_vec(long ret, unsigned long *a)
{
	(void)a;
	return expect_val(ret, 30, "readv/writev");
}

static int p_readv(unsigned long *a)
{
	if (lseek(fd_file, 0, SEEK_SET) != 0)
		return fail("lseek: %s", strerror(errno));
	p_writev(a);
	a[0] = fd_file;
	return 0;
}

static int p_lseek(unsigned long *a)
{
	a[0] = fd_file;
	a[1] = 4097;
	a[2] = SEEK_SET;
	return 0;
}

static int q_lseek(long ret, unsigned long *a)
{
	(void)a;
	return expect_val(ret, 4097, "lseek");
}

static long long llres;

static int p_llseek(unsigned long *a)
{
	llres = -1;
	a[0] = fd_file;
	a[1] = 0;		/* high */
	a[2] = 8193;		/* low */
	a[3] = (unsigned long)&llres;
	a[4] = SEEK_SET;
	return 0;
}

static int q_llseek(long ret, unsigned long *a)
{
	(void)a;
	if (expect_ok(ret, "_llseek"))
		return 1;
	if (llres != 8193)
		return fail("_llseek result %lld, expected 8193", llres);
	return 0;
}

static int p_unlink(unsigned long *a)
{
	make_file(path_tmp, 10);
	a[0] = (unsigned long)path_tmp;
	return 0;
}

static int p_stat(unsigned long *a)
{
	a[0] = (unsigned long)path_file;
	a[1] = (unsigned long)buf;
	return 0;
}

static int p_fstat(unsigned long *a)
{
	a[0] = fd_file;
	a[1] = (unsigned long)buf;
	return 0;
}

static int p_statfs64(unsigned long *a)
{
	a[0] = (unsigned long)dir;
	a[1] = 84;		/* sizeof(struct statfs64) on i386 */
	a[2] = (unsigned long)buf;
	return 0;
}

static int trunc_fd = -1;

static int p_truncate(unsigned long *a)
{
	make_file(path_tmp, 3 * 4096);
	a[0] = (unsigned long)path_tmp;
	a[1] = 4096 + 10;
	return 0;
}

static int p_truncate64(unsigned long *a)
{
	make_file(path_tmp, 3 * 4096);
	a[0] = (unsigned long)path_tmp;
	a[1] = 4096 + 10;	/* low */
	a[2] = 0;		/* high */
	return 0;
}

static int q_trunc(long ret, unsigned long *a)
{
	struct stat st;
	int r;

	(void)a;
	r = expect_ok(ret, "truncate");
	if (!r && (stat(path_tmp, &st) != 0 || st.st_size != 4096 + 10))
		r = fail("size after truncate is wrong");
	if (trunc_fd >= 0)
		close(trunc_fd);
	trunc_fd = -1;
	unlink(path_tmp);
	return r;
}

static int p_ftruncate(unsigned long *a)
{
	int fd;

	make_file(path_tmp, 3 * 4096);
	fd = open(path_tmp, O_RDWR);
	if (fd < 0)
		return fail("open: %s", strerror(errno));
	trunc_fd = fd;		/* closed in q_trunc */
	a[0] = fd;
	a[1] = 4096 + 10;
	a[2] = 0;
	return 0;
}

static int p_fd_file(unsigned long *a)
{
	a[0] = fd_file;
	return 0;
}

static struct { long tv_sec, tv_usec; } tv32;
static struct { int minuteswest, dsttime; } tz32;

static int p_gettimeofday(unsigned long *a)
{
	a[0] = (unsigned long)&tv32;
	a[1] = (unsigned long)&tz32;
	return 0;
}

static struct { long sec, nsec; } ts32, rem32;

static int p_clock_gettime(unsigned long *a)
{
	a[0] = CLOCK_MONOTONIC;
	a[1] = (unsigned long)&ts32;
	return 0;
}

static int p_nanosleep(unsigned long *a)
{
	ts32.sec = 0;
	ts32.nsec = 2000000;
	a[0] = (unsigned long)&ts32;
	a[1] = (unsigned long)&rem32;
	return 0;
}

static int p_getrusage(unsigned long *a)
{
	a[0] = (unsigned long)RUSAGE_SELF;
	a[1] = (unsigned long)buf;
	return 0;
}

static int p_setitimer(unsigned long *a)
{
	memset(scratch, 0, sizeof(scratch));
	a[0] = ITIMER_PROF;	/* disarm: leaves the -T alarm alone */
	a[1] = (unsigned long)&scratch[0];
	a[2] = (unsigned long)&scratch[8];
	return 0;
}

static int fork_exiter(int code, long delay_ms)
{
	child = vm_fork();
	if (child < 0)
		return fail("fork: %s", strerror(errno));
	if (child == 0) {
		if (delay_ms)
			vm_sleep_ms(delay_ms);
		_exit(code);
	}
	return 0;
}

static int p_wait4(unsigned long *a)
{
	if (fork_exiter(7, 0))
		return 1;
	scratch[0] = 0;
	a[0] = child;
	a[1] = (unsigned long)&scratch[0];
	a[2] = 0;
	a[3] = (unsigned long)buf;	/* rusage */
	return 0;
}

static int q_wait(long ret, unsigned long *a)
{
	int st = (int)scratch[0];

	(void)a;
	if (ret == child) {
		vm_forget_child(child);
		child = 0;
	}
	if (expect_val(ret, child ? child : ret, "wait"))
		return 1;
	kill_child();
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 7)
		return fail("wait status 0x%x, expected exit 7", st);
	return 0;
}

static int p_waitpid(unsigned long *a)
{
	if (fork_exiter(7, 0))
		return 1;
	scratch[0] = 0;
	a[0] = child;
	a[1] = (unsigned long)&scratch[0];
	a[2] = 0;
	return 0;
}

static int p_kill_self(unsigned long *a)
{
	got_usr1 = 0;
	a[0] = getpid();
	a[1] = SIGUSR1;
	return 0;
}

static int q_kill_self(long ret, unsigned long *a)
{
	(void)a;
	if (expect_ok(ret, "kill"))
		return 1;
	if (!got_usr1)
		return fail("SIGUSR1 not delivered");
	return 0;
}

static int p_kill_child(unsigned long *a)
{
	child = vm_fork();
	if (child < 0)
		return fail("fork: %s", strerror(errno));
	if (child == 0)
		for (;;)
			pause();
	a[0] = child;
	a[1] = SIGKILL;
	return 0;
}

static int q_kill_child(long ret, unsigned long *a)
{
	int st = 0;

	(void)a;
	if (expect_ok(ret, "kill")) {
		kill_child();
		return 1;
	}
	vm_wait(child, &st, NULL);
	child = 0;
	if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL)
		return fail("child status 0x%x, expected SIGKILL", st);
	return 0;
}

/*
 * sched_setscheduler: what the latency probe does to itself (SCHED_FIFO
 * 1), done to a paused child so that this program stays SCHED_OTHER.
 * EPERM without the privilege (a modern kernel, RLIMIT_RTPRIO 0).
 */
static struct sched_param sp;
static long sched_want;		/* the child's policy, as set */

static int fork_pauser(void)
{
	child = vm_fork();
	if (child < 0)
		return fail("fork: %s", strerror(errno));
	if (child == 0)
		for (;;)
			pause();
	return 0;
}

static int p_sched_setscheduler(unsigned long *a)
{
	if (fork_pauser())
		return 1;
	memset(&sp, 0, sizeof(sp));
	sp.sched_priority = 1;
	a[0] = child;
	a[1] = SCHED_FIFO;
	a[2] = (unsigned long)&sp;
	return 0;
}

static const int sched_errs[] = { EPERM };

static int q_sched_setscheduler(long ret, unsigned long *a)
{
	long pol;
	int r;

	(void)a;
	r = expect_errs(ret, sched_errs, 1, "sched_setscheduler");
	if (!r && ret == 0) {
		pol = syscall(SYS_sched_getscheduler, child);
		if (pol != SCHED_FIFO)
			r = fail("child's policy %ld after it, expected "
				 "SCHED_FIFO", pol);
	}
	kill_child();
	return r;
}

/* sched_getscheduler of a paused child made SCHED_FIFO if we may */
static int p_sched_getscheduler(unsigned long *a)
{
	if (fork_pauser())
		return 1;
	memset(&sp, 0, sizeof(sp));
	sp.sched_priority = 1;
	sched_want = syscall(SYS_sched_setscheduler, child, SCHED_FIFO,
			     &sp) == 0 ? SCHED_FIFO : SCHED_OTHER;
	a[0] = child;
	return 0;
}

static int q_sched_getscheduler(long ret, unsigned long *a)
{
	int r;

	(void)a;
	r = expect_val(ret, sched_want, "sched_getscheduler");
	kill_child();
	return r;
}

static int p_pause(unsigned long *a)
{
	pid_t parent = getpid();

	(void)a;
	got_usr1 = 0;
	child = vm_fork();
	if (child < 0)
		return fail("fork: %s", strerror(errno));
	if (child == 0) {
		vm_sleep_ms(30);
		kill(parent, SIGUSR1);
		_exit(0);
	}
	return 0;
}

static int q_pause(long ret, unsigned long *a)
{
	(void)a;
	kill_child();
	if (ret != -EINTR)
		return fail("pause returned %ld, expected -EINTR", ret);
	if (!got_usr1)
		return fail("SIGUSR1 not delivered");
	return 0;
}

static struct pollfd pfd;

static void drain_pipe(void)
{
	char c[64];

	while (read(pipefd[0], c, sizeof(c)) > 0)
		;
}

static int p_poll_timeout(unsigned long *a)
{
	drain_pipe();
	pfd.fd = pipefd[0];
	pfd.events = POLLIN;
	pfd.revents = 0;
	a[0] = (unsigned long)&pfd;
	a[1] = 1;
	a[2] = 20;		/* ms: converted to jiffies in the kernel */
	return 0;
}

static int q_poll_timeout(long ret, unsigned long *a)
{
	(void)a;
	return expect_val(ret, 0, "poll (timeout)");
}

static int p_poll_ready(unsigned long *a)
{
	p_poll_timeout(a);
	if (write(pipefd[1], "x", 1) != 1)
		return fail("pipe write: %s", strerror(errno));
	a[2] = 1000;
	return 0;
}

static int q_poll_ready(long ret, unsigned long *a)
{
	(void)a;
	drain_pipe();
	return expect_val(ret, 1, "poll (ready)");
}

static int p_ioctl(unsigned long *a)
{
	drain_pipe();
	if (write(pipefd[1], "12345", 5) != 5)
		return fail("pipe write: %s", strerror(errno));
	scratch[0] = 0;
	a[0] = pipefd[0];
	a[1] = FIONREAD;
	a[2] = (unsigned long)&scratch[0];
	return 0;
}

static int q_ioctl(long ret, unsigned long *a)
{
	(void)a;
	drain_pipe();
	if (expect_ok(ret, "ioctl(FIONREAD)"))
		return 1;
	if ((int)scratch[0] != 5)
		return fail("FIONREAD said %d, expected 5", (int)scratch[0]);
	return 0;
}

static int p_pipe(unsigned long *a)
{
	scratch[0] = scratch[1] = (unsigned long)-1;
	a[0] = (unsigned long)&scratch[0];
	return 0;
}

static int q_pipe(long ret, unsigned long *a)
{
	int *fds = (int *)&scratch[0];

	(void)a;
	if (expect_ok(ret, "pipe"))
		return 1;
	close(fds[0]);
	close(fds[1]);
	return 0;
}

static int p_dup2(unsigned long *a)
{
	a[0] = fd_file;
	a[1] = 200;
	return 0;
}

static int q_dup2(long ret, unsigned long *a)
{
	(void)a;
	close(200);
	return expect_val(ret, 200, "dup2");
}

static int p_umask(unsigned long *a)
{
	a[0] = 022;
	return 0;
}

static int q_umask(long ret, unsigned long *a)
{
	(void)a;
	return expect_val(ret, 022, "umask");
}

/* kernel struct sigaction for rt_sigaction on i386 */
static struct {
	unsigned long handler, flags, restorer, mask[2];
} ksa, koldsa;

static int p_rt_sigaction(unsigned long *a)
{
	memset(&ksa, 0, sizeof(ksa));
	ksa.handler = (unsigned long)SIG_IGN;
	a[0] = SIGUSR2;
	a[1] = (unsigned long)&ksa;
	a[2] = (unsigned long)&koldsa;
	a[3] = 8;
	return 0;
}

static int q_rt_sigaction(long ret, unsigned long *a)
{
	(void)a;
	signal(SIGUSR2, SIG_DFL);
	return expect_ok(ret, "rt_sigaction");
}

static int p_rt_sigprocmask(unsigned long *a)
{
	scratch[0] = scratch[1] = 0;	/* block nothing */
	a[0] = SIG_BLOCK;
	a[1] = (unsigned long)&scratch[0];
	a[2] = (unsigned long)&scratch[4];
	a[3] = 8;
	return 0;
}

static int p_prctl(unsigned long *a)
{
	a[0] = 2;		/* PR_GET_PDEATHSIG */
	a[1] = (unsigned long)&scratch[0];
	return 0;
}

static int tidword;

static int p_set_tid_address(unsigned long *a)
{
	a[0] = (unsigned long)&tidword;
	return 0;
}

static unsigned long brk_cur;

static int p_brk(unsigned long *a)
{
	brk_cur = (unsigned long)syscall(SYS_brk, 0);
	a[0] = brk_cur + 8192;
	return 0;
}

static int q_brk(long ret, unsigned long *a)
{
	(void)a;
	if ((unsigned long)ret == brk_cur + 8192)
		syscall(SYS_brk, brk_cur);
	else if ((unsigned long)ret == brk_cur)
		snprintf(why, sizeof(why), "brk could not grow (ok)");
	else
		return fail("brk returned 0x%lx, current 0x%lx", ret,
			    brk_cur);
	return 0;
}

static unsigned long margs[6];

static int p_old_mmap(unsigned long *a)
{
	margs[0] = 0;
	margs[1] = 8192;
	margs[2] = PROT_READ | PROT_WRITE;
	margs[3] = MAP_PRIVATE | MAP_ANONYMOUS;
	margs[4] = (unsigned long)-1;
	margs[5] = 0;
	a[0] = (unsigned long)margs;
	return 0;
}

static int q_mapped(long ret, unsigned long *a, size_t len, int want)
{
	(void)a;
	if (ret < 0 && ret > -4096)
		return fail("mmap returned %s", strerror((int)-ret));
	map = (char *)ret;
	map_len = len;
	if (want >= 0 && map[0] != want) {
		unmap();
		return fail("mapping shows 0x%02x, expected 0x%02x",
			    (unsigned char)map[0], want);
	}
	unmap();
	return 0;
}

static int q_old_mmap(long ret, unsigned long *a)
{
	return q_mapped(ret, a, 8192, 0);
}

static int p_mmap2(unsigned long *a)
{
	a[0] = 0;
	a[1] = 4096;
	a[2] = PROT_READ | PROT_WRITE;
	a[3] = MAP_SHARED;
	a[4] = fd_file;
	a[5] = 1;		/* pgoff: the sixth argument, in %ebp */
	return 0;
}

static int q_mmap2(long ret, unsigned long *a)
{
	return q_mapped(ret, a, 4096, 'A' + 1);
}

static int map_anon(size_t len)
{
	map_len = len;
	map = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		map = NULL;
		return fail("mmap: %s", strerror(errno));
	}
	memset(map, 0x5a, len);
	return 0;
}

static int map_file(void)
{
	map_len = NPAGE * 4096;
	map = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		   fd_file, 0);
	if (map == MAP_FAILED) {
		map = NULL;
		return fail("mmap: %s", strerror(errno));
	}
	return 0;
}

static int q_unmap_ok(long ret, unsigned long *a)
{
	(void)a;
	unmap();
	return expect_ok(ret, "syscall");
}

static int p_munmap(unsigned long *a)
{
	if (map_anon(3 * 4096))
		return 1;
	a[0] = (unsigned long)map + 4096;	/* splits the vma */
	a[1] = 4096 + 100;			/* rounded up */
	return 0;
}

static int p_mremap(unsigned long *a)
{
	if (map_anon(2 * 4096))
		return 1;
	a[0] = (unsigned long)map;
	a[1] = 2 * 4096;
	a[2] = 4 * 4096 + 10;
	a[3] = MREMAP_MAYMOVE;
	return 0;
}

static int q_mremap(long ret, unsigned long *a)
{
	(void)a;
	if (ret < 0 && ret > -4096) {
		unmap();
		return fail("mremap returned %s", strerror((int)-ret));
	}
	map = (char *)ret;
	map_len = 5 * 4096;
	if (map[4095] != 0x5a) {
		unmap();
		return fail("data lost by mremap");
	}
	unmap();
	return 0;
}

static int p_remap_file_pages(unsigned long *a)
{
	if (map_file())
		return 1;
	a[0] = (unsigned long)map;
	a[1] = 4096 + 100;	/* masked down to one page */
	a[2] = 0;		/* prot must be 0 */
	a[3] = 3;		/* pgoff */
	a[4] = 0;
	return 0;
}

static int q_remap_file_pages(long ret, unsigned long *a)
{
	int r = 0;

	(void)a;
	if (ret == -ENOSYS)
		snprintf(why, sizeof(why), "remap_file_pages: ENOSYS");
	else if (expect_ok(ret, "remap_file_pages"))
		r = 1;
	else if (map[0] != 'A' + 3)
		r = fail("page 0 shows 0x%02x, expected file page 3",
			 (unsigned char)map[0]);
	unmap();
	return r;
}

static int p_mprotect(unsigned long *a)
{
	a[0] = (unsigned long)anon;
	a[1] = 4096 + 1;
	a[2] = PROT_READ;
	return 0;
}

static int q_mprotect(long ret, unsigned long *a)
{
	(void)a;
	if (mprotect(anon, 8 * 4096, PROT_READ | PROT_WRITE) != 0)
		return fail("restore mprotect: %s", strerror(errno));
	return expect_ok(ret, "mprotect");
}

static const int mlock_errs[] = { EPERM, ENOMEM, EAGAIN };

static int p_mlock(unsigned long *a)
{
	a[0] = (unsigned long)anon + 100;	/* start rounded down */
	a[1] = 4096;				/* len rounded up */
	return 0;
}

static int q_mlock(long ret, unsigned long *a)
{
	(void)a;
	munlock(anon, 8 * 4096);
	return expect_errs(ret, mlock_errs, 3, "mlock");
}

static int p_munlock(unsigned long *a)
{
	if (mlock(anon, 4096) != 0)
		snprintf(why, sizeof(why), "mlock before: %s",
			 strerror(errno));
	return p_mlock(a);
}

static int q_munlock(long ret, unsigned long *a)
{
	(void)a;
	return expect_errs(ret, mlock_errs, 3, "munlock");
}

static int p_madvise(unsigned long *a)
{
	a[0] = (unsigned long)anon;
	a[1] = 2 * 4096 + 10;	/* rounded up */
	a[2] = MADV_DONTNEED;
	return 0;
}

static int p_msync(unsigned long *a)
{
	if (map_file())
		return 1;
	map[0] = 'A';		/* dirty it with the same data */
	a[0] = (unsigned long)map;
	a[1] = 100;		/* rounded up */
	a[2] = MS_SYNC;
	return 0;
}

/* a file mapping: 2.6.3's mincore says ENOMEM for anonymous memory */
static int p_mincore(unsigned long *a)
{
	if (map_file())
		return 1;
	a[0] = (unsigned long)map;
	a[1] = 2 * 4096 + 1;	/* rounded up */
	a[2] = (unsigned long)buf;
	return 0;
}

static int p_fadvise64_64(unsigned long *a)
{
	a[0] = fd_file;
	a[1] = 4096;		/* offset low */
	a[2] = 0;		/* offset high */
	a[3] = 8192;		/* len low */
	a[4] = 0;		/* len high */
	a[5] = POSIX_FADV_DONTNEED;
	return 0;
}

static int p_fadvise64(unsigned long *a)
{
	a[0] = fd_file;
	a[1] = 4096;		/* offset low */
	a[2] = 0;		/* offset high */
	a[3] = 8192;		/* len */
	a[4] = POSIX_FADV_WILLNEED;
	return 0;
}

/* ipc(call, first, second, third, ptr, fifth) */
#define IPCOP_SHMAT	21
#define IPCOP_SHMDT	22
#define IPCOP_SHMGET	23
#define IPCOP_SHMCTL	24
#define IPC_64_FLAG	0x100

static unsigned long raddr;
static char *shmaddr;

static void shm_cleanup(void)
{
	if (shmaddr)
		shmdt(shmaddr);
	shmaddr = NULL;
	if (shmid >= 0)
		shmctl(shmid, IPC_RMID, NULL);
	shmid = -1;
}

static int shm_make(int attach)
{
	shmid = shmget(IPC_PRIVATE, 8192, IPC_CREAT | 0600);
	if (shmid < 0)
		return fail("shmget: %s", strerror(errno));
	if (attach) {
		shmaddr = shmat(shmid, NULL, 0);
		if (shmaddr == (void *)-1) {
			shmaddr = NULL;
			shm_cleanup();
			return fail("shmat: %s", strerror(errno));
		}
	}
	return 0;
}

static int p_shmget(unsigned long *a)
{
	a[0] = IPCOP_SHMGET;
	a[1] = IPC_PRIVATE;
	a[2] = 8192 + 1;
	a[3] = IPC_CREAT | 0600;
	a[4] = 0;
	a[5] = 0;
	return 0;
}

static int q_shmget(long ret, unsigned long *a)
{
	(void)a;
	if (expect_ok(ret, "ipc(SHMGET)"))
		return 1;
	shmid = (int)ret;
	shm_cleanup();
	return 0;
}

static int p_shmat(unsigned long *a)
{
	if (shm_make(0))
		return 1;
	raddr = 0;
	a[0] = IPCOP_SHMAT;
	a[1] = shmid;
	a[2] = 0;			/* shmflg */
	a[3] = (unsigned long)&raddr;	/* where the address goes */
	a[4] = 0;			/* shmaddr */
	return 0;
}

static int q_shmat(long ret, unsigned long *a)
{
	(void)a;
	if (expect_ok(ret, "ipc(SHMAT)")) {
		shm_cleanup();
		return 1;
	}
	shmaddr = (char *)raddr;
	shmaddr[100] = 1;
	shm_cleanup();
	return 0;
}

static int p_shmdt(unsigned long *a)
{
	if (shm_make(1))
		return 1;
	a[0] = IPCOP_SHMDT;
	a[1] = 0;
	a[2] = 0;
	a[3] = 0;
	a[4] = (unsigned long)shmaddr;
	return 0;
}

static int q_shmdt(long ret, unsigned long *a)
{
	(void)a;
	if (ret == 0)
		shmaddr = NULL;
	shm_cleanup();
	return expect_ok(ret, "ipc(SHMDT)");
}

static int p_shmctl_stat(unsigned long *a)
{
	if (shm_make(0))
		return 1;
	a[0] = IPCOP_SHMCTL;
	a[1] = shmid;
	a[2] = IPC_STAT | IPC_64_FLAG;
	a[3] = 0;
	a[4] = (unsigned long)buf;
	a[5] = 0;
	return 0;
}

static int q_shmctl_stat(long ret, unsigned long *a)
{
	(void)a;
	shm_cleanup();
	return expect_ok(ret, "ipc(SHMCTL IPC_STAT)");
}

static int p_shmctl_rmid(unsigned long *a)
{
	p_shmctl_stat(a);
	a[2] = IPC_RMID | IPC_64_FLAG;
	a[4] = 0;
	return 0;
}

static int q_shmctl_rmid(long ret, unsigned long *a)
{
	(void)a;
	if (ret == 0)
		shmid = -1;
	shm_cleanup();
	return expect_ok(ret, "ipc(SHMCTL IPC_RMID)");
}

static const int swap_errs[] = { EINVAL, EPERM, ENOENT };

static int p_swapon(unsigned long *a)
{
	a[0] = (unsigned long)path_file;	/* not a swap file */
	a[1] = 0;
	return 0;
}

static int q_swap(long ret, unsigned long *a)
{
	(void)a;
	if (ret == 0)
		return fail("swapon/swapoff of a non-swap file succeeded");
	return expect_errs(ret, swap_errs, 3, "swapon/swapoff");
}

static const int mount_errs[] = { ENODEV, EPERM };

static int p_mount(unsigned long *a)
{
	a[0] = (unsigned long)"none";
	a[1] = (unsigned long)dir;
	a[2] = (unsigned long)"vmshm-nofs";	/* no such fs type */
	a[3] = 0;
	a[4] = 0;
	return 0;
}

static int q_mount(long ret, unsigned long *a)
{
	(void)a;
	if (ret == 0) {
		umount(dir);
		return fail("mount of a bogus fs type succeeded");
	}
	return expect_errs(ret, mount_errs, 2, "mount");
}

static int q_fork(long ret, unsigned long *a)
{
	int st = 0;
	pid_t r;

	(void)a;
	if (expect_ok(ret, "fork"))
		return 1;
	do {
		r = waitpid((pid_t)ret, &st, 0);
	} while (r < 0 && errno == EINTR);
	if (r != (pid_t)ret)
		return fail("waitpid: %s", strerror(errno));
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (WIFEXITED(st) && WEXITSTATUS(st) >= 10 && WEXITSTATUS(st) < 16)
		return fail("in the child, %s changed",
			    regname[WEXITSTATUS(st) - 10]);
	return fail("child status 0x%x", st);
}

static int p_clone(unsigned long *a)
{
	a[0] = SIGCHLD;		/* flags: a plain fork */
	a[1] = 0;		/* newsp: same stack */
	return 0;
}

static int p_exit(unsigned long *a)
{
	a[0] = 42;
	return 0;
}

/* i386 syscall numbers, as in 2.6.3's include/asm-i386/unistd.h */
#define NR_exit		1
#define NR_fork		2
#define NR_read		3
#define NR_write	4
#define NR_open		5
#define NR_close	6
#define NR_waitpid	7
#define NR_unlink	10
#define NR_chdir	12
#define NR_mknod	14
#define NR_lseek	19
#define NR_getpid	20
#define NR_mount	21
#define NR_pause	29
#define NR_sync		36
#define NR_kill		37
#define NR_mkdir	39
#define NR_rmdir	40
#define NR_pipe		42
#define NR_brk		45
#define NR_ioctl	54
#define NR_umask	60
#define NR_dup2		63
#define NR_getppid	64
#define NR_getrusage	77
#define NR_gettimeofday	78
#define NR_swapon	87
#define NR_mmap		90
#define NR_munmap	91
#define NR_truncate	92
#define NR_ftruncate	93
#define NR_setitimer	104
#define NR_wait4	114
#define NR_swapoff	115
#define NR_ipc		117
#define NR_fsync	118
#define NR_clone	120
#define NR_mprotect	125
#define NR__llseek	140
#define NR_msync	144
#define NR_readv	145
#define NR_writev	146
#define NR_mlock	150
#define NR_munlock	151
#define NR_sched_setscheduler	156
#define NR_sched_getscheduler	157
#define NR_sched_yield	158
#define NR_nanosleep	162
#define NR_mremap	163
#define NR_poll		168
#define NR_prctl	172
#define NR_rt_sigaction	174
#define NR_rt_sigprocmask	175
#define NR_vfork	190
#define NR_mmap2	192
#define NR_truncate64	193
#define NR_ftruncate64	194
#define NR_stat64	195
#define NR_lstat64	196
#define NR_fstat64	197
#define NR_mincore	218
#define NR_madvise	219
#define NR_gettid	224
#define NR_fadvise64	250
#define NR_exit_group	252
#define NR_remap_file_pages	257
#define NR_set_tid_address	258
#define NR_clock_gettime	265
#define NR_statfs64	268
#define NR_fadvise64_64	272

#define T(n, nr, na, p, q)	{ n, nr, na, p, q, 0, 0 }
static const struct sc_test tests[] = {
	T("mknod", NR_mknod, 3, p_mknod, q_mknod),
	T("mkdir", NR_mkdir, 2, p_mkdir, q_mkdir),
	T("rmdir", NR_rmdir, 1, p_rmdir, q_ok),
	T("chdir", NR_chdir, 1, p_chdir, q_chdir),
	T("umask", NR_umask, 1, p_umask, q_umask),
	T("open", NR_open, 3, p_open, q_open),
	T("close", NR_close, 1, p_close, q_ok),
	T("read", NR_read, 3, p_read, q_read),
	T("write", NR_write, 3, p_write, q_write),
	T("readv", NR_readv, 3, p_readv, q_vec),
	T("writev", NR_writev, 3, p_writev, q_vec),
	T("lseek", NR_lseek, 3, p_lseek, q_lseek),
	T("_llseek", NR__llseek, 5, p_llseek, q_llseek),
	T("unlink", NR_unlink, 1, p_unlink, q_ok),
	T("stat64", NR_stat64, 2, p_stat, q_ok),
	T("lstat64", NR_lstat64, 2, p_stat, q_ok),
	T("fstat64", NR_fstat64, 2, p_fstat, q_ok),
	T("statfs64", NR_statfs64, 3, p_statfs64, q_ok),
	T("truncate", NR_truncate, 2, p_truncate, q_trunc),
	T("truncate64", NR_truncate64, 3, p_truncate64, q_trunc),
	T("ftruncate", NR_ftruncate, 2, p_ftruncate, q_trunc),
	T("ftruncate64", NR_ftruncate64, 3, p_ftruncate, q_trunc),
	T("fsync", NR_fsync, 1, p_fd_file, q_ok),
	T("sync", NR_sync, 0, p_none, q_ok),
	T("fadvise64_64", NR_fadvise64_64, 6, p_fadvise64_64, q_ok),
	T("fadvise64", NR_fadvise64, 5, p_fadvise64, q_ok),
	T("pipe", NR_pipe, 1, p_pipe, q_pipe),
	T("dup2", NR_dup2, 2, p_dup2, q_dup2),
	T("ioctl", NR_ioctl, 3, p_ioctl, q_ioctl),
	T("poll_timeout", NR_poll, 3, p_poll_timeout, q_poll_timeout),
	T("poll_ready", NR_poll, 3, p_poll_ready, q_poll_ready),
	T("getpid", NR_getpid, 0, p_none, q_ok),
	T("getppid", NR_getppid, 0, p_none, q_ok),
	T("gettid", NR_gettid, 0, p_none, q_ok),
	T("set_tid_address", NR_set_tid_address, 1, p_set_tid_address,
	  q_ok),
	T("sched_yield", NR_sched_yield, 0, p_none, q_ok),
	T("sched_setscheduler", NR_sched_setscheduler, 3,
	  p_sched_setscheduler, q_sched_setscheduler),
	T("sched_getscheduler", NR_sched_getscheduler, 1,
	  p_sched_getscheduler, q_sched_getscheduler),
	T("gettimeofday", NR_gettimeofday, 2, p_gettimeofday, q_ok),
	T("clock_gettime", NR_clock_gettime, 2, p_clock_gettime, q_ok),
	T("nanosleep", NR_nanosleep, 2, p_nanosleep, q_ok),
	T("setitimer", NR_setitimer, 3, p_setitimer, q_ok),
	T("getrusage", NR_getrusage, 2, p_getrusage, q_ok),
	T("rt_sigaction", NR_rt_sigaction, 4, p_rt_sigaction,
	  q_rt_sigaction),
	T("rt_sigprocmask", NR_rt_sigprocmask, 4, p_rt_sigprocmask, q_ok),
	T("prctl", NR_prctl, 2, p_prctl, q_ok),
	T("kill_self", NR_kill, 2, p_kill_self, q_kill_self),
	T("kill_child", NR_kill, 2, p_kill_child, q_kill_child),
	T("pause", NR_pause, 0, p_pause, q_pause),
	T("wait4", NR_wait4, 4, p_wait4, q_wait),
	T("waitpid", NR_waitpid, 3, p_waitpid, q_wait),
	T("brk", NR_brk, 1, p_brk, q_brk),
	T("mmap", NR_mmap, 1, p_old_mmap, q_old_mmap),
	T("mmap2", NR_mmap2, 6, p_mmap2, q_mmap2),
	T("munmap", NR_munmap, 2, p_munmap, q_unmap_ok),
	T("mremap", NR_mremap, 4, p_mremap, q_mremap),
	T("remap_file_pages", NR_remap_file_pages, 5, p_remap_file_pages,
	  q_remap_file_pages),
	T("mprotect", NR_mprotect, 3, p_mprotect, q_mprotect),
	T("mlock", NR_mlock, 2, p_mlock, q_mlock),
	T("munlock", NR_munlock, 2, p_munlock, q_munlock),
	T("madvise", NR_madvise, 3, p_madvise, q_ok),
	T("msync", NR_msync, 3, p_msync, q_unmap_ok),
	T("mincore", NR_mincore, 3, p_mincore, q_unmap_ok),
	T("ipc_shmget", NR_ipc, 6, p_shmget, q_shmget),
	T("ipc_shmat", NR_ipc, 5, p_shmat, q_shmat),
	T("ipc_shmdt", NR_ipc, 5, p_shmdt, q_shmdt),
	T("ipc_shmctl_stat", NR_ipc, 6, p_shmctl_stat, q_shmctl_stat),
	T("ipc_shmctl_rmid", NR_ipc, 6, p_shmctl_rmid, q_shmctl_rmid),
	T("swapon", NR_swapon, 2, p_swapon, q_swap),
	T("swapoff", NR_swapoff, 1, p_swapon, q_swap),
	T("mount", NR_mount, 5, p_mount, q_mount),
	{ "fork", NR_fork, 0, p_none, q_fork, 1, 0 },
	{ "clone", NR_clone, 2, p_clone, q_fork, 1, 0 },
	{ "vfork", NR_vfork, 0, p_none, q_fork, 2, 0 },
	{ "exit", NR_exit, 1, p_exit, NULL, 0, 1 },
	{ "exit_group", NR_exit_group, 1, p_exit, NULL, 0, 1 },
};
#define NTESTS	((int)VM_ARRAY_SIZE(tests))

/*
 * vfork: the child shares our stack, so it must not return into C.  It
 * checks its registers in asm and leaves with exit(0), or exit(10 + the
 * index of the first changed register).
 *
 * long sc_vfork(const unsigned long in[6], unsigned long out[6],
 *		 void *entry)
 */
long sc_vfork(const unsigned long *in, unsigned long *out, void *entry);
__asm__(
	".text\n"
	".globl sc_vfork\n"
	".type sc_vfork, @function\n"
	"sc_vfork:\n"
	"	pushl %ebp\n"
	"	pushl %ebx\n"
	"	pushl %esi\n"
	"	pushl %edi\n"
	"	movl 20(%esp), %ecx\n"		/* in */
	"	movl 0(%ecx), %ebx\n"
	"	movl 8(%ecx), %edx\n"
	"	movl 12(%ecx), %esi\n"
	"	movl 16(%ecx), %edi\n"
	"	movl 20(%ecx), %ebp\n"
	"	movl 4(%ecx), %ecx\n"
	"	movl $190, %eax\n"		/* __NR_vfork */
	"	cmpl $0, 28(%esp)\n"		/* entry */
	"	jne 1f\n"
	"	int $0x80\n"
	"	jmp 2f\n"
	"1:	call *28(%esp)\n"
	"2:	testl %eax, %eax\n"
	"	jnz 3f\n"
	/* child: compare without writing memory */
	"	movl 20(%esp), %eax\n"
	"	cmpl 0(%eax), %ebx\n"
	"	movl $10, %ebx\n"
	"	jne 9f\n"
	"	cmpl 4(%eax), %ecx\n"
	"	movl $11, %ebx\n"
	"	jne 9f\n"
	"	cmpl 8(%eax), %edx\n"
	"	movl $12, %ebx\n"
	"	jne 9f\n"
	"	cmpl 12(%eax), %esi\n"
	"	movl $13, %ebx\n"
	"	jne 9f\n"
	"	cmpl 16(%eax), %edi\n"
	"	movl $14, %ebx\n"
	"	jne 9f\n"
	"	cmpl 20(%eax), %ebp\n"
	"	movl $15, %ebx\n"
	"	jne 9f\n"
	"	xorl %ebx, %ebx\n"
	"9:	movl $1, %eax\n"		/* __NR_exit */
	"	int $0x80\n"
	"	hlt\n"
	/* parent */
	"3:	pushl %ecx\n"
	"	movl 28(%esp), %ecx\n"		/* out (24 + the push) */
	"	movl %ebx, 0(%ecx)\n"
	"	popl 4(%ecx)\n"
	"	movl %edx, 8(%ecx)\n"
	"	movl %esi, 12(%ecx)\n"
	"	movl %edi, 16(%ecx)\n"
	"	movl %ebp, 20(%ecx)\n"
	"	popl %edi\n"
	"	popl %esi\n"
	"	popl %ebx\n"
	"	popl %ebp\n"
	"	ret\n"
	".size sc_vfork, .-sc_vfork\n"
);

static int regs_differ(const unsigned long *in, const unsigned long *out)
{
	int i;

	for (i = 0; i < 6; i++)
		if (in[i] != out[i])
			return i + 1;
	return 0;
}

/* sentinels: distinct per test, register and entry */
static void fill_args(int idx, int e, unsigned long *in)
{
	int i;

	for (i = 0; i < 6; i++)
		in[i] = 0x5e000000ul | ((unsigned long)idx << 12) |
			(i << 4) | e;
}

/* the exit tests: the child enters exit with known registers */
static int run_exit(const struct sc_test *t, int idx, int e, void *entry,
		    char *msg, size_t len)
{
	unsigned long in[6], out[6];
	int st = 0;
	pid_t pid;

	pid = vm_fork();
	if (pid < 0) {
		snprintf(msg, len, "fork: %s", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		fill_args(idx, e, in);
		t->prep(in);
		sc_raw(t->nr, in, out, entry);
		_exit(99);
	}
	if (vm_wait(pid, &st, NULL) != 0) {
		snprintf(msg, len, "wait: %s", strerror(errno));
		return 1;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 42) {
		snprintf(msg, len, "exit status 0x%x, expected exit 42", st);
		return 1;
	}
	return 0;
}

/* 0 ok, 1 fail, 2 skip; msg says why */
static int run_entry(const struct sc_test *t, int idx, int e, void *entry,
		     char *msg, size_t len)
{
	unsigned long in[6], out[6], a[6];
	long ret;
	int r, d;

	if (t->noreturn)
		return run_exit(t, idx, e, entry, msg, len);
	why[0] = '\0';
	fill_args(idx, e, in);
	memcpy(a, in, sizeof(a));
	r = t->prep(a);
	if (r) {
		snprintf(msg, len, "setup: %s", why);
		return r;
	}
	memcpy(in, a, t->nargs * sizeof(a[0]));
	memset(out, 0, sizeof(out));
	if (t->forks == 2) {
		ret = sc_vfork(in, out, entry);
	} else {
		ret = sc_raw(t->nr, in, out, entry);
		if (t->forks && ret == 0)
			_exit(regs_differ(in, out) ? 9 + regs_differ(in, out)
						   : 0);
	}
	d = regs_differ(in, out);
	r = t->post(ret, a);
	if (d) {
		int i, n = 0;

		n += snprintf(msg + n, len - n, "changed:");
		for (i = 0; i < 6 && n < (int)len; i++)
			if (in[i] != out[i])
				n += snprintf(msg + n, len - n,
					      " %s 0x%08lx -> 0x%08lx",
					      regname[i], in[i], out[i]);
		if (r && n < (int)len)
			snprintf(msg + n, len - n, "; %s", why);
		return 1;
	}
	if (r) {
		snprintf(msg, len, "%s", why);
		return 1;
	}
	snprintf(msg, len, "%s", why);
	return 0;
}

static int setup_fixture(void)
{
	int i, fd;

	snprintf(dir, sizeof(dir), "%s/vmshm-regs.%d", vm_cfg.dir,
		 (int)getpid());
	if (mkdir(dir, 0755) != 0) {
		ktap_diag("mkdir %s: %s", dir, strerror(errno));
		return -1;
	}
	snprintf(path_file, sizeof(path_file), "%s/file", dir);
	snprintf(path_tmp, sizeof(path_tmp), "%s/tmp", dir);
	snprintf(path_dir, sizeof(path_dir), "%s/dir", dir);
	snprintf(path_fifo, sizeof(path_fifo), "%s/fifo", dir);
	vm_register_path(path_file);
	vm_register_path(path_tmp);
	vm_register_path(path_fifo);

	fd = open(path_file, O_CREAT | O_TRUNC | O_RDWR, 0644);
	if (fd < 0) {
		ktap_diag("open %s: %s", path_file, strerror(errno));
		return -1;
	}
	for (i = 0; i < NPAGE; i++) {
		memset(buf, 'A' + i, 4096);
		if (vm_write_all(fd, buf, 4096) != 0) {
			ktap_diag("write %s: %s", path_file, strerror(errno));
			close(fd);
			return -1;
		}
	}
	fd_file = fd;
	fd_w = open(path_tmp, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if (fd_w < 0) {
		ktap_diag("open %s: %s", path_tmp, strerror(errno));
		return -1;
	}
	/* the truncate tests reuse path_tmp: keep writing to the inode */
	unlink(path_tmp);
	if (pipe(pipefd) != 0 || fcntl(pipefd[0], F_SETFL, O_NONBLOCK) != 0) {
		ktap_diag("pipe: %s", strerror(errno));
		return -1;
	}
	anon = mmap(NULL, 8 * 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (anon == MAP_FAILED) {
		ktap_diag("mmap: %s", strerror(errno));
		return -1;
	}
	memset(anon, 1, 8 * 4096);
	return 0;
}

static void cleanup_fixture(void)
{
	if (fd_file >= 0)
		close(fd_file);
	if (fd_w >= 0)
		close(fd_w);
	unlink(path_file);
	unlink(path_tmp);
	unlink(path_fifo);
	rmdir(path_dir);
	if (dir[0] && rmdir(dir) != 0)
		ktap_diag("rmdir %s: %s", dir, strerror(errno));
}

int main(int argc, char **argv)
{
	const char *entry_opt = "both";
	const struct vm_opt opts[] = {
		{ 'e', VM_OPT_STR, &entry_opt, "ENTRY",
		  "int80, vsyscall or both (default both)" },
		{ 0, 0, NULL, NULL, NULL },
	};
	static const char *names[NTESTS + 1];
	struct sigaction sa;
	void *entries[2];
	const char *ename[2];
	int ne = 0, i, e, nfail = 0;
	void *sysinfo;

	vm_init("syscall_regs", argc, argv, opts, summary, 120);
	sysinfo = (void *)getauxval(AT_SYSINFO);
	if (strcmp(entry_opt, "vsyscall")) {
		entries[ne] = NULL;
		ename[ne++] = "int80";
	}
	if (strcmp(entry_opt, "int80") && sysinfo) {
		entries[ne] = sysinfo;
		ename[ne++] = "vsyscall";
	}
	for (i = 0; i < NTESTS; i++)
		names[i] = tests[i].name;
	ktap_names(names);
	if (!ne)
		ktap_skip_all("no usable syscall entry (AT_SYSINFO missing)");

	ktap_header(NTESTS);
	ktap_diag("entries: %s%s%s (AT_SYSINFO %p)", ename[0],
		  ne > 1 ? " " : "", ne > 1 ? ename[1] : "", sysinfo);
	vm_fig_i("entries", ne, "count");

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	umask(022);

	vm_phase("setup");
	if (setup_fixture() != 0) {
		for (i = 0; i < NTESTS; i++)
			ktap_fail(tests[i].name, "fixture setup failed");
		cleanup_fixture();
		ktap_exit();
	}

	for (i = 0; i < NTESTS; i++) {
		char msg[2][512];
		int res[2], any_fail = 0, all_skip = 1;

		vm_phase(tests[i].name);
		for (e = 0; e < ne; e++) {
			msg[e][0] = '\0';
			res[e] = run_entry(&tests[i], i, e, entries[e],
					   msg[e], sizeof(msg[e]));
			if (res[e] == 1)
				any_fail = 1;
			if (res[e] != 2)
				all_skip = 0;
		}
		if (all_skip) {
			ktap_skip(tests[i].name, "%s", msg[0]);
			continue;
		}
		for (e = 0; e < ne; e++)
			if (msg[e][0])
				ktap_diag("%s via %s: %s", tests[i].name,
					  ename[e], msg[e]);
		ktap_result(!any_fail, tests[i].name, NULL);
		nfail += any_fail;
	}
	vm_fig_i("syscalls", NTESTS, "count");
	vm_fig_i("failed", nfail, "count");
	cleanup_fixture();
	ktap_exit();
}

#endif /* __i386__ */
