# SPDX-License-Identifier: GPL-2.0
"""tools/deps: the Debian packages the project needs."""

import os
import subprocess
import tempfile
import unittest
from pathlib import Path

from support import REPO


class DepsTest(unittest.TestCase):
    """tools/deps -n against a stand-in dpkg-query."""
    DEPS = REPO / 'tools' / 'deps'

    def run_deps(self, absent):
        with tempfile.TemporaryDirectory() as d:
            fake = Path(d) / 'dpkg-query'
            fake.write_text('#!/bin/sh\n'
                            'for last; do :; done\n'
                            f'case "$last" in {absent}) exit 1 ;; esac\n'
                            "echo 'install ok installed'\n")
            fake.chmod(0o755)
            env = dict(os.environ, PATH=f'{d}:{os.environ["PATH"]}')
            return subprocess.run(['bash', str(self.DEPS), '-n'], env=env,
                                  capture_output=True, text=True)

    def test_all_installed(self):
        r = self.run_deps('nonesuch')
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn('packages installed', r.stdout)

    def test_missing_is_named(self):
        r = self.run_deps('musl-dev:i386|quilt')
        self.assertEqual(r.returncode, 1)
        self.assertIn('musl-dev:i386', r.stdout)
        self.assertIn('quilt', r.stdout)
        self.assertNotIn('qemu-system-x86', r.stdout)

    def test_ci_and_make_use_it(self):
        top = self.DEPS.parent.parent
        self.assertIn('tools/deps', (top / '.ci' / 'run').read_text())
        self.assertRegex((top / 'Makefile').read_text(), r'(?m)^deps:\n\ttools/deps$')
        readme = (top / 'README.md').read_text()
        # the README's two commands, each a line that starts with it
        self.assertRegex(readme, r'(?m)^    tools/deps && make LINUX=<[^>]*> vanilla patched ')
        self.assertRegex(readme, r'(?m)^    tools/deps && make test ')
        self.assertRegex((top / '.ci' / 'run').read_text(), r'(?m)^tools/deps\nmake test$')


if __name__ == '__main__':
    unittest.main()
