# SPDX-License-Identifier: GPL-2.0
"""vmshm.regen: patches/ written from the series branches."""

import shutil
import unittest

from support import GOOD_PATCH, Scratch, quiet, write

from vmshm import lint, regen, series, stack
from vmshm.tree import git

LINES = ''.join(f'l{i}\n' for i in range(1, 11))
AUTHOR = {'GIT_AUTHOR_NAME': 'A Hacker', 'GIT_AUTHOR_EMAIL': 'a@example.org'}


@unittest.skipUnless(shutil.which('git'), 'needs git')
class RegenTest(unittest.TestCase):
    def setUp(self):
        self.scratch = Scratch()
        self.layout = self.scratch.layout
        self.repo = self.scratch.root / 'k'
        self.repo.mkdir()
        git(self.repo, 'init', '-q', '-b', 'base')
        self.commit('a.c', LINES, 'base')
        base = git(self.repo, 'rev-parse', 'HEAD')
        git(self.repo, 'checkout', '-q', '-b', 's-one', base)
        self.commit('a.c', LINES.replace('l2\n', 'L2\n'), 'one: change two')
        git(self.repo, 'checkout', '-q', '-b', 's-two', base)
        # its context (l1-l3) is what s-one changes: the stack needs its own copy
        self.commit('a.c', LINES.replace('l4\n', 'L4\n'), 'two: change four')
        git(self.repo, 'checkout', '-q', '-b', 's-enterprise', 's-one')
        self.commit('doc.txt', 'all\n', 'doc: all of it')
        git(self.repo, 'checkout', '-q', '--detach', base)
        with quiet():
            stack.stack(self.repo, base, ['s-one', 's-two'], 's-enterprise')
        write(self.layout.patches / 'series', '#@series toolchain\ntoolchain/t.patch\n')
        write(self.layout.patches / 'toolchain/t.patch', GOOD_PATCH)
        write(self.layout.patches / 'old/gone.patch', GOOD_PATCH)
        write(self.layout.testdir / 'Makefile', 'all:\n')

    def tearDown(self):
        self.scratch.close()

    def commit(self, name, text, subject):
        write(self.repo / name, text)
        git(self.repo, 'add', name)
        git(self.repo, 'commit', '-q', '-m', subject, env=AUTHOR)

    def regen(self):
        with quiet() as out:
            regen.regen(self.repo, self.layout, groups=('one', 'two'))
        return out.getvalue()

    def test_layout(self):
        self.regen()
        p = self.layout.patches
        groups = series.groups(p)
        self.assertEqual([(g.name, g.kind) for g in groups],
                         [('toolchain', 'series'), ('one', 'series'), ('two', 'series'), ('enterprise', 'stack')])
        self.assertEqual([e.name for e in groups[1].entries], ['one/change-two.patch'])
        self.assertEqual([e.name for e in groups[2].entries], ['enterprise/stacked/change-four.patch'])
        self.assertEqual([e.name for e in groups[2].standalone], ['two/change-four.patch'])
        self.assertEqual([e.name for e in groups[3].entries], ['enterprise/all-of-it.patch'])
        self.assertFalse((p / 'old').exists())
        self.assertIn('Subject: [PATCH] two: change four', (p / 'two/change-four.patch').read_text())
        self.assertIn('\n l1\n l2\n', (p / 'two/change-four.patch').read_text())
        self.assertIn('\n l1\n L2\n', (p / 'enterprise/stacked/change-four.patch').read_text())
        self.assertEqual(lint.check_groups((p / 'series').read_text(), p), [])

    def test_rerun_keeps_names(self):
        self.regen()
        p = self.layout.patches
        (p / 'one/change-two.patch').rename(p / 'one/second-line.patch')
        (p / 'series').write_text((p / 'series').read_text().replace('change-two', 'second-line'))
        out = self.regen()
        self.assertNotIn('wrote', out)
        self.assertIn('one/second-line.patch\n', (p / 'series').read_text())

    def test_rerun_keeps_needs(self):
        self.regen()
        p = self.layout.patches
        (p / 'series').write_text((p / 'series').read_text().replace('#@series two', '#@series two\n#@needs one', 1))
        self.regen()
        self.assertEqual([g.needs for g in series.groups(p)], [(), (), ('one',), ()])
        self.assertEqual(lint.check_groups((p / 'series').read_text(), p), [])


if __name__ == '__main__':
    unittest.main()
