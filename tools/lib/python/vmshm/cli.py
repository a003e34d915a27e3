# SPDX-License-Identifier: GPL-2.0
"""vmshm: prepare, build, boot and measure Linux 2.6.3 guests for vm-shm.

Subcommands (run 'tools/vmshm CMD -h' for options):
  prepare   expand a 2.6.3 tree or tarball into build/src/<variant> (git)
  build     build bzImage of a variant with configs/<config>.config
  run       boot a kernel in QEMU with the guest init and the scenarios
  suite     prepare + build + run several configs of one variant
  native    run the scenario programs on this machine (no QEMU)
  compare   figures of two runs side by side, plus vmstat plots (PNG)
  trace     plot a classic vmstat text trace (e.g. the seed mail's)
  save      copy a run's result into results/ (machine-readable, compact)
  table     markdown table of the runs in results/
  headline  the README's results table (goals, 2.6.3, patched, ratio)
  spread    min/median/max of figures over repeated runs, per kernel
  lint      check patches/series, the patches it lists and the configs
  hash      print the series hash
  series    print the patches of the series (for scripts)
  export    the series as quilt tarball, git bundle and mboxes (tools/export-series)
  bisect    build and boot every step of the VM series (tools/bisect-series)

Standard library only.  Everything it makes goes under build/.
"""
# The command line of tools/vmshm, tools/export-series and
# tools/bisect-series: argparse, and one small function a subcommand
# that calls the module doing the work.

import argparse
import sys
from pathlib import Path

from . import bisect, export, headline, kbuild, lint, native, profile, results, series, spread, tree
from .common import LAYOUT, Error, log, rel
from .plot import gnuplot_timelines
from .programs import PROGRAMS
from .qemu import BLKDEBUG
from .runner import run, suite
from .spec import RunSpec
from .vmstat import parse_vmstat_text


def cmd_prepare(args, layout):
    tree.prepare(args.linux, args.variant, layout)
    return 0


def cmd_build(args, layout):
    kbuild.build(args.variant, args.config, args.jobs, layout)
    return 0


def cmd_run(args, layout):
    return run(RunSpec.from_args(args, layout), layout, dry_run=args.dry_run,
               keep_disks=args.keep_disks, save_result=args.save)


def cmd_suite(args, layout):
    return suite(args, layout)


def cmd_native(args, layout):
    progs_dir = Path(args.progs) if args.progs else layout.build / 'vm-shm' / 'native'
    extra = {}
    for a in args.args or []:
        prog, _, val = a.partition('=')
        extra[prog] = val.split()
    return native.native(args.mem, args.scenarios, progs_dir, extra, args.timeout, layout)


def cmd_compare(args, layout):
    a = results.load_result(args.a, layout)
    b = results.load_result(args.b, layout) if args.b else results.counterpart(a, results.find_runs(layout))
    if b is None:
        raise Error(f'{args.a}: no run of the other kernel under the same conditions; name B')
    for tag, r in (('A', a), ('B', b)):
        log(f'{tag}: {results.group_name(r)}  {r["date"]}  {r.get("verdict")}: {r.get("summary")}'
            f'  ({rel(r["_path"])})')
    for k, va, vb in results.differing_conditions(a, b):
        log(f'note: the runs differ in {k}: A {va}, B {vb}')
    log('')
    rows = results.compare_rows(a, b)
    w = max([len(r[0]) for r in rows] + [10])
    log(f'{"figure":{w}}  {"A":>12}  {"B":>12}  {"B/A":>7}  unit')
    for name in PROGRAMS:
        sa = a['programs'].get(name, {}).get('status', '-')
        sb = b['programs'].get(name, {}).get('status', '-')
        if sa != '-' or sb != '-':
            log(f'{name + ".status":{w}}  {sa:>12}  {sb:>12}')
    for k, va, vb, ratio, unit in rows:
        log(f'{k:{w}}  {va:>12}  {vb:>12}  {ratio:>7}  {unit}')
    out = Path(args.out) if args.out else layout.build / 'compare' / (
        f'{results.group_name(a, False)}-vs-{results.group_name(b, False)}')
    out.mkdir(parents=True, exist_ok=True)
    pngs = []
    for name in PROGRAMS:
        runs = [(f'{tag}: {results.group_name(r)}', r['programs'].get(name, {}).get('vmstat', []))
                for tag, r in (('A', a), ('B', b))]
        if sum(len(s) > 1 for _, s in runs) == 0:
            continue
        png = out / f'{name}.png'
        gnuplot_timelines([(t, s) for t, s in runs if len(s) > 1], name, png)
        pngs.append(png)
    log('')
    log(f'plots: {", ".join(rel(p) for p in pngs) if pngs else "none (no vmstat samples)"}')
    return 0


def cmd_trace(args, layout):
    samples = parse_vmstat_text(Path(args.file).read_text(errors='replace'))
    if len(samples) < 2:
        raise Error(f'{args.file}: no vmstat trace found (a header with swpd and free, then rows)')
    out = Path(args.out) if args.out else layout.build / 'compare' / (Path(args.file).stem[:40] + '.png')
    out.parent.mkdir(parents=True, exist_ok=True)
    # The classic trace has rates per sample already; rates() rebuilds them
    # from the summed counters, so the picture shows what vmstat printed.
    gnuplot_timelines([(args.title or Path(args.file).name[:40], samples)], args.title or 'vmstat trace', out)
    log(f'{len(samples)} samples; plot: {rel(out)}')
    return 0


def cmd_save(args, layout):
    for r in args.results:
        results.save(r, args.dir, layout)
    return 0


def cmd_table(args, layout):
    t = results.table(layout.results / args.dir if args.dir else layout.results, match=args.match)
    if not args.update:
        sys.stdout.write(t)
        return 0
    doc = Path(args.update)
    doc.write_text(results.update_doc(doc.read_text() if doc.exists() else '', t))
    log(f'updated the table in {rel(doc)}')
    return 0


def cmd_headline(args, layout):
    name, make = ('headline-runs', headline.sources) if args.runs else ('headline', headline.table)
    t = make(layout.results)
    if not args.update:
        sys.stdout.write(t)
        return 0
    doc = Path(args.update)
    doc.write_text(results.update_doc(doc.read_text() if doc.exists() else '', t, *results.markers(name)))
    log(f'updated the {name} block in {rel(doc)}')
    return 0


def cmd_spread(args, layout):
    t = spread.report(args.runs, args.match, args.base)
    if t is None:
        raise Error('spread: no result.json among the arguments')
    print(t)
    return 0


def cmd_profile(args, layout):
    try:
        print(profile.report(args.runs, args.prog, args.top, layout, args.system_map))
    except (OSError, ValueError) as e:
        raise Error('profile: %s' % e)
    return 0


def cmd_lint(args, layout):
    errors, warnings, n = lint.lint(layout)
    for w in warnings:
        log(f'warning: {w}')
    for e in errors:
        log(f'error: {e}')
    log(f'lint: {n} patches, {len(errors)} errors, {len(warnings)} warnings')
    return 1 if errors else 0


def cmd_hash(args, layout):
    log(series.series_hash(layout.patches) or 'no patches/series')
    return 0


def cmd_series(args, layout):
    sys.stdout.write(series.listing(args.variant, args.strip, Path(args.patches) if args.patches
                                    else layout.patches))
    return 0


def cmd_export(args, layout):
    return export.export(args.linux, args.version, layout)


def cmd_bisect(args, layout):
    def boot_step(image, label):
        ns = build_parser().parse_args(['run', '--kernel', str(image), '--scenarios', args.scenarios,
                                        '--label', label])
        return cmd_run(ns, layout)
    variants = list(args.series or [])
    if args.all:
        variants = [v for v in series.variants(layout.patches) if v not in ('vanilla', 'patched')] + ['patched']
    if not variants:
        return bisect.bisect(args.linux, args.config, args.scenarios, boot_step, layout)
    return bisect.bisect_all(args.linux, args.config, args.scenarios, boot_step, variants, layout)


def add_run_options(p):
    p.add_argument('--mem', type=int, default=256, help='guest memory, MB (default 256)')
    p.add_argument('--cpus', type=int, default=1, help='guest CPUs (default 1)')
    p.add_argument('--scenarios', help='comma-separated programs, or all (default)')
    p.add_argument('--scale', type=int, help='MB the programs scale to (-m; default: guest MemTotal)')
    p.add_argument('--args', action='append', metavar='PROG=ARGS',
                   help='extra arguments for a program (may repeat)')
    p.add_argument('--sysctl', action='append', metavar='PATH:VAL',
                   help='guest init writes VAL to /proc/sys/PATH first, e.g. vm/vm_cache_scan_ratio:0 (may repeat)')
    p.add_argument('--append', metavar='PARAMS', default='',
                   help='more kernel parameters, e.g. profile=2 (for /proc/profile)')
    p.add_argument('--icount', action='store_true',
                   help='TCG counts instructions for guest time (-icount shift=0): rates '
                        'measured in the guest stop following the host\'s load; runs about 8x longer')
    p.add_argument('--timeout', type=int, default=7200, help='total seconds (default 7200)')
    p.add_argument('--quiet-timeout', type=int, default=300,
                   help='seconds without console output that count as a hang (default 300)')
    p.add_argument('--prog-timeout', type=int, default=0, help='guest init kills a program after S s')
    p.add_argument('--accel', choices=('auto', 'kvm', 'tcg'), default='auto')
    p.add_argument('--x86-64', action='store_true', help='use qemu-system-x86_64 -cpu qemu64')
    p.add_argument('--guest', choices=('auto', 'legacy', 'modern'), default='auto',
                   help='legacy: ext2 initrd + IDE (2.6.3); modern: initramfs + virtio')
    p.add_argument('--swap', type=int, help='swap disk MB (default 2 x mem, 0: none)')
    p.add_argument('--data', type=int, help='data disk MB (default 2 x mem + 256, 0: none)')
    p.add_argument('--no-disks', action='store_true', help='no swap or data disk')
    p.add_argument('--swap-fault', choices=sorted(BLKDEBUG),
                   help='EIO from the swap disk (QEMU blkdebug): on every write, or every read after the first write')
    p.add_argument('--keep-disks', action='store_true', help='keep the disk images in the result dir')
    p.add_argument('--modules', help='modules dir for a modern kernel (default /lib/modules/<release>)')
    p.add_argument('--progs', help='dir of the static i386 programs (default build/vm-shm/i386)')
    p.add_argument('--label', help='run label (default <variant>-<config> or kernel-<release>, '
                                   'then the conditions that differ from a plain run, e.g. -icount)')
    p.add_argument('--save', action='store_true', help='also copy the result into results/')
    p.add_argument('--dry-run', action='store_true', help='print the QEMU command only')
    p.add_argument('--jobs', '-j', type=int)


def add_build_commands(sub):
    p = sub.add_parser('prepare', help='expand the base tree into build/src/<variant>')
    p.add_argument('--linux', required=True, help='2.6.3 source dir or linux-2.6.3.tar.bz2')
    p.add_argument('--variant', choices=series.variants(), required=True)
    p.set_defaults(fn=cmd_prepare)
    p = sub.add_parser('build', help='build bzImage')
    p.add_argument('--variant', choices=series.variants(), required=True)
    p.add_argument('--config', required=True, help='name of configs/<name>.config')
    p.add_argument('--jobs', '-j', type=int)
    p.set_defaults(fn=cmd_build)


def add_run_commands(sub):
    p = sub.add_parser('run', help='boot a kernel and run the scenarios')
    p.add_argument('--kernel', help='a bzImage (instead of --variant/--config)')
    p.add_argument('--variant', choices=series.variants())
    p.add_argument('--config')
    add_run_options(p)
    p.set_defaults(fn=cmd_run)
    p = sub.add_parser('suite', help='prepare, build and run several configs of a variant')
    p.add_argument('--linux', required=True)
    p.add_argument('--variant', choices=series.variants(), required=True)
    p.add_argument('--configs', default='up,smp,debug')
    add_run_options(p)
    p.set_defaults(fn=cmd_suite, cpus=2)
    p = sub.add_parser('native', help='run the programs natively')
    p.add_argument('--mem', type=int, default=64)
    p.add_argument('--scenarios')
    p.add_argument('--progs', help='dir of the programs (default build/vm-shm/native)')
    p.add_argument('--args', action='append', metavar='PROG=ARGS',
                   help='extra arguments of one program, e.g. "soak=-t 60"')
    p.add_argument('--timeout', type=int, default=600, help='seconds per program')
    p.set_defaults(fn=cmd_native)


def add_result_commands(sub):
    p = sub.add_parser('compare', help='two runs side by side, with plots',
                       description='A and B: a result dir or result.json, a label prefix of a run in '
                                   'build/results/, or conditions, e.g. variant=vanilla,config=up,mem=256 '
                                   '(the latest such run in build/results/ or results/; conditions it does '
                                   'not name, such as icount or sysctls, plain).  Without B: the latest run '
                                   'of the other kernel under the same conditions.')
    p.add_argument('a')
    p.add_argument('b', nargs='?')
    p.add_argument('--out', help='dir for the PNGs (default build/compare/A-vs-B)')
    p.set_defaults(fn=cmd_compare)
    p = sub.add_parser('trace', help='plot a classic vmstat text trace')
    p.add_argument('file')
    p.add_argument('--out')
    p.add_argument('--title')
    p.set_defaults(fn=cmd_trace)
    p = sub.add_parser('save', help='copy results into results/')
    p.add_argument('results', nargs='+')
    p.add_argument('--dir', metavar='SUBDIR', help='into results/SUBDIR (e.g. campaign)')
    p.set_defaults(fn=cmd_save)
    p = sub.add_parser('table', help='markdown table of results/')
    p.add_argument('--update', metavar='FILE', help='replace the table block in FILE')
    p.add_argument('--match', metavar='REGEX', help='only figures whose program.key matches')
    p.add_argument('--dir', metavar='SUBDIR', help='the runs of results/SUBDIR')
    p.set_defaults(fn=cmd_table)
    p = sub.add_parser('headline', help="the README's results table: goals, 2.6.3, patched, ratio")
    p.add_argument('--update', metavar='FILE', help='replace the headline block in FILE')
    p.add_argument('--runs', action='store_true', help='the runs and series each row comes from instead')
    p.set_defaults(fn=cmd_headline)
    p = sub.add_parser('spread', help='min/median/max of figures over repeated runs, per kernel')
    p.add_argument('--match', default='.', metavar='REGEX', help='only figures whose program.key matches (default: all)')
    p.add_argument('--base', default='vanilla', metavar='REGEX',
                   help='the group the ratios divide by (default: vanilla)')
    p.add_argument('runs', nargs='+', help='result.json files or run directories')
    p.set_defaults(fn=cmd_spread)
    p = sub.add_parser('profile', help="a program's kernel profile (runs booted with profile=2), by function")
    p.add_argument('--prog', required=True, help='the program whose profile to print')
    p.add_argument('--top', type=int, default=25, help='functions to print (default 25)')
    p.add_argument('--system-map', metavar='FILE', help="the kernel's System.map (default: beside the run's bzImage)")
    p.add_argument('runs', nargs='+', help='run directories (build/results/<run>), one column each')
    p.set_defaults(fn=cmd_profile)


def add_series_commands(sub):
    p = sub.add_parser('lint', help='check the series')
    p.set_defaults(fn=cmd_lint)
    p = sub.add_parser('hash', help='print the series hash')
    p.set_defaults(fn=cmd_hash)
    p = sub.add_parser('series', help='print the patches of the series, one a line')
    p.add_argument('--variant', choices=series.variants(), help='only the patches of this variant')
    p.add_argument('--strip', action='store_true', help='each line: the -p level, then the patch')
    p.add_argument('--patches', metavar='DIR', help='the patches directory (default patches/)')
    p.set_defaults(fn=cmd_series)
    p = sub.add_parser('export', help='quilt tarball, git bundle and mboxes under build/export/, checked')
    p.add_argument('linux', help='2.6.3 source tree or linux-2.6.3.tar.bz2')
    p.add_argument('version', nargs='?', help='default: the series\' EXTRAVERSION (vmshm1), '
                                              'else the first 8 characters of the series hash')
    p.set_defaults(fn=cmd_export)
    p = sub.add_parser('bisect', help='build and boot every step of the VM series')
    p.add_argument('linux', help='2.6.3 source tree or linux-2.6.3.tar.bz2')
    p.add_argument('config', nargs='?', default='up', help='configs/<CONFIG>.config (default up)')
    p.add_argument('scenarios', nargs='?', default='syscall_regs,integrity',
                   help='what each step\'s guest runs (default syscall_regs,integrity)')
    p.add_argument('--series', action='append', choices=[v for v in series.variants() if v != 'vanilla'],
                   help='bisect this variant (a series alone, or patched) instead of the stack (may repeat)')
    p.add_argument('--all', action='store_true', help='every series alone, then the stack')
    p.set_defaults(fn=cmd_bisect)


def build_parser():
    ap = argparse.ArgumentParser(prog='vmshm', description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest='cmd', required=True)
    add_build_commands(sub)
    add_run_commands(sub)
    add_result_commands(sub)
    add_series_commands(sub)
    return ap


def main(argv=None, layout=LAYOUT):
    args = build_parser().parse_args(argv)
    try:
        layout.build.mkdir(exist_ok=True)
        return args.fn(args, layout)
    except Error as ex:
        print(f'vmshm {args.cmd}: {ex}', file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
