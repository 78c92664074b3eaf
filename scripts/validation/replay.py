#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Replay the simulated side of a `mmsim validate --json` report with other binaries.

Each point of the report is run again as validate ran it (its simulated_params,
its line transfer and recorder samples as --cost), seeds 1..SEEDS, with each
binary named, and printed beside the report's live median: the before and after
of a model change at the same live points, without running the live side again.

Usage:
  scripts/validation/replay.py V.JSON PROFILE BIN[,BIN...] [EXPERIMENT,...]
  SEEDS=5 (default 1); VARIANT_<experiment, - as _>=NAME picks the variant
  validate runs (e.g. VARIANT_deferred_split=unqueued, VARIANT_reclaim_tlb=before)
e.g. (docs/validation.md, "Kernel stores in the caches"):
  VARIANT_deferred_split=unqueued scripts/validation/replay.py v.json host.ini \\
      /tmp/base/build/mmsim,./build/mmsim case-anon-w-seq,case-anon-cow-seq
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile


def run_point(binary, exp, point, profile, seed):
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        argv = [binary, "run", exp, "--profile", profile, "--jobs", "1", "--quiet",
                "--json", f.name, "--seed", str(seed)]
        variant = os.environ.get("VARIANT_" + exp.replace("-", "_"))
        if variant:
            argv += ["--variant", variant]
        for cost, key in (("cache.socket_transfer_ns", "line_transfer_ns"),
                          ("lock.contention_trace_ns", "contention_trace_ns"),
                          ("lock.contention_begin_ns", "contention_begin_trace_ns")):
            if point.get(key):
                argv += ["--cost", "%s=%.0f" % (cost, point[key])]
        for k, v in (point.get("simulated_params") or {}).items():
            argv += ["--set", "%s=%s" % (k, v)]
        r = subprocess.run(argv, capture_output=True, text=True)
        if r.returncode:
            sys.exit("failed: %s\n%s" % (" ".join(argv), r.stderr.strip()))
        return json.load(open(f.name))["variants"][0]["metrics"]


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    report, profile = json.load(open(sys.argv[1])), sys.argv[2]
    binaries = sys.argv[3].split(",")
    only = sys.argv[4].split(",") if len(sys.argv) > 4 and sys.argv[4] else None
    seeds = int(os.environ.get("SEEDS", "1"))
    points = {}
    for p in report["points"]:
        if not only or p["experiment"] in only:
            points.setdefault((p["experiment"], p["threads"]), []).append(p)
    for (exp, threads), ps in points.items():
        runs = {b: [run_point(b, exp, ps[0], profile, s) for s in range(1, seeds + 1)]
                for b in binaries}
        for p in ps:
            live = p["live_median"]
            row = "%-22s %4s %-28s live %-10.4g" % (exp, threads, p["metric"],
                                                   live if live is not None else float("nan"))
            for b in binaries:
                vals = [m.get(p["metric"]) for m in runs[b]]
                vals = [v for v in vals if isinstance(v, (int, float))]
                if not vals:
                    row += " | -"
                    continue
                med = statistics.median(vals)
                row += " | %-10.4g %5s" % (med, "%.2f" % (med / live) if live else "-")
            print(row, flush=True)


if __name__ == "__main__":
    main()
