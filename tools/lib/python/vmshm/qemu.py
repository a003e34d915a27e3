# SPDX-License-Identifier: GPL-2.0
"""QEMU for the guests: the command line, the kernel's, the KVM probe and
the swap disk faults (blkdebug).  As kunit's qemu_configs, it knows
how a guest is started, not what it runs."""

import functools
import os
import select
import subprocess
import tempfile
import time
from pathlib import Path

from .common import Error

# A boot sector that prints 'R' on COM1 in real mode, enters protected mode
# with paging and prints 'P'.  Some nested setups open /dev/kvm and run real
# mode fine but never get past protected mode; this tells them apart.
KVM_PROBE = bytes.fromhex(
    'fa31c08ed8baf803b052ee0f0116807c0f20c06683c8010f22c066ea227c0000'
    '080066b810008ed88ed0bc00700000bf00100000c707830000000f20e083c810'
    '0f22e0b8001000000f22d80f20c00d000000800f22c066baf803b050eeb00aee'
    'f4ebfd8d742600900000000000000000ffff0000009acf00ffff00000092cf00'
    '1700687c0000')


@functools.lru_cache(maxsize=None)
def kvm_usable(timeout=5.0):
    """True if KVM really runs a protected-mode guest here."""
    try:
        fd = os.open('/dev/kvm', os.O_RDWR | os.O_CLOEXEC)
        os.close(fd)
    except OSError:
        return False
    with tempfile.TemporaryDirectory() as d:
        img = Path(d) / 'probe.img'
        img.write_bytes(KVM_PROBE + bytes(510 - len(KVM_PROBE)) + b'\x55\xaa')
        try:
            proc = subprocess.Popen(['qemu-system-i386', '-accel', 'kvm', '-machine', 'pc', '-nodefaults',
                                     '-display', 'none', '-serial', 'stdio', '-no-reboot', '-drive',
                                     f'file={img},format=raw,if=ide,index=0'],
                                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.DEVNULL)
        except OSError:
            return False
        out = b''
        end = time.monotonic() + timeout
        try:
            while b'P' not in out and time.monotonic() < end:
                r, _, _ = select.select([proc.stdout], [], [], 0.2)
                if r:
                    data = os.read(proc.stdout.fileno(), 64)
                    if not data:
                        break
                    out += data
        finally:
            proc.kill()
            proc.wait()
        return b'RP' in out


# Swap device faults through QEMU's blkdebug driver (--swap-fault): EIO on
# every write, or every read, that covers one of a few swap slots (a bad
# sector each; 4 KB slot k starts at sector 8 k, slot 0 is the header).
# Errors on every request would test the IDE driver, not the VM: 2.6.3
# retries a failed request eight times with resets, and the guest crawls.
# raw over blkdebug raises write_aio and read_aio for each request.
BAD_SWAP_SLOTS = (1, 64, 512, 4096, 16384)


def blkdebug_rules(fault):
    if fault == 'none':         # the control: blkdebug in the path, no errors
        return ''
    event = {'write': 'write_aio', 'read': 'read_aio'}[fault]
    return '\n'.join(f'[inject-error]\nevent = "{event}"\nsector = "{8 * slot}"\n'
                     f'errno = "5"\nonce = "off"\n' for slot in BAD_SWAP_SLOTS)


BLKDEBUG = ('none', 'read', 'write')


def blkdebug_drive(image, fault, conf):
    """Write the blkdebug rules of @fault to @conf; the -drive file= value
    that puts them in front of @image."""
    if fault not in BLKDEBUG:
        raise Error(f'--swap-fault {fault}: want one of {", ".join(BLKDEBUG)}')
    if ':' in str(image) or ':' in str(conf):
        raise Error(f'blkdebug cannot name a path with a colon: {image}')
    Path(conf).write_text(blkdebug_rules(fault))
    return f'blkdebug:{conf}:{image}'


def qemu_binary(x86_64):
    """qemu-system-i386 cannot place PAE RAM above 4 GB: a large i386 guest,
    like a 64-bit kernel, runs on qemu-system-x86_64."""
    return 'qemu-system-x86_64' if x86_64 else 'qemu-system-i386'


def qemu_command(kernel, root, kind, mem, cpus, accel, x86_64, disks, append, icount=False):
    """The QEMU command line (a list).  disks: list of image paths (or
    blkdebug: file names).  icount: guest time counts instructions (1 ns
    each), so timings no longer follow the host's load (TCG only)."""
    cmd = [qemu_binary(x86_64)]
    if icount:
        cmd += ['-icount', 'shift=0,sleep=on']
    if x86_64:
        cmd += ['-cpu', 'qemu64']
    cmd += ['-machine', 'pc', '-accel', accel, '-m', str(mem), '-smp', str(cpus),
            '-nodefaults', '-display', 'none', '-serial', 'stdio', '-no-reboot',
            '-kernel', str(kernel), '-initrd', str(root), '-append', append]
    iface = 'ide' if kind == 'legacy' else 'virtio'
    for i, d in enumerate(disks):
        cmd += ['-drive', f'file={d},format=raw,if={iface},index={i},cache=writeback']
    return cmd


# 2.6.3's i386 COMMAND_LINE_SIZE is 256: it cuts a longer command line
# without a word, and the guest then runs what the cut left.
LEGACY_CMDLINE_MAX = 255


def kernel_append(kind, root_kb, scenarios, scale, args, timeout, ndisks, sysctls=(), extra=''):
    """The kernel command line.  vmshm.run names the scenarios when they
    fit; 'all' runs every program the guest carries, which are exactly
    the scenarios asked for, in order (/etc/vmshm/programs).  extra: the
    user's own parameters (--append), last."""
    a = ['console=ttyS0,115200', 'panic=1']
    if kind == 'legacy':
        a += ['root=/dev/ram0', 'rw', 'init=/init', f'ramdisk_size={root_kb}']
    else:
        a += ['rdinit=/init']
    run = len(a)
    a.append('vmshm.run=' + (','.join(scenarios) if scenarios else 'all'))
    if scale:
        a.append(f'vmshm.mem={scale}')
    if timeout:
        a.append(f'vmshm.timeout={timeout}')
    if ndisks:
        a.append(f'vmshm.disks={ndisks}')
    for prog, val in sorted(args.items()):
        a.append(f'vmshm.args.{prog}={val.replace(" ", ",")}')
    if sysctls:
        a.append('vmshm.sysctl=' + ','.join(sysctls))
    if kind == 'legacy' and len(' '.join(a)) > LEGACY_CMDLINE_MAX:
        a[run] = 'vmshm.run=all'
    line = ' '.join(a)
    if kind == 'legacy' and len(line) > LEGACY_CMDLINE_MAX:
        raise Error(f'kernel command line of {len(line)} characters: 2.6.3 keeps '
                    f'{LEGACY_CMDLINE_MAX} and would cut the rest (shorter --args or --append)')
    if extra:
        line += ' ' + extra
        if kind == 'legacy' and len(line) > LEGACY_CMDLINE_MAX:
            raise Error(f'kernel command line of {len(line)} characters with --append: '
                        f'2.6.3 keeps {LEGACY_CMDLINE_MAX} and would cut the rest')
    return line
