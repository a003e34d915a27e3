# SPDX-License-Identifier: GPL-2.0
"""vmshm.spread: min, median and max of figures over repeated runs, per kernel.

A ratio between two kernels is only worth quoting over several runs of
each (the brief asks for at least five), with the spread shown.  The runs
are result.json files (or directories holding one) of `tools/vmshm run`;
they are grouped by kernel (variant-config, plus cpus and icount), and
for every figure whose program.key matches --match it prints n, min,
median and max per group, and the median of the other groups over the
first's.

    tools/vmshm spread --match 'shared_fork_ms|sdet_commands_per_s' \\
        build/results/fs-*-up-icount-*
"""
import json
import re
import statistics
from pathlib import Path

from .results import kernel_build


def load(paths):
    """[(group, {figure: value})] of the result files under @paths."""
    runs = []
    for p in map(Path, paths):
        f = p / 'result.json' if p.is_dir() else p
        if not f.is_file():
            continue
        d = json.loads(f.read_text())
        runs.append((group_of(d), figures_of(d)))
    return runs


def group_of(d):
    """The kernel and conditions a run measured, as one string."""
    if d.get('variant'):
        g = '%s-%s' % (d['variant'], d.get('config') or '?')
    else:
        # --kernel: the build directory names the kernel (build/obj/<name>/):
        # result.json has the image's path in its QEMU command, results/ the
        # build's name
        b = d.get('kernel_build') or kernel_build(d)
        if not b:
            parts = str(d.get('kernel_image') or '').split('/')
            b = parts[parts.index('obj') + 1] if 'obj' in parts[:-1] else None
        g = b or 'kernel-%s' % (d.get('kernel_release') or '?')
    g += ' c%s m%s' % (d.get('cpus', '?'), d.get('mem_mb', '?'))
    if d.get('icount'):
        g += ' icount'
    for s in d.get('sysctls') or []:
        g += ' ' + s
    if d.get('append'):
        g += ' ' + d['append']
    for prog, a in sorted((d.get('args') or {}).items()):
        g += ' %s=[%s]' % (prog, a)
    return g


def figures_of(d):
    """{program.key: value} of every program of a run."""
    out = {}
    for prog in (d.get('programs') or {}).values():
        for key, fig in (prog.get('figures') or {}).items():
            if isinstance(fig.get('value'), (int, float)):
                out[key] = fig['value']
    return out


def spread(runs, match):
    """{figure: {group: [values]}} of the figures matching @match."""
    rx = re.compile(match)
    out = {}
    for group, figs in runs:
        for key, v in figs.items():
            if rx.search(key):
                out.setdefault(key, {}).setdefault(group, []).append(v)
    return out


def fmt(v):
    return '%.4g' % v


def table(sp, groups):
    """Markdown: one row per figure and group, ratio to the first group."""
    lines = ['| figure | kernel | n | min | median | max | '
             'median / %s |' % groups[0],
             '|---|---|---|---|---|---|---|']
    for key in sorted(sp):
        base = sp[key].get(groups[0])
        b = statistics.median(base) if base else None
        for g in groups:
            vs = sp[key].get(g)
            if not vs:
                continue
            m = statistics.median(vs)
            r = fmt(m / b) if b else '-'
            lines.append('| %s | %s | %d | %s | %s | %s | %s |' % (
                key, g, len(vs), fmt(min(vs)), fmt(m), fmt(max(vs)), r))
    return '\n'.join(lines)


def report(paths, match, base):
    """The table of the runs under @paths, the groups matching @base first;
    None if there is no run."""
    runs = load(paths)
    if not runs:
        return None
    groups = sorted({g for g, _ in runs})
    groups.sort(key=lambda g: not re.search(base, g))
    return table(spread(runs, match), groups)
