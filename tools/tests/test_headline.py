# SPDX-License-Identifier: GPL-2.0
"""vmshm.headline: the README's results table, from the runs in results/."""

import json
import tempfile
import unittest
from pathlib import Path

from support import REPO
from test_results import run

from vmshm import headline, lint, results
from vmshm.common import Error, Layout

ROW = headline.Row('rates', 'p.rate', 'config=up,mem=256', 'at least 1.2 x 2.6.3', 'ratio >= 1.2')


def patched(label, value, date, **kw):
    return run(label, value, date, variant='patched', kernel_release='2.6.3-vmshm1', **kw)


class HeadlineTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, *runs):
        for i, r in enumerate(runs):
            (self.dir / f'{i}.json').write_text(json.dumps(r))

    def test_judge(self):
        self.assertEqual(headline.judge('ratio >= 10', 987, 13847), 'met')
        self.assertEqual(headline.judge('ratio <= 1.1', 24.85, 28.63), 'missed')
        self.assertEqual(headline.judge('patched <= 0.1', 0.062, 0), 'met')
        self.assertEqual(headline.judge('patched < 1000', 1, 1000), 'missed')
        self.assertEqual(headline.judge('patched == PASS', 'PASS', 'PASS'), 'met')
        self.assertEqual(headline.judge('ratio >= 1', 0, 5), '')          # no ratio to 0
        self.assertEqual(headline.judge('', 1, 2), '')
        with self.assertRaises(Error):
            headline.judge('faster please', 1, 2)

    def test_pair_latest_series_median_and_plain(self):
        self.write(run('v', 10, 1, series_hash='11' * 32), run('v', 20, 2), run('v', 40, 3),
                   patched('p', 30, 2), patched('p', 50, 3),
                   run('vi', 1, 4, icount=True), patched('pi', 1000, 4, icount=True),   # not plain
                   patched('other', 7, 5, mem_mb=128, swap_mb=256, data_mb=512))        # no vanilla there
        t = headline.table(self.dir, rows=(ROW,)).split('\n')
        self.assertEqual(t[2], '| rates | rate (up-m256-c1) | at least 1.2 x 2.6.3: met | 30 (n=2) | 40 (n=2) | 1.33 |')
        src = headline.sources(self.dir, rows=(ROW,)).split('\n')[2]
        self.assertIn('`1.json`, `2.json` (series abababab)', src)
        self.assertNotIn('0.json', src)

    def test_a_newer_run_that_records_plain_conditions_replaces_an_older(self):
        old = [run('v', 10, 1), patched('p', 30, 1)]
        for r in old:                       # older results did not record these
            for k in ('sysctls', 'append', 'args', 'prog_timeout'):
                r[k] = None
        new = [run('v', 20, 2, sysctls=[], append='', args={}, prog_timeout=0),
               patched('p', 22, 2, sysctls=[], append='', args={}, prog_timeout=0)]
        self.write(*(old + new))
        t = headline.table(self.dir, rows=(ROW,)).split('\n')
        self.assertEqual(t[2], '| rates | rate (up-m256-c1) | at least 1.2 x 2.6.3: **missed** | 20 | 22 | 1.1 |')

    def test_icount_rows_and_misses(self):
        self.write(run('vi', 100, 1, icount=True), patched('pi', 100, 1, icount=True))
        row = headline.Row('rates', 'p.rate', 'icount', 'at least 1.2 x 2.6.3', 'ratio >= 1.2')
        self.assertIn('| rate (up-icount-m256-c1) | at least 1.2 x 2.6.3: **missed** | 100 | 100 | 1 |',
                      headline.table(self.dir, rows=(row,)))

    def test_open_or_empty_selectors_are_errors(self):
        self.write(run('a', 1, 1), patched('b', 2, 1), run('c', 1, 1, cpus=2), patched('d', 2, 1, cpus=2))
        with self.assertRaisesRegex(Error, '2 sets of conditions'):
            headline.table(self.dir, rows=(headline.Row('x', 'p.rate', 'mem=256', 'g'),))
        with self.assertRaisesRegex(Error, 'no runs of both kernels'):
            headline.table(self.dir, rows=(headline.Row('x', 'p.nonesuch', 'mem=256', 'g'),))

    def test_verdict_rows(self):
        self.write(run('a', 1, 1, config='debug'), patched('b', 1, 1, config='debug', verdict='FAIL'))
        row = headline.Row('integrity', 'verdict', 'config=debug', 'no BUG', 'patched == PASS')
        self.assertIn('| no BUG: **missed** | PASS | FAIL |  |', headline.table(self.dir, rows=(row,)))

    def test_readme_is_current(self):
        # what make lint checks: README.md's block is what results/ gives
        self.assertEqual(lint.check_headline(), [])
        layout = Layout(self.dir, self.dir / 'build')
        (self.dir / 'README.md').write_text('no table\n')
        self.assertIn('no generated results table', lint.check_headline(layout)[0])
        begin, end = results.markers('headline')
        layout.results.mkdir()
        for i, r in enumerate((run('a', 1, 1), patched('b', 2, 1))):
            (layout.results / f'{i}.json').write_text(json.dumps(r))
        (self.dir / 'README.md').write_text(f'{begin}\n| typed by hand |\n{end}\n')
        self.assertIn('run make readme-table', lint.check_headline(layout, (ROW,))[0])
        (self.dir / 'README.md').write_text(f'{begin}\n{headline.table(layout.results, (ROW,))}{end}\n')
        self.assertEqual(lint.check_headline(layout, (ROW,)), [])

    def test_first_screen(self):
        # the README's first screen: what, the two commands, the table
        head = (REPO / 'README.md').read_text().split('\n')[:52]
        text = '\n'.join(head)
        self.assertIn('tools/deps && make LINUX=', text)
        self.assertIn('tools/deps && make test', text)
        self.assertIn('| scenario | figure | goal | 2.6.3 | patched | ratio |', text)
        self.assertIn(results.markers('headline')[1], text)


if __name__ == '__main__':
    unittest.main()
