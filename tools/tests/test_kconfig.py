# SPDX-License-Identifier: GPL-2.0
"""vmshm.kconfig: configs/*.config against the fragments they are made of."""

import tempfile
import unittest
from pathlib import Path

from support import REPO, write

from vmshm import kconfig


class FragmentsTest(unittest.TestCase):
    def configs(self, up_config):
        d = Path(self.tmp.name)
        write(d / 'fragments/base.frag', '# base\nCONFIG_SWAP=y\n# CONFIG_EXT3_FS is not set\n')
        write(d / 'fragments/up.frag', '# CONFIG_SMP is not set\nCONFIG_NR_CPUS=8\n')
        write(d / 'up.config', up_config)
        return d

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def test_committed_configs_agree(self):
        self.assertEqual(kconfig.check_configs(REPO / 'configs'), [])

    def test_agree(self):
        d = self.configs('CONFIG_SWAP=y\nCONFIG_NR_CPUS=8\n# CONFIG_SMP is not set\n')
        self.assertEqual(kconfig.check_configs(d), [])

    def test_drift(self):
        # an absent option counts as "not set"; a changed value is named
        d = self.configs('CONFIG_SWAP=y\nCONFIG_NR_CPUS=4\nCONFIG_EXT3_FS=y\n')
        self.assertEqual(kconfig.check_configs(d),
                         ['configs/up.config: CONFIG_EXT3_FS=n requested, got y',
                          'configs/up.config: CONFIG_NR_CPUS=8 requested, got 4'])

    def test_config_without_fragment(self):
        d = self.configs('CONFIG_SWAP=y\n')
        write(d / 'odd.config', 'CONFIG_SWAP=y\n')
        self.assertIn('no odd.frag', ' '.join(kconfig.check_configs(d)))

    def test_apply(self):
        text = 'CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=m\n'
        self.assertEqual(kconfig.apply(text, {'CONFIG_A': 'n', 'CONFIG_B': 'y', 'CONFIG_D': '3', 'CONFIG_E': 'n'}),
                         '# CONFIG_A is not set\nCONFIG_B=y\nCONFIG_C=m\nCONFIG_D=3\n')


if __name__ == '__main__':
    unittest.main()
