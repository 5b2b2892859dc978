package study

import (
	"testing"

	"github.com/prlab/prlab/pkg/report"
)

// The same-file goal: met or not met only on R-MAT 2^24 at 16 threads with
// matching edge counts; the fastest T1 precision of the largest graph is
// the one graded.
func TestSameFileGAPGoal(t *testing.T) {
	row := func(graph string, nnz, threads int, impl string, ratio float64, match string) report.GapVsT1Row {
		return report.GapVsT1Row{Graph: graph, GraphSize: report.GraphSize{NNZ: nnz}, Threads: threads, T1Impl: impl,
			GapMsPerIter: 100, T1MsPerIter: report.F(100 * ratio), Ratio: report.F(ratio), EdgesMatch: match, Host: "h"}
	}
	for _, c := range []struct {
		name   string
		rows   []report.GapVsT1Row
		status string
		value  float64
	}{
		{"met", []report.GapVsT1Row{row("rmat22", 65e6, 16, "t1-multicore-f32", 1.5, "yes"),
			row("rmat24", 263e6, 16, "t1-multicore-f64", 1.2, "yes"), row("rmat24", 263e6, 16, "t1-multicore-f32", 0.9, "yes")}, report.GoalMet, 0.9},
		{"not met", []report.GapVsT1Row{row("rmat24", 263e6, 16, "t1-multicore-f32", 1.1, "yes")}, report.GoalNotMet, 1.1},
		{"fewer threads", []report.GapVsT1Row{row("rmat24", 263e6, 2, "t1-multicore-f32", 0.5, "yes")}, report.GoalNotMeasured, 0.5},
		{"no 2^24", []report.GapVsT1Row{row("rmat22", 65e6, 16, "t1-multicore-f32", 0.5, "yes")}, report.GoalNotMeasured, 0.5},
		{"edges differ", []report.GapVsT1Row{row("rmat24", 263e6, 16, "t1-multicore-f32", 0.5, "NO")}, report.GoalNotMeasured, 0.5},
	} {
		g := sameFileGAPGoal(&report.CPUBaseline{Dir: "d", GapVsT1: c.rows})
		if g.Status != c.status || float64(g.Value) != c.value {
			t.Errorf("%s: status %q value %v, want %q %v (%s; %s)", c.name, g.Status, g.Value, c.status, c.value, g.Measured, g.Note)
		}
	}
	if n := len(ScaleGoals(&report.ScaleStudy{})); n != 3 {
		t.Errorf("%d goals without a CPU baseline, want 3", n)
	}
	if n := len(ScaleGoals(&report.ScaleStudy{CPUBaseline: &report.CPUBaseline{}})); n != 4 {
		t.Errorf("%d goals with a CPU baseline, want 4", n)
	}
}

// A moonshot scale the study planned gets a goal row even when its graph was
// skipped or no GPU row passed there (not measured, with the reason); a
// scale it did not plan gets none.
func TestMoonshotGoalRows(t *testing.T) {
	s := &report.ScaleStudy{StudyHeader: report.StudyHeader{GPU: &report.GPUContext{Name: "NVIDIA H200"}, GPUSkipped: "no CUDA library"},
		Graphs: []report.ScaleGraph{{Family: report.FamilyRMAT, Scale: 20, Name: "rmat20", Skipped: "time budget"},
			{Family: report.FamilyRMAT, Scale: 22, Name: "rmat22"}, {Family: report.FamilyGrid, Scale: 24, Name: "grid4096"}}}
	g := moonshotGoalRows(s, "NVIDIA H200", true)
	if len(g) != 2 || g[0].Name != "GPU moonshot time per iteration, RMAT 2^20" || g[0].Note != "graph skipped: time budget" ||
		g[1].Note != "GPU rows skipped: no CUDA library" || float64(g[1].Limit) != 0.34 {
		t.Fatalf("moonshot rows %+v", g)
	}
	for _, x := range g {
		if x.Status != report.GoalNotMeasured || x.Value.Valid() {
			t.Errorf("%s: %s, value %v (nothing measured)", x.Name, x.Status, x.Value)
		}
	}
}
