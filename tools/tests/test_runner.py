# SPDX-License-Identifier: GPL-2.0
"""vmshm.runner: the hang/panic monitor, the boot loop against a fake QEMU
that hangs, ends or panics, and a whole run() with a fake QEMU on PATH."""

import io
import json
import os
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from support import CONSOLE_263, Scratch, fake_qemu, feed, kernel_header, quiet, write

from vmshm import results, runner
from vmshm.cli import build_parser
from vmshm.common import Error, file_sha256, find_tool
from vmshm.console import ConsoleParser
from vmshm.display import Display
from vmshm.programs import PROGRAMS
from vmshm.spec import RunSpec


class BootFlakeTest(unittest.TestCase):
    def test_boot_flake(self):
        flake = ('Linux version 2.6.3 (root@host)\n..MP-BIOS bug: 8254 timer not connected to IO-APIC\n'
                 "Kernel panic: IO-APIC + timer doesn't work! pester mingo@redhat.com\n")
        self.assertTrue(runner.boot_flake(feed(flake)))
        self.assertFalse(runner.boot_flake(feed(CONSOLE_263)))
        # the same panic after init ran is not a boot flake
        self.assertFalse(runner.boot_flake(feed(CONSOLE_263 + flake)))

class MonitorTest(unittest.TestCase):
    def test_hang(self):
        m = runner.Monitor(0, quiet=300, total=3600)
        m.output(100)
        self.assertIsNone(m.check(399))
        self.assertEqual(m.check(401), 'hang')

    def test_timeout(self):
        m = runner.Monitor(0, quiet=300, total=1000)
        for t in range(0, 1001, 100):
            m.output(t)
        self.assertEqual(m.check(1001), 'timeout')

    def test_panic_and_done(self):
        m = runner.Monitor(0, quiet=300, total=0)
        m.saw('panic', 10)
        m.output(15)
        self.assertIsNone(m.check(20))
        self.assertEqual(m.check(31), 'panic')
        m = runner.Monitor(0, quiet=0, total=0)
        m.saw('done', 5)
        self.assertEqual(m.check(70), 'no-reboot')


class BootTest(unittest.TestCase):
    """The run loop against a fake QEMU: results, not runner crashes."""

    def boot(self, cmd, quiet=5, total=60):
        with tempfile.TemporaryDirectory() as d:
            p = ConsoleParser()
            disp = Display(stream=io.StringIO(), tty=False)
            outcome = runner.boot(cmd, Path(d) / 'console.log', quiet, total, disp, p)
            return outcome, p, (Path(d) / 'console.log').read_text()

    def test_hang_is_reported(self):
        outcome, p, log = self.boot(fake_qemu(['KTAP version 1', '1..1', '# vmshm: start shm_swap_storm',
                                               '    # progress: filling']))
        self.assertEqual(outcome, 'hang')
        self.assertEqual(p.current, 'shm_swap_storm')
        rec = results.result_record(p, outcome, {}, ['shm_swap_storm'], 3)
        self.assertEqual(rec['verdict'], 'FAIL')
        self.assertIn('while running shm_swap_storm', rec['summary'])
        self.assertEqual(rec['last_lines'][-1], '    # progress: filling')
        self.assertIn('# progress: filling', log)

    def test_clean_end(self):
        outcome, p, _ = self.boot(fake_qemu(['KTAP version 1', '1..1', '# vmshm: start integrity',
                                             '# vmshm: end integrity exit=0 ms=5', 'ok 1 integrity',
                                             '# vmshm: done'], then='exit'))
        self.assertEqual(outcome, 'done')
        self.assertEqual(results.verdict(p, outcome, ['integrity'], 1)[0], 'PASS')

    def test_panic_ends_early(self):
        outcome, p, _ = self.boot(fake_qemu(['KTAP version 1', '# vmshm: start many_vmas',
                                             'Kernel panic: Attempted to kill init!'], then='exit'))
        self.assertEqual(outcome, 'panic')
        self.assertIn('kernel panic while running many_vmas',
                      results.verdict(p, outcome, ['many_vmas'], 1)[1])


GUEST = '''\
KTAP version 1
# vmshm: kernel Linux 2.6.3 #1 i686
1..1
# vmshm: start integrity
    KTAP version 1
    1..1
    # fig: integrity.regions 7 count
    ok 1 shm
# vmshm: end integrity exit=0 ms=50
ok 1 integrity
# vmshm: done
'''


def have(*tools):
    try:
        for t in tools:
            find_tool(t)
        return True
    except Error:
        return False


@unittest.skipUnless(have('mke2fs', 'debugfs', 'mkswap'), 'needs e2fsprogs and mkswap')
class RunTest(unittest.TestCase):
    """run() from a spec to result.json, with a stand-in init, programs
    and QEMU (a script on PATH): nothing is built or booted."""

    def setUp(self):
        self.scratch = Scratch()
        self.layout = self.scratch.layout
        d = self.scratch.root
        self.kernel = d / 'bzImage'
        self.kernel.write_bytes(kernel_header(0x0203, False, '2.6.3 (root@h) #1 Thu'))
        self.init = write(d / 'init', '#!/bin/sh\n')
        self.progs = d / 'progs'
        write(self.progs / 'integrity', 'not really a program\n')
        self.bin = d / 'bin'
        qemu = write(self.bin / 'qemu-system-i386',
                     f'#!{sys.executable}\nimport sys\n'
                     f'open({str(d / "argv")!r}, "w").write(" ".join(sys.argv[1:]))\n'
                     f'sys.stdout.write({GUEST!r})\n')
        qemu.chmod(0o755)

    def tearDown(self):
        self.scratch.close()

    def spec(self, *argv):
        args = build_parser().parse_args(['run', '--kernel', str(self.kernel), '--accel', 'tcg', '--progs',
                                          str(self.progs), '--scenarios', 'integrity', '--mem', '64', *argv])
        return RunSpec.from_args(args, self.layout)

    def run_spec(self, spec, **kw):
        with quiet() as out, mock.patch.dict(os.environ, PATH=f'{self.bin}:{os.environ["PATH"]}'):
            rc = runner.run(spec, self.layout, init=self.init, **kw)
        return rc, out.getvalue()

    def test_dry_run_prints_the_command(self):
        rc, out = self.run_spec(self.spec('--icount'), dry_run=True)
        self.assertEqual(rc, 0)
        root = next(self.layout.build.glob('guest/root-*.ext2'))
        self.assertEqual(out.split()[:12], ['qemu-system-i386', '-icount', 'shift=0,sleep=on', '-machine', 'pc',
                                            '-accel', 'tcg', '-m', '64', '-smp', '1', '-nodefaults'])
        self.assertIn(f'-initrd {root} -append ', out)
        self.assertIn(f'ramdisk_size={(root.stat().st_size + 1023) // 1024} vmshm.run=integrity', out)
        self.assertFalse(list(self.layout.build.glob('results/*')))    # nothing left behind

    def test_run_records_its_conditions(self):
        spec = self.spec('--sysctl', 'vm/vm_cache_scan_ratio:0', '--args', 'integrity=-q', '--swap', '32')
        rc, out = self.run_spec(spec)
        self.assertEqual(rc, 0, out)
        self.assertIn('PASS: 1/1 ok', out)
        path = next(self.layout.build.glob('results/*/result.json'))
        self.assertTrue(path.parent.name.startswith('kernel-2.6.3-vm_cache_scan_ratio_0-swap32-m64-c1-'))
        rec = json.loads(path.read_text())
        self.assertEqual(rec['label'], 'kernel-2.6.3-vm_cache_scan_ratio_0-swap32-m64-c1')
        self.assertEqual({k: rec[k] for k in results.CONDITIONS}, spec.conditions())
        self.assertEqual(rec['qemu_command'].split(' ', 1)[1], (self.scratch.root / 'argv').read_text())
        self.assertEqual(rec['programs']['integrity']['figures']['integrity.regions']['value'], 7)
        self.assertEqual(list(path.parent.glob('*.img')), [])          # disks removed
        self.assertFalse((self.layout.build / 'verified').exists())     # not a full run

    def test_full_run_is_verified(self):
        # a full run of a current --variant kernel gets its line in build/verified
        layout = self.layout
        write(layout.configs / 'up.config', 'CONFIG_X86=y\n')
        obj = layout.build / 'obj' / 'vanilla-up'
        write(obj / 'arch/i386/boot/bzImage', '').write_bytes(self.kernel.read_bytes())
        write(obj / 'vmshm-build.json', json.dumps({'patches': [], 'local_changes': False,
                                                     'config_sha256': file_sha256(layout.configs / 'up.config')}))
        for name in PROGRAMS:
            write(layout.build / 'vm-shm' / 'i386' / name, name)
        args = build_parser().parse_args(['run', '--variant', 'vanilla', '--config', 'up', '--accel', 'tcg'])
        rc, out = self.run_spec(RunSpec.from_args(args, layout))
        self.assertEqual(rc, 1, out)            # the stand-in guest ran one program of them all
        line = (layout.build / 'verified').read_text()
        n = len(PROGRAMS)
        self.assertRegex(line, r'^None \S+ vanilla-up-m256-c1 FAIL %d not finished; 1/%d ok, \d+ s\n$' % (n - 1, n))


if __name__ == '__main__':
    unittest.main()
