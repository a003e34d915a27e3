/* SPDX-License-Identifier: GPL-2.0 */
/* tools/testing/objrmap: set up and tear down mem_map (not a kernel API). */
#ifndef _SHIM_MEM_H
#define _SHIM_MEM_H

/* mem_map[0 .. nr_pages - 1], zeroed, locks ready; pfn 0 reserved. */
void shim_mem_map_init(unsigned long nr_pages);
void shim_mem_map_free(void);

#endif /* _SHIM_MEM_H */
