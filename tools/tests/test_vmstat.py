# SPDX-License-Identifier: GPL-2.0
"""vmshm.vmstat: rates and totals from the guest's samples, and classic
vmstat(8) text."""

import unittest

from support import CONSOLE_263, feed

from vmshm import vmstat


class VmstatTest(unittest.TestCase):
    def test_rates_and_totals(self):
        p = feed(CONSOLE_263)
        r = vmstat.rates(p.programs['syscall_regs']['vmstat'])
        self.assertAlmostEqual(r[1]['swapout_kbs'], 4096.0)
        self.assertAlmostEqual(r[1]['blockin_kbs'], 2048.0)
        self.assertAlmostEqual(r[1]['swap_mb'], 4.0)
        t = vmstat.vmstat_totals(p.programs['syscall_regs']['vmstat'])
        self.assertEqual(t['pswpout'], 1024)
        self.assertEqual(t['min_free_kb'], 190000)

    def test_vmstat_sample_cut_by_a_kernel_message(self):
        text = CONSOLE_263.replace(
            'swap_used_kb=4096 cached_kb=100 pswpin=2',
            'swap_used_kb=4096hda: task_mulout_intr: status=0x41 { DriveReady Error }\n'
            'hda: task_mulout_intr: error=0x04 { DriveStatusError }\n cached_kb=100 pswpin=2')
        p = feed(text)
        r = vmstat.rates(p.programs['syscall_regs']['vmstat'])
        self.assertAlmostEqual(r[1]['swap_mb'], 0.0)    # the cut field is lost, not misread
        self.assertNotIn('pswpout', p.programs['syscall_regs']['vmstat'][1])
        vmstat.vmstat_totals(p.programs['syscall_regs']['vmstat'])

    def test_classic_vmstat_text(self):
        text = ('procs -----------memory---------- ---swap-- -----io----\n'
                ' r  b   swpd   free   buff  cache   si   so    bi    bo   in    cs us sy id wa\n'
                '33  1  35156 507544  80232 13523880    0  116     0   772  223 53603 24 76  0  0\n'
                '29  3  78944 505116  72184 13342024    0  124     8  2092  153 52579 27 73  0  0\n')
        s = vmstat.parse_vmstat_text(text)
        self.assertEqual(len(s), 2)
        r = vmstat.rates(s)
        self.assertAlmostEqual(r[1]['swapout_kbs'], 124.0)
        self.assertAlmostEqual(r[1]['blockin_kbs'], 8.0)
        self.assertEqual(s[1]['swap_used_kb'], 78944)


if __name__ == '__main__':
    unittest.main()
