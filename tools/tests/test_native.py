# SPDX-License-Identifier: GPL-2.0
"""vmshm.native (through the command line): the programs on this machine."""

import contextlib
import io
import tempfile
import unittest
from pathlib import Path

from support import REPO, quiet

from vmshm.cli import main
from vmshm.common import Layout


class NativeArgsTest(unittest.TestCase):
    def test_args_reach_the_program(self):
        with tempfile.TemporaryDirectory() as d:
            progs = Path(d) / 'progs'
            progs.mkdir()
            prog = progs / 'soak'
            prog.write_text(f'#!/bin/sh\necho "$*" > {d}/args\n'
                            'printf "KTAP version 1\\n1..1\\nok 1 ran\\n"\n')
            prog.chmod(0o755)
            layout = Layout(REPO, Path(d) / 'build')
            with contextlib.redirect_stderr(io.StringIO()) as err, quiet():
                rc = main(['native', '--progs', str(progs), '--scenarios', 'soak',
                           '--args', 'soak=-t 7 -W 2'], layout)
            self.assertEqual(rc, 0, err.getvalue())
            self.assertRegex((Path(d) / 'args').read_text(), r'^-m 64 -d \S+ -t 7 -W 2$')


if __name__ == '__main__':
    unittest.main()
