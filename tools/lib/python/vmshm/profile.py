# SPDX-License-Identifier: GPL-2.0
"""vmshm.profile: where the kernel spent its ticks during each program.

A kernel booted with the kernel's own profile=N (`tools/vmshm run
--append profile=2`) keeps a histogram of the timer ticks that found
the CPU in kernel text.  The guest init clears /proc/profile before each
program and prints its non-zero buckets after it:

    # prof: <prog> step=<bytes per bucket> buckets=<n>
    # prof: <prog> <bucket>:<hits> <bucket>:<hits> ...

This module reads those lines from a run's console.log, maps bucket i to
the function holding _stext + i * step by the kernel's System.map, and
prints the functions that took the most ticks; given two runs, side by
side (what readprofile does, run after run).

    tools/vmshm profile --prog fork_exit_rate build/results/<a> build/results/<b>
"""
import bisect
import json
import re
from pathlib import Path

from .results import kernel_image

HEADER = re.compile(r'# prof: (\S+) step=(\d+) buckets=(\d+)')
END = re.compile(r'# prof: (\S+) end buckets=(\d+)')
DATA = re.compile(r'# prof: (\S+)((?: \d+:\d+)+)\s*$')
# x86_do_profile() clamps every tick outside _stext.._etext (modules,
# text after _etext, the tail of a bucket) into the last bucket
OUTSIDE = '(outside _stext.._etext: modules, .cold, clamp)'


class Profile:
    """One program's histogram: bytes per bucket, buckets, {bucket: hits},
    and the "# prof:" lines that did not parse (cut by a printk)."""
    def __init__(self, step, buckets):
        self.step, self.buckets, self.hist, self.bad = step, buckets, {}, 0


def read_console(text):
    """{prog: Profile} of the "# prof:" lines of a console."""
    out = {}
    for line in text.splitlines():
        i = line.find('# prof: ')
        if i < 0:
            continue
        line = line[i:].rstrip()
        m = HEADER.match(line)
        if m:
            out[m.group(1)] = Profile(int(m.group(2)), int(m.group(3)))
            continue
        m = END.match(line)
        if m:
            if m.group(1) in out:
                out[m.group(1)].buckets = int(m.group(2))
            continue
        m = DATA.match(line)
        if m and m.group(1) in out:
            hist = out[m.group(1)].hist
            for pair in m.group(2).split():
                b, h = pair.split(':')
                hist[int(b)] = hist.get(int(b), 0) + int(h)
            continue
        name = line.split()[2] if len(line.split()) > 2 else ''
        if name in out:
            out[name].bad += 1
    return out


def read_system_map(text):
    """(_stext, _etext, [(address, name)]) of a System.map: its text
    symbols, sorted, one per address: of aliases, a T or t symbol before
    a weak one, then the first in the map."""
    best, stext, etext = {}, None, None
    rank = {'T': 0, 't': 0, 'W': 1, 'w': 1}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) != 3:
            continue
        addr = int(parts[0], 16)
        if parts[2] == '_stext':
            stext = addr
        elif parts[2] == '_etext':
            etext = addr
        if parts[1] not in rank or parts[2] in ('_stext', '_etext', '_text'):
            continue
        if addr not in best or rank[parts[1]] < best[addr][0]:
            best[addr] = (rank[parts[1]], parts[2])
    if stext is None or etext is None:
        raise ValueError('System.map has no _stext or _etext')
    return stext, etext, sorted((a, n) for a, (_, n) in best.items())


def check(prof, stext, etext):
    """Refuse a System.map that is not the profiled kernel's: its text
    must give the profile's number of buckets."""
    want = (etext - stext) // prof.step if prof.step else -1
    if prof.buckets != want:
        raise ValueError('the profile has %d buckets of %d bytes, the System.map\'s '
                         'text %d: not the kernel that ran' % (prof.buckets, prof.step, want))


def by_function(prof, stext, syms):
    """{function: hits}: each bucket charged to the symbol at its start,
    the last (the clamp) to OUTSIDE."""
    addrs = [a for a, _ in syms]
    out = {}
    for b, hits in prof.hist.items():
        if b >= prof.buckets - 1:
            name = OUTSIDE
        else:
            i = bisect.bisect_right(addrs, stext + b * prof.step) - 1
            name = syms[i][1] if i >= 0 else '?'
        out[name] = out.get(name, 0) + hits
    return out


def system_map_of(run_dir, layout):
    """The System.map of the kernel a run booted: beside its bzImage."""
    d = json.loads((Path(run_dir) / 'result.json').read_text())
    if kernel_image(d):
        image = Path(kernel_image(d))
        if not image.is_absolute():
            image = layout.repo / image
        # <obj>/arch/i386/boot/bzImage
        return image.parents[3] / 'System.map'
    if not d.get('variant') or not d.get('config'):
        raise ValueError('%s: no kernel recorded: give --system-map' % run_dir)
    return layout.build / 'obj' / ('%s-%s' % (d['variant'], d['config'])) / 'System.map'


def table(columns, prog, top):
    """Text table: the @top functions by their largest share in any run.
    columns: [(title, {function: hits})]."""
    totals = [sum(f.values()) or 1 for _, f in columns]
    names = set()
    for _, f in columns:
        names.update(f)
    share = {n: max(f.get(n, 0) / t for (_, f), t in zip(columns, totals))
             for n in names}
    rows = sorted(names, key=lambda n: (-share[n], n))[:top]
    width = max([len(n) for n in rows] + [8])
    head = '%-*s' % (width, prog) + ''.join(
        '  %18s' % t[:18] for t, _ in columns)
    lines = [head, '%-*s' % (width, 'ticks') + ''.join(
        '  %18d' % sum(f.values()) for _, f in columns)]
    for n in rows:
        lines.append('%-*s' % (width, n) + ''.join(
            '  %9d %7.2f%%' % (f.get(n, 0), 100.0 * f.get(n, 0) / t)
            for (_, f), t in zip(columns, totals)))
    return '\n'.join(lines)


def report(runs, prog, top, layout, system_map=None):
    """The table of @prog's profile in each run directory of @runs.  The
    System.map must be the one of the kernel that ran (checked by its
    text's size): a kernel rebuilt since the run gives a wrong one."""
    columns, notes = [], []
    for r in map(Path, runs):
        profs = read_console((r / 'console.log').read_text(errors='replace'))
        if prog not in profs:
            raise ValueError('%s: no profile of %s (boot with profile=2?)' % (r, prog))
        prof = profs[prog]
        smap = Path(system_map) if system_map else system_map_of(r, layout)
        stext, etext, syms = read_system_map(smap.read_text())
        check(prof, stext, etext)
        if prof.bad:
            notes.append('%s: %d "# prof:" lines did not parse (their ticks are missing)'
                         % (r.name, prof.bad))
        columns.append((r.name, by_function(prof, stext, syms)))
    return '\n'.join([table(columns, prog, top)] + notes)
