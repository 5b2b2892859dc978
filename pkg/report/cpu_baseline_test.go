package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// committedBaseline is the 2-core sample run committed with the script.
const committedBaseline = "../../reports/gap-cpu-2core"

func TestReadCPUBaselineCommitted(t *testing.T) {
	b, err := ReadCPUBaseline(committedBaseline)
	if err != nil || b == nil {
		t.Fatalf("ReadCPUBaseline: %v, %v", b, err)
	}
	if len(b.GapVsT1) != 12 || len(b.Scaling) != 12 {
		t.Fatalf("%d comparison and %d scaling rows, want 12 and 12", len(b.GapVsT1), len(b.Scaling))
	}
	r := b.GapVsT1[0]
	if r.Graph != "aan" || r.N != 16589 || r.NNZ != 94931 || r.Threads != 1 || r.T1Impl != "t1-multicore-f64" ||
		r.GapMsPerIter != 0.794 || r.T1MsPerIter != 0.08465 || r.EdgesMatch != "yes" || r.GapNNZ != 94931 {
		t.Errorf("first row %+v", r)
	}
	if b.MaxThreads() != 2 || b.Host() != "AMD EPYC (2 cores)" || len(b.AtMaxThreads()) != 6 {
		t.Errorf("max threads %d, host %q, %d rows at it", b.MaxThreads(), b.Host(), len(b.AtMaxThreads()))
	}
	s := b.Scaling[4] // rmat16, f64, 2 workers
	if s.Graph != "rmat16" || s.Workers != 1 || s.SpeedupVs1Worker != 1 || s.T0MsPerIter != 9.4639 {
		t.Errorf("scaling row 5 %+v", s)
	}
}

func TestReadCPUBaselineErrors(t *testing.T) {
	dir := t.TempDir()
	if b, err := ReadCPUBaseline(dir); b != nil || err != nil {
		t.Fatalf("empty directory: %v, %v; want nil, nil", b, err)
	}
	data, err := os.ReadFile(filepath.Join(committedBaseline, GapVsT1File))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") // Python's csv module ends lines with CRLF
	for _, c := range []struct {
		name, content, want string
	}{
		{"bad number", lines[0] + "\n" + strings.Replace(lines[1], ",0.794,", ",fast,", 1) + "\n", GapVsT1File + ":2"},
		{"renamed column", strings.Replace(lines[0], "gap_rev", "gap_revision", 1) + "\n", `missing column "gap_rev"`},
		{"unknown column", lines[0] + ",extra\n", `unknown column 25 "extra"`},
		{"missing column", strings.Replace(lines[0], ",gap_rev", "", 1) + "\n", `missing column "gap_rev"`},
	} {
		if err := os.WriteFile(filepath.Join(dir, GapVsT1File), []byte(c.content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadCPUBaseline(dir)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	// A t1-scaling.csv alone is an error naming the missing comparison.
	os.Remove(filepath.Join(dir, GapVsT1File))
	scaling, _ := os.ReadFile(filepath.Join(committedBaseline, T1ScalingFile))
	os.WriteFile(filepath.Join(dir, T1ScalingFile), scaling, 0o644)
	if _, err := ReadCPUBaseline(dir); err == nil || !strings.Contains(err.Error(), GapVsT1File) {
		t.Errorf("scaling without comparison: %v", err)
	}
}

func TestCPUBaselineCharts(t *testing.T) {
	b, err := ReadCPUBaseline(committedBaseline)
	if err != nil {
		t.Fatal(err)
	}
	gap := GapVsT1Chart(b)
	if gap == nil {
		t.Fatal("no comparison chart")
	}
	h, err := gap.HTML()
	if err != nil {
		t.Fatal(err)
	}
	// At 2 threads: GAP 279.8 ns per edge on aan (sig3: 280), T1 f32 on rmat18 10.83 (10.8).
	for _, want := range []string{gapName, "aan (94.9k edges)", "rmat18 (3.94M edges)", `"value":280`, `"value":10.8`, "0.441× GAP"} {
		if !strings.Contains(string(h), want) {
			t.Errorf("comparison chart lacks %q", want)
		}
	}
	sc := T1ScalingChart(b)
	if sc == nil {
		t.Fatal("no scaling chart")
	}
	h, err = sc.HTML()
	if err != nil {
		t.Fatal(err)
	}
	// rmat16 f64: 7.48x at 2 workers; GAP on rmat16 0.102x.
	for _, want := range []string{`"1","2"`, "t1-multicore-f64 · rmat16", "GAP · rmat16", `"value":7.48`, `"value":0.102`, "linear"} {
		if !strings.Contains(string(h), want) {
			t.Errorf("scaling chart lacks %q", want)
		}
	}
	tab := string(CPUBaselineTable(b))
	if strings.Count(tab, "<tr>") != 4 || !strings.Contains(tab, "0.441×") {
		t.Errorf("table: %d rows (want a header and 3 graphs) or no 0.441×:\n%s", strings.Count(tab, "<tr>"), tab)
	}
	if GapVsT1Chart(nil) != nil || T1ScalingChart(&CPUBaseline{}) != nil {
		t.Error("charts of nothing")
	}
}

// TestAttachCPUBaseline: a scale page given --gap-csv records the
// directory relative to the report, and a later render without it finds
// the CSVs there; a recorded directory that lost them is an error.
func TestAttachCPUBaseline(t *testing.T) {
	root := t.TempDir()
	rep, gap := filepath.Join(root, "scale"), filepath.Join(root, "gap")
	for _, d := range []string{rep, gap} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{GapVsT1File, T1ScalingFile} {
		data, _ := os.ReadFile(filepath.Join(committedBaseline, f))
		os.WriteFile(filepath.Join(gap, f), data, 0o644)
	}
	s := &ScaleStudy{}
	if err := AttachCPUBaseline(s, rep, ""); err != nil || s.CPUBaseline != nil {
		t.Fatalf("nothing to attach: %v, %v", s.CPUBaseline, err)
	}
	if err := AttachCPUBaseline(s, rep, gap); err != nil || s.CPUBaseline == nil || s.CPUBaselineDir != "../gap" {
		t.Fatalf("attach: dir %q, %v", s.CPUBaselineDir, err)
	}
	again := &ScaleStudy{CPUBaselineDir: s.CPUBaselineDir}
	if err := AttachCPUBaseline(again, rep, ""); err != nil || again.CPUBaseline == nil || len(again.CPUBaseline.GapVsT1) != 12 {
		t.Fatalf("re-render: %v", err)
	}
	page, err := RenderScaleHTML(again)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), `id="cpu-baseline"`) || !strings.Contains(string(page), ChartGapVsT1) {
		t.Error("the page has no CPU-baseline section")
	}
	os.Remove(filepath.Join(gap, GapVsT1File))
	if err := AttachCPUBaseline(&ScaleStudy{CPUBaselineDir: "../gap"}, rep, ""); err == nil || !strings.Contains(err.Error(), "--gap-csv") {
		t.Errorf("lost CSVs: %v", err)
	}
	if err := AttachCPUBaseline(&ScaleStudy{}, rep, gap); err == nil {
		t.Error("--gap-csv of a directory without the CSV: no error")
	}
}
