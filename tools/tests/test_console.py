# SPDX-License-Identifier: GPL-2.0
"""vmshm.console: the guest console parser, on canned 2.6.3 and modern logs
(and the verdicts vmshm.results draws from it)."""

import re
import unittest
from pathlib import Path

from support import CONSOLE_263, REPO, feed

from vmshm import console, native, results
from vmshm.common import Layout


class ParserTest(unittest.TestCase):
    def test_console(self):
        p = feed(CONSOLE_263)
        self.assertTrue(p.ktap and p.done)
        self.assertEqual(p.plan, 3)
        self.assertEqual(p.guest['figures']['guest.mem_kb'], {'value': 257136, 'unit': 'kB'})
        sr = p.programs['syscall_regs']
        self.assertEqual(sr['status'], 'fail')
        self.assertEqual(sr['exit'], 1)
        self.assertEqual(sr['ms'], 1100)
        self.assertEqual([s['status'] for s in sr['subtests']], ['ok', 'fail'])
        self.assertEqual(sr['subtests'][1]['name'], 'kill keeps edx')
        self.assertEqual(sr['totals'], {'pass': 1, 'fail': 1, 'xfail': 0, 'xpass': 0, 'skip': 0, 'error': 0})
        self.assertEqual(p.totals, {'pass': 1, 'fail': 1, 'xfail': 0, 'xpass': 0, 'skip': 1, 'error': 0})
        self.assertEqual(sr['figures']['syscall_regs.clobbered']['value'], 1)
        self.assertEqual(len(sr['vmstat']), 2)
        self.assertEqual(sr['vmstat'][1]['pswpout'], 1024)
        storm = p.programs['shm_swap_storm']
        self.assertEqual(storm['status'], 'ok')
        self.assertEqual(storm['progress'], 'phase 1 of 3')
        self.assertEqual(storm['figures']['shm_swap_storm.stall_max_ms'], {'value': 812.5, 'unit': 'ms'})
        self.assertEqual(p.programs['integrity']['status'], 'skip')
        self.assertEqual([(e['kind'], e['severity'], e['program']) for e in p.events],
                         [('oom', 'note', 'shm_swap_storm')])
        v, summary = results.verdict(p, 'done', ['syscall_regs', 'shm_swap_storm', 'integrity'], 61)
        self.assertEqual(v, 'FAIL')
        self.assertIn('not ok: syscall_regs', summary)
        self.assertIn('2/3 ok (1 skipped), 1 OOM kills, 61 s', summary)

    def test_pass(self):
        p = feed(CONSOLE_263.replace('not ok 1 syscall_regs', 'ok 1 syscall_regs'))
        v, summary = results.verdict(p, 'done', ['syscall_regs', 'shm_swap_storm', 'integrity'], 10)
        self.assertEqual((v, summary), ('PASS', '3/3 ok (1 skipped), 1 OOM kills, 10 s'))

    def test_program_output_is_not_init(self):
        # a program's own "ok 1 <name>" must not set the program's status
        p = feed('KTAP version 1\n# vmshm: start many_vmas\n    ok 1 many_vmas\n')
        self.assertEqual(p.programs['many_vmas']['status'], 'running')
        self.assertEqual(p.current, 'many_vmas')

    def test_oops_with_trace_is_one_event(self):
        log = ('KTAP version 1\n# vmshm: start many_vmas\n'
               'Unable to handle kernel NULL pointer dereference at virtual address 00000000\n'
               'Oops: 0000 [#1]\nEIP is at page_referenced+0x12/0x40\nCall Trace:\n'
               ' [<c0140000>] refill_inactive_zone+0x100/0x400\n')
        p = feed(log)
        self.assertEqual([e['kind'] for e in p.events], ['oops', 'oops'])
        self.assertTrue(all(e['program'] == 'many_vmas' for e in p.events))
        v, summary = results.verdict(p, 'exit', ['many_vmas', 'integrity', 'fork_exit_rate'], 5)
        self.assertEqual(v, 'FAIL')
        self.assertIn('guest ended early while running many_vmas', summary)
        self.assertIn('3 not finished', summary)
        self.assertIn('Unable to handle kernel NULL pointer', summary)
        self.assertIn('(in many_vmas)', summary)

    def test_lone_trace_and_badness(self):
        p = feed('Badness in kobject_get at lib/kobject.c:431\nCall Trace:\n' + 'x\n' * 70 +
                 'Debug: sleeping function called from invalid context\nCall Trace:\n')
        self.assertEqual([(e['kind'], e['severity']) for e in p.events],
                         [('warning', 'error'), ('trace', 'error')])

    def test_build_paths_are_dropped(self):
        layout = Layout(Path('/nonesuch/repo'), Path('/nonesuch/build'))
        src = layout.build / 'src' / 'vanilla'
        p = feed(f'# vmshm: start integrity\nkernel BUG at {src}/mm/slab.c:1696!\n'
                 f'kernel BUG at {src}/mm/slab.c:1696!\n', layout)
        self.assertEqual(p.events[0]['line'], 'kernel BUG at mm/slab.c:1696!')
        v, summary = results.verdict(p, 'done', ['integrity'], 5)
        self.assertIn('kernel BUG at mm/slab.c:1696! x2 (in integrity)', summary)

    def test_modern_kernel_lines(self):
        p = feed('[   12.345678] BUG: kernel NULL pointer dereference, address: 0000000000000000\n'
                 '[   12.345679] Call Trace:\n'
                 '[   13.000000] Out of memory: Killed process 77 (fork_exit_rate)\n'
                 '[   14.000000] Kernel panic - not syncing: Attempted to kill init!\n')
        self.assertEqual([(e['kind'], e['severity']) for e in p.events],
                         [('bug', 'error'), ('oom', 'note'), ('panic', 'fatal')])


KSELFTEST = re.compile(r'^# Totals: pass:\d+ fail:\d+ xfail:\d+ xpass:\d+ skip:\d+ error:\d+$')


class TotalsTest(unittest.TestCase):
    """One KTAP counts line, kselftest's, across vm-shm and objrmap."""

    def test_kselftest_form(self):
        self.assertEqual(console.parse_totals('# Totals: pass:9 fail:1 xfail:0 xpass:0 skip:2 error:0'),
                         {'pass': 9, 'fail': 1, 'xfail': 0, 'xpass': 0, 'skip': 2, 'error': 0})

    def test_short_form_of_the_programs(self):
        self.assertEqual(console.parse_totals('  # totals: pass:3 fail:0 skip:1'),
                         {'pass': 3, 'fail': 0, 'xfail': 0, 'xpass': 0, 'skip': 1, 'error': 0})

    def test_not_a_counts_line(self):
        for line in ('# Totals:', '# Totals: pass:1', '# Totals: pass:1 fail:x skip:0',
                     '# Totals: pass:1 fail:0 bogus:2', '# Totals: pass:1 pass:2 fail:0',
                     '# totals of the soak: pass:1 fail:0', 'ok 1 totals', '# fig: x.totals 3 count'):
            self.assertIsNone(console.parse_totals(line), line)

    def test_top_level_totals_are_the_runs(self):
        p = feed('KTAP version 1\n1..1\n# vmshm: start soak\n'
                 '    # Totals: pass:4 fail:0 xfail:0 xpass:0 skip:0 error:0\n'
                 '# vmshm: end soak exit=0 ms=5\nok 1 soak\n'
                 '# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0\n# vmshm: done\n')
        self.assertEqual(p.programs['soak']['totals']['pass'], 4)
        self.assertEqual(p.totals['pass'], 1)

    def printed(self, path, rx):
        """The counts line a source prints, its conversions filled in."""
        m = re.search(rx, (REPO / path).read_text())
        self.assertIsNotNone(m, f'{path}: no counts line')
        return re.sub(r'%d|\$\w+', '7', m.group(1))

    def test_every_runner_prints_the_same_form(self):
        lines = {
            'guest init': self.printed('tools/testing/vm-shm/init.c', r'out\("(# Totals:[^"]*)"'),
            'objrmap run.sh': self.printed('tools/testing/objrmap/run.sh', r'echo "(# Totals:[^"]*)"'),
            'objrmap ktap.c': self.printed('tools/testing/objrmap/lib/ktap.c', r'printf\("(# Totals:[^"]*)\\n"'),
            'native': native.totals_line(['ok', 'skip', 'fail', 'not run']),
        }
        for who, line in lines.items():
            self.assertRegex(line, KSELFTEST, who)
            self.assertIsNotNone(console.parse_totals(line), who)
        self.assertEqual(console.parse_totals(lines['native']),
                         {'pass': 1, 'fail': 2, 'xfail': 0, 'xpass': 0, 'skip': 1, 'error': 0})

    def test_the_programs_line_is_read(self):
        # the scenario programs' own line (tools/testing/vm-shm/lib/vmshm.c,
        # carried by the series' testcases patch): kselftest's form too
        line = self.printed('tools/testing/vm-shm/lib/vmshm.c', r'printf\("(# [Tt]otals:[^"]*)\\n"')
        self.assertIsNotNone(console.parse_totals(line), line)
        self.assertRegex(line, KSELFTEST)


if __name__ == '__main__':
    unittest.main()
