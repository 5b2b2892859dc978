package study

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prlab/prlab/pkg/pagerank"
	"github.com/prlab/prlab/pkg/reference"
	"github.com/prlab/prlab/pkg/report"
)

// TestIncrementalByYear is the CI-sized by-year run on the CPU tier: the
// whole AAN sequence 1986 -> 2012, one timed run per step.
func TestIncrementalByYear(t *testing.T) {
	edges, papers := realData(t)
	s, err := RunIncremental(context.Background(), IncrementalConfig{Name: "t", EdgeList: edges, Papers: papers, Runs: 1, Warmups: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Batches) != 26 || len(s.Rows) != 52 || len(s.Years) != 27 {
		t.Fatalf("%d batches, %d rows, %d years; want 26 (1987..2012), 52 (two T1 precisions), 27 (1986..2012)", len(s.Batches), len(s.Rows), len(s.Years))
	}
	newNodes, inserted := 0, 0
	for _, b := range s.Batches {
		if !b.MatchesRebuild {
			t.Errorf("batch %s differs from the rebuild: %s", b.Batch, b.Mismatch)
		}
		if b.Deleted != 0 || b.AbsentDeletes != 0 || b.Inserted+b.DuplicateInserts+b.SelfLoops != b.Requested {
			t.Errorf("batch %s counts %+v for %d requested insertions", b.Batch, b.BatchStats, b.Requested)
		}
		newNodes += b.NewNodes
		inserted += b.Inserted
	}
	first := s.Workloads[0]
	if first.N+newNodes != 16589 || first.NNZ+inserted != 94931 || first.N != 800 {
		t.Errorf("1986 snapshot %d nodes %d edges + batches %d nodes %d edges; want 800 nodes and the whole graph 16589 / 94931", first.N, first.NNZ, newNodes, inserted)
	}
	for _, r := range s.Rows {
		if r.Status != report.StatusPass {
			t.Errorf("%s %s: %s (%s)", r.Batch, r.Implementation, r.Status, r.Reason)
		}
		if r.WarmIterations >= r.ColdIterations {
			t.Errorf("%s %s: warm start took %d iterations, cold %d", r.Batch, r.Implementation, r.WarmIterations, r.ColdIterations)
		}
		if !(r.Speedup > 0) || len(r.Warm.RunsMs) != 1 {
			t.Errorf("%s %s: speed-up %v, %d warm runs", r.Batch, r.Implementation, r.Speedup, len(r.Warm.RunsMs))
		}
	}
	last := s.Years[len(s.Years)-1]
	if last.Year != 2012 || len(last.Top) != 20 || last.Top[0].ID != "A88-1019" || last.N != 16589 {
		t.Errorf("2012 top: year %d, %d rows, first %q, n %d; want the main report's top (A88-1019 first) on 16589 nodes", last.Year, len(last.Top), last.Top[0].ID, last.N)
	}
	for _, y := range s.Years[1:] {
		if len(y.Entered) != len(y.Left) {
			t.Errorf("%d: %d entered but %d left a top 20", y.Year, len(y.Entered), len(y.Left))
		}
	}
	// Written and read back through the report's decoders.
	js, err := report.Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	back, err := report.Decode[report.IncrementalStudy](js, "incremental.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Rows) != len(s.Rows) || back.Rows[3].Warm.MedianMs != s.Rows[3].Warm.MedianMs {
		t.Fatal("incremental.json does not read back")
	}
	tables, err := report.IncrementalCSV(s)
	if err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]int{report.IncrementalBatchesCSVFile: 26, report.IncrementalRowsCSVFile: 52, report.IncrementalTopCSVFile: 27 * 20} {
		if got := bytes.Count(tables[file], []byte("\n")) - 1; got != want {
			t.Errorf("%s: %d rows, want %d", file, got, want)
		}
	}
	rows, err := report.DecodeTable[report.IncrementalRow](tables[report.IncrementalRowsCSVFile], report.IncrementalRowsCSVFile)
	if err != nil || rows[3].Warm.MedianMs != s.Rows[3].Warm.MedianMs || rows[3].Identity != s.Rows[3].Identity {
		t.Fatalf("%s does not read back: %v", report.IncrementalRowsCSVFile, err)
	}
	if _, err := report.RenderIncrementalHTML(s); err != nil {
		t.Fatal(err)
	}
}

// TestIncrementalRandom runs every random batch kind at two sizes on a
// small R-MAT graph and checks the counts, the validation and the crossovers.
func TestIncrementalRandom(t *testing.T) {
	s, err := RunIncremental(context.Background(), IncrementalConfig{Name: "t", RMAT: []int{11}, Fractions: []float64{0.001, 0.1},
		Impls: []string{"t1-multicore-f32"}, Runs: 1, Warmups: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Batches) != 6 || len(s.Rows) != 6 {
		t.Fatalf("%d batches and %d rows, want 6 and 6", len(s.Batches), len(s.Rows))
	}
	for _, b := range s.Batches {
		if !b.MatchesRebuild {
			t.Errorf("%s: %s", b.Batch, b.Mismatch)
		}
		got := b.Inserted + b.DuplicateInserts + b.SelfLoops + b.Deleted + b.AbsentDeletes
		if got != b.Requested || b.N != 1<<11 {
			t.Errorf("%s: counts %+v add up to %d, want %d", b.Batch, b.BatchStats, got, b.Requested)
		}
		if b.Kind == pagerank.BatchInsert && b.Fraction == 0.1 && b.DuplicateInserts == 0 {
			t.Errorf("%s: degree-proportional insertions into R-MAT should hit some present edges", b.Batch)
		}
		if b.Kind == pagerank.BatchDelete && b.Fraction == 0.1 && b.AbsentDeletes == 0 {
			t.Errorf("%s: deletions drawn with replacement should repeat some edge", b.Batch)
		}
	}
	for _, r := range s.Rows {
		if r.Status != report.StatusPass {
			t.Errorf("%s: %s (%s)", r.Batch, r.Status, r.Reason)
		}
	}
	if len(s.Crossovers) != 3 {
		t.Fatalf("%d crossovers, want one per kind", len(s.Crossovers))
	}
	for _, c := range s.Crossovers {
		if c.Text == "" || (c.Below.Valid() && c.Above.Valid() && c.Below >= c.Above) {
			t.Errorf("crossover %+v", c)
		}
	}
}

// TestCrossovers checks the crossover rule on made-up speed-ups.
func TestCrossovers(t *testing.T) {
	row := func(kind string, f, sp float64) report.IncrementalRow {
		return report.IncrementalRow{BatchID: report.BatchID{Workload: "w"}, Identity: report.Identity{Implementation: "i"}, BatchKind: kind, Fraction: report.F(f), Speedup: report.F(sp), Outcome: report.Outcome{Status: report.StatusPass}}
	}
	s := &report.IncrementalStudy{Rows: []report.IncrementalRow{
		row("insert", 0.01, 1.5), row("insert", 0.0001, 9), row("insert", 0.1, 0.4), row("insert", 0.001, 3),
		row("delete", 0.001, 2), row("delete", 0.1, 1.2),
		row("mixed", 0.001, 0.9),
	}}
	c := Crossovers(s)
	if len(c) != 3 {
		t.Fatalf("%d crossovers", len(c))
	}
	if c[0].Below != 0.01 || c[0].Above != 0.1 || !strings.Contains(c[0].Text, "between 1% (1.50x) and 10% (0.40x)") {
		t.Errorf("insert: %+v", c[0])
	}
	if c[1].Above.Valid() || c[1].Below != 0.1 || !strings.Contains(c[1].Text, "no crossover") {
		t.Errorf("delete: %+v", c[1])
	}
	if c[2].Below.Valid() || c[2].Above != 0.001 || !strings.Contains(c[2].Text, "already") {
		t.Errorf("mixed: %+v", c[2])
	}
}

func TestIncrementalCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := RunIncremental(ctx, IncrementalConfig{RMAT: []int{8}, Runs: 1})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: err %v, want context.Canceled", err)
	}
}

func TestIncrementalConfigErrors(t *testing.T) {
	for _, c := range []struct {
		cfg  IncrementalConfig
		want string
	}{
		{IncrementalConfig{}, "nothing to run"},
		{IncrementalConfig{RMAT: []int{40}}, "R-MAT scale 40 out of range"},
		{IncrementalConfig{RMAT: []int{8}, Fractions: []float64{2}}, "batch fraction 2 out of range"},
		{IncrementalConfig{RMAT: []int{8}, Kinds: []string{"swap"}}, `unknown batch kind "swap"`},
		{IncrementalConfig{RMAT: []int{8}, Impls: []string{"nope"}}, `unknown implementation "nope"`},
		{IncrementalConfig{RMAT: []int{8}, Impls: []string{"t1-multicore-f64"},
			Entries: []Entry{{reference.Oracle(), report.KindCPU}, {coldOnly{reference.Multicore(pagerank.Float64, 1)}, report.KindCPU}}}, "no warm start"},
	} {
		_, err := RunIncremental(context.Background(), c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err %v, want %q", c.cfg, err, c.want)
		}
	}
}

// coldOnly hides an implementation's warm start.
type coldOnly struct{ pagerank.Implementation }

func TestWarmStart(t *testing.T) {
	x := WarmStart([]float64{0.5, 0.5}, 4)
	// 0.5, 0.5, 0.25, 0.25 rescaled by 1.5.
	want := []float64{1.0 / 3, 1.0 / 3, 1.0 / 6, 1.0 / 6}
	for i := range want {
		if d := x[i] - want[i]; d > 1e-15 || d < -1e-15 {
			t.Fatalf("WarmStart = %v, want %v", x, want)
		}
	}
}

// residentFake is a pagerank.Resident tier made of the host session: the
// path a GPU tier with a device-resident graph takes through the study.
type residentFake struct {
	pagerank.Implementation
	opens    *int
	miscount bool
}

func (f residentFake) Open(g *pagerank.Graph) (pagerank.Session, error) {
	*f.opens++
	return &miscounting{HostSession: HostSession{Impl: f.Implementation.(pagerank.WarmStarter), Graph: g, Workers: 1}, wrong: f.miscount}, nil
}

type miscounting struct {
	HostSession
	wrong bool
	runs  int // RunFrom calls so far: LastMs reports the k-th run as k ms
}

func (m *miscounting) RunFrom(p pagerank.Params, start []float64) (*pagerank.Result, error) {
	m.runs++
	return m.HostSession.RunFrom(p, start)
}

// LastMs makes the fake a timed session, as cudabind.DeviceSession: every
// update 7 ms, the k-th run k ms.
func (m *miscounting) LastMs() (update, run float64) { return 7, float64(m.runs) }

func (m *miscounting) Apply(b *pagerank.Batch) (pagerank.BatchStats, error) {
	st, err := m.HostSession.Apply(b)
	if m.wrong {
		st.Inserted++
	}
	return st, err
}

func TestIncrementalResidentTier(t *testing.T) {
	for _, wrong := range []bool{false, true} {
		opens := 0
		fake := residentFake{reference.Multicore(pagerank.Float64, 1), &opens, wrong}
		s, err := RunIncremental(context.Background(), IncrementalConfig{RMAT: []int{10}, Fractions: []float64{0.01},
			Kinds: []string{pagerank.BatchInsert, pagerank.BatchDelete}, Runs: 2, Warmups: -1,
			Entries: []Entry{{reference.Oracle(), report.KindCPU}, {fake, report.KindCPU}}})
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Rows) != 2 || (!wrong && opens != 1+2*(2+2)) {
			t.Fatalf("%d rows, %d sessions opened; want 2 rows and 9 (base graph, then per batch 2 updates and 2 uploads)", len(s.Rows), opens)
		}
		for _, r := range s.Rows {
			switch {
			case wrong && (r.Status != report.StatusFailed || !strings.Contains(r.Reason, "the session counted")):
				t.Errorf("miscounting session: %s (%s)", r.Status, r.Reason)
			case !wrong && (r.Status != report.StatusPass || !r.LoadMs.Valid() || !r.UpdateMs.Valid() || !r.Speedup.Valid()):
				t.Errorf("resident row %s: %s (%s), load %v ms, update %v ms", r.Batch, r.Status, r.Reason, r.LoadMs, r.UpdateMs)
			case !wrong && (r.DeviceMs == nil || r.DeviceMs.UpdateMs != 7 || r.DeviceMs.WarmMs != 1.5 || r.DeviceMs.ColdMs != 1.5):
				// Two timed runs each of warm and cold, on their own sessions: 1 and 2 ms.
				t.Errorf("resident row %s: device times %+v, want update 7, warm 1.5, cold 1.5 ms", r.Batch, r.DeviceMs)
			}
		}
	}
}

// TestIncrementalCancelledMidway cancels the study while it iterates: it
// returns soon with an error wrapping context.Canceled.
func TestIncrementalCancelledMidway(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	cfg := IncrementalConfig{RMAT: []int{12}, Runs: 50, Warmups: -1, Progress: progressFunc(func(string) { once.Do(cancel) })}
	start := time.Now()
	_, err := RunIncremental(ctx, cfg)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("took %v after the cancel", d)
	}
}

// progressFunc is an io.Writer calling f with each write.
type progressFunc func(string)

func (f progressFunc) Write(b []byte) (int, error) { f(string(b)); return len(b), nil }

// A last year at or before the first snapshot leaves no batch: an error naming
// both years, not an empty report.
func TestIncrementalByYearNoBatch(t *testing.T) {
	edges, papers := realData(t)
	_, err := RunIncremental(context.Background(), IncrementalConfig{Name: "t", EdgeList: edges, Papers: papers, Runs: 1, Warmups: -1, LastYear: 1986})
	if err == nil || !strings.Contains(err.Error(), "last year 1986 leaves no batch: the first snapshot is 1986") {
		t.Fatalf("last year 1986: %v, want the no-batch error", err)
	}
}

// Skipped rows (a GPU tier without the library) are counted apart from rows
// that failed a gate.
func TestIncrementalFindingsCountSkippedApart(t *testing.T) {
	s := &report.IncrementalStudy{}
	for _, st := range []string{report.StatusPass, report.StatusSkipped, report.StatusSkipped, report.StatusFail} {
		var r report.IncrementalRow
		r.Status = st
		s.Rows = append(s.Rows, r)
	}
	got := strings.Join(IncrementalFindings(s), "\n")
	for _, want := range []string{"1 of 4 rows did not pass", "2 of 4 rows were skipped"} {
		if !strings.Contains(got, want) {
			t.Errorf("findings %q lack %q", got, want)
		}
	}
}

// renamedResident is residentFake under another name (a second tier).
type renamedResident struct {
	residentFake
	name string
}

func (r renamedResident) Name() string { return r.name }

// Without a GPU, the GPU tiers' skip is one progress line naming them and
// the reason; their rows are kept in the study but not printed per batch.
func TestIncrementalGPUSkipIsOneLine(t *testing.T) {
	opens := 0
	gpuTier := renamedResident{residentFake{reference.Multicore(pagerank.Float64, 1), &opens, false}, "gpu-fake-resident"}
	var progress bytes.Buffer
	s, err := RunIncremental(context.Background(), IncrementalConfig{RMAT: []int{8}, Fractions: []float64{0.01, 0.1},
		Kinds: []string{pagerank.BatchInsert}, Runs: 1, Warmups: -1, GPU: fakeGPU{why: "no CUDA on this machine"}, Progress: &progress,
		Entries: []Entry{{reference.Oracle(), report.KindCPU}, {reference.Multicore(pagerank.Float32, 1), report.KindCPU}, {gpuTier, report.KindGPU}}})
	if err != nil {
		t.Fatal(err)
	}
	out := progress.String()
	if want := "GPU tiers skipped on every batch (gpu-fake-resident): no CUDA on this machine\n"; strings.Count(out, want) != 1 || strings.Count(out, "no CUDA on this machine") != 1 {
		t.Errorf("want the skip said once, as %q; progress:\n%s", want, out)
	}
	if strings.Count(out, "gpu-fake-resident") != 1 || strings.Count(out, "  t1-multicore-f32 ") != 2 {
		t.Errorf("want no per-batch line for the GPU tier and one per batch for the CPU tier; progress:\n%s", out)
	}
	skipped := 0
	for _, r := range s.Rows {
		if r.Implementation == "gpu-fake-resident" && r.Status == report.StatusSkipped && r.Reason == "no CUDA on this machine" {
			skipped++
		}
	}
	if skipped != 2 || opens != 0 {
		t.Errorf("%d skipped GPU rows in the study (want 2, one per batch), %d sessions opened (want 0)", skipped, opens)
	}
}

// The progress lines of a graph of a few nodes (R-MAT 2^4: microseconds
// per step) print every time with its digits, never "0.00 ms".
func TestIncrementalProgressKeepsSmallTimes(t *testing.T) {
	var progress bytes.Buffer
	_, err := RunIncremental(context.Background(), IncrementalConfig{RMAT: []int{4}, Fractions: []float64{0.1},
		Kinds: []string{pagerank.BatchInsert}, Runs: 1, Warmups: -1, Progress: &progress,
		Entries: []Entry{{reference.Oracle(), report.KindCPU}, {reference.Multicore(pagerank.Float32, 1), report.KindCPU}}})
	if err != nil {
		t.Fatal(err)
	}
	out := progress.String()
	times := regexp.MustCompile(`(?:update|rebuild|it|incremental|recompute) +([0-9.]+) ms`).FindAllStringSubmatch(out, -1)
	for _, m := range times {
		if v, err := strconv.ParseFloat(m[1], 64); err != nil || v == 0 {
			t.Errorf("a time of a small graph printed as %q; progress:\n%s", m[0], out)
		}
	}
	if len(times) < 6 {
		t.Errorf("found %d times in the progress, want at least 6:\n%s", len(times), out)
	}
}
