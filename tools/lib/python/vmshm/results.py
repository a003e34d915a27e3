# SPDX-License-Identifier: GPL-2.0
"""Results: the verdict of a run, its result.json, the compact copy in
results/, and what table and compare make of them (kunit_json's job).

A result records every condition of its run (CONDITIONS); files written
before a condition was recorded read it as None, "not recorded".  Runs
are grouped, named and selected by those fields (group_runs, group_name,
select), never by the label a run was given.
"""

import json
import re
import statistics
from pathlib import Path

from .common import LAYOUT, Error, log, rel
from .programs import PROGRAMS
from .spec import X86_64_FROM_MB, default_data_mb, default_swap_mb, word
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


# Conditions a run is made under only when asked (--icount, --sysctl,
# ...): a selector that does not name one asks for the plain value, as a
# label without the word did.  None, "not recorded", counts as plain.
PLAIN = ('icount', 'scale_mb', 'sysctls', 'append', 'args', 'swap_fault', 'prog_timeout')
SHORT = {'mem': 'mem_mb', 'scale': 'scale_mb', 'swap': 'swap_mb', 'data': 'data_mb',
         'series': 'series_hash', 'release': 'kernel_release', 'sysctl': 'sysctls'}
NUMBERS = ('mem_mb', 'cpus', 'scale_mb', 'swap_mb', 'data_mb', 'prog_timeout')


def is_plain(value):
    return value is None or value is False or value in (0, '', [], {})


def group_key(rec):
    """What runs that belong together share: the series and every
    condition, as recorded (None, not recorded, is a value of its own)."""
    return tuple((k, json.dumps(rec.get(k), sort_keys=True)) for k in ('series_hash',) + CONDITIONS)


def condition_words(rec):
    """The conditions of a run that a plain run of its kernel lacks, as
    words, in the order of the run's label (spec.RunSpec.condition_tags),
    then those a label leaves out (program arguments, KVM, a timeout)."""
    mem = rec.get('mem_mb') or 0
    words = ['icount'] if rec.get('icount') else []
    if (rec.get('qemu') or '').endswith('x86_64') and rec.get('guest_kind') == 'legacy' and mem < X86_64_FROM_MB:
        words.append('x86_64')
    if rec.get('scale_mb'):
        words.append(f'scale{rec["scale_mb"]}')
    words += [word(s.rsplit('/', 1)[-1]) for s in rec.get('sysctls') or []]
    if rec.get('append'):
        words.append(word(rec['append']))
    if rec.get('swap_fault'):
        words.append(f'swapfault-{rec["swap_fault"]}')
    if rec.get('swap_mb') is not None and rec['swap_mb'] != default_swap_mb(mem):
        words.append(f'swap{rec["swap_mb"]}')
    if rec.get('data_mb') is not None and rec['data_mb'] != default_data_mb(mem):
        words.append(f'data{rec["data_mb"]}')
    words += [word(f'{prog} {a}') for prog, a in sorted((rec.get('args') or {}).items())]
    if rec.get('accel') == 'kvm':
        words.append('kvm')
    if rec.get('prog_timeout'):
        words.append(f'timeout{rec["prog_timeout"]}')
    return words


def kernel_word(rec):
    if rec.get('variant'):
        return rec['variant']
    return 'kernel-' + re.sub(r'[^\w.-]', '_', rec.get('kernel_release') or '?')


def group_name(rec, series=True):
    """A group's name, derived from its conditions as a run's label is
    (never the label typed with --label): kernel, config, the conditions
    that differ from a plain run, memory and CPUs; then the series."""
    words = [kernel_word(rec)] + ([rec['config']] if rec.get('config') else []) + condition_words(rec)
    name = '-'.join(words) + f'-m{rec.get("mem_mb")}-c{rec.get("cpus")}'
    if series and rec.get('series_hash'):
        name += f' {rec["series_hash"][:8]}'
    return name


def group_runs(runs):
    """[[run, ...], ...]: the runs grouped by series and conditions, each
    group oldest first; groups of the same conditions side by side, vanilla
    before patched."""
    groups = {}
    for r in sorted(runs, key=lambda r: r.get('date') or ''):
        groups.setdefault(group_key(r), []).append(r)
    rank = {'vanilla': 0, 'patched': 1}

    def order(g):
        r = g[-1]
        conditions = [r.get('config') or ''] + condition_words(r)
        return (r.get('mem_mb') or 0, r.get('cpus') or 0, conditions, rank.get(r.get('variant'), 2),
                kernel_word(r), r.get('date') or '')
    return sorted(groups.values(), key=order)


def parse_selector(text):
    """{condition: value} of a selector: 'variant=vanilla,config=up,mem=256',
    'icount' (= icount=1), 'series=de57318e' (a prefix), 'sysctls=vm/x:0'
    (one of the run's), 'args=soak' (a program given arguments)."""
    sel = {}
    for item in filter(None, text.split(',')):
        key, eq, value = item.partition('=')
        key = SHORT.get(key, key)
        if key not in CONDITIONS:
            raise Error(f'{text}: {key} is not a condition of a run ({", ".join(CONDITIONS)})')
        if not eq:
            value = 'true'
        if key in NUMBERS:
            try:
                value = int(value)
            except ValueError:
                raise Error(f'{text}: {key} takes a number') from None
        elif key == 'icount':
            value = value.lower() in ('1', 'true', 'yes', 'on')
        sel[key] = value
    return sel


def matches(rec, sel):
    """Whether a run is one a selector asks for: each condition it names
    as named, each plain one it does not name plain."""
    for k in CONDITIONS:
        v = rec.get(k)
        if k not in sel:
            if k in PLAIN and not is_plain(v):
                return False
        elif k == 'series_hash':
            if not (v or '').startswith(sel[k]):
                return False
        elif k == 'sysctls':
            if sel[k] not in (v or []):
                return False
        elif k == 'args':
            if sel[k] not in (v or {}):
                return False
        elif k == 'icount':
            if bool(v) != sel[k]:
                return False
        elif v != sel[k]:
            return False
    return True


def counterpart(rec, runs):
    """The latest run of the other variant under the same conditions (all
    but the kernel's), or None."""
    other = {'vanilla': 'patched', 'patched': 'vanilla'}.get(rec.get('variant'))
    same = [r for r in runs if r.get('variant') == other and
            all(json.dumps(r.get(k), sort_keys=True) == json.dumps(rec.get(k), sort_keys=True)
                for k in CONDITIONS if k not in KERNEL)]
    return max(same, key=lambda r: r.get('date') or '', default=None)


def find_runs(layout=LAYOUT):
    """Every run this tree knows of: build/results/*/result.json, then
    results/ and its subdirectories (a saved run is in both: the full
    record, with its vmstat samples, comes first among equal dates)."""
    runs = []
    for i, paths in enumerate(((layout.build / 'results').glob('*/result.json'), layout.results.rglob('*.json'))):
        for p in sorted(paths):
            try:
                rec = with_defaults(json.loads(p.read_text()))
            except (OSError, ValueError):
                continue
            if isinstance(rec, dict) and 'programs' in rec:
                rec['_path'] = str(p)
                rec['_saved'] = i
                runs.append(rec)
    return runs


def select(text, layout=LAYOUT):
    """The latest run a selector asks for."""
    sel = parse_selector(text)
    found = [r for r in find_runs(layout) if matches(r, sel)]
    if not found:
        raise Error(f'{text}: no run under these conditions in build/results/ or results/')
    return max(found, key=lambda r: (r.get('date') or '', -r['_saved']))


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
    """A result from a dir, a json file, a selector of conditions (select),
    or a label prefix (latest match in build/results/)."""
    p = Path(spec)
    if '=' in str(spec) and not p.exists():
        return select(spec, layout)
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


def kernel_image(rec):
    """The kernel image a run booted, as its QEMU command gives it ('' if
    it does not: results/ keeps no command)."""
    cmd = str(rec.get('qemu_command') or '').split()
    return cmd[cmd.index('-kernel') + 1] if '-kernel' in cmd[:-1] else ''


def kernel_build(rec):
    """The build a run's kernel came from (build/obj/<name>/...), by the
    image path in its QEMU command; None for a kernel from elsewhere."""
    parts = kernel_image(rec).split('/')
    return parts[parts.index('obj') + 1] if 'obj' in parts[:-1] else None


def compact(rec):
    """What goes into results/: figures and statuses, no timelines/paths."""
    keep = ('label', 'date', 'full', 'outcome', 'duration_s', 'verdict', 'summary', 'scenarios', 'totals')
    out = {k: rec.get(k) for k in keep + CONDITIONS}
    out['kernel_build'] = kernel_build(rec)
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


def load_runs(results_dir=None):
    """The runs in results_dir (default results/), every condition present."""
    runs = []
    for p in sorted(Path(results_dir or LAYOUT.results).glob('*.json')):
        rec = with_defaults(json.loads(p.read_text()))
        rec['_path'] = str(p)
        runs.append(rec)
    return runs


def median(values):
    """The median of numbers; of anything else, the value if all agree."""
    nums = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if nums and len(nums) == len(values):
        return statistics.median(nums)
    return values[0] if values and all(v == values[0] for v in values) else None


def table(results_dir=None, match=None):
    """The markdown tables of the runs in results_dir (default results/),
    grouped by series and conditions (group_runs): one row a group, then
    one row a figure (those matching match), a column a group, the
    median of its runs."""
    groups = group_runs(load_runs(results_dir))
    if not groups:
        return 'No runs in results/ yet.\n'
    lines = ['| runs | n | date | kernel | series | verdict | summary |', '|---|---|---|---|---|---|---|']
    for g in groups:
        last = g[-1]
        verdicts = {}
        for r in g:
            verdicts[r.get('verdict')] = verdicts.get(r.get('verdict'), 0) + 1
        verdict = ', '.join(f'{v} x{n}' if len(g) > 1 else str(v) for v, n in verdicts.items())
        lines.append(f'| {group_name(last, series=False)} | {len(g)} | {(last.get("date") or "")[:10]} | '
                     f'{last.get("kernel_release") or ""} | {(last.get("series_hash") or "")[:12]} | {verdict} | '
                     f'{"latest: " if len(g) > 1 else ""}{last.get("summary")} |')
    lines.append('')
    figs = [[all_figures(r) for r in g] for g in groups]
    keys = []
    for fs in figs:
        for f in fs:
            keys += [k for k in f if k not in keys]
    lines.append('| figure | unit | ' + ' | '.join(group_name(g[-1]) for g in groups) + ' |')
    lines.append('|---|---|' + '---:|' * len(groups))
    for k in keys:
        if match and not re.search(match, k):
            continue
        unit = next(f[k].get('unit', '') for fs in figs for f in fs if k in f)
        cells = []
        for fs in figs:
            v = median([f[k]['value'] for f in fs if k in f])
            cells.append('' if v is None else fmt(v))
        lines.append(f'| {k} | {unit} | ' + ' | '.join(cells) + ' |')
    return '\n'.join(lines) + '\n'


TABLE_BEGIN = '<!-- vmshm table begin: generated by tools/vmshm table, do not edit -->'
TABLE_END = '<!-- vmshm table end -->'


def markers(name):
    """The lines that enclose a generated block (name: table, headline, ...)."""
    return (f'<!-- vmshm {name} begin: generated by tools/vmshm {name.split("-")[0]}, do not edit -->',
            f'<!-- vmshm {name} end -->')


def update_doc(text, t, begin=TABLE_BEGIN, end=TABLE_END):
    """text with the generated block replaced by table t (or added)."""
    block = f'{begin}\n{t}{end}'
    if begin in text and end in text:
        return text[:text.index(begin)] + block + text[text.index(end) + len(end):]
    return text.rstrip('\n') + '\n\n' + block + '\n'
