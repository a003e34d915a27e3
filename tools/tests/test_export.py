# SPDX-License-Identifier: GPL-2.0
"""vmshm.export (tools/export-series): what it names and writes, from the
series reader, and a whole export of a scratch series."""

import shutil
import subprocess
import tarfile
import tempfile
import unittest
from pathlib import Path

from support import REPO, Scratch, quiet, scratch_series, write

from vmshm import export, series


class ReleaseTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = Path(self.tmp.name)
        write(self.d / 'series', 'toolchain/a.patch\nvm/b.patch\nvm/c.patch\n')
        write(self.d / 'toolchain/a.patch', 'a\n')
        write(self.d / 'vm/b.patch', '+EXTRAVERSION = -vmshm3\n')
        write(self.d / 'vm/c.patch', 'c\n')

    def tearDown(self):
        self.tmp.cleanup()

    def test_name_from_extraversion(self):
        r = export.Release.of(self.d)
        self.assertEqual((r.name, r.ntool, r.nvm), ('vmshm3', 1, 2))
        self.assertEqual(r.entries, ('toolchain/a.patch', 'vm/b.patch', 'vm/c.patch'))
        self.assertEqual(r.hash, series.series_hash(self.d))

    def test_name_from_version_or_hash(self):
        self.assertEqual(export.Release.of(self.d, '7').name, 'vmshm-7')
        self.assertEqual(export.Release.of(self.d, 'vmshm9').name, 'vmshm9')
        write(self.d / 'vm/b.patch', 'b\n')
        self.assertEqual(export.Release.of(self.d).name, 'vmshm-' + series.series_hash(self.d)[:8])

    def test_cover_letter(self):
        r = export.Release.of(self.d)
        text = export.cover_letter('Subject: [PATCH 0/2] *** SUBJECT HERE ***\n\n*** BLURB HERE ***\n',
                                   r, 'Results\n-------\n', '| run |\n|---|')
        self.assertIn(f'Subject: [PATCH 0/2] {export.COVER_SUBJECT}\n', text)
        self.assertIn('2.6.3 plus 1 toolchain patches', text)
        self.assertIn(f'(vmshm3-toolchain.mbox, and first in the quilt series\nof vmshm3-quilt.tar.gz)', text)
        self.assertIn(f'Series hash {r.hash[:12]}.\n\nResults\n-------\n\n', text)
        self.assertTrue(text.endswith('(this posting is %s):\n\n| run |\n|---|\n' % r.hash[:12]))

    def test_project_docs_and_table(self):
        # what the cover letter takes from the repository
        self.assertTrue(export.docs_results(REPO / 'patches' / export.DOCS_PATCH).startswith('Results\n-------\n'))
        runs = export.runs_table(REPO / 'docs' / 'results.md').split('\n')
        self.assertEqual(runs[0], '| runs | n | date | kernel | series | verdict | summary |')
        self.assertTrue(all(line.startswith('|') for line in runs))


@unittest.skipUnless(shutil.which('git') and shutil.which('quilt') and shutil.which('tar'),
                     'needs git, quilt and tar')
class ExportTest(unittest.TestCase):
    def test_export_agrees_with_itself(self):
        scratch = Scratch()
        try:
            base = scratch_series(scratch)
            with quiet() as out:
                rc = export.export(base, 'vmshm5', scratch.layout)
            self.assertEqual(rc, 0, out.getvalue())
            text = out.getvalue()
            self.assertIn('export-series: vmshm5, series ', text)
            self.assertIn(', 1 toolchain + 1 VM patches\n', text)
            self.assertIn('same tree (same commits too)', text)
            self.assertIn('quilt push -a of the tarball on a copy of the base: tree ', text)
            self.assertIn('mails: 2 in build/export/mbox (0/1 cover letter)', text.replace(str(scratch.root) + '/', ''))
            ex = scratch.layout.build / 'export'
            with tarfile.open(ex / 'vmshm5-quilt.tar.gz') as t:
                self.assertEqual(sorted(t.getnames()), ['vmshm5/mm/b.patch', 'vmshm5/series',
                                                        'vmshm5/toolchain/a.patch'])
            mbox = (ex / 'vmshm5.mbox').read_text()
            self.assertIn(export.COVER_SUBJECT, mbox)
            self.assertIn('(no results yet)', mbox)
            heads = subprocess.run(['git', 'bundle', 'list-heads', str(ex / 'vmshm5.bundle')],
                                   capture_output=True, text=True).stdout
            self.assertIn('refs/heads/vmshm5', heads)
        finally:
            scratch.close()

    def test_one_mbox_a_series(self):
        scratch = Scratch()
        try:
            base = scratch_series(scratch)
            p = scratch.layout.patches
            (p / 'one').mkdir()
            (p / 'mm/b.patch').rename(p / 'one/b.patch')
            write(p / 'series', '#@series toolchain\ntoolchain/a.patch\n#@series one  say world\none/b.patch\n')
            with quiet() as out:
                rc = export.export(base, 'vmshm5', scratch.layout)
            self.assertEqual(rc, 0, out.getvalue())
            self.assertRegex(out.getvalue(), r'series one: 1 patches \+ 0/1 cover letter \(vmshm5-one.mbox\); '
                             r'git am of the toolchain mbox and it on a fresh import: tree \w+: '
                             r'same tree as one prepared alone')
            mbox = (scratch.layout.build / 'export' / 'vmshm5-one.mbox').read_text()
            self.assertIn('Subject: [PATCH 2.6.3 one 0/1] say world\n', mbox)
            self.assertIn('Subject: [PATCH 2.6.3 one 1/1] mm: say world\n', mbox)
            self.assertIn('No headline run of this series alone', mbox)
            self.assertIn(' mm/memory.c | 1 +\n', mbox)           # the cover letter's diffstat
        finally:
            scratch.close()


if __name__ == '__main__':
    unittest.main()
