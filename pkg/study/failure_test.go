package study

// Failures while running (issue 7): one implementation failing, by an error,
// a panic, NaN ranks, ranks of the wrong length or no Result at all, marks
// its own rows failed with the error, in the Run, in results.json/.csv and in
// the HTML; every other implementation's rows are still computed and pass.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prlab/prlab/pkg/pagerank"
	"github.com/prlab/prlab/pkg/report"
)

// brokenImpl is an Implementation that fails in a chosen way.
type brokenImpl struct {
	name string
	mode string // "error", "panic", "nan", "short", "nil", "resulterr"
}

func (b *brokenImpl) Name() string                  { return b.name }
func (b *brokenImpl) Label() string                 { return "broken (" + b.mode + ")" }
func (b *brokenImpl) Precision() pagerank.Precision { return pagerank.Float64 }
func (b *brokenImpl) Run(g *pagerank.Graph, p pagerank.Params) (*pagerank.Result, error) {
	switch b.mode {
	case "error":
		return nil, errors.New("cudaErrorMemoryAllocation: out of memory (simulated)")
	case "panic":
		var x []int
		_ = x[g.N] // index out of range, a real runtime panic
	case "nan":
		ranks := make([]float64, g.N)
		for i := range ranks {
			ranks[i] = math.NaN()
		}
		return &pagerank.Result{Precision: pagerank.Float64, Mode: p.Mode, Ranks: ranks, Iterations: 1,
			Residuals: []float64{math.NaN()}, Sums: []float64{math.NaN()}}, nil
	case "short":
		return &pagerank.Result{Precision: pagerank.Float64, Mode: p.Mode, Ranks: []float64{1}, Iterations: 1,
			Residuals: []float64{0}, Sums: []float64{1}}, nil
	case "unavailable":
		return nil, fmt.Errorf("graph of %d nodes does not fit in shared memory: %w", g.N, pagerank.ErrUnavailable)
	case "resulterr":
		return &pagerank.Result{Err: "kernel launch failed: too many resources requested (simulated)"}, nil
	}
	return nil, nil // "nil": no Result and no error
}

// writeGraph writes a small edge list (node 4 dangling) and metadata for
// some of its ids plus ids that are not in the graph.
func writeGraph(t *testing.T) (edges, papers string) {
	t.Helper()
	dir := t.TempDir()
	edges = filepath.Join(dir, "g.txt")
	papers = filepath.Join(dir, "papers.tsv")
	el := "A , B\nA , C\nB , C\nC , A\nD , C\nD , E\nB , E\n"
	md := "id\tyear\ttitle\ttitle_source\nA\t2001\tPaper A\taan\nC\t2003\tPaper C\taan\nZ\t1999\tNot in the graph\taan\n"
	if err := os.WriteFile(edges, []byte(el), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(papers, []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	return edges, papers
}

func TestOneImplementationFailingKeepsTheOthers(t *testing.T) {
	edges, papers := writeGraph(t)
	broken := map[string]string{ // name -> text its failure must show
		"x-error":     "out of memory (simulated)",
		"x-panic":     "panic: runtime error: index out of range",
		"x-nan":       "non-finite",
		"x-short":     "rank vectors have length 1 and",
		"x-nil":       "returned no Result",
		"x-resulterr": "too many resources requested (simulated)",
	}
	entries := CPUEntries()
	for _, mode := range []string{"error", "panic", "nan", "short", "nil", "resulterr"} {
		entries = append(entries, Entry{&brokenImpl{"x-" + mode, mode}, report.KindCPU})
	}
	cfg := Config{Name: "failing", EdgeList: edges, GraphName: "g", Papers: papers, Entries: entries,
		Cases: []string{"tiny", "dangling", RealCase}, Iterations: 100, TimingIterations: 5, Warmups: 1, Runs: 2, MaxIterations: 500}
	run, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}

	// Correctness: 3 cases × 10 implementations, the broken ones failed with
	// their error, the others passed (the exercise variant fails tiny and
	// dangling by design but ran).
	if len(run.Correctness) != 30 {
		t.Fatalf("%d correctness rows, want 30", len(run.Correctness))
	}
	for _, c := range run.Correctness {
		if want, bad := broken[c.Implementation]; bad {
			if c.Status != report.StatusFailed || !strings.Contains(c.Reason, want) {
				t.Errorf("%s on %s: status %q reason %q, want failed with %q", c.Implementation, c.Case, c.Status, c.Reason, want)
			}
			continue
		}
		wantStatus := report.StatusPass
		if c.Implementation == "t0-nodangling" && c.Case != "g" {
			wantStatus = report.StatusFail // the course exercise: no dangling redistribution
		}
		if c.Implementation == "t0-nodangling" && c.Case == "g" {
			continue // one dangling node of five: fails or not by its size; not this test's subject
		}
		if c.Status != wantStatus || !c.SumMinus1.Valid() || !c.ErrOverTol.Valid() {
			t.Errorf("%s on %s: status %q (%s) sum-1 %v err/tol %v, want %s with numbers", c.Implementation, c.Case, c.Status, c.Reason, c.SumMinus1, c.ErrOverTol, wantStatus)
		}
		if wantStatus == report.StatusPass && (math.Abs(float64(c.SumMinus1)) > float64(c.SumAllowed) || float64(c.ErrOverTol) > 1) {
			t.Errorf("%s on %s: sum-1 %v (allowed %v) err/tol %v", c.Implementation, c.Case, c.SumMinus1, c.SumAllowed, c.ErrOverTol)
		}
	}

	// Convergence on the real graph: broken ones failed, the oracle and T1 converged.
	conv := map[string]report.Convergence{}
	for _, c := range run.Convergence {
		conv[c.Implementation] = c
	}
	for name, want := range broken {
		if c := conv[name]; c.Status != report.StatusFailed || !strings.Contains(c.Reason, want) {
			t.Errorf("convergence %s: %q %q, want failed with %q", name, c.Status, c.Reason, want)
		}
	}
	for _, name := range []string{"t0-oracle", "t1-multicore-f64", "t1-multicore-f32"} {
		if c := conv[name]; c.Status != report.StatusPass || !c.Converged || c.Iterations < 2 {
			t.Errorf("convergence %s: %+v", name, c)
		}
	}

	// Timing: broken ones failed, the CPU ones timed with 2 runs each.
	timed := map[string]report.TimingRow{}
	for _, r := range run.Timings {
		timed[r.Implementation] = r
	}
	for name, want := range broken {
		if name == "x-nan" || name == "x-short" {
			continue // they return a Result; timing does not validate ranks
		}
		if r := timed[name]; r.Status != report.StatusFailed || !strings.Contains(r.Reason, want) {
			t.Errorf("timing %s: %q %q, want failed with %q", name, r.Status, r.Reason, want)
		}
	}
	for _, name := range []string{"t0-oracle", "t1-multicore-f64", "t1-multicore-f32"} {
		if r := timed[name]; r.Status != report.StatusPass || len(r.Timing.RunsMs) != 2 || r.Timing.Iterations != 5 || !(r.Timing.MedianMs > 0) {
			t.Errorf("timing %s: %+v", name, r)
		}
	}

	// Results: every failed run is there with its error.
	failedResults := map[string]int{}
	for _, r := range run.Results {
		if _, bad := broken[r.Implementation]; bad && r.Err != "" {
			failedResults[r.Implementation]++
		}
	}
	for _, name := range []string{"x-error", "x-panic", "x-nil", "x-resulterr"} {
		if failedResults[name] < 4 { // 3 correctness cases + convergence
			t.Errorf("%s: %d failed Results, want >= 4", name, failedResults[name])
		}
	}

	// Metadata: 2 of 5 graph nodes have a row, 1 row is for an id outside the graph.
	if run.Graph.WithMetadata != 2 || run.Graph.MetadataNotInGraph != 1 {
		t.Errorf("metadata coverage %d / %d, want 2 / 1", run.Graph.WithMetadata, run.Graph.MetadataNotInGraph)
	}
	known := 0
	for _, row := range run.Top {
		if row.Known {
			known++
		} else if row.Year != 0 || row.Title != "" {
			t.Errorf("top row without metadata: %+v", row)
		}
	}
	if len(run.Top) != 5 || known != 2 {
		t.Errorf("%d top rows, %d with metadata; want 5, 2", len(run.Top), known)
	}

	// The written report carries the failures: JSON, CSV and HTML.
	dir := t.TempDir()
	if err := report.Write(dir, run); err != nil {
		t.Fatalf("Write: %v", err)
	}
	back, err := report.Read[report.Run](filepath.Join(dir, report.JSONFile))
	if err != nil {
		t.Fatalf("Read[Run]: %v", err)
	}
	n := 0
	for _, c := range back.Correctness {
		if c.Implementation == "x-panic" && c.Status == report.StatusFailed && strings.Contains(c.Reason, "index out of range") {
			n++
		}
	}
	if n != 3 {
		t.Errorf("results.json: %d failed x-panic correctness rows with the panic, want 3", n)
	}
	rows, err := report.ReadTable[report.Check](filepath.Join(dir, report.CorrectnessCSVFile))
	if err != nil {
		t.Fatalf("ReadTable: %v", err)
	}
	n = 0
	for _, r := range rows {
		if r.Implementation == "x-error" && r.Status == report.StatusFailed && strings.Contains(r.Reason, "out of memory (simulated)") {
			n++
		}
	}
	if n != 3 {
		t.Errorf("correctness.csv: %d failed x-error rows, want 3", n)
	}
	page, err := os.ReadFile(filepath.Join(dir, report.HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"out of memory (simulated)", "index out of range", "too many resources requested (simulated)", "(no metadata for this id)"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("index.html lacks %q", want)
		}
	}
}

// TestOracleFailingKeepsTheOthers: with the oracle itself broken, every
// other implementation still runs; its rows say there was nothing to
// validate against, and the run notes the oracle's failure.
func TestOracleFailingKeepsTheOthers(t *testing.T) {
	edges, _ := writeGraph(t)
	cpu := CPUEntries()
	entries := []Entry{{&brokenImpl{OracleName, "panic"}, report.KindCPU}}
	for _, e := range cpu[1:] {
		entries = append(entries, e)
	}
	run, err := Run(context.Background(), Config{EdgeList: edges, GraphName: "g", Entries: entries,
		Cases: []string{"tiny"}, Iterations: 10, Runs: 1, Warmups: 0})
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Correctness) != len(entries) {
		t.Fatalf("%d rows for %d implementations", len(run.Correctness), len(entries))
	}
	for _, c := range run.Correctness {
		want := "no oracle result to validate against: panic"
		if c.Implementation == OracleName {
			want = "panic: runtime error: index out of range"
		}
		if c.Status != report.StatusFailed || !strings.Contains(c.Reason, want) {
			t.Errorf("%s: %q %q, want failed with %q", c.Implementation, c.Status, c.Reason, want)
		}
	}
	ran := 0
	for _, r := range run.Results {
		if r.Implementation == "t1-multicore-f64" && r.Iterations == 10 && len(r.Sums) == 10 && math.Abs(r.FinalSum()-1) < 1e-12 {
			ran++
		}
	}
	if ran != 1 {
		t.Errorf("t1-multicore-f64 did not run to 10 iterations with sum 1")
	}
	if len(run.Notes) == 0 || !strings.Contains(strings.Join(run.Notes, "\n"), "oracle failed on tiny") {
		t.Errorf("notes %q", run.Notes)
	}
}

// TestRunCancelled: a cancelled context stops the run with an error and no
// report (the CLI then writes nothing).
func TestRunCancelled(t *testing.T) {
	edges, _ := writeGraph(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	run, err := Run(ctx, Config{EdgeList: edges, GraphName: "g", Cases: []string{"tiny"}, Iterations: 10, Runs: 1})
	if run != nil || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("got %v, %v; want nil and an interrupted error wrapping context.Canceled", run, err)
	}
}

// TestConfigRejectsOutOfRange: every numeric setting out of range and an
// unknown implementation or case name is an error naming the setting and the
// valid range or names.
func TestConfigRejectsOutOfRange(t *testing.T) {
	edges, _ := writeGraph(t)
	base := func() Config { return Config{EdgeList: edges, GraphName: "g"} }
	cases := []struct {
		set  func(*Config)
		want string
	}{
		{func(c *Config) { c.Iterations = -1 }, "iterations -1 out of range: must be in [1, 10000]"},
		{func(c *Config) { c.Iterations = 10001 }, "iterations 10001 out of range: must be in [1, 10000]"},
		{func(c *Config) { c.TimingIterations = -5 }, "timing iterations -5 out of range: must be in [1, 10000]"},
		{func(c *Config) { c.Warmups = -1 }, "warm-ups -1 out of range: must be in [0, 1000]"},
		{func(c *Config) { c.Runs = -2 }, "runs -2 out of range: must be in [1, 1000]"},
		{func(c *Config) { c.MaxIterations = -1 }, "max iterations -1 out of range: must be in [1, 10000]"},
		{func(c *Config) { c.FloatTolerance = -1e-6 }, "float tolerance -1e-06 out of range: must be in (0, 1)"},
		{func(c *Config) { c.FloatTolerance = math.NaN() }, "float tolerance NaN out of range: must be in (0, 1)"},
		{func(c *Config) { c.OracleTolerance = 2 }, "oracle tolerance 2 out of range: must be in (0, 1)"},
		{func(c *Config) { c.Impls = []string{"t9-warp"} }, `unknown implementation "t9-warp": valid names are t0-oracle, t1-multicore-f64, t1-multicore-f32, t0-nodangling`},
		{func(c *Config) { c.Cases = []string{"tiny", "huge"} }, `unknown case "huge": valid cases are tiny, single, nodangling, dangling, star, chain, g (or "real" for the graph g)`},
		{func(c *Config) { c.EdgeList = "" }, "no edge list given"},
	}
	for _, c := range cases {
		cfg := base()
		c.set(&cfg)
		run, err := Run(context.Background(), cfg)
		if run != nil || err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want an error containing %q", err, c.want)
		}
	}
	// Bad inputs are errors naming the file and line.
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("A , B\nA B C\n"), 0o644)
	cfg := base()
	cfg.EdgeList = bad
	if _, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), bad+":2: want 2 fields") {
		t.Errorf("bad edge list: %v", err)
	}
	cfg = base()
	cfg.Papers = filepath.Join(dir, "missing.tsv")
	if _, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "missing.tsv") {
		t.Errorf("missing metadata: %v", err)
	}
	cfg = base()
	cfg.EdgeList = dir
	if _, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: %v", err)
	}
}

// cancellingImpl cancels the run's context on its first timed run (fixed
// mode with the timing iteration count) and counts the calls after that.
type cancellingImpl struct {
	cancel     context.CancelFunc
	timingIter int
	cancelled  bool
	after      int
}

func (c *cancellingImpl) Name() string                  { return "x-cancel" }
func (c *cancellingImpl) Label() string                 { return "cancels the context" }
func (c *cancellingImpl) Precision() pagerank.Precision { return pagerank.Float64 }
func (c *cancellingImpl) Run(g *pagerank.Graph, p pagerank.Params) (*pagerank.Result, error) {
	if c.cancelled {
		c.after++
	}
	if p.Mode == pagerank.FixedIterations && p.Iterations == c.timingIter && !c.cancelled {
		c.cancel()
		c.cancelled = true
	}
	return uniformResult(g, p), nil
}

// TestRunCancelledDuringTiming: a cancel (SIGINT in the CLI) in the middle of
// the timed runs of the last implementation stops its timing loop at once
// and Run returns the interruption, not a partial report.
func TestRunCancelledDuringTiming(t *testing.T) {
	edges, _ := writeGraph(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ci := &cancellingImpl{cancel: cancel, timingIter: 7}
	entries := append(CPUEntries()[:1], Entry{ci, report.KindCPU})
	run, err := Run(ctx, Config{EdgeList: edges, GraphName: "g", Entries: entries, Cases: []string{RealCase},
		Iterations: 10, TimingIterations: 7, Warmups: 2, Runs: 1000})
	if run != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, %v; want no run and context.Canceled", run, err)
	}
	if !ci.cancelled || ci.after != 0 {
		t.Fatalf("cancelled %v, %d runs after the cancel; want 0 (of 1001 left)", ci.cancelled, ci.after)
	}
}

// TestUnavailableIsSkippedNotFailed: an error wrapping pagerank.ErrUnavailable
// (a GPU design that cannot hold this graph) marks the row skipped with the
// reason, while the others pass.
func TestUnavailableIsSkippedNotFailed(t *testing.T) {
	edges, _ := writeGraph(t)
	entries := append(CPUEntries(), Entry{&brokenImpl{"x-unavailable", "unavailable"}, report.KindGPU})
	run, err := Run(context.Background(), Config{EdgeList: edges, GraphName: "g", Entries: entries,
		Cases: []string{"tiny"}, Iterations: 10, Runs: 1, Warmups: 0})
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, c := range run.Correctness {
		if c.Implementation != "x-unavailable" {
			continue
		}
		seen++
		if c.Status != report.StatusSkipped || !strings.Contains(c.Reason, "does not fit in shared memory") {
			t.Errorf("%s on %s: %q %q, want skipped with the reason", c.Implementation, c.Case, c.Status, c.Reason)
		}
	}
	if seen == 0 {
		t.Fatal("no row for the unavailable implementation")
	}
	for _, r := range run.Results {
		if r.Implementation == "x-unavailable" && (r.Skipped == "" || r.Err != "") {
			t.Errorf("result %+v: want Skipped set, Err empty", r)
		}
	}
}

// convergeCancellingOracle is an oracle that, like a Ctrl-C during its
// converged run, cancels the context there and returns the interruption.
type convergeCancellingOracle struct{ cancel context.CancelFunc }

func (convergeCancellingOracle) Name() string                  { return OracleName }
func (convergeCancellingOracle) Label() string                 { return "oracle interrupted while converging" }
func (convergeCancellingOracle) Precision() pagerank.Precision { return pagerank.Float64 }
func (c convergeCancellingOracle) Run(g *pagerank.Graph, p pagerank.Params) (*pagerank.Result, error) {
	if p.Mode != pagerank.FixedIterations {
		c.cancel()
		return nil, fmt.Errorf("%s: interrupted after 84 iterations: %w", OracleName, context.Canceled)
	}
	return uniformResult(g, p), nil
}

// TestRunCancelledDuringOracleConvergence: Ctrl-C while the oracle converges
// on the real graph is the interruption, not a note that the oracle "failed
// to converge" (make report printed one before "interrupted").
func TestRunCancelledDuringOracleConvergence(t *testing.T) {
	edges, _ := writeGraph(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var progress strings.Builder
	run, err := Run(ctx, Config{EdgeList: edges, GraphName: "g", Entries: []Entry{{convergeCancellingOracle{cancel}, report.KindCPU}},
		Cases: []string{RealCase}, Iterations: 10, Runs: 1, Progress: &progress})
	if run != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, %v; want no run and context.Canceled", run, err)
	}
	if strings.Contains(progress.String(), "failed to converge") {
		t.Errorf("an interrupted oracle is reported as not converging:\n%s", progress.String())
	}
}

// uniformResult is a float64 result of 1/n on every node after p's
// iterations (the test implementations' stand-in answer).
func uniformResult(g *pagerank.Graph, p pagerank.Params) *pagerank.Result {
	ranks := make([]float64, g.N)
	for i := range ranks {
		ranks[i] = 1 / float64(g.N)
	}
	return &pagerank.Result{Precision: pagerank.Float64, Mode: p.Mode, Ranks: ranks, Iterations: p.Iterations}
}
