# SPDX-License-Identifier: GPL-2.0
"""Guest kernel configs: configs/<name>.config is make defconfig plus
configs/fragments/base.frag and <name>.frag (tools/mkconfig makes it).

lint checks every committed config still has what its fragments ask
for, so a hand edit of a config, or of a fragment without regenerating,
is caught without a kernel tree.
"""

import re
import subprocess
from pathlib import Path

from . import kbuild
from .common import LAYOUT, Error


def parse(text):
    """{CONFIG_X: value} of a config or fragment; 'n' for "is not set"."""
    want = {}
    for line in text.split('\n'):
        line = line.strip()
        m = re.match(r'^(CONFIG_\w+)=(.*)$', line)
        if m:
            want[m.group(1)] = m.group(2)
            continue
        m = re.match(r'^# (CONFIG_\w+) is not set$', line)
        if m:
            want[m.group(1)] = 'n'
    return want


def fragments_of(name, configs_dir=None):
    """The fragments configs/<name>.config is made from, in order."""
    frags = Path(configs_dir or LAYOUT.configs) / 'fragments'
    return [frags / 'base.frag', frags / f'{name}.frag']


def requested(frag_paths):
    """What the fragments ask for together (later lines win)."""
    want = {}
    for f in frag_paths:
        want.update(parse(Path(f).read_text()))
    return want


def mismatches(name, want, got):
    """Lines saying which requested options a config does not have."""
    return [f'{name}: {k}={want[k]} requested, got {got.get(k, "n")}'
            for k in sorted(want) if got.get(k, 'n') != want[k]]


def check_configs(configs_dir=None):
    """Errors: a configs/*.config that lacks what its fragments ask for,
    or has no fragment."""
    configs_dir = Path(configs_dir or LAYOUT.configs)
    errors = []
    for cfg in sorted(configs_dir.glob('*.config')):
        frags = fragments_of(cfg.stem, configs_dir)
        absent = [f for f in frags if not f.is_file()]
        if absent:
            errors.append(f'configs/{cfg.name}: no {", ".join(f.name for f in absent)} in configs/fragments '
                          '(tools/mkconfig makes it from base.frag and <name>.frag)')
            continue
        errors += [f'configs/{m}' for m in mismatches(cfg.name, requested(frags), parse(cfg.read_text()))]
    return errors


def apply(config_text, want):
    """The .config text with the requested values put in (new lines for
    options defconfig does not mention)."""
    out, seen = [], set()
    for line in config_text.splitlines(keepends=True):
        m = re.match(r'^(?:# )?(CONFIG_\w+)[= ]', line)
        if m and m.group(1) in want:
            key = m.group(1)
            seen.add(key)
            line = f'# {key} is not set\n' if want[key] == 'n' else f'{key}={want[key]}\n'
        out.append(line)
    out += [f'{k}={want[k]}\n' for k in sorted(set(want) - seen) if want[k] != 'n']
    return ''.join(out)


def make_config(src, obj, name, frags):
    """make defconfig in obj, the fragments on top, oldconfig; raises Error
    naming every requested option Kconfig silently dropped (a missing
    dependency)."""
    make = kbuild.make_command(src, obj, silent=True)
    subprocess.run(make + ['defconfig'], check=True, stdout=subprocess.DEVNULL)
    want = requested(frags)
    cfg = Path(obj) / '.config'
    cfg.write_text(apply(cfg.read_text(), want))
    kbuild.oldconfig(make, Path(obj) / 'oldconfig.log')
    bad = mismatches(name, want, parse(cfg.read_text()))
    if bad:
        raise Error('\n'.join(bad))
