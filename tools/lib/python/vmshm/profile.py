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
import shlex
from pathlib import Path

HEADER = re.compile(r'# prof: (\S+) step=(\d+) buckets=(\d+)')
DATA = re.compile(r'# prof: (\S+)((?: \d+:\d+)+)\s*$')


def read_console(text):
    """{prog: (step, {bucket: hits})} of the "# prof:" lines of a console."""
    out = {}
    for line in text.splitlines():
        i = line.find('# prof: ')
        if i < 0:
            continue
        line = line[i:].rstrip()
        m = HEADER.match(line)
        if m:
            out[m.group(1)] = (int(m.group(2)), {})
            continue
        m = DATA.match(line)
        if m and m.group(1) in out:
            hist = out[m.group(1)][1]
            for pair in m.group(2).split():
                b, h = pair.split(':')
                hist[int(b)] = hist.get(int(b), 0) + int(h)
    return out


def read_system_map(text):
    """(_stext, sorted [(address, name)]) of the text symbols of a System.map."""
    syms, stext = [], None
    for line in text.splitlines():
        parts = line.split()
        if len(parts) != 3 or parts[1] not in 'tTwW':
            continue
        addr = int(parts[0], 16)
        syms.append((addr, parts[2]))
        if parts[2] == '_stext':
            stext = addr
    if stext is None:
        raise ValueError('System.map has no _stext')
    syms.sort()
    return stext, syms


def by_function(step, hist, stext, syms):
    """{function: hits}: each bucket charged to the symbol at its start."""
    addrs = [a for a, _ in syms]
    out = {}
    for b, hits in hist.items():
        i = bisect.bisect_right(addrs, stext + b * step) - 1
        name = syms[i][1] if i >= 0 else '?'
        out[name] = out.get(name, 0) + hits
    return out


def system_map_of(run_dir, layout):
    """The System.map of the kernel a run booted: beside its bzImage."""
    d = json.loads((Path(run_dir) / 'result.json').read_text())
    cmd = shlex.split(d.get('qemu_command') or '')
    if '-kernel' in cmd:
        image = Path(cmd[cmd.index('-kernel') + 1])
        if not image.is_absolute():
            image = layout.repo / image
        # <obj>/arch/i386/boot/bzImage
        return image.parents[3] / 'System.map'
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
    """The table of @prog's profile in each run directory of @runs."""
    columns = []
    for r in map(Path, runs):
        profs = read_console((r / 'console.log').read_text(errors='replace'))
        if prog not in profs:
            raise ValueError('%s: no profile of %s (boot with profile=2?)' % (r, prog))
        smap = Path(system_map) if system_map else system_map_of(r, layout)
        stext, syms = read_system_map(smap.read_text())
        step, hist = profs[prog]
        columns.append((r.name, by_function(step, hist, stext, syms)))
    return table(columns, prog, top)
