# SPDX-License-Identifier: GPL-2.0
"""patches/enterprise/vm-shm-testcases.patch, generated from tools/testing/vm-shm/.

The testcases have one source of truth, this repository's
tools/testing/vm-shm/.  The series' last patch adds the same files to the
kernel tree as tools/testing/vm-shm/; this module writes that patch, in
git format-patch form, from the sources.  The output depends on nothing
but the sources (fixed From, Date and Subject; blob ids computed here),
so it is the same on every machine, and check() tells whether the
committed patch is current (lint runs it, so CI catches a testcase
changed without regenerating the patch).  tools/gen-testcases-patch is
its command line.
"""

import argparse
import difflib
import hashlib
import os
import re
import sys
from pathlib import Path

from . import series
from .common import LAYOUT, rel

SRCDIR = LAYOUT.testdir
PATCHES = LAYOUT.patches
ENTRY = 'enterprise/vm-shm-testcases.patch'
TREE_DIR = 'tools/testing/vm-shm'

# The QEMU guest init belongs to the harness, not to the testcases.
HARNESS_ONLY = {'init.c', 'init.mk'}

AUTHOR = 'vm-shm team <vm-shm@localhost>'
DATE = 'Thu, 3 Dec 2026 14:00:00 +0000'
SUBJECT = 'tools/testing/vm-shm: the testcases of the series'

CHANGELOG = '''\
The programs that measure what this series changes, one per scenario,
so that anyone can reproduce its figures on their own box and kernel:

  pte_chain_capacity  children sharing one shm segment until lowmem
                      runs out; pte_chain slab and lowmem per child
  shm_swap_storm      shm bigger than memory, touched by several
                      processes, under anonymous pressure
  copy_during_swap    a sequential file read while that load runs
  many_vmas           thousands of one-page vmas of one file, in one
                      process and shared by forked ones, under
                      pressure, and truncate of a file mapped by
                      thousands: the cost of the object walk
  fork_exit_rate      fork/exit of a task with large shared mappings
  integrity           data through swap: shm, tmpfs, COW, mremap,
                      remap_file_pages, truncate, mlock
  syscall_regs        every system call they use preserves the
                      caller's registers
  vm_tunables         /proc/sys/vm/vm_cache_scan_ratio range checks

Each prints KTAP and its figures as "# fig: <program>.<key> <value>
<unit>" lines, scales itself to the machine (-m MB) and cleans up its
shm segments, files and children on every exit path.  They run without
root; as root they raise /proc/sys/kernel/shmmax (32 MB in 2.6.3) to
what they need.
"make -C tools/testing/vm-shm" builds static i386 binaries with musl
(CROSS_CC=i386-linux-musl-gcc, or CC=... for another compiler) into
i386/, "make native" builds them with the host compiler into native/.
The README beside them documents every option and figure.

Documentation/vm/objrmap.txt has the figures of vanilla 2.6.3 and of
this series, measured with these programs.'''


def source_files(srcdir=SRCDIR):
    """The files the patch carries, relative to srcdir, in git's order:
    the Makefile, the README and every .c and .h, but not the guest init."""
    srcdir = Path(srcdir)
    out = []
    for root, dirs, files in os.walk(srcdir):
        dirs[:] = [d for d in dirs if not d.startswith('.')]
        for f in files:
            rel = Path(root, f).relative_to(srcdir).as_posix()
            if rel in HARNESS_ONLY:
                continue
            if f in ('Makefile', 'README.md') or re.search(r'\.[ch]$', f):
                out.append(rel)
    return sorted(out, key=lambda p: p.encode())


def blob_id(data):
    return hashlib.sha1(b'blob %d\0' % len(data) + data).hexdigest()


def split_lines(data):
    """Lines of a file as diff sees them, and whether the last one lacks
    its newline."""
    text = data.decode('utf-8')
    if text == '':
        return [], False
    lines = text.split('\n')
    if lines[-1] == '':
        return lines[:-1], False
    return lines, True


def diffstat(stats, width=72):
    """git's --stat for format-patch (72 columns), insertions only."""
    max_len = max(len(n) for n, _ in stats)
    max_change = max(c for _, c in stats)
    number_width = len(str(max_change))
    if width < 16 + 6 + number_width:
        width = 16 + 6 + number_width
    graph_width = max_change
    name_width = max_len
    if name_width + number_width + 6 + graph_width > width:
        if graph_width > width * 3 // 8 - number_width - 6:
            graph_width = max(width * 3 // 8 - number_width - 6, 6)
        if name_width > width - number_width - 6 - graph_width:
            name_width = width - number_width - 6 - graph_width
        else:
            graph_width = width - number_width - 6 - name_width
    lines = []
    for name, n in stats:
        prefix = ''
        if len(name) > name_width:
            prefix = '...'
            keep = max(name_width - 3, 0)
            name = name[len(name) - keep:]
            if '/' in name:
                name = name[name.index('/'):]
        pad = max(name_width - len(prefix) - len(name), 0)
        add = n
        if graph_width <= max_change:
            add = 1 + n * (graph_width - 1) // max_change if n else 0
        lines.append(' %s%s%s | %*d%s%s' % (prefix, name, ' ' * pad, number_width,
                                           n, ' ' if n else '', '+' * add))
    files = len(stats)
    total = sum(c for _, c in stats)
    lines.append(' %d file%s changed, %d insertion%s(+)' % (
        files, '' if files == 1 else 's', total, '' if total == 1 else 's'))
    return lines


def render(srcdir=SRCDIR):
    """The patch, as text."""
    srcdir = Path(srcdir)
    names = source_files(srcdir)
    if not names:
        raise SystemExit(f'gen-testcases-patch: no sources in {srcdir}')
    diffs, stats = [], []
    for name in names:
        path = f'{TREE_DIR}/{name}'
        data = (srcdir / name).read_bytes()
        lines, no_eol = split_lines(data)
        mode = '100755' if os.access(srcdir / name, os.X_OK) else '100644'
        diffs += [f'diff --git a/{path} b/{path}', f'new file mode {mode}',
                  f'index 0000000..{blob_id(data)[:7]}']
        if lines:
            diffs += ['--- /dev/null', f'+++ b/{path}',
                      '@@ -0,0 +1 @@' if len(lines) == 1 else f'@@ -0,0 +1,{len(lines)} @@']
            diffs += ['+' + l for l in lines]
            if no_eol:
                diffs.append('\\ No newline at end of file')
        stats.append((path, len(lines)))
    head = ['From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001',
            f'From: {AUTHOR}', f'Date: {DATE}', f'Subject: [PATCH] {SUBJECT}', '',
            CHANGELOG, '---']
    head += diffstat(stats)
    modes = ['100755' if os.access(srcdir / n, os.X_OK) else '100644' for n in names]
    head += [f' create mode {m} {TREE_DIR}/{n}' for m, n in zip(modes, names)]
    head.append('')
    return '\n'.join(head + diffs) + '\n'


def check(srcdir=SRCDIR, patches=PATCHES):
    """Problems with the committed patch, as a list of strings."""
    problems = []
    target = Path(patches) / ENTRY
    want = render(srcdir)
    if not target.is_file():
        problems.append(f'{ENTRY} is missing: run tools/gen-testcases-patch')
    else:
        have = target.read_text()
        if have != want:
            diff = list(difflib.unified_diff(have.split('\n'), want.split('\n'),
                                             'committed', 'generated', n=0, lineterm=''))
            problems.append(f'{ENTRY} is out of date with tools/testing/vm-shm/ '
                            f'({len(diff)} diff lines): run tools/gen-testcases-patch; first:\n  '
                            + '\n  '.join(diff[:8]))
    last = series.last_entry(patches)
    if last != ENTRY:
        problems.append(f'{ENTRY} must be the last entry of patches/series (it is {last})')
    return problems


def write(srcdir=SRCDIR, patches=PATCHES):
    """Write the patch if it changed; what to tell the user."""
    text = render(srcdir)
    target = Path(patches) / ENTRY
    if target.is_file() and target.read_text() == text:
        return f'{rel(target)}: unchanged'
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    return f'{rel(target)}: written ({len(source_files(srcdir))} files)'


def main(argv=None):
    """tools/gen-testcases-patch [--check | --stdout]"""
    ap = argparse.ArgumentParser(prog='gen-testcases-patch', description=__doc__.split('\n')[0])
    ap.add_argument('--check', action='store_true', help='fail if the committed patch is stale')
    ap.add_argument('--stdout', action='store_true', help='print the patch instead of writing it')
    args = ap.parse_args(argv)
    if args.check:
        problems = check()
        for p in problems:
            print(f'gen-testcases-patch: {p}')
        if not problems:
            print(f'gen-testcases-patch: {ENTRY} is current ({len(source_files())} files)')
        return 1 if problems else 0
    if args.stdout:
        sys.stdout.write(render())
        return 0
    print(write())
    return 0
