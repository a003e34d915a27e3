/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim of <linux/mm.h> for tools/testing/objrmap: struct page
 * (with the pte union as patches/vm/objrmap-page-flag.patch leaves it),
 * struct address_space, vm_area_struct and mm_struct, reduced to the
 * fields the objrmap code and the harness use.  The shim_* fields have
 * no kernel counterpart: they carry the locks that the kernel keeps in
 * flag bits, as pthread mutexes that ThreadSanitizer can see.
 */
#ifndef _SHIM_LINUX_MM_H
#define _SHIM_LINUX_MM_H

#include <errno.h>		/* EFAULT */
#include <stddef.h>
#include <sys/types.h>	/* loff_t */
#include <shim/core.h>
#include <asm/bug.h>
#include <asm/atomic.h>
#include <asm/page.h>
#include <asm/semaphore.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/vma_index.h>	/* the series' own, reconstructed;
				 * the kernel has it through <linux/fs.h> */

struct pte_chain;

/* i386 with CONFIG_HIGHMEM64G: a pte_chain's pte address is 64 bits. */
typedef unsigned long long pte_addr_t;

typedef unsigned long pgoff_t;	/* loff_t comes from <sys/types.h>: 64 bits */

struct inode;
struct address_space_operations;

struct address_space {
	struct inode *host;		/* owner: inode, block_device */
	spinlock_t page_lock;		/* protects the page cache (and
					 * ->mapping of its pages) */
	unsigned long nrpages;		/* number of total pages */
	struct address_space_operations *a_ops;	/* methods */
	struct list_head locked_pages;	/* list of locked pages */
	struct backing_dev_info *backing_dev_info; /* device readahead, etc */
	struct list_head i_mmap;	/* list of private mappings */
	struct list_head i_mmap_shared;	/* list of shared mappings */
	struct vma_index i_mmap_index;	/* linear vmas of both, by pgoff */
	struct list_head i_mmap_nonlinear; /* the others, not indexed */
	struct semaphore i_shared_sem;	/* protects the four above */
	atomic_t truncate_count;	/* Cover race condition with truncate */
	int shim_shm_locked;		/* SHM_LOCK: shmem_mapping_locked() */
};

struct file {
	struct address_space *f_mapping;
};

struct page {
	unsigned long flags;		/* atomic flags (PG_*) */
	atomic_t count;			/* usage count */
	struct address_space *mapping;	/* the file we belong to, or NULL */
	unsigned long index;		/* our offset within mapping */
	union {
		struct pte_chain *chain;/* reverse pte mapping pointer.
					 * protected by PG_chainlock */
		pte_addr_t direct;
		unsigned int mapcount;	/* PG_objrmap: number of ptes
					 * mapping a file page; the vmas
					 * are found from ->mapping.
					 * protected by PG_chainlock */
	} pte;
	unsigned long private;
	struct list_head list;		/* ->mapping has some page lists */
	struct list_head lru;		/* Pageout list, eg. active_list;
					 * protected by zone->lru_lock */

	/* the shim's own */
	pthread_mutex_t shim_lock_mutex;  /* PG_locked, as a mutex */
	pthread_mutex_t shim_chain_mutex; /* PG_chainlock, as a mutex */
	int shim_chain_owner;		  /* shim_thread_id() of its holder */
	int shim_storage_dirty;		  /* for page_test_and_clear_dirty() */
};

/* The page flags, page_state and the page lock need struct page. */
#include <linux/page-flags.h>

#define page_count(p)		atomic_read(&(p)->count)
#define set_page_count(p, v)	atomic_set(&(p)->count, (v))
#define get_page(p)		atomic_inc(&(p)->count)

/* The last reference going is a bug here: the harness never frees pages
 * through put_page(), it accounts every reference it hands out. */
static inline void put_page(struct page *page)
{
	BUG_ON(atomic_dec_return(&page->count) < 0);
}

/*
 * Return true if this page is mapped into pagetables.  As in the kernel:
 * test pte.direct, which covers pte.chain and pte.mapcount too.
 */
static inline int page_mapped(struct page *page)
{
	return page->pte.direct != 0;
}

/* Sets PG_dirty; 1 if the page was clean.  No a_ops, no dirty lists. */
static inline int set_page_dirty(struct page *page)
{
	return !TestSetPageDirty(page);
}

/* vm_flags, 2.6.3's values */
#define VM_READ		0x00000001
#define VM_WRITE	0x00000002
#define VM_EXEC		0x00000004
#define VM_SHARED	0x00000008
#define VM_MAYREAD	0x00000010
#define VM_MAYWRITE	0x00000020
#define VM_MAYEXEC	0x00000040
#define VM_MAYSHARE	0x00000080
#define VM_LOCKED	0x00002000
#define VM_IO		0x00004000
#define VM_RESERVED	0x00080000	/* Don't unmap it from swap_out */
#define VM_NONLINEAR	0x00800000	/* Is non-linear (remap_file_pages) */

struct mm_struct;

struct vm_area_struct {
	struct mm_struct *vm_mm;	/* the address space we belong to */
	unsigned long vm_start;		/* our start address within vm_mm */
	unsigned long vm_end;		/* the first byte after our end */
	pgprot_t vm_page_prot;
	unsigned long vm_flags;
	/* on vm_mm->mmap, sorted by address; the harness links it there
	 * (under page_table_lock) only where find_vma() is needed */
	struct vm_area_struct *vm_next;
	/* on mapping->i_mmap or ->i_mmap_shared, under i_shared_sem */
	struct list_head shared;
	/* in mapping->i_mmap_index if linear, on ->i_mmap_nonlinear if
	 * nonlinear, under i_shared_sem */
	union vma_index_link vm_index;
	unsigned long vm_pgoff;		/* offset within vm_file, in pages */
	struct file *vm_file;
	void *vm_private_data;
};

struct mm_struct {
	struct vm_area_struct *mmap;	/* list of VMAs */
	pgd_t *pgd;			/* PTRS_PER_PGD entries */
	spinlock_t page_table_lock;	/* protects the page tables and rss */
	unsigned long rss;
};

/*
 * Can a file pte hold page offset @pgoff?  As the kernel's <linux/mm.h>;
 * a macro, since <asm/pgtable.h> comes after this file.
 */
#define pgoff_fits_file_pte(pgoff)	((pgoff) < (1UL << PTE_FILE_MAX_BITS))

/* mm/shmem.c: is @mapping a SHM_LOCKed segment?  The harness sets it. */
static inline int shmem_mapping_locked(struct address_space *mapping)
{
	return mapping->shim_shm_locked;
}

#endif /* _SHIM_LINUX_MM_H */
