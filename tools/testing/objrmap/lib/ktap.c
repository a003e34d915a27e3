// SPDX-License-Identifier: GPL-2.0
/* KTAP output and a fork-per-case runner for tools/testing/objrmap. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktap.h"

int ktap_case_failed;

void ktap_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

/* What marks a report on stderr. */
static const char *const report_marks[] = {
	"WARNING: ThreadSanitizer",
	"ERROR: AddressSanitizer",
	"ERROR: LeakSanitizer",
	"runtime error:",	/* UBSan */
	"kernel BUG at",	/* shim BUG() */
	"lock: ",		/* shim mutex misuse */
	NULL,
};

/*
 * Scan @path: does it hold a report, and @expect (if not NULL)?  Shows
 * the first lines of a report as diagnostics when @show.
 */
static int scan_log(const char *path, const char *expect, int *found,
		    int show)
{
	char line[1024];
	int reported = 0, shown = 0, i;
	FILE *f = fopen(path, "r");

	*found = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (expect && strstr(line, expect))
			*found = 1;
		for (i = 0; report_marks[i]; i++)
			if (strstr(line, report_marks[i]))
				reported = 1;
		if (reported && show && shown < 40) {
			ktap_diag("| %s", line);
			shown++;
		}
	}
	fclose(f);
	return reported;
}

static long log_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : (long)st.st_size;
}

int ktap_run(const struct ktap_case *cases, int n, unsigned int timeout)
{
	const char *logdir = getenv("OBJRMAP_LOGDIR");
	int i, passed = 0, failed = 0;

	printf("KTAP version 1\n1..%d\n", n);
	fflush(stdout);
	for (i = 0; i < n; i++) {
		const struct ktap_case *c = &cases[i];
		char why[256] = "", log[PATH_MAX];
		int status, fd, reported, found, ok;
		pid_t pid;

		if (logdir) {
			snprintf(log, sizeof(log), "%s/%s.%s.log", logdir,
				 program_invocation_short_name, c->name);
			fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		} else {
			snprintf(log, sizeof(log), "/tmp/objrmap.%s.XXXXXX",
				 c->name);
			fd = mkstemp(log);
		}
		if (fd < 0) {
			fprintf(stderr, "%s: %s\n", log, strerror(errno));
			exit(1);
		}
		fflush(stdout);
		fflush(stderr);
		pid = fork();
		if (pid < 0) {
			perror("fork");
			exit(1);
		}
		if (pid == 0) {
			dup2(fd, 2);
			close(fd);
			alarm(timeout);
			ktap_case_failed = 0;
			c->run();
			fflush(stdout);
			_exit(ktap_case_failed ? 1 : 0);
		}
		close(fd);
		if (waitpid(pid, &status, 0) != pid) {
			perror("waitpid");
			exit(1);
		}
		reported = scan_log(log, c->expect, &found, !c->expect);
		if (c->expect) {
			ok = found;
			if (ok)
				snprintf(why, sizeof(why),
					 " # provoked \"%s\", as it should", c->expect);
			else
				snprintf(why, sizeof(why),
					 " # no \"%s\" report: this build would not catch it",
					 c->expect);
		} else {
			ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
			     !reported;
			if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
				snprintf(why, sizeof(why),
					 " # timed out after %us (deadlock?)",
					 timeout);
			else if (WIFSIGNALED(status))
				snprintf(why, sizeof(why),
					 " # killed by signal %d (%s)",
					 WTERMSIG(status),
					 strsignal(WTERMSIG(status)));
			else if (reported)
				snprintf(why, sizeof(why),
					 " # report on stderr, exit status %d",
					 WEXITSTATUS(status));
			else if (WEXITSTATUS(status) > 1)
				snprintf(why, sizeof(why), " # exit status %d",
					 WEXITSTATUS(status));
		}
		if (!ok && (reported || (!c->expect && log_size(log))))
			ktap_diag("stderr of %s: %s", c->name, log);
		else if (!logdir)
			unlink(log);
		printf("%sok %d %s%s\n", ok ? "" : "not ", i + 1, c->name, why);
		fflush(stdout);
		if (ok)
			passed++;
		else
			failed++;
	}
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0\n",
	       passed, failed);
	return failed ? 1 : 0;
}
