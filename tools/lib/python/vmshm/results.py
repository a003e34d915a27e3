# SPDX-License-Identifier: GPL-2.0
"""Results: the verdict of a run, its result.json, the compact copy in
results/, and what table and compare make of them (kunit_json's job).

A result records every condition of its run (CONDITIONS); files written
before a condition was recorded read it as None, "not recorded".
"""

import json
import re
from pathlib import Path

from .common import LAYOUT, Error, log, rel
from .programs import PROGRAMS
from .vmstat import vmstat_totals

# What a run's result says about how it ran: enough to tell two runs
# apart, or to run one again, without its label.
CONDITIONS = ('variant', 'config', 'kernel_release', 'guest_kind', 'qemu', 'accel', 'icount',
              'mem_mb', 'cpus', 'scale_mb', 'swap_mb', 'data_mb', 'swap_fault', 'sysctls',
              'append', 'args', 'prog_timeout', 'series_hash')


def with_defaults(rec):
    """rec with every condition present (None where an older file did not
    record it), so readers need no special case for old results."""
    for k in CONDITIONS:
        rec.setdefault(k, None)
    return rec


# What tells the kernels of two runs apart: compare is for comparing them.
KERNEL = ('variant', 'kernel_release', 'series_hash')


def differing_conditions(a, b):
    """[(key, a's, b's)] of the conditions besides the kernel that both
    runs recorded and that differ: compare warns about them, since the
    figures of the two runs then differ for more than the kernel."""
    return [(k, a[k], b[k]) for k in CONDITIONS
            if k not in KERNEL and a.get(k) is not None and b.get(k) is not None and a[k] != b[k]]


def verdict(parser, outcome, requested, duration):
    """(verdict, summary) for a run."""
    problems = []
    if outcome not in ('done', 'native'):
        what = {'hang': 'hang: no console output', 'timeout': 'total timeout',
                'panic': 'kernel panic', 'exit': 'guest ended early',
                'no-reboot': 'guest did not reboot after done',
                'qemu-error': 'QEMU failed'}.get(outcome, outcome)
        problems.append(f'{what}' + (f' while running {parser.current}' if parser.current else ''))
    seen = {}
    for e in parser.events:
        if e['severity'] in ('fatal', 'error') and e['kind'] != 'panic':
            seen.setdefault((e['line'][:70], e['program']), 0)
            seen[(e['line'][:70], e['program'])] += 1
    for (line, prog), n in list(seen.items())[:2]:
        problems.append(line + (f' x{n}' if n > 1 else '') + (f' (in {prog})' if prog else ''))
    if len(seen) > 2:
        problems.append(f'{len(seen) - 2} more kinds of kernel error')
    if parser.bailout:
        problems.append(parser.bailout[:70])
    status = {n: parser.programs.get(n, {}).get('status', 'not run') for n in requested}
    ok = sum(1 for s in status.values() if s == 'ok')
    skip = sum(1 for s in status.values() if s == 'skip')
    fails = [n for n, s in status.items() if s == 'fail']
    unfinished = [n for n, s in status.items() if s not in ('ok', 'skip', 'fail')]
    if fails:
        problems.append('not ok: ' + ', '.join(fails))
    if unfinished:
        problems.append(f'{len(unfinished)} not finished' if len(unfinished) > 2 else
                        'not finished: ' + ', '.join(unfinished))
    ooms = sum(1 for e in parser.events if e['kind'] == 'oom')
    tail = f'{ok + skip}/{len(requested)} ok' + (f' ({skip} skipped)' if skip else '')
    if ooms:
        tail += f', {ooms} OOM kills'
    tail += f', {duration:.0f} s'
    if problems:
        return 'FAIL', '; '.join(problems) + '; ' + tail
    return 'PASS', tail


def result_record(parser, outcome, meta, requested, duration):
    v, summary = verdict(parser, outcome, requested, duration)
    programs = {}
    for name in parser.order:
        p = dict(parser.programs[name])
        p['vmstat_totals'] = vmstat_totals(p['vmstat'])
        p['diag'] = p['diag'][-30:]
        programs[name] = p
    events = []
    for e in parser.events:
        e = dict(e)
        e['context'] = [parser.scrub(l) for l in parser.lines[max(e['lineno'] - 3, 0):e['lineno'] + 25]]
        events.append(e)
    rec = dict(meta)
    rec.update({'format': 1, 'outcome': outcome, 'duration_s': round(duration, 1),
                'scenarios': requested, 'totals': parser.totals, 'guest': parser.guest, 'programs': programs,
                'events': events, 'running_at_end': parser.current,
                'last_lines': [parser.scrub(l) for l in parser.lines[-20:]], 'verdict': v, 'summary': summary})
    return rec


def print_result(rec):
    for name in rec['scenarios']:
        p = rec['programs'].get(name, {})
        secs = f'{p["ms"] / 1000:7.1f} s' if p.get('ms') is not None else '        '
        log(f'  {p.get("status", "not run"):8} {name:20} {secs}  {len(p.get("figures", {}))} figures')
    if rec['events']:
        log('  kernel events:')
        for e in rec['events'][:10]:
            log(f'    {e["severity"]:5} {e["kind"]:9} {e["line"][:90]}' +
                (f' (in {e["program"]})' if e['program'] else ''))
    if rec['verdict'] != 'PASS' and rec['outcome'] not in ('done', 'native'):
        log('  last console lines:')
        for l in rec['last_lines']:
            log(f'    | {l}')
    log(f'{rec["verdict"]}: {rec["summary"]}')


def load_result(spec, layout=LAYOUT):
    """A result from a dir, a json file, or a label prefix (latest match in
    build/results/)."""
    p = Path(spec)
    if p.is_dir():
        p = p / 'result.json'
    if not p.is_file():
        cands = sorted(d for d in (layout.build / 'results').glob(f'{spec}-*') if (d / 'result.json').is_file())
        if not cands:
            raise Error(f'{spec}: no such result (a result dir, result.json, or a label like vanilla-up)')
        cands.sort(key=lambda d: d.name[-16:])
        p = cands[-1] / 'result.json'
    rec = with_defaults(json.loads(p.read_text()))
    rec['_path'] = str(p)
    return rec


def all_figures(rec):
    figs = {}
    for k, v in rec.get('guest', {}).get('figures', {}).items():
        figs[k] = v
    for name in PROGRAMS + [n for n in rec.get('programs', {}) if n not in PROGRAMS]:
        p = rec.get('programs', {}).get(name)
        if not p:
            continue
        for k, v in p.get('figures', {}).items():
            figs[k if k.startswith(name + '.') else f'{name}.{k}'] = v
        if p.get('ms') is not None:
            figs[f'{name}.runtime_s'] = {'value': p['ms'] / 1000.0, 'unit': 's'}
        for k, v in p.get('vmstat_totals', {}).items():
            figs[f'{name}.vmstat.{k}'] = {'value': v, 'unit': 'kB' if k.endswith('_kb') else
                                          ('pages' if k.startswith('psw') else 'kB')}
    return figs


def fmt(v):
    if isinstance(v, float):
        return f'{v:.4g}'
    return str(v)


def compare_rows(a, b):
    fa, fb = all_figures(a), all_figures(b)
    keys = list(fa) + [k for k in fb if k not in fa]
    rows = []
    for k in keys:
        va = fa.get(k, {}).get('value')
        vb = fb.get(k, {}).get('value')
        unit = (fa.get(k) or fb.get(k)).get('unit', '')
        ratio = ''
        if isinstance(va, (int, float)) and isinstance(vb, (int, float)) and va:
            ratio = f'{vb / va:.3g}'
        rows.append((k, '' if va is None else fmt(va), '' if vb is None else fmt(vb), ratio, unit))
    return rows


def compact(rec):
    """What goes into results/: figures and statuses, no timelines/paths."""
    keep = ('label', 'date', 'full', 'outcome', 'duration_s', 'verdict', 'summary', 'scenarios', 'totals')
    out = {k: rec.get(k) for k in keep + CONDITIONS}
    out['guest'] = {'uname': rec.get('guest', {}).get('uname'),
                    'figures': rec.get('guest', {}).get('figures', {})}
    out['programs'] = {n: {k: p.get(k) for k in ('status', 'exit', 'signal', 'ms', 'figures', 'totals',
                                                 'vmstat_totals')}
                       for n, p in rec.get('programs', {}).items()}
    out['events'] = [{k: e.get(k) for k in ('kind', 'severity', 'program', 'line')}
                     for e in rec.get('events', [])]
    return out


def save(spec, subdir=None, layout=LAYOUT):
    """Copy a run into results/ (or results/<subdir>/, kept apart from the
    suite's table: the fault and soak campaign)."""
    rec = load_result(spec, layout)
    dest_dir = layout.results / subdir if subdir else layout.results
    dest_dir.mkdir(parents=True, exist_ok=True)
    date = rec['date'][:19].replace(':', '').replace('-', '')
    dest = dest_dir / f'{rec["label"]}-{date}.json'
    dest.write_text(json.dumps(compact(rec), indent=1, sort_keys=True) + '\n')
    log(f'saved {rel(dest, layout.repo)}')
    return dest


def table(results_dir=None, match=None):
    """The markdown tables of the runs in results_dir (default results/):
    one row a run, then one row a figure (those matching match)."""
    recs = [json.loads(p.read_text()) for p in sorted(Path(results_dir or LAYOUT.results).glob('*.json'))]
    if not recs:
        return 'No runs in results/ yet.\n'
    lines = ['| run | date | kernel | series | verdict | summary |', '|---|---|---|---|---|---|']
    for r in recs:
        lines.append(f'| {r["label"]} | {r["date"][:10]} | {r.get("kernel_release") or ""} | '
                     f'{(r.get("series_hash") or "")[:12]} | {r["verdict"]} | {r["summary"]} |')
    lines.append('')
    figs = [all_figures(r) for r in recs]
    keys = []
    for f in figs:
        keys += [k for k in f if k not in keys]
    lines.append('| figure | unit | ' + ' | '.join(r['label'] for r in recs) + ' |')
    lines.append('|---|---|' + '---:|' * len(recs))
    for k in keys:
        if match and not re.search(match, k):
            continue
        unit = next(f[k].get('unit', '') for f in figs if k in f)
        lines.append(f'| {k} | {unit} | ' + ' | '.join(fmt(f[k]['value']) if k in f else ''
                                                      for f in figs) + ' |')
    return '\n'.join(lines) + '\n'


TABLE_BEGIN = '<!-- vmshm table begin: generated by tools/vmshm table, do not edit -->'
TABLE_END = '<!-- vmshm table end -->'


TABLE_BEGIN = '<!-- vmshm table begin: generated by tools/vmshm table, do not edit -->'
TABLE_END = '<!-- vmshm table end -->'


def update_doc(text, t):
    """text with the generated block replaced by table t (or added)."""
    block = f'{TABLE_BEGIN}\n{t}{TABLE_END}'
    if TABLE_BEGIN in text and TABLE_END in text:
        return text[:text.index(TABLE_BEGIN)] + block + text[text.index(TABLE_END) + len(TABLE_END):]
    return text.rstrip('\n') + '\n\n' + block + '\n'
