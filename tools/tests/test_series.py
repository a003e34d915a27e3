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


class SeriesDir(unittest.TestCase):
    """A temporary patches/ directory holding a series file of SERIES."""

    SERIES = ''

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = Path(self.tmp.name)
        write(self.d / 'series', self.SERIES)

    def tearDown(self):
        self.tmp.cleanup()


class ReaderUsersTest(SeriesDir):
    """What export, bisect, gen-testcases-patch and reconstruct.sh take
    from the reader."""

    SERIES = ('# toolchain first\ntoolchain/a.patch\ntoolchain/b.patch -p1\n\n'
              'vm/c.patch\nvm/d.patch # the docs\nvm/e.patch\n')

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
        self.assertEqual(entries[-1].name, 'enterprise/vm-shm-testcases.patch')
        # one group a series, the enterprise group last and stacked only
        groups = series.groups(REPO / 'patches')
        self.assertEqual([g.name for g in groups][:1] + [g.name for g in groups][-1:],
                         ['toolchain', 'enterprise'])
        self.assertEqual(sum(len(g.entries) for g in groups), len(entries))
        self.assertEqual(series.variants(REPO / 'patches')[:2], ('vanilla', 'patched'))
        self.assertNotIn('enterprise', series.variants(REPO / 'patches'))


class GroupsTest(SeriesDir):
    """The group markers: one series each, read as comments by quilt and
    the hash."""

    SERIES = ('# head\n#@series toolchain what 2.6.3 needs\ntoolchain/a.patch\n'
              '#@series one  the first series\none/b.patch\none/c.patch -p1\n'
              '#@series two\n#@alone two/d.patch\nent/stacked/d.patch\n'
              '#@stack ent  the branch\nent/e.patch\n')

    def test_groups(self):
        groups = series.groups(self.d)
        self.assertEqual([(g.name, g.kind, g.title) for g in groups],
                         [('toolchain', 'series', 'what 2.6.3 needs'), ('one', 'series', 'the first series'),
                          ('two', 'series', ''), ('ent', 'stack', 'the branch')])
        self.assertEqual([e.name for e in groups[1].entries], ['one/b.patch', 'one/c.patch'])
        self.assertEqual([e.name for e in groups[2].entries], ['ent/stacked/d.patch'])
        self.assertEqual([e.name for e in groups[2].standalone], ['two/d.patch'])

    def test_variants(self):
        self.assertEqual(series.variants(self.d), ('vanilla', 'patched', 'one', 'two'))
        names = lambda v: [e.name for e in series.variant_entries(v, self.d)]
        self.assertEqual(names('patched'), ['toolchain/a.patch', 'one/b.patch', 'one/c.patch',
                                            'ent/stacked/d.patch', 'ent/e.patch'])
        self.assertEqual(names('one'), ['toolchain/a.patch', 'one/b.patch', 'one/c.patch'])
        self.assertEqual(names('two'), ['toolchain/a.patch', 'two/d.patch'])
        for v in ('ent', 'toolchain'):
            with self.assertRaisesRegex(Error, 'the whole stack is patched'):
                series.variant_entries(v, self.d)

    def test_markers_are_comments(self):
        # the hash (the stop hook's shell) and quilt read the stack only
        self.assertEqual(series.series_entries(self.SERIES),
                         ['toolchain/a.patch', 'one/b.patch', 'one/c.patch', 'ent/stacked/d.patch', 'ent/e.patch'])
        if shutil.which('bash') and shutil.which('sha256sum'):
            write(self.d / 'patches/series', self.SERIES)
            r = subprocess.run(['bash', '-c', HOOK_HASH], cwd=self.d, capture_output=True, text=True)
            self.assertEqual(r.stdout.strip(), series.series_hash(self.d / 'patches'))
        if shutil.which('quilt'):
            r = subprocess.run(['quilt', '--quiltrc=-', 'series'], cwd=self.d, capture_output=True, text=True,
                               env={'QUILT_PATCHES': '.', 'PATH': '/usr/bin:/bin'})
            self.assertEqual(r.stdout.split(), series.series_entries(self.SERIES), r.stderr)


class NeedsTest(SeriesDir):
    """#@needs: a series tested, bisected and mailed on an earlier one."""

    SERIES = ('#@series toolchain\ntoolchain/a.patch\n'
              '#@series one\none/b.patch\n'
              '#@series two  the second\n#@needs one\ntwo/c.patch\ntwo/d.patch\n'
              '#@series three\nthree/e.patch\n')

    def test_needs(self):
        groups = series.groups(self.d)
        self.assertEqual([(g.name, g.title, g.needs) for g in groups],
                         [('toolchain', '', ()), ('one', '', ()), ('two', 'the second', ('one',)),
                          ('three', '', ())])
        names = lambda v: [e.name for e in series.variant_entries(v, self.d)]
        self.assertEqual(names('two'), ['toolchain/a.patch', 'one/b.patch', 'two/c.patch', 'two/d.patch'])
        self.assertEqual(names('three'), ['toolchain/a.patch', 'three/e.patch'])
        # bisect and the mails start after what the series needs
        self.assertEqual([series.base_count(v, self.d) for v in ('two', 'three', 'one', 'patched')],
                         [2, 1, 1, 1])
        # the marker is a comment to the hash and quilt
        self.assertEqual(len(series.series_entries(self.SERIES)), 5)

    def test_lint(self):
        from vmshm import lint
        self.assertEqual(lint.check_groups(self.SERIES, self.d), [])
        for bad, why in [('#@series two\n#@needs three\n', 'not a series before'),
                         ('#@series two\n#@needs two\n', 'not a series before'),
                         ('#@series two\n#@needs toolchain\n', 'not a series before'),
                         ('#@series toolchain\n#@needs one\n', 'after a #@series marker'),
                         ('#@stack ent\n#@needs one\n', 'after a #@series marker')]:
            text = self.SERIES.replace('#@series two  the second\n#@needs one\n', bad)
            if bad.startswith('#@series toolchain'):
                text = bad + self.SERIES.split('\n', 2)[2]
            elif bad.startswith('#@stack'):
                text = self.SERIES + bad
            errors = lint.check_groups(text, self.d)
            self.assertTrue(any(why in e for e in errors), (bad, errors))


if __name__ == '__main__':
    unittest.main()
