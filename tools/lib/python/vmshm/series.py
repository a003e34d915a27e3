# SPDX-License-Identifier: GPL-2.0
"""patches/series: the one reader of the quilt series file.

prepare, lint, the series hash, export, bisect, gen-testcases-patch and
the objrmap harness's reconstruct.sh (through "tools/vmshm series") all
read the series here, so they cannot disagree on what it lists.  The
rules are the series hash's (the project's stop hook, a shell pipeline):
'#' starts a comment, the name ends at the first white space, and a
last line without its newline is not read.  lint reports the lines
these rules would read differently from quilt.

The file is also cut into groups, one series each, by marker comments
(quilt, the hash and the entry rules above skip them as comments):

    #@series NAME [what it is]   the entries below, up to the next marker,
                                 are series NAME, which applies to 2.6.3
                                 with the toolchain series alone as well
                                 as stacked; "toolchain" is the vanilla
                                 kernel's
    #@stack NAME [what it is]    the entries below apply only on the
                                 whole stack (the enterprise branch's
                                 own: docs of the whole, MAINTAINERS,
                                 EXTRAVERSION, the testcases)
    #@alone PATH                 the next entry is the stacked copy of
                                 PATH, which its series applies alone;
                                 for a patch that does not apply to both
                                 bases without fuzz (lint checks the two
                                 are the same change)
    #@needs NAME...              (after a #@series marker) the series
                                 is tested, bisected and mailed on top
                                 of these earlier series, not on the
                                 toolchain alone: it applies without
                                 them, but its testcases hit the 2.6.3
                                 bugs they fix (objrmap on fixes)

prepare's variants are vanilla (toolchain), patched (every entry, in
order) and each #@series group but toolchain alone on the toolchain
(with the series it needs under it, in series order).
"""

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from .common import LAYOUT, Error

VARIANTS = ('vanilla', 'patched')
TOOLCHAIN = 'toolchain'


@dataclass(frozen=True)
class Entry:
    """One patch of the series: its path under patches/, the quilt options
    after it (only -p1 is used), its line, for messages, the group its
    marker put it in and the path its series applies alone instead, if
    any (#@alone)."""
    name: str
    options: tuple = ()
    lineno: int = 0
    group: str = None
    alone: str = None

    @property
    def toolchain(self):
        """The toolchain part: what vanilla 2.6.3 gets too."""
        return is_toolchain(self.name)

    def strip(self):
        """The -p level patch(1) applies it with."""
        level = 1
        for opt in self.options:
            m = re.fullmatch(r'-p(\d)', opt)
            if not m:
                raise Error(f'series:{self.lineno}: {self.name}: option {opt} not understood')
            level = int(m.group(1))
        return level


@dataclass(frozen=True)
class Group:
    """A marker's group: its name, its kind ('series' or 'stack'), what
    the marker says it is and its entries in stacking order."""
    name: str
    kind: str
    title: str
    entries: tuple
    needs: tuple = ()

    @property
    def standalone(self):
        """Its entries as the series applies them alone on the toolchain."""
        return tuple(Entry(e.alone, e.options, e.lineno, e.group) if e.alone else e
                     for e in self.entries)


MARKER = re.compile(r'#@(series|stack|alone|needs)\b[ \t]*(\S*)[ \t]*(.*?)\s*$')


def markers(text):
    """[(lineno, kind, word, rest)] of the marker comments of a series
    file's text."""
    out = []
    for no, line in enumerate(text.split('\n'), 1):
        m = MARKER.match(line)
        if m:
            out.append((no, *m.groups()))
    return out


def parse(text):
    """The entries of a series file's text, in order."""
    lines = text.split('\n')
    if lines and lines[-1] != '':
        lines = lines[:-1]        # last line lacked its newline
    out, group, alone = [], None, None
    for no, line in enumerate(lines, 1):
        m = MARKER.match(line)
        if m and m.group(1) == 'alone':
            alone = m.group(2) or None
        elif m and m.group(1) == 'needs':
            pass
        elif m:
            group = m.group(2) or None
        line = re.sub(r'#.*', '', line)
        name = re.sub(r'\s.*', '', line)
        if name:
            out.append(Entry(name, tuple(line.split()[1:]), no, group, alone))
            alone = None
    return out


def parse_groups(text):
    """The groups of a series file's text, in order ([] without markers)."""
    entries = parse(text)
    out = []
    for no, kind, name, title in markers(text):
        if kind == 'needs' and out:
            last = out[-1]
            out[-1] = Group(last.name, last.kind, last.title, last.entries,
                            last.needs + tuple(f'{name} {title}'.split()))
        elif kind not in ('alone', 'needs'):
            mine = tuple(e for e in entries if e.group == name)
            out.append(Group(name, kind, title, mine))
    return out


def groups(patches_dir=None):
    """The groups of patches_dir/series."""
    series = Path(patches_dir or LAYOUT.patches) / 'series'
    return parse_groups(series.read_text()) if series.exists() else []


def variants(patches_dir=None):
    """What prepare, build and run accept: vanilla, patched and every
    series that applies alone on the toolchain."""
    return VARIANTS + tuple(g.name for g in groups(patches_dir)
                            if g.kind == 'series' and g.name != TOOLCHAIN)


def series_entries(text):
    """Patch paths listed in a series file's text."""
    return [e.name for e in parse(text)]


def is_toolchain(name):
    return name.startswith('toolchain/')


def read(patches_dir=None):
    """The entries of patches_dir/series; [] if there is none yet."""
    series = Path(patches_dir or LAYOUT.patches) / 'series'
    return parse(series.read_text()) if series.exists() else []


def series_hash(patches_dir=None):
    """sha256 of patches/series followed by every patch it lists, in order,
    as one stream; a missing patch contributes nothing.  None if there is no
    series file."""
    patches_dir = Path(patches_dir or LAYOUT.patches)
    series = patches_dir / 'series'
    if not series.exists():
        return None
    data = series.read_bytes()
    h = hashlib.sha256(data)
    for entry in series_entries(data.decode('utf-8', 'replace')):
        p = patches_dir / entry
        if p.is_file():
            h.update(p.read_bytes())
    return h.hexdigest()


def variant_entries(variant, patches_dir=None):
    """The entries a variant is made of: vanilla is the toolchain prefix."""
    entries = read(patches_dir)
    toolchain = [e for e in entries if e.toolchain]
    if variant == 'vanilla':
        return toolchain
    if variant == 'patched':
        return entries
    gs = groups(patches_dir)
    for g in gs:
        if g.name == variant and g.kind == 'series' and g.name != TOOLCHAIN:
            under = [e for n in g.needs for h in gs if h.name == n for e in h.standalone]
            return toolchain + under + list(g.standalone)
    known = ', '.join(variants(patches_dir))
    raise Error(f'unknown variant {variant!r} ({known}; the whole stack is patched)')


def variant_patches(variant, patches_dir=None):
    patches_dir = Path(patches_dir or LAYOUT.patches)
    return [patches_dir / e.name for e in variant_entries(variant, patches_dir)]


def toolchain_count(patches_dir=None):
    """How many commits of a prepared branch, after the import, are the
    toolchain part: where the VM part starts."""
    return len(variant_entries('vanilla', patches_dir))


def base_count(variant, patches_dir=None):
    """How many commits of a variant's prepared branch, after the import,
    come before its own patches: the toolchain part, and for a series the
    series it needs (#@needs).  Its bisection and mails start there."""
    if variant in VARIANTS:
        return toolchain_count(patches_dir)
    own = next(g for g in groups(patches_dir) if g.name == variant)
    return len(variant_entries(variant, patches_dir)) - len(own.entries)


def extraversion(patches_dir=None):
    """The EXTRAVERSION the series sets, without its dash (vmshm1 for
    2.6.3-vmshm1): the last '+EXTRAVERSION = ...' line of its patches."""
    patches_dir = Path(patches_dir or LAYOUT.patches)
    found = ''
    for e in read(patches_dir):
        p = patches_dir / e.name
        if not p.is_file():
            continue
        for line in p.read_text(errors='replace').split('\n'):
            m = re.match(r'\+EXTRAVERSION\s*=\s*-?(\S*)', line)
            if m:
                found = m.group(1)
    return found


def last_entry(patches_dir=None):
    entries = read(patches_dir)
    return entries[-1].name if entries else None


def listing(variant=None, strip=False, patches_dir=None):
    """What "tools/vmshm series" prints: one entry a line, with its -p
    level first if asked (reconstruct.sh reads it that way)."""
    entries = variant_entries(variant, patches_dir) if variant else read(patches_dir)
    return ''.join(f'{e.strip()} {e.name}\n' if strip else f'{e.name}\n' for e in entries)
