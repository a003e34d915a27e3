/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim of <asm/bug.h> for tools/testing/objrmap. */
#ifndef _SHIM_ASM_BUG_H
#define _SHIM_ASM_BUG_H

#include <shim/core.h>

#define BUG()	shim_bug(__FILE__, __LINE__, __func__, "BUG()")
#define BUG_ON(condition)						\
	do {								\
		if (__builtin_expect(!!(condition), 0))			\
			shim_bug(__FILE__, __LINE__, __func__,		\
				 "BUG_ON(" #condition ")");		\
	} while (0)

/* The kernel prints "Badness in" and goes on; a test must fail on it. */
#define WARN_ON(condition)						\
	do {								\
		if (__builtin_expect(!!(condition), 0))			\
			shim_bug(__FILE__, __LINE__, __func__,		\
				 "WARN_ON(" #condition ")");		\
	} while (0)

#endif /* _SHIM_ASM_BUG_H */
