# SPDX-License-Identifier: GPL-2.0
"""vmshm.lint: the series and the patches it lists."""

import tempfile
import unittest

from support import GOOD_PATCH, write

from vmshm import lint


class LintTest(unittest.TestCase):
    def lint(self, series, patches):
        with tempfile.TemporaryDirectory() as d:
            write(f'{d}/series', series)
            for name, text in patches.items():
                write(f'{d}/{name}', text)
            return lint.lint_series(d)

    def test_good(self):
        errors, warnings = self.lint('toolchain/a.patch\n', {'toolchain/a.patch': GOOD_PATCH})
        self.assertEqual(errors, [])
        self.assertEqual(warnings, [])

    def test_missing_and_unlisted(self):
        errors, warnings = self.lint('toolchain/a.patch\n', {'toolchain/b.patch': GOOD_PATCH})
        self.assertIn('missing', errors[0])
        self.assertIn('not listed', warnings[0])

    def test_no_subject(self):
        errors, _ = self.lint('a.patch\n', {'a.patch': GOOD_PATCH.replace('Subject:', 'X-Subject:')})
        self.assertTrue(any('Subject' in e for e in errors), errors)

    def test_no_changelog(self):
        text = GOOD_PATCH.replace('The greeting was missing; this adds it.  It is the smallest change\n'
                                  'that makes the test pass.\n', '')
        errors, _ = self.lint('a.patch\n', {'a.patch': text})
        self.assertTrue(any('changelog' in e for e in errors), errors)

    def test_bad_hunk(self):
        errors, _ = self.lint('a.patch\n', {'a.patch': GOOD_PATCH.replace('@@ -1,2 +1,3 @@', '@@ -1,2 +1,4 @@')})
        self.assertTrue(any('hunk' in e for e in errors), errors)

    def test_p0_paths(self):
        text = GOOD_PATCH.replace('--- a/mm/memory.c', '--- mm/memory.c')
        errors, _ = self.lint('a.patch\n', {'a.patch': text})
        self.assertTrue(any('-p1' in e for e in errors), errors)

    def test_order_and_newline(self):
        errors, _ = self.lint('mm/b.patch\ntoolchain/a.patch',
                              {'toolchain/a.patch': GOOD_PATCH, 'mm/b.patch': GOOD_PATCH})
        self.assertTrue(any('no newline' in e for e in errors), errors)
        self.assertTrue(any('prefix' in e for e in errors), errors)


    GROUPS = ('#@series toolchain\ntoolchain/a.patch\n#@series one\n#@alone one/b.patch\n'
              'ent/stacked/b.patch\n#@stack ent\nent/c.patch\n')

    def test_groups(self):
        # a stacked copy whose context differs from its #@alone copy is fine
        stacked = GOOD_PATCH.replace('@@ -1,2 +1,3 @@\n line one\n', '@@ -5,2 +5,3 @@\n line zero\n')
        files = {'toolchain/a.patch': GOOD_PATCH, 'one/b.patch': GOOD_PATCH,
                 'ent/stacked/b.patch': stacked, 'ent/c.patch': GOOD_PATCH}
        self.assertEqual(self.lint(self.GROUPS, files), ([], []))
        # a different change is not
        files['ent/stacked/b.patch'] = stacked.replace('+hello', '+hullo')
        errors, _ = self.lint(self.GROUPS, files)
        self.assertTrue(any('not the same change' in e for e in errors), errors)

    def test_group_places(self):
        files = {'toolchain/a.patch': GOOD_PATCH, 'one/b.patch': GOOD_PATCH, 'two/c.patch': GOOD_PATCH}
        errors, _ = self.lint('toolchain/a.patch\n#@series one\none/b.patch\ntwo/c.patch\n'
                              '#@series one\n', files)
        self.assertTrue(any('toolchain/a.patch: before the first' in e for e in errors), errors)
        self.assertTrue(any('two/c.patch: in group one, but not under one/' in e for e in errors), errors)
        self.assertTrue(any('group one twice' in e for e in errors), errors)


if __name__ == '__main__':
    unittest.main()
