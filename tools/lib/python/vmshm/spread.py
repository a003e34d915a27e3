# SPDX-License-Identifier: GPL-2.0
"""vmshm.spread: min, median and max of figures over repeated runs, per kernel.

A ratio between two kernels is only worth quoting over several runs of
each (the brief asks for at least five), with the spread shown.  The runs
are result.json files (or directories holding one) of `tools/vmshm run`;
they are grouped by kernel (variant-config, plus cpus and icount), and
for every figure whose program.key matches --match it prints n, min,
median and max per group, and the median of the other groups over the
first's, with the exact two-sided Mann-Whitney p-value of each group
against the first (rank_test()).

    tools/vmshm spread --match 'shared_fork_ms|sdet_commands_per_s' \\
        build/results/fs-*-up-icount-*
"""
import itertools
import json
import math
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


EXACT_MAX = 200000


def rank_test(xs, ys):
    """Exact two-sided Mann-Whitney (Wilcoxon rank-sum) p-value of @xs
    against @ys, or None if it is not computed.

    Tests whether one sample tends to be larger than the other (H0: both
    come from the same distribution), from ranks only: a p below 0.05 says
    the two groups' values are unlikely to interleave as much as they do
    by chance.  Ties get midranks.  The p-value is exact: the rank sum of
    @xs is compared with that of every way of drawing len(@xs) values from
    the pooled sample (conditional on its ties), counting those at least as
    far from the mean as the one observed.

    Limits: small samples give coarse p-values; 5 runs against 5 can give
    no p below 2/252 = 0.0079 (3 against 3: 2/20 = 0.1, so never below
    0.05).  None if a sample is empty or C(n1 + n2, n1) exceeds
    EXACT_MAX (200,000).  It says nothing about how large a difference
    is, and assumes the runs are independent.
    """
    n1, n2 = len(xs), len(ys)
    if not n1 or not n2 or math.comb(n1 + n2, n1) > EXACT_MAX:
        return None
    pooled = list(xs) + list(ys)
    order = sorted(range(n1 + n2), key=lambda i: pooled[i])
    # twice the midranks, so that every rank sum is an integer
    rank2 = [0] * (n1 + n2)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and pooled[order[j + 1]] == pooled[order[i]]:
            j += 1
        for k in range(i, j + 1):
            rank2[order[k]] = i + j + 2
        i = j + 1
    # twice the rank sum of xs expected under H0
    mean2 = n1 * (n1 + n2 + 1)
    obs = abs(sum(rank2[:n1]) - mean2)
    hits = total = 0
    for c in itertools.combinations(rank2, n1):
        total += 1
        if abs(sum(c) - mean2) >= obs:
            hits += 1
    return hits / total


def fmt(v):
    return '%.4g' % v


def fmt_p(base, vs):
    """The p column of a group's values @vs against the base's."""
    if not base or len(base) < 3 or len(vs) < 3:
        return '-'
    p = rank_test(vs, base)
    return '-' if p is None else '%.3f' % p


def table(sp, groups):
    """Markdown: one row per figure and group, ratio to the first group and
    the rank test's p-value against it."""
    lines = ['| figure | kernel | n | min | median | max | '
             'median / %s | p (rank test against %s) |' % (groups[0], groups[0]),
             '|---|---|---|---|---|---|---|---|']
    for key in sorted(sp):
        base = sp[key].get(groups[0])
        b = statistics.median(base) if base else None
        for g in groups:
            vs = sp[key].get(g)
            if not vs:
                continue
            m = statistics.median(vs)
            r = fmt(m / b) if b else '-'
            p = '' if g == groups[0] else fmt_p(base, vs)
            lines.append('| %s | %s | %d | %s | %s | %s | %s | %s |' % (
                key, g, len(vs), fmt(min(vs)), fmt(m), fmt(max(vs)), r, p))
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
