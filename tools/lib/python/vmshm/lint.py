# SPDX-License-Identifier: GPL-2.0
"""tools/vmshm lint: the series, every patch it lists, the generated
testcases patch, the guest configs against their fragments and the
README's generated results table against results/."""

import re
import shutil
import subprocess
from pathlib import Path

from . import headline, kconfig, results, series, testcases_patch
from .common import LAYOUT, Error


def parse_patch(text):
    """Split a git format-patch file into (headers dict, body lines, diff
    lines).  Raises ValueError describing what is malformed."""
    lines = text.split('\n')
    i = 0
    if lines and lines[0].startswith('From ') and not lines[0].startswith('From:'):
        i = 1                                   # mbox separator line
    headers = {}
    last = None
    while i < len(lines) and lines[i] != '':
        line = lines[i]
        if line[:1] in (' ', '\t') and last:
            headers[last] += ' ' + line.strip()
        elif ':' in line:
            last, val = line.split(':', 1)
            headers[last.strip()] = val.strip()
        else:
            raise ValueError(f'line {i + 1}: not a mail header: {line[:60]!r}')
        i += 1
    body = []
    i += 1
    while i < len(lines) and lines[i] != '---' and not lines[i].startswith('diff --git '):
        body.append(lines[i])
        i += 1
    return headers, body, lines[i:]


def _hunk(lines, i, name):
    """Check the hunk whose header is lines[i]; the index after it."""
    n = len(lines)
    m = re.match(r'@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@', lines[i])
    if not m:
        raise ValueError(f'bad hunk header: {lines[i]!r}')
    old_n = int(m.group(1) if m.group(1) is not None else 1)
    new_n = int(m.group(2) if m.group(2) is not None else 1)
    i += 1
    while old_n > 0 or new_n > 0:
        if i >= n:
            raise ValueError(f'{name}: hunk cut short')
        c = lines[i][:1]
        if c == ' ' or lines[i] == '':
            old_n -= 1
            new_n -= 1
        elif c == '-':
            old_n -= 1
        elif c == '+':
            new_n -= 1
        elif c != '\\':
            raise ValueError(f'{name}: bad line in hunk: {lines[i][:60]!r}')
        if old_n < 0 or new_n < 0:
            raise ValueError(f'{name}: hunk longer than its header says')
        i += 1
    while i < n and lines[i].startswith('\\'):
        i += 1
    return i


def check_diff(lines):
    """Check unified diff hunks for consistency; returns list of files."""
    files = []
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        if line.startswith('--- ') and i + 1 < n and lines[i + 1].startswith('+++ '):
            new = lines[i + 1][4:].split('\t')[0]
            old = line[4:].split('\t')[0]
            for name in (old, new):
                if name != '/dev/null' and not re.match(r'[ab]/', name):
                    raise ValueError(f'{name}: diff paths must be a/ and b/ (-p1)')
            files.append(new if new != '/dev/null' else old)
            i += 2
            if i >= n or not lines[i].startswith('@@'):
                raise ValueError(f'{files[-1]}: no hunk after file header')
            while i < n and lines[i].startswith('@@'):
                i = _hunk(lines, i, files[-1])
            continue
        i += 1
    return files


def check_patch(path, use_lsdiff=True):
    """Raise ValueError saying what is wrong with one patch file."""
    headers, body, diff = parse_patch(path.read_text(errors='replace'))
    for h in ('From', 'Subject'):
        if not headers.get(h):
            raise ValueError(f'no {h}: header')
    if not diff or diff[0] != '---':
        raise ValueError('no "---" line between changelog and diff')
    words = [l for l in body if l.strip() and not re.match(r'[\w-]+-by:', l)]
    if len(words) < 2:
        raise ValueError('changelog has fewer than 2 lines (say what breaks and why this fix)')
    if not check_diff(diff):
        raise ValueError('no diff in the patch')
    if use_lsdiff and shutil.which('lsdiff'):
        r = subprocess.run(['lsdiff', '--strip=1', str(path)], capture_output=True, text=True)
        if r.returncode != 0 or not r.stdout.strip():
            raise ValueError(f'lsdiff cannot read it: {r.stderr.strip()}')


def check_series_text(text):
    """Errors in the series file itself: lines the series reader (the
    hash's rules) would read differently from quilt, options, order."""
    errors = []
    if text and not text.endswith('\n'):
        errors.append('series: last line has no newline (the series hash would skip it)')
    for no, line in enumerate(text.split('\n'), 1):
        if re.match(r'\s+\S', line) and not line.strip().startswith('#'):
            errors.append(f'series:{no}: leading white space (the series hash reads this as empty)')
        opts = re.sub(r'#.*', '', line).split()[1:]
        if opts and opts != ['-p1']:
            errors.append(f'series:{no}: options {" ".join(opts)} (only -p1 patches are applied)')
    entries = series.series_entries(text + ('' if text.endswith('\n') else '\n'))
    seen_other = None
    for e in entries:
        if series.is_toolchain(e) and seen_other:
            errors.append(f'{e}: toolchain patch after {seen_other} (vanilla must be a prefix of the series)')
        if not series.is_toolchain(e) and not seen_other:
            seen_other = e
    if len(set(entries)) != len(entries):
        errors.append('series lists a patch twice')
    return errors, entries


def edits(text):
    """What a patch changes, without its context: per file, its - and +
    lines.  Two copies of a patch made against different bases have the
    same edits."""
    out, name = [], None
    for line in text.split('\n'):
        if line.startswith('diff --git '):
            name = line.split()[-1]
            out.append(name)
        elif name and line[:1] in '-+' and not re.match(r'(---|\+\+\+) (a/|b/|/dev/null)', line):
            out.append(line)
    return out


def check_groups(text, patches_dir):
    """Errors in the series' group markers (series.py): every entry in one
    group, the toolchain group exactly the toolchain part, a series' files
    in its directory, and each #@alone copy the same change as the
    stacked copy after it."""
    marks = series.markers(text)
    if not marks:
        return []
    errors, seen, last = [], set(), None
    for no, kind, name, rest in marks:
        if kind == 'alone':
            continue
        if kind == 'needs':
            for n in f'{name} {rest}'.split():
                if n not in seen or n in (series.TOOLCHAIN, (last or ('',))[0]):
                    errors.append(f'series:{no}: #@needs {n}: not a series before {last}')
            if not name:
                errors.append(f'series:{no}: #@needs without a name')
            if last is None or last[1] != 'series' or last[0] == series.TOOLCHAIN:
                errors.append(f'series:{no}: #@needs belongs after a #@series marker (not toolchain)')
            continue
        last = (name, kind)
        if not name:
            errors.append(f'series:{no}: #@{kind} without a name')
        elif name in seen:
            errors.append(f'series:{no}: group {name} twice')
        seen.add(name)
    stacks = [n for no, kind, n, _ in marks if kind == 'stack']
    for e in series.parse(text):
        if e.group is None:
            errors.append(f'{e.name}: before the first #@series marker (in no group)')
        elif (e.group == series.TOOLCHAIN) != e.toolchain:
            errors.append(f'{e.name}: in group {e.group}, but toolchain/ is the toolchain group')
        elif not e.toolchain and not e.alone and not e.name.startswith(f'{e.group}/'):
            errors.append(f'{e.name}: in group {e.group}, but not under {e.group}/')
        if not e.alone:
            continue
        if not e.alone.startswith(f'{e.group}/') or not any(e.name.startswith(f'{s}/') for s in stacks):
            errors.append(f'{e.name}: a stacked copy belongs under a #@stack group\'s directory, '
                          f'its #@alone copy {e.alone} under {e.group}/')
        alone, stacked = Path(patches_dir) / e.alone, Path(patches_dir) / e.name
        if not alone.is_file():
            errors.append(f'{e.alone}: named by #@alone but missing')
        elif stacked.is_file() and edits(alone.read_text()) != edits(stacked.read_text()):
            errors.append(f'{e.name}: not the same change as its #@alone copy {e.alone} '
                          '(tools/regen-patches writes both from the branches)')
    return errors


def lint_series(patches_dir=None, use_lsdiff=True):
    """Returns (errors, warnings) as lists of strings."""
    errors, warnings = [], []
    patches_dir = Path(patches_dir or LAYOUT.patches)
    path = patches_dir / 'series'
    if not path.exists():
        warnings.append('no patches/series yet: nothing to lint')
        return errors, warnings
    text = path.read_text()
    errors, entries = check_series_text(text)
    errors += check_groups(text, patches_dir)
    alone = [e.alone for e in series.parse(text) if e.alone]
    for e in entries + alone:
        p = patches_dir / e
        if not p.is_file():
            errors.append(f'{e}: listed in series but missing')
            continue
        try:
            check_patch(p, use_lsdiff)
        except ValueError as ex:
            errors.append(f'{e}: {ex}')
    listed = {str(patches_dir / e) for e in entries + alone}
    for p in sorted(patches_dir.rglob('*.patch')):
        if str(p) not in listed:
            warnings.append(f'{p.relative_to(patches_dir)}: not listed in series')
    return errors, warnings


def check_headline(layout=LAYOUT, rows=headline.ROWS):
    """README.md's results table is what results/ gives now."""
    readme = layout.repo / 'README.md'
    text = readme.read_text() if readme.is_file() else ''
    begin, end = results.markers('headline')
    if begin not in text or end not in text:
        return ['README.md: no generated results table (make readme-table)']
    try:
        want = headline.table(layout.results, rows)
    except Error as ex:
        return [f'README.md: {ex}']
    if results.update_doc(text, want, begin, end) != text:
        return ['README.md: its results table is not what results/ gives now: run make readme-table']
    return []


def lint(layout=LAYOUT):
    """(errors, warnings, number of patches) of the whole check."""
    errors, warnings = lint_series(layout.patches)
    errors += [f'gen-testcases-patch: {p}'
               for p in testcases_patch.check(layout.testdir, layout.patches)]
    errors += kconfig.check_configs(layout.configs)
    errors += check_headline(layout)
    return errors, warnings, len(series.variant_entries('patched', layout.patches))
