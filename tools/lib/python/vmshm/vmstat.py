# SPDX-License-Identifier: GPL-2.0
"""vmstat samples: the guest init's cumulative counters turned into rates
(the progress line, the plots) and per-program totals (the results),
and a classic vmstat(8) text trace read into the same form."""

def rates(samples):
    """Per-sample series for plots: t_s, free_mb, swap_mb, swapout_kbs,
    blockin_kbs (the last two from the cumulative counters)."""
    out = []
    prev = None
    for s in samples:
        if not isinstance(s.get('t_ms'), int):
            continue
        row = {'t_s': s['t_ms'] / 1000.0, 'free_mb': s.get('free_kb', 0) / 1024.0,
               'swap_mb': max(s.get('swap_used_kb', 0), 0) / 1024.0, 'swapout_kbs': 0.0,
               'blockin_kbs': 0.0}
        if prev is not None:
            dt = (s['t_ms'] - prev['t_ms']) / 1000.0
            if dt > 0:
                row['swapout_kbs'] = max(s.get('pswpout', 0) - prev.get('pswpout', 0), 0) * 4 / dt
                row['blockin_kbs'] = max(s.get('pgpgin', 0) - prev.get('pgpgin', 0), 0) / dt
        prev = s
        out.append(row)
    return out


def vmstat_totals(samples):
    """Deltas of the cumulative counters over one program's run."""
    if len(samples) < 2:
        return {}
    a, b = samples[0], samples[-1]
    out = {}
    for k in ('pswpin', 'pswpout', 'pgpgin', 'pgpgout'):
        if isinstance(a.get(k), int) and isinstance(b.get(k), int) and a[k] >= 0:
            out[k] = b[k] - a[k]
    if samples:
        out['min_free_kb'] = min(s.get('free_kb', 0) for s in samples)
        out['max_swap_used_kb'] = max(s.get('swap_used_kb', 0) for s in samples)
    return out


def parse_vmstat_text(text):
    """Samples from classic vmstat(8) output (swpd/free/si/so/bi in KB);
    one sample per line, taken as one second apart."""
    rows, cols = [], None
    for line in text.split('\n'):
        words = line.split()
        if 'swpd' in words and 'free' in words:
            cols = words
            continue
        if cols and len(words) == len(cols) and all(w.isdigit() for w in words):
            rows.append(dict(zip(cols, map(int, words))))
    samples, swpout, pgin = [], 0.0, 0.0
    for i, r in enumerate(rows):
        swpout += r.get('so', 0) / 4.0          # KB -> pages, as pswpout counts
        pgin += r.get('bi', 0)
        samples.append({'t_ms': i * 1000, 'free_kb': r['free'], 'swap_used_kb': r['swpd'],
                        'pswpout': swpout, 'pgpgin': pgin})
    return samples
