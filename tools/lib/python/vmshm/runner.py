# SPDX-License-Identifier: GPL-2.0
"""Running a guest: the root image, the disks and QEMU from a RunSpec;
the console read until the run ends by itself; the result recorded
(kunit_kernel's run half).  A run ends as a result, never a runner
crash: done, hang, timeout, panic, exit, no-reboot or qemu-error."""

import argparse
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path

from . import kbuild, tree
from .common import LAYOUT, log, rel, utcnow
from .console import ConsoleParser
from .display import Display
from .guest import MODERN_MODULES, build_init, guest_root, make_data, make_swap, module_closure
from .programs import check_programs
from .qemu import blkdebug_drive
from .results import print_result, result_record, save
from .spec import RunSpec


class Monitor:
    """Decides when a run is over by itself: hang (no output for quiet
    seconds), total timeout, a panic the guest did not reboot from, or an
    init that said done but did not end QEMU."""

    def __init__(self, now, quiet, total):
        self.start = self.last = now
        self.quiet, self.total = quiet, total
        self.panic_at = self.done_at = None

    def output(self, now):
        self.last = now

    def saw(self, what, now):
        if what == 'panic' and self.panic_at is None:
            self.panic_at = now
        elif what == 'done' and self.done_at is None:
            self.done_at = now

    def check(self, now):
        if self.panic_at is not None and now - self.panic_at > 20:
            return 'panic'
        if self.done_at is not None and now - self.done_at > 60:
            return 'no-reboot'
        if self.total and now - self.start > self.total:
            return 'timeout'
        if self.quiet and now - self.last > self.quiet:
            return 'hang'
        return None


def boot(cmd, console_path, quiet, total, display, parser):
    """Run QEMU, feeding its serial console to the parser.  Returns outcome."""
    with open(console_path, 'wb') as logf, open(str(console_path) + '.qemu-stderr', 'wb') as err:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err)
        fd = proc.stdout.fileno()
        mon = Monitor(time.monotonic(), quiet, total)
        pending = b''
        outcome = None
        try:
            while True:
                r, _, _ = select.select([fd], [], [], 1.0)
                now = time.monotonic()
                if r:
                    data = os.read(fd, 65536)
                    if not data:
                        break
                    logf.write(data)
                    logf.flush()
                    mon.output(now)
                    pending += data
                    *lines, pending = pending.split(b'\n')
                    for raw in lines:
                        ev = parser.feed(raw.decode('utf-8', 'replace'))
                        if ev and ev[0] == 'event' and ev[1]['kind'] == 'panic':
                            mon.saw('panic', now)
                        if ev and ev[0] == 'done':
                            mon.saw('done', now)
                        display.event(ev, parser)
                display.tick()
                outcome = mon.check(now)
                if outcome:
                    break
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            proc.stdout.close()
        if pending:
            parser.feed(pending.decode('utf-8', 'replace'))
    if outcome:
        return outcome
    if any(e['kind'] == 'panic' for e in parser.events):
        return 'panic'
    if parser.done:
        return 'done'
    if not parser.lines:
        return 'qemu-error'
    return 'exit'


# 2.6.3's SMP boot checks that the timer ticks through the IO-APIC over a
# busy-wait; on a loaded host TCG misses it and the kernel panics before
# init.  Such a boot is retried (BOOT_TRIES times in all): it says
# nothing about the VM.
BOOT_FLAKE = "IO-APIC + timer doesn't work"
BOOT_TRIES = 3


def boot_flake(parser):
    """True if the guest panicked in the timer check, before init ran."""
    return not parser.ktap and any(BOOT_FLAKE in line for line in parser.lines[-50:])


def guest_modules(spec):
    """The disk driver modules a modern kernel's guest carries."""
    if not spec.modules:
        return []
    if not (spec.modules / 'modules.dep').is_file():
        log(f'note: no {spec.modules}/modules.dep: the guest gets no disk drivers (data on tmpfs, no swap)')
        return []
    return module_closure(spec.modules, MODERN_MODULES)


def result_dir(layout, name):
    """A new build/results/<name>-<UTC stamp>/."""
    while True:
        outdir = layout.build / 'results' / f'{name}-{utcnow().strftime("%Y%m%dT%H%M%SZ")}'
        if not outdir.exists():
            break
        time.sleep(1)                           # two runs in one second
    outdir.mkdir(parents=True)
    return outdir


def make_disks(spec, outdir):
    """Fresh disk images in outdir: (files, the -drive file= of each)."""
    files, drives = [], []
    for name, mb in spec.disks():
        path = outdir / f'{name}.img'
        (make_swap if name == 'swap' else make_data)(path, mb)
        files.append(path)
        if name == 'swap' and spec.swap_fault:
            drives.append(blkdebug_drive(path, spec.swap_fault, outdir / 'blkdebug.conf'))
        else:
            drives.append(path)
    return files, drives


def boot_with_retries(cmd, outdir, spec, layout):
    """boot(), again after a boot flake; (outcome, parser, seconds)."""
    display = Display()
    parser = ConsoleParser(layout)
    t0 = time.monotonic()
    try:
        for attempt in range(1, BOOT_TRIES + 1):
            outcome = boot(cmd, outdir / 'console.log', spec.quiet_timeout, spec.timeout, display, parser)
            if outcome != 'panic' or not boot_flake(parser) or attempt == BOOT_TRIES:
                break
            log(f'boot {attempt}: the timer check panicked before init (a loaded host): booting again')
            shutil.copy(outdir / 'console.log', outdir / f'console.boot{attempt}.log')
            display.close()
            display, parser = Display(), ConsoleParser(layout)
            t0 = time.monotonic()
    finally:
        display.close()
    return outcome, parser, time.monotonic() - t0


def run_meta(spec, cmd, stale, layout):
    """What result.json says about the run besides what the console said."""
    return {'label': spec.name, **spec.conditions(),
            'kernel_image': rel(spec.kernel, layout.repo) if spec.variant else spec.kernel.name,
            'date': utcnow().isoformat(), 'full': spec.full, 'stale': stale,
            'qemu_command': ' '.join(map(str, cmd))}


def run(spec, layout=LAYOUT, *, init=None, dry_run=False, keep_disks=False, save_result=False):
    """Boot spec's guest once and record the result.  init: the guest init
    (default: built by make).  Returns the exit status: 0 if it passed."""
    programs = check_programs(spec.programs_dir(layout), spec.scenarios, spec.progs_dir is not None)
    stale = kbuild.stale_reason(spec.variant, spec.config, layout) if spec.variant else None
    if stale:
        log(f'warning: {rel(spec.kernel)} is stale ({stale}): rebuild it; this run is not recorded in build/verified')
    root = guest_root(spec.kind, programs, guest_modules(spec), init or build_init(layout), layout)
    outdir = result_dir(layout, spec.name)
    files, drives = make_disks(spec, outdir)
    cmd = spec.qemu_command(root, drives)
    if dry_run:
        log(' '.join(map(str, cmd)))
        shutil.rmtree(outdir)
        return 0
    log(f'{spec.name}: {spec.release or spec.kernel.name} ({spec.kind}), {spec.mem} MB, {spec.cpus} cpus, '
        f'{spec.accel}; console: {rel(outdir / "console.log")}')
    try:
        outcome, parser, duration = boot_with_retries(cmd, outdir, spec, layout)
    finally:
        if not keep_disks:
            for d in files:
                d.unlink(missing_ok=True)
    qerr = Path(str(outdir / 'console.log') + '.qemu-stderr').read_text(errors='replace').strip()
    if qerr and outcome in ('qemu-error', 'exit'):
        log('QEMU said:\n  ' + '\n  '.join(qerr.split('\n')[-10:]))
    rec = result_record(parser, outcome, run_meta(spec, cmd, stale, layout), list(spec.scenarios), duration)
    record(rec, outdir, spec.full and spec.variant and not stale, layout)
    if save_result:
        save(outdir / 'result.json', layout=layout)
    return 0 if rec['verdict'] == 'PASS' else 1


def record(rec, outdir, verified, layout):
    """result.json, the summary on the terminal and, for a full run of a
    current --variant kernel, its line in build/verified."""
    (outdir / 'result.json').write_text(json.dumps(rec, indent=1) + '\n')
    print_result(rec)
    log(f'result: {rel(outdir / "result.json")}')
    if verified:
        with open(layout.build / 'verified', 'a') as f:
            f.write(f'{rec["series_hash"]} {rec["date"]} {rec["label"]} {rec["verdict"]} {rec["summary"]}\n')
        log(f'recorded in {rel(layout.build / "verified")}')


def suite(args, layout=LAYOUT):
    """prepare + build + run each config of a variant; one summary.  SMP
    configs get --cpus CPUs, the others one."""
    tree.prepare(args.linux, args.variant, layout)
    configs = args.configs.split(',')
    for config in configs:
        kbuild.build(args.variant, config, args.jobs, layout)
    rows = []
    for config in configs:
        smp = 'CONFIG_SMP=y' in kbuild.config_file(config, layout).read_text()
        ns = argparse.Namespace(**vars(args))
        ns.config, ns.kernel, ns.cpus = config, None, (args.cpus if smp else 1)
        rc = run(RunSpec.from_args(ns, layout), layout, dry_run=args.dry_run,
                 keep_disks=args.keep_disks, save_result=args.save)
        rows.append((config, 'PASS' if rc == 0 else 'FAIL'))
    log('suite: ' + ', '.join(f'{c} {v}' for c, v in rows))
    return 0 if all(v == 'PASS' for _, v in rows) else 1
