/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tools/testing/objrmap: check the shape of a mapping's vma index
 * (mm/vma_index.c) from the outside, without its internals: what any
 * correct interval tree of vmas must satisfy.
 */
#ifndef _OBJRMAP_INDEX_CHECK_H
#define _OBJRMAP_INDEX_CHECK_H

#include <linux/mm.h>

/*
 * Parent pointers agree with the child pointers (the root's is NULL);
 * in order, the nodes are sorted by (vm_pgoff, last pgoff), strictly;
 * every node's max_last is the largest last pgoff of its subtree; the
 * vmas on a node's same list have its range, with consistent links.
 * Each violation is printed as a KTAP diagnostic; returns their number.
 * *@count (if not NULL) gets the number of vmas, nodes and listed ones,
 * *@depth (if not NULL)
 * the depth of the deepest one (the root's is 1).  Caller holds
 * i_shared_sem or is alone.
 */
int index_check(struct vma_index *index, unsigned long *count, int *depth);

#endif /* _OBJRMAP_INDEX_CHECK_H */
