// SPDX-License-Identifier: GPL-2.0
/* tools/testing/objrmap: the shape of a vma index (index_check.h). */
#include <linux/mm.h>

#include "index_check.h"
#include "ktap.h"

/* Only the first few violations of a tree are shown. */
#define SHOW	8
#define report(bad, ...)						\
	do {								\
		if ((*(bad))++ < SHOW)					\
			ktap_diag(__VA_ARGS__);				\
	} while (0)

static unsigned long last_pgoff(struct vm_area_struct *vma)
{
	return vma->vm_pgoff + ((vma->vm_end - vma->vm_start) >> PAGE_SHIFT) - 1;
}

/*
 * The vmas on @node's same list: consistent links, @vma's range exactly,
 * at most @max of them (a cycle that misses the node).  Returns how many.
 */
static unsigned long check_same(struct vma_index_node *node,
				struct vm_area_struct *vma, unsigned long max,
				int *bad)
{
	struct list_head *head = &node->same, *pos;
	unsigned long n = 0;

	for (pos = head->next; pos != head; pos = pos->next) {
		struct vm_area_struct *other = container_of(pos,
				struct vm_area_struct, vm_index.node.same);

		if (pos->next->prev != pos || pos->prev->next != pos) {
			report(bad, "index: vma %p (pgoff %lu): its same list's links are inconsistent",
			       (void *)vma, vma->vm_pgoff);
			break;
		}
		if (++n > max) {
			report(bad, "index: vma %p (pgoff %lu): more than %lu on its same list, a cycle?",
			       (void *)vma, vma->vm_pgoff, max);
			break;
		}
		if (other->vm_pgoff != vma->vm_pgoff ||
		    last_pgoff(other) != last_pgoff(vma))
			report(bad, "index: vma %p [%lu, %lu] on the same list of vma %p [%lu, %lu]",
			       (void *)other, other->vm_pgoff,
			       last_pgoff(other), (void *)vma, vma->vm_pgoff,
			       last_pgoff(vma));
	}
	return n;
}

/* One subtree of index_check(): returns its true maximum last pgoff. */
static unsigned long check_node(struct vma_index_node *node,
				struct vma_index_node *parent,
				struct vm_area_struct **prev,
				unsigned long *count, int depth,
				int *maxdepth, int *bad)
{
	struct vm_area_struct *vma = container_of(node, struct vm_area_struct,
						  vm_index.node);
	unsigned long last = last_pgoff(vma), max = last, m;

	if (depth > *maxdepth)
		*maxdepth = depth;
	if (node->parent != parent)
		report(bad, "index: vma %p (pgoff %lu) has parent %p, not %p",
		       (void *)vma, vma->vm_pgoff, (void *)node->parent,
		       (void *)parent);
	if (node->left) {
		m = check_node(node->left, node, prev, count, depth + 1,
			       maxdepth, bad);
		if (m > max)
			max = m;
	}
	if (*prev && ((*prev)->vm_pgoff > vma->vm_pgoff ||
		      ((*prev)->vm_pgoff == vma->vm_pgoff &&
		       last_pgoff(*prev) >= last)))
		report(bad, "index: out of order: vma %p [%lu, %lu] before vma %p [%lu, %lu]",
		       (void *)*prev, (*prev)->vm_pgoff, last_pgoff(*prev),
		       (void *)vma, vma->vm_pgoff, last);
	*prev = vma;
	(*count)++;
	*count += check_same(node, vma, 1UL << 24, bad);
	if (node->right) {
		m = check_node(node->right, node, prev, count, depth + 1,
			       maxdepth, bad);
		if (m > max)
			max = m;
	}
	if (node->max_last != max)
		report(bad, "index: vma %p (pgoff %lu, last %lu): max_last %lu, its subtree's maximum is %lu",
		       (void *)vma, vma->vm_pgoff, last, node->max_last, max);
	return max;
}

int index_check(struct vma_index *index, unsigned long *count, int *depth)
{
	struct vm_area_struct *prev = NULL;
	unsigned long n = 0;
	int bad = 0, d = 0;

	if (index->root)
		check_node(index->root, NULL, &prev, &n, 1, &d, &bad);
	if (bad > SHOW)
		ktap_diag("index: ... %d violations in all", bad);
	if (count)
		*count = n;
	if (depth)
		*depth = d;
	return bad;
}
