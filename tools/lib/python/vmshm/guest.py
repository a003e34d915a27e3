# SPDX-License-Identifier: GPL-2.0
"""The guest: what kind a kernel image needs, its root image (the init
and the scenario programs, plus disk driver modules for a modern
kernel) and its swap and data disks.

2.6.3 (legacy) unpacks an initramfs but never runs its /init, so its
root is an ext2 initrd and its disks are IDE; a modern kernel gets a
newc cpio and virtio disks.  Nothing here needs root.
"""

import gzip
import hashlib
import lzma
import os
import re
import struct
import tempfile
from pathlib import Path

from .common import LAYOUT, Error, find_tool, sh

DATA_LABEL = 'vmshm-data'

# Modules a modern distribution kernel needs for the guest's disks (Debian
# builds them as modules); ext4 mounts the ext2 data disk, and needs crc32c
# (a softdep that modules.dep does not list).
MODERN_MODULES = ['virtio_pci', 'virtio_blk', 'crc32c_generic', 'ext4']


def kernel_info(path):
    """Facts from an x86 bzImage header: boot protocol, 64-bit, release."""
    data = Path(path).read_bytes()[:0x10000]
    info = {'protocol': 0, 'x86_64': False, 'release': '', 'version': ''}
    if len(data) < 0x240 or data[0x202:0x206] != b'HdrS':
        return info
    proto = struct.unpack_from('<H', data, 0x206)[0]
    info['protocol'] = proto
    if proto >= 0x020c:
        info['x86_64'] = bool(struct.unpack_from('<H', data, 0x236)[0] & 1)
    ptr = struct.unpack_from('<H', data, 0x20e)[0]
    if ptr:
        s = data[0x200 + ptr:0x200 + ptr + 256].split(b'\0')[0].decode('ascii', 'replace')
        info['version'] = s
        info['release'] = s.split(' ')[0]
    return info


def release_tuple(release):
    m = re.match(r'(\d+)\.(\d+)(?:\.(\d+))?', release)
    return tuple(int(x or 0) for x in m.groups()) if m else (0, 0, 0)


def guest_kind(info):
    """'legacy': 2.6.3-era kernel (no /init from initramfs, IDE disks,
    ext2 image as initrd); 'modern': initramfs cpio, virtio disks."""
    rt = release_tuple(info['release'])
    if info['x86_64'] or rt >= (2, 6, 16):
        return 'modern'
    return 'legacy'


def build_init(layout=LAYOUT):
    """The guest init, built (make decides whether it needs to be)."""
    out = layout.build / 'guest'
    sh(['make', '-s', '-C', str(layout.testdir), '-f', 'init.mk', f'O={out}'])
    return out / 'init'


def module_closure(moddir, wanted):
    """Module files (deps first) for the wanted module names, from
    modules.dep; names compare with '-' and '_' equal."""
    moddir = Path(moddir)
    dep = {}
    for line in (moddir / 'modules.dep').read_text().split('\n'):
        if ':' not in line:
            continue
        mod, deps = line.split(':', 1)
        dep[mod.strip()] = deps.split()

    def name(path):
        return re.sub(r'\.ko(\.\w+)?$', '', os.path.basename(path)).replace('-', '_')
    by_name = {name(m): m for m in dep}
    order = []

    def visit(mod):
        if mod in order:
            return
        for d in dep.get(mod, []):
            visit(d)
        order.append(mod)
    for w in wanted:
        w = w.replace('-', '_')
        if w in by_name:
            visit(by_name[w])
    return [moddir / m for m in order]


def module_bytes(path):
    data = Path(path).read_bytes()
    if str(path).endswith('.xz'):
        return lzma.decompress(data)
    if str(path).endswith('.gz'):
        return gzip.decompress(data)
    if str(path).endswith('.zst'):
        raise Error(f'{path}: zstd modules are not supported (no zstd in the standard library)')
    return data


class Cpio:
    """Writer of a newc cpio archive (no root needed for device nodes)."""

    def __init__(self):
        self.out = bytearray()
        self.ino = 1

    def _entry(self, name, mode, data=b'', rdev=(0, 0), nlink=1):
        name_b = name.encode() + b'\0'
        hdr = '070701' + ''.join(f'{v:08x}' for v in (
            self.ino, mode, 0, 0, nlink, 0, len(data), 0, 0, rdev[0], rdev[1], len(name_b), 0))
        self.ino += 1
        self.out += hdr.encode() + name_b
        self.out += b'\0' * (-len(self.out) % 4)
        self.out += data
        self.out += b'\0' * (-len(self.out) % 4)

    def dir(self, name):
        self._entry(name, 0o040755, nlink=2)

    def file(self, name, data, mode=0o644):
        self._entry(name, 0o100000 | mode, data)

    def chardev(self, name, major, minor):
        self._entry(name, 0o020600, rdev=(major, minor))

    def finish(self):
        self.ino = 0
        self._entry('TRAILER!!!', 0)
        return bytes(self.out)


def guest_files(init, programs, modules):
    """(path in guest, bytes, mode) of every file of the guest root."""
    files = [('init', Path(init).read_bytes(), 0o755)]
    for name, path in programs.items():
        files.append((f'bin/{name}', Path(path).read_bytes(), 0o755))
    files.append(('etc/vmshm/programs', ''.join(p + '\n' for p in programs).encode(), 0o644))
    if modules:
        mods = []
        for m in modules:
            base = re.sub(r'\.(xz|gz)$', '', m.name)
            files.append((f'lib/modules/{base}', module_bytes(m), 0o644))
            mods.append(f'/lib/modules/{base}\n')
        files.append(('etc/vmshm/modules', ''.join(mods).encode(), 0o644))
    return files


GUEST_DIRS = ['bin', 'dev', 'etc', 'etc/vmshm', 'proc', 'sys', 'tmp', 'data', 'lib', 'lib/modules']
DEV_NODES = [('console', 5, 1), ('null', 1, 3), ('ttyS0', 4, 64)]


def files_key(kind, files):
    h = hashlib.sha256(kind.encode())
    for name, data, mode in files:
        h.update(f'{name} {mode} {len(data)}\n'.encode())
        h.update(data)
    return h.hexdigest()[:16]


def make_cpio(files, dest):
    c = Cpio()
    for d in GUEST_DIRS:
        c.dir(d)
    for name, major, minor in DEV_NODES:
        c.chardev(f'dev/{name}', major, minor)
    for name, data, mode in files:
        c.file(name, data, mode)
    dest.write_bytes(c.finish())


def make_ext2_root(files, dest, scratch):
    """ext2 image for 2.6.3's initrd: made with mke2fs -d, device nodes
    added with debugfs (neither needs root)."""
    with tempfile.TemporaryDirectory(dir=scratch) as tmp:
        root = Path(tmp) / 'root'
        for d in GUEST_DIRS:
            (root / d).mkdir(parents=True, exist_ok=True)
        total = 0
        for name, data, mode in files:
            p = root / name
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
            p.chmod(mode)
            total += len(data)
        size_kb = max(4096, (total * 2) // 1024 + 2048)
        tmp_img = Path(tmp) / 'root.ext2'
        sh([find_tool('mke2fs'), '-q', '-F', '-t', 'ext2', '-O', 'none', '-I', '128', '-b', '1024',
            '-m', '0', '-N', '256', '-E', 'root_owner=0:0', '-d', str(root), str(tmp_img), f'{size_kb}'],
           capture_output=True)
        cmds = ['cd /dev']
        for name, major, minor in DEV_NODES:
            cmds += [f'mknod {name} c {major} {minor}', f'sif {name} mode 020600']
        sh([find_tool('debugfs'), '-w', '-f', '-', str(tmp_img)], input='\n'.join(cmds) + '\n',
           text=True, capture_output=True)
        os.replace(tmp_img, dest)


def guest_root(kind, programs, modules, init, layout=LAYOUT):
    """Cached guest root image: ext2 (legacy) or cpio (modern)."""
    files = guest_files(init, programs, modules)
    ext = 'ext2' if kind == 'legacy' else 'cpio'
    dest = layout.build / 'guest' / f'root-{files_key(kind, files)}.{ext}'
    dest.parent.mkdir(parents=True, exist_ok=True)
    if not dest.exists():
        if kind == 'legacy':
            make_ext2_root(files, dest, layout.build)
        else:
            make_cpio(files, dest)
    return dest


def make_swap(path, mb):
    with open(path, 'wb') as f:
        f.truncate(mb << 20)
    sh([find_tool('mkswap'), '-L', 'vmshm-swap', str(path)], capture_output=True)


def make_data(path, mb):
    with open(path, 'wb') as f:
        f.truncate(mb << 20)
    sh([find_tool('mke2fs'), '-q', '-F', '-t', 'ext2', '-O', 'none,sparse_super,filetype', '-I', '128',
        '-b', '4096', '-m', '0', '-L', DATA_LABEL, str(path)], capture_output=True)
