package nb

import (
	"strings"
	"testing"

	"github.com/prlab/prlab/pkg/report"
)

// TestIncrementalFragments renders the notebook's incremental fragments from
// a made-up study and checks what each must say.
func TestIncrementalFragments(t *testing.T) {
	s := &report.IncrementalStudy{
		Findings: []string{"Every one of the 2 batches merged ..."},
		Years: []report.YearTop{
			{Year: 1986, N: 800, NNZ: 1147, Top: []report.TopRow{{Rank: 1, ID: "A", Title: "Paper A"}, {Rank: 2, ID: "B", Title: "Paper B"}}},
			{Year: 1987, N: 916, NNZ: 1450, Top: []report.TopRow{{Rank: 1, ID: "A", Title: "Paper A"}, {Rank: 2, ID: "C", Title: "Paper <C>"}}, Entered: []string{"C"}, Left: []string{"B"}},
		},
		Rows: []report.IncrementalRow{
			{BatchID: report.BatchID{Workload: "aan-by-year", Batch: "1987"}, BatchKind: report.BatchYear, Year: 1987, Identity: report.Identity{Implementation: "t1-multicore-f32"}, Outcome: report.Outcome{Status: report.StatusPass},
				Fraction: 0.26, Speedup: 1.5, WarmIterations: 40, ColdIterations: 60, UpdateMs: 1, BuildMs: 1},
			{BatchID: report.BatchID{Workload: "rmat20", Batch: "insert 0.1%"}, BatchKind: "insert", Identity: report.Identity{Implementation: "t1-multicore-f32"}, Outcome: report.Outcome{Status: report.StatusFail, Reason: "warm vs oracle: err/tol 2 > 1"},
				Fraction: 0.001, Speedup: 3, UpdateMs: 1, BuildMs: 1},
		},
	}
	movers := IncrementalMoversTable(s)
	for _, want := range []string{"#2 C Paper &lt;C&gt;", "B Paper B", ">1987<"} {
		if !strings.Contains(movers, want) {
			t.Errorf("movers table lacks %q:\n%s", want, movers)
		}
	}
	if f := IncrementalFindings(s); !strings.Contains(f, "**1 of 2 rows pass**") || !strings.Contains(f, "Every one of the 2 batches") {
		t.Errorf("findings:\n%s", f)
	}
	year, random := IncrementalRowsTable(s, true), IncrementalRowsTable(s, false)
	if !strings.Contains(year, "1.50x") || strings.Contains(year, "rmat20") || !strings.Contains(random, "err/tol 2 &gt; 1") {
		t.Errorf("rows tables:\n%s\n%s", year, random)
	}
	for _, f := range []func(*report.IncrementalStudy) (string, error){IncrementalSpeedupChart, IncrementalIterationsChart} {
		h, err := f(s)
		if err != nil || !strings.Contains(h, ChartClass) {
			t.Errorf("chart: %v\n%.200s", err, h)
		}
	}
	if md := IncrementalSourceMarkdown([]CommittedIncremental{{s, "reports/x/incremental.json"}}); !strings.Contains(md, "CPU tier only") {
		t.Errorf("source of a CPU-only study: %s", md)
	}
	gpu := *s
	gpu.Rows = append([]report.IncrementalRow{}, s.Rows...)
	gpu.Rows[0].Kind = report.KindGPU
	if md := IncrementalSourceMarkdown([]CommittedIncremental{{&gpu, "reports/x/incremental.json"}}); strings.Contains(md, "CPU tier only") {
		t.Errorf("source of a study with GPU rows says CPU only: %s", md)
	}
	if md := IncrementalSourceMarkdown(nil); !strings.Contains(md, "No incremental-study report is committed") {
		t.Errorf("source without reports: %s", md)
	}
}
