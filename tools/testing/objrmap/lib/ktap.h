/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTAP output for tools/testing/objrmap, as the kernel's kselftests print
 * it (Documentation/dev-tools/ktap.rst): "KTAP version 1", the plan
 * "1..N", one "ok N name" / "not ok N name" per case, "# " diagnostics.
 */
#ifndef _OBJRMAP_KTAP_H
#define _OBJRMAP_KTAP_H

struct ktap_case {
	const char *name;
	void (*run)(void);
	/*
	 * NULL: the case passes if it exits 0 and its stderr holds no
	 * sanitizer report and no BUG.  Otherwise a negative test: it
	 * passes only if its stderr contains this string (a sanitizer
	 * report it exists to provoke).
	 */
	const char *expect;
};

/* Set by a failing CHECK in the running case. */
extern int ktap_case_failed;

__attribute__((format(printf, 1, 2)))
void ktap_diag(const char *fmt, ...);

/*
 * Run @cases, each in a child process of its own so that a crash, a
 * BUG() or a sanitizer report ends that case only; a case that has not
 * finished after @timeout seconds is killed and fails.  A case's stderr
 * goes to $OBJRMAP_LOGDIR/<program>.<case>.log (a temporary file if that
 * is unset) and is scanned for sanitizer reports, whose first lines are
 * shown as diagnostics.  Prints the whole KTAP document; returns the
 * exit status: 0 if every case passed.
 */
int ktap_run(const struct ktap_case *cases, int n, unsigned int timeout);

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			ktap_diag("%s:%d: CHECK(%s) failed",		\
				  __FILE__, __LINE__, #cond);		\
			ktap_case_failed = 1;				\
		}							\
	} while (0)

#define CHECK_EQ(a, b)							\
	do {								\
		long long __a = (long long)(a), __b = (long long)(b);	\
		if (__a != __b) {					\
			ktap_diag("%s:%d: %s == %lld, expected %s == %lld", \
				  __FILE__, __LINE__, #a, __a, #b, __b);	\
			ktap_case_failed = 1;				\
		}							\
	} while (0)

#endif /* _OBJRMAP_KTAP_H */
