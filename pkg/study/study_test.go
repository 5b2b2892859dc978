package study

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/prlab/prlab/pkg/pagerank"
	"github.com/prlab/prlab/pkg/reference"
	"github.com/prlab/prlab/pkg/report"
)

// smallGraph is a 7-node citation graph with one self-loop (p4 -> p4), one
// duplicate edge (p5 -> p3 twice) and one dangling node (p7).
const smallGraph = `# test graph: CITING , CITED
p1 , p2
p1 , p3
p2 , p3
p3 , p1
p4 , p3
p4 , p4
p5 , p3
p5 , p3
p6 , p7
`

const smallPapers = "id\tyear\ttitle\ttitle_source\tin_citation_graph\n" +
	"p1\t2001\tFirst paper\taan\t1\n" +
	"p2\t2002\tSecond paper\taan\t1\n" +
	"p3\t1999\tThe much-cited paper\taan\t1\n" +
	"p4\t2004\tFourth\taan\t1\n" +
	"p5\t2005\tFifth\taan\t1\n" +
	"p6\t2006\tSixth\taan\t1\n" +
	"q9\t2010\tNot in the graph\taan\t0\n"

// smallConfig writes the small graph and its metadata to a temporary
// directory and returns a quick configuration (2 timed runs).
func smallConfig(t *testing.T) Config {
	t.Helper()
	dir := t.TempDir()
	edges := filepath.Join(dir, "edges.txt")
	papers := filepath.Join(dir, "papers.tsv")
	if err := os.WriteFile(edges, []byte(smallGraph), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(papers, []byte(smallPapers), 0o644); err != nil {
		t.Fatal(err)
	}
	return Config{Name: "test", EdgeList: edges, GraphName: "small", Papers: papers, Datasets: []string{edges},
		Runs: 2, Progress: &strings.Builder{}}
}

func byKey(run *report.Run) map[string]report.Check {
	m := map[string]report.Check{}
	for _, c := range run.Correctness {
		m[c.Case+"/"+c.Implementation] = c
	}
	return m
}

func TestRunSmallGraph(t *testing.T) {
	cfg := smallConfig(t)
	progress := cfg.Progress.(*strings.Builder)
	run, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	wantLine := "loaded 7 nodes and 7 edges (dropped 1 self-loops, 1 duplicates); 1 dangling"
	if run.Graph.Line != wantLine {
		t.Errorf("load line %q, want %q", run.Graph.Line, wantLine)
	}
	if first, _, _ := strings.Cut(progress.String(), "\n"); first != wantLine {
		t.Errorf("first progress line %q, want the load line %q", first, wantLine)
	}
	if run.Graph.WithMetadata != 6 || run.Graph.MetadataNotInGraph != 1 {
		t.Errorf("metadata coverage %d in graph, %d outside; want 6 and 1", run.Graph.WithMetadata, run.Graph.MetadataNotInGraph)
	}
	if len(run.Env.Datasets) != 1 || len(run.Env.Datasets[0].SHA256) != 64 || run.Env.Datasets[0].Bytes != int64(len(smallGraph)) {
		t.Errorf("dataset checksums %+v", run.Env.Datasets)
	}

	// Every CPU implementation passes every case; the exercise variant
	// fails tiny and passes nodangling (the course's exercise).
	cases := append(append([]string{}, pagerank.SyntheticCaseNames...), "small")
	checks := byKey(run)
	for _, c := range cases {
		for _, im := range []string{"t0-oracle", "t1-multicore-f64", "t1-multicore-f32"} {
			if got := checks[c+"/"+im]; got.Status != report.StatusPass {
				t.Errorf("%s on %s: %s (%s)", im, c, got.Status, got.Reason)
			}
		}
	}
	if got := checks["tiny/t0-nodangling"]; got.Status != report.StatusFail || got.SumPass {
		t.Errorf("exercise variant on tiny: %+v, want fail on the sum invariant", got)
	}
	if got := checks["nodangling/t0-nodangling"]; got.Status != report.StatusPass {
		t.Errorf("exercise variant on nodangling: %+v, want pass", got)
	}
	if n := len(run.Correctness); n != len(cases)*4 {
		t.Errorf("%d correctness rows, want %d (7 cases x 4 implementations)", n, len(cases)*4)
	}
	if got := checks["star/t1-multicore-f32"]; got.N != 10001 || got.NNZ != 10000 || got.Iterations != 100 {
		t.Errorf("star row shape %d/%d/%d, want n=10001 nnz=10000 100 iterations", got.N, got.NNZ, got.Iterations)
	}

	// Tolerance mode: the oracle converges to 1e-12, float32 to 1e-6 in fewer iterations.
	conv := map[string]report.Convergence{}
	for _, c := range run.Convergence {
		conv[c.Implementation] = c
	}
	o, f32 := conv["t0-oracle"], conv["t1-multicore-f32"]
	if !o.Converged || o.Tolerance != 1e-12 || float64(o.FinalResidual) >= 1e-12 || o.Status != report.StatusPass {
		t.Errorf("oracle convergence %+v", o)
	}
	if !f32.Converged || f32.Tolerance != 1e-6 || f32.Iterations >= o.Iterations || float64(f32.Spearman) != 1 {
		t.Errorf("float32 convergence %+v (oracle %d iterations)", f32, o.Iterations)
	}

	// Top table: p3 (cited by four papers) first, scores descending, metadata joined.
	if len(run.Top) != 7 {
		t.Fatalf("%d top rows, want 7 (every node of a 7-node graph)", len(run.Top))
	}
	if top := run.Top[0]; top.ID != "p3" || top.InDegree != 4 || top.OutDegree != 1 || top.Year != 1999 || top.Title != "The much-cited paper" {
		t.Errorf("top row %+v, want p3 with in-degree 4", top)
	}
	for i := 1; i < len(run.Top); i++ {
		if run.Top[i].Score > run.Top[i-1].Score {
			t.Errorf("top table not descending at rank %d", i+1)
		}
	}
	for _, r := range run.Top {
		if r.ID == "p7" && (r.Known || r.Year != 0) {
			t.Errorf("p7 has no metadata row, got %+v", r)
		}
	}

	// Timing: every non-exercise CPU implementation, wall clock, 2 runs of 50 iterations.
	if len(run.Timings) != 3 {
		t.Fatalf("%d timing rows, want 3", len(run.Timings))
	}
	for _, tm := range run.Timings {
		if tm.Status != report.StatusPass || tm.Timing.Clock != "wall" || len(tm.Timing.RunsMs) != 2 || tm.Timing.Iterations != 50 || !(tm.Timing.MedianMs > 0) {
			t.Errorf("timing row %+v", tm)
		}
	}
	if run.GPUSkipped != NoGPUReason || run.GPU != nil || run.Tiers != nil {
		t.Errorf("no GPU: skipped %q, context %v, tiers %v", run.GPUSkipped, run.GPU, run.Tiers)
	}
	for _, r := range run.Results {
		if len(r.Ranks) != 0 {
			t.Fatalf("%s/%s kept %d ranks without KeepRanks", r.Implementation, r.Case, len(r.Ranks))
		}
	}
	// The whole run writes and reads back.
	dir := t.TempDir()
	if err := report.Write(dir, run); err != nil {
		t.Fatal(err)
	}
	if _, err := report.Read[report.Run](filepath.Join(dir, report.JSONFile)); err != nil {
		t.Fatal(err)
	}
}

// fakeGPU is a GPU without CUDA: its one implementation is the float32
// multi-core CPU code timed through the Benchmarker path, with made-up
// stages, so the GPU plumbing (context, copy rows, x DRAM, tiers) is tested
// on any machine.
type fakeGPU struct {
	available bool
	why       string
}

// fakeH200Impl is a fake GPU row on the fake H200: every run of 50
// iterations takes 0.5 ms, 1e6 bytes per iteration (100 GB/s), one 100 GB/s
// stage, 5 launches and no host sync per iteration.
func fakeH200Impl(im pagerank.Implementation, name string) fakeGPUImpl {
	return fakeGPUImpl{Implementation: im, name: name, label: "fake GPU " + name, runMs: func(int) float64 { return 0.5 },
		bytes: 1000000, stages: []pagerank.Stage{{Name: "spmv", Ms: 0.005, Bytes: 500000}}, launches: 5}
}

func (f fakeGPU) Available() (bool, string) { return f.available, f.why }
func (f fakeGPU) Implementations() []pagerank.Implementation {
	return []pagerank.Implementation{
		fakeH200Impl(reference.Multicore(pagerank.Float32, 1), "gpu-fake-tpr"),
		fakeH200Impl(reference.Multicore(pagerank.Float32, 2), "gpu-fake-warp"),
	}
}
func (f fakeGPU) Context() (*report.GPUContext, error) {
	return &report.GPUContext{Name: "Fake H200", ComputeCapability: "9.0", SMs: 132, L2Bytes: 50 << 20}, nil
}
func (f fakeGPU) StageTable(g *pagerank.Graph) (copies, stages []pagerank.Stage, err error) {
	return []pagerank.Stage{
			// Times and bytes only, as pkg/cudabind reports them: 400 and 800 GB/s.
			{Name: "copy, 128 MiB (DRAM)", Kind: pagerank.StageCopyDRAM, Ms: 268435456 / 400e6, Bytes: 268435456},
			{Name: "copy, one iteration's bytes", Kind: pagerank.StageCopyIteration, Ms: 1000000 / 800e6, Bytes: 1000000},
		}, []pagerank.Stage{
			{Name: "spmv, thread per row", Ms: float64(4*(g.N+1)+8*g.NNZ) / 200e6, Bytes: int64(4*(g.N+1) + 8*g.NNZ)}, // 200 GB/s
		}, nil
}
func (f fakeGPU) Baseline() string { return "gpu-fake-tpr" }
func (f fakeGPU) WriteBudget(*pagerank.Graph) (map[string]string, error) {
	return map[string]string{"gpu-fake-tpr": "met", "gpu-fake-warp": "met"}, nil
}

func TestGPUPlumbingWithFakeGPU(t *testing.T) {
	cfg := smallConfig(t)
	cfg.GPU = fakeGPU{available: true}
	run, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if run.GPU == nil || run.GPU.Name != "Fake H200" || run.GPUSkipped != "" {
		t.Fatalf("GPU context %+v, skipped %q", run.GPU, run.GPUSkipped)
	}
	// The rates come from bytes and time, computed once by the study (rates.go).
	if len(run.CopyRows) != 2 || run.CopyRows[0].XDRAM != 1 || math.Abs(run.CopyRows[1].XDRAM-2) > 1e-12 || run.CopyRows[1].Bytes != 1000000 ||
		math.Abs(run.CopyRows[0].GBps-400) > 1e-9 {
		t.Errorf("copy rows %+v, want x DRAM 1 and 2 and one iteration's 1000000 bytes", run.CopyRows)
	}
	if len(run.Stages) != 1 || math.Abs(run.Stages[0].XDRAM-0.5) > 1e-12 || math.Abs(run.Stages[0].GBps-200) > 1e-9 {
		t.Errorf("stage table %+v, want one stage at 200/400 = 0.5 x DRAM", run.Stages)
	}
	for _, tm := range run.Timings {
		if tm.Kind != report.KindGPU {
			continue
		}
		if tm.Timing.Clock != "cuda-events" || math.Abs(float64(tm.GBps)-100) > 1e-9 || math.Abs(float64(tm.XDRAM)-0.25) > 1e-12 {
			t.Errorf("%s timing: clock %s, %v GB/s, %v x DRAM; want cuda-events, 100, 0.25", tm.Implementation, tm.Timing.Clock, tm.GBps, tm.XDRAM)
		}
		if len(tm.Stages) != 1 || math.Abs(tm.Stages[0].XDRAM-0.25) > 1e-12 || math.Abs(tm.Stages[0].GBps-100) > 1e-9 {
			t.Errorf("%s stages %+v, want x DRAM filled as 100/400", tm.Implementation, tm.Stages)
		}
	}
	tiers := map[string]report.TierRow{}
	for _, r := range run.Tiers {
		tiers[r.Implementation] = r
	}
	// Same median as the baseline: not faster, so pass (no bronze).
	if tr := tiers["gpu-fake-warp"]; tr.Tier != report.TierPass || tr.BeatsBaseline || !tr.AllCorrect {
		t.Errorf("fake warp tier %+v", tr)
	}
	if len(run.Tiers) != 2 {
		t.Errorf("%d tier rows, want 2", len(run.Tiers))
	}
}

func TestGPUUnavailableRowsSkipped(t *testing.T) {
	cfg := smallConfig(t)
	cfg.Cases = []string{"tiny"}
	cfg.GPU = fakeGPU{available: false, why: "libprlab_cuda.so: cannot open shared object file"}
	run, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if run.GPUSkipped != cfg.GPU.(fakeGPU).why || run.GPU != nil {
		t.Errorf("GPUSkipped %q, GPU %v", run.GPUSkipped, run.GPU)
	}
	n := 0
	for _, c := range run.Correctness {
		if c.Kind == report.KindGPU {
			n++
			if c.Status != report.StatusSkipped || c.Reason != cfg.GPU.(fakeGPU).why {
				t.Errorf("GPU row %+v, want skipped with the library's reason", c)
			}
		} else if c.Implementation != "t0-nodangling" && c.Status != report.StatusPass {
			t.Errorf("CPU row %s: %s", c.Implementation, c.Status)
		}
	}
	if n != 2 {
		t.Errorf("%d GPU correctness rows, want 2 (skipped, still listed)", n)
	}
	for _, im := range run.Implementations {
		if im.Kind == report.KindGPU && (im.Available || im.Reason == "") {
			t.Errorf("implementation %+v should be unavailable with a reason", im)
		}
	}
	// The console: one line for both skipped GPU rows, none per row, and the
	// implementation column sized to the longest name printed (t1-multicore-f64).
	progress := cfg.Progress.(*strings.Builder).String()
	why := cfg.GPU.(fakeGPU).why
	if got := strings.Count(progress, why); got != 1 {
		t.Errorf("the GPU reason appears %d times in the progress, want once:\n%s", got, progress)
	}
	if !slices.Contains(strings.Split(progress, "\n"), "2 GPU designs skipped: "+why) {
		t.Errorf("progress lacks the line \"2 GPU designs skipped: %s\":\n%s", why, progress)
	}
	if strings.Contains(progress, "gpu-fake") {
		t.Errorf("skipped GPU rows printed one by one:\n%s", progress)
	}
	if !strings.Contains(progress, "\n  tiny  t1-multicore-f64  n=6  nnz=9  err/tol=") {
		t.Errorf("correctness columns not sized to the longest case and implementation names:\n%s", progress)
	}
}

func TestSelectKeepsOracle(t *testing.T) {
	got, err := Select(CPUEntries(), []string{"t1-multicore-f32"})
	if err != nil {
		t.Fatal(err)
	}
	if names := strings.Join(Names(got), ","); names != "t0-oracle,t1-multicore-f32" {
		t.Errorf("selected %s, want the oracle and t1-multicore-f32", names)
	}
}

// TestRealGraph runs the study on the bundled AAN graph (data/aan) and
// checks the course's acceptance figures.
func TestRealGraph(t *testing.T) {
	edges, papers := realData(t)
	if testing.Short() {
		t.Skip("-short")
	}
	cfg := Config{Name: "real", EdgeList: edges, GraphName: "aan", Papers: papers,
		Cases: []string{"real"}, Impls: []string{"t1-multicore-f32", "t1-multicore-f64"}, Runs: 1}
	run, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if want := "loaded 16589 nodes and 94931 edges (dropped 42 self-loops, 0 duplicates); 1525 dangling"; run.Graph.Line != want {
		t.Errorf("load line %q, want %q", run.Graph.Line, want)
	}
	for _, c := range run.Correctness {
		if c.Status != report.StatusPass || float64(c.Spearman) != 1 {
			t.Errorf("%s on the real graph: %s, rho %v (%s)", c.Implementation, c.Status, c.Spearman, c.Reason)
		}
	}
	for _, c := range run.Convergence {
		if c.Status != report.StatusPass || !c.Converged || float64(c.Spearman) != 1 {
			t.Errorf("%s converging: %+v", c.Implementation, c)
		}
	}
	if len(run.Top) != 20 {
		t.Fatalf("%d top rows, want 20", len(run.Top))
	}
	highIn := 0
	for _, r := range run.Top {
		if !r.Known || r.Title == "" || r.Year < 1965 || r.Year > 2012 {
			t.Errorf("top row without metadata: %+v", r)
		}
		if r.InDegree > r.OutDegree {
			highIn++
		}
	}
	// The guard against a transposed graph: the top papers are cited, not citing.
	if highIn < 18 {
		t.Errorf("only %d of the top 20 have in-degree above out-degree: is the graph transposed?", highIn)
	}
}
