# SPDX-License-Identifier: GPL-2.0
"""What the unit tests of tools/lib/python/vmshm share: the package on
sys.path, canned inputs (a patch, a 2.6.3 console, a kernel header) and
scratch-tree helpers."""

import contextlib
import io
import struct
import sys
import tempfile
import textwrap
from pathlib import Path

TOOLS = Path(__file__).resolve().parent.parent
REPO = TOOLS.parent
sys.path.insert(0, str(TOOLS / 'lib' / 'python'))
sys.dont_write_bytecode = True      # no __pycache__ in the source tree

from vmshm.common import Layout  # noqa: E402  (after the path is set)
from vmshm.console import ConsoleParser  # noqa: E402

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
# Totals: pass:1 fail:1 xfail:0 xpass:0 skip:1 error:0
# vmshm: done
'''


def feed(text, layout=None):
    """A console parser that has read text."""
    p = ConsoleParser(layout) if layout else ConsoleParser()
    for line in text.split('\n'):
        p.feed(line)
    return p


def fake_qemu(lines, then='sleep'):
    """A command that prints console lines like a guest, then hangs or exits."""
    code = 'import sys, time\n'
    for line in lines:
        code += f'sys.stdout.write({line + chr(10)!r}); sys.stdout.flush(); time.sleep(0.02)\n'
    if then == 'sleep':
        code += 'time.sleep(60)\n'
    return [sys.executable, '-c', code]


def kernel_header(proto, x64, version):
    """The first bytes of a bzImage: its boot protocol header and version."""
    data = bytearray(0x1000)
    data[0x202:0x206] = b'HdrS'
    struct.pack_into('<H', data, 0x206, proto)
    struct.pack_into('<H', data, 0x20e, 0x400)
    if x64:
        struct.pack_into('<H', data, 0x236, 1)
    data[0x600:0x600 + len(version)] = version.encode()
    return bytes(data)


class Scratch:
    """A scratch repository and build directory: Layout(tmp, tmp/build)."""

    def __init__(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name)
        self.layout = Layout(self.root, self.root / 'build')
        self.layout.build.mkdir()

    def close(self):
        self.tmp.cleanup()


@contextlib.contextmanager
def quiet():
    """Capture what the code under test logs; yields the buffer."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        yield buf


def scratch_series(scratch):
    """A fake 2.6.3 tree and a two-patch series (one toolchain, one mm)."""
    t = scratch.root
    base = fake_tree(t / 'linux-2.6.3')
    write(t / 'patches/series', 'toolchain/a.patch\nmm/b.patch\n')
    write(t / 'patches/toolchain/a.patch', GOOD_PATCH)
    write(t / 'patches/mm/b.patch', GOOD_PATCH.replace('@@ -1,2 +1,3 @@\n line one\n+hello\n',
                                                       '@@ -1,3 +1,4 @@\n line one\n hello\n+world\n')
          .replace('say hello', 'say world'))
    return base
