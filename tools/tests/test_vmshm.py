# SPDX-License-Identifier: GPL-2.0
"""Unit tests of tools/vmshm: python3 -m unittest discover -s tools/tests"""

import contextlib
import hashlib
import importlib.machinery
import importlib.util
import io
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
TOOL = HERE.parent / 'vmshm'


def load_tool():
    sys.dont_write_bytecode = True      # no tools/__pycache__ beside the tool
    loader = importlib.machinery.SourceFileLoader('vmshm', str(TOOL))
    spec = importlib.util.spec_from_loader('vmshm', loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


vmshm = load_tool()

# The definition of the series hash, as the project's stop hook computes it.
HOOK_HASH = r'''
{ cat patches/series
  sed -e 's/#.*//' -e 's/[[:space:]].*//' patches/series |
  while read -r p; do [ -n "$p" ] && cat "patches/$p" 2>/dev/null; done
} | sha256sum | cut -c1-64
'''

GOOD_PATCH = textwrap.dedent('''\
    From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
    From: A Hacker <a@example.org>
    Date: Thu, 3 Dec 2026 12:00:00 +0000
    Subject: [PATCH] mm: say hello

    The greeting was missing; this adds it.  It is the smallest change
    that makes the test pass.

    Signed-off-by: A Hacker <a@example.org>
    ---
     mm/memory.c | 1 +
     1 file changed, 1 insertion(+)

    diff --git a/mm/memory.c b/mm/memory.c
    --- a/mm/memory.c
    +++ b/mm/memory.c
    @@ -1,2 +1,3 @@
     line one
    +hello
     line two
    -- 
    2.39.5
    ''')


def write(path, text):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


class SeriesTest(unittest.TestCase):
    def test_entries(self):
        text = ('# comment\n\ntoolchain/a.patch\ntoolchain/b.patch -p1\n'
                'mm/c.patch # trailing comment\n')
        self.assertEqual(vmshm.series_entries(text),
                         ['toolchain/a.patch', 'toolchain/b.patch', 'mm/c.patch'])

    def test_entries_like_the_shell(self):
        # a last line without newline is not read by 'while read'; leading
        # white space empties the line
        self.assertEqual(vmshm.series_entries('a.patch\n  b.patch\nc.patch'), ['a.patch'])

    def test_hash_matches_hook(self):
        with tempfile.TemporaryDirectory() as d:
            write(f'{d}/patches/series', '# s\ntoolchain/a.patch\nb.patch -p1\nmissing.patch\n')
            write(f'{d}/patches/toolchain/a.patch', 'AAA\n')
            write(f'{d}/patches/b.patch', 'BBB\n')
            want = hashlib.sha256(b'# s\ntoolchain/a.patch\nb.patch -p1\nmissing.patch\n'
                                  b'AAA\nBBB\n').hexdigest()
            self.assertEqual(vmshm.series_hash(Path(d) / 'patches'), want)
            if shutil.which('bash') and shutil.which('sha256sum'):
                r = subprocess.run(['bash', '-c', HOOK_HASH], cwd=d, capture_output=True, text=True)
                self.assertEqual(r.stdout.strip(), want)

    def test_no_series(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertIsNone(vmshm.series_hash(d))

    def test_variants(self):
        with tempfile.TemporaryDirectory() as d:
            write(f'{d}/series', 'toolchain/a.patch\ntoolchain/b.patch\nmm/c.patch\n')
            names = lambda v: [p.name for p in vmshm.variant_patches(v, d)]
            self.assertEqual(names('vanilla'), ['a.patch', 'b.patch'])
            self.assertEqual(names('patched'), ['a.patch', 'b.patch', 'c.patch'])
            with self.assertRaises(vmshm.Error):
                vmshm.variant_patches('other', d)


class LintTest(unittest.TestCase):
    def lint(self, series, patches):
        with tempfile.TemporaryDirectory() as d:
            write(f'{d}/series', series)
            for name, text in patches.items():
                write(f'{d}/{name}', text)
            return vmshm.lint_series(d)

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


def fake_tree(d, version='2.6.3', extra='', makefile_lib=True):
    v, p, s = version.split('.')
    write(f'{d}/Makefile', f'VERSION = {v}\nPATCHLEVEL = {p}\nSUBLEVEL = {s}\nEXTRAVERSION ={extra}\n'
                           'NAME=Feisty Dunnart\n')
    write(f'{d}/mm/memory.c', 'line one\nline two\n')
    write(f'{d}/arch/i386/Makefile', '# i386\n')
    write(f'{d}/include/linux/mm.h', '/* mm */\n')
    if makefile_lib:
        write(f'{d}/scripts/Makefile.lib', '# lib\n')
    return Path(d)


class BaseTreeTest(unittest.TestCase):
    def test_good(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(vmshm.check_base(fake_tree(d)), '2.6.3')

    def test_wrong_version(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaisesRegex(vmshm.Error, r'Linux 2\.6\.4.*for 2\.6\.3'):
                vmshm.check_base(fake_tree(d, '2.6.4'))

    def test_extraversion(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaisesRegex(vmshm.Error, r'EXTRAVERSION.*-rc1'):
                vmshm.check_base(fake_tree(d, extra=' -rc1'))

    def test_incomplete(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaisesRegex(vmshm.Error, r'Makefile\.lib is missing.*incomplete'):
                vmshm.check_base(fake_tree(d, makefile_lib=False))

    def test_not_a_tree(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaisesRegex(vmshm.Error, 'not a Linux source tree'):
                vmshm.check_base(d)


@unittest.skipUnless(shutil.which('git'), 'needs git')
class PrepareTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        t = Path(self.tmp.name)
        self.saved = vmshm.BUILD, vmshm.PATCHES
        vmshm.BUILD, vmshm.PATCHES = t / 'build', t / 'patches'
        vmshm.BUILD.mkdir()
        self.base = fake_tree(t / 'linux-2.6.3')
        write(t / 'patches/series', 'toolchain/a.patch\nmm/b.patch\n')
        write(t / 'patches/toolchain/a.patch', GOOD_PATCH)
        write(t / 'patches/mm/b.patch', GOOD_PATCH.replace('@@ -1,2 +1,3 @@\n line one\n+hello\n',
                                                           '@@ -1,3 +1,4 @@\n line one\n hello\n+world\n')
              .replace('say hello', 'say world'))
        self.out = io.StringIO()

    def tearDown(self):
        vmshm.BUILD, vmshm.PATCHES = self.saved
        self.tmp.cleanup()

    def prepare(self, variant):
        old = sys.stdout
        sys.stdout = self.out
        try:
            return vmshm.prepare(self.base, variant)
        finally:
            sys.stdout = old

    def log(self, repo):
        return subprocess.run(['git', '-C', str(repo), 'log', '--format=%s|%an|%ad', '--date=short'],
                              capture_output=True, text=True).stdout.split('\n')[:-1]

    def test_branch_and_rerun(self):
        repo = self.prepare('patched')
        self.assertEqual(self.log(repo), ['mm: say world|A Hacker|2026-12-03',
                                          'mm: say hello|A Hacker|2026-12-03',
                                          'Linux 2.6.3|Linus Torvalds|2004-02-18'])
        self.assertEqual((repo / 'mm/memory.c').read_text(), 'line one\nhello\nworld\nline two\n')
        head = subprocess.run(['git', '-C', str(repo), 'rev-parse', 'HEAD'], capture_output=True,
                              text=True).stdout
        self.prepare('patched')
        self.assertIn('up to date', self.out.getvalue())
        # the same inputs give the same commits (fixed dates, fixed committer)
        shutil.rmtree(repo)
        repo = self.prepare('patched')
        self.assertEqual(head, subprocess.run(['git', '-C', str(repo), 'rev-parse', 'HEAD'],
                                              capture_output=True, text=True).stdout)

    def test_vanilla_and_changed_patch(self):
        repo = self.prepare('vanilla')
        self.assertEqual(len(self.log(repo)), 2)
        p = vmshm.PATCHES / 'toolchain/a.patch'
        p.write_text(p.read_text().replace('+hello', '+howdy'))
        self.prepare('vanilla')
        self.assertIn('howdy', (repo / 'mm/memory.c').read_text())
        self.assertEqual(len(self.log(repo)), 2)

    def test_stale_build_record(self):
        saved = vmshm.CONFIGS
        vmshm.CONFIGS = Path(self.tmp.name) / 'configs'
        try:
            write(vmshm.CONFIGS / 'up.config', 'CONFIG_X86=y\n')
            src = self.prepare('vanilla')
            obj = vmshm.obj_dir('vanilla', 'up')
            self.assertEqual(vmshm.stale_reason('vanilla', 'up'), 'no build record')
            obj.mkdir(parents=True)
            state = json.loads((src / '.git/vmshm-prepare.json').read_text())
            (obj / 'vmshm-build.json').write_text(json.dumps({
                'patches': [[a['patch'], a['sha256']] for a in state['applied']],
                'local_changes': False,
                'config_sha256': vmshm.file_sha256(vmshm.CONFIGS / 'up.config')}))
            self.assertIsNone(vmshm.stale_reason('vanilla', 'up'))
            write(vmshm.CONFIGS / 'up.config', 'CONFIG_X86=y\nCONFIG_SMP=y\n')
            self.assertIn('config changed', vmshm.stale_reason('vanilla', 'up'))
            write(vmshm.CONFIGS / 'up.config', 'CONFIG_X86=y\n')
            p = vmshm.PATCHES / 'toolchain/a.patch'
            p.write_text(p.read_text() + '\n')
            self.assertIn('no longer matches', vmshm.stale_reason('vanilla', 'up'))
        finally:
            vmshm.CONFIGS = saved

    def test_patch_that_does_not_apply(self):
        p = vmshm.PATCHES / 'mm/b.patch'
        p.write_text(p.read_text().replace(' line two', ' line three'))
        with self.assertRaisesRegex(vmshm.Error, 'mm/b.patch does not apply'):
            self.prepare('patched')


CONSOLE_263 = '''\
Linux version 2.6.3 (root@host) (gcc version 12.2.0) #1 Thu Dec 3 2026
RAMDISK: Loading 4096 blocks [1 disk] into ram disk... |/-\\done.
VFS: Mounted root (ext2 filesystem).
\rKTAP version 1\r
# vmshm: cmdline console=ttyS0 root=/dev/ram0 vmshm.run=all\r
# vmshm: kernel Linux 2.6.3 #1 i686
# vmshm: MemTotal=257136 LowTotal=257136 HighTotal=0 SwapTotal=524280 kB CPUs=1
# fig: guest.mem_kb 257136 kB
# fig: guest.cpus 1 cpus
1..3
# vmshm: start syscall_regs
# vmstat: syscall_regs t_ms=0 free_kb=200000 swap_used_kb=0 cached_kb=100 pswpin=0 pswpout=0 pgpgin=10 pgpgout=0 lowfree_kb=200000
    KTAP version 1
    1..2
    ok 1 mknod keeps ecx
    not ok 2 kill keeps edx # wrong value
    # fig: syscall_regs.clobbered 1 count
    # totals: pass:1 fail:1 skip:0
# vmstat: syscall_regs t_ms=1000 free_kb=190000 swap_used_kb=4096 cached_kb=100 pswpin=2 pswpout=1024 pgpgin=2058 pgpgout=4096 lowfree_kb=190000
# vmshm: end syscall_regs exit=1 ms=1100
not ok 1 syscall_regs
# vmshm: start shm_swap_storm
    KTAP version 1
    1..1
    # progress: phase 1 of 3
    # fig: shm_swap_storm.stall_max_ms 812.5 ms
    ok 1 storm
Out of Memory: Killed process 42 (shm_swap_storm).
# vmshm: end shm_swap_storm exit=0 ms=5000
ok 2 shm_swap_storm
# vmshm: start integrity
    ok 1 shm # SKIP no swap
# vmshm: end integrity exit=4 ms=10
ok 3 integrity # SKIP
# vmshm: done
'''


def feed(text):
    p = vmshm.ConsoleParser()
    for line in text.split('\n'):
        p.feed(line)
    return p


class ParserTest(unittest.TestCase):
    def test_console(self):
        p = feed(CONSOLE_263)
        self.assertTrue(p.ktap and p.done)
        self.assertEqual(p.plan, 3)
        self.assertEqual(p.guest['figures']['guest.mem_kb'], {'value': 257136, 'unit': 'kB'})
        sr = p.programs['syscall_regs']
        self.assertEqual(sr['status'], 'fail')
        self.assertEqual(sr['exit'], 1)
        self.assertEqual(sr['ms'], 1100)
        self.assertEqual([s['status'] for s in sr['subtests']], ['ok', 'fail'])
        self.assertEqual(sr['subtests'][1]['name'], 'kill keeps edx')
        self.assertEqual(sr['totals'], {'pass': 1, 'fail': 1, 'skip': 0})
        self.assertEqual(sr['figures']['syscall_regs.clobbered']['value'], 1)
        self.assertEqual(len(sr['vmstat']), 2)
        self.assertEqual(sr['vmstat'][1]['pswpout'], 1024)
        storm = p.programs['shm_swap_storm']
        self.assertEqual(storm['status'], 'ok')
        self.assertEqual(storm['progress'], 'phase 1 of 3')
        self.assertEqual(storm['figures']['shm_swap_storm.stall_max_ms'], {'value': 812.5, 'unit': 'ms'})
        self.assertEqual(p.programs['integrity']['status'], 'skip')
        self.assertEqual([(e['kind'], e['severity'], e['program']) for e in p.events],
                         [('oom', 'note', 'shm_swap_storm')])
        v, summary = vmshm.verdict(p, 'done', ['syscall_regs', 'shm_swap_storm', 'integrity'], 61)
        self.assertEqual(v, 'FAIL')
        self.assertIn('not ok: syscall_regs', summary)
        self.assertIn('2/3 ok (1 skipped), 1 OOM kills, 61 s', summary)

    def test_pass(self):
        p = feed(CONSOLE_263.replace('not ok 1 syscall_regs', 'ok 1 syscall_regs'))
        v, summary = vmshm.verdict(p, 'done', ['syscall_regs', 'shm_swap_storm', 'integrity'], 10)
        self.assertEqual((v, summary), ('PASS', '3/3 ok (1 skipped), 1 OOM kills, 10 s'))

    def test_program_output_is_not_init(self):
        # a program's own "ok 1 <name>" must not set the program's status
        p = feed('KTAP version 1\n# vmshm: start many_vmas\n    ok 1 many_vmas\n')
        self.assertEqual(p.programs['many_vmas']['status'], 'running')
        self.assertEqual(p.current, 'many_vmas')

    def test_oops_with_trace_is_one_event(self):
        log = ('KTAP version 1\n# vmshm: start many_vmas\n'
               'Unable to handle kernel NULL pointer dereference at virtual address 00000000\n'
               'Oops: 0000 [#1]\nEIP is at page_referenced+0x12/0x40\nCall Trace:\n'
               ' [<c0140000>] refill_inactive_zone+0x100/0x400\n')
        p = feed(log)
        self.assertEqual([e['kind'] for e in p.events], ['oops', 'oops'])
        self.assertTrue(all(e['program'] == 'many_vmas' for e in p.events))
        v, summary = vmshm.verdict(p, 'exit', ['many_vmas', 'integrity', 'fork_exit_rate'], 5)
        self.assertEqual(v, 'FAIL')
        self.assertIn('guest ended early while running many_vmas', summary)
        self.assertIn('3 not finished', summary)
        self.assertIn('Unable to handle kernel NULL pointer', summary)
        self.assertIn('(in many_vmas)', summary)

    def test_lone_trace_and_badness(self):
        p = feed('Badness in kobject_get at lib/kobject.c:431\nCall Trace:\n' + 'x\n' * 70 +
                 'Debug: sleeping function called from invalid context\nCall Trace:\n')
        self.assertEqual([(e['kind'], e['severity']) for e in p.events],
                         [('warning', 'error'), ('trace', 'error')])

    def test_build_paths_are_dropped(self):
        src = vmshm.BUILD / 'src' / 'vanilla'
        p = feed(f'# vmshm: start integrity\nkernel BUG at {src}/mm/slab.c:1696!\n'
                 f'kernel BUG at {src}/mm/slab.c:1696!\n')
        self.assertEqual(p.events[0]['line'], 'kernel BUG at mm/slab.c:1696!')
        v, summary = vmshm.verdict(p, 'done', ['integrity'], 5)
        self.assertIn('kernel BUG at mm/slab.c:1696! x2 (in integrity)', summary)

    def test_modern_kernel_lines(self):
        p = feed('[   12.345678] BUG: kernel NULL pointer dereference, address: 0000000000000000\n'
                 '[   12.345679] Call Trace:\n'
                 '[   13.000000] Out of memory: Killed process 77 (fork_exit_rate)\n'
                 '[   14.000000] Kernel panic - not syncing: Attempted to kill init!\n')
        self.assertEqual([(e['kind'], e['severity']) for e in p.events],
                         [('bug', 'error'), ('oom', 'note'), ('panic', 'fatal')])

    def test_rates_and_totals(self):
        p = feed(CONSOLE_263)
        r = vmshm.rates(p.programs['syscall_regs']['vmstat'])
        self.assertAlmostEqual(r[1]['swapout_kbs'], 4096.0)
        self.assertAlmostEqual(r[1]['blockin_kbs'], 2048.0)
        self.assertAlmostEqual(r[1]['swap_mb'], 4.0)
        t = vmshm.vmstat_totals(p.programs['syscall_regs']['vmstat'])
        self.assertEqual(t['pswpout'], 1024)
        self.assertEqual(t['min_free_kb'], 190000)

    def test_vmstat_sample_cut_by_a_kernel_message(self):
        text = CONSOLE_263.replace(
            'swap_used_kb=4096 cached_kb=100 pswpin=2',
            'swap_used_kb=4096hda: task_mulout_intr: status=0x41 { DriveReady Error }\n'
            'hda: task_mulout_intr: error=0x04 { DriveStatusError }\n cached_kb=100 pswpin=2')
        p = feed(text)
        r = vmshm.rates(p.programs['syscall_regs']['vmstat'])
        self.assertAlmostEqual(r[1]['swap_mb'], 0.0)    # the cut field is lost, not misread
        self.assertNotIn('pswpout', p.programs['syscall_regs']['vmstat'][1])
        vmshm.vmstat_totals(p.programs['syscall_regs']['vmstat'])

    def test_boot_flake(self):
        flake = ('Linux version 2.6.3 (root@host)\n..MP-BIOS bug: 8254 timer not connected to IO-APIC\n'
                 "Kernel panic: IO-APIC + timer doesn't work! pester mingo@redhat.com\n")
        self.assertTrue(vmshm.boot_flake(feed(flake)))
        self.assertFalse(vmshm.boot_flake(feed(CONSOLE_263)))
        # the same panic after init ran is not a boot flake
        self.assertFalse(vmshm.boot_flake(feed(CONSOLE_263 + flake)))

    def test_classic_vmstat_text(self):
        text = ('procs -----------memory---------- ---swap-- -----io----\n'
                ' r  b   swpd   free   buff  cache   si   so    bi    bo   in    cs us sy id wa\n'
                '33  1  35156 507544  80232 13523880    0  116     0   772  223 53603 24 76  0  0\n'
                '29  3  78944 505116  72184 13342024    0  124     8  2092  153 52579 27 73  0  0\n')
        s = vmshm.parse_vmstat_text(text)
        self.assertEqual(len(s), 2)
        r = vmshm.rates(s)
        self.assertAlmostEqual(r[1]['swapout_kbs'], 124.0)
        self.assertAlmostEqual(r[1]['blockin_kbs'], 8.0)
        self.assertEqual(s[1]['swap_used_kb'], 78944)


class MonitorTest(unittest.TestCase):
    def test_hang(self):
        m = vmshm.Monitor(0, quiet=300, total=3600)
        m.output(100)
        self.assertIsNone(m.check(399))
        self.assertEqual(m.check(401), 'hang')

    def test_timeout(self):
        m = vmshm.Monitor(0, quiet=300, total=1000)
        for t in range(0, 1001, 100):
            m.output(t)
        self.assertEqual(m.check(1001), 'timeout')

    def test_panic_and_done(self):
        m = vmshm.Monitor(0, quiet=300, total=0)
        m.saw('panic', 10)
        m.output(15)
        self.assertIsNone(m.check(20))
        self.assertEqual(m.check(31), 'panic')
        m = vmshm.Monitor(0, quiet=0, total=0)
        m.saw('done', 5)
        self.assertEqual(m.check(70), 'no-reboot')


def fake_qemu(lines, then='sleep'):
    """A command that prints console lines like a guest, then hangs or exits."""
    code = 'import sys, time\n'
    for line in lines:
        code += f'sys.stdout.write({line + chr(10)!r}); sys.stdout.flush(); time.sleep(0.02)\n'
    if then == 'sleep':
        code += 'time.sleep(60)\n'
    return [sys.executable, '-c', code]


class BootTest(unittest.TestCase):
    """The run loop against a fake QEMU: results, not runner crashes."""

    def boot(self, cmd, quiet=5, total=60):
        with tempfile.TemporaryDirectory() as d:
            p = vmshm.ConsoleParser()
            disp = vmshm.Display(stream=io.StringIO(), tty=False)
            outcome = vmshm.boot(cmd, Path(d) / 'console.log', quiet, total, disp, p)
            return outcome, p, (Path(d) / 'console.log').read_text()

    def test_hang_is_reported(self):
        outcome, p, log = self.boot(fake_qemu(['KTAP version 1', '1..1', '# vmshm: start shm_swap_storm',
                                               '    # progress: filling']))
        self.assertEqual(outcome, 'hang')
        self.assertEqual(p.current, 'shm_swap_storm')
        rec = vmshm.result_record(p, outcome, {}, ['shm_swap_storm'], 3)
        self.assertEqual(rec['verdict'], 'FAIL')
        self.assertIn('while running shm_swap_storm', rec['summary'])
        self.assertEqual(rec['last_lines'][-1], '    # progress: filling')
        self.assertIn('# progress: filling', log)

    def test_clean_end(self):
        outcome, p, _ = self.boot(fake_qemu(['KTAP version 1', '1..1', '# vmshm: start integrity',
                                             '# vmshm: end integrity exit=0 ms=5', 'ok 1 integrity',
                                             '# vmshm: done'], then='exit'))
        self.assertEqual(outcome, 'done')
        self.assertEqual(vmshm.verdict(p, outcome, ['integrity'], 1)[0], 'PASS')

    def test_panic_ends_early(self):
        outcome, p, _ = self.boot(fake_qemu(['KTAP version 1', '# vmshm: start many_vmas',
                                             'Kernel panic: Attempted to kill init!'], then='exit'))
        self.assertEqual(outcome, 'panic')
        self.assertIn('kernel panic while running many_vmas',
                      vmshm.verdict(p, outcome, ['many_vmas'], 1)[1])


class ImageTest(unittest.TestCase):
    def header(self, proto, x64, version):
        data = bytearray(0x1000)
        data[0x202:0x206] = b'HdrS'
        struct.pack_into('<H', data, 0x206, proto)
        struct.pack_into('<H', data, 0x20e, 0x400)
        if x64:
            struct.pack_into('<H', data, 0x236, 1)
        data[0x600:0x600 + len(version)] = version.encode()
        return bytes(data)

    def test_kernel_info(self):
        with tempfile.TemporaryDirectory() as d:
            Path(d, 'old').write_bytes(self.header(0x0203, False, '2.6.3 (root@h) #1 Thu'))
            Path(d, 'new').write_bytes(self.header(0x020f, True, '6.1.0-57-amd64 (debian) #1 SMP'))
            old, new = vmshm.kernel_info(Path(d, 'old')), vmshm.kernel_info(Path(d, 'new'))
            self.assertEqual((old['release'], old['x86_64'], vmshm.guest_kind(old)), ('2.6.3', False, 'legacy'))
            self.assertEqual((new['release'], new['x86_64'], vmshm.guest_kind(new)),
                             ('6.1.0-57-amd64', True, 'modern'))

    def test_series_release(self):
        # the series' EXTRAVERSION: 2.6.3-vmshm1 is still a 2.6.3 guest
        with tempfile.TemporaryDirectory() as d:
            Path(d, 'k').write_bytes(self.header(0x0203, False, '2.6.3-vmshm1 (root@h) #1 Thu'))
            info = vmshm.kernel_info(Path(d, 'k'))
            self.assertEqual(info['release'], '2.6.3-vmshm1')
            self.assertEqual(vmshm.release_tuple(info['release']), (2, 6, 3))
            self.assertEqual(vmshm.guest_kind(info), 'legacy')
        p = feed('Linux version 2.6.3-vmshm1 (root@host) (gcc version 12.2.0) #1 Thu Dec 3 2026\n'
                 'KTAP version 1\n# vmshm: kernel Linux 2.6.3-vmshm1 #1 Thu Dec 3 i686\n')
        self.assertEqual(p.guest.get('uname'), 'Linux 2.6.3-vmshm1 #1 Thu Dec 3 i686')

    def test_append_and_command(self):
        a = vmshm.kernel_append('legacy', 4096, ['many_vmas', 'integrity'], 128,
                                {'many_vmas': '-n 100'}, 0, 2)
        for word in ('root=/dev/ram0', 'rw', 'init=/init', 'ramdisk_size=4096', 'panic=1',
                     'vmshm.run=many_vmas,integrity', 'vmshm.mem=128', 'vmshm.args.many_vmas=-n,100',
                     'vmshm.disks=2'):
            self.assertIn(word, a.split())
        cmd = vmshm.qemu_command('bz', 'root.ext2', 'legacy', 4096, 2, 'tcg', True, ['s.img', 'd.img'], a)
        self.assertEqual(cmd[:3], ['qemu-system-x86_64', '-cpu', 'qemu64'])
        self.assertIn('-no-reboot', cmd)
        self.assertIn('file=d.img,format=raw,if=ide,index=1,cache=writeback', cmd)
        cmd = vmshm.qemu_command('bz', 'root.cpio', 'modern', 256, 1, 'tcg', False, ['s.img'], a)
        self.assertEqual(cmd[0], 'qemu-system-i386')
        self.assertIn('file=s.img,format=raw,if=virtio,index=0,cache=writeback', cmd)

    def test_append_fits_2_6_3(self):
        # 2.6.3 cuts its command line at 255 characters without a word: a
        # long scenario list becomes 'all' (the guest carries exactly the
        # scenarios asked for), anything else too long is an error.
        many = vmshm.PROGRAMS + ['truncate_fault', 'soak']
        a = vmshm.kernel_append('legacy', 4096, many, None, {'soak': '-t 300'}, 0, 2)
        self.assertLessEqual(len(a), vmshm.LEGACY_CMDLINE_MAX)
        self.assertIn('vmshm.run=all', a.split())
        self.assertIn('vmshm.args.soak=-t,300', a.split())
        a = vmshm.kernel_append('modern', 0, many, None, {}, 0, 2)
        self.assertIn('vmshm.run=' + ','.join(many), a.split())
        a = vmshm.kernel_append('legacy', 4096, ['soak'], None, {}, 0, 2)
        self.assertIn('vmshm.run=soak', a.split())
        with self.assertRaises(vmshm.Error):
            vmshm.kernel_append('legacy', 4096, ['soak'], None, {'soak': '-x ' + 'a' * 250}, 0, 2)

    def test_cpio(self):
        c = vmshm.Cpio()
        c.dir('dev')
        c.chardev('dev/console', 5, 1)
        c.file('init', b'\x7fELF', 0o755)
        data = c.finish()
        self.assertTrue(data.startswith(b'070701'))
        self.assertEqual(len(data) % 4, 0)
        self.assertIn(b'TRAILER!!!', data)
        if shutil.which('cpio'):
            r = subprocess.run(['cpio', '-t', '-v', '--quiet'], input=data, capture_output=True)
            listing = r.stdout.decode()
            self.assertIn('dev/console', listing)
            self.assertRegex(listing, r'crw-------.*5,\s*1.*dev/console')
            self.assertRegex(listing, r'-rwxr-xr-x.*init')

    def test_module_closure(self):
        with tempfile.TemporaryDirectory() as d:
            write(f'{d}/modules.dep', 'kernel/fs/ext4/ext4.ko: kernel/lib/crc16.ko kernel/fs/jbd2/jbd2.ko\n'
                                      'kernel/lib/crc16.ko:\nkernel/fs/jbd2/jbd2.ko:\n'
                                      'kernel/drivers/block/virtio_blk.ko: kernel/virtio.ko\n'
                                      'kernel/virtio.ko:\n')
            got = [p.name for p in vmshm.module_closure(d, ['ext4', 'virtio-blk', 'absent'])]
            self.assertEqual(got, ['crc16.ko', 'jbd2.ko', 'ext4.ko', 'virtio.ko', 'virtio_blk.ko'])


class DepsTest(unittest.TestCase):
    """tools/deps -n against a stand-in dpkg-query."""
    DEPS = Path(__file__).resolve().parent.parent / 'deps'

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
        self.assertIn('tools/deps && make test', (top / 'README.md').read_text())


class SwapFaultTest(unittest.TestCase):
    def test_rules_name_each_bad_slot(self):
        for fault, event in (('write', 'write_aio'), ('read', 'read_aio')):
            rules = vmshm.blkdebug_rules(fault)
            self.assertEqual(rules.count('[inject-error]'), len(vmshm.BAD_SWAP_SLOTS))
            self.assertEqual(rules.count(f'event = "{event}"'), len(vmshm.BAD_SWAP_SLOTS))
            # never the header (slot 0, sectors 0-7): swapon must work
            sectors = [int(x) for x in re.findall(r'sector = "(\d+)"', rules)]
            self.assertTrue(all(s >= 8 and s % 8 == 0 for s in sectors))

    def test_drive(self):
        with tempfile.TemporaryDirectory() as d:
            conf = Path(d) / 'blkdebug.conf'
            drive = vmshm.blkdebug_drive(Path(d) / 'swap.img', 'write', conf)
            self.assertEqual(drive, f'blkdebug:{conf}:{Path(d) / "swap.img"}')
            self.assertIn('write_aio', conf.read_text())
            with self.assertRaises(vmshm.Error):
                vmshm.blkdebug_drive(Path(d) / 'swap.img', 'flush', conf)
            cmd = vmshm.qemu_command('bz', 'root.ext2', 'legacy', 256, 1, 'tcg', False,
                                     [drive, 'd.img'], 'x')
            self.assertIn(f'file={drive},format=raw,if=ide,index=0,cache=writeback', cmd)


class NativeArgsTest(unittest.TestCase):
    def test_args_reach_the_program(self):
        with tempfile.TemporaryDirectory() as d:
            progs = Path(d) / 'progs'
            progs.mkdir()
            prog = progs / 'soak'
            prog.write_text(f'#!/bin/sh\necho "$*" > {d}/args\n'
                            'printf "KTAP version 1\\n1..1\\nok 1 ran\\n"\n')
            prog.chmod(0o755)
            saved = vmshm.BUILD
            vmshm.BUILD = Path(d) / 'build'
            vmshm.BUILD.mkdir()
            try:
                with contextlib.redirect_stderr(io.StringIO()) as err:
                    rc = vmshm.main(['native', '--progs', str(progs), '--scenarios', 'soak',
                                     '--args', 'soak=-t 7 -W 2'])
            finally:
                vmshm.BUILD = saved
            self.assertEqual(rc, 0, err.getvalue())
            self.assertRegex((Path(d) / 'args').read_text(), r'^-m 64 -d \S+ -t 7 -W 2$')


class SelectProgramsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = Path(self.tmp.name)
        for name in vmshm.PROGRAMS + vmshm.ON_REQUEST + ['clean_hold']:
            write(self.d / name, '')

    def tearDown(self):
        self.tmp.cleanup()

    def test_full_run_leaves_limits_out(self):
        req, progs = vmshm.select_programs(self.d, None, False)
        self.assertEqual(req, vmshm.PROGRAMS)
        self.assertEqual(list(progs), vmshm.PROGRAMS)
        for name in vmshm.ON_REQUEST:
            self.assertNotIn(name, progs)

    def test_on_request_when_named(self):
        for name in vmshm.ON_REQUEST:
            req, progs = vmshm.select_programs(self.d, name, False)
            self.assertEqual(list(progs), [name])

    def test_all_in_a_list(self):
        req, progs = vmshm.select_programs(self.d, 'all,soak,integrity', False)
        self.assertEqual(req, vmshm.PROGRAMS + ['soak'])
        self.assertEqual(list(progs), req)

    def test_unknown_and_measurement_aids(self):
        with self.assertRaises(vmshm.Error):
            vmshm.select_programs(self.d, 'clean_hold', False)
        req, progs = vmshm.select_programs(self.d, 'shm_swap_storm,clean_hold', True)
        self.assertEqual(list(progs), ['shm_swap_storm', 'clean_hold'])
        with self.assertRaises(vmshm.Error):
            vmshm.select_programs(self.d, 'nonesuch', True)

    def test_not_built(self):
        (self.d / 'integrity').unlink()
        with self.assertRaises(vmshm.Error):
            vmshm.select_programs(self.d, 'integrity', False)


class ResultsTest(unittest.TestCase):
    def test_compact_and_table(self):
        p = feed(CONSOLE_263)
        rec = vmshm.result_record(p, 'done', {'label': 'vanilla-up-m256-c1', 'date': '2026-12-03T12:00:00+00:00',
                                              'series_hash': 'ab' * 32, 'kernel_release': '2.6.3'},
                                  ['syscall_regs', 'shm_swap_storm', 'integrity'], 61)
        c = vmshm.compact(rec)
        self.assertNotIn('vmstat', c['programs']['syscall_regs'])
        self.assertEqual(c['programs']['syscall_regs']['vmstat_totals']['pswpout'], 1024)
        with tempfile.TemporaryDirectory() as d:
            Path(d, 'a.json').write_text(json.dumps(c))
            t = vmshm.table(d)
            self.assertIn('| vanilla-up-m256-c1 | 2026-12-03 | 2.6.3 | abababababab | FAIL |', t)
            self.assertIn('| shm_swap_storm.stall_max_ms | ms | 812.5 |', t)
        rows = dict((r[0], r) for r in vmshm.compare_rows(rec, rec))
        self.assertEqual(rows['shm_swap_storm.stall_max_ms'][3], '1')


def load_generator():
    loader = importlib.machinery.SourceFileLoader('gen_testcases_patch',
                                                  str(HERE.parent / 'gen-testcases-patch'))
    spec = importlib.util.spec_from_loader('gen_testcases_patch', loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


class GeneratedPatchTest(unittest.TestCase):
    """tools/gen-testcases-patch: patches/vm/vm-shm-testcases.patch from
    tools/testing/vm-shm/, and the drift check lint runs."""

    @classmethod
    def setUpClass(cls):
        cls.gen = load_generator()

    def copy(self, d):
        src = Path(d, 'src')
        shutil.copytree(self.gen.SRCDIR, src)
        return src

    def test_committed_patch_is_current(self):
        self.assertEqual(self.gen.check(), [])

    def test_deterministic_and_drift(self):
        with tempfile.TemporaryDirectory() as d:
            src = self.copy(d)
            text = self.gen.render(src)
            self.assertEqual(text, self.gen.render(src))
            self.assertFalse('b/tools/testing/vm-shm/init.c' in text)
            write(f'{d}/patches/series', 'toolchain/a.patch\nvm/b.patch\n' + self.gen.ENTRY + '\n')
            write(f'{d}/patches/{self.gen.ENTRY}', text)
            self.assertEqual(self.gen.check(src, Path(d, 'patches')), [])
            with open(src / 'lib' / 'vmshm.h', 'a') as f:
                f.write('/* drift */\n')
            problems = self.gen.check(src, Path(d, 'patches'))
            self.assertTrue(any('out of date' in p for p in problems), problems)
            write(f'{d}/patches/series', self.gen.ENTRY + '\nvm/b.patch\n')
            problems = self.gen.check(src, Path(d, 'patches'))
            self.assertTrue(any('last entry' in p for p in problems), problems)

    def test_lint_accepts_it(self):
        with tempfile.TemporaryDirectory() as d:
            write(f'{d}/series', self.gen.ENTRY + '\n')
            write(f'{d}/{self.gen.ENTRY}', self.gen.render())
            self.assertEqual(vmshm.lint_series(d), ([], []))

    @unittest.skipUnless(shutil.which('git'), 'no git')
    def test_same_as_git_and_applies(self):
        # git apply gives back the sources byte for byte, and from "---" on
        # the patch is what git format-patch prints for them
        with tempfile.TemporaryDirectory() as d:
            text = self.gen.render()
            env = dict(os.environ, GIT_AUTHOR_NAME='t', GIT_AUTHOR_EMAIL='t@t', GIT_COMMITTER_NAME='t',
                       GIT_COMMITTER_EMAIL='t@t', GIT_CONFIG_GLOBAL='/dev/null', GIT_CONFIG_NOSYSTEM='1')
            run = lambda *a, **kw: subprocess.run(['git', '-C', d, *a], env=env, check=True,
                                                  capture_output=True, text=True, **kw)
            run('init', '-q')
            run('commit', '-q', '--allow-empty', '-m', 'base')
            run('apply', '--index', '-', input=text)
            for name in self.gen.source_files():
                self.assertEqual(Path(d, self.gen.TREE_DIR, name).read_bytes(),
                                 (self.gen.SRCDIR / name).read_bytes(), name)
            run('commit', '-q', '-m', 'testcases')
            git_text = run('format-patch', '-1', '--stdout', '--no-signature').stdout
            tail = lambda t: t[t.index('\n---\n'):]
            self.assertEqual(tail(text), tail(git_text))


if __name__ == '__main__':
    res = unittest.main(exit=False, verbosity=2).result
    failed = len(res.failures) + len(res.errors) + len(res.unexpectedSuccesses)
    skipped = len(res.skipped)
    print(f'unit: {res.testsRun - failed - skipped} passed, {failed} failed, {skipped} skipped')
    sys.exit(1 if failed or not res.testsRun else 0)
