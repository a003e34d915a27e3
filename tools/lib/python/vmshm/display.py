# SPDX-License-Identifier: GPL-2.0
"""What a run shows while it runs: one status line updated in place on a
terminal (program, its last progress, free/swap/rates), plain lines
with a heartbeat otherwise (a log file, CI)."""

import shutil
import sys
import time

from .vmstat import rates


class Display:
    def __init__(self, stream=None, tty=None, heartbeat=60):
        self.stream = stream or sys.stdout          # at the call: tests capture it
        self.tty = self.stream.isatty() if tty is None else tty
        self.t0 = time.monotonic()
        self.last_draw = 0
        self.last_beat = self.t0
        self.heartbeat = heartbeat
        self.vm = None
        self.prog = None
        self.progress = ''
        self.index = 0
        self.parser = None

    def _elapsed(self):
        return f'[{time.monotonic() - self.t0:6.0f}s]'

    def _say(self, text):
        if self.tty:
            self.stream.write('\r\x1b[K')
        self.stream.write(f'{self._elapsed()} {text}\n')
        self.stream.flush()

    def status(self):
        s = self.prog or 'booting'
        if not self.prog and self.parser and self.parser.lines:
            s += ': ' + self.parser.lines[-1].strip()[:60]
        if self.progress:
            s += f': {self.progress}'
        if self.vm:
            s += (f' | free {self.vm["free_mb"]:.0f}M swap {self.vm["swap_mb"]:.0f}M'
                  f' so {self.vm["swapout_kbs"]:.0f}K/s bi {self.vm["blockin_kbs"]:.0f}K/s')
        return s

    def event(self, ev, parser):
        self.parser = parser
        if not ev:
            self.tick()
            return
        kind = ev[0]
        if kind == 'start':
            self.prog, self.progress, self.vm = ev[1], '', None
            self.index += 1
            self._say(f'start {ev[1]} ({self.index}/{parser.plan or "?"})')
        elif kind == 'progress':
            self.progress = ev[2]
            if not self.tty:
                self._say(f'{ev[1]}: {ev[2]}')
        elif kind == 'result':
            p = parser.programs[ev[1]]
            secs = f' ({p["ms"] / 1000:.0f} s)' if p.get('ms') is not None else ''
            self._say(f'{p["status"]:4} {ev[1]}{secs}')
            self.prog, self.progress = None, ''
        elif kind == 'vmstat':
            r = rates(parser.programs[ev[1]]['vmstat'][-2:])
            if r:
                self.vm = r[-1]
        elif kind == 'event':
            self._say(f'kernel: {ev[1]["line"][:100]}' +
                      (f' (during {ev[1]["program"]})' if ev[1]['program'] else ''))
        elif kind == 'done':
            self._say('guest init done')
        self.tick()

    def tick(self):
        now = time.monotonic()
        if self.tty and now - self.last_draw > 0.5:
            cols = shutil.get_terminal_size((100, 20)).columns
            self.stream.write('\r\x1b[K' + f'{self._elapsed()} {self.status()}'[:cols - 1])
            self.stream.flush()
            self.last_draw = now
        elif not self.tty and now - self.last_beat > self.heartbeat:
            self._say(self.status())
            self.last_beat = now

    def close(self):
        if self.tty:
            self.stream.write('\r\x1b[K')
            self.stream.flush()
