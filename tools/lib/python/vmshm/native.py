# SPDX-License-Identifier: GPL-2.0
"""tools/vmshm native: the scenario programs on this machine, no QEMU.

Their output goes through the same console parser as a guest's, framed
as the guest init frames it, so the result reads the same."""

import json
import os
import signal
import subprocess
import tempfile
import time

from .common import LAYOUT, log, rel, utcnow
from .console import ConsoleParser
from .programs import find_programs, requested_scenarios
from .results import result_record
from .series import series_hash


def run_program(path, mem, extra, timeout, scratch):
    """(output, exit status or -signal, ms) of one program, run with its
    data directory in a fresh temporary directory under scratch."""
    with tempfile.TemporaryDirectory(dir=scratch) as d:
        t = time.monotonic()
        try:
            r = subprocess.run([str(path), '-m', str(mem), '-d', d] + extra,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
            out, rc = r.stdout, r.returncode
        except subprocess.TimeoutExpired as ex:
            out, rc = ex.stdout or b'', -signal.SIGKILL
        return out.decode('utf-8', 'replace'), rc, int((time.monotonic() - t) * 1000)


def feed_program(parser, i, name, out, rc, ms):
    """The lines the guest init would have printed around the program's."""
    for line in out.split('\n'):
        if line:
            parser.feed('    ' + line)
    if rc >= 0:
        parser.feed(f'# vmshm: end {name} exit={rc} ms={ms}')
    else:
        parser.feed(f'# vmshm: end {name} signal={-rc} ms={ms}')
    word = 'ok' if rc in (0, 4) else 'not ok'
    parser.feed(f'{word} {i} {name}' + (' # SKIP' if rc == 4 else ''))
    p = parser.programs[name]
    log(f'{word} {i} {name}{" # SKIP" if rc == 4 else ""} ({ms / 1000:.1f} s, exit {rc}, {len(p["figures"])} figures, '
        f'{len(p["subtests"])} subtests)')
    if rc not in (0, 4):
        for line in out.split('\n')[-15:]:
            log(f'    | {line}')


def totals_line(statuses):
    """The counts line the guest init prints after its programs
    (kselftest's form), from their statuses."""
    n = {k: sum(1 for s in statuses if s == k) for k in ('ok', 'skip')}
    fail = len(statuses) - n['ok'] - n['skip']
    return f'# Totals: pass:{n["ok"]} fail:{fail} xfail:0 xpass:0 skip:{n["skip"]} error:0'


def native(mem, scenarios, progs_dir, args, timeout, layout=LAYOUT):
    """Run the programs; exit status 0 if all passed.  args: {program:
    [arguments]}."""
    programs = find_programs(progs_dir)
    requested = requested_scenarios(scenarios)
    parser = ConsoleParser(layout)
    parser.feed('KTAP version 1')
    parser.feed(f'1..{len(requested)}')
    t0 = time.monotonic()
    for i, name in enumerate(requested, 1):
        parser.feed(f'# vmshm: start {name}')
        if name not in programs:
            parser.feed(f'not ok {i} {name}')
            log(f'not ok {i} {name}: not built in {rel(progs_dir)}')
            continue
        out, rc, ms = run_program(programs[name], mem, args.get(name, []), timeout, layout.build)
        feed_program(parser, i, name, out, rc, ms)
    totals = totals_line([parser.programs[n]['status'] for n in requested])
    parser.feed(totals)
    log(totals)
    parser.feed('# vmshm: done')
    meta = {'label': f'native-m{mem}', 'variant': None, 'config': None,
            'kernel_release': os.uname().release, 'mem_mb': mem, 'cpus': os.cpu_count(),
            'series_hash': series_hash(layout.patches), 'date': utcnow().isoformat(), 'full': False}
    rec = result_record(parser, 'native', meta, list(requested), time.monotonic() - t0)
    outdir = layout.build / 'results' / f'native-m{mem}-{utcnow().strftime("%Y%m%dT%H%M%SZ")}'
    outdir.mkdir(parents=True)
    (outdir / 'result.json').write_text(json.dumps(rec, indent=1) + '\n')
    log(f'{rec["verdict"]}: {rec["summary"]} ({rel(outdir / "result.json")})')
    return 0 if rec['verdict'] == 'PASS' else 1
