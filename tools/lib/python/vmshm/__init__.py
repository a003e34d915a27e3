# SPDX-License-Identifier: GPL-2.0
"""vmshm: prepare, build, boot and measure Linux 2.6.3 guests for vm-shm.

tools/vmshm is a thin launcher over this package (as the kernel's
tools/testing/kunit/kunit.py is over kunit_kernel.py, kunit_parser.py,
...); each module does one job and the command line lives in cli.py.
Standard library only.
"""
