# SPDX-License-Identifier: GPL-2.0
"""vmshm.results: result records, their compact copies, table and compare,
and the committed results/ read with every condition."""

import json
import tempfile
import unittest
from pathlib import Path

from support import CONSOLE_263, REPO, feed

from vmshm import results
from vmshm.common import Error, Layout
from vmshm.spec import RunSpec


class ResultsTest(unittest.TestCase):
    def test_compact_and_table(self):
        p = feed(CONSOLE_263)
        rec = results.result_record(p, 'done', {'label': 'by-hand', 'date': '2026-12-03T12:00:00+00:00',
                                                'series_hash': 'ab' * 32, 'kernel_release': '2.6.3',
                                                'variant': 'vanilla', 'config': 'up', 'mem_mb': 256, 'cpus': 1},
                                    ['syscall_regs', 'shm_swap_storm', 'integrity'], 61)
        c = results.compact(rec)
        self.assertNotIn('vmstat', c['programs']['syscall_regs'])
        self.assertEqual(c['programs']['syscall_regs']['vmstat_totals']['pswpout'], 1024)
        with tempfile.TemporaryDirectory() as d:
            Path(d, 'a.json').write_text(json.dumps(c))
            t = results.table(d)
            self.assertIn('| vanilla-up-m256-c1 | 1 | 2026-12-03 | 2.6.3 | abababababab | FAIL |', t)
            self.assertIn('| shm_swap_storm.stall_max_ms | ms | 812.5 |', t)
            self.assertNotIn('by-hand', t)
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
        files = {p.name: results.load_result(p)['icount'] for p in (REPO / 'results').glob('*.json')}
        labelled = {n for n in files if '-icount-' in n}
        self.assertGreaterEqual(len(labelled), 6)
        self.assertTrue(all(files[n] for n in labelled), labelled)

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


def run(label, value, date, **conditions):
    """A compact run: one figure, and the conditions given over a plain
    vanilla up run at 256 MB of series ab..."""
    rec = {'label': label, 'date': f'2026-12-0{date}T00:00:00+00:00', 'verdict': 'PASS', 'summary': 's',
           'variant': 'vanilla', 'config': 'up', 'kernel_release': '2.6.3', 'guest_kind': 'legacy',
           'qemu': 'qemu-system-i386', 'accel': 'tcg', 'icount': False, 'mem_mb': 256, 'cpus': 1,
           'swap_mb': 512, 'data_mb': 768, 'sysctls': [], 'append': '', 'args': {}, 'prog_timeout': 0,
           'series_hash': 'ab' * 32,
           'programs': {'p': {'status': 'ok', 'figures': {'p.rate': {'value': value, 'unit': 'per_s'}}}}}
    rec.update(conditions)
    return rec


class GroupTest(unittest.TestCase):
    """table and compare group and name runs by series and conditions,
    whatever label a run was given."""

    def write(self, d, *runs):
        for i, r in enumerate(runs):
            Path(d, f'{i}.json').write_text(json.dumps(r))

    def test_groups_ignore_labels_and_keep_conditions(self):
        runs = [run('a', 10, 1), run('typed-by-hand', 30, 2), run('b', 20, 3),
                run('a', 99, 4, icount=True), run('a', 50, 5, series_hash='cd' * 32),
                run('a', 7, 6, variant='patched', kernel_release='2.6.3-vmshm1')]
        groups = results.group_runs([results.with_defaults(r) for r in runs])
        self.assertEqual([[r['summary'] and r['programs']['p']['figures']['p.rate']['value'] for r in g]
                          for g in groups], [[10, 30, 20], [50], [7], [99]])
        self.assertEqual([results.group_name(g[0]) for g in groups],
                         ['vanilla-up-m256-c1 abababab', 'vanilla-up-m256-c1 cdcdcdcd',
                          'patched-up-m256-c1 abababab', 'vanilla-up-icount-m256-c1 abababab'])
        with tempfile.TemporaryDirectory() as d:
            self.write(d, *runs)
            t = results.table(d, match='rate')
        self.assertIn('| vanilla-up-m256-c1 | 3 | 2026-12-03 | 2.6.3 | abababababab | PASS x3 | latest: s |', t)
        self.assertIn('| p.rate | per_s | 20 | 50 | 7 | 99 |', t)        # the median of a group
        self.assertNotIn('typed-by-hand', t)

    def test_names_of_the_conditions(self):
        r = run('x', 1, 1, sysctls=['vm/vm_cache_scan_ratio:0'], append='quiet', args={'soak': '-t 5'},
                swap_fault='write', swap_mb=32, data_mb=64, accel='kvm', prog_timeout=30, scale_mb=64)
        self.assertEqual(results.group_name(r, series=False),
                         'vanilla-up-scale64-vm_cache_scan_ratio_0-quiet-swapfault-write-swap32-data64-'
                         'soak_t_5-kvm-timeout30-m256-c1')
        old = results.with_defaults({'variant': 'patched', 'config': 'smp', 'mem_mb': 256, 'cpus': 2})
        self.assertEqual(results.group_name(old), 'patched-smp-m256-c2')     # nothing recorded, no words
        debian = run('debian', 1, 1, variant=None, config=None, kernel_release='6.1.0-57-amd64',
                     guest_kind='modern', qemu='qemu-system-x86_64')
        self.assertEqual(results.group_name(debian, series=False), 'kernel-6.1.0-57-amd64-m256-c1')

    def test_names_agree_with_the_run_labels(self):
        base = dict(kernel=Path('bzImage'), release='2.6.3', kind='legacy', variant='vanilla', config='up',
                    swap_mb=512, data_mb=768)
        for kw in ({}, {'icount': True, 'mem': 128, 'swap_mb': 256, 'data_mb': 512},
                   {'sysctls': ('vm/vm_cache_scan_ratio:0',), 'append': 'quiet', 'swap_fault': 'write',
                    'swap_mb': 32, 'data_mb': 64},
                   {'force_x86_64': True}, {'mem': 8192, 'swap_mb': 16384, 'data_mb': 16640},
                   {'variant': 'patched', 'config': 'smp', 'cpus': 2},
                   {'variant': None, 'config': None, 'release': '6.1.0-57-amd64'}):
            spec = RunSpec(**{**base, **kw})
            self.assertEqual(results.group_name(spec.conditions()), spec.name, kw)

    def test_selectors(self):
        sel = results.parse_selector('variant=patched,config=up,mem=256,icount,series=abab')
        self.assertEqual(sel, {'variant': 'patched', 'config': 'up', 'mem_mb': 256, 'icount': True,
                               'series_hash': 'abab'})
        for bad in ('nonesuch=1', 'mem=lots'):
            with self.assertRaises(Error):
                results.parse_selector(bad)
        plain = results.with_defaults(run('a', 1, 1))
        self.assertTrue(results.matches(plain, results.parse_selector('variant=vanilla,mem=256')))
        self.assertTrue(results.matches(plain, results.parse_selector('series=abab')))
        self.assertFalse(results.matches(plain, results.parse_selector('series=cd')))
        self.assertFalse(results.matches(plain, results.parse_selector('icount')))
        # a condition the selector does not name must be plain
        for cond in ({'icount': True}, {'sysctls': ['vm/x:0']}, {'args': {'soak': '-t 5'}}, {'append': 'quiet'}):
            r = results.with_defaults(run('a', 1, 1, **cond))
            self.assertFalse(results.matches(r, results.parse_selector('variant=vanilla')), cond)
        self.assertTrue(results.matches(results.with_defaults(run('a', 1, 1, sysctls=['vm/x:0'])),
                                        results.parse_selector('sysctls=vm/x:0')))
        self.assertTrue(results.matches(results.with_defaults({'variant': 'vanilla'}),
                                        results.parse_selector('variant=vanilla')))   # not recorded: plain

    def test_select_and_counterpart(self):
        with tempfile.TemporaryDirectory() as d:
            layout = Layout(Path(d), Path(d) / 'build')
            (layout.results / 'issue').mkdir(parents=True)
            self.write(layout.results, run('a', 1, 1), run('a', 2, 3, icount=True),
                       run('p', 3, 2, variant='patched'), run('p', 4, 4, variant='patched', icount=True))
            self.write(layout.results / 'issue', run('a', 5, 5, cpus=2))
            got = results.load_result('variant=vanilla', layout)
            self.assertEqual(got['programs']['p']['figures']['p.rate']['value'], 5)
            got = results.load_result('variant=vanilla,cpus=1', layout)
            self.assertEqual(got['programs']['p']['figures']['p.rate']['value'], 1)
            runs = results.find_runs(layout)
            other = results.counterpart(results.select('variant=vanilla,icount', layout), runs)
            self.assertEqual(other['programs']['p']['figures']['p.rate']['value'], 4)
            self.assertIsNone(results.counterpart(got | {'mem_mb': 64}, runs))
            with self.assertRaises(Error):
                results.select('variant=vanilla,mem=64', layout)


if __name__ == '__main__':
    unittest.main()
