# SPDX-License-Identifier: GPL-2.0
"""The vmstat timelines as PNGs (compare, trace), drawn by gnuplot."""

import subprocess
import tempfile
from pathlib import Path

from .common import Error, find_tool
from .vmstat import rates


def gnuplot_timelines(runs, prog, png):
    """One PNG, four panels, every run in each: runs = [(title, samples)]."""
    with tempfile.TemporaryDirectory() as d:
        files = []
        for i, (title, samples) in enumerate(runs):
            f = Path(d) / f'{i}.dat'
            f.write_text(''.join(f'{r["t_s"]:.3f} {r["free_mb"]:.2f} {r["swap_mb"]:.2f} '
                                 f'{r["swapout_kbs"]:.1f} {r["blockin_kbs"]:.1f}\n' for r in rates(samples)))
            files.append((title, f))
        panels = [(2, 'free memory (MB)'), (3, 'swap used (MB)'), (4, 'swap-out (KB/s)'),
                  (5, 'block-in (KB/s)')]
        script = ["set terminal png size 1200,900 noenhanced", f"set output '{png}'",
                  f"set multiplot layout 2,2 title '{prog}'", "set grid", "set key top right",
                  "set xlabel 'time (s)'"]
        for col, title in panels:
            script.append(f"set title '{title}'")
            script.append('plot ' + ', '.join(
                f"'{f}' using 1:{col} with lines lw 2 title '{t.replace(chr(39), '')}'" for t, f in files))
        script.append('unset multiplot')
        (Path(d) / 'plot.gp').write_text('\n'.join(script) + '\n')
        r = subprocess.run([find_tool('gnuplot'), str(Path(d) / 'plot.gp')], capture_output=True, text=True)
        if r.returncode != 0:
            raise Error(f'gnuplot failed: {r.stderr.strip()}')
