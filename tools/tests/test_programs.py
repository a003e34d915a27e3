# SPDX-License-Identifier: GPL-2.0
"""vmshm.programs: the one list of scenario programs, and which a run takes."""

import re
import tempfile
import unittest
from pathlib import Path

from support import REPO, write

from vmshm import programs
from vmshm.common import Error
from vmshm.programs import ON_REQUEST, PROGRAMS


class SelectProgramsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = Path(self.tmp.name)
        for name in PROGRAMS + ON_REQUEST + ['clean_hold']:
            write(self.d / name, '')

    def tearDown(self):
        self.tmp.cleanup()

    def select(self, scenarios, extra_ok):
        """What a run takes for --scenarios: the list and the programs."""
        req = programs.requested_scenarios(scenarios)
        return req, programs.check_programs(self.d, req, extra_ok)

    def test_full_run_leaves_limits_out(self):
        req, progs = self.select(None, False)
        self.assertEqual(req, PROGRAMS)
        self.assertEqual(list(progs), PROGRAMS)
        for name in ON_REQUEST:
            self.assertNotIn(name, progs)

    def test_on_request_when_named(self):
        for name in ON_REQUEST:
            req, progs = self.select(name, False)
            self.assertEqual(list(progs), [name])

    def test_all_in_a_list(self):
        req, progs = self.select('all,soak,integrity', False)
        self.assertEqual(req, PROGRAMS + ['soak'])
        self.assertEqual(list(progs), req)

    def test_unknown_and_measurement_aids(self):
        with self.assertRaises(Error):
            self.select('clean_hold', False)
        req, progs = self.select('shm_swap_storm,clean_hold', True)
        self.assertEqual(list(progs), ['shm_swap_storm', 'clean_hold'])
        with self.assertRaises(Error):
            self.select('nonesuch', True)

    def test_not_built(self):
        (self.d / 'integrity').unlink()
        with self.assertRaises(Error):
            self.select('integrity', False)


class OneListTest(unittest.TestCase):
    def test_makefile_builds_exactly_the_list(self):
        # the testcases' Makefile (in the kernel tree too) has its own PROGS
        text = (REPO / 'tools' / 'testing' / 'vm-shm' / 'Makefile').read_text()
        m = re.search(r'^PROGS :=((?:.*\\\n)*.*)$', text, re.M)
        progs = m.group(1).replace('\\', ' ').split()
        self.assertEqual(sorted(progs), sorted(PROGRAMS + ON_REQUEST))

    def test_no_other_list(self):
        # every module that needs the list imports it from vmshm.programs
        lib = REPO / 'tools' / 'lib' / 'python' / 'vmshm'
        for p in lib.glob('*.py'):
            if p.name != 'programs.py':
                self.assertNotIn("'pte_chain_capacity', 'shm_swap_storm'", p.read_text(), p.name)


if __name__ == '__main__':
    unittest.main()
