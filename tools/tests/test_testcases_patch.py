# SPDX-License-Identifier: GPL-2.0
"""vmshm.testcases_patch (tools/gen-testcases-patch): the generated patch."""

import os
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

from support import write

from vmshm import lint, testcases_patch


class GeneratedPatchTest(unittest.TestCase):
    """tools/gen-testcases-patch: patches/vm/vm-shm-testcases.patch from
    tools/testing/vm-shm/, and the drift check lint runs."""

    gen = testcases_patch

    def copy(self, d):
        src = Path(d, 'src')
        shutil.copytree(self.gen.SRCDIR, src)
        return src

    def test_committed_patch_is_current(self):
        self.assertEqual(self.gen.check(), [])

    def test_deterministic_and_drift(self):
        with tempfile.TemporaryDirectory() as d:
            src = self.copy(d)
            text = self.gen.render(src)
            self.assertEqual(text, self.gen.render(src))
            self.assertFalse('b/tools/testing/vm-shm/init.c' in text)
            write(f'{d}/patches/series', 'toolchain/a.patch\nvm/b.patch\n' + self.gen.ENTRY + '\n')
            write(f'{d}/patches/{self.gen.ENTRY}', text)
            self.assertEqual(self.gen.check(src, Path(d, 'patches')), [])
            with open(src / 'lib' / 'vmshm.h', 'a') as f:
                f.write('/* drift */\n')
            problems = self.gen.check(src, Path(d, 'patches'))
            self.assertTrue(any('out of date' in p for p in problems), problems)
            write(f'{d}/patches/series', self.gen.ENTRY + '\nvm/b.patch\n')
            problems = self.gen.check(src, Path(d, 'patches'))
            self.assertTrue(any('last entry' in p for p in problems), problems)

    def test_lint_accepts_it(self):
        with tempfile.TemporaryDirectory() as d:
            write(f'{d}/series', self.gen.ENTRY + '\n')
            write(f'{d}/{self.gen.ENTRY}', self.gen.render())
            self.assertEqual(lint.lint_series(d), ([], []))

    @unittest.skipUnless(shutil.which('git'), 'no git')
    def test_same_as_git_and_applies(self):
        # git apply gives back the sources byte for byte, and from "---" on
        # the patch is what git format-patch prints for them
        with tempfile.TemporaryDirectory() as d:
            text = self.gen.render()
            env = dict(os.environ, GIT_AUTHOR_NAME='t', GIT_AUTHOR_EMAIL='t@t', GIT_COMMITTER_NAME='t',
                       GIT_COMMITTER_EMAIL='t@t', GIT_CONFIG_GLOBAL='/dev/null', GIT_CONFIG_NOSYSTEM='1')
            run = lambda *a, **kw: subprocess.run(['git', '-C', d, *a], env=env, check=True,
                                                  capture_output=True, text=True, **kw)
            run('init', '-q')
            run('commit', '-q', '--allow-empty', '-m', 'base')
            run('apply', '--index', '-', input=text)
            for name in self.gen.source_files():
                self.assertEqual(Path(d, self.gen.TREE_DIR, name).read_bytes(),
                                 (self.gen.SRCDIR / name).read_bytes(), name)
            run('commit', '-q', '-m', 'testcases')
            git_text = run('format-patch', '-1', '--stdout', '--no-signature').stdout
            tail = lambda t: t[t.index('\n---\n'):]
            self.assertEqual(tail(text), tail(git_text))


if __name__ == '__main__':
    unittest.main()
