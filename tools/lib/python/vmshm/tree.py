# SPDX-License-Identifier: GPL-2.0
"""The base tree: check it is plain 2.6.3, import it into a git repository
and apply the series as one commit per patch (tools/vmshm prepare)."""

import hashlib
import json
import os
import re
import shutil
import subprocess
import tarfile
from pathlib import Path

from . import series
from .common import LAYOUT, Error, file_sha256, log, rel

IMPORT_DATE = '2004-02-18T00:00:00+0000'   # the 2.6.3 release
IMPORT_AUTHOR = ('Linus Torvalds', 'torvalds@osdl.org')
# The committer of every commit prepare makes; export's git am uses it
# too, so the mails give back the very commits.
PREPARE_IDENT = ('vmshm prepare', 'vmshm@localhost')


def check_base(tree):
    """Raise Error unless tree is a complete Linux 2.6.3 source tree."""
    tree = Path(tree)
    mk = tree / 'Makefile'
    if not mk.is_file():
        raise Error(f'{tree}: not a Linux source tree (no top-level Makefile)')
    vals = {}
    for line in mk.read_text(errors='replace').split('\n')[:12]:
        m = re.match(r'(VERSION|PATCHLEVEL|SUBLEVEL|EXTRAVERSION)\s*=\s*(.*?)\s*$', line)
        if m:
            vals[m.group(1)] = m.group(2)
    if not all(k in vals for k in ('VERSION', 'PATCHLEVEL', 'SUBLEVEL')):
        raise Error(f'{tree}: top-level Makefile has no VERSION/PATCHLEVEL/SUBLEVEL: not a Linux tree')
    ver = f'{vals["VERSION"]}.{vals["PATCHLEVEL"]}.{vals["SUBLEVEL"]}'
    extra = vals.get('EXTRAVERSION', '')
    if ver != '2.6.3':
        raise Error(f'{tree}: this is Linux {ver}{extra}; the series is for 2.6.3')
    if extra:
        raise Error(f'{tree}: EXTRAVERSION is {extra!r}: this is 2.6.3{extra}, not the plain 2.6.3 release')
    if not (tree / 'scripts' / 'Makefile.lib').is_file():
        raise Error(f'{tree}: scripts/Makefile.lib is missing: the tree is incomplete '
                    '(the kernel.org tarball has it; some imports lost it)')
    for must in ('mm/memory.c', 'arch/i386/Makefile', 'include/linux/mm.h'):
        if not (tree / must).is_file():
            raise Error(f'{tree}: {must} is missing: the tree is incomplete')
    return ver


def tree_fingerprint(tree):
    """Cheap identity of a directory: names, sizes and mtimes of its files."""
    h = hashlib.sha256(str(Path(tree).resolve()).encode())
    for root, dirs, files in os.walk(tree):
        dirs[:] = sorted(d for d in dirs if d != '.git')
        for f in sorted(files):
            st = os.lstat(os.path.join(root, f))
            h.update(f'{os.path.relpath(os.path.join(root, f), tree)} {st.st_size} {st.st_mtime_ns}\n'.encode())
    return h.hexdigest()


def unpack_tarball(tarball, layout=LAYOUT):
    """Unpack a linux-2.6.3.tar.* once under build/src/; returns the tree."""
    sha = file_sha256(tarball)
    dest = layout.build / 'src' / f'.tarball-{sha[:16]}'
    done = dest / '.unpacked'
    if not done.exists():
        if dest.exists():
            shutil.rmtree(dest)
        dest.mkdir(parents=True)
        log(f'unpacking {tarball}')
        with tarfile.open(tarball) as t:
            kw = {'filter': 'tar'} if hasattr(tarfile, 'data_filter') else {}
            t.extractall(dest, **kw)
        done.write_text(sha + '\n')
    tops = [p for p in dest.iterdir() if p.is_dir()]
    if len(tops) != 1:
        raise Error(f'{tarball}: expected one top-level directory, found {len(tops)}')
    return tops[0], 'tarball:' + sha


def git(repo, *args, env=None, capture=True, check=True, input=None):
    e = dict(os.environ)
    # A fixed committer, so the same patches give the same commits; authors
    # come from the patches (git am) or the import.
    e.update({'GIT_COMMITTER_NAME': PREPARE_IDENT[0], 'GIT_COMMITTER_EMAIL': PREPARE_IDENT[1]})
    if env:
        e.update(env)
    r = subprocess.run(['git', '-C', str(repo), '-c', 'core.autocrlf=false', '-c', 'gc.auto=0',
                        '-c', 'advice.detachedHead=false', *args],
                       env=e, capture_output=capture, text=True, input=input)
    if check and r.returncode != 0:
        raise Error(f'git {" ".join(args)} failed in {repo}:\n{(r.stderr or "") + (r.stdout or "")}')
    return (r.stdout or '').strip() if capture else ''


def import_base(base, dest, variant):
    """Fresh git repository at dest with one commit: the base tree."""
    if dest.exists():
        shutil.rmtree(dest)
    log(f'importing {base} into {rel(dest)}')
    shutil.copytree(base, dest, symlinks=True,
                    ignore=lambda d, names: ['.git'] if Path(d) == Path(base) else [])
    for stray in ('.DS_Store', 'README.md', '.gitignore'):
        if (dest / stray).exists():
            log(f'warning: {stray} at the top of the tree is not part of the 2.6.3 release')
    git(dest, 'init', '-q', '-b', variant)
    git(dest, 'add', '-A', '-f', '.')
    env = {'GIT_AUTHOR_NAME': IMPORT_AUTHOR[0], 'GIT_AUTHOR_EMAIL': IMPORT_AUTHOR[1],
           'GIT_COMMITTER_NAME': IMPORT_AUTHOR[0], 'GIT_COMMITTER_EMAIL': IMPORT_AUTHOR[1],
           'GIT_AUTHOR_DATE': IMPORT_DATE, 'GIT_COMMITTER_DATE': IMPORT_DATE}
    git(dest, 'commit', '-q', '--no-verify', '-m', 'Linux 2.6.3', env=env)
    return git(dest, 'rev-parse', 'HEAD')


def base_tree(linux, layout=LAYOUT):
    """(tree, identity) of LINUX, a directory or a tarball (unpacked once);
    the identity tells prepare when the base changed."""
    linux = Path(linux)
    if not linux.exists():
        raise Error(f'{linux}: no such file or directory (LINUX= a 2.6.3 tree or linux-2.6.3.tar.bz2)')
    if linux.is_dir():
        base, ident = linux, 'dir:' + tree_fingerprint(linux)
    else:
        base, ident = unpack_tarball(linux, layout)
    check_base(base)
    return base, ident


def wanted_patches(variant, patches_dir):
    """[(name, sha256)] of the patches a variant is made of now."""
    patches = series.variant_patches(variant, patches_dir)
    missing = [str(p.relative_to(patches_dir)) for p in patches if not p.is_file()]
    if missing:
        raise Error(f'series lists missing patches: {", ".join(missing)}')
    return [(str(p.relative_to(patches_dir)), file_sha256(p)) for p in patches]


def load_state(state_file):
    """What prepare did last time in this repository, or {}."""
    try:
        return json.loads(state_file.read_text())
    except (OSError, ValueError):
        return {}


def unchanged(applied, want):
    """How many of the applied patches lead the wanted ones unchanged."""
    keep = 0
    while keep < len(applied) and keep < len(want) and \
            [applied[keep]['patch'], applied[keep]['sha256']] == list(want[keep]):
        keep += 1
    return keep


def apply_patches(dest, variant, state, want, state_file, patches_dir):
    """git am each wanted patch, recording each commit in the state as it
    lands (a failed patch leaves the ones before it recorded)."""
    for name, sha in want:
        log(f'applying {name}')
        try:
            git(dest, 'am', '-q', '--committer-date-is-author-date', '--whitespace=nowarn',
                str(patches_dir / name))
        except Error as ex:
            git(dest, 'am', '--abort', check=False)
            raise Error(f'patch {name} does not apply to {variant}:\n{ex}')
        state['applied'].append({'patch': name, 'sha256': sha, 'commit': git(dest, 'rev-parse', 'HEAD')})
        state_file.write_text(json.dumps(state, indent=1))


def prepare(linux, variant, layout=LAYOUT):
    """Make build/src/<variant> a git branch: import commit + one commit per
    patch.  Incremental: keeps the commits whose patches did not change."""
    base, ident = base_tree(linux, layout)
    want = wanted_patches(variant, layout.patches)
    dest = layout.build / 'src' / variant
    state_file = dest / '.git' / 'vmshm-prepare.json'
    state = load_state(state_file)
    if state.get('base') != ident or not (dest / '.git').is_dir():
        state = {'base': ident, 'import': import_base(base, dest, variant), 'applied': []}
        state_file.write_text(json.dumps(state, indent=1))
    applied = state['applied']
    keep = unchanged(applied, want)
    target = applied[keep - 1]['commit'] if keep else state['import']
    head = git(dest, 'rev-parse', 'HEAD')
    dirty = git(dest, 'status', '--porcelain', '--untracked-files=no')
    if keep == len(applied) == len(want) and head == target and not dirty:
        log(f'{rel(dest)}: up to date ({len(want)} patches on Linux 2.6.3)')
        return dest
    git(dest, 'am', '--abort', check=False)
    git(dest, 'checkout', '-q', '-B', variant, target)
    git(dest, 'reset', '-q', '--hard', target)
    state['applied'] = applied[:keep]
    state_file.write_text(json.dumps(state, indent=1))
    if keep:
        log(f'keeping {keep} unchanged patches')
    apply_patches(dest, variant, state, want[keep:], state_file, layout.patches)
    log(f'{rel(dest)}: branch {variant} = Linux 2.6.3 + {len(state["applied"])} patches')
    return dest
