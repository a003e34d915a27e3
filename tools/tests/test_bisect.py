# SPDX-License-Identifier: GPL-2.0
"""vmshm.bisect: the steps it builds and boots, from the series reader."""

import shutil
import unittest

from support import Scratch, quiet, scratch_series, write

from vmshm import bisect, series, tree


@unittest.skipUnless(shutil.which('git'), 'needs git')
class StepsTest(unittest.TestCase):
    def setUp(self):
        self.scratch = Scratch()
        self.layout = self.scratch.layout
        self.base = scratch_series(self.scratch)

    def tearDown(self):
        self.scratch.close()

    def steps(self):
        with quiet():
            tree.prepare(self.base, 'patched', self.layout)
            work = bisect.checkout(self.layout)
        return [s for _, s in bisect.step_commits(work, series.toolchain_count(self.layout.patches))]

    def test_vanilla_point_then_each_vm_patch(self):
        # step 1 is the last toolchain patch (vanilla), then one step a VM patch
        self.assertEqual(self.steps(), ['mm: say hello', 'mm: say world'])

    def test_follows_the_series(self):
        # a second toolchain patch moves the vanilla point; the clone is
        # brought up to date with the prepared branch
        self.steps()
        text = (self.layout.patches / 'toolchain/a.patch').read_text()
        write(self.layout.patches / 'toolchain/c.patch',
              text.replace('say hello', 'say howdy').replace('+hello', '+howdy')
              .replace('@@ -1,2 +1,3 @@\n line one\n', '@@ -1,3 +1,4 @@\n line one\n hello\n'))
        write(self.layout.patches / 'series', 'toolchain/a.patch\ntoolchain/c.patch\nmm/b.patch\n')
        mm = self.layout.patches / 'mm/b.patch'
        mm.write_text(mm.read_text().replace('@@ -1,3 +1,4 @@\n line one\n hello\n+world\n',
                                             '@@ -2,3 +2,4 @@\n hello\n howdy\n+world\n'))
        self.assertEqual(self.steps(), ['mm: say howdy', 'mm: say world'])

    def test_a_series_alone(self):
        p = self.layout.patches
        (p / 'mm/b.patch').rename(p / 'one.patch')
        (p / 'mm').rmdir()
        (p / 'one').mkdir()
        (p / 'one.patch').rename(p / 'one/b.patch')
        write(p / 'series', '#@series toolchain\ntoolchain/a.patch\n#@series one\none/b.patch\n')
        with quiet():
            tree.prepare(self.base, 'one', self.layout)
            work = bisect.checkout(self.layout, 'one')
        self.assertEqual(work, self.layout.build / 'bisect' / 'one' / 'src')
        steps = [s for _, s in bisect.step_commits(work, series.toolchain_count(p))]
        self.assertEqual(steps, ['mm: say hello', 'mm: say world'])


if __name__ == '__main__':
    unittest.main()
