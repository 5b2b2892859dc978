#!/usr/bin/env python3
"""Parse the logs of scripts/gap-vs-t1.sh into gap-vs-t1.csv and t1-scaling.csv.

Inputs, in WORK (as the shell script leaves them):
  logs/G-convert.log       GAP converter: "Read Time:", "Build Time:", "Graph has N nodes and M directed edges"
  logs/G-gap-tT.log        GAP pr_spmv -i 20 -n 5 at OMP_NUM_THREADS=T: five "Trial Time:" lines (seconds)
  prlab-G-wT/scale.json    prlab scale --graph gap-G.el: the graph of family "file" (else the first
                           one run) and its t1-multicore-* / t0-oracle rows
  prlab-G-wT/results.json  prlab report --cases real (older runs): graph and timings[]

Units: ms per iteration; gap_read_s + gap_build_s are the converter's parse of
the .el text and its CSR build, prlab_load_build_s prlab's parse + CSR build of
the same file (seconds). GAP: a trial's seconds x 1000 / 20 iterations, median
(min, max) over the 5 trials. prlab: the row's ms_per_iter (scale: median over
runs / timed iterations, setup excluded; report: median wall time of Run / 50
iterations, setup included), min and max from the same runs. ratio =
t1_ms_per_iter / gap_ms_per_iter (below 1: prlab is faster).
Only the standard library: the GPU host has python3 but no Go.
"""
import argparse
import csv
import json
import os
import re
import statistics
import sys

GAP_ITERATIONS = 20
T1 = ("t1-multicore-f64", "t1-multicore-f32")
ORACLE = "t0-oracle"


def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return None


def gap_graph_line(text):
    """(n, nnz) from GAP's "Graph has N nodes and M directed edges" line, or (None, None)."""
    m = re.search(r"Graph has (\d+) nodes and (\d+) (?:un)?directed edges", text or "")
    return (int(m.group(1)), int(m.group(2))) if m else (None, None)


def gap_time(text, label):
    m = re.search(re.escape(label) + r":\s*([0-9.eE+-]+)", text or "")
    return float(m.group(1)) if m else None


def gap_run(text):
    """Per-iteration ms (median, min, max) over the trials of one pr_spmv log, or None."""
    trials = [float(x) for x in re.findall(r"Trial Time:\s*([0-9.eE+-]+)", text or "")]
    if not trials:
        return None
    per = [t * 1000 / GAP_ITERATIONS for t in trials]
    return statistics.median(per), min(per), max(per), len(per)


def prlab_rows(d):
    """{impl: (ms_median, ms_min, ms_max)}, n, nnz, build_s from one prlab output folder."""
    out, n, nnz, build_s = {}, None, None, None
    scale = read(os.path.join(d, "scale.json"))
    if scale is not None:
        s = json.loads(scale)
        gs = s.get("graphs") or []
        gs = [g for g in gs if g.get("family") == "file"] or gs  # the file, not the generated 2^1 graph
        if not gs or gs[0].get("skipped"):
            return out, n, nnz, build_s
        g = gs[0]
        n, nnz, build_s = g["n"], g["nnz"], g.get("build_ms", 0) / 1000
        for r in s.get("rows") or []:
            ms = r.get("ms_per_iter")
            if r.get("graph") != g["name"] or r.get("status") != "pass" or not ms:
                continue
            runs = r["timing"].get("runs_ms") or []
            div = r["timing"]["median_ms"] / ms  # timed iterations per run, as the row divided
            out[r["implementation"]] = (ms, min(runs) / div, max(runs) / div)
        return out, n, nnz, build_s
    res = read(os.path.join(d, "results.json"))
    if res is None:
        return out, n, nnz, build_s
    r = json.loads(res)
    n, nnz = r["graph"]["nodes"], r["graph"]["edges"]
    for t in r.get("timings") or []:
        tm = t.get("timing") or {}
        it = tm.get("iterations") or 0
        if t.get("status") != "pass" or not it:
            continue
        runs = tm.get("runs_ms") or []
        out[t["implementation"]] = (tm["median_ms"] / it, min(runs) / it, max(runs) / it)
    return out, n, nnz, build_s


def fmt(x, digits=5):
    return "" if x is None else f"{x:.{digits}g}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--host", required=True)
    ap.add_argument("--commit", default="")
    ap.add_argument("--gap-rev", default="")
    ap.add_argument("--graphs", required=True, help="space-separated: aan rmat20 ...")
    ap.add_argument("--threads", required=True, help="space-separated thread counts")
    ap.add_argument("--date", default=None, help="UTC date (default: today)")
    a = ap.parse_args()
    import datetime
    date = a.date or datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    logs = os.path.join(a.work, "logs")
    threads = [int(t) for t in a.threads.split()]
    vs, scaling, mismatches = [], [], []
    for g in a.graphs.split():
        conv = read(os.path.join(logs, f"{g}-convert.log"))
        gap_n, gap_nnz = gap_graph_line(conv)
        gap_read, gap_build = gap_time(conv, "Read Time"), gap_time(conv, "Build Time")
        per_t = {}
        for t in threads:
            text = read(os.path.join(logs, f"{g}-gap-t{t}.log"))
            if gap_n is None:
                gap_n, gap_nnz = gap_graph_line(text)
            rows, n, nnz, build_s = prlab_rows(os.path.join(a.work, f"prlab-{g}-w{t}"))
            gap = gap_run(text)
            if gap is None and not rows:
                continue
            per_t[t] = (gap, rows, n, nnz, build_s)
        if not per_t:
            print(f"gap_vs_t1_csv: {g}: no GAP or prlab result", file=sys.stderr)
            continue
        n = next((v[2] for v in per_t.values() if v[2] is not None), None)
        nnz = next((v[3] for v in per_t.values() if v[3] is not None), None)
        build_s = next((v[4] for v in per_t.values() if v[4] is not None), None)
        match = "" if nnz is None or gap_nnz is None else ("yes" if nnz == gap_nnz else "NO")
        if match == "NO":
            mismatches.append(f"{g}: prlab nnz {nnz}, GAP {gap_nnz} directed edges")
        for t, (gap, rows, _, _, _) in sorted(per_t.items()):
            for impl in T1:
                t1 = rows.get(impl)
                if gap is None and t1 is None:
                    continue
                ratio = t1[0] / gap[0] if gap and t1 else None
                vs.append({
                    "graph": g, "n": n if n is not None else gap_n, "nnz": nnz if nnz is not None else gap_nnz, "threads": t,
                    "gap_ms_per_iter": fmt(gap and gap[0]), "t1_ms_per_iter": fmt(t1 and t1[0]), "ratio": fmt(ratio, 3),
                    "host": a.host, "date": date, "t1_impl": impl,
                    "gap_ms_min": fmt(gap and gap[1]), "gap_ms_max": fmt(gap and gap[2]),
                    "t1_ms_min": fmt(t1 and t1[1]), "t1_ms_max": fmt(t1 and t1[2]),
                    "gap_ns_per_edge": fmt(gap and gap_nnz and gap[0] * 1e6 / gap_nnz, 4),
                    "t1_ns_per_edge": fmt(t1 and nnz and t1[0] * 1e6 / nnz, 4),
                    "gap_n": fmt(gap_n, 12), "gap_nnz": fmt(gap_nnz, 12), "edges_match": match,
                    "gap_read_s": fmt(gap_read, 4), "gap_build_s": fmt(gap_build, 4), "prlab_load_build_s": fmt(build_s, 4),
                    "prlab_commit": a.commit, "gap_rev": a.gap_rev,
                })
        # Thread scaling: T1 per worker count against 1 worker and T0, GAP beside it.
        t0 = next((v[1][ORACLE][0] for v in per_t.values() if ORACLE in v[1]), None)
        gap1 = per_t.get(1, (None,))[0]
        for impl in T1:
            one = per_t.get(1, (None, {}))[1].get(impl)
            for t, (gap, rows, _, _, _) in sorted(per_t.items()):
                t1 = rows.get(impl)
                if t1 is None:
                    continue
                scaling.append({
                    "graph": g, "n": n, "nnz": nnz, "impl": impl, "workers": t,
                    "t1_ms_per_iter": fmt(t1[0]), "t1_ms_min": fmt(t1[1]), "t1_ms_max": fmt(t1[2]),
                    "speedup_vs_1_worker": fmt(one and one[0] / t1[0], 3), "t0_ms_per_iter": fmt(t0),
                    "speedup_vs_t0": fmt(t0 and t0 / t1[0], 3),
                    "gap_ms_per_iter": fmt(gap and gap[0]), "gap_speedup_vs_1_thread": fmt(gap and gap1 and gap1[0] / gap[0], 3),
                    "host": a.host, "date": date,
                })
    os.makedirs(a.out, exist_ok=True)
    for name, rows in (("gap-vs-t1.csv", vs), ("t1-scaling.csv", scaling)):
        if not rows:
            print(f"gap_vs_t1_csv: no rows for {name}", file=sys.stderr)
            continue
        with open(os.path.join(a.out, name), "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)
        print(f"gap_vs_t1_csv: {len(rows)} rows -> {os.path.join(a.out, name)}")
    for m in mismatches:
        print("gap_vs_t1_csv: EDGE COUNTS DIFFER: " + m, file=sys.stderr)
    return 1 if mismatches or not vs else 0


if __name__ == "__main__":
    sys.exit(main())
