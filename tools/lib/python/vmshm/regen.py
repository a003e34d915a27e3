# SPDX-License-Identifier: GPL-2.0
"""patches/ from the series branches of a kernel repository
(tools/regen-patches).

Each series of patches/series (a "#@series NAME" group but toolchain) is
branch s-NAME, on 2.6.3 + the toolchain part; the enterprise branch
(s-enterprise, made by tools/stack-series) is those stacked and then its
own tail, the "#@stack enterprise" group.  Each series commit becomes
patches/NAME/<file>.patch, format-patch'ed from its series branch: the
copy that applies alone.  Its counterpart on the enterprise branch must
be the same change with the same context lines (then the one file
applies both ways, at most at an offset); where the stack gave it other
context, the stacked copy is written too, to patches/enterprise/stacked/,
and listed in the stack behind "#@alone NAME/<file>.patch" (lint checks
the two make the same change).  The tail's testcases commit is not
format-patch'ed: tools/gen-testcases-patch writes that patch from
tools/testing/vm-shm/ (it warns when the branch's copy differs).

A file's name is kept from the current series file for a commit of the
same subject; a new subject gets a name made from it (rename the file
and its series line by hand: the next run keeps the new name).  The
toolchain part is not touched.
"""

import re
from pathlib import Path

from . import series, stack, testcases_patch
from .common import LAYOUT, Error, log, sh
from .tree import git

STACK = 'enterprise'
ORDER = ('fixes', 'objrmap', 'reclaim', 'shmem')      # for a series file without groups


def series_names(patches_dir=None):
    """The series in stacking order: the #@series groups of the series
    file but toolchain, or ORDER if it has none."""
    names = tuple(g.name for g in series.groups(patches_dir)
                  if g.kind == 'series' and g.name != series.TOOLCHAIN)
    return names or ORDER
TITLES = {
    'toolchain': 'what 2.6.3 needs to build and run with today\'s gcc, binutils, make and QEMU: '
                 'all the "vanilla" kernel gets',
    'fixes': '2.6.3 bugs the testcases hit: rwsem wakeups, the oom killer, shmem_nopage past EOF',
    'objrmap': 'object-based reverse mapping for file-backed pages, indexed by offset',
    'shmem': 'shmem_writepage starts the swap write at once',
    'reclaim': 'reclaim frees clean page cache first (vm_cache_scan_ratio, with its anchor)',
    STACK: 'the branch\'s own, never mailed to linux-mm: the docs of the whole, '
           'MAINTAINERS, EXTRAVERSION, the testcases (generated, last)',
}
HEADER = """\
# Linux 2.6.3 VM series: objrmap for file pages, shmem swap I/O, clean-cache-first reclaim.
# quilt format, paths relative to patches/; the whole file applies stacked ("patched").
# "#@series NAME" starts a series that also applies alone on the toolchain part,
# "#@stack NAME" a group that applies only on the stack, "#@alone PATH" names the
# copy of the next entry that its series applies alone (tools/lib/python/vmshm/series.py).
# Written by tools/regen-patches from the series branches.
"""


def branch_of(name):
    return f's-{name}'


def format_patch(repo, rev):
    """rev as its patch file (not stripped: a patch may end in a blank
    context line)."""
    return sh(['git', '-C', str(repo), 'format-patch', '-1', '--zero-commit', '--no-signature',
               '--no-color', '--stdout', rev], capture_output=True, text=True).stdout


def subject_of(text):
    """A patch's Subject, unfolded, without its [PATCH ...] prefix."""
    m = re.search(r'^Subject: (.*(?:\n[ \t].*)*)', text, re.M)
    if not m:
        return ''
    return re.sub(r'^\[PATCH[^\]]*\]\s*', '', re.sub(r'\n[ \t]+', ' ', m.group(1)))


def slug(subject):
    """A file name from a subject: its words after the subsystem prefixes."""
    words = re.sub(r'^([\w/.-]+: )+', '', subject).lower()
    return re.sub(r'[^a-z0-9]+', '-', words).strip('-')[:48].rstrip('-') + '.patch'


def change(text):
    """What a patch changes, with its context: the diff without hunk line
    numbers or blob ids, so copies made against different bases compare
    equal when one applies where the other does (at most at an offset)."""
    diff = text.split('\ndiff --git ', 1)[-1]
    diff = re.sub(r'^(@@ -)\d+(?:,\d+)? \+\d+(?:,\d+)? @@.*$', '@@', diff, flags=re.M)
    diff = re.sub(r'^index \S+.*\n', '', diff, flags=re.M)
    return re.sub(r'\n-- \n.*\Z', '\n', diff, flags=re.S)


def known_names(patches_dir):
    """{subject: entry} of the patches the series lists now."""
    out = {}
    for e in series.read(patches_dir):
        p = Path(patches_dir) / e.name
        if p.is_file():
            out[subject_of(p.read_text())] = e.name
    return out


def plan(repo, patches_dir, testdir, groups):
    """[(group, [(entry, text, alone)])]: what each group's files will be.
    alone is (entry, text) of the standalone copy where it differs."""
    series_branches = [branch_of(g) for g in groups]
    base = git(repo, 'merge-base', '--octopus', *series_branches)
    names = known_names(patches_dir)
    stacked = stack.commits(repo, base, branch_of(STACK))
    out, used = [], set()
    for g in groups:
        files = []
        for c in stack.commits(repo, base, branch_of(g)):
            text = format_patch(repo, c)
            subject = subject_of(text)
            if not stacked or subject_of(format_patch(repo, stacked[0])) != subject:
                raise Error(f'{branch_of(STACK)} does not have "{subject}" of {branch_of(g)} '
                            'where its series puts it: run tools/stack-series first')
            on_stack = format_patch(repo, stacked.pop(0))
            name = names.get(subject, f'{g}/{slug(subject)}')
            name = f'{g}/{Path(name).name}'
            if name in used:
                raise Error(f'two patches of {g} would be {name}')
            used.add(name)
            if change(on_stack) == change(text):
                files.append((name, text, None))
            else:
                log(f'{name}: the stack gives it other context: its stacked copy is '
                    f'{STACK}/stacked/{Path(name).name}')
                files.append((f'{STACK}/stacked/{Path(name).name}', on_stack, (name, text)))
        out.append((g, files))
    tail = []
    for c in stacked:
        text = format_patch(repo, c)
        subject = subject_of(text)
        if subject == testcases_patch.SUBJECT:
            if change(text) != change(testcases_patch.render(testdir)):
                log(f'warning: the testcases commit of {branch_of(STACK)} is not what '
                    'tools/testing/vm-shm/ gives now: tools/gen-testcases-patch, then tools/stack-series '
                    f'REPO --testcases patches/{testcases_patch.ENTRY}')
            tail.append((testcases_patch.ENTRY, None, None))
            continue
        name = f'{STACK}/{Path(names.get(subject, slug(subject))).name}'
        tail.append((name, text, None))
    out.append((STACK, tail))
    return out


def series_text(patches_dir, planned):
    """The new series file: the header, the toolchain part as it is, then
    one group a series."""
    old = {g.name: g.title for g in series.groups(patches_dir)}
    needs = {g.name: g.needs for g in series.groups(patches_dir)}
    lines = [HEADER.rstrip('\n'), f'#@series toolchain {old.get("toolchain") or TITLES["toolchain"]}']
    lines += [' '.join((e.name,) + e.options) for e in series.read(patches_dir) if e.toolchain]
    for g, files in planned:
        kind = 'stack' if g == STACK else 'series'
        lines.append(f'#@{kind} {g} {old.get(g) or TITLES.get(g, "")}'.rstrip())
        if needs.get(g):
            lines.append(f'#@needs {" ".join(needs[g])}')
        for name, _, alone in files:
            if alone:
                lines.append(f'#@alone {alone[0]}')
            lines.append(name)
    return '\n'.join(lines) + '\n'


def regen(repo, layout=LAYOUT, groups=None):
    """Write patches/ from the branches of the series groups (default:
    those of the series file); returns the entries written."""
    patches = layout.patches
    groups = groups or series_names(patches)
    planned = plan(repo, patches, layout.testdir, groups)
    text = series_text(patches, planned)
    keep = {e.name for e in series.read(patches) if e.toolchain}
    written = []
    for _, files in planned:
        for name, body, alone in files:
            for n, b in [(name, body)] + ([alone] if alone else []):
                keep.add(n)
                if b is None:           # the generated testcases patch
                    log(testcases_patch.write(layout.testdir, patches))
                    continue
                p = patches / n
                p.parent.mkdir(parents=True, exist_ok=True)
                if not p.is_file() or p.read_text() != b:
                    p.write_text(b)
                    log(f'wrote {n}')
                written.append(n)
    (patches / 'series').write_text(text)
    for p in sorted(patches.rglob('*.patch')):
        n = str(p.relative_to(patches))
        if n not in keep:
            p.unlink()
            log(f'removed {n}')
    for d in sorted(patches.rglob('*'), reverse=True):
        if d.is_dir() and not any(d.iterdir()):
            d.rmdir()
    return written
