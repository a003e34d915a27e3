# SPDX-License-Identifier: GPL-2.0
"""The guest console: the guest init's KTAP, each program's own KTAP
(indented), its "# fig:" figures and "# progress:" lines, the vmstat
samples and the kernel's complaints (kunit_parser's job here)."""

import re

from . import series
from .common import LAYOUT

def number(s):
    try:
        return int(s)
    except ValueError:
        try:
            return float(s)
        except ValueError:
            return s


RE_TAP = re.compile(r'^(not ok|ok)\s+(\d+)\s*(?:-\s*)?([^#]*?)\s*(?:#\s*(.*?))?\s*$')
RE_FIG = re.compile(r'^#\s*fig:\s*(\S+)\s+(\S+)(?:\s+(.*?))?\s*$')
# The KTAP counts line.  kselftest's form, which the guest init and the
# objrmap harness print:
#   # Totals: pass:N fail:N xfail:N xpass:N skip:N error:N
# and the shorter one the scenario programs printed before it (vm-shm's
# lib/vmshm.c, as the series carries it): "# totals: pass:N fail:N skip:N".
RE_TOTALS = re.compile(r'^#\s*[Tt]otals:((?:\s+[a-z]+:\d+)+)\s*$')
TOTALS_KEYS = ('pass', 'fail', 'xfail', 'xpass', 'skip', 'error')
RE_TIMESTAMP = re.compile(r'^\[\s*\d+\.\d+\]\s?')

# (regex, kind, severity); severity: fatal ends the guest, error fails the
# run, note is recorded only.
KERNEL_EVENTS = [
    (re.compile(r'Kernel panic'), 'panic', 'fatal'),
    (re.compile(r'Oops:'), 'oops', 'error'),
    (re.compile(r'Unable to handle kernel|BUG: unable to handle|general protection fault'), 'oops', 'error'),
    (re.compile(r'kernel BUG at'), 'bug', 'error'),
    (re.compile(r'^BUG: '), 'bug', 'error'),
    (re.compile(r'Badness in|^WARNING: '), 'warning', 'error'),
    (re.compile(r'Out of [Mm]emory: Kill(ed)? process|invoked oom-killer'), 'oom', 'note'),
    (re.compile(r'page allocation failure'), 'allocfail', 'note'),
]
RE_CALL_TRACE = re.compile(r'Call Trace')


class ConsoleParser:
    """Reads the guest console line by line: the top-level KTAP of init,
    the indented output of each program, the vmstat samples and the kernel's
    own complaints.  feed() returns a tuple describing what the line was
    (for the progress display) or None."""

    def __init__(self, layout=LAYOUT):
        self.scrub_prefixes = scrub_prefixes(layout)
        self.lines = []
        self.plan = None
        self.totals = None                # the init's counts of the programs
        self.ktap = False
        self.guest = {'figures': {}}
        self.programs = {}
        self.order = []
        self.current = None
        self.done = False
        self.bailout = None
        self.events = []

    def program(self, name):
        if name not in self.programs:
            self.programs[name] = {'status': 'not run', 'number': None, 'exit': None, 'signal': None,
                                   'ms': None, 'figures': {}, 'subtests': [], 'plan': None,
                                   'totals': None, 'progress': None, 'diag': [], 'vmstat': []}
            self.order.append(name)
        return self.programs[name]

    def feed(self, line):
        line = line.rstrip('\r\n')
        if '\r' in line:                  # a carriage return starts the line over
            line = line.split('\r')[-1]
        self.lines.append(line)
        if line.startswith('    ') and self.current:
            r = self._program_line(self.programs[self.current], line[4:])
            if r:
                return r
        else:
            r = self._init_line(line)
            if r:
                return r
        return self._kernel_line(line)

    def _program_line(self, prog, sub):
        s = sub.strip()
        m = RE_FIG.match(s)
        if m:
            prog['figures'][m.group(1)] = {'value': number(m.group(2)), 'unit': m.group(3) or ''}
            return ('figure', self.current, m.group(1))
        if s.startswith('# progress:'):
            prog['progress'] = s[len('# progress:'):].strip()
            return ('progress', self.current, prog['progress'])
        totals = parse_totals(s)
        if totals:
            prog['totals'] = totals
            return ('totals', self.current)
        if sub == s:                     # only the program's own top level
            m = RE_TAP.match(s)
            if m:
                prog['subtests'].append({'number': int(m.group(2)), 'name': m.group(3),
                                         'status': tap_status(m.group(1), m.group(4)),
                                         'directive': m.group(4) or ''})
                return ('subtest', self.current, prog['subtests'][-1])
            m = re.match(r'^1\.\.(\d+)$', s)
            if m:
                prog['plan'] = int(m.group(1))
                return None
        if s.startswith('#') or s.lower().startswith('bail out'):
            prog['diag'].append(s)
            del prog['diag'][:-200]
        return None

    def _init_line(self, line):
        if line == 'KTAP version 1':
            self.ktap = True
            return None
        m = re.match(r'^1\.\.(\d+)$', line)
        if m:
            self.plan = int(m.group(1))
            return ('plan', self.plan)
        if line.startswith('# vmstat: '):
            parts = line[len('# vmstat: '):].split()
            if parts:
                sample = {}
                for kv in parts[1:]:
                    k, _, v = kv.partition('=')
                    v = number(v)
                    # a kernel message can land inside a sample: keep
                    # only the fields that read as numbers
                    if k and isinstance(v, (int, float)):
                        sample[k] = v
                self.program(parts[0])['vmstat'].append(sample)
                return ('vmstat', parts[0], sample)
            return None
        if line.startswith('# vmshm: '):
            return self._vmshm(line[len('# vmshm: '):])
        totals = parse_totals(line)
        if totals:
            self.totals = totals
            return ('totals', None)
        m = RE_FIG.match(line)
        if m and m.group(1).startswith('guest.'):
            self.guest['figures'][m.group(1)] = {'value': number(m.group(2)), 'unit': m.group(3) or ''}
            return None
        m = RE_TAP.match(line)
        if m and self.ktap and m.group(3) in self.programs:
            prog = self.programs[m.group(3)]
            prog['number'] = int(m.group(2))
            prog['status'] = tap_status(m.group(1), m.group(4))
            if self.current == m.group(3):
                self.current = None
            return ('result', m.group(3), prog['status'])
        if line.startswith('Bail out!'):
            self.bailout = line
            return ('bailout', line)
        return None

    def _vmshm(self, text):
        if text.startswith('start '):
            name = text[6:].strip()
            self.current = name
            self.program(name)['status'] = 'running'
            return ('start', name)
        m = re.match(r'^end (\S+) (exit|signal)=(-?\d+) ms=(\d+)', text)
        if m:
            prog = self.program(m.group(1))
            prog[m.group(2)] = int(m.group(3))
            prog['ms'] = int(m.group(4))
            if text.endswith(' timeout'):
                prog['timed_out'] = True
            return ('end', m.group(1))
        if text == 'done':
            self.done = True
            self.current = None
            return ('done',)
        if text.startswith('kernel '):
            self.guest['uname'] = text[7:]
        elif text.startswith('MemTotal='):
            self.guest['meminfo'] = text
        elif text.startswith('cmdline '):
            self.guest['cmdline'] = text[8:]
        elif text.startswith('error: '):
            self.bailout = text
        self.guest.setdefault('notes', []).append(text)
        return None

    def scrub(self, text):
        """Drop this machine's build paths (2.6.3 BUG() messages carry the
        absolute __FILE__ of an O= build) so results can be committed."""
        for p in self.scrub_prefixes:
            text = text.replace(p + '/', '')
        return text

    def _kernel_line(self, line):
        text = RE_TIMESTAMP.sub('', line.strip())
        for rx, kind, sev in KERNEL_EVENTS:
            if rx.search(text):
                ev = {'kind': kind, 'severity': sev, 'program': self.current,
                      'line': self.scrub(text), 'lineno': len(self.lines)}
                self.events.append(ev)
                return ('event', ev)
        if RE_CALL_TRACE.search(text):
            # A trace belongs to the report just before it (an oops, an OOM
            # kill, an allocation failure); alone it is a bug report itself.
            for ev in reversed(self.events):
                if len(self.lines) - ev['lineno'] <= 60:
                    return None
                break
            ev = {'kind': 'trace', 'severity': 'error', 'program': self.current,
                  'line': text, 'lineno': len(self.lines)}
            self.events.append(ev)
            return ('event', ev)
        return None


def parse_totals(line):
    """{pass, fail, xfail, xpass, skip, error} of a KTAP counts line
    (either form above; a count the line lacks is 0), or None if the line
    is not one.  A line with a key outside those six, or without pass and
    fail, is not a counts line."""
    m = RE_TOTALS.match(line.strip())
    if not m:
        return None
    counts = {}
    for item in m.group(1).split():
        key, _, n = item.partition(':')
        if key not in TOTALS_KEYS or key in counts:
            return None
        counts[key] = int(n)
    if 'pass' not in counts or 'fail' not in counts:
        return None
    return {k: counts.get(k, 0) for k in TOTALS_KEYS}


def tap_status(okword, directive):
    if okword == 'ok':
        return 'skip' if directive and directive.upper().startswith('SKIP') else 'ok'
    return 'fail'


def scrub_prefixes(layout):
    """The directories whose names a committed result must not carry,
    longest first."""
    build = layout.build
    return sorted({str(build / 'src' / v) for v in series.variants(layout.patches)} | {str(build), str(layout.repo)},
                  key=len, reverse=True)
