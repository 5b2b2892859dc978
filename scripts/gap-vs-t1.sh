#!/usr/bin/env bash
# gap-vs-t1.sh — prlab's multi-core CPU tier (T1) against the GAP benchmark
# suite's pr_spmv on the same graph files, on the same host, in one run, and
# T1's thread scaling beside GAP's.
#
# Usage (from the repository root, on a host with g++ and OpenMP; no Go needed):
#   scripts/gap-vs-t1.sh [GAP_SRC] [NAME]
#     GAP_SRC  a source tree of sbeamer/gapbs (default .gap/gapbs, git-ignored; never commit it).
#              On the CPU machine: make gap-src GAPBS=<a gapbs clone> (git archive + REVISION), then
#              carry .gap/gapbs (not all of .gap: a second call must find .gap/work) and .gpu to the host
#     NAME     results go to reports/NAME/ (default gap-latest, git-ignored as *-latest)
# Environment:
#   PRLAB=path      the prlab binary (default .gpu/prlab from `make gpu-bundle`, else bin/prlab)
#   WORK=dir        where the .el/.sg files and raw logs go (default .gap/work, git-ignored, so that a
#                   second call on a warm machine finds them; R-MAT 2^24 as .el is ~4.5 GB: keep it
#                   off $OUT, which the device tool copies back). Files already there are reused.
#   THREADS="1 2 4 8 16"   thread / worker counts (counts above nproc are dropped unless OVERSUBSCRIBE=1)
#   SCALES="20 22 24"      R-MAT scales; SCALING="aan 20 22" are the graphs run at every count,
#                          the rest only at the largest count (2^24 is run last)
#   ONLY="aan rmat20"      run only these graphs (the CSVs still cover every graph whose logs are in WORK:
#                          use a fresh WORK for a new measurement)
#   BUDGET_S=540    the whole run's wall-clock budget in seconds (one 10-minute device call);
#                   every step gets a time cap and a step that no longer fits is skipped, with a note.
#                   Estimated on a 16-core host: aan + 2^20 + 2^22 at 5 counts ~5 min; 2^24 (export
#                   ~1 min, GAP's converter ~1 min, GAP and T1 ~1.5 min) ~3.5 min, so it runs in the
#                   same call only when time is left: else call again with ONLY=rmat24 on the warm
#                   machine (the CSVs merge both).
#   PRLAB_STEP_S=150 the most seconds one prlab scale call may take (its --budget; the call is killed
#                   30 s after it). Each call times every row on a fixed protocol, --rung ITERATIONSxRUNS
#                   after one warm-up: the real graph 50x10, 2^20 20x5, 2^22 10x3 at 1-2 threads and 20x3
#                   from 4, 2^24 20x3 (RUNG=IxR sets all). prlab's time is the difference of a K- and a
#                   1-iteration Run, so K must make K-1 iterations outweigh the noise of T1's per-run setup
#                   (at 2^24 ~1-2 s; 5x3 gave a negative fastest run on this project's 2-core machine)
#   PARSE_ONLY=1    measure nothing: write the CSVs from what WORK holds
#
# Per graph: `prlab export` writes gap-G.el (skipped when it exists), GAP's converter turns it into
# gap-G.sg once (its read/build times and edge count recorded), then per thread count
# `OMP_NUM_THREADS=t pr_spmv -f gap-G.sg -i 20 -t 0 -n 5` (5 trials of 20 iterations; ms per
# iteration = trial time / 20) and prlab's t1-multicore-f64/-f32 with --workers t on the same
# gap-G.el: `prlab scale --graph gap-G.el --rung IxR` (plus the 2-node R-MAT 2^1 the scale command
# always generates), whose CPU time per iteration excludes each Run's setup (T1's node order and
# blocks included) and whose build time is the file's parse + CSR build. T0 runs once per scaling graph, at 1 worker. The edge counts after
# self-loops and duplicates are compared (GAP prints its count; prlab's nnz).
# Writes reports/NAME/gap-vs-t1.csv, t1-scaling.csv, README-run.txt (host, commands, notes), logs/.
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo" || exit 2
gap_src=${1:-.gap/gapbs}
name=${2:-gap-latest}
out_dir=reports/$name
work=${WORK:-.gap/work}
budget=${BUDGET_S:-540}
read -r -a threads <<<"${THREADS:-1 2 4 8 16}"
read -r -a scales <<<"${SCALES:-20 22 24}"
read -r -a scaling <<<"${SCALING:-aan 20 22}"
prlab=${PRLAB:-}
if [[ -z $prlab ]]; then
  if [[ -x .gpu/prlab ]]; then prlab=.gpu/prlab; else prlab=bin/prlab; fi
fi
[[ -x $prlab ]] || { echo "gap-vs-t1: $prlab missing: run make gpu-bundle (or go build -o bin/prlab ./cmd/prlab) on a machine with Go" >&2; exit 2; }
[[ -f $gap_src/src/pr_spmv.cc ]] || { echo "gap-vs-t1: $gap_src is not a gapbs source tree (no src/pr_spmv.cc)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "gap-vs-t1: python3 is needed to parse the logs" >&2; exit 2; }
mkdir -p "$work/logs" "$out_dir"
log=$work/logs
notes=$work/notes.txt
if [[ ${PARSE_ONLY:-0} != 1 ]]; then : >"$notes" && : >"$log/commands.txt"; fi
start=$SECONDS
load_start=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)
note() { echo "gap-vs-t1: $*" | tee -a "$notes" >&2; }
left() { echo $((budget - (SECONDS - start))); }
# run_capped CAP LOGFILE CMD...: run CMD with a time cap of min(CAP, budget left - 5 s);
# returns 124 on a timeout, 125 when no time is left at all.
run_capped() {
  local cap=$1 logf=$2 l
  shift 2
  l=$(($(left) - 5))
  ((l < cap)) && cap=$l
  if ((cap < 3)); then
    note "skipped (budget spent): $*"
    return 125
  fi
  echo "+ [cap ${cap}s] $*" >>"$log/commands.txt"
  timeout "$cap" "$@" >"$logf" 2>&1
  local rc=$?
  ((rc == 124)) && note "timed out after ${cap}s: $* (log $logf)"
  ((rc != 0 && rc != 124)) && note "exit status $rc: $* (log $logf)"
  return "$rc"
}

cores=$(nproc)
counts=()
for t in "${threads[@]}"; do
  if ((t <= cores)) || [[ ${OVERSUBSCRIBE:-0} == 1 ]]; then counts+=("$t"); else note "thread count $t dropped: this host has $cores cores (OVERSUBSCRIBE=1 keeps it)"; fi
done
((${#counts[@]} > 0)) || { echo "gap-vs-t1: no thread count left" >&2; exit 2; }
max_t=${counts[-1]}

# 1. GAP, built from the given source with its own Makefile (g++ -O3 -fopenmp).
[[ ${PARSE_ONLY:-0} == 1 ]] && graphs_only=1 || graphs_only=0
((graphs_only)) || run_capped 120 "$log/gap-build.log" make -C "$gap_src" pr_spmv converter || { cat "$log/gap-build.log" >&2; exit 1; }
if [[ -e $gap_src/.git ]]; then
  gap_rev=$(git -C "$gap_src" rev-parse --short HEAD)
elif [[ -s $gap_src/REVISION ]]; then
  gap_rev=$(head -c 40 "$gap_src/REVISION")
else
  gap_rev="unknown revision, src/pr_spmv.cc sha256 $(sha256sum "$gap_src/src/pr_spmv.cc" | cut -c1-12)"
fi

graphs=(aan)
for s in "${scales[@]}"; do graphs+=("rmat$s"); done
in_scaling() {
  local g=$1 x
  for x in "${scaling[@]}"; do [[ $x == "$g" || rmat$x == "$g" ]] && return 0; done
  return 1
}

# Seconds a graph needs at least (export + convert + one GAP and one prlab run) on a 16-core host.
# 2^24: 150 s, not 240: the committed run (reports/h200-gap-2026-12-02) took 174 s for the whole
# 2^24 step on the 16-core H200 host; the later steps' caps shrink to the time left.
need_s() { case $1 in aan) echo 15 ;; rmat2[4-9]) echo 150 ;; rmat2[2-3]) echo 150 ;; *) echo 40 ;; esac; }
step_s=${PRLAB_STEP_S:-150}
# rung_for G T: the fixed timing protocol of graph G at T threads (iterations x runs; see the header).
rung_for() {
  if [[ -n ${RUNG:-} ]]; then echo "$RUNG"; return; fi
  case $1 in
    aan) echo 50x10 ;;
    rmat1[0-9] | rmat20 | rmat21) echo 20x5 ;;
    rmat22 | rmat23) if (($2 <= 2)); then echo 10x3; else echo 20x3; fi ;;
    *) echo 20x3 ;;
  esac
}
for g in "${graphs[@]}"; do
  el=$work/gap-$g.el sg=$work/gap-$g.sg # gap-: prlab reserves the names rmatN and gridN
  ((graphs_only)) && break
  if [[ -n ${ONLY:-} && " $ONLY " != *" $g "* ]]; then continue; fi
  if [[ ! -s $sg ]] && (($(left) < $(need_s "$g"))); then
    note "$g: skipped: $(left) s left, it needs about $(need_s "$g") s (run again with ONLY=$g)"
    continue
  fi
  # 2. The .el file: prlab export (the any-graph CLI).
  if [[ ! -s $el && ! -s $sg ]]; then
    if [[ $g == aan ]]; then
      spec=(--graph data/aan/acl.txt.gz)
    else
      spec=(--rmat "${g#rmat}")
    fi
    # Written under a temporary name: a step cut short leaves no file that looks finished.
    if run_capped 150 "$log/$g-export.log" "$prlab" export "${spec[@]}" --format el --out "$el.part.el"; then
      mv "$el.part.el" "$el"
    else
      rm -f "$el.part.el"
      note "$g: no .el file (prlab export failed or is missing; see $log/$g-export.log): graph skipped"
      continue
    fi
  fi
  # 3. GAP's converter: .el -> .sg once (read + build times, edge count).
  if [[ ! -s $sg ]]; then
    if run_capped 240 "$log/$g-convert.log" "$gap_src/converter" -f "$el" -b "$sg.part"; then
      mv "$sg.part" "$sg"
    else
      rm -f "$sg.part"
      note "$g: converter failed: graph skipped"
      continue
    fi
  fi
  if in_scaling "$g"; then run_counts=("${counts[@]}"); else run_counts=("$max_t"); fi
  for t in "${run_counts[@]}"; do
    # 4. GAP pr_spmv: 5 trials of 20 iterations, no tolerance stop.
    OMP_NUM_THREADS=$t run_capped 120 "$log/$g-gap-t$t.log" "$gap_src/pr_spmv" -f "$sg" -i 20 -t 0 -n 5
    # 5. prlab T1 (f64 and f32) with --workers t.
    d=$work/prlab-$g-w$t
    oracle=-1
    ((t == 1)) && in_scaling "$g" && oracle=0 # T0 once per scaling graph (budget permitting), for the speed-up over T0
    b=$(($(left) - 40))
    ((b > step_s)) && b=$step_s
    if ((b < 10)); then
      note "$g: prlab --workers $t skipped (budget spent)"
      continue
    fi
    run_capped $((b + 30)) "$log/$g-prlab-w$t.log" "$prlab" scale --graph "$el" --format el \
      --min-scale 1 --max-scale 1 --grid=false --impl t1-multicore-f64,t1-multicore-f32 \
      --oracle-max-scale "$oracle" --validate-iterations 5 --copy-mib 64 --budget "${b}s" \
      --rung "$(rung_for "$g" "$t")" --workers "$t" --out "$d"
  done
done

# 6. Parse every log and JSON into the two CSVs.
host="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') ($cores cores)"
commit=$(cat .gpu/COMMIT 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)
# +dirty when the code differs from the commit (reports/, where results go, does not count)
if [[ ! -f .gpu/COMMIT && -n $(git status --porcelain --untracked-files=no -- . ':!reports' 2>/dev/null) ]]; then commit+="+dirty"; fi
python3 "$repo/scripts/gap_vs_t1_csv.py" --work "$work" --out "$out_dir" --host "$host" \
  --commit "$commit" --gap-rev "$gap_rev" --graphs "${graphs[*]}" --threads "${counts[*]}" || exit 1
if [[ ${PARSE_ONLY:-0} != 1 ]]; then
  {
    echo "gap-vs-t1.sh run: $(date -u +%FT%TZ), host $host, prlab commit $commit, GAP $gap_rev, $((SECONDS - start)) s of ${budget} s"
    load_end=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)
    verdict="at or under $cores: no sign that other processes competed for the cores"
    if awk -v c="$cores" '{ for (i = 1; i <= NF; i++) if ($i + 0 > c) bad = 1 } END { exit !bad }' <<<"$load_start $load_end"; then
      verdict="above $cores: other processes competed for the cores"
    fi
    echo "load average (1, 5, 15 min) at the start: $load_start; at the end: $load_end ($verdict)"
  } >"$work/run.txt"
fi
{
  cat "$work/run.txt" 2>/dev/null
  [[ ${PARSE_ONLY:-0} == 1 ]] && echo "CSVs rewritten from $work at $(date -u +%FT%TZ) (PARSE_ONLY=1, nothing measured)"
  echo "commands:"
  cat "$log/commands.txt"
  echo "notes:"
  cat "$notes"
} >"$out_dir/README-run.txt"
# GAP's own output (a few hundred bytes a run) goes with the CSVs as the raw record.
mkdir -p "$out_dir/logs"
cp "$log"/*-convert.log "$log"/*-gap-t*.log "$log/commands.txt" "$out_dir/logs/" 2>/dev/null
[[ -n ${OUT:-} ]] && cp -r "$out_dir"/*.csv "$out_dir/README-run.txt" "$out_dir/logs" "$OUT/" 2>/dev/null
echo "gap-vs-t1: wrote $out_dir/gap-vs-t1.csv, $out_dir/t1-scaling.csv and $out_dir/README-run.txt in $((SECONDS - start)) s"
