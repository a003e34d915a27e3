# SPDX-License-Identifier: GPL-2.0
"""vmshm.tree (the base tree, prepare) and vmshm.kbuild's build record."""

import json
import shutil
import subprocess
import tempfile
import unittest

from support import Scratch, fake_tree, quiet, scratch_series, write

from vmshm import kbuild, tree
from vmshm.common import Error, file_sha256


class BaseTreeTest(unittest.TestCase):
    def test_good(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(tree.check_base(fake_tree(d)), '2.6.3')

    def test_wrong_version(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaisesRegex(Error, r'Linux 2\.6\.4.*for 2\.6\.3'):
                tree.check_base(fake_tree(d, '2.6.4'))

    def test_extraversion(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaisesRegex(Error, r'EXTRAVERSION.*-rc1'):
                tree.check_base(fake_tree(d, extra=' -rc1'))

    def test_incomplete(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaisesRegex(Error, r'Makefile\.lib is missing.*incomplete'):
                tree.check_base(fake_tree(d, makefile_lib=False))

    def test_not_a_tree(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaisesRegex(Error, 'not a Linux source tree'):
                tree.check_base(d)


def git_log(repo):
    return subprocess.run(['git', '-C', str(repo), 'log', '--format=%s|%an|%ad', '--date=short'],
                          capture_output=True, text=True).stdout.split('\n')[:-1]


def git_head(repo):
    return subprocess.run(['git', '-C', str(repo), 'rev-parse', 'HEAD'], capture_output=True, text=True).stdout


@unittest.skipUnless(shutil.which('git'), 'needs git')
class PrepareTest(unittest.TestCase):
    def setUp(self):
        self.scratch = Scratch()
        self.layout = self.scratch.layout
        self.base = scratch_series(self.scratch)

    def tearDown(self):
        self.scratch.close()

    def prepare(self, variant):
        with quiet() as out:
            repo = tree.prepare(self.base, variant, self.layout)
        self.out = out.getvalue()
        return repo

    def test_branch_and_rerun(self):
        repo = self.prepare('patched')
        self.assertEqual(git_log(repo), ['mm: say world|A Hacker|2026-12-03',
                                         'mm: say hello|A Hacker|2026-12-03',
                                         'Linux 2.6.3|Linus Torvalds|2004-02-18'])
        self.assertEqual((repo / 'mm/memory.c').read_text(), 'line one\nhello\nworld\nline two\n')
        head = git_head(repo)
        self.prepare('patched')
        self.assertIn('up to date', self.out)
        # the same inputs give the same commits (fixed dates, fixed committer)
        shutil.rmtree(repo)
        repo = self.prepare('patched')
        self.assertEqual(head, git_head(repo))

    def test_vanilla_and_changed_patch(self):
        repo = self.prepare('vanilla')
        self.assertEqual(len(git_log(repo)), 2)
        p = self.layout.patches / 'toolchain/a.patch'
        p.write_text(p.read_text().replace('+hello', '+howdy'))
        self.prepare('vanilla')
        self.assertIn('howdy', (repo / 'mm/memory.c').read_text())
        self.assertEqual(len(git_log(repo)), 2)

    def test_stale_build_record(self):
        configs = self.layout.configs
        write(configs / 'up.config', 'CONFIG_X86=y\n')
        src = self.prepare('vanilla')
        obj = kbuild.obj_dir('vanilla', 'up', self.layout)
        self.assertEqual(kbuild.stale_reason('vanilla', 'up', self.layout), 'no build record')
        obj.mkdir(parents=True)
        state = json.loads((src / '.git/vmshm-prepare.json').read_text())
        (obj / 'vmshm-build.json').write_text(json.dumps({
            'patches': [[a['patch'], a['sha256']] for a in state['applied']],
            'local_changes': False,
            'config_sha256': file_sha256(configs / 'up.config')}))
        self.assertIsNone(kbuild.stale_reason('vanilla', 'up', self.layout))
        write(configs / 'up.config', 'CONFIG_X86=y\nCONFIG_SMP=y\n')
        self.assertIn('config changed', kbuild.stale_reason('vanilla', 'up', self.layout))
        write(configs / 'up.config', 'CONFIG_X86=y\n')
        p = self.layout.patches / 'toolchain/a.patch'
        p.write_text(p.read_text() + '\n')
        self.assertIn('no longer matches', kbuild.stale_reason('vanilla', 'up', self.layout))

    def test_patch_that_does_not_apply(self):
        p = self.layout.patches / 'mm/b.patch'
        p.write_text(p.read_text().replace(' line two', ' line three'))
        with self.assertRaisesRegex(Error, 'mm/b.patch does not apply'):
            self.prepare('patched')


if __name__ == '__main__':
    unittest.main()
