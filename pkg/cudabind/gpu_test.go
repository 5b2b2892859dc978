package cudabind

// Tests that need a GPU and libprlab_cuda.so. Each skips with the reason
// when either is missing. Knobs (environment):
//
//	PRLAB_GPU_QUICK=1    short runs for compute-sanitizer: 10 iterations, small reductions, no timing
//	PRLAB_GPU_OUT=dir    write gpu-results.json (device, validation, timings, stage tables) there
//	PRLAB_GPU_LARGE_N=n  node count of the DRAM-sized timing graph (default 2,000,000; 0 skips it)

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/prlab/prlab/pkg/pagerank"
)

// gpuReport collects what the GPU tests measured, written to $PRLAB_GPU_OUT.
var gpuReport = struct {
	sync.Mutex
	Device      *Device               `json:"device,omitempty"`
	Validation  []pagerank.Validation `json:"validation"`
	Convergence []map[string]any      `json:"convergence"`
	Reductions  []map[string]any      `json:"reductions"`
	Benchmarks  []*pagerank.Result    `json:"benchmarks"`
	StageTables []*StageTable         `json:"stage_tables"`
}{}

func writeGPUReport(t *testing.T) {
	gpuReport.Lock()
	defer gpuReport.Unlock()
	writeResults(t, "PRLAB_GPU_OUT", "gpu-results.json", &gpuReport)
}

// writeResults writes v as indented JSON to file in the directory named by
// the environment variable env (nothing when it is unset).
func writeResults(t *testing.T, env, file string, v any) {
	t.Helper()
	dir := os.Getenv(env)
	if dir == "" {
		return
	}
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Errorf("marshal %s: %v", file, err)
		return
	}
	if err := os.WriteFile(filepath.Join(dir, file), b, 0o644); err != nil {
		t.Errorf("write %s: %v", file, err)
	}
}

func TestGPUDeviceInfo(t *testing.T) {
	frNeedGPU(t)
	d, err := DeviceInfo()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("GPU: %s", d)
	t.Logf("library %s, built for %s, %d device(s), %d bytes of memory", d.Library, d.CompiledArchs, d.DeviceCount, d.GlobalMemBytes)
	if d.Name == "" || d.CCMajor*10+d.CCMinor < 75 || d.SMs < 1 || d.L2Bytes < 1 || d.MaxThreadsPerBlock < 256 || d.WarpSize != 32 {
		t.Errorf("implausible device info %+v", d)
	}
	if d.KernelBinaryVersion < 75 || d.DriverVersion < d.RuntimeVersion/1000*1000 || d.CCCL == "" || d.CusparseVersion <= 0 {
		t.Errorf("implausible versions %+v", d)
	}
	gpuReport.Lock()
	gpuReport.Device = &d
	gpuReport.Unlock()
	writeGPUReport(t)
}

// oracleResult wraps oracle64's ranks as the Result pagerank.Validate expects.
func oracleResult(g *pagerank.Graph, iters int) *pagerank.Result {
	x, k := oracle64(g, pagerank.DefaultDamping, iters, 0)
	return &pagerank.Result{Implementation: "oracle64", Case: g.Name, N: g.N, NNZ: g.NNZ, Ranks: x, Iterations: k}
}

// Every implementation on the six synthetic cases, 100 fixed iterations
// against a float64 computation: sum invariant, Spearman over the top 100,
// per-element relative error <= 1e-3 (pagerank.Validate); one residual and
// one sum per iteration; and the residual actually shrinking.
func TestGPUSyntheticCases(t *testing.T) {
	frNeedGPU(t)
	iters := pagerank.CorrectnessIterations
	if frQuick() {
		iters = 10
	}
	t.Logf("correctness, %d fixed iterations on both sides", iters)
	for _, g := range synthetic(t) {
		ref := oracleResult(g, iters)
		for _, im := range stageDesigns() {
			res, v, ok := runValidated(t, im, g, iters, ref)
			if !ok {
				continue
			}
			worstSum := 0.0
			for _, s := range res.Sums {
				worstSum = math.Max(worstSum, math.Abs(s-1))
			}
			t.Logf("  %-10s %-22s n=%-6d nnz=%-6d err/tol=%6.3f sum-1=%+.2e (allowed %.2e, worst iteration %.2e) rho=%.6f  %s",
				g.Name, im.Name(), g.N, g.NNZ, v.ErrOverTol, v.SumMinus1, v.SumAllowed, worstSum, v.Spearman, passOrFail(v))
			if !v.Pass {
				t.Errorf("%s on %s fails validation: %+v", im.Name(), g.Name, v)
			}
			if len(res.Residuals) != iters || len(res.Sums) != iters || res.Iterations != iters {
				t.Errorf("%s on %s: %d residuals, %d sums, %d iterations; want %d each", im.Name(), g.Name,
					len(res.Residuals), len(res.Sums), res.Iterations, iters)
			}
			if math.Abs(res.FinalSum()-(1+v.SumMinus1)) > 1e-6 {
				t.Errorf("%s on %s: device sum %.9f, host sum %.9f", im.Name(), g.Name, res.FinalSum(), 1+v.SumMinus1)
			}
			if floor := roundingFloor(g); iters >= 100 && g.N > 1 && !(res.FinalResidual() < math.Max(1e-5, floor) && res.FinalResidual() < res.Residuals[0]) {
				t.Errorf("%s on %s: residual %g after %d iterations (first %g, rounding floor %g)", im.Name(), g.Name, res.FinalResidual(), iters, res.Residuals[0], floor)
			}
			gpuReport.Lock()
			gpuReport.Validation = append(gpuReport.Validation, v)
			gpuReport.Unlock()
		}
	}
	writeGPUReport(t)
}

// Tolerance mode: every implementation stops at L1 residual < 1e-6 within a
// few iterations of the float64 computation with the same rule, except where
// float rounding of the longest row sum exceeds the tolerance (the star),
// where the residual must stall under that rounding floor; either way the
// ranks agree with float64 within 1e-3.
func TestGPUConvergence(t *testing.T) {
	frNeedGPU(t)
	if frQuick() {
		t.Skip("quick mode")
	}
	for _, g := range synthetic(t) {
		refX, refIters := oracle64(g, pagerank.DefaultDamping, 1000, pagerank.FloatTolerance)
		for _, im := range stageDesigns() {
			res, err := im.Run(g, pagerank.Converge(pagerank.FloatTolerance, 1000))
			if err != nil {
				t.Errorf("%s on %s: %v", im.Name(), g.Name, err)
				continue
			}
			e := maxRelErr(res.Ranks, refX)
			t.Logf("  %-10s %-22s converged=%v in %d iterations (float64: %d), residual %.2e, max rel err %.2e",
				g.Name, im.Name(), res.Converged, res.Iterations, refIters, res.FinalResidual(), e)
			floor := roundingFloor(g)
			switch {
			case e > pagerank.RelTolerance:
				t.Errorf("%s on %s: rel err %g after %d iterations", im.Name(), g.Name, e, res.Iterations)
			case res.Converged && (res.FinalResidual() >= pagerank.FloatTolerance || absInt(res.Iterations-refIters) > 3):
				t.Errorf("%s on %s: converged after %d iterations (float64 %d), residual %g",
					im.Name(), g.Name, res.Iterations, refIters, res.FinalResidual())
			case !res.Converged && !(floor > pagerank.FloatTolerance && res.FinalResidual() <= floor):
				// Not converging is only excused where the float rounding of the
				// longest row sum can exceed the tolerance (the star's hub).
				t.Errorf("%s on %s: no convergence in %d iterations (float64 %d), residual %g, rounding floor %g",
					im.Name(), g.Name, res.Iterations, refIters, res.FinalResidual(), floor)
			case !res.Converged:
				t.Logf("  %-10s %-22s stalls: the float residual plateaus at %.2e, under the rounding floor %.2e of its %d-term row sum",
					g.Name, im.Name(), res.FinalResidual(), floor, maxInDegree(g))
			}
			gpuReport.Lock()
			gpuReport.Convergence = append(gpuReport.Convergence, map[string]any{
				"case": g.Name, "implementation": im.Name(), "iterations": res.Iterations, "oracle_iterations": refIters,
				"converged": res.Converged, "residual": res.FinalResidual(), "max_rel_err": e})
			gpuReport.Unlock()
		}
	}
	writeGPUReport(t)
}

// maxInDegree is the longest in-edge row of g.
func maxInDegree(g *pagerank.Graph) int {
	m := 0
	for v := 0; v < g.N; v++ {
		m = max(m, g.InDegree(v))
	}
	return m
}

// roundingFloor bounds the L1 residual that float rounding alone can
// sustain: an iteration's row sums carry a relative error of at most
// maxInDegree*eps (serial summation), summed over ranks that add to 1, and
// two successive iterates can each be off by that much. Below this floor
// the rounded map need not have a fixed point, so a float iteration can
// stall (the star: 10000 terms in the hub's row).
func roundingFloor(g *pagerank.Graph) float64 {
	return 2 * float64(maxInDegree(g)+1) * fltEpsilon
}

func absInt(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// The two-pass reductions write at most gridDim.x + 1 floats (the course's
// budget; counted by poisoning every scratch float first), and every
// reduction, with 32 threads per block as well as 1024, gets the sum right
// within its rounding bound.
func TestGPUReductionBudget(t *testing.T) {
	frNeedGPU(t)
	g, err := pagerank.SyntheticCase("tiny")
	if err != nil {
		t.Fatal(err)
	}
	sizes := []int{1, 31, 33, 1000, 28042, 1 << 20}
	threadsList := []int{32, 64, 256, 1024}
	if frQuick() {
		sizes = []int{1, 33, 1000, 28042}
		threadsList = []int{32, 256}
	}
	rng := uint64(12345)
	next := func() float64 { // splitmix64 in [0, 1)
		rng += 0x9e3779b97f4a7c15
		z := rng
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		return float64((z^(z>>31))>>11) / (1 << 53)
	}
	kinds := map[int]string{reduceTree: "tree", reduceShuffle: "shuffle", reduceAtomic: "atomic"}
	for _, n := range sizes {
		a := make([]float32, n)
		b := make([]float32, n)
		mask := make([]uint8, n)
		for i := range a {
			a[i] = float32(next())
			b[i] = float32(next())
			if next() < 0.3 {
				mask[i] = 1
			}
		}
		for which := 0; which <= 1; which++ {
			want, abs := 0.0, 0.0
			for i := range a {
				v := float64(a[i]) * float64(mask[i])
				if which == 1 {
					v = math.Abs(float64(b[i]) - float64(a[i]))
				}
				want += v
				abs += math.Abs(v)
			}
			for kind := reduceTree; kind <= reduceAtomic; kind++ {
				for _, threads := range threadsList {
					if kind == reduceAtomic && threads != 256 {
						continue
					}
					rc, err := checkReduction(g, kind, which, a, b, mask, threads)
					if err != nil {
						t.Fatalf("%s n=%d threads=%d: %v", kinds[kind], n, threads, err)
					}
					// Rounding bound: each thread's serial sum, then the block and grid trees.
					perThread := float64(n)/float64(rc.GridBlocks*threads) + 1
					bound := (perThread + math.Log2(float64(rc.GridBlocks*threads)) + 2) * fltEpsilon * abs
					if kind == reduceAtomic {
						bound = float64(n+1) * fltEpsilon * abs // serial order of arrival
					}
					errAbs := math.Abs(rc.Value - want)
					name := []string{"dangling", "residual"}[which]
					if errAbs > bound+1e-30 || math.IsNaN(rc.Value) {
						t.Errorf("%s %s n=%d threads=%d: %v, want %v (|err| %.3g > bound %.3g)", kinds[kind], name, n, threads, rc.Value, want, errAbs, bound)
					}
					if kind != reduceAtomic && (rc.FloatsWritten > rc.GridBlocks+1 || rc.FloatsWritten < 1 || rc.GridBlocks > 256) {
						t.Errorf("%s %s n=%d threads=%d: wrote %d floats with gridDim.x = %d (budget %d)",
							kinds[kind], name, n, threads, rc.FloatsWritten, rc.GridBlocks, rc.GridBlocks+1)
					}
					gpuReport.Lock()
					gpuReport.Reductions = append(gpuReport.Reductions, map[string]any{
						"kind": kinds[kind], "which": name, "n": n, "threads": threads, "grid": rc.GridBlocks,
						"floats_written": rc.FloatsWritten, "value": rc.Value, "want": want, "abs_err": errAbs, "bound": bound})
					gpuReport.Unlock()
				}
			}
		}
	}
	writeGPUReport(t)
}

// courseLikeGraph is a deterministic citation-like graph: nnz edges drawn
// with sources uniform over the first 92% of the nodes (so about 8% are
// dangling, as in the course's 2,204 of 28,042) and targets skewed towards
// low indices (t = n u^1.5), duplicates and self-loops dropped.
func courseLikeGraph(t *testing.T, name string, n, nnz int) *pagerank.Graph {
	t.Helper()
	src := make([]int32, 0, nnz)
	dst := make([]int32, 0, nnz)
	rng := uint64(0x51ed270b)
	next := func() float64 {
		rng += 0x9e3779b97f4a7c15
		z := rng
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		return float64((z^(z>>31))>>11) / (1 << 53)
	}
	citing := int(0.92 * float64(n))
	for len(src) < nnz {
		s := int32(next() * float64(citing))
		d := int32(float64(n) * math.Pow(next(), 1.5))
		if d >= int32(n) {
			d = int32(n - 1)
		}
		src = append(src, s)
		dst = append(dst, d)
	}
	g, err := pagerank.NewGraph(name, n, src, dst, nil)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Timing protocol on a course-sized graph and a DRAM-sized one: 50
// iterations, 3 warm-ups, 10 runs, CUDA events; every stage alone; the copy
// rows. Checks the numbers are well-formed and that the timed loop computes
// the same ranks as a correctness run of 50 iterations.
func TestGPUBenchmarkAndStages(t *testing.T) {
	frNeedGPU(t)
	if frQuick() {
		t.Skip("quick mode")
	}
	graphs := []*pagerank.Graph{courseLikeGraph(t, "course-like", CourseN, CourseNNZ)}
	largeN := 2_000_000
	if s := os.Getenv("PRLAB_GPU_LARGE_N"); s != "" {
		largeN, _ = strconv.Atoi(s)
	}
	if largeN > 0 {
		graphs = append(graphs, courseLikeGraph(t, "large", largeN, 10*largeN))
	}
	for _, g := range graphs {
		t.Logf("%s: %s", g.Name, g.Summary())
		tab, err := MeasureStages(g, StageOptions{})
		if err != nil {
			t.Fatalf("stage table on %s: %v", g.Name, err)
		}
		var sb strings.Builder
		fmt.Fprintf(&sb, "stage table, %s (n=%d, nnz=%d), median of %d after %d warm-ups\n", g.Name, g.N, g.NNZ, StageRepeats, pagerank.TimingWarmups)
		fmt.Fprintf(&sb, "%-40s %10s %12s %9s %8s\n", "stage", "ms", "bytes", "GB/s", "x DRAM")
		for _, r := range tab.Rows() {
			gbps := float64(r.Bytes) / (r.Ms * 1e6) // for this log; the study computes the reported rates
			fmt.Fprintf(&sb, "%-40s %10.4f %12d %9.1f %8.3f\n", r.Name, r.Ms, r.Bytes, gbps, gbps/dramGBps(tab))
			if !(r.Ms > 0) || r.Bytes <= 0 {
				t.Errorf("%s: stage row %+v", g.Name, r)
			}
		}
		t.Log("\n" + sb.String())

		sb.Reset()
		fmt.Fprintf(&sb, "%d iterations end to end, mean of %d runs after %d warm-ups, CUDA events, copies not included\n",
			pagerank.TimingIterations, pagerank.TimingRuns, pagerank.TimingWarmups)
		fmt.Fprintf(&sb, "%-24s %9s %9s %9s %6s %10s %9s %8s %7s %5s\n", "implementation", "mean ms", "median ms", "ms/iter", "CV", "bytes/iter", "GB/s", "x DRAM", "launch", "sync")
		var handMs, libMs float64
		for _, pi := range stageDesigns() {
			im := designImpl(pi)
			res, err := im.Benchmark(g, pagerank.Fixed(pagerank.TimingIterations), pagerank.TimingWarmups, pagerank.TimingRuns)
			if err != nil {
				t.Errorf("%s on %s: %v", im.Name(), g.Name, err)
				continue
			}
			tm := res.Timing
			gbps := float64(res.BytesPerIteration) * float64(tm.Iterations) / (tm.MedianMs * 1e6)
			fmt.Fprintf(&sb, "%-24s %9.4f %9.4f %9.5f %5.1f%% %10d %9.1f %8.3f %7.0f %5.0f\n", im.Name(), tm.MeanMs, tm.MedianMs,
				tm.MsPerIteration(), 100*tm.CV, res.BytesPerIteration, gbps, gbps/dramGBps(tab), res.LaunchesPerIteration, res.HostSyncsPerIteration)
			if len(tm.RunsMs) != pagerank.TimingRuns || !(tm.MedianMs > 0) || len(res.Stages) != len(im.stages) {
				t.Errorf("%s on %s: timing %+v, %d stages", im.Name(), g.Name, tm, len(res.Stages))
			}
			switch im.Name() {
			case NameWarpPerRow:
				handMs = tm.MeanMs
			case NameThrustCUB:
				libMs = tm.MeanMs
			}
			// The timed loop computes what a correctness run computes.
			ref, err := im.Run(g, pagerank.Fixed(pagerank.TimingIterations))
			if err != nil {
				t.Errorf("%s on %s: %v", im.Name(), g.Name, err)
				continue
			}
			if e := maxRelErr(res.Ranks, ref.Ranks); e > 1e-4 {
				t.Errorf("%s on %s: benchmark ranks differ from a 50-iteration run by %.3g", im.Name(), g.Name, e)
			}
			res.Ranks = nil // keep the JSON small
			gpuReport.Lock()
			gpuReport.Benchmarks = append(gpuReport.Benchmarks, res)
			gpuReport.Unlock()
		}
		if handMs > 0 && libMs > 0 {
			hb := designOf(implWarpPerRow).BytesFormula().Bytes(g.N, g.NNZ)
			lb := designOf(implThrustCUB).BytesFormula().Bytes(g.N, g.NNZ)
			fmt.Fprintf(&sb, "warp per row takes %.2fx the Thrust + CUB time and moves %.2fx its bytes\n", handMs/libMs, float64(hb)/float64(lb))
		}
		fmt.Fprintf(&sb, "L2 on this card is %d bytes, and one hand-written iteration touches %d\n", tab.Device.L2Bytes, tab.CopyIteration.Bytes)
		t.Log("\n" + sb.String())
		gpuReport.Lock()
		gpuReport.StageTables = append(gpuReport.StageTables, tab)
		gpuReport.Unlock()
		if err := Release(); err != nil {
			t.Error(err)
		}
	}
	writeGPUReport(t)
}

// dramGBps is the DRAM copy row's rate in tab (for the logs of these tests).
func dramGBps(tab *StageTable) float64 {
	return float64(tab.CopyDRAM.Bytes) / (tab.CopyDRAM.Ms * 1e6)
}

// Resident sessions on the device: after every batch (random insertions,
// deletions, mixed; new nodes, duplicates, self-loops, absent deletions, a
// row emptied) the device's in-edge CSR, out-degrees, dangling mask and
// mass equal a rebuild's, the counts equal ApplyBatch's, and the warm and
// cold starts pass the gates against float64 and each other.
func TestResidentGPU(t *testing.T) {
	frNeedGPU(t)
	checkResidentSessions(t, residentGraphOf(t, 10), 1e-7, true)
	if !frQuick() {
		// The random batches and the emptied row on 2^16 (see checkResidentSessions).
		checkResidentSessions(t, residentGraphOf(t, 16), 1e-7, false)
	}
}

// The update on a large graph (R-MAT 2^20, 16M edges, hub rows of ~10^5
// in-edges): after a 0.1 % and then a 10 % mixed batch the device's graph
// equals ApplyBatch's and the counts agree; the CUDA-event time of each
// update is logged by part (UpdatePhases), the first update on a fresh
// session and a second one on the same session.
func TestResidentUpdateLarge(t *testing.T) {
	frNeedGPU(t)
	if frQuick() {
		t.Skip("PRLAB_GPU_QUICK: no large graph")
	}
	n, src, dst, err := pagerank.RMATEdges(pagerank.Graph500RMAT(20, 1))
	if err != nil {
		t.Fatal(err)
	}
	g, err := pagerank.NewGraphParallel("rmat20", n, src, dst, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkLargeUpdates(t, g)
}

// checkLargeUpdates is TestResidentUpdateLarge on g.
func checkLargeUpdates(t *testing.T, g *pagerank.Graph) {
	for _, name := range []string{NameCusparse, NameWarpPerRow} {
		im, _ := DesignByName(name)
		ps, err := im.(pagerank.Resident).Open(g)
		if err != nil {
			t.Fatal(err)
		}
		s := ps.(*DeviceSession)
		host := g
		for i, f := range []float64{0.001, 0.1, 0.001} {
			b, err := pagerank.RandomBatch(host, pagerank.BatchMixed, f, uint64(11+i))
			if err != nil {
				t.Fatal(err)
			}
			st, err := s.Apply(b)
			if err != nil {
				t.Fatalf("%s, batch %d (%s): %v", name, i+1, b.Name, err)
			}
			next, want, err := pagerank.ApplyBatch(host, b, 0)
			if err != nil {
				t.Fatal(err)
			}
			if st != want {
				t.Errorf("%s, batch %d (%s): the session counted %+v, ApplyBatch %+v", name, i+1, b.Name, st, want)
			}
			host = next
			sameResident(t, fmt.Sprintf("%s, batch %d (%s) on %s", name, i+1, b.Name, g.Name), s, host, nil)
			u, _ := s.LastMs()
			ph := s.LastPhases()
			var parts []string
			for k, p := range ph {
				parts = append(parts, fmt.Sprintf("%s %.3f", UpdatePhases[k], p))
			}
			t.Logf("%s on %s, update %d (%s, %d edges): %.3f ms by events = %s", name, g.Name, i+1, b.Name, len(b.Inserts)+len(b.Deletes), u, strings.Join(parts, " + "))
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
