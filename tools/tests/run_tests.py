#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Every unit test of tools/lib/python/vmshm (tools/tests/test_*.py, one
file a module) and the last line make test counts on:
"unit: N passed, N failed, N skipped".

usage: python3 tools/tests/run_tests.py [-q]   (also: make unit)
"""

import sys
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv):
    sys.path.insert(0, str(HERE))       # support.py, as the test files import it
    suite = unittest.defaultTestLoader.discover(str(HERE), pattern='test_*.py', top_level_dir=str(HERE))
    res = unittest.TextTestRunner(verbosity=1 if '-q' in argv else 2).run(suite)
    failed = len(res.failures) + len(res.errors) + len(res.unexpectedSuccesses)
    skipped = len(res.skipped)
    print(f'unit: {res.testsRun - failed - skipped} passed, {failed} failed, {skipped} skipped')
    return 1 if failed or not res.testsRun else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
