# SPDX-License-Identifier: GPL-2.0
"""vmshm.series: the one reader of patches/series, and the series hash."""

import hashlib
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

from support import HOOK_HASH, REPO, write

from vmshm import series
from vmshm.common import Error


class SeriesTest(unittest.TestCase):
    def test_entries(self):
        text = ('# comment\n\ntoolchain/a.patch\ntoolchain/b.patch -p1\n'
                'mm/c.patch # trailing comment\n')
        self.assertEqual(series.series_entries(text),
                         ['toolchain/a.patch', 'toolchain/b.patch', 'mm/c.patch'])

    def test_entries_like_the_shell(self):
        # a last line without newline is not read by 'while read'; leading
        # white space empties the line
        self.assertEqual(series.series_entries('a.patch\n  b.patch\nc.patch'), ['a.patch'])

    def test_hash_matches_hook(self):
        with tempfile.TemporaryDirectory() as d:
            write(f'{d}/patches/series', '# s\ntoolchain/a.patch\nb.patch -p1\nmissing.patch\n')
            write(f'{d}/patches/toolchain/a.patch', 'AAA\n')
            write(f'{d}/patches/b.patch', 'BBB\n')
            want = hashlib.sha256(b'# s\ntoolchain/a.patch\nb.patch -p1\nmissing.patch\n'
                                  b'AAA\nBBB\n').hexdigest()
            self.assertEqual(series.series_hash(Path(d) / 'patches'), want)
            if shutil.which('bash') and shutil.which('sha256sum'):
                r = subprocess.run(['bash', '-c', HOOK_HASH], cwd=d, capture_output=True, text=True)
                self.assertEqual(r.stdout.strip(), want)

    def test_no_series(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertIsNone(series.series_hash(d))

    def test_variants(self):
        with tempfile.TemporaryDirectory() as d:
            write(f'{d}/series', 'toolchain/a.patch\ntoolchain/b.patch\nmm/c.patch\n')
            names = lambda v: [p.name for p in series.variant_patches(v, d)]
            self.assertEqual(names('vanilla'), ['a.patch', 'b.patch'])
            self.assertEqual(names('patched'), ['a.patch', 'b.patch', 'c.patch'])
            with self.assertRaises(Error):
                series.variant_patches('other', d)


class ReaderUsersTest(unittest.TestCase):
    """What export, bisect, gen-testcases-patch and reconstruct.sh take
    from the reader."""

    SERIES = ('# toolchain first\ntoolchain/a.patch\ntoolchain/b.patch -p1\n\n'
              'vm/c.patch\nvm/d.patch # the docs\nvm/e.patch\n')

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = Path(self.tmp.name)
        write(self.d / 'series', self.SERIES)

    def tearDown(self):
        self.tmp.cleanup()

    def test_toolchain_count_and_last(self):
        # bisect starts at commit toolchain_count (after the import commit);
        # gen-testcases-patch wants its patch last
        self.assertEqual(series.toolchain_count(self.d), 2)
        self.assertEqual(series.last_entry(self.d), 'vm/e.patch')
        self.assertIsNone(series.last_entry(self.d / 'nonesuch'))

    def test_extraversion(self):
        # export names the release after the last EXTRAVERSION a patch sets
        write(self.d / 'vm/c.patch', '+EXTRAVERSION = -vmshm0\n')
        write(self.d / 'vm/d.patch', ' EXTRAVERSION = -old\n+EXTRAVERSION = -vmshm2\n')
        self.assertEqual(series.extraversion(self.d), 'vmshm2')
        write(self.d / 'series', 'toolchain/a.patch\n')
        self.assertEqual(series.extraversion(self.d), '')

    def test_listing_for_reconstruct(self):
        self.assertEqual(series.listing(strip=True, patches_dir=self.d),
                         '1 toolchain/a.patch\n1 toolchain/b.patch\n1 vm/c.patch\n1 vm/d.patch\n1 vm/e.patch\n')
        self.assertEqual(series.listing('vanilla', patches_dir=self.d), 'toolchain/a.patch\ntoolchain/b.patch\n')
        write(self.d / 'series', 'a.patch -p0\nb.patch -R\n')
        with self.assertRaisesRegex(Error, r'series:2: b.patch: option -R not understood'):
            series.listing(strip=True, patches_dir=self.d)

    def test_command_line(self):
        r = subprocess.run(['python3', str(REPO / 'tools' / 'vmshm'), 'series', '--strip',
                            '--patches', str(self.d), '--variant', 'patched'],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.split('\n')[0], '1 toolchain/a.patch')

    def test_project_series_agrees_with_itself(self):
        # the committed series: vanilla is a prefix, the testcases patch last
        entries = series.read(REPO / 'patches')
        n = series.toolchain_count(REPO / 'patches')
        self.assertTrue(all(e.toolchain for e in entries[:n]))
        self.assertFalse(any(e.toolchain for e in entries[n:]))
        self.assertEqual(entries[-1].name, 'vm/vm-shm-testcases.patch')


if __name__ == '__main__':
    unittest.main()
