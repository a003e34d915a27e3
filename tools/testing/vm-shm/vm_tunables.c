// SPDX-License-Identifier: GPL-2.0
/*
 * vm_tunables - the sysctls the series adds behave as documented.
 *
 * /proc/sys/vm/vm_cache_scan_ratio: readable, takes 0 (pass off) up to
 * 1000, and refuses anything else with EINVAL while keeping the old
 * value.  The value in force when the program started is restored.
 * On a kernel without the sysctl (vanilla 2.6.3, a modern kernel) every
 * test is skipped.  Writing needs root; without it the write tests are
 * skipped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vmshm.h"

#define RATIO_PATH	"/proc/sys/vm/vm_cache_scan_ratio"
#define RATIO_MAX	1000

static const char summary[] =
	"vm_tunables: /proc/sys/vm/vm_cache_scan_ratio range and EINVAL";

static const char *const names[] = {
	"read", "write in range", "write 0 (off)", "write max",
	"refuse negative", "refuse above max", "refuse garbage", "restore",
	NULL
};

static int read_ratio(long *val)
{
	char buf[64];
	ssize_t n;
	int fd;

	fd = open(RATIO_PATH, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -EIO;
	buf[n] = 0;
	*val = strtol(buf, NULL, 10);
	return 0;
}

/* Returns 0 or -errno of the write(). */
static int write_ratio(const char *text)
{
	ssize_t n;
	int fd, err;

	fd = open(RATIO_PATH, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	err = n < 0 ? -errno : 0;
	close(fd);
	return err;
}

/* Write @text and expect it to be taken: reads back @want. */
static void expect_taken(const char *name, const char *text, long want)
{
	long got = -1;
	int err = write_ratio(text);

	if (err) {
		ktap_fail(name, "write \"%s\": %s", text, strerror(-err));
		return;
	}
	if (read_ratio(&got) || got != want) {
		ktap_fail(name, "wrote \"%s\", read back %ld", text, got);
		return;
	}
	ktap_ok(name, "%ld", got);
}

/* Write @text and expect EINVAL with the value unchanged. */
static void expect_refused(const char *name, const char *text)
{
	long before = -1, after = -1;
	int err;

	read_ratio(&before);
	err = write_ratio(text);
	read_ratio(&after);
	if (err != -EINVAL) {
		ktap_fail(name, "write \"%s\" returned %s, want EINVAL", text,
			  err ? strerror(-err) : "success");
		return;
	}
	if (after != before) {
		ktap_fail(name, "value changed from %ld to %ld", before, after);
		return;
	}
	ktap_ok(name, "EINVAL, still %ld", after);
}

int main(int argc, char **argv)
{
	char buf[32];
	long orig;
	int err;

	vm_init("vm_tunables", argc, argv, NULL, summary, 30);
	ktap_names(names);

	err = read_ratio(&orig);
	if (err == -ENOENT)
		ktap_skip_all("no " RATIO_PATH " (kernel without the series)");
	ktap_header(8);
	if (err) {
		ktap_fail("read", "%s", strerror(-err));
		ktap_exit();
	}
	ktap_ok("read", "%ld", orig);
	vm_fig_i("cache_scan_ratio", orig, "count");
	if (orig < 0 || orig > RATIO_MAX)
		ktap_diag("default %ld is outside 0..%d", orig, RATIO_MAX);

	if (geteuid() != 0) {
		int i;

		for (i = 1; names[i]; i++)
			ktap_skip(names[i], "not root");
		ktap_exit();
	}
	expect_taken("write in range", "7\n", 7);
	expect_taken("write 0 (off)", "0", 0);
	snprintf(buf, sizeof(buf), "%d", RATIO_MAX);
	expect_taken("write max", buf, RATIO_MAX);
	expect_refused("refuse negative", "-1");
	snprintf(buf, sizeof(buf), "%d", RATIO_MAX + 1);
	expect_refused("refuse above max", buf);
	expect_refused("refuse garbage", "banana");
	snprintf(buf, sizeof(buf), "%ld", orig);
	expect_taken("restore", buf, orig);
	ktap_exit();
}
