package cudabind

// Tests of the layout designs (layout.go, designs.go; kernels in csrc/layout.cu).
// The first group needs no GPU. The TestGPULayout* tests need a GPU and
// libprlab_cuda.so and skip with the reason otherwise. Knobs (environment):
//
//	PRLAB_GPU_QUICK=1        short runs for compute-sanitizer (10 iterations, synthetic cases only)
//	PRLAB_LAYOUT_TABLE=1   TestGPULayoutTable: the timing table on the real graph (all GPU
//	                         implementations, stage rows, primitives, layout sweeps)
//	PRLAB_LAYOUT_OUT=dir   write layout-results.json there
//	PRLAB_LAYOUT_RMAT=s    also check and time an RMAT graph of scale s (e.g. 20) in the table test

import (
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prlab/prlab/internal/fixture"
	"github.com/prlab/prlab/pkg/pagerank"
	"github.com/prlab/prlab/pkg/reference"
)

// realGraphPath is the bundled graph's edge list, relative to this package.
var realGraphPath = fixture.Bundled(fixture.Edges)

var realOnce struct {
	sync.Once
	g   *pagerank.Graph
	err error
}

// frRealGraph loads the real graph once (nil when its file is missing).
func frRealGraph(t *testing.T) *pagerank.Graph {
	t.Helper()
	realOnce.Do(func() {
		if _, err := os.Stat(realGraphPath); err != nil {
			return
		}
		realOnce.g, realOnce.err = pagerank.LoadEdgeList(realGraphPath, "aan")
	})
	if realOnce.err != nil {
		t.Fatalf("loading %s: %v", realGraphPath, realOnce.err)
	}
	return realOnce.g
}

// ---------------------------------------------------------------- no GPU needed

func TestLayoutRegistry(t *testing.T) {
	all := Designs()
	if len(all) != len(stageDesigns())+len(layoutDesigns())+len(relabelledDesigns())+len(ownRelabelledDesigns()) || len(layoutDesigns()) != 6 || len(ownRelabelledDesigns()) != 3 || len(all) != 18 {
		t.Fatalf("%d designs in all, %d stage by stage, %d layout, %d relabelled, %d own relabelled", len(all), len(stageDesigns()), len(layoutDesigns()), len(relabelledDesigns()), len(ownRelabelledDesigns()))
	}
	seen := map[string]bool{}
	for _, im := range all {
		if seen[im.Name()] {
			t.Errorf("duplicate name %q", im.Name())
		}
		seen[im.Name()] = true
		if _, ok := im.(pagerank.Benchmarker); !ok {
			t.Errorf("%s is not a Benchmarker", im.Name())
		}
		if _, ok := im.(pagerank.Unavailable); !ok {
			t.Errorf("%s is not Unavailable", im.Name())
		}
	}
	want := map[string]string{
		NameT4Bucketed:   "32n + 8nnz",
		NameFused:        "16n + 8nnz + 4",
		NameGraph:        "16n + 8nnz + 4",
		NamePersistent:   "16n + 8nnz + 4",
		NameCluster:      "16n + 8nnz + 4",
		NameClusterDSMEM: "16n + 8nnz + 4",
	}
	for _, pi := range layoutDesigns() {
		im := designImpl(pi)
		if got := im.BytesFormula().String(); got != want[im.Name()] {
			t.Errorf("%s: bytes %q, want %q", im.Name(), got, want[im.Name()])
		}
		if back, ok := DesignByName(im.Name()); !ok || back.Name() != im.Name() {
			t.Errorf("DesignByName(%q) = %v, %v", im.Name(), back, ok)
		}
		if im.Label() == "" || im.Precision() != pagerank.Float32 || im.Counted() == "" {
			t.Errorf("%s: label %q precision %q", im.Name(), im.Label(), im.Precision())
		}
		if (im.id < implLayoutFirst || im.id >= implLayoutEnd) && im.id != implClusterDSMEM {
			t.Errorf("%s: code %d outside the layout range", im.Name(), im.id)
		}
	}
	if _, ok := DesignByName("gpu-nonexistent"); ok {
		t.Error("DesignByName found a nonexistent name")
	}
	if isLayout(mustDesign(t, NameWarpPerRow)) || !isLayout(mustDesign(t, NameFusedReordered)) {
		t.Error("families: warp per row is stage by stage, the reordered fused design a layout design")
	}
}

func TestT4Buckets(t *testing.T) {
	for _, g := range pagerank.SyntheticCases() {
		bs := T4Buckets(g)
		rows, nnz := 0, int64(0)
		for _, b := range bs {
			rows += b.Rows
			nnz += b.NNZ
		}
		if rows != g.N || nnz != int64(g.NNZ) {
			t.Errorf("%s: buckets hold %d rows and %d edges, graph has %d and %d", g.Name, rows, nnz, g.N, g.NNZ)
		}
		var byBuckets int64
		for _, b := range bs {
			byBuckets += b.Bytes()
		}
		// The bucket SpMVs plus the 16n combine give the iteration's 32n + 8nnz.
		if got, want := byBuckets+16*int64(g.N), mustDesign(t, NameT4Bucketed).BytesFormula().Bytes(g.N, g.NNZ); got != want {
			t.Errorf("%s: buckets + combine = %d bytes, formula %d", g.Name, got, want)
		}
	}
	star, _ := pagerank.SyntheticCase("star")
	bs := T4Buckets(star)
	if bs[0].Rows != 10000 || bs[0].NNZ != 0 || bs[1].Rows != 0 || bs[2].Rows != 1 || bs[2].NNZ != 10000 || bs[2].MaxSeen != 10000 {
		t.Errorf("star buckets %+v", bs)
	}
	im := mustDesign(t, NameT4Bucketed)
	if c := im.Costs(star, 50); math.Abs(c.HostLaunches-(50*3+1)/50.0) > 1e-12 { // thread + block buckets + combine
		t.Errorf("T4 on star: %v launches per iteration", c.HostLaunches)
	}
	if g := frRealGraph(t); g != nil {
		bs := T4Buckets(g)
		t.Logf("%s: %d nodes, %d edges; T4 buckets %+v", g.Name, g.N, g.NNZ, bs)
		if bs[0].Rows != 16117 || bs[0].NNZ != 58027 || bs[1].Rows != 472 || bs[1].NNZ != 36904 || bs[2].Rows != 0 || bs[1].MaxSeen != 847 {
			t.Errorf("real-graph buckets %+v", bs)
		}
	}
	for _, pi := range layoutDesigns() {
		c := designImpl(pi).Costs(star, 50)
		if c.HostSyncs != 0 || c.HostLaunches <= 0 || c.Kernels < c.HostLaunches {
			t.Errorf("%s: costs %+v", pi.Name(), c)
		}
	}
}

func TestLayoutUnavailableWithoutGPU(t *testing.T) {
	if ok, _ := Available(); ok {
		t.Skip("a GPU is available here")
	}
	g, _ := pagerank.SyntheticCase("tiny")
	for _, pi := range layoutDesigns() {
		if r := pi.(pagerank.Unavailable).Reason(); r == "" {
			t.Errorf("%s: empty Reason() without a GPU", pi.Name())
		}
		if _, err := pi.Run(g, pagerank.Fixed(10)); !errors.Is(err, ErrUnavailable) {
			t.Errorf("%s: Run without a GPU: %v", pi.Name(), err)
		}
		if _, err := pi.(pagerank.Benchmarker).Benchmark(g, pagerank.Fixed(50), 3, 10); !errors.Is(err, ErrUnavailable) {
			t.Errorf("%s: Benchmark without a GPU: %v", pi.Name(), err)
		}
	}
	if _, err := LayoutOf(g); !errors.Is(err, ErrUnavailable) {
		t.Errorf("LayoutOf without a GPU: %v", err)
	}
	if _, err := MeasurePrimitives(g); !errors.Is(err, ErrUnavailable) {
		t.Errorf("MeasurePrimitives without a GPU: %v", err)
	}
}

// ---------------------------------------------------------------- GPU

// frQuick: PRLAB_GPU_QUICK=1, the GPU tests' short runs for
// compute-sanitizer (10 iterations, synthetic cases only, no timing).
func frQuick() bool { return os.Getenv("PRLAB_GPU_QUICK") == "1" }

// frCorrectnessCases are the GPU correctness tests' iterations and graphs:
// the course's fixed iterations on the six synthetic cases and the bundled
// graph (when found), or 10 iterations on the synthetic cases in quick mode.
func frCorrectnessCases(t *testing.T) (iters int, graphs []*pagerank.Graph) {
	iters, graphs = pagerank.CorrectnessIterations, pagerank.SyntheticCases()
	if frQuick() {
		return 10, graphs
	}
	if g := frRealGraph(t); g != nil {
		graphs = append(graphs, g)
	}
	return iters, graphs
}

// frSelected: the environment variable env (a comma-separated list, or a
// semicolon-separated one where it holds a ';', for names with commas) is
// unset or names name. Used to narrow the correctness test under
// compute-sanitizer: PRLAB_GPU_ONLY (implementations), PRLAB_GPU_LAYOUTS,
// PRLAB_GPU_CASES, and the probes' variants.
func frSelected(env, name string) bool {
	v := os.Getenv(env)
	if v == "" {
		return true
	}
	sep := ","
	if strings.Contains(v, ";") {
		sep = ";"
	}
	for _, s := range strings.Split(v, sep) {
		if strings.TrimSpace(s) == name {
			return true
		}
	}
	return false
}

func frNeedGPU(t *testing.T) {
	t.Helper()
	if ok, reason := Available(); !ok {
		t.Skipf("GPU path unavailable: %s", reason)
	}
}

// frProbeGraph is the set-up of an opt-in GPU probe on the bundled graph:
// it skips unless the GPU path is available, the environment variable env
// is "1" (what says what it runs) and the run is not quick, or when the
// graph is missing; else it returns the graph.
func frProbeGraph(t *testing.T, env, what string) *pagerank.Graph {
	t.Helper()
	frNeedGPU(t)
	if os.Getenv(env) != "1" || frQuick() {
		t.Skipf("set %s=1 for %s", env, what)
	}
	g := frRealGraph(t)
	if g == nil {
		t.Skipf("%s missing", realGraphPath)
	}
	return g
}

func frOracle(t *testing.T, g *pagerank.Graph, p pagerank.Params) *pagerank.Result {
	t.Helper()
	res, err := reference.Oracle().Run(g, p)
	if err != nil {
		t.Fatalf("oracle on %s: %v", g.Name, err)
	}
	return res
}

// frMaxInDegree and frFloor: the float rounding floor of the L1 residual
// (serial summation of the longest row: 2 (maxdeg+1) eps).
func frMaxInDegree(g *pagerank.Graph) int {
	m := 0
	for v := 0; v < g.N; v++ {
		m = max(m, g.InDegree(v))
	}
	return m
}

func frFloor(g *pagerank.Graph) float64 { return 2 * float64(frMaxInDegree(g)+1) * pagerank.FltEpsilon }

type frLayout struct {
	name  string
	knobs map[int]int
}

var frLayouts = []frLayout{
	{"auto", nil},
	// Tiny tiles force block-per-row tiles, heavy rows, several tiles per
	// block of the persistent grid, short graph replays and a cluster of 8.
	{"small", map[int]int{knobTileEdges: 64, knobTileRows: 16, knobBlocksPerSM: 1, knobGraphK: 4, knobClusterSize: 8}},
	// The persistent kernel re-reading its tiles every iteration, the
	// cluster kernel gathering through distributed shared memory.
	{"reread", map[int]int{knobResident: 1, knobClusterMode: 1}},
}

func frApply(t *testing.T, g *pagerank.Graph, knobs map[int]int) {
	t.Helper()
	for k := 0; k < knobCount; k++ {
		if err := setLayoutKnob(g, k, knobs[k]); err != nil {
			t.Fatalf("knob %d = %d on %s: %v", k, knobs[k], g.Name, err)
		}
	}
}

var frReport = struct {
	sync.Mutex
	Device      *Device                     `json:"device,omitempty"`
	Layouts     map[string]Layout           `json:"layouts"`
	Validation  []map[string]any            `json:"validation"`
	Convergence []map[string]any            `json:"convergence"`
	Primitives  []pagerank.Stage            `json:"primitives"`
	Table       []map[string]any            `json:"table"`
	Sweeps      []map[string]any            `json:"sweeps"`
	Benchmarks  []*pagerank.Result          `json:"benchmarks"`
	Extra       map[string][]map[string]any `json:"extra,omitempty"`
}{Layouts: map[string]Layout{}, Extra: map[string][]map[string]any{}}

func frWrite(t *testing.T) {
	frReport.Lock()
	defer frReport.Unlock()
	writeResults(t, "PRLAB_LAYOUT_OUT", "layout-results.json", &frReport)
}

// Every layout design on the six synthetic cases (and the real
// graph), 100 fixed iterations, against the float64 oracle, with the
// automatic layout and with tiny tiles; the library's T4 buckets equal the
// Go ones; a second run gives the same bits.
func TestGPULayoutCorrectness(t *testing.T) {
	frNeedGPU(t)
	iters, graphs := frCorrectnessCases(t)
	for _, lay := range frLayouts {
		if !frSelected("PRLAB_GPU_LAYOUTS", lay.name) {
			continue
		}
		for _, g := range graphs {
			if !frSelected("PRLAB_GPU_CASES", g.Name) {
				continue
			}
			ref := frOracle(t, g, pagerank.Fixed(iters))
			frApply(t, g, lay.knobs)
			info, err := LayoutOf(g)
			if err != nil {
				t.Fatalf("layout of %s: %v", g.Name, err)
			}
			if lay.name == "auto" {
				frReport.Lock()
				frReport.Layouts[g.Name] = info
				frReport.Unlock()
			}
			t.Logf("layout %-5s %-10s tiles %d (<= %d edges, <= %d rows), heavy rows %d, block tiles %d, grids fused %d t4 %d coop %d (resident %v), cluster %d replicated %v (%d B) %s",
				lay.name, g.Name, info.Tiles, info.TileEdges, info.TileRows, info.HeavyRows, info.BlockTiles,
				info.GridFused, info.GridT4, info.GridCoop, info.PersistentResident, info.ClusterSize, info.ClusterReplicated, info.ClusterSmemBytes, info.ClusterReason)
			if goB := T4Buckets(g); goB != info.Buckets {
				t.Errorf("%s: library buckets %+v, Go buckets %+v", g.Name, info.Buckets, goB)
			}
			for _, pi := range layoutDesigns() {
				if !frSelected("PRLAB_GPU_ONLY", pi.Name()) {
					continue
				}
				res, err := pi.Run(g, pagerank.Fixed(iters))
				if (pi.Name() == NameCluster || pi.Name() == NameClusterDSMEM) && errors.Is(err, ErrUnavailable) {
					t.Logf("  %s on %s: %v", pi.Name(), g.Name, err)
					continue
				}
				if err != nil {
					t.Errorf("%s on %s (%s layout): %v", pi.Name(), g.Name, lay.name, err)
					continue
				}
				v := pagerank.Validate(g, res, ref)
				t.Logf("  %-5s %-10s %-16s n=%-6d nnz=%-6d err/tol=%6.3f sum-1=%+.2e (allowed %.2e) rho=%.6f residual %.2e  %s",
					lay.name, g.Name, pi.Name(), g.N, g.NNZ, v.ErrOverTol, v.SumMinus1, v.SumAllowed, v.Spearman, res.FinalResidual(), passOrFail(v))
				if !v.Pass {
					t.Errorf("%s on %s (%s layout) fails validation: %+v", pi.Name(), g.Name, lay.name, v)
				}
				if len(res.Residuals) != iters || len(res.Sums) != iters || res.Iterations != iters || res.Converged {
					t.Errorf("%s on %s: %d residuals, %d sums, %d iterations, converged %v; want %d each, false",
						pi.Name(), g.Name, len(res.Residuals), len(res.Sums), res.Iterations, res.Converged, iters)
				}
				if math.Abs(res.FinalSum()-(1+v.SumMinus1)) > 1e-6 {
					t.Errorf("%s on %s: device sum %.9f, host sum %.9f", pi.Name(), g.Name, res.FinalSum(), 1+v.SumMinus1)
				}
				for k, r := range res.Residuals {
					if math.IsNaN(r) || r < 0 || (k > 0 && res.Sums[k] == 0) {
						t.Errorf("%s on %s: residual %g / sum %g at iteration %d", pi.Name(), g.Name, r, res.Sums[k], k)
						break
					}
				}
				if iters >= 100 && g.N > 1 && !(res.FinalResidual() < math.Max(1e-5, frFloor(g)) && res.FinalResidual() < res.Residuals[0]) {
					t.Errorf("%s on %s: residual %g after %d iterations (first %g)", pi.Name(), g.Name, res.FinalResidual(), iters, res.Residuals[0])
				}
				if lay.name == "auto" && !frQuick() { // deterministic: fixed-order reductions only
					again, err := pi.Run(g, pagerank.Fixed(iters))
					if err != nil {
						t.Errorf("%s on %s, second run: %v", pi.Name(), g.Name, err)
					} else {
						for i := range res.Ranks {
							if res.Ranks[i] != again.Ranks[i] {
								t.Errorf("%s on %s: rank %d differs between two runs (%v, %v)", pi.Name(), g.Name, i, res.Ranks[i], again.Ranks[i])
								break
							}
						}
					}
				}
				frReport.Lock()
				frReport.Validation = append(frReport.Validation, map[string]any{"layout": lay.name, "validation": v})
				frReport.Unlock()
			}
			frApply(t, g, nil)
		}
	}
	frWrite(t)
}

// Tolerance mode: each layout design stops at L1 residual < 1e-6
// within 3 iterations of the float64 oracle's count (its own float residual
// decides), ranks within 1e-3; gpu-graph also with graph replays of 4.
func TestGPULayoutConvergence(t *testing.T) {
	frNeedGPU(t)
	if frQuick() {
		t.Skip("quick mode")
	}
	graphs := pagerank.SyntheticCases()
	if g := frRealGraph(t); g != nil {
		graphs = append(graphs, g)
	}
	for _, g := range graphs {
		ref := frOracle(t, g, pagerank.Converge(pagerank.FloatTolerance, 1000))
		for _, k := range []int{0, 4} {
			frApply(t, g, map[int]int{knobGraphK: k})
			for _, pi := range layoutDesigns() {
				if k != 0 && pi.Name() != NameGraph {
					continue
				}
				res, err := pi.Run(g, pagerank.Converge(pagerank.FloatTolerance, 1000))
				if (pi.Name() == NameCluster || pi.Name() == NameClusterDSMEM) && errors.Is(err, ErrUnavailable) {
					continue
				}
				if err != nil {
					t.Errorf("%s on %s: %v", pi.Name(), g.Name, err)
					continue
				}
				e := frMaxRelErr(res.Ranks, ref.Ranks)
				t.Logf("  %-10s %-16s K=%d converged=%v in %d iterations (float64: %d), residual %.2e, max rel err %.2e",
					g.Name, pi.Name(), k, res.Converged, res.Iterations, ref.Iterations, res.FinalResidual(), e)
				floor := frFloor(g)
				switch {
				case e > pagerank.RelTolerance:
					t.Errorf("%s on %s: rel err %g after %d iterations", pi.Name(), g.Name, e, res.Iterations)
				case res.Converged && (res.FinalResidual() >= pagerank.FloatTolerance || frAbs(res.Iterations-ref.Iterations) > 3):
					t.Errorf("%s on %s: converged after %d iterations (float64 %d), residual %g", pi.Name(), g.Name, res.Iterations, ref.Iterations, res.FinalResidual())
				case res.Converged && res.Iterations > 1 && res.Residuals[res.Iterations-2] < pagerank.FloatTolerance:
					t.Errorf("%s on %s: stopped late: residual %g at iteration %d already below", pi.Name(), g.Name, res.Residuals[res.Iterations-2], res.Iterations-1)
				case !res.Converged && !(floor > pagerank.FloatTolerance && res.FinalResidual() <= floor):
					t.Errorf("%s on %s: no convergence in %d iterations (float64 %d), residual %g", pi.Name(), g.Name, res.Iterations, ref.Iterations, res.FinalResidual())
				}
				if len(res.Residuals) != res.Iterations || len(res.Sums) != res.Iterations {
					t.Errorf("%s on %s: %d residuals, %d sums for %d iterations", pi.Name(), g.Name, len(res.Residuals), len(res.Sums), res.Iterations)
				}
				frReport.Lock()
				frReport.Convergence = append(frReport.Convergence, map[string]any{"case": g.Name, "implementation": pi.Name(), "graph_k": k,
					"iterations": res.Iterations, "oracle_iterations": ref.Iterations, "converged": res.Converged, "residual": res.FinalResidual(), "max_rel_err": e})
				frReport.Unlock()
			}
		}
		frApply(t, g, nil)
	}
	frWrite(t)
}

func frAbs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// frDRAM is the GB/s of the 128 MiB device-to-device copy row of this process.
func frDRAM(t *testing.T, g *pagerank.Graph) float64 {
	t.Helper()
	var row pagerank.Stage
	err := withSession(g, func(s *Session) error {
		var err error
		row, err = s.copyRow(CopyDRAMName, pagerank.StageCopyDRAM, CopyDRAMBytes, pagerank.TimingWarmups, StageRepeats)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return float64(row.Bytes) / (row.Ms * 1e6)
}

func frMaxRelErr(got, want []float64) float64 {
	m := 0.0
	for i := range want {
		r := math.Abs(got[i]-want[i]) / math.Abs(want[i])
		if math.IsNaN(r) {
			return math.Inf(1)
		}
		m = math.Max(m, r)
	}
	return m
}

// frRow is one line of the timing table.
type frRow struct {
	Name       string  `json:"name"`
	Round      int     `json:"round"`
	Config     string  `json:"config,omitempty"`
	MedianMs   float64 `json:"median_ms"`
	MeanMs     float64 `json:"mean_ms"`
	CV         float64 `json:"cv"`
	USPerIter  float64 `json:"us_per_iteration"`
	Bytes      int64   `json:"bytes_per_iteration"`
	GBps       float64 `json:"gbps"`
	XDRAM      float64 `json:"x_dram"`
	XDRAMCrs   float64 `json:"x_dram_course_bytes"` // with the course's 33n + 8nnz + 4 bytes
	Launches   float64 `json:"launches_per_iteration"`
	Kernels    float64 `json:"kernels_per_iteration"`
	Barriers   float64 `json:"device_barriers_per_iteration"`
	HostSyncs  float64 `json:"host_syncs_per_iteration"`
	Pass       bool    `json:"pass"`
	ErrOverTol float64 `json:"err_over_tol"`
	Gold       bool    `json:"gold"`
}

// frBench benchmarks one implementation on g: 50 iterations, 3 warm-ups,
// 10 runs; the ranks after the last run are validated against the oracle's
// 50 iterations.
func frBench(t *testing.T, pi pagerank.Implementation, g *pagerank.Graph, ref *pagerank.Result, dram float64) (frRow, *pagerank.Result, error) {
	res, err := pi.(pagerank.Benchmarker).Benchmark(g, pagerank.Fixed(pagerank.TimingIterations), pagerank.TimingWarmups, pagerank.TimingRuns)
	if err != nil {
		return frRow{Name: pi.Name()}, nil, err
	}
	tm := res.Timing
	r := frRow{Name: pi.Name(), MedianMs: tm.MedianMs, MeanMs: tm.MeanMs, CV: tm.CV,
		USPerIter: 1000 * tm.MedianMs / float64(tm.Iterations), Bytes: res.BytesPerIteration,
		Launches: res.LaunchesPerIteration, HostSyncs: res.HostSyncsPerIteration, Kernels: res.LaunchesPerIteration}
	if isLayout(pi) {
		c := designImpl(pi).Costs(g, tm.Iterations)
		r.Kernels, r.Barriers = c.Kernels, c.DeviceBarriers
	}
	r.GBps = float64(r.Bytes) / (tm.MedianMs / float64(tm.Iterations) * 1e6)
	course := 33*int64(g.N) + 8*int64(g.NNZ) + 4
	if dram > 0 {
		r.XDRAM = r.GBps / dram
		r.XDRAMCrs = float64(course) / (tm.MedianMs / float64(tm.Iterations) * 1e6) / dram
	}
	if ref != nil {
		v := pagerank.Validate(g, res, ref)
		r.Pass, r.ErrOverTol = v.Pass, v.ErrOverTol
	}
	r.Gold = r.Pass && r.XDRAM >= 0.28 && r.CV < 0.05
	return r, res, nil
}

// The timing table on the real graph (PRLAB_LAYOUT_TABLE=1): every GPU
// implementation, two rounds, the layout and stage rows, the
// primitives, and sweeps of the layout knobs.
func TestGPULayoutTable(t *testing.T) {
	g := frProbeGraph(t, "PRLAB_LAYOUT_TABLE", "the timing table")
	dev, err := DeviceInfo()
	if err != nil {
		t.Fatal(err)
	}
	frReport.Lock()
	frReport.Device = &dev
	frReport.Unlock()
	t.Logf("GPU: %s", dev)
	info, err := LayoutOf(g)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: n=%d nnz=%d, max in-degree %d", g.Name, g.N, g.NNZ, info.MaxInDegree)
	for _, b := range info.Buckets {
		t.Logf("  T4 bucket %-15s in-degree %d..%d: %6d rows, %7d nnz, max in-degree %d, %d bytes", b.Name, b.MinDegree, b.MaxDegree, b.Rows, b.NNZ, b.MaxSeen, b.Bytes())
	}
	t.Logf("  tiles %d (<= %d edges, <= %d rows), heavy rows %d, block tiles %d; grids: fused %d, T4 combine %d, cooperative %d (%d/SM by occupancy); cluster %d x %d threads, %d B shared memory per block %s",
		info.Tiles, info.TileEdges, info.TileRows, info.HeavyRows, info.BlockTiles, info.GridFused, info.GridT4, info.GridCoop,
		info.CoopBlocksPerSM, info.ClusterSize, info.ClusterThreads, info.ClusterSmemBytes, info.ClusterReason)
	prims, err := MeasurePrimitives(g)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range prims {
		t.Logf("  %-58s %8.3f us", p.Name, 1000*p.Ms)
	}
	frReport.Lock()
	frReport.Primitives = prims
	frReport.Unlock()

	// Warm the GPU (clocks ramp up from idle; a launch-bound case is
	// sensitive to it): about half a second of persistent-kernel runs.
	warm, _ := DesignByName(NamePersistent)
	for start := time.Now(); time.Since(start) < 500*time.Millisecond; {
		if _, err := warm.(pagerank.Benchmarker).Benchmark(g, pagerank.Fixed(pagerank.TimingIterations), 0, 50); err != nil {
			t.Fatalf("warm-up: %v", err)
		}
	}
	ref := frOracle(t, g, pagerank.Fixed(pagerank.TimingIterations))
	dram := frDRAM(t, g)
	var rows []frRow
	for round := 1; round <= 2; round++ {
		for _, pi := range Designs() {
			r, res, err := frBench(t, pi, g, ref, dram)
			if err != nil {
				t.Errorf("%s: %v", pi.Name(), err)
				continue
			}
			r.Round = round
			rows = append(rows, r)
			if round == 1 {
				frReport.Lock()
				frReport.Benchmarks = append(frReport.Benchmarks, res)
				frReport.Unlock()
				if isLayout(pi) {
					for _, st := range res.Stages {
						gbps := float64(st.Bytes) / (st.Ms * 1e6) // for this log
						t.Logf("  stage %-16s %-78s %9.4f ms %8.1f GB/s %6.3f x DRAM", pi.Name(), st.Name, st.Ms, gbps, gbps/dram)
					}
				}
			}
		}
	}
	t.Logf("DRAM copy row (128 MiB): %.1f GB/s", dram)

	// Sweeps of the layout (layout designs, one knob at a time).
	sweep := func(knob int, values []int, names ...string) {
		for _, v := range values {
			if err := setLayoutKnob(g, knob, v); err != nil {
				t.Errorf("knob %d = %d: %v", knob, v, err)
				continue
			}
			lay, _ := LayoutOf(g)
			for _, n := range names {
				pi, _ := DesignByName(n)
				r, _, err := frBench(t, pi, g, ref, dram)
				if err != nil {
					t.Logf("sweep knob %d = %d, %s: %v", knob, v, n, err)
					continue
				}
				r.Config = fmt.Sprintf("knob %d = %d (tiles %d of <= %d edges, fused grid %d, coop grid %d resident %v, cluster %d rep %v)", knob, v, lay.Tiles, lay.TileEdges, lay.GridFused, lay.GridCoop, lay.PersistentResident, lay.ClusterSize, lay.ClusterReplicated)
				t.Logf("  sweep %-16s %-80s %8.4f ms %7.3f us/iter %6.3f x DRAM CV %.3f pass %v", n, r.Config, r.MedianMs, r.USPerIter, r.XDRAM, r.CV, r.Pass)
				if !r.Pass {
					t.Errorf("sweep %s %s: ranks fail validation (err/tol %.3f)", n, r.Config, r.ErrOverTol)
				}
				frReport.Lock()
				frReport.Sweeps = append(frReport.Sweeps, map[string]any{"knob": knob, "value": v, "row": r})
				frReport.Unlock()
			}
		}
		if err := setLayoutKnob(g, knob, 0); err != nil {
			t.Error(err)
		}
	}
	sweep(knobTileEdges, []int{128, 256, 1024, 2048}, NameFused, NameGraph, NamePersistent)
	sweep(knobTileRows, []int{32, 128, 256}, NameFused, NameGraph, NamePersistent)
	sweep(knobBlocksPerSM, []int{1, 2, 4}, NamePersistent)
	sweep(knobResident, []int{1}, NamePersistent)
	sweep(knobClusterMode, []int{1}, NameCluster)
	if info.ClusterSize > 0 {
		sweep(knobClusterSize, []int{4, 8, 16}, NameCluster)
	}

	if s := os.Getenv("PRLAB_LAYOUT_RMAT"); s != "" {
		frRMAT(t, s)
	}

	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Round < rows[j].Round })
	var b strings.Builder
	fmt.Fprintf(&b, "\nGPU: %s, real graph %s n=%d nnz=%d, 50 iterations, 3 warm-ups + 10 runs, DRAM copy row %.1f GB/s\n", dev.Name, g.Name, g.N, g.NNZ, dram)
	fmt.Fprintf(&b, "%-5s %-22s %9s %9s %9s %9s %8s %8s %8s %7s %7s %7s %5s %5s\n", "round", "implementation", "ms/50", "us/iter",
		"bytes", "GB/s", "x DRAM", "x crs", "CV", "launch", "kernel", "barrier", "pass", "gold")
	for _, r := range rows {
		fmt.Fprintf(&b, "%-5d %-22s %9.4f %9.3f %9d %9.1f %8.3f %8.3f %8.4f %7.2f %7.2f %7.2f %5v %5v\n", r.Round, r.Name, r.MedianMs,
			r.USPerIter, r.Bytes, r.GBps, r.XDRAM, r.XDRAMCrs, r.CV, r.Launches, r.Kernels, r.Barriers, r.Pass, r.Gold)
	}
	t.Log(b.String())
	frReport.Lock()
	for _, r := range rows {
		frReport.Table = append(frReport.Table, map[string]any{"row": r})
	}
	frReport.Unlock()
	frWrite(t)
}

// frRMAT checks (20 iterations against the float64 oracle) and times the
// layout designs and the warp-per-row baseline on an RMAT graph.
func frRMAT(t *testing.T, scaleStr string) {
	scale, err := strconv.Atoi(scaleStr)
	if err != nil || scale < 10 || scale > 24 {
		t.Errorf("PRLAB_LAYOUT_RMAT=%q: want a scale in [10, 24]", scaleStr)
		return
	}
	g, err := pagerank.RMAT(pagerank.Graph500RMAT(scale, 1))
	if err != nil {
		t.Errorf("RMAT %d: %v", scale, err)
		return
	}
	info, err := LayoutOf(g)
	if err != nil {
		t.Errorf("layout of %s: %v", g.Name, err)
		return
	}
	t.Logf("%s: n=%d nnz=%d, buckets %+v, tiles %d of <= %d edges, grids fused %d coop %d, cluster: %d %s", g.Name, g.N, g.NNZ, info.Buckets,
		info.Tiles, info.TileEdges, info.GridFused, info.GridCoop, info.ClusterSize, info.ClusterReason)
	ref := frOracle(t, g, pagerank.Fixed(20))
	names := []string{NameWarpPerRow, NameT4Bucketed, NameFused, NameGraph, NamePersistent, NameCluster}
	for _, n := range names {
		pi, ok := DesignByName(n)
		if !ok {
			pi, _ = DesignByName(n)
		}
		res, err := pi.Run(g, pagerank.Fixed(20))
		if errors.Is(err, ErrUnavailable) {
			t.Logf("  %s on %s: %v", n, g.Name, err)
			continue
		}
		if err != nil {
			t.Errorf("%s on %s: %v", n, g.Name, err)
			continue
		}
		v := pagerank.Validate(g, res, ref)
		r, _, err := frBench(t, pi, g, nil, 0)
		if err != nil {
			t.Errorf("%s on %s: %v", n, g.Name, err)
			continue
		}
		t.Logf("  %-10s %-16s err/tol %.3f pass %v; 50 iterations %.3f ms, %.1f us/iter, %.1f GB/s, CV %.3f",
			g.Name, n, v.ErrOverTol, v.Pass, r.MedianMs, r.USPerIter, r.GBps, r.CV)
		if !v.Pass {
			t.Errorf("%s on %s fails validation: %+v", n, g.Name, v)
		}
		frReport.Lock()
		frReport.Extra[g.Name] = append(frReport.Extra[g.Name], map[string]any{"row": r, "validation": v})
		frReport.Unlock()
	}
}

// frSelected splits on commas, or on semicolons where the list holds one, so
// that a probe variant whose name has a comma can be chosen alone.
func TestFrSelectedLists(t *testing.T) {
	for _, tc := range []struct {
		list, name string
		want       bool
	}{
		{"", "anything", true},
		{"tiny,star", "star", true},
		{"tiny, star", "star", true},
		{"tiny,star", "chain", false},
		{"async small rows, fixed flags;", "async small rows, fixed flags", true},
		{"async small rows, fixed flags;", "async small rows", false},
		{"a;b, c", "b, c", true},
	} {
		t.Setenv("PRLAB_TEST_SELECTED", tc.list)
		if got := frSelected("PRLAB_TEST_SELECTED", tc.name); got != tc.want {
			t.Errorf("frSelected(%q, %q) = %v, want %v", tc.list, tc.name, got, tc.want)
		}
	}
}
