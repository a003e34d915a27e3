# SPDX-License-Identifier: GPL-2.0
"""vmshm.results: result records, their compact copies, table and compare,
and the committed results/ read with every condition."""

import json
import tempfile
import unittest
from pathlib import Path

from support import CONSOLE_263, REPO, feed

from vmshm import results


class ResultsTest(unittest.TestCase):
    def test_compact_and_table(self):
        p = feed(CONSOLE_263)
        rec = results.result_record(p, 'done', {'label': 'vanilla-up-m256-c1', 'date': '2026-12-03T12:00:00+00:00',
                                                'series_hash': 'ab' * 32, 'kernel_release': '2.6.3'},
                                    ['syscall_regs', 'shm_swap_storm', 'integrity'], 61)
        c = results.compact(rec)
        self.assertNotIn('vmstat', c['programs']['syscall_regs'])
        self.assertEqual(c['programs']['syscall_regs']['vmstat_totals']['pswpout'], 1024)
        with tempfile.TemporaryDirectory() as d:
            Path(d, 'a.json').write_text(json.dumps(c))
            t = results.table(d)
            self.assertIn('| vanilla-up-m256-c1 | 2026-12-03 | 2.6.3 | abababababab | FAIL |', t)
            self.assertIn('| shm_swap_storm.stall_max_ms | ms | 812.5 |', t)
        rows = dict((r[0], r) for r in results.compare_rows(rec, rec))
        self.assertEqual(rows['shm_swap_storm.stall_max_ms'][3], '1')

    def test_committed_results_read_with_defaults(self):
        # files written before the conditions were recorded: every
        # condition is there, None where it was not recorded
        for p in sorted((REPO / 'results').rglob('*.json')):
            rec = results.load_result(p)
            self.assertTrue(set(results.CONDITIONS) <= set(rec), p.name)
        old = results.load_result(REPO / 'results' / 'campaign' / 'limits-vanilla-up-m256-c1-20261205T003838.json')
        self.assertIsNone(old['icount'])
        self.assertEqual(old['qemu'], 'qemu-system-i386')
        # results/ itself: icount written in afterwards (save had dropped it)
        icount = {p.name for p in (REPO / 'results').glob('*.json') if results.load_result(p)['icount']}
        self.assertEqual(len(icount), 6, icount)
        self.assertTrue(all('-icount-' in n for n in icount))

    def test_differing_conditions(self):
        a = results.with_defaults({'mem_mb': 256, 'icount': True, 'sysctls': None, 'variant': 'vanilla'})
        b = results.with_defaults({'mem_mb': 256, 'icount': False, 'sysctls': ['vm/x:1'], 'variant': 'patched'})
        self.assertEqual(results.differing_conditions(a, b), [('icount', True, False)])

    def test_compact_keeps_the_conditions(self):
        rec = results.result_record(feed(CONSOLE_263), 'done', {'label': 'x', 'icount': True, 'sysctls': ['vm/a:1'],
                                                                'append': 'quiet', 'args': {'soak': '-t 5'}},
                                    ['syscall_regs'], 1)
        c = results.compact(rec)
        self.assertEqual((c['icount'], c['sysctls'], c['append'], c['args']),
                         (True, ['vm/a:1'], 'quiet', {'soak': '-t 5'}))

    def test_update_doc(self):
        doc = f'intro\n{results.TABLE_BEGIN}\nold\n{results.TABLE_END}\nafter\n'
        self.assertEqual(results.update_doc(doc, 'new\n'),
                         f'intro\n{results.TABLE_BEGIN}\nnew\n{results.TABLE_END}\nafter\n')
        self.assertEqual(results.update_doc('intro\n', 't\n'),
                         f'intro\n\n{results.TABLE_BEGIN}\nt\n{results.TABLE_END}\n')


if __name__ == '__main__':
    unittest.main()
