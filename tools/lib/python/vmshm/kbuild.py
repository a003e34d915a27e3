# SPDX-License-Identifier: GPL-2.0
"""Building the 2.6.3 kernels: make in an O= directory, the one way to run
oldconfig, and the record of what a bzImage was built from."""

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

from . import series
from .common import LAYOUT, Error, file_sha256, log, rel
from .tree import git


def cross_compile():
    # The toolchain series builds i386 with the host gcc (-m32); a cross
    # compiler can be named with CROSS_COMPILE= in the environment.
    return os.environ.get('CROSS_COMPILE', '')


def make_command(src, obj, silent=False):
    """make for an i386 kernel of src built in obj."""
    return ['make', *(['-s'] if silent else []), '-C', str(src), f'O={obj}', 'ARCH=i386',
            f'CROSS_COMPILE={cross_compile()}']


def oldconfig(make, logfile):
    """make oldconfig, every new option at its default answer (what the
    series adds, or a fragment leaves open); output in logfile.  Raises
    Error if it fails."""
    yes = subprocess.Popen(['yes', ''], stdout=subprocess.PIPE)
    try:
        with open(logfile, 'w') as f:
            r = subprocess.run(make + ['oldconfig'], stdin=yes.stdout, stdout=f, stderr=subprocess.STDOUT)
    finally:
        yes.kill()
        yes.wait()
        yes.stdout.close()
    if r.returncode != 0:
        tail = Path(logfile).read_text(errors='replace').split('\n')[-15:]
        raise Error(f'make oldconfig failed; last lines of {rel(logfile)}:\n' + '\n'.join(tail))


def make_bzimage(make, logfile, jobs=None):
    """make -jN bzImage, output in logfile; True if it built."""
    jobs = jobs or os.cpu_count() or 2
    with open(logfile, 'w') as f:
        r = subprocess.run(make + [f'-j{jobs}', 'bzImage'], stdout=f, stderr=subprocess.STDOUT)
    return r.returncode == 0


def obj_dir(variant, config, layout=LAYOUT):
    return layout.build / 'obj' / f'{variant}-{config}'


def bzimage_path(variant, config, layout=LAYOUT):
    return obj_dir(variant, config, layout) / 'arch' / 'i386' / 'boot' / 'bzImage'


def config_file(config, layout=LAYOUT):
    p = layout.configs / f'{config}.config'
    if not p.is_file():
        have = ', '.join(sorted(c.stem for c in layout.configs.glob('*.config'))) or 'none yet'
        raise Error(f'no {rel(p)} (configs: {have})')
    return p


def build(variant, config, jobs=None, layout=LAYOUT):
    src = layout.build / 'src' / variant
    if not (src / 'Makefile').is_file():
        raise Error(f'{rel(src)} is not prepared: run "tools/vmshm prepare --linux DIR --variant {variant}"')
    cfg = config_file(config, layout)
    obj = obj_dir(variant, config, layout)
    obj.mkdir(parents=True, exist_ok=True)
    make = make_command(src, obj)
    saved = obj / '.vmshm-config'
    if not saved.exists() or saved.read_bytes() != cfg.read_bytes() or not (obj / '.config').exists():
        shutil.copyfile(cfg, obj / '.config')
        log(f'configuring {rel(obj)} from {rel(cfg)} (make oldconfig)')
        oldconfig(make, obj / 'oldconfig.log')
        shutil.copyfile(cfg, saved)
    logf = obj / 'build.log'
    log(f'building {variant}/{config}: make -j{jobs or os.cpu_count() or 2} bzImage (log: {rel(logf)})')
    t0 = time.monotonic()
    if not make_bzimage(make, logf, jobs):
        tail = logf.read_text(errors='replace').split('\n')[-25:]
        raise Error(f'build of {variant}/{config} failed; last lines of {rel(logf)}:\n' + '\n'.join(tail))
    img = bzimage_path(variant, config, layout)
    # What this bzImage is made of: the patches prepare applied (not what
    # patches/ says now), and whether the tree had local edits.
    state = json.loads((src / '.git' / 'vmshm-prepare.json').read_text())
    (obj / 'vmshm-build.json').write_text(json.dumps(
        {'patches': [[a['patch'], a['sha256']] for a in state['applied']],
         'local_changes': bool(git(src, 'status', '--porcelain', '--untracked-files=no')),
         'config_sha256': file_sha256(cfg)}, indent=1) + '\n')
    warnings = sum(1 for l in logf.read_text(errors='replace').split('\n') if 'warning:' in l)
    log(f'bzImage: {rel(img)} ({img.stat().st_size} bytes, {warnings} warnings, '
        f'{time.monotonic() - t0:.0f} s)')
    return img


def patch_list(variant, patches_dir=None):
    """[name, sha256] of the patches a variant is made of, as of now."""
    patches_dir = Path(patches_dir or LAYOUT.patches)
    return [[str(p.relative_to(patches_dir)), file_sha256(p) if p.is_file() else None]
            for p in series.variant_patches(variant, patches_dir)]


def stale_reason(variant, config, layout=LAYOUT):
    """Why the built bzImage is not the current series + config, or None."""
    rec = obj_dir(variant, config, layout) / 'vmshm-build.json'
    if not rec.is_file():
        return 'no build record'
    built = json.loads(rec.read_text())
    if built.get('patches') != patch_list(variant, layout.patches):
        return f'patches/ no longer matches the {variant} patches it was built from (prepare + build again)'
    if built.get('local_changes'):
        return f'build/src/{variant} had local changes when it was built'
    if built.get('config_sha256') != file_sha256(config_file(config, layout)):
        return f'configs/{config}.config changed since it was built'
    return None
