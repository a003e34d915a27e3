#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""vmshm.profile: the console's "# prof:" lines, System.map, the table."""
import json
import tempfile
import unittest
from pathlib import Path

import support  # noqa: F401  (puts the package on sys.path)

from vmshm import profile
from vmshm.common import Layout

# as in a real map, _stext lies past startup_32; a weak alias shares an
# address with its function; text ends at _etext (0x500 / 4 = 320 buckets)
SMAP = """c00ff000 T _text
c00ff000 T startup_32
c0100000 T _stext
c0100000 T init
c0100100 t do_fork
c0100100 W a_weak_alias
c0100200 T copy_page_range
c0100300 d some_data
c0100400 T zap_pte_range
c0100500 T _etext
"""

CONSOLE = """[ boot noise ]
# prof: fork_exit_rate step=4 buckets=320
# prof: fork_exit_rate 64:3 65:1 128:10
# prof: fork_exit_rate 256:6 319:5
# prof: fork_exit_rate 257:1 25
# prof: fork_exit_rate end buckets=320
# prof: other step=4 buckets=512
# prof: other 0:2
    # fig: fork_exit_rate.exit_per_s 66.6 per_s
"""


class ProfileTest(unittest.TestCase):
    def test_read_console(self):
        p = profile.read_console(CONSOLE)
        self.assertEqual(sorted(p), ['fork_exit_rate', 'other'])
        f = p['fork_exit_rate']
        self.assertEqual((f.step, f.buckets), (4, 320))
        self.assertEqual(f.hist, {64: 3, 65: 1, 128: 10, 256: 6, 319: 5})
        self.assertEqual(f.bad, 1)          # the line cut short
        self.assertEqual(p['other'].hist, {0: 2})

    def test_read_console_ignores_data_before_header(self):
        self.assertEqual(profile.read_console('# prof: x 1:2\n'), {})

    def test_system_map_text_only_and_aliases(self):
        stext, etext, syms = profile.read_system_map(SMAP)
        self.assertEqual((stext, etext), (0xc0100000, 0xc0100500))
        names = dict(syms)
        self.assertNotIn('some_data', names.values())
        self.assertEqual(names[0xc0100100], 'do_fork')    # T/t before W
        self.assertEqual(names[0xc0100000], 'init')       # not _stext
        with self.assertRaises(ValueError):
            profile.read_system_map('c0100000 T foo\n')

    def test_by_function_and_the_clamp_bucket(self):
        stext, etext, syms = profile.read_system_map(SMAP)
        prof = profile.read_console(CONSOLE)['fork_exit_rate']
        profile.check(prof, stext, etext)
        f = profile.by_function(prof, stext, syms)
        # bucket 64 * 4 = 0x100: do_fork; 128 * 4 = 0x200: copy_page_range;
        # 256 * 4 = 0x400: zap_pte_range; 319, the last: outside the text
        self.assertEqual(f, {'do_fork': 4, 'copy_page_range': 10,
                             'zap_pte_range': 6, profile.OUTSIDE: 5})

    def test_check_refuses_another_kernel(self):
        stext, etext, _ = profile.read_system_map(SMAP)
        prof = profile.read_console(CONSOLE)['other']     # 512 buckets
        with self.assertRaises(ValueError):
            profile.check(prof, stext, etext)

    def test_table_two_columns(self):
        t = profile.table([('a', {'x': 90, 'y': 10}), ('b', {'x': 50, 'z': 50})], 'p', 2)
        lines = t.splitlines()
        self.assertIn('100', lines[1])
        # x has the largest share in a run (90 %), z next (50 %); y is cut
        self.assertTrue(lines[2].startswith('x'))
        self.assertTrue(lines[3].startswith('z'))
        self.assertEqual(len(lines), 4)

    def test_report_and_system_map_of(self):
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            layout = Layout(tmp, tmp / 'build')
            obj = tmp / 'build' / 'obj' / 'nofa-up'
            (obj / 'arch' / 'i386' / 'boot').mkdir(parents=True)
            (obj / 'System.map').write_text(SMAP)
            run = tmp / 'build' / 'results' / 'r1'
            run.mkdir(parents=True)
            (run / 'console.log').write_text(CONSOLE)
            (run / 'result.json').write_text(json.dumps({
                'qemu_command': 'qemu-system-i386 -m 256 -kernel '
                                'build/obj/nofa-up/arch/i386/boot/bzImage -append x'}))
            self.assertEqual(profile.system_map_of(run, layout), obj / 'System.map')
            t = profile.report([run], 'fork_exit_rate', 10, layout)
            self.assertIn('copy_page_range', t)
            self.assertIn('40.00%', t)          # 10 of 25 ticks
            self.assertIn('did not parse', t)
            (run / 'result.json').write_text(json.dumps({'variant': 'patched', 'config': 'up'}))
            self.assertEqual(profile.system_map_of(run, layout),
                             tmp / 'build' / 'obj' / 'patched-up' / 'System.map')
            with self.assertRaises(ValueError):
                profile.report([run], 'absent', 10, layout)


if __name__ == '__main__':
    unittest.main()
