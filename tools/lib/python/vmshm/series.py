# SPDX-License-Identifier: GPL-2.0
"""patches/series: the one reader of the quilt series file.

prepare, lint, the series hash, export, bisect, gen-testcases-patch and
the objrmap harness's reconstruct.sh (through "tools/vmshm series") all
read the series here, so they cannot disagree on what it lists.  The
rules are the series hash's (the project's stop hook, a shell pipeline):
'#' starts a comment, the name ends at the first white space, and a
last line without its newline is not read.  lint reports the lines
these rules would read differently from quilt.
"""

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from .common import LAYOUT, Error

VARIANTS = ('vanilla', 'patched')


@dataclass(frozen=True)
class Entry:
    """One patch of the series: its path under patches/, the quilt options
    after it (only -p1 is used) and its line, for messages."""
    name: str
    options: tuple = ()
    lineno: int = 0

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


def parse(text):
    """The entries of a series file's text, in order."""
    lines = text.split('\n')
    if lines and lines[-1] != '':
        lines = lines[:-1]        # last line lacked its newline
    out = []
    for no, line in enumerate(lines, 1):
        line = re.sub(r'#.*', '', line)
        name = re.sub(r'\s.*', '', line)
        if name:
            out.append(Entry(name, tuple(line.split()[1:]), no))
    return out


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
    if variant == 'vanilla':
        return [e for e in entries if e.toolchain]
    if variant != 'patched':
        raise Error(f'unknown variant {variant!r} (vanilla or patched)')
    return entries


def variant_patches(variant, patches_dir=None):
    patches_dir = Path(patches_dir or LAYOUT.patches)
    return [patches_dir / e.name for e in variant_entries(variant, patches_dir)]


def toolchain_count(patches_dir=None):
    """How many commits of a prepared branch, after the import, are the
    toolchain part: where the VM part starts."""
    return len(variant_entries('vanilla', patches_dir))


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
