#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""vmshm.spread: grouping, medians, the ratio and rank-test columns."""
import json
import tempfile
import unittest
from pathlib import Path

import support  # noqa: F401  (puts the package on sys.path)

from vmshm import spread


def result(variant, v, icount=True):
    return {'variant': variant, 'config': 'up', 'cpus': 1, 'mem_mb': 256,
            'icount': icount,
            'programs': {'p': {'figures': {
                'p.rate': {'value': v, 'unit': 'per_s'},
                'p.name': {'value': 'x', 'unit': 'count'}}}}}


class SpreadTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        runs = [('vanilla', 10), ('vanilla', 30), ('vanilla', 20),
                ('patched', 22), ('patched', 18), ('patched', 24)]
        self.paths = []
        for i, (var, v) in enumerate(runs):
            d = self.dir / ('r%d' % i)
            d.mkdir()
            (d / 'result.json').write_text(json.dumps(result(var, v)))
            self.paths.append(str(d))

    def tearDown(self):
        self.tmp.cleanup()

    def test_groups_keep_conditions(self):
        g1 = spread.group_of(result('vanilla', 1))
        g2 = spread.group_of(result('vanilla', 1, icount=False))
        self.assertNotEqual(g1, g2)
        self.assertIn('icount', g1)
        r = result('vanilla', 1)
        r.update(args={'p': '-a 1'}, sysctls=['vm/x:0'], append='')
        g3 = spread.group_of(r)
        self.assertEqual(g3, g1 + ' vm/x:0 p=[-a 1]')

    def test_kernel_runs_are_named_by_their_build(self):
        r = result(None, 1)
        r.update(variant=None, config=None,
                 kernel_image='build/obj/nofa-up/arch/i386/boot/bzImage')
        self.assertTrue(spread.group_of(r).startswith('nofa-up c1'))
        # what the runner records: the image's name, and the path in the command
        r.update(kernel_image='bzImage', qemu_command='qemu-system-i386 -m 256 '
                 '-kernel build/obj/noka-up/arch/i386/boot/bzImage -append x')
        self.assertTrue(spread.group_of(r).startswith('noka-up c1'))
        # a copy in results/ keeps the build's name instead
        from vmshm import results
        saved = results.compact(r)
        self.assertEqual(saved['kernel_build'], 'noka-up')
        saved.update(variant=None, config=None, cpus=1, mem_mb=256)
        self.assertTrue(spread.group_of(saved).startswith('noka-up c1'))
        r.update(kernel_image='/boot/vmlinuz', qemu_command='')
        r['kernel_release'] = '6.1.0'
        self.assertTrue(spread.group_of(r).startswith('kernel-6.1.0 c1'))

    def test_median_min_max_and_ratio(self):
        runs = spread.load(self.paths)
        sp = spread.spread(runs, r'rate')
        self.assertEqual(sorted(sp['p.rate']['vanilla-up c1 m256 icount']),
                         [10, 20, 30])
        groups = ['vanilla-up c1 m256 icount', 'patched-up c1 m256 icount']
        out = spread.table(sp, groups).splitlines()
        self.assertEqual(out[0], '| figure | kernel | n | min | median | max '
                         '| median / vanilla-up c1 m256 icount '
                         '| p (rank test against vanilla-up c1 m256 icount) |')
        self.assertEqual(out[1], '|---|---|---|---|---|---|---|---|')
        self.assertEqual(out[2], '| p.rate | vanilla-up c1 m256 icount '
                         '| 3 | 10 | 20 | 30 | 1 |  |')
        # 18 22 24 against 10 20 30: ranks 2, 4, 5, as close to the mean
        # rank sum as a sum of three ranks can be
        self.assertEqual(out[3], '| p.rate | patched-up c1 m256 icount '
                         '| 3 | 18 | 22 | 24 | 1.1 | 1.000 |')

    def test_p_column_needs_three_runs(self):
        sp = {'f': {'a': [1, 2, 3, 4, 5], 'b': [6, 7, 8, 9, 10],
                    'c': [6, 7]}}
        out = spread.table(sp, ['a', 'b', 'c']).splitlines()
        self.assertEqual(out[2], '| f | a | 5 | 1 | 3 | 5 | 1 |  |')
        self.assertEqual(out[3], '| f | b | 5 | 6 | 8 | 10 | 2.667 | 0.008 |')
        self.assertEqual(out[4], '| f | c | 2 | 6 | 6.5 | 7 | 2.167 | - |')
        # a base with fewer than three runs: no p anywhere
        sp = {'f': {'a': [1, 2], 'b': [6, 7, 8]}}
        out = spread.table(sp, ['a', 'b']).splitlines()
        self.assertTrue(out[3].endswith('| - |'))

    def test_non_numbers_are_left_out(self):
        sp = spread.spread(spread.load(self.paths), '.')
        self.assertNotIn('p.name', sp)

    def test_report_puts_base_first(self):
        out = spread.report(list(reversed(self.paths)), 'rate', 'vanilla')
        self.assertIn('vanilla', out.splitlines()[2])

    def test_no_runs(self):
        self.assertIsNone(spread.report([str(self.dir / 'none')], '.', 'v'))


class RankTestTest(unittest.TestCase):
    def test_separated_five_against_five(self):
        # the smallest p five runs against five can give
        self.assertAlmostEqual(spread.rank_test([1, 2, 3, 4, 5],
                                                [6, 7, 8, 9, 10]), 2 / 252)
        self.assertAlmostEqual(spread.rank_test([6, 7, 8, 9, 10],
                                                [1, 2, 3, 4, 5]), 2 / 252)

    def test_three_against_three_never_below_0_1(self):
        self.assertAlmostEqual(spread.rank_test([1, 2, 3], [4, 5, 6]), 0.1)

    def test_identical_samples(self):
        self.assertEqual(spread.rank_test([1, 2, 3], [1, 2, 3]), 1.0)
        self.assertEqual(spread.rank_test([4, 4, 4], [4, 4, 4]), 1.0)

    def test_ties_get_midranks(self):
        # ranks 1, 3, 3, 5.5 against 3, 5.5, 7, 8: 14 of the 70 draws of
        # four ranks are as far from the mean rank sum (18) as 12.5
        self.assertAlmostEqual(spread.rank_test([1, 2, 2, 3], [2, 3, 4, 5]),
                               14 / 70)

    def test_too_large_or_empty(self):
        self.assertIsNotNone(spread.rank_test(range(10), range(10, 20)))
        self.assertIsNone(spread.rank_test(range(11), range(11, 21)))
        self.assertIsNone(spread.rank_test([], [1, 2, 3]))


if __name__ == '__main__':
    unittest.main(verbosity=1)
