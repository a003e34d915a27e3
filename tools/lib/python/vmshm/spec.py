# SPDX-License-Identifier: GPL-2.0
"""A run, described by one value.

RunSpec is built once from the command line (from_args).  The QEMU
command, the kernel command line, the run's label and the conditions its
result records are all derived from it, so they cannot disagree, and a
test can check them without booting anything.
"""

import os
import re
from dataclasses import dataclass
from pathlib import Path

from . import qemu
from .common import LAYOUT, Error, log, rel
from .guest import guest_kind, kernel_info
from .kbuild import bzimage_path
from .programs import PROGRAMS, requested_scenarios
from .series import series_hash

# From this much guest memory on, an i386 guest runs on qemu-system-x86_64:
# qemu-system-i386 cannot place PAE RAM above 4 GB.
X86_64_FROM_MB = 3584


def default_swap_mb(mem):
    return max(64, 2 * mem)


def default_data_mb(mem):
    return 2 * mem + 256


@dataclass(frozen=True)
class RunSpec:
    """Everything that decides what a run does.  Sizes are in MB; args are
    (program, arguments) pairs; swap_mb and data_mb are 0 for no disk."""
    kernel: Path
    release: str
    kind: str
    kernel_64: bool = False
    variant: str | None = None
    config: str | None = None
    mem: int = 256
    cpus: int = 1
    accel: str = 'tcg'
    icount: bool = False
    force_x86_64: bool = False
    scenarios: tuple = tuple(PROGRAMS)
    progs_dir: Path | None = None          # None: the testcases' own build
    scale: int | None = None
    args: tuple = ()
    sysctls: tuple = ()
    append: str = ''
    prog_timeout: int = 0
    swap_mb: int = 0
    data_mb: int = 0
    swap_fault: str | None = None
    modules: Path | None = None            # a modern kernel's modules, for its disks
    timeout: int = 7200
    quiet_timeout: int = 300
    label: str | None = None               # --label: names the run instead of the derived label
    series_hash: str | None = None

    @classmethod
    def from_args(cls, args, layout=LAYOUT, kvm_probe=qemu.kvm_usable):
        """The spec of "tools/vmshm run" (or one config of suite)."""
        kernel, variant, config = resolve_kernel(args, layout)
        info = kernel_info(kernel)
        kind = args.guest if args.guest != 'auto' else guest_kind(info)
        accel = resolve_accel(args.accel, kvm_probe)
        if args.icount and accel != 'tcg':
            raise Error('--icount needs TCG (--accel tcg)')
        swap = 0 if args.no_disks else (default_swap_mb(args.mem) if args.swap is None else args.swap)
        data = 0 if args.no_disks else (default_data_mb(args.mem) if args.data is None else args.data)
        modules = None
        if kind == 'modern' and (swap or data):
            modules = Path(args.modules) if args.modules else Path('/lib/modules') / info['release']
        return cls(kernel=kernel, release=info['release'], kind=kind, kernel_64=info['x86_64'],
                   variant=variant, config=config, mem=args.mem, cpus=args.cpus, accel=accel,
                   icount=args.icount, force_x86_64=args.x86_64,
                   scenarios=tuple(requested_scenarios(args.scenarios)),
                   progs_dir=Path(args.progs) if args.progs else None, scale=args.scale,
                   args=program_args(args.args), sysctls=tuple(args.sysctl or ()), append=args.append,
                   prog_timeout=args.prog_timeout, swap_mb=swap, data_mb=data,
                   swap_fault=args.swap_fault, modules=modules, timeout=args.timeout,
                   quiet_timeout=args.quiet_timeout, label=args.label,
                   series_hash=series_hash(layout.patches))   # now, not after a run of an hour

    @property
    def x86_64(self):
        return self.kernel_64 or self.force_x86_64 or self.mem >= X86_64_FROM_MB

    @property
    def qemu(self):
        return qemu.qemu_binary(self.x86_64)

    @property
    def full(self):
        """A full run: every scenario, from the testcases' own build (a
        --progs stand-in does not count)."""
        return list(self.scenarios) == PROGRAMS and self.progs_dir is None

    def programs_dir(self, layout=LAYOUT):
        return self.progs_dir or layout.build / 'vm-shm' / 'i386'

    def disks(self):
        """[(name, MB)] of the disks the guest gets, in drive order."""
        return [(n, mb) for n, mb in (('swap', self.swap_mb), ('data', self.data_mb)) if mb]

    def condition_tags(self):
        """The conditions in which this run differs from a plain run of its
        kernel, as label words: runs made under different conditions get
        different labels without anyone typing them."""
        tags = ['icount'] if self.icount else []
        if self.force_x86_64 and not (self.kernel_64 or self.mem >= X86_64_FROM_MB):
            tags.append('x86_64')
        if self.scale:
            tags.append(f'scale{self.scale}')
        tags += [word(s.rsplit('/', 1)[-1]) for s in self.sysctls]
        if self.append:
            tags.append(word(self.append))
        if self.swap_fault:
            tags.append(f'swapfault-{self.swap_fault}')
        if self.swap_mb != default_swap_mb(self.mem):
            tags.append(f'swap{self.swap_mb}')
        if self.data_mb != default_data_mb(self.mem):
            tags.append(f'data{self.data_mb}')
        return tags

    @property
    def name(self):
        """The run's label: --label as given, else the kernel and the
        conditions; then memory and CPUs (results/<name>-<date>.json)."""
        if self.label:
            base = self.label
        elif self.variant:
            base = '-'.join([f'{self.variant}-{self.config}'] + self.condition_tags())
        else:
            base = '-'.join(['kernel-' + re.sub(r'[^\w.-]', '_', self.release or self.kernel.name)]
                            + self.condition_tags())
        return f'{base}-m{self.mem}-c{self.cpus}'

    def conditions(self):
        """The conditions a result records (results.CONDITIONS)."""
        return {'variant': self.variant, 'config': self.config, 'kernel_release': self.release,
                'guest_kind': self.kind, 'qemu': self.qemu, 'accel': self.accel, 'icount': self.icount,
                'mem_mb': self.mem, 'cpus': self.cpus, 'scale_mb': self.scale, 'swap_mb': self.swap_mb,
                'data_mb': self.data_mb, 'swap_fault': self.swap_fault, 'sysctls': list(self.sysctls),
                'append': self.append, 'args': dict(self.args), 'prog_timeout': self.prog_timeout,
                'series_hash': self.series_hash}

    def kernel_append(self, root_kb, ndisks):
        """The kernel command line; vmshm.run is left out of a full list
        (the guest runs what it carries)."""
        run = None if list(self.scenarios) == PROGRAMS else list(self.scenarios)
        return qemu.kernel_append(self.kind, root_kb, run, self.scale, dict(self.args), self.prog_timeout,
                                  ndisks, self.sysctls, self.append)

    def qemu_command(self, root, drives):
        """The whole QEMU command for the root image and the disk drives
        (paths, or blkdebug: names), in order."""
        root_kb = (Path(root).stat().st_size + 1023) // 1024
        return qemu.qemu_command(self.kernel, root, self.kind, self.mem, self.cpus, self.accel, self.x86_64,
                                 drives, self.kernel_append(root_kb, len(drives)), self.icount)


def word(text):
    """text as one label word: only letters, digits, '_' and '.'."""
    return re.sub(r'[^\w.]+', '_', text).strip('_')


def program_args(values):
    """--args PROG=ARGS (may repeat; the last one for a program wins) as
    sorted pairs."""
    extra = {}
    for a in values or []:
        prog, _, val = a.partition('=')
        extra[prog] = val
    return tuple(sorted(extra.items()))


def resolve_kernel(args, layout=LAYOUT):
    """(image, variant, config) of --kernel or --variant/--config."""
    if args.kernel:
        img = Path(args.kernel)
        if not img.is_file():
            raise Error(f'{img}: no such kernel image')
        return img, None, None
    if not (args.variant and args.config):
        raise Error('run needs --kernel IMAGE or --variant V --config C')
    img = bzimage_path(args.variant, args.config, layout)
    if not img.is_file():
        raise Error(f'{rel(img)} not built: run "tools/vmshm build --variant {args.variant} --config {args.config}"')
    return img, args.variant, args.config


def resolve_accel(accel, kvm_probe):
    """auto: KVM only if it really runs a protected-mode guest here."""
    if accel != 'auto':
        return accel
    if kvm_probe():
        return 'kvm'
    if os.path.exists('/dev/kvm'):
        log('note: /dev/kvm is there but KVM cannot run a protected-mode guest here: using TCG')
    return 'tcg'
