#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The simulated tables of docs/experiments/NAME.md, from a run's JSON.

Usage:
  scripts/gen_experiment_tables.py [--mmsim BIN] [--json FILE] [--write | --check] [NAME...]

Each page of docs/experiments/ (and README.md) holds a generated block per
experiment it shows, between
  <!-- generated:begin NAME -->  and  <!-- generated:end -->
and this script renders that block from the JSON of `mmsim reproduce --json`
(a list of documents, one per experiment) or of `mmsim run --json` (one).
The metric titles come from `BIN show NAME` (BIN: ./build/mmsim by default).

--json FILE   the saved run to read (default: docs/experiments/reproduce.json,
              for spinlock docs/experiments/spinlock.json)
(no flag)     print the blocks of the NAMEs (default: every page's) to stdout
--write       rewrite the blocks in the pages
--check       exit 1, naming the page, if a page's block differs from what
              the JSON gives (tests/docs_generated.sh)

To refresh after a change to the model (about 4 minutes of CPU):
  ./build/mmsim reproduce --json docs/experiments/reproduce.json
  ./build/mmsim run spinlock --json docs/experiments/spinlock.json
  scripts/gen_experiment_tables.py --write
"""
import json
import math
import os
import re
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
PAGES = os.path.join(ROOT, "docs", "experiments")
BEGIN = "<!-- generated:begin %s -->"
END = "<!-- generated:end -->"
BLOCK_RE = re.compile(r"<!-- generated:begin ([\w-]+) -->\n(.*?)<!-- generated:end -->",
                      re.S)


def die(msg):
    sys.stderr.write("gen_experiment_tables.py: %s\n" % msg)
    sys.exit(2)


def show(mmsim, name):
    """(metric titles by key, variants, baseline, changed) from `mmsim show NAME`."""
    try:
        text = subprocess.run([mmsim, "show", name], check=True, capture_output=True,
                              text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        die("%s show %s: %s" % (mmsim, name, e))
    titles, types, base, changed, variants = {}, {}, None, None, []
    section = None
    for line in text.splitlines():
        if line.startswith("variants:"):
            toks = line.split()[1:]
            for i, t in enumerate(toks):
                if t == "(baseline)":
                    base = toks[i - 1]
                elif t == "(changed)":
                    changed = toks[i - 1]
                else:
                    variants.append(t)
        elif line in ("metrics:", "parameters:") or line.startswith("published"):
            section = line.split()[0].rstrip(":")
        elif section == "metrics" and line.startswith("  ") and line.strip():
            key, _, title = line.strip().partition("  ")
            # `show` adds " [unit]" and "; live: ..." after the title
            title = re.sub(r" \[[^\]]*\](;.*)?$", "", title.strip())
            titles[key] = title or key
        elif section == "parameters" and line.startswith("  ") and line.strip():
            toks = line.split()
            if len(toks) >= 3:
                types[toks[0]] = toks[2]
    return titles, types, variants, base, changed


def param(value, typ):
    """A parameter's value with the unit `mmsim show` gives it (16M, 10ms)."""
    if not isinstance(value, int) or isinstance(value, bool) or value == 0:
        return str(value).lower() if isinstance(value, bool) else str(value)
    if typ == "bytes":
        for suffix, scale in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
            if value % scale == 0:
                return "%d%s" % (value // scale, suffix)
    if typ == "time":
        for suffix, scale in (("s", 10 ** 9), ("ms", 10 ** 6), ("us", 10 ** 3)):
            if value % scale == 0:
                return "%d%s" % (value // scale, suffix)
        return "%dns" % value
    return str(value)


def num(v):
    """A value as the tables print it: 4 significant digits, thousands apart."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    a = abs(v)
    if a >= 10000 or (a >= 1 and float(v).is_integer()):
        return "{:,}".format(int(round(v)))
    if a == 0:
        return "0"
    if a < 0.001:
        return "%.3g" % v
    digits = max(0, 3 - int(math.floor(math.log10(a))))
    return "%.*f" % (digits, v)


def pct(new, old):
    if old in (None, 0) or new is None:
        return "-"
    return "%+.1f%%" % (100.0 * (new - old) / old)


def ratio(sim, pub):
    if sim is None or pub in (None, 0):
        return "-"
    return "%.2f" % (sim / pub)


def render(doc, mmsim):
    name = doc["scenario"]
    titles, types, variants, base, changed = show(mmsim, name)
    run = [v["name"] for v in doc["variants"]]
    vals = {v["name"]: v["metrics"] for v in doc["variants"]}
    pub = doc.get("published") or {}
    verdict = (doc.get("verdict") or {}).get("metrics", {})
    params = " ".join("%s=%s" % (k, param(v, types.get(k))) for k, v in doc.get("params", {}).items())
    out = ["Generated by scripts/gen_experiment_tables.py from `mmsim %s %s --json FILE`"
           % ("reproduce" if pub else "run", name),
           "(mmsim %s, profile %s, seed %s; do not edit by hand). Parameters: %s."
           % (doc.get("mmsim_version"), doc.get("profile"), doc.get("seed"), params), ""]
    head = ["metric"] + run
    have_change = base in vals and changed in vals and base != changed
    if have_change:
        head.append("change %s -> %s" % (base, changed))
    pub_variants = [v for v in (base, changed) if v in pub]
    for v in pub_variants:
        head += ["published %s" % v, "sim/pub %s" % v]
    if pub_variants and base in pub and changed in pub:
        head.append("published change")
    if verdict:
        head.append("verdict")
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "---|" * len(head))
    for key, title in titles.items():
        if not any(key in vals[v] for v in run):
            continue
        row = [title] + [num(vals[v].get(key)) for v in run]
        if have_change:
            row.append(pct(vals[changed].get(key), vals[base].get(key)))
        for v in pub_variants:
            p = pub[v].get(key)
            row += [num(p), ratio(vals.get(v, {}).get(key), p)]
        if pub_variants and base in pub and changed in pub:
            row.append(pct(pub[changed].get(key), pub[base].get(key)))
        if verdict:
            row.append(verdict.get(key, {}).get("verdict", "-"))
        out.append("| " + " | ".join(row) + " |")
    if verdict:
        out += ["", "Verdict (bands: docs/uncertainty.md): %s."
                % doc["verdict"].get("summary", "")]
    if pub.get("source"):
        # the registry's "seed 00x: " is a label of this project, not of the post
        source = re.sub(r"^seed \d+: ", "", pub["source"]).rstrip(".")
        out += ["", "Published: %s." % source]
    return "\n".join(out) + "\n"


def load(path):
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        die("%s: %s" % (path, e))
    return {x["scenario"]: x for x in (d if isinstance(d, list) else [d])}


def main(argv):
    mmsim, json_path, mode, names = os.path.join(ROOT, "build", "mmsim"), None, "print", []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--mmsim", "--json") and i + 1 < len(argv):
            if a == "--mmsim":
                mmsim = argv[i + 1]
            else:
                json_path = argv[i + 1]
            i += 2
            continue
        if a in ("--write", "--check"):
            mode = a[2:]
        elif a.startswith("-"):
            die("unknown option %s; usage: [--mmsim BIN] [--json FILE] [--write|--check] [NAME...]"
                % a)
        else:
            names.append(a)
        i += 1
    docs = {}
    for path in ([json_path] if json_path else
                 [os.path.join(PAGES, "reproduce.json"), os.path.join(PAGES, "spinlock.json")]):
        if os.path.exists(path) or json_path:
            docs.update(load(path))
    pages = [os.path.join("docs", "experiments", f)
             for f in sorted(os.listdir(PAGES)) if f.endswith(".md")] + ["README.md"]
    bad = 0
    for page in pages:
        path = os.path.join(ROOT, page)
        text = open(path).read()
        blocks = BLOCK_RE.findall(text)
        if text.count("<!-- generated:begin") != len(blocks):
            sys.stderr.write("%s: a generated:begin without its generated:end\n" % path)
            bad = 1
        new = text
        for name, old in blocks:
            if names and name not in names:
                continue
            if name not in docs:
                if mode != "check" or json_path is None:
                    sys.stderr.write("%s: no run of %s in the JSON\n" % (page, name))
                    bad = 1
                continue
            block = render(docs[name], mmsim)
            if mode == "print":
                sys.stdout.write((BEGIN % name) + "\n" + block + END + "\n")
            elif mode == "check" and block != old:
                sys.stderr.write("%s: the block of %s is not what the "
                                 "JSON gives: run scripts/gen_experiment_tables.py --write\n"
                                 % (page, name))
                bad = 1
            new = new.replace((BEGIN % name) + "\n" + old + END,
                              (BEGIN % name) + "\n" + block + END)
        if mode == "write" and new != text:
            with open(path, "w") as f:
                f.write(new)
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
