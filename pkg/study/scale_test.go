package study

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prlab/prlab/internal/fixture"
	"github.com/prlab/prlab/pkg/pagerank"
	"github.com/prlab/prlab/pkg/reference"
	"github.com/prlab/prlab/pkg/report"
)

// scaleGPU is a GPU without CUDA for the scale study: one implementation,
// the float32 multi-core CPU code, whose Benchmark reports exactly 1 us per
// iteration (CUDA-event style), and a 400 GB/s DRAM copy row, so every
// derived number of a GPU row is known exactly.
type scaleGPU struct{}

func (scaleGPU) Available() (bool, string) { return true, "" }
func (scaleGPU) Implementations() []pagerank.Implementation {
	return []pagerank.Implementation{fakeGPUImpl{Implementation: reference.Multicore(pagerank.Float32, 2), name: "gpu-fake", label: "fake GPU, 1 us per iteration",
		runMs: func(iterations int) float64 { return 0.001 * float64(iterations) }, bytes: 1234}}
}
func (scaleGPU) Context() (*report.GPUContext, error) {
	return &report.GPUContext{Name: "Fake GPU", ComputeCapability: "9.0", SMs: 1, L2Bytes: 1 << 20}, nil
}
func (scaleGPU) StageTable(*pagerank.Graph) (copies, stages []pagerank.Stage, err error) {
	return []pagerank.Stage{{Name: "copy, 128 MiB (DRAM)", Kind: pagerank.StageCopyDRAM, Ms: 268435456 / 400e6, Bytes: 268435456}}, nil, nil // 400 GB/s
}
func (scaleGPU) Baseline() string                                       { return "gpu-fake" }
func (scaleGPU) WriteBudget(*pagerank.Graph) (map[string]string, error) { return nil, nil }

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

func TestFloorGTEPSArithmetic(t *testing.T) {
	// The course's real graph: n = 28042, nnz = 314010.
	// float32: 4*28043 + 4*314010 + 3*4*28042 = 112172 + 1256040 + 336504.
	if got := FloorBytes(28042, 314010, pagerank.Float32); got != 1704716 {
		t.Errorf("float32 floor %d bytes, want 1704716", got)
	}
	// float64: 112172 + 1256040 + 3*8*28042 = 2041220.
	if got := FloorBytes(28042, 314010, pagerank.Float64); got != 2041220 {
		t.Errorf("float64 floor %d bytes, want 2041220", got)
	}
	// 1704716 bytes at 4100 GB/s (the H200's 128 MiB copy row) is 0.000415784... ms.
	if got := FloorMs(1704716, 4100); !near(got, 1704716/4.1e9) {
		t.Errorf("floor ms %v", got)
	}
	if !math.IsNaN(FloorMs(1, 0)) {
		t.Error("a zero bandwidth gives a floor")
	}
	// RMAT 2^24 at the goal: 2^28 edges in 1.9 ms is 141.28 GTEPS.
	if got := report.GTEPS(1<<28, 1.9); !near(got, 268435456/1.9e6) || math.Abs(got-141.28) > 0.01 {
		t.Errorf("GTEPS %v, want 141.28", got)
	}
	if !math.IsNaN(report.GTEPS(10, 0)) {
		t.Error("GTEPS of a zero time")
	}
	row := report.ScaleRow{GraphSize: report.GraphSize{N: 1000, NNZ: 16000}, Identity: report.Identity{Precision: pagerank.Float32}}
	fillRates(&row, 0.5, &pagerank.Stage{Name: "copy", GBps: 100})
	// 16000 edges in 0.5 ms: 0.032 GTEPS, 31.25 ns per edge; floor
	// 4*1001 + 4*16000 + 12*1000 = 80004 bytes at 100 GB/s = 0.00080004 ms.
	if !near(float64(row.GTEPS), 0.032) || !near(float64(row.NsPerEdge), 31.25) || row.FloorBytes != 80004 ||
		!near(float64(row.FloorMs), 0.00080004) || !near(float64(row.FloorFraction), 0.00080004/0.5) || row.CopyRow != "copy" {
		t.Errorf("derived numbers %+v", row)
	}
	// The compressed stream's floor: colIdx's 4 bytes per edge become the
	// code's 2, 80004 - 2*16000 = 48004 bytes = 0.00048004 ms at 100 GB/s.
	if row.CodeFloorBytes != 48004 || !near(float64(row.CodeFloorMs), 0.00048004) || !near(float64(row.CodeFloorFraction), 0.00048004/0.5) {
		t.Errorf("code floor %d bytes, %v ms, fraction %v", row.CodeFloorBytes, row.CodeFloorMs, row.CodeFloorFraction)
	}
	// R-MAT 2^24 after dedup in float32 (n 16,777,216, nnz 263,431,158): 1.32 GB and 0.80 GB.
	if got := CodeFloorBytes(1<<24, 263431158, pagerank.Float32); got != 4*(1<<24+1)+2*263431158+12*(1<<24) || FloorBytes(1<<24, 263431158, pagerank.Float32)-got != 2*263431158 {
		t.Errorf("R-MAT 2^24 code floor %d", got)
	}
}

func TestMemcpyBandwidthRow(t *testing.T) {
	row := MemcpyBandwidth(1<<20, 2, 1, 3)
	if row.Bytes != 2<<20 || row.Ms <= 0 || !near(row.GBps, float64(row.Bytes)/(row.Ms*1e6)) {
		t.Fatalf("row %+v: want 2 MiB moved and GB/s = bytes / (ms*1e6)", row)
	}
	if !strings.Contains(row.Name, "1 MiB, 2 goroutines") || !strings.Contains(row.Formula, "1048576 read + 1048576 written") {
		t.Errorf("row name %q formula %q", row.Name, row.Formula)
	}
}

func smallScale(t *testing.T) (ScaleConfig, *bytes.Buffer) {
	t.Helper()
	var progress bytes.Buffer
	return ScaleConfig{MinScale: 8, MaxScale: 10, Grid: true, Budget: 2 * time.Minute, CopyBytes: 1 << 20,
		ValidateIterations: 20, Progress: &progress}, &progress
}

func TestScaleStudySmall(t *testing.T) {
	cfg, progress := smallScale(t)
	cfg.GPU = scaleGPU{}
	var checkpoints []int
	cfg.Checkpoint = func(s *report.ScaleStudy) error {
		if s.Complete || len(s.Goals) != 3 {
			t.Errorf("checkpoint: complete %v, %d goals", s.Complete, len(s.Goals))
		}
		checkpoints = append(checkpoints, len(s.Graphs))
		return nil
	}
	s, err := RunScale(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Complete || len(checkpoints) != 5 || checkpoints[0] != 1 || checkpoints[4] != 5 {
		t.Errorf("complete %v; checkpoints after %v graphs, want 1..5", s.Complete, checkpoints)
	}
	if len(s.Graphs) != 6 {
		t.Fatalf("%d graphs, want R-MAT and grid at scales 8, 9, 10", len(s.Graphs))
	}
	// Progress lines "[  elapsed] graph phase  message": the phase column is
	// as wide as the longest phase ("reference t1-multicore-f64"), so every
	// message starts in the same column.
	col := len("[   0.0s] ") + 12 + len("reference "+ReferenceFallback) + 2
	for _, l := range strings.Split(progress.String(), "\n") {
		if strings.HasPrefix(l, "[") && (len(l) <= col || l[col-2:col] != "  " || l[col] == ' ') {
			t.Errorf("progress line not aligned at column %d: %q", col, l)
		}
	}
	for _, g := range s.Graphs {
		if g.Reference != OracleName || g.Skipped != "" {
			t.Errorf("%s: reference %q, skipped %q", g.Name, g.Reference, g.Skipped)
		}
		switch g.Family {
		case report.FamilyRMAT: // the same graph as the serial generator and build
			want, err := pagerank.RMAT(pagerank.Graph500RMAT(g.Scale, DefaultScaleSeed))
			if err != nil {
				t.Fatal(err)
			}
			if g.N != want.N || g.NNZ != want.NNZ || g.Duplicates != want.Duplicates || g.Dangling != want.DanglingCount {
				t.Errorf("%s: n %d nnz %d dup %d dangling %d, want %d %d %d %d", g.Name, g.N, g.NNZ, g.Duplicates, g.Dangling,
					want.N, want.NNZ, want.Duplicates, want.DanglingCount)
			}
		case report.FamilyGrid:
			side := GridSide(g.Scale) // 16, 23, 32
			if g.N != side*side || g.NNZ != 4*side*(side-1) || g.Dangling != 0 || g.MaxInDegree != 4 {
				t.Errorf("%s: n %d nnz %d, want side %d", g.Name, g.N, g.NNZ, side)
			}
		}
	}
	if len(s.Rows) != 6*4 {
		t.Fatalf("%d rows, want 6 graphs x 4 implementations", len(s.Rows))
	}
	if len(s.Bandwidth) != 3 || s.Bandwidth[0].Bytes != 2<<20 || !near(s.Bandwidth[2].GBps, 400) || !strings.Contains(s.Bandwidth[2].Name, "GPU copy, 128 MiB") {
		t.Fatalf("bandwidth rows %+v", s.Bandwidth)
	}
	cpu1, cpuN := s.Bandwidth[0].GBps, s.Bandwidth[1].GBps
	for _, graph := range s.Graphs {
		best := math.Inf(1)
		for _, r := range s.Rows {
			if r.Graph == graph.Name && r.Kind == report.KindCPU && r.Implementation != OracleName {
				best = math.Min(best, float64(r.MsPerIter))
			}
		}
		for _, r := range s.Rows {
			if r.Graph != graph.Name {
				continue
			}
			if r.Status != report.StatusPass || r.Reference != OracleName {
				t.Errorf("%s %s: %s (%s) vs %s", r.Graph, r.Implementation, r.Status, r.Reason, r.Reference)
				continue
			}
			floor := FloorBytes(r.N, r.NNZ, r.Precision)
			if r.FloorBytes != floor || !near(float64(r.GTEPS), float64(r.NNZ)/(float64(r.MsPerIter)*1e6)) {
				t.Errorf("%s %s: floor %d (want %d), GTEPS %v at %v ms", r.Graph, r.Implementation, r.FloorBytes, floor, r.GTEPS, r.MsPerIter)
			}
			switch {
			case r.Kind == report.KindGPU:
				// 1 us per iteration exactly, 400 GB/s copy row.
				if !near(float64(r.MsPerIter), 0.001) || !near(float64(r.GTEPS), float64(r.NNZ)/1000) ||
					!near(float64(r.FloorMs), float64(floor)/400e6) || !near(float64(r.FloorFraction), float64(floor)/400e6/0.001) ||
					!near(float64(r.SpeedupVsCPU), best/0.001) || r.BytesPerIteration != 1234 || r.Timing.Clock != "cuda-events" {
					t.Errorf("GPU row %+v", r)
				}
			case r.Implementation == OracleName:
				if !near(float64(r.CopyGBps), cpu1) || r.SpeedupVsCPU.Valid() {
					t.Errorf("oracle floor divides by %v GB/s, want the 1-goroutine row %v", r.CopyGBps, cpu1)
				}
			default:
				k := Ladder[0].Iterations
				okClock := (r.Timing.Clock == CPUClockDiff && r.Timing.Iterations == k-1) || (r.Timing.Clock == CPUClockWhole && r.Timing.Iterations == k)
				if !near(float64(r.CopyGBps), cpuN) || !okClock {
					t.Errorf("%s: copy %v (want %v), clock %q, %d iterations", r.Implementation, r.CopyGBps, cpuN, r.Timing.Clock, r.Timing.Iterations)
				}
			}
		}
	}
	for _, g := range s.Goals {
		if g.Status != report.GoalNotMeasured || !strings.Contains(g.Measured, "at 2^10 only") {
			t.Errorf("goal %q: %s, %q (the study stopped at 2^10)", g.Name, g.Status, g.Measured)
		}
	}
	if !strings.Contains(s.Protocol.OracleRule, "ran on every graph") {
		t.Errorf("oracle rule %q", s.Protocol.OracleRule)
	}
	out := progress.String()
	for _, want := range []string{"plan: 6 graphs", "rmat 2^10", "build", "reference t0-oracle", "bandwidth", "GTEPS", "goal "} {
		if !strings.Contains(out, want) {
			t.Errorf("progress lacks %q:\n%s", want, out)
		}
	}

	// Written and read back.
	dir := t.TempDir()
	if err := report.WriteScale(dir, s); err != nil {
		t.Fatal(err)
	}
	back, err := report.Read[report.ScaleStudy](filepath.Join(dir, report.ScaleJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Rows) != len(s.Rows) || back.Rows[0].MsPerIter != s.Rows[0].MsPerIter {
		t.Error("scale.json does not read back")
	}
	rows, err := report.ReadTable[report.ScaleRow](filepath.Join(dir, report.ScaleRowsCSVFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(s.Rows) || rows[0].Implementation != s.Rows[0].Implementation || rows[0].Timing.MedianMs != s.Rows[0].Timing.MedianMs {
		t.Errorf("%s: %d rows, want %d, first %+v", report.ScaleRowsCSVFile, len(rows), len(s.Rows), rows[0])
	}
	page, err := os.ReadFile(filepath.Join(dir, report.HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{report.ChartScaleTime, report.ChartScaleSpeedup, report.ChartScaleFloor, "goal-table", "gpu-fake"} {
		if !bytes.Contains(page, []byte(id)) {
			t.Errorf("page lacks %q", id)
		}
	}
}

// The oracle rule: skipped where its estimated validation run exceeds
// OracleShare of the budget, on that graph and every larger one; those
// graphs are validated against ReferenceFallback, and all of it is stated.
func TestScaleOracleSkipRuleAppliedAndStated(t *testing.T) {
	cfg, progress := smallScale(t)
	cfg.Grid = false
	// Pretend the oracle gathers at 20 us per edge: the planner's estimate of
	// its minimal rows at scales 9 and 10, and a budget between them.
	cfg.Rates = map[string]ScaleRates{OracleName: {NsPerEdge: 20000, AtNNZ: 1 << 20}}
	cfg.defaults()
	p := &planner{cfg: &cfg, workers: 2, rates: map[string]ScaleRates{}}
	est := func(scale int) float64 {
		n := 1 << scale
		g := &plannedGraph{Family: report.FamilyRMAT, Scale: scale, N: n, NNZ: int(0.95 * float64(16*n))}
		return p.rowS(g, plannedRow{Entry: Entry{reference.Oracle(), report.KindCPU}}, len(Ladder)-1)
	}
	cfg.Budget = time.Duration((est(9) + est(10)) / 2 / OracleShare * float64(time.Second))
	s, err := RunScale(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range s.Graphs {
		want := OracleName
		if g.Scale == 10 {
			want = ReferenceFallback
			if !strings.Contains(g.ReferenceNote, "t0-oracle skipped from this size on") || !strings.Contains(g.ReferenceNote, "10 %") {
				t.Errorf("reference note %q", g.ReferenceNote)
			}
		}
		if g.Reference != want {
			t.Errorf("%s validated against %s, want %s", g.Name, g.Reference, want)
		}
	}
	for _, r := range s.Rows {
		switch {
		case r.Scale == 10 && r.Implementation == OracleName:
			if r.Status != report.StatusSkipped || !strings.Contains(r.Reason, "validated against "+ReferenceFallback) {
				t.Errorf("oracle at 2^10: %s %q", r.Status, r.Reason)
			}
		case r.Scale == 10 && r.Implementation == ReferenceFallback:
			if r.Status != report.StatusPass || !strings.Contains(r.Reason, "the reference on this graph") {
				t.Errorf("fallback at 2^10: %s %q", r.Status, r.Reason)
			}
		case r.Status != report.StatusPass:
			t.Errorf("%s %s: %s %q", r.Graph, r.Implementation, r.Status, r.Reason)
		case r.Scale == 10 && r.Reference != ReferenceFallback:
			t.Errorf("%s at 2^10 validated against %s", r.Implementation, r.Reference)
		}
	}
	rule := s.Protocol.OracleRule
	if !strings.Contains(rule, "up to") || !strings.Contains(rule, "rmat9") || !strings.Contains(rule, "from rmat10") {
		t.Errorf("oracle rule not stated: %q", rule)
	}
	var planned bool
	for _, l := range s.Plan {
		if strings.Contains(l, "rmat 2^10") && strings.Contains(l, "ref "+ReferenceFallback) && strings.Contains(l, "t0-oracle skipped") {
			planned = true
		}
	}
	if !planned || !strings.Contains(progress.String(), "skipped: t0-oracle skipped from this size on") {
		t.Errorf("skip not in the plan or the progress:\n%s\n%s", strings.Join(s.Plan, "\n"), progress.String())
	}

	// --oracle-max-scale states its own reason.
	cfg2, _ := smallScale(t)
	cfg2.Grid, cfg2.MaxScale, cfg2.OracleMaxScale = false, 9, 8
	s2, err := RunScale(context.Background(), cfg2)
	if err != nil {
		t.Fatal(err)
	}
	if g := s2.Graphs[1]; g.Reference != ReferenceFallback || !strings.Contains(g.ReferenceNote, "--oracle-max-scale") {
		t.Errorf("forced rule: %+v", g)
	}
}

// A budget that cannot hold the study leaves out graphs and rows with the
// reason, and the study still ends (with a report) near its budget.
func TestScaleBudgetSkipsWithReason(t *testing.T) {
	cfg, _ := smallScale(t)
	// A clock that runs 2 s per reading: the budget is spent after a few rows.
	t0 := time.Unix(0, 0)
	cfg.Now = func() time.Time { t0 = t0.Add(2 * time.Second); return t0 }
	cfg.Budget = 40 * time.Second
	s, err := RunScale(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var skipped int
	for _, r := range s.Rows {
		if r.Status == report.StatusSkipped {
			skipped++
			if !strings.Contains(r.Reason, "time budget") {
				t.Errorf("%s %s skipped for %q", r.Graph, r.Implementation, r.Reason)
			}
		}
	}
	if skipped == 0 {
		t.Fatal("nothing skipped on an exhausted budget")
	}
	// Plan only: a 1 s budget leaves graphs out and says which go first
	// (it said "the largest graphs", while the smallest grids went first).
	cfg2, _ := smallScale(t)
	cfg2.Budget, cfg2.PlanOnly = time.Second, true
	s2, err := RunScale(context.Background(), cfg2)
	if err != nil || len(s2.Rows) != 0 || !strings.Contains(strings.Join(s2.Plan, "\n"), "SKIPPED: time budget") ||
		!strings.Contains(strings.Join(s2.Plan, "\n"), "the 2-D grids first, largest first, then the largest R-MAT graphs") {
		t.Errorf("plan-only: err %v, %d rows, plan:\n%s", err, len(s2.Rows), strings.Join(s2.Plan, "\n"))
	}
}

func TestScaleConfigRejects(t *testing.T) {
	for _, c := range []ScaleConfig{
		{MinScale: 0, MaxScale: 10}, {MinScale: 12, MaxScale: 10}, {MinScale: 8, MaxScale: 27},
		{MinScale: 8, MaxScale: 9, Budget: time.Millisecond}, {MinScale: 8, MaxScale: 9, OracleMaxScale: 30},
		{MinScale: 8, MaxScale: 9, Impls: []string{"nope"}},
	} {
		c.defaults()
		if err := c.Validate(); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}

func TestValidateNearTiesOnTheGrid(t *testing.T) {
	// float32 on a 2-D grid: the plain gate fails on ties, the near-tie gate passes.
	g, err := pagerank.Grid2D(32)
	if err != nil {
		t.Fatal(err)
	}
	ref3, _ := reference.Oracle().Run(g, pagerank.Fixed(20))
	f32, _ := reference.Multicore(pagerank.Float32, 2).Run(g, pagerank.Fixed(20))
	v := pagerank.Validate(g, f32, ref3)
	if !v.Pass || !strings.Contains(v.TieNote, "near-ties") {
		t.Errorf("grid float32: %+v", v)
	}
}

func TestCPUTimingDifferenceAndFallback(t *testing.T) {
	// Setup 30 ms, 10 ms per iteration, K = 5: whole 80 ms, difference 40 ms for 4 iterations.
	tm := cpuTiming(5, 1, 1, []float64{40, 41, 39}, []float64{80, 81, 79})
	if tm.Iterations != 4 || tm.Clock != CPUClockDiff || !near(tm.MsPerIteration(), 10) {
		t.Errorf("difference timing %+v: want 4 iterations at 10 ms", tm)
	}
	// Noise beats the signal (a negative difference): the whole call, stated.
	tm = cpuTiming(3, 1, 0, []float64{-5}, []float64{120})
	if tm.Iterations != 3 || tm.Clock != CPUClockWhole || !near(tm.MsPerIteration(), 40) {
		t.Errorf("fallback timing %+v: want 3 iterations at 40 ms, setup included", tm)
	}
}

// The goals with the H200 run's numbers: 1.836 ms on the GPU, 170.9 ms on 16
// Go cores, 263,431,158 edges: 1.836 <= 1.9 met; 170.9 / 1.836 = 93.1x >= 60
// met; 170.9e6 / 263431158 = 0.6487 ns per edge against 1.25 x 0.47 = 0.5875: not comparable (GAP's figure is for a different graph).
// The same numbers from a 2-core host without an H200 are "not measured".
func TestScaleGoalsGraded(t *testing.T) {
	const nnz = 263431158
	mk := func(impl, kind string, ms float64) report.ScaleRow {
		r := report.ScaleRow{Family: report.FamilyRMAT, Scale: 24, Graph: "rmat24", GraphSize: report.GraphSize{N: 1 << 24, NNZ: nnz}, Identity: report.Identity{Implementation: impl, Kind: kind}, Outcome: report.Outcome{Status: report.StatusPass}}
		fillRates(&r, ms, nil)
		return r
	}
	s := &report.ScaleStudy{StudyHeader: report.StudyHeader{Env: report.Environment{CPUCores: 16, CPUModel: "Xeon"}, GPU: &report.GPUContext{Name: "NVIDIA H200"}},
		Graphs: []report.ScaleGraph{{Family: report.FamilyRMAT, Scale: 24, Name: "rmat24", GraphSize: report.GraphSize{N: 1 << 24, NNZ: nnz}}},
		Rows: []report.ScaleRow{mk(OracleName, report.KindCPU, 50), mk("t1-multicore-f32", report.KindCPU, 170.9),
			mk("t1-multicore-f64", report.KindCPU, 250), mk("gpu-a", report.KindGPU, 2.6), mk("gpu-b", report.KindGPU, 1.836)}}
	g := ScaleGoals(s)
	if g[0].Status != report.GoalMet || float64(g[0].Value) != 1.836 || !strings.Contains(g[0].Measured, "gpu-b: 1.84 ms") {
		t.Errorf("goal 1: %+v", g[0])
	}
	if g[1].Status != report.GoalMet || math.Abs(float64(g[1].Value)-170.9/1.836) > 1e-9 || !strings.Contains(g[1].Measured, "93.1x") {
		t.Errorf("goal 2 (the oracle is not the multi-core CPU): %+v", g[1])
	}
	if g[2].Status != report.GoalNotComparable || math.Abs(float64(g[2].Value)-170.9e6/nnz) > 1e-12 || math.Abs(float64(g[2].Limit)-0.5875) > 1e-12 {
		t.Errorf("goal 3: %+v", g[2])
	}
	// The moonshot goal of 2^24 (the only moonshot scale planned): 1.836 > 1.2 ms.
	if len(g) != 4 || g[3].Name != "GPU moonshot time per iteration, RMAT 2^24" || g[3].Status != report.GoalNotMet || float64(g[3].Value) != 1.836 ||
		float64(g[3].Limit) != 1.2 || !strings.Contains(g[3].Measured, "gpu-b: 1.84 ms per iteration (0.68x the CuPy loop's time)") {
		t.Errorf("moonshot goals: %+v", g[3:])
	}
	s.Rows[4].MsPerIter = 1.15
	if g := ScaleGoals(s); g[3].Status != report.GoalMet {
		t.Errorf("1.15 ms at 2^24: %+v", g[3])
	}
	s.Rows[4].MsPerIter = 1.836
	s.Env.CPUCores, s.GPU = 2, &report.GPUContext{Name: "Tesla T4"}
	for i, g := range ScaleGoals(s) {
		if g.Status != report.GoalNotMeasured || !g.Value.Valid() {
			t.Errorf("goal %d on other hardware: %s, value %v (want the number, not measured)", i+1, g.Status, g.Value)
		}
	}
}

// When the budget skipped the GPU rows at 2^24 and 2^23 was measured, the
// goals say so (not "no GPU row passed validation"), and the summary
// names the largest graph with a timed GPU row as such.
func TestScaleGoalsBudgetSkippedAtGoalScale(t *testing.T) {
	mk := func(scale int, impl, kind string, ms float64) report.ScaleRow {
		nnz := 1 << (scale + 3)
		r := report.ScaleRow{Family: report.FamilyRMAT, Scale: scale, Graph: fmt.Sprintf("rmat%d", scale), GraphSize: report.GraphSize{N: 1 << scale, NNZ: nnz},
			Identity: report.Identity{Implementation: impl, Kind: kind}, Outcome: report.Outcome{Status: report.StatusPass}}
		fillRates(&r, ms, nil)
		return r
	}
	skip := mk(24, "gpu-b", report.KindGPU, 0)
	skip.Status, skip.Reason, skip.MsPerIter = report.StatusSkipped, "time budget: 0.9 s left, this row was estimated at 1.4 s", report.NaN
	s := &report.ScaleStudy{StudyHeader: report.StudyHeader{Env: report.Environment{CPUCores: 16, CPUModel: "Xeon"}, GPU: &report.GPUContext{Name: "NVIDIA H200"}}, Complete: true,
		Graphs: []report.ScaleGraph{{Family: report.FamilyRMAT, Scale: 23, Name: "rmat23", GraphSize: report.GraphSize{N: 1 << 23, NNZ: 1 << 26}},
			{Family: report.FamilyRMAT, Scale: 24, Name: "rmat24", GraphSize: report.GraphSize{N: 1 << 24, NNZ: 1 << 27}}},
		Rows: []report.ScaleRow{mk(23, "t1-multicore-f64", report.KindCPU, 46), mk(23, "gpu-b", report.KindGPU, 0.75),
			mk(24, "t1-multicore-f64", report.KindCPU, 108), skip}}
	g := ScaleGoals(s)
	want := "the GPU rows on rmat24 were skipped (time budget: 0.9 s left, this row was estimated at 1.4 s)"
	if g[0].Status != report.GoalNotMeasured || !strings.Contains(g[0].Measured, "at 2^23 only") || g[0].Note != want {
		t.Errorf("goal 1: %+v", g[0])
	}
	if g[1].Note != want {
		t.Errorf("goal 2's note %q, want %q", g[1].Note, want)
	}
	if m := g[len(g)-1]; m.Name != "GPU moonshot time per iteration, RMAT 2^24" || m.Note != want {
		t.Errorf("moonshot at 2^24: %+v", m)
	}
	page := string(report.ScaleFindingsHTML(s))
	for _, w := range []string{"4 rows (1 skipped), complete", "Fastest GPU on the largest R-MAT graph with a timed GPU row (rmat24"} {
		if !strings.Contains(page, w) {
			t.Errorf("summary lacks %q:\n%s", w, page)
		}
	}
	if got := budgetSeconds(0.94); got != "0.9" {
		t.Errorf("budgetSeconds(0.94) = %q", got)
	}
	if got := budgetSeconds(212.4); got != "212" {
		t.Errorf("budgetSeconds(212.4) = %q", got)
	}
}

func TestBusierThan(t *testing.T) {
	for load, want := range map[string]bool{"0.86 0.40 0.15": false, "2.00 1 1": false, "2.01 0.5 0.5": true, "": false, "x": false} {
		if got := busierThan(load, 2); got != want {
			t.Errorf("busierThan(%q, 2) = %v, want %v", load, got, want)
		}
	}
}

// A graph of a few edges (the 2-node R-MAT that `prlab scale --graph FILE
// --max-scale 1` also runs) must not set the per-edge rate the planner
// extrapolates to the file: its time is fixed costs.
func TestPlannerIgnoresTinyGraphTimes(t *testing.T) {
	cfg, _ := smallScale(t)
	cfg.defaults()
	p := &planner{cfg: &cfg, workers: 2, rates: map[string]ScaleRates{}}
	e := CPUEntries()[2] // t1-multicore-f32
	prior := p.rate(e, report.FamilyRMAT)
	p.learn(e, report.FamilyRMAT, 2, 0.0002) // 2 edges in 0.2 us
	if got := p.rate(e, report.FamilyRMAT); got != prior {
		t.Errorf("a 2-edge graph changed the rate: %+v, prior %+v", got, prior)
	}
	p.learn(e, report.FamilyRMAT, 1<<20, 1.02) // 1M edges in 1.02 ms: (1.02 ms - 20 us fixed) / 2^20 edges
	if got := p.rate(e, report.FamilyRMAT); !near(got.NsPerEdge, 1e6/float64(1<<20)) || got.AtNNZ != 1<<20 {
		t.Errorf("rate after a 2^20-edge graph: %+v, want %.4f ns per edge", got, 1e6/float64(1<<20))
	}
}

// A fixed rung (prlab scale --rung) times every row on it and skips nothing
// for the budget, even where the planner would have left graphs out.
func TestScaleFixedRung(t *testing.T) {
	cfg, _ := smallScale(t)
	cfg.Budget, cfg.PlanOnly, cfg.Rung = time.Second, true, &Rung{Iterations: 4, Warmups: 1, Runs: 2}
	s, err := RunScale(context.Background(), cfg)
	plan := strings.Join(s.Plan, "\n")
	if err != nil || strings.Contains(plan, "SKIPPED") || !strings.Contains(plan, "t1-multicore-f32 4x2") {
		t.Fatalf("plan with a fixed rung and a 1 s budget: err %v\n%s", err, plan)
	}
	if !strings.Contains(s.Plan[0], "every row 4x2 (--rung, no time budget)") || strings.Contains(plan, "budget needs it") || strings.Contains(plan, "s budget") {
		t.Errorf("a --rung plan names a time budget it does not apply:\n%s", plan)
	}
	if !strings.HasPrefix(s.Protocol.Ladder, "every row 4 iterations × 2 runs after one warm-up (--rung 4x2: no row fitted") {
		t.Errorf("a --rung study's protocol.ladder = %q, want the fixed rung", s.Protocol.Ladder)
	}
	cfg, _ = smallScale(t)
	cfg.MaxScale, cfg.Grid, cfg.Rung = 8, false, &Rung{Iterations: 4, Warmups: 1, Runs: 2}
	s, err = RunScale(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	cpu := 0
	for _, r := range s.Rows {
		if r.Kind != report.KindCPU {
			continue
		}
		cpu++
		if r.Status != report.StatusPass || len(r.Timing.RunsMs) != 2 || r.Timing.Warmups != 1 {
			t.Errorf("%s %s: %s (%s), %d runs, %d warm-ups; want a pass timed 2 runs after 1 warm-up", r.Graph, r.Implementation, r.Status, r.Reason, len(r.Timing.RunsMs), r.Timing.Warmups)
		}
	}
	if cpu < 3 {
		t.Errorf("%d CPU rows, want t0 and both T1 precisions", cpu)
	}
	if s.Protocol.Rung != "4x2" {
		t.Errorf("protocol rung %q, want 4x2 (the page says it instead of the budget)", s.Protocol.Rung)
	}
	if s.Protocol.Rung = ""; s.FixedRung() == nil || *s.FixedRung() != *cfg.Rung { // a document from before protocol.rung: its rows say it
		t.Errorf("FixedRung from the rows = %v, want 4x2 after one warm-up", s.FixedRung())
	}
	cfg, _ = smallScale(t)
	cfg.PlanOnly = true
	if s, err = RunScale(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if s.Protocol.Rung != "" || !strings.HasPrefix(s.Protocol.Ladder, "course protocol") || !strings.Contains(s.Plan[0], "s budget") {
		t.Errorf("a budgeted study records rung %q, ladder %q, plan %q; want no rung and the budget", s.Protocol.Rung, s.Protocol.Ladder, s.Plan[0])
	}
}

// A plan-only study reads every --graph file as the run would: a bad file is
// the run's error, naming file:line, before any plan is printed; a good one
// is planned with its own n and nnz, not estimates from its size.
func TestScalePlanReadsGraphFiles(t *testing.T) {
	dir := t.TempDir()
	good := fixture.WriteFile(t, dir, "good.el", "0 1\n1 2\n2 0\n2 1\n")
	bad := fixture.WriteFile(t, dir, "bad.el", "0 1\n1 2\nx y z\n")
	plan := func(path, name string) (*report.ScaleStudy, string, error) {
		cfg, progress := smallScale(t)
		cfg.MinScale, cfg.MaxScale, cfg.Grid, cfg.PlanOnly = 8, 8, false, true
		cfg.Files = []GraphFile{{Path: path, Name: name, Load: pagerank.LoadOptions{Format: pagerank.FormatEL}}}
		s, err := RunScale(context.Background(), cfg)
		return s, progress.String(), err
	}
	if _, progress, err := plan(bad, "bad"); err == nil || !strings.Contains(err.Error(), "build bad: "+bad+":3: ") || strings.Contains(progress, "plan:") {
		t.Errorf("bad file: err %v; progress:\n%s", err, progress)
	}
	s, _, err := plan(good, "good")
	if err != nil {
		t.Fatal(err)
	}
	if p := strings.Join(s.Plan, "\n"); !strings.Contains(p, "file good  n=3         nnz~4 ") {
		t.Errorf("plan does not give the file's own n=3, nnz=4:\n%s", p)
	}
}

// A run (not plan-only) plans a --graph file before reading it, from its
// size: the plan marks that n as an estimate ("n~"), not as the file's n.
func TestScalePlanMarksUnreadFileEstimates(t *testing.T) {
	good := fixture.WriteFile(t, t.TempDir(), "good.el", "0 1\n1 2\n2 0\n2 1\n")
	cfg, _ := smallScale(t)
	cfg.MinScale, cfg.MaxScale, cfg.Grid = 4, 4, false
	cfg.Files = []GraphFile{{Path: good, Name: "good", Load: pagerank.LoadOptions{Format: pagerank.FormatEL}}}
	s, err := RunScale(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	p := strings.Join(s.Plan, "\n")
	if !strings.Contains(p, "file good  n~1         nnz~1 ") || !strings.Contains(p, "rmat 2^4   n=16 ") {
		t.Errorf("plan does not mark the unread file's n as an estimate (n~) and the generated graph's as known (n=):\n%s", p)
	}
}
