package nb

import (
	"strings"
	"testing"
)

// TestCommittedCPUBaselines finds the committed 2-core sample run of
// scripts/gap-vs-t1.sh and draws both of its charts.
func TestCommittedCPUBaselines(t *testing.T) {
	runs, err := CommittedCPUBaselines()
	run := committedOne(t, runs, err, "reports/gap-cpu-2core", func(r *CommittedCPUBaseline) bool { return r.Dir == "reports/gap-cpu-2core" })
	b := run.CPUBaseline
	if len(b.GapVsT1) != 12 || b.MaxThreads() != 2 {
		t.Errorf("%d rows, %d threads; want 12 rows at up to 2 threads", len(b.GapVsT1), b.MaxThreads())
	}
	if md := CPUBaselineSourceMarkdown([]CommittedCPUBaseline{*run}); !strings.Contains(md, "`reports/gap-cpu-2core/gap-vs-t1.csv`") || !strings.Contains(md, "AMD EPYC (2 cores)") {
		t.Errorf("source: %s", md)
	}
	for _, f := range []func() (string, error){
		func() (string, error) { return GapVsT1Chart(b) },
		func() (string, error) { return T1ScalingChart(b) },
	} {
		h, err := f()
		if err != nil || !strings.Contains(h, "echarts.init") {
			t.Errorf("chart: %v, %.200s", err, h)
		}
	}
	if md := CPUBaselineSourceMarkdown(nil); !strings.Contains(md, "No CPU-baseline run") {
		t.Errorf("no runs: %s", md)
	}
}
