# SPDX-License-Identifier: GPL-2.0
"""The scenario programs: the one list of them, and which a run takes.

Adding a program: list it here (PROGRAMS for the suite, ON_REQUEST for
one run only when named) and in tools/testing/vm-shm/Makefile's PROGS;
a unit test checks the two agree.
"""

from pathlib import Path

from .common import Error, rel

# The scenario programs, in the order the suite runs them.
PROGRAMS = ['syscall_regs', 'pte_chain_capacity', 'shm_swap_storm',
            'copy_during_swap', 'many_vmas', 'fork_exit_rate', 'integrity',
            'vm_tunables', 'truncate_nonlinear', 'rmap_count', 'reclaim_keep',
            'idle_anon', 'shell_load', 'overcommit_copy']
# Built with them, run only when named (--scenarios): limits and oom_locked,
# where 2.6.3 hangs by design, so a full run of the vanilla kernel could
# not pass; truncate_fault, index_churn and remap_edges, which 2.6.3 fails
# (make faults); fork_file_race, the stress of the objrmap series' lazy
# pte_chain allocation (a minute per file kind); shm_wb_race, shm swap-out
# raced with truncate, SHM_LOCK, fork/exit and swapoff (a minute); and the
# soak, which runs for as long as it is told (make soak).
ON_REQUEST = ['oom_locked', 'soak', 'limits', 'truncate_fault', 'index_churn',
              'remap_edges', 'fork_file_race', 'shm_wb_race']


def find_programs(progs_dir):
    """{name: path} of the known programs built in progs_dir."""
    progs_dir = Path(progs_dir)
    return {p: progs_dir / p for p in PROGRAMS + ON_REQUEST
            if (progs_dir / p).is_file()}


def requested_scenarios(scenarios):
    """--scenarios as a list: None or 'all' is the full run, PROGRAMS; 'all'
    in a list stands for PROGRAMS there (all,soak)."""
    out = []
    for name in (scenarios or 'all').split(','):
        for s in (PROGRAMS if name == 'all' else [name]):
            if s not in out:
                out.append(s)
    return out


def check_programs(progs_dir, requested, extra_ok):
    """{name: path} of exactly the requested scenarios, from progs_dir:
    only these, since the guest init runs every program it carries.
    extra_ok: progs_dir was given, and may hold measurement aids
    (tools/measure) that are not scenarios."""
    progs_dir = Path(progs_dir)
    known = PROGRAMS + ON_REQUEST
    unknown = [s for s in requested
               if s not in known and not (extra_ok and (progs_dir / s).is_file())]
    if unknown:
        raise Error(f'unknown scenarios: {", ".join(unknown)} (known: {", ".join(known)})')
    missing = [s for s in requested if not (progs_dir / s).is_file()]
    if missing:
        raise Error(f'not built in {rel(progs_dir)}: {", ".join(missing)} '
                    f'(make -C tools/testing/vm-shm O={rel(progs_dir)})')
    return {s: progs_dir / s for s in requested}
