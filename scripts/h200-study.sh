#!/usr/bin/env bash
# h200-study.sh — the GPU host's half of a committed prlab report.
#
# On the CPU machine (Go, no CUDA):  make gpu-bundle
#   builds .gpu/prlab and .gpu/cudabind.test; the real graph is bundled in data/aan (committed).
# On the GPU host, in a copy of the repository carrying .gpu and data/aan:
#   scripts/h200-study.sh PHASE...
# Phases, in the order given:
#   build     build/libprlab_cuda.so for CUDA_ARCHS (default 90), unless it is newer than every source
#   tests     the whole cudabind test binary (every GPU test, stage-by-stage, layout and relabelled designs),
#             then the host-only layout check of gpu-cluster-dsmem (testdata/cluster_dsmem_layout_check.cu,
#             built with nvcc) on the six synthetic cases and the real graph
#   sanitize  compute-sanitizer memcheck, racecheck, synccheck and initcheck over the six synthetic
#             cases for every GPU implementation (quick mode: 10 iterations); the cluster kernels'
#             racecheck runs alone on tiny (one 16 x 1024-thread launch is slow under racecheck),
#             gpu-cluster-dsmem's with its stores, L2 and async exchanges (async also on the contiguous split)
#             and its timed kernel (TestGPUClusterDSMEMTimedKernelAgrees, the exchanges in CLUSTER_TIMED_EXCHANGES,
#             default: default); SAN_SKIP skips runs by "TOOL NAME"
#   report    prlab report: every implementation, six cases + the real graph -> $work/h200-report
#   oom       GPU out of memory, contained: a helper process holds all but ~1 GiB of device memory,
#             then prlab report on tiny + the real graph: the GPU context or its buffers do not fit, GPU rows are failed/skipped with the CUDA error, CPU rows pass
#   scale     prlab scale --budget $SCALE_BUDGET (default 6m) $SCALE_ARGS -> $work/h200-scale
#   verify    prlab verify of $VERIFY_REPORT (default reports/h200-2026-11-30-run2) twice -> $work/verify-report
#             and $work/verify-report-again, prlab compare of the two reruns (how far the float32
#             convergence counts move between two runs on one GPU) -> $work/verify-reruns, and
#             prlab verify $VERIFY_SCALE_ARGS of $VERIFY_SCALE (default its scale-subset/) -> $work/verify-scale
# Everything lands in $work (default $OUT/h200, else reports/h200-latest); at the end the folder
# is packed into $OUT/h200-<phases>.tar.gz (the device tool returns at most 8 files) and the
# summary lines are printed last.
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo" || exit 2
# shellcheck source=scripts/lib-gpu.sh
source scripts/lib-gpu.sh
work=${WORK:-${OUT:+$OUT/h200}}
work=${work:-$repo/reports/h200-latest}
mkdir -p "$work"
archs=${CUDA_ARCHS:-90}
nvcc=${NVCC:-$(find_tool nvcc)} || { echo "h200-study: nvcc not found" >&2; exit 2; }
sanitizer=$(find_tool compute-sanitizer) || sanitizer=""
export PRLAB_CUDA_LIB=$repo/build/libprlab_cuda.so
if [[ -f .gpu/COMMIT ]]; then
  PRLAB_COMMIT=$(cat .gpu/COMMIT)
  export PRLAB_COMMIT # the copy here has no .git; the report's environment block names this commit
fi
summary=$work/summary.txt
note() { echo "$*" | tee -a "$summary"; }
write_env "$work/env.txt" "$archs" "$nvcc"
cat "$work/env.txt"

need() { [[ -x $1 ]] || { note "missing $1: run make gpu-bundle on the CPU machine and carry .gpu"; exit 2; }; }

phase_build() {
  local t0=$SECONDS newest
  newest=$(find pkg/cudabind/csrc -newer build/libprlab_cuda.so 2>/dev/null | head -n 1)
  if [[ -f build/libprlab_cuda.so && -z $newest ]]; then
    note "build: kept build/libprlab_cuda.so (newer than every source)"
    return 0
  fi
  build_lib "$archs" "$nvcc" >"$work/build.log" 2>&1
  local rc=$?
  note "build: rc=$rc in $((SECONDS - t0)) s (archs $archs)"
  ((rc == 0)) || { grep -E 'error' "$work/build.log" | head -n 30; exit 1; }
}

phase_tests() {
  need .gpu/cudabind.test
  local t0=$SECONDS
  (cd pkg/cudabind && PRLAB_GPU_OUT="$work" timeout 300 ../../.gpu/cudabind.test -test.v -test.count=1 -test.timeout=290s) >"$work/test.log" 2>&1
  note "tests: rc=$? in $((SECONDS - t0)) s; $(grep -c '^--- PASS' "$work/test.log") passed, $(grep -c '^--- FAIL' "$work/test.log") failed, $(grep -c '^--- SKIP' "$work/test.log") skipped"
  grep '^--- FAIL' "$work/test.log" | tee -a "$summary"
  t0=$SECONDS
  local csr=$work/layout-check-csr rc
  mkdir -p "$csr"
  if "$nvcc" -std=c++17 -O2 -Ipkg/cudabind/csrc pkg/cudabind/testdata/cluster_dsmem_layout_check.cu -o "$work/layout-check" >"$work/layout-check.log" 2>&1 &&
    (cd pkg/cudabind && PRLAB_DSM_LAYOUT_DUMP=$csr ../../.gpu/cudabind.test -test.run TestDumpCSRForLayoutCheck) >>"$work/layout-check.log" 2>&1; then
    "$work/layout-check" "$csr"/*.bin >>"$work/layout-check.log" 2>&1
    rc=$?
  else
    rc=2
  fi
  note "layout check: rc=$rc in $((SECONDS - t0)) s; $(grep -c ' 0 errors' "$work/layout-check.log") configurations without errors, $(grep -Ec ' [1-9][0-9]* errors' "$work/layout-check.log") with errors"
  rm -rf "$csr" "$work/layout-check"
}

# san NAME LIMIT TOOL TESTS [VAR=VALUE...]: one compute-sanitizer run of the test binary in quick mode.
# SAN_SKIP (an extended regex) skips the runs whose "TOOL NAME" it matches, e.g. 'racecheck (hothead|propblock)'
# for designs whose sources did not change since a committed report's clean run; each skip is noted.
san() {
  local name=$1 limit=$2 tool=$3 tests=$4 rc t0=$SECONDS log
  shift 4
  if [[ -n ${SAN_SKIP:-} && "$tool $name" =~ ${SAN_SKIP} ]]; then
    note "compute-sanitizer $tool ($name): skipped (SAN_SKIP)"
    return 0
  fi
  log=$work/sanitizer-$tool-${name// /-}.log
  (cd pkg/cudabind && env PRLAB_GPU_QUICK=1 PRLAB_GPU_OUT='' GODEBUG=asyncpreemptoff=1 "$@" timeout "$limit" \
    "$sanitizer" --tool "$tool" --error-exitcode 3 --print-limit 50 \
    ../../.gpu/cudabind.test -test.v -test.count=1 -test.run "$tests") >"$log" 2>&1
  rc=$?
  local races ours
  races=$(grep -c 'Race reported' "$log")
  ours=$(grep 'Race reported' "$log" | grep -vc 'cusparse::')
  note "compute-sanitizer $tool ($name): rc=$rc in $((SECONDS - t0)) s; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY' "$log" | tr '\n' ' ')races reported: $races (outside cuSPARSE: $ours); tests $(grep -c '^--- PASS' "$log") passed $(grep -c '^--- FAIL' "$log") failed"
}

phase_sanitize() {
  need .gpu/cudabind.test
  [[ -n $sanitizer ]] || { note "sanitize: compute-sanitizer not found, skipped"; return 0; }
  local course='TestGPUSyntheticCases|TestGPUReductionBudget' layout='TestGPULayoutCorrectness'
  local tool
  for tool in memcheck synccheck initcheck; do
    san "course" 120 "$tool" "$course"
    san "layout" 120 "$tool" "$layout"
    san "hothead" 120 "$tool" TestGPUHotHeadCorrectness
    san "propblock" 120 "$tool" TestGPUPropBlockCorrectness
  done
  san "course" 120 racecheck "$course"
  san "hothead" 120 racecheck TestGPUHotHeadCorrectness
  san "propblock" 120 racecheck TestGPUPropBlockCorrectness
  san "layout, no cluster" 120 racecheck "$layout" PRLAB_GPU_ONLY=gpu-t4-bucketed,gpu-fused,gpu-graph,gpu-persistent
  # the cluster kernels' racechecks (slow: SAN_SKIP='^racecheck cluster' leaves them out)
  san "cluster, tiny" "${CLUSTER_SAN_LIMIT:-150}" racecheck "$layout" PRLAB_GPU_ONLY=gpu-cluster PRLAB_GPU_CASES=tiny PRLAB_GPU_LAYOUTS=auto
  san "cluster-dsmem, tiny" "${CLUSTER_SAN_LIMIT:-240}" racecheck 'TestGPUClusterDSMEM$' PRLAB_GPU_CASES=tiny \
    "PRLAB_DSMEM_CONFIGS=stores,l2,async,async contiguous"
  san "cluster-dsmem timed, tiny" "${CLUSTER_SAN_LIMIT:-240}" racecheck 'TestGPUClusterDSMEMTimedKernelAgrees$' PRLAB_GPU_CASES=tiny \
    "PRLAB_DSMEM_TIMED=${CLUSTER_TIMED_EXCHANGES:-default}"
}

phase_report() {
  need .gpu/prlab
  local t0=$SECONDS
  .gpu/prlab report --out "$work/h200-report" >"$work/report.log" 2>&1
  note "report: rc=$? in $((SECONDS - t0)) s -> h200-report/"
  grep -E '^(loaded|every|[0-9]+ (failed|of))|verdict|FAIL|fail ' "$work/report.log" | head -n 20 | tee -a "$summary"
}

phase_oom() {
  need .gpu/prlab
  local t0=$SECONDS holder
  # Hold all but ~1 GiB of device memory in another process (PyTorch is on the GPU host's image).
  python3 - >"$work/oom-holder.log" 2>&1 <<'PY' &
import time, torch
free, total = torch.cuda.mem_get_info()
keep = free - (256 << 20)
x = torch.empty(keep, dtype=torch.uint8, device="cuda")
print(f"holding {keep} of {total} bytes; free now {torch.cuda.mem_get_info()[0]}", flush=True)
time.sleep(120)
PY
  holder=$!
  for _ in $(seq 60); do grep -q holding "$work/oom-holder.log" && break; sleep 1; done
  tee -a "$summary" <"$work/oom-holder.log"
  # With 256 MiB left, either the CUDA context of prlab itself or the stage table's 128 MiB
  # copy buffers and the library work buffers no longer fit: both must end as a clear error.
  .gpu/prlab report --out "$work/oom-report" --cases tiny,aan --runs 2 >"$work/oom.log" 2>&1
  note "oom: prlab report rc=$? in $((SECONDS - t0)) s with device memory held"
  grep -iE 'out of memory|failed' "$work/oom.log" | head -n 8 | tee -a "$summary"
  kill "$holder" 2>/dev/null
  wait "$holder" 2>/dev/null
}

phase_scale() {
  need .gpu/prlab
  local t0=$SECONDS
  # SCALE_ARGS narrows the study (e.g. "--min-scale 22 --max-scale 24 --grid=false --impl a,b").
  local -a extra
  read -r -a extra <<<"${SCALE_ARGS:-}"
  .gpu/prlab scale --budget "${SCALE_BUDGET:-6m}" "${extra[@]}" --out "$work/h200-scale" >"$work/scale.log" 2>&1
  note "scale: rc=$? in $((SECONDS - t0)) s -> h200-scale/ (${SCALE_ARGS:-all scales})"
  tail -n 25 "$work/scale.log" | tee -a "$summary"
}

phase_verify() {
  need .gpu/prlab
  local t0=$SECONDS rc target=${VERIFY_REPORT:-reports/h200-2026-11-30-run2}
  local scale=${VERIFY_SCALE:-$target/scale-subset}
  local -a extra
  read -r -a extra <<<"${VERIFY_SCALE_ARGS:-}"
  .gpu/prlab verify --out "$work/verify-report" "$target" >"$work/verify.log" 2>&1
  rc=$?
  note "verify: rc=$rc in $((SECONDS - t0)) s -> verify-report/ (of $target)"
  grep -E '^(Re-verified|FAIL)' "$work/verify.log" | head -n 20 | tee -a "$summary"
  .gpu/prlab verify --out "$work/verify-report-again" "$target" >"$work/verify-again.log" 2>&1
  note "verify again: rc=$? -> verify-report-again/"
  .gpu/prlab compare --out "$work/verify-reruns" "$work/verify-report" "$work/verify-report-again" >"$work/verify-reruns.log" 2>&1
  note "compare of the two reruns: rc=$? -> verify-reruns/; float32 convergence counts (first rerun, second rerun):"
  grep '^gate,convergence iterations,' "$work/verify-reruns/verify.csv" | grep float32 | cut -d, -f5-7 | tee -a "$summary"
  if [[ -f $scale/scale.json ]]; then
    t0=$SECONDS
    .gpu/prlab verify "${extra[@]}" --out "$work/verify-scale" "$scale" >"$work/verify-scale.log" 2>&1
    note "verify scale: rc=$? in $((SECONDS - t0)) s -> verify-scale/ (of $scale ${VERIFY_SCALE_ARGS:-})"
    grep -E '^(Re-verified|FAIL)' "$work/verify-scale.log" | head -n 20 | tee -a "$summary"
  fi
}

phases=("$@")
((${#phases[@]})) || phases=(build tests sanitize report)
for ph in "${phases[@]}"; do
  case $ph in
  build | tests | sanitize | report | oom | scale | verify) "phase_$ph" ;;
  *) echo "h200-study: unknown phase $ph" >&2; exit 2 ;;
  esac
done
if [[ -n ${OUT:-} ]]; then
  name=$(IFS=-; echo "${phases[*]}")
  tar -czf "$OUT/h200-$name.tar.gz" -C "$(dirname "$work")" "$(basename "$work")"
  cp "$summary" "$OUT/summary-$name.txt"
fi
echo "================ summary"
cat "$summary"
