/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim of <linux/pagevec.h> for tools/testing/objrmap: a
 * batch of pages to release, as 2.6.3's.  __pagevec_release_nonlru() is
 * the harness's (lifecycle.c).
 */
#ifndef _SHIM_LINUX_PAGEVEC_H
#define _SHIM_LINUX_PAGEVEC_H

#define PAGEVEC_SIZE	16

struct page;

struct pagevec {
	unsigned int nr;
	int cold;
	struct page *pages[PAGEVEC_SIZE];
};

void __pagevec_release_nonlru(struct pagevec *pvec);

static inline void pagevec_init(struct pagevec *pvec, int cold)
{
	pvec->nr = 0;
	pvec->cold = cold;
}

static inline unsigned int pagevec_count(struct pagevec *pvec)
{
	return pvec->nr;
}

static inline unsigned int pagevec_space(struct pagevec *pvec)
{
	return PAGEVEC_SIZE - pvec->nr;
}

/* Add a page; returns the number of slots still available. */
static inline unsigned int pagevec_add(struct pagevec *pvec,
				       struct page *page)
{
	pvec->pages[pvec->nr++] = page;
	return pagevec_space(pvec);
}

#endif /* _SHIM_LINUX_PAGEVEC_H */
