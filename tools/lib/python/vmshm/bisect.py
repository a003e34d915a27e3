# SPDX-License-Identifier: GPL-2.0
"""tools/bisect-series: prove the VM series is bisectable.  Apply it to a
2.6.3 tree, then build and boot every step from the vanilla point (all
toolchain patches) to the whole series, one commit at a time; with
--series or --all, each series prepared alone on the toolchain part too
(build/bisect/<series>/), then the stack.

The toolchain patches are not bisected one by one: 2.6.3 does not build
with gcc 12 until all of them are in, which is why they exist.  Each
step builds incrementally in build/bisect/obj-CONFIG and boots with the
runner; a table of the steps is printed at the end.
"""

import shutil

from . import kbuild, series, tree
from .common import LAYOUT, Error, log, rel


def step_commits(work, nbase):
    """[(commit, subject)] of the steps: the base point (the commit of
    the last toolchain patch, or of the last patch of the series a series
    needs: series.base_count), then one a patch of the variant's own.
    work's FETCH_HEAD is the prepared branch: the import commit, then one
    commit a patch."""
    out = tree.git(work, 'log', '--reverse', '--format=%H %s', 'FETCH_HEAD')
    rows = [line.partition(' ') for line in out.split('\n') if line]
    return [(commit, subject) for commit, _, subject in rows[nbase:]]


def place(layout, variant='patched'):
    """Where a variant is bisected: build/bisect/ for the stack (as
    always), build/bisect/<series>/ for a series alone."""
    return layout.build / 'bisect' if variant == 'patched' else layout.build / 'bisect' / variant


def checkout(layout, variant='patched'):
    """build/bisect/[<series>/]src: a clone of the prepared branch, at its head."""
    src = layout.build / 'src' / variant
    work = place(layout, variant) / 'src'
    work.parent.mkdir(parents=True, exist_ok=True)
    if not (work / '.git').is_dir():
        tree.git(layout.build, 'clone', '-q', '--shared', str(src), str(work))
    tree.git(work, 'fetch', '-q', str(src), 'HEAD')
    return work


def build_step(work, obj, logfile):
    """oldconfig (the step may add options) and bzImage; True if built."""
    make = kbuild.make_command(work, obj)
    try:
        kbuild.oldconfig(make, logfile)
    except Error:
        return False
    return kbuild.make_bzimage(make, logfile)


def bisect(linux, config, scenarios, boot_step, layout=LAYOUT, variant='patched'):
    """Every step of a variant (the stack, or a series alone) built and
    booted with boot_step(image, label) -> exit status; exit status 0 if
    every step applied, built and passed."""
    tree.prepare(linux, variant, layout)
    work = checkout(layout, variant)
    steps = step_commits(work, series.base_count(variant, layout.patches))
    if not steps:
        raise Error(f'no commits in {rel(layout.build / "src" / variant)}')
    where = place(layout, variant)
    tag = config if variant == 'patched' else f'{variant}-{config}'
    obj = where / f'obj-{config}'
    obj.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(kbuild.config_file(config, layout), obj / '.config')
    summary, ok = [], True
    for step, (commit, subject) in enumerate(steps, 1):
        log(f'=== step {step}/{len(steps)}: {subject}')
        tree.git(work, 'checkout', '-q', commit)
        logfile = where / f'step-{step}.log'
        if not build_step(work, obj, logfile):
            summary.append(f'{step:2d}  {"FAIL":5} {"-":5} {subject}')
            log(f'build failed: {rel(logfile)}')
            ok = False
            continue
        image = where / f'bzImage-{step}'
        shutil.copyfile(obj / 'arch' / 'i386' / 'boot' / 'bzImage', image)
        boot = 'PASS' if boot_step(image, f'bisect-{tag}-{step}') == 0 else 'FAIL'
        ok = ok and boot == 'PASS'
        summary.append(f'{step:2d}  {"ok":5} {boot:5} {subject}')
    log('')
    log(f'step build boot  patch ({variant}, {config}, guest runs {scenarios})')
    for line in summary:
        log(line)
    return 0 if ok else 1


def bisect_all(linux, config, scenarios, boot_step, variants, layout=LAYOUT):
    """bisect() each variant in turn (every step of each series alone,
    then of the stack); 0 if all passed.  Ends with one line a variant."""
    done = []
    for v in variants:
        log(f'##### {v}')
        done.append((v, bisect(linux, config, scenarios, boot_step, layout, v)))
    log('')
    for v, rc in done:
        log(f'bisect {v}: {"PASS" if rc == 0 else "FAIL"}')
    return 0 if all(rc == 0 for _, rc in done) else 1
