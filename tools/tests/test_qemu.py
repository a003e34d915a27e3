# SPDX-License-Identifier: GPL-2.0
"""vmshm.qemu: the kernel command line, the QEMU command's parts and the
swap disk faults.  test_spec checks whole commands."""

import re
import tempfile
import unittest
from pathlib import Path

import support  # noqa: F401  (puts the package on sys.path)

from vmshm import qemu
from vmshm.common import Error
from vmshm.programs import PROGRAMS


class CommandTest(unittest.TestCase):
    def test_append_and_command(self):
        a = qemu.kernel_append('legacy', 4096, ['many_vmas', 'integrity'], 128,
                               {'many_vmas': '-n 100'}, 0, 2)
        for word in ('root=/dev/ram0', 'rw', 'init=/init', 'ramdisk_size=4096', 'panic=1',
                     'vmshm.run=many_vmas,integrity', 'vmshm.mem=128', 'vmshm.args.many_vmas=-n,100',
                     'vmshm.disks=2'):
            self.assertIn(word, a.split())
        cmd = qemu.qemu_command('bz', 'root.ext2', 'legacy', 4096, 2, 'tcg', True, ['s.img', 'd.img'], a)
        self.assertEqual(cmd[:3], ['qemu-system-x86_64', '-cpu', 'qemu64'])
        self.assertIn('-no-reboot', cmd)
        self.assertIn('file=d.img,format=raw,if=ide,index=1,cache=writeback', cmd)
        cmd = qemu.qemu_command('bz', 'root.cpio', 'modern', 256, 1, 'tcg', False, ['s.img'], a)
        self.assertEqual(cmd[0], 'qemu-system-i386')
        self.assertIn('file=s.img,format=raw,if=virtio,index=0,cache=writeback', cmd)

    def test_append_fits_2_6_3(self):
        # 2.6.3 cuts its command line at 255 characters without a word: a
        # long scenario list becomes 'all' (the guest carries exactly the
        # scenarios asked for), anything else too long is an error.
        many = PROGRAMS + ['truncate_fault', 'soak']
        a = qemu.kernel_append('legacy', 4096, many, None, {'soak': '-t 300'}, 0, 2)
        self.assertLessEqual(len(a), qemu.LEGACY_CMDLINE_MAX)
        self.assertIn('vmshm.run=all', a.split())
        self.assertIn('vmshm.args.soak=-t,300', a.split())
        a = qemu.kernel_append('modern', 0, many, None, {}, 0, 2)
        self.assertIn('vmshm.run=' + ','.join(many), a.split())
        a = qemu.kernel_append('legacy', 4096, ['soak'], None, {}, 0, 2)
        self.assertIn('vmshm.run=soak', a.split())
        with self.assertRaises(Error):
            qemu.kernel_append('legacy', 4096, ['soak'], None, {'soak': '-x ' + 'a' * 250}, 0, 2)


class SwapFaultTest(unittest.TestCase):
    def test_rules_name_each_bad_slot(self):
        for fault, event in (('write', 'write_aio'), ('read', 'read_aio')):
            rules = qemu.blkdebug_rules(fault)
            self.assertEqual(rules.count('[inject-error]'), len(qemu.BAD_SWAP_SLOTS))
            self.assertEqual(rules.count(f'event = "{event}"'), len(qemu.BAD_SWAP_SLOTS))
            # never the header (slot 0, sectors 0-7): swapon must work
            sectors = [int(x) for x in re.findall(r'sector = "(\d+)"', rules)]
            self.assertTrue(all(s >= 8 and s % 8 == 0 for s in sectors))

    def test_drive(self):
        with tempfile.TemporaryDirectory() as d:
            conf = Path(d) / 'blkdebug.conf'
            drive = qemu.blkdebug_drive(Path(d) / 'swap.img', 'write', conf)
            self.assertEqual(drive, f'blkdebug:{conf}:{Path(d) / "swap.img"}')
            self.assertIn('write_aio', conf.read_text())
            with self.assertRaises(Error):
                qemu.blkdebug_drive(Path(d) / 'swap.img', 'flush', conf)
            cmd = qemu.qemu_command('bz', 'root.ext2', 'legacy', 256, 1, 'tcg', False,
                                     [drive, 'd.img'], 'x')
            self.assertIn(f'file={drive},format=raw,if=ide,index=0,cache=writeback', cmd)


if __name__ == '__main__':
    unittest.main()
