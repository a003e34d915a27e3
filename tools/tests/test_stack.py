# SPDX-License-Identifier: GPL-2.0
"""vmshm.stack: the enterprise branch restacked on the series branches."""

import shutil
import unittest

from support import Scratch, quiet, write

from vmshm import stack, testcases_patch
from vmshm.common import Error
from vmshm.tree import git


@unittest.skipUnless(shutil.which('git'), 'needs git')
class StackTest(unittest.TestCase):
    def setUp(self):
        self.scratch = Scratch()
        self.repo = self.scratch.root / 'k'
        self.repo.mkdir()
        git(self.repo, 'init', '-q', '-b', 'base')
        self.commit('a.c', 'a\n', 'base')
        self.base = git(self.repo, 'rev-parse', 'HEAD')
        self.branch('s-one', [('a.c', 'a\none\n', 'one: add one')])
        self.branch('s-two', [('b.c', 'two\n', 'two: add b'), ('b.c', 'two\n2\n', 'two: more b')])
        # the enterprise branch as an earlier revision left it: the series, then its tail
        git(self.repo, 'checkout', '-q', '-b', 's-enterprise', self.base)
        self.commit('a.c', 'a\nold one\n', 'one: add one')
        self.commit('doc.txt', 'the three\n', 'doc: all of it')
        self.commit('Makefile', 'EXTRAVERSION = -x1\n', 'Makefile: -x1')
        git(self.repo, 'checkout', '-q', '--detach', self.base)

    def tearDown(self):
        self.scratch.close()

    def commit(self, name, text, subject):
        write(self.repo / name, text)
        git(self.repo, 'add', name)
        git(self.repo, 'commit', '-q', '-m', subject,
            env={'GIT_AUTHOR_NAME': 'A Hacker', 'GIT_AUTHOR_EMAIL': 'a@example.org'})

    def branch(self, name, changes):
        git(self.repo, 'checkout', '-q', '-b', name, self.base)
        for change in changes:
            self.commit(*change)

    def subjects(self, branch):
        return git(self.repo, 'log', '--reverse', '--format=%s', f'{self.base}..{branch}').split('\n')

    def show(self, rev, path):
        return git(self.repo, 'show', f'{rev}:{path}')

    def assert_refused(self, why):
        """stack() refuses with @why and leaves s-enterprise where it was."""
        git(self.repo, 'checkout', '-q', '--detach', self.base)
        before = git(self.repo, 'rev-parse', 's-enterprise')
        with quiet(), self.assertRaisesRegex(Error, why):
            stack.stack(self.repo, self.base, ['s-one', 's-two'], 's-enterprise')
        self.assertEqual(git(self.repo, 'rev-parse', 's-enterprise'), before)

    def test_series_then_the_tail(self):
        with quiet():
            stack.stack(self.repo, self.base, ['s-one', 's-two'], 's-enterprise')
        self.assertEqual(self.subjects('s-enterprise'),
                         ['one: add one', 'two: add b', 'two: more b', 'doc: all of it', 'Makefile: -x1'])
        # the series' current content, not the old enterprise copy
        self.assertEqual(self.show('s-enterprise', 'a.c'), 'a\none')
        self.assertEqual(self.show('s-enterprise', 'Makefile'), 'EXTRAVERSION = -x1')

    def test_rerun_changes_nothing(self):
        with quiet():
            first = stack.stack(self.repo, self.base, ['s-one', 's-two'], 's-enterprise')[0]
            again = stack.stack(self.repo, self.base, ['s-one', 's-two'], 's-enterprise')[0]
        self.assertEqual(first, again)

    def test_a_dropped_patch_before_the_tail_is_refused(self):
        # s-two loses a patch that the enterprise branch still has before its tail
        git(self.repo, 'checkout', '-q', '-B', 's-enterprise', self.base)
        self.commit('b.c', 'two\n', 'two: add b')
        self.commit('c.c', 'dropped\n', 'two: dropped since')
        self.commit('b.c', 'two\n2\n', 'two: more b')
        self.commit('doc.txt', 'doc\n', 'doc: all of it')
        self.assert_refused('dropped since')

    def test_a_conflict_leaves_the_branch(self):
        git(self.repo, 'checkout', '-q', 's-two')
        self.commit('a.c', 'a\nother\n', 'two: touch a')
        self.assert_refused('does not apply')
        self.assertEqual(git(self.repo, 'worktree', 'list').count('\n'), 0)

    def test_testcases_from_the_generated_patch(self):
        # the tail's testcases commit is replaced by the patch it is generated as now
        git(self.repo, 'checkout', '-q', 's-enterprise')
        self.commit('t/x.c', 'old\n', testcases_patch.SUBJECT)
        git(self.repo, 'checkout', '-q', '--detach', self.base)
        self.commit('t/x.c', 'new\n', testcases_patch.SUBJECT)
        patch = self.scratch.root / 'testcases.patch'
        patch.write_text(git(self.repo, 'format-patch', '-1', '--stdout', 'HEAD') + '\n')
        git(self.repo, 'checkout', '-q', '--detach', self.base)
        with quiet():
            stack.stack(self.repo, self.base, ['s-one', 's-two'], 's-enterprise', testcases=patch)
        self.assertEqual(self.show('s-enterprise', 't/x.c'), 'new')
        self.assertEqual(self.subjects('s-enterprise')[-1], testcases_patch.SUBJECT)


if __name__ == '__main__':
    unittest.main()
