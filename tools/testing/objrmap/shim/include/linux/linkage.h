/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim of <linux/linkage.h> for tools/testing/objrmap: no
 * regparm calling convention in userspace. */
#ifndef _SHIM_LINUX_LINKAGE_H
#define _SHIM_LINUX_LINKAGE_H

#define fastcall
#define FASTCALL(x)	x

#endif /* _SHIM_LINUX_LINKAGE_H */
