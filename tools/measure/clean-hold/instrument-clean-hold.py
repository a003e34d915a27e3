#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
instrument-clean-hold.py TREE

Measurement aid, never part of the series: make the clean cache pass of
a kernel tree with the series (any revision of vm-cache-scan-ratio)
record its longest zone->lru_lock hold, taken with interrupts off, in
CPU cycles and in pages looked at.  Two read-write sysctls appear:
/proc/sys/vm/clean_hold_max_cycles and clean_hold_max_pages (write 0 to
reset); clean_hold.c prints them as figures.  Edits TREE/mm/vmscan.c
and TREE/kernel/sysctl.c in place, by text, so that the revision of
shrink_clean_cache() before the hold was bounded and the one after get
the same probe.
"""
import re
import sys


def edit(path, fn):
    s = open(path).read()
    t = fn(s)
    if t == s:
        sys.exit('%s: nothing changed' % path)
    open(path, 'w').write(t)


def vmscan(s):
    if 'clean_hold_max_cycles' in s:
        sys.exit('mm/vmscan.c: already instrumented')
    a = s.index('static int shrink_clean_cache(')
    b = s.index('\n}\n', a)
    f = s[a:b]
    f = f.replace('\tint ret = 0;\n',
                  '\tint ret = 0;\n\tcycles_t hold_t0;\n\tint hold_budget;\n', 1)
    lock = '\t\tspin_lock_irq(&zone->lru_lock);\n'
    i = f.index(lock) + len(lock)
    f = f[:i] + '\t\thold_t0 = get_cycles();\n\t\thold_budget = budget;\n' + f[i:]
    unlock = ('\t\tzone->pages_scanned += nr_taken;\n'
              '\t\tspin_unlock_irq(&zone->lru_lock);\n')
    assert unlock in f, 'the hold\'s unlock not found'
    f = f.replace(unlock, '\t\tzone->pages_scanned += nr_taken;\n'
                  '\t\tclean_hold_note(get_cycles() - hold_t0,\n'
                  '\t\t\t\thold_budget - budget);\n'
                  '\t\tspin_unlock_irq(&zone->lru_lock);\n', 1)
    probe = '''/* Measurement only (tools/measure/clean-hold): longest hold. */
int clean_hold_max_cycles, clean_hold_max_pages;

static inline void clean_hold_note(cycles_t cycles, int pages)
{
	if (cycles > 0x7fffffff)
		cycles = 0x7fffffff;
	if ((int)cycles > clean_hold_max_cycles) {
		clean_hold_max_cycles = cycles;
		clean_hold_max_pages = pages;
	}
}

'''
    s = s[:a] + probe + f + s[b:]
    inc = '#include <linux/sysctl.h>\n'
    return s.replace(inc, inc + '#include <linux/timex.h>\n', 1)


def sysctl(s):
    a = s.index('static ctl_table vm_table[] = {')
    b = s.index('\t{ .ctl_name = 0 }', a)
    ent = ''
    for n, name in ((9901, 'clean_hold_max_cycles'),
                    (9902, 'clean_hold_max_pages')):
        ent += ('\t{\n\t\t.ctl_name\t= %d,\n\t\t.procname\t= "%s",\n'
                '\t\t.data\t\t= &%s,\n\t\t.maxlen\t\t= sizeof(int),\n'
                '\t\t.mode\t\t= 0644,\n'
                '\t\t.proc_handler\t= &proc_dointvec,\n\t},\n') % (n, name, name)
    s = s[:b] + ent + s[b:]
    ext = 'extern int clean_hold_max_cycles, clean_hold_max_pages;\n'
    i = s.index('static ctl_table vm_table[];')
    i = s.rindex('\n', 0, i) + 1
    return s[:i] + ext + s[i:]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip())
    tree = sys.argv[1]
    edit(tree + '/mm/vmscan.c', vmscan)
    edit(tree + '/kernel/sysctl.c', sysctl)


if __name__ == '__main__':
    main()
