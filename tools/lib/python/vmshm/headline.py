# SPDX-License-Identifier: GPL-2.0
"""The README's results table: the figures a reviewer reads first, each
with the goal its issue set, 2.6.3 against the series, generated from the
runs in results/ ("tools/vmshm headline", "make readme-table").

A row names a figure and the conditions of the runs it is read from, as
a selector (results.parse_selector; conditions it does not name must be
plain).  Among the runs in results/*.json that match and have the
figure, the row takes the one set of conditions, all but the kernel's,
under which both 2.6.3 (vanilla) and the series (patched) ran; of each
kernel the latest series there, the median over its runs.  A row whose
selector leaves two such sets open is an error: name more conditions.

Goals are the issues' own words, shortened; check, where the goal is a
number, says how it is met: "ratio >= 10" (patched over 2.6.3) or
"patched <= 0.1" (the series' figure), or "patched == PASS".
"""

import json
import operator
import re
from dataclasses import dataclass

from .common import Error
from .results import (CONDITIONS, KERNEL, PLAIN, all_figures, group_name, group_runs, is_plain, load_runs,
                      matches, median, parse_selector)


@dataclass(frozen=True)
class Row:
    scenario: str
    figure: str          # program.key, or "verdict": the run's
    where: str           # the runs' conditions, a selector
    goal: str
    check: str = ''


# Issue 3 (objrmap), 4 (shmem swap I/O, clean cache first), 6 (the index).
ROWS = (
    Row('pte_chain capacity', 'pte_chain_capacity.children', 'mem=8192',
        'at least 10 x 2.6.3, 8 GB PAE', 'ratio >= 10'),
    Row('pte_chain capacity', 'pte_chain_capacity.pte_chain_bytes_per_child', 'mem=8192',
        'close to zero'),
    Row('shm swap storm', 'shm_swap_storm.swapout_over_needed', 'config=up,mem=256',
        'at most 1.2', 'patched <= 1.2'),
    Row('shm swap storm', 'shm_swap_storm.probe_max_ms', 'config=up,mem=256',
        'no stall of 1 s', 'patched < 1000'),
    Row('copy during swap', 'copy_during_swap.swapout_per_read', 'config=up,mem=256',
        'at most 0.1', 'patched <= 0.1'),
    Row('copy during swap', 'copy_during_swap.loaded_over_unloaded', 'config=up,mem=256,icount',
        'at least 0.9', 'patched >= 0.9'),
    Row('small guest', 'copy_during_swap.unloaded_MBps', 'mem=128,icount',
        'within 5 % of 2.6.3', 'ratio >= 0.95'),
    Row('small guest', 'copy_during_swap.unloaded_MBps', 'mem=64,icount',
        'within 5 % of 2.6.3', 'ratio >= 0.95'),
    Row('many vmas', 'many_vmas.shared_touch_s', 'config=up,mem=256',
        'at most 1.1 x 2.6.3', 'ratio <= 1.1'),
    Row('many vmas', 'many_vmas.one_touch_s', 'config=up,mem=256',
        'at most 1.1 x 2.6.3', 'ratio <= 1.1'),
    Row('many vmas', 'many_vmas.shared_probe_max_ms', 'config=up,mem=256',
        'no stall of 1 s', 'patched < 1000'),
    Row('many vmas', 'many_vmas.truncate_tail_us', 'config=up,mem=256',
        'as the overlapping vmas'),
    Row('fork/exit', 'fork_exit_rate.exit_per_s', 'config=up,mem=256',
        'at least 1.2 x 2.6.3', 'ratio >= 1.2'),
    Row('fork/exit', 'fork_exit_rate.pool_per_s', 'config=up,mem=256',
        'at least 1.2 x 2.6.3', 'ratio >= 1.2'),
    Row('integrity, debug', 'verdict', 'config=debug,mem=256',
        'no mismatch, BUG or oops', 'patched == PASS'),
)

OPS = {'>=': operator.ge, '<=': operator.le, '<': operator.lt, '>': operator.gt, '==': operator.eq}


def value(rec, figure):
    if figure == 'verdict':
        return rec.get('verdict')
    fig = all_figures(rec).get(figure)
    return fig['value'] if fig else None


def others(rec):
    """The run's conditions but the kernel's, as one value.  A plain
    condition counts the same recorded or not (older results did not
    record sysctls, append, args or prog_timeout), as matches() counts
    it, so that a newer run of the same conditions replaces an older."""
    return tuple(json.dumps(None if k in PLAIN and is_plain(rec.get(k)) else rec.get(k),
                            sort_keys=True)
                 for k in CONDITIONS if k not in KERNEL)


def pair(runs, row, other='patched'):
    """{'vanilla': [runs], 'patched': [runs]} a row reads its figure from;
    other: the variant read as 'patched' (a series alone)."""
    sel = parse_selector(row.where)
    sets = {}
    for r in runs:
        if r.get('variant') in ('vanilla', other) and matches(r, sel) and value(r, row.figure) is not None:
            key = 'vanilla' if r['variant'] == 'vanilla' else 'patched'
            sets.setdefault(others(r), {}).setdefault(key, []).append(r)
    both = [s for s in sets.values() if len(s) == 2]
    if len(both) != 1:
        raise Error(f'headline: {row.figure} where {row.where}: {len(both)} sets of conditions with runs of '
                    'both kernels (name more conditions)' if both else
                    f'headline: {row.figure} where {row.where}: no runs of both kernels in results/')
    return {v: max(group_runs(rs), key=lambda g: g[-1].get('date') or '') for v, rs in both[0].items()}


def number(v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, int) or abs(v) >= 1000:
        return f'{v:,.0f}'
    return f'{v:.4g}'


def judge(check, vanilla, patched):
    """'met', 'missed' or '' (no check, or no number to check)."""
    if not check:
        return ''
    m = re.fullmatch(r'(ratio|patched)\s*(>=|<=|<|>|==)\s*(\S+)', check)
    if not m:
        raise Error(f'headline: check {check!r} not understood')
    what, op, want = m.groups()
    if what == 'ratio':
        if not isinstance(vanilla, (int, float)) or not isinstance(patched, (int, float)) or not vanilla:
            return ''
        got, want = patched / vanilla, float(want)
    else:
        got = patched
        if isinstance(got, (int, float)):
            want = float(want)
    return 'met' if OPS[op](got, want) else 'missed'


def lines(runs, rows=ROWS, other='patched', skip_missing=False):
    """[(row, {'vanilla': group, 'patched': group}, vanilla, patched, ratio, verdict)];
    skip_missing: leave out the rows without runs of both kernels."""
    out = []
    for row in rows:
        try:
            groups = pair(runs, row, other)
        except Error:
            if skip_missing:
                continue
            raise
        v, p = (median([value(r, row.figure) for r in groups[k]]) for k in ('vanilla', 'patched'))
        ratio = (p / v if isinstance(v, (int, float)) and isinstance(p, (int, float)) and v
                 and not isinstance(v, bool) else None)
        out.append((row, groups, v, p, ratio, judge(row.check, v, p)))
    return out


def cell(v, groups):
    n = len(groups)
    return number(v) + (f' (n={n})' if n > 1 else '')


def table(results_dir=None, rows=ROWS, other='patched'):
    """The README's table, markdown; with other (a series alone), only
    the rows that have runs of it, and '' if none has."""
    out = ['| scenario | figure | goal | 2.6.3 | patched | ratio |', '|---|---|---|---:|---:|---:|']
    if other != 'patched':
        out[0] = out[0].replace('| patched |', f'| {other} alone |')
    found = lines(load_runs(results_dir), rows, other, skip_missing=other != 'patched')
    if not found:
        return ''
    for row, groups, v, p, ratio, verdict in found:
        conds = group_name(groups['patched'][-1], series=False).split('-', 1)[1]
        figure = row.figure.split('.', 1)[-1]
        goal = row.goal + (f': **{verdict}**' if verdict == 'missed' else f': {verdict}' if verdict else '')
        out.append(f'| {row.scenario} | {figure} ({conds}) | {goal} | {cell(v, groups["vanilla"])} | '
                   f'{cell(p, groups["patched"])} | {"" if ratio is None else f"{ratio:.3g}"} |')
    return '\n'.join(out) + '\n'


def sources(results_dir=None, rows=ROWS):
    """Where each row of the README's table comes from: the runs and
    their series, markdown."""
    out = ['| scenario | figure | conditions | 2.6.3 runs | patched runs |', '|---|---|---|---|---|']
    for row, groups, *_ in lines(load_runs(results_dir), rows):
        files = {k: ', '.join(f'`{r["_path"].rsplit("/", 1)[-1]}`' for r in g) for k, g in groups.items()}
        name = {k: group_name(g[-1]).split(' ')[-1] for k, g in groups.items()}
        out.append(f'| {row.scenario} | `{row.figure}` | `{row.where}` | {files["vanilla"]} '
                   f'(series {name["vanilla"]}) | {files["patched"]} (series {name["patched"]}) |')
    return '\n'.join(out) + '\n'
