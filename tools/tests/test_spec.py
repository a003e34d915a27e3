# SPDX-License-Identifier: GPL-2.0
"""vmshm.spec: a run as one value, and everything derived from it: the
whole QEMU command (what --dry-run prints) for the main cases, the label
and the conditions a result records."""

import unittest
from pathlib import Path

from support import Scratch, kernel_header, write

from vmshm import results
from vmshm.cli import build_parser
from vmshm.common import Error
from vmshm.programs import PROGRAMS
from vmshm.spec import RunSpec

LEGACY = '2.6.3-vmshm1 (root@h) #1 Thu'
DEBIAN = '6.1.0-57-amd64 (debian-kernel@lists.debian.org) #1 SMP'


class SpecTest(unittest.TestCase):
    def setUp(self):
        self.scratch = Scratch()
        self.layout = self.scratch.layout
        d = self.scratch.root
        self.legacy = d / 'bzImage'
        self.legacy.write_bytes(kernel_header(0x0203, False, LEGACY))
        self.debian = d / 'vmlinuz-6.1.0-57-amd64'
        self.debian.write_bytes(kernel_header(0x020f, True, DEBIAN))
        self.modules = d / 'modules'
        write(self.modules / 'modules.dep', '')
        self.root = d / 'root.img'
        self.root.write_bytes(bytes(3000 * 1024 - 5))          # 3000 kB, rounded up
        self.drives = [str(d / 'swap.img'), str(d / 'data.img')]

    def tearDown(self):
        self.scratch.close()

    def spec(self, *argv, kernel=None):
        args = build_parser().parse_args(['run', '--kernel', str(kernel or self.legacy), *argv])
        return RunSpec.from_args(args, self.layout, kvm_probe=lambda: False)

    def command(self, spec):
        return spec.qemu_command(self.root, self.drives[:len(spec.disks())])

    def tail(self, append, iface='ide'):
        """-append and the two disks: the end of every command here."""
        return ['-append', append,
                '-drive', f'file={self.drives[0]},format=raw,if={iface},index=0,cache=writeback',
                '-drive', f'file={self.drives[1]},format=raw,if={iface},index=1,cache=writeback']

    def middle(self, mem, cpus, kernel, accel='tcg'):
        return ['-machine', 'pc', '-accel', accel, '-m', str(mem), '-smp', str(cpus), '-nodefaults',
                '-display', 'none', '-serial', 'stdio', '-no-reboot', '-kernel', str(kernel),
                '-initrd', str(self.root)]

    LEGACY_APPEND = 'console=ttyS0,115200 panic=1 root=/dev/ram0 rw init=/init ramdisk_size=3000'

    def test_legacy_i386(self):
        spec = self.spec('--accel', 'tcg')
        self.assertEqual(self.command(spec),
                         ['qemu-system-i386'] + self.middle(256, 1, self.legacy) +
                         self.tail(f'{self.LEGACY_APPEND} vmshm.run=all vmshm.disks=2'))
        self.assertEqual((spec.swap_mb, spec.data_mb, spec.kind), (512, 768, 'legacy'))

    def test_pae_above_4g(self):
        # qemu-system-i386 cannot place PAE RAM above 4 GB
        spec = self.spec('--accel', 'tcg', '--mem', '8192', '--scenarios', 'pte_chain_capacity',
                         '--args', 'pte_chain_capacity=-s,256,-n,20000')
        self.assertEqual(self.command(spec),
                         ['qemu-system-x86_64', '-cpu', 'qemu64'] + self.middle(8192, 1, self.legacy) +
                         self.tail(f'{self.LEGACY_APPEND} vmshm.run=pte_chain_capacity vmshm.disks=2 '
                                   'vmshm.args.pte_chain_capacity=-s,256,-n,20000'))

    def test_smp(self):
        spec = self.spec('--accel', 'tcg', '--cpus', '2', '--sysctl', 'vm/vm_cache_scan_ratio:0',
                         '--append', 'profile=2')
        self.assertEqual(self.command(spec),
                         ['qemu-system-i386'] + self.middle(256, 2, self.legacy) +
                         self.tail(f'{self.LEGACY_APPEND} vmshm.run=all vmshm.disks=2 '
                                   'vmshm.sysctl=vm/vm_cache_scan_ratio:0 profile=2'))

    def test_icount(self):
        spec = self.spec('--accel', 'tcg', '--icount', '--scenarios', 'copy_during_swap', '--mem', '128')
        self.assertEqual(self.command(spec),
                         ['qemu-system-i386', '-icount', 'shift=0,sleep=on'] + self.middle(128, 1, self.legacy) +
                         self.tail(f'{self.LEGACY_APPEND} vmshm.run=copy_during_swap vmshm.disks=2'))
        # auto resolves to KVM where it works, and icount needs TCG
        with self.assertRaisesRegex(Error, 'needs TCG'):
            RunSpec.from_args(build_parser().parse_args(['run', '--kernel', str(self.legacy), '--icount']),
                              self.layout, kvm_probe=lambda: True)

    def test_debian_kernel(self):
        # make boot-debian's run: a modern guest, cpio root, virtio disks
        spec = self.spec('--accel', 'tcg', '--scale', '64', '--timeout', '900', '--quiet-timeout', '180',
                         '--label', 'debian', '--scenarios', 'all,soak', '--args', 'soak=-t 60',
                         '--modules', str(self.modules), kernel=self.debian)
        self.assertEqual((spec.kind, spec.modules, spec.release), ('modern', self.modules, '6.1.0-57-amd64'))
        append = ('console=ttyS0,115200 panic=1 rdinit=/init vmshm.run=' + ','.join(PROGRAMS + ['soak']) +
                  ' vmshm.mem=64 vmshm.disks=2 vmshm.args.soak=-t,60')
        self.assertEqual(self.command(spec),
                         ['qemu-system-x86_64', '-cpu', 'qemu64'] + self.middle(256, 1, self.debian) +
                         self.tail(append, iface='virtio'))
        self.assertEqual(spec.name, 'debian-m256-c1')

    def test_no_disks(self):
        spec = self.spec('--accel', 'tcg', '--no-disks', kernel=self.debian)
        self.assertEqual((spec.disks(), spec.modules), ([], None))
        self.assertTrue(self.command(spec)[-1].endswith('rdinit=/init vmshm.run=all'))


class LabelTest(unittest.TestCase):
    """The label and the result's conditions come from the spec."""

    def spec(self, **kw):
        base = dict(kernel=Path('build/obj/vanilla-up/arch/i386/boot/bzImage'), release='2.6.3', kind='legacy',
                    variant='vanilla', config='up', swap_mb=512, data_mb=768, series_hash='ab' * 32)
        return RunSpec(**{**base, **kw})

    def test_plain_runs_keep_their_labels(self):
        self.assertEqual(self.spec().name, 'vanilla-up-m256-c1')
        self.assertEqual(self.spec(variant='patched', config='smp', cpus=2).name, 'patched-smp-m256-c2')
        self.assertEqual(self.spec(mem=8192, swap_mb=16384, data_mb=16640).name, 'vanilla-up-m8192-c1')
        self.assertEqual(self.spec(variant=None, config=None, release='6.1.0-57-amd64').name,
                         'kernel-6.1.0-57-amd64-m256-c1')
        self.assertEqual(self.spec(label='soak-patched-up', icount=True).name, 'soak-patched-up-m256-c1')

    def test_conditions_make_the_label(self):
        self.assertEqual(self.spec(icount=True, mem=128, swap_mb=256, data_mb=512).name,
                         'vanilla-up-icount-m128-c1')
        self.assertEqual(self.spec(sysctls=('vm/vm_cache_scan_ratio:0',), append='quiet',
                                   swap_fault='write', swap_mb=32, data_mb=64).name,
                         'vanilla-up-vm_cache_scan_ratio_0-quiet-swapfault-write-swap32-data64-m256-c1')
        self.assertEqual(self.spec(force_x86_64=True).name, 'vanilla-up-x86_64-m256-c1')
        self.assertEqual(self.spec(force_x86_64=True, mem=4096, swap_mb=8192, data_mb=8448).name,
                         'vanilla-up-m4096-c1')

    def test_conditions(self):
        spec = self.spec(icount=True, sysctls=('vm/a:1',), append='quiet', args=(('soak', '-t 5'),),
                         scale=64, prog_timeout=30, swap_fault='read')
        c = spec.conditions()
        self.assertEqual(set(c), set(results.CONDITIONS))
        self.assertEqual(c, {'variant': 'vanilla', 'config': 'up', 'kernel_release': '2.6.3',
                             'guest_kind': 'legacy', 'qemu': 'qemu-system-i386', 'accel': 'tcg',
                             'icount': True, 'mem_mb': 256, 'cpus': 1, 'scale_mb': 64, 'swap_mb': 512,
                             'data_mb': 768, 'swap_fault': 'read', 'sysctls': ['vm/a:1'], 'append': 'quiet',
                             'args': {'soak': '-t 5'}, 'prog_timeout': 30, 'series_hash': 'ab' * 32})

    def test_full(self):
        self.assertTrue(self.spec().full)
        self.assertFalse(self.spec(scenarios=('soak',)).full)
        self.assertFalse(self.spec(progs_dir=Path('elsewhere')).full)


if __name__ == '__main__':
    unittest.main()
