#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The Markdown table docs/validation.md shows, from a `mmsim validate --json` report.

One row a judged point (unavailable and not simulated ones are left out): the live
median with the runs' range, the simulated median with the seeds' range, sim/live,
the verdict, the line transfer the simulated side took and the lock recorder's
samples (end / begin) where the live runs recorded lock waits.

Usage:
  scripts/validation/validation_table.py V.JSON > table.md
"""
import json
import sys


def num(x):
    if x is None:
        return '-'
    if x == 0:
        return '0'
    a = abs(x)
    if a >= 1e6:
        return '%.3g' % x
    if a >= 1000:
        return '{:,}'.format(int(round(x)))
    return '%.3g' % x


def main():
    if len(sys.argv) != 2:
        sys.stderr.write('usage: validation_table.py V.JSON\n')
        return 2
    with open(sys.argv[1]) as f:
        d = json.load(f)
    n = d.get('repeat', 5)
    print('| experiment or workload | threads | metric | live median (min..max of %d) | '
          'simulated median (min..max of seeds 1-%d) | sim/live | verdict | line transfer (ns) '
          '| recorder samples, end / begin (ns) |' % (n, n))
    print('|---|---|---|---|---|---|---|---|---|')
    for p in d['points']:
        v = p['verdict']
        if v.startswith('unavailable') or v.startswith('not') or v == 'failed':
            continue
        lr, sr = p['live_runs'], p['simulated_runs']
        lm, sm = p['live_median'], p['simulated']
        ratio = '-' if not lm else '%.2f' % (sm / lm)
        th = p['threads'] if p['threads'] is not None else '-'
        tr = '-'
        if p.get('contention_trace_ns'):
            tr = '%.0f / %.0f' % (p['contention_trace_ns'], p.get('contention_begin_trace_ns', 0))
        print('| %s | %s | %s | %s (%s..%s) | %s (%s..%s) | %s | %s | %.0f | %s |' % (
            p['experiment'], th, p['metric'], num(lm), num(min(lr)), num(max(lr)), num(sm),
            num(min(sr)), num(max(sr)), ratio, v, p.get('line_transfer_ns') or 0, tr))
    return 0


if __name__ == '__main__':
    sys.exit(main())
