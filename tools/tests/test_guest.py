# SPDX-License-Identifier: GPL-2.0
"""vmshm.guest: kernel images, the guest kinds, the root image's parts."""

import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

from support import feed, kernel_header, write

from vmshm import guest


class ImageTest(unittest.TestCase):
    def test_kernel_info(self):
        with tempfile.TemporaryDirectory() as d:
            Path(d, 'old').write_bytes(kernel_header(0x0203, False, '2.6.3 (root@h) #1 Thu'))
            Path(d, 'new').write_bytes(kernel_header(0x020f, True, '6.1.0-57-amd64 (debian) #1 SMP'))
            old, new = guest.kernel_info(Path(d, 'old')), guest.kernel_info(Path(d, 'new'))
            self.assertEqual((old['release'], old['x86_64'], guest.guest_kind(old)), ('2.6.3', False, 'legacy'))
            self.assertEqual((new['release'], new['x86_64'], guest.guest_kind(new)),
                             ('6.1.0-57-amd64', True, 'modern'))

    def test_series_release(self):
        # the series' EXTRAVERSION: 2.6.3-vmshm1 is still a 2.6.3 guest
        with tempfile.TemporaryDirectory() as d:
            Path(d, 'k').write_bytes(kernel_header(0x0203, False, '2.6.3-vmshm1 (root@h) #1 Thu'))
            info = guest.kernel_info(Path(d, 'k'))
            self.assertEqual(info['release'], '2.6.3-vmshm1')
            self.assertEqual(guest.release_tuple(info['release']), (2, 6, 3))
            self.assertEqual(guest.guest_kind(info), 'legacy')
        p = feed('Linux version 2.6.3-vmshm1 (root@host) (gcc version 12.2.0) #1 Thu Dec 3 2026\n'
                 'KTAP version 1\n# vmshm: kernel Linux 2.6.3-vmshm1 #1 Thu Dec 3 i686\n')
        self.assertEqual(p.guest.get('uname'), 'Linux 2.6.3-vmshm1 #1 Thu Dec 3 i686')

    def test_cpio(self):
        c = guest.Cpio()
        c.dir('dev')
        c.chardev('dev/console', 5, 1)
        c.file('init', b'\x7fELF', 0o755)
        data = c.finish()
        self.assertTrue(data.startswith(b'070701'))
        self.assertEqual(len(data) % 4, 0)
        self.assertIn(b'TRAILER!!!', data)
        if shutil.which('cpio'):
            r = subprocess.run(['cpio', '-t', '-v', '--quiet'], input=data, capture_output=True)
            listing = r.stdout.decode()
            self.assertIn('dev/console', listing)
            self.assertRegex(listing, r'crw-------.*5,\s*1.*dev/console')
            self.assertRegex(listing, r'-rwxr-xr-x.*init')

    def test_module_closure(self):
        with tempfile.TemporaryDirectory() as d:
            write(f'{d}/modules.dep', 'kernel/fs/ext4/ext4.ko: kernel/lib/crc16.ko kernel/fs/jbd2/jbd2.ko\n'
                                      'kernel/lib/crc16.ko:\nkernel/fs/jbd2/jbd2.ko:\n'
                                      'kernel/drivers/block/virtio_blk.ko: kernel/virtio.ko\n'
                                      'kernel/virtio.ko:\n')
            got = [p.name for p in guest.module_closure(d, ['ext4', 'virtio-blk', 'absent'])]
            self.assertEqual(got, ['crc16.ko', 'jbd2.ko', 'ext4.ko', 'virtio.ko', 'virtio_blk.ko'])


if __name__ == '__main__':
    unittest.main()
