/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim of <linux/fs.h> for tools/testing/objrmap: what the
 * code extracted from the patched tree (extract.py) reads of an inode
 * and of the address_space operations.  i_size is one untorn word here
 * (a relaxed atomic), as i_size_read() gives it on 64-bit and through
 * its seqcount on 32-bit SMP; i_size_write() is called under i_sem in
 * the kernel, and by one thread at a time here.
 */
#ifndef _SHIM_LINUX_FS_H
#define _SHIM_LINUX_FS_H

#include <linux/mm.h>

struct inode {
	loff_t i_size;
	struct address_space *i_mapping;
};

static inline loff_t i_size_read(struct inode *inode)
{
	return __atomic_load_n(&inode->i_size, __ATOMIC_RELAXED);
}

static inline void i_size_write(struct inode *inode, loff_t i_size)
{
	__atomic_store_n(&inode->i_size, i_size, __ATOMIC_RELAXED);
}

struct writeback_control;

struct address_space_operations {
	int (*writepage)(struct page *page, struct writeback_control *wbc);
	int (*invalidatepage)(struct page *, unsigned long);
};

/* fs/buffer.c; no page here has buffers (PagePrivate), so never called */
int block_invalidatepage(struct page *page, unsigned long offset);

#endif /* _SHIM_LINUX_FS_H */
