#!/usr/bin/env bash
# layout-gpu-run.sh — the GPU-host half of the layout designs'
# round trip (pkg/cudabind/designs.go, layout.go, csrc/layout.cu).
#
# On the CPU machine (no GPU, no CUDA needed):
#   go test -c -o .gpu/cudabind.test ./pkg/cudabind
# On the GPU host, in a copy of the repository (with the bundled data/aan/acl.txt.gz):
#   scripts/layout-gpu-run.sh
#
# Steps: (1) build build/libprlab_cuda.so, one nvcc per source file in
# parallel (layout.cu with -Xptxas -v: registers, shared memory, spills);
# (2) run the layout-design tests: correctness on the six synthetic cases and the
# real graph (three layouts), convergence, and the timing table
# (PRLAB_LAYOUT_TABLE=1: every GPU design on the real graph, stage
# rows, primitives, layout sweeps; RMAT=s adds an RMAT graph of scale s);
# (3) compute-sanitizer memcheck, racecheck and synccheck over the synthetic
# cases (PRLAB_GPU_QUICK=1). Logs go to $OUT (or reports/layout-latest):
# env.txt, build.log, test.log, sanitizer.log, layout-results.json.
#
# Environment: CUDA_ARCHS (default 90), NVCC, SANITIZE=0 to skip (3),
# RMAT (e.g. 20), TEST_TIMEOUT (seconds, default 240), SAN_TIMEOUT (default 90),
# CLUSTER_SAN_TIMEOUT (default 45).
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo" || exit 2
out=${OUT:-$repo/reports/layout-latest}
mkdir -p "$out" build/obj
archs=${CUDA_ARCHS:-90}
test_timeout=${TEST_TIMEOUT:-240}
san_timeout=${SAN_TIMEOUT:-90}

# shellcheck source=scripts/lib-gpu.sh
source scripts/lib-gpu.sh
nvcc=${NVCC:-$(find_tool nvcc)} || { echo "layout-gpu-run: nvcc not found" >&2; exit 2; }
sanitizer=$(find_tool compute-sanitizer) || sanitizer=""

write_env "$out/env.txt" "$archs" "$nvcc"
cat "$out/env.txt"

t0=$SECONDS
build_lib "$archs" "$nvcc" >"$out/build.log" 2>&1
build_rc=$?
echo "build: rc=$build_rc in $((SECONDS - t0)) s"
if ((build_rc != 0)); then
  grep -E 'error|Error' "$out/build.log" | head -n 40
  exit 1
fi
grep -A2 'Compiling entry' "$out/build.log" | grep -E 'Used|spill' | sort | uniq -c | head -n 30
export PRLAB_CUDA_LIB=$repo/build/libprlab_cuda.so

test_bin=$repo/.gpu/cudabind.test
if [[ ! -x $test_bin ]]; then
  echo "layout-gpu-run: $test_bin missing: go test -c -o .gpu/cudabind.test ./pkg/cudabind" >&2
  exit 2
fi
t0=$SECONDS
(cd pkg/cudabind && PRLAB_LAYOUT_TABLE=1 PRLAB_LAYOUT_OUT="$out" PRLAB_LAYOUT_RMAT="${RMAT:-}" \
  timeout "$test_timeout" "$test_bin" -test.v -test.count=1 -test.timeout="$((test_timeout - 5))s" \
  -test.run 'Layout|T4Buckets') >"$out/test.log" 2>&1
test_rc=$?
echo "tests: rc=$test_rc in $((SECONDS - t0)) s"

san_rc=0
# sanitize NAME TIMEOUT TOOL [VAR=VALUE...]: one compute-sanitizer run of the
# correctness test in quick mode, narrowed by PRLAB_GPU_ONLY / _LAYOUTS /
# _CASES. racecheck of one 16 x 1024-thread cluster launch took over a minute
# in run 1, so the cluster kernels get their own short racecheck on tiny.
sanitize() {
  local name=$1 limit=$2 tool=$3 rc t0=$SECONDS
  shift 3
  (cd pkg/cudabind && env PRLAB_GPU_QUICK=1 GODEBUG=asyncpreemptoff=1 "$@" timeout "$limit" \
    "$sanitizer" --tool "$tool" --error-exitcode 3 --print-limit 20 \
    "$test_bin" -test.v -test.count=1 -test.run 'TestGPULayoutCorrectness') >>"$out/sanitizer.log" 2>&1
  rc=$?
  echo "compute-sanitizer $tool ($name): rc=$rc in $((SECONDS - t0)) s" | tee -a "$out/sanitizer.log"
  ((rc != 0)) && san_rc=$rc
  return 0
}
if [[ ${SANITIZE:-1} == 1 && -n $sanitizer ]]; then
  : >"$out/sanitizer.log"
  sanitize "all" "$san_timeout" memcheck
  sanitize "all" "$san_timeout" synccheck
  sanitize "no cluster" "$san_timeout" racecheck \
    PRLAB_GPU_ONLY=gpu-t4-bucketed,gpu-fused,gpu-graph,gpu-persistent
  sanitize "cluster, tiny" "${CLUSTER_SAN_TIMEOUT:-45}" racecheck \
    PRLAB_GPU_ONLY=gpu-cluster PRLAB_GPU_CASES=tiny PRLAB_GPU_LAYOUTS=auto,reread
fi

echo "================ summary"
grep -E '^(--- (PASS|FAIL|SKIP)|PASS|FAIL|panic)' "$out/test.log" | head -n 30
grep -E 'FAIL$|fails|: gpu-|Error|error' "$out/test.log" | grep -v '^=== ' | head -n 30
grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY|Race reported|compute-sanitizer .*rc=' "$out/sanitizer.log" 2>/dev/null | head -n 30
grep -E 'primitive:|T4 bucket|tiles [0-9]|stage gpu-|sweep |DRAM copy row|RMAT|rmat' "$out/test.log" | sed 's/^ *layout_test.go:[0-9]*: //' | head -n 80
sed -n '/^ *GPU: .*real graph/,/^ *--- /p' "$out/test.log" | head -n 40
((test_rc != 0 || san_rc != 0)) && exit 1
exit 0
