package nb

import (
	"fmt"
	"strings"

	"github.com/prlab/prlab/pkg/report"
	"github.com/prlab/prlab/pkg/study"
)

// The notebook's generated graphs (notebook 05): their shapes and a CPU
// smoke run, measured by pkg/study and drawn by pkg/report.
type (
	ScaleGraph = report.GeneratedGraph
	SmokeTime  = report.SmokeTime
)

// ScaleGraphs is study.GenerateScaleGraphs: R-MAT graphs at the given
// scales and a 2-D grid, each with a smoke timing of T0 and T1.
func ScaleGraphs(scales []int, gridSide, iterations int) ([]ScaleGraph, error) {
	return study.GenerateScaleGraphs(scales, gridSide, iterations)
}

// ScaleTable and SmokeTable are the generated graphs' tables (pkg/report).
var (
	ScaleTable = report.GeneratedGraphsTable
	SmokeTable = report.SmokeTable
)

// SmokeChart draws ms per iteration against nnz (log-log) per implementation
// for the R-MAT graphs of ScaleGraphs (report.SmokeChart).
func SmokeChart(gs []ScaleGraph) (string, error) {
	return chart(report.SmokeChart(gs), "No smoke timings.")
}

// CommittedScale is a scale-study report (scale.json, written by `prlab
// scale`) committed under reports/, and its path relative to the checkout.
type CommittedScale struct {
	*report.ScaleStudy
	Path string
}

// CommittedScaleRuns returns every reports/*/scale.json that reads as a
// scale study and is committed (see committedFilter: scratch folders and
// folders git does not track are left out), those that measured a GPU
// first, then newest first.
func CommittedScaleRuns() ([]CommittedScale, error) {
	return committedReports([]string{"reports/*/" + report.ScaleJSONFile}, report.Read[report.ScaleStudy],
		func(s *report.ScaleStudy) (bool, string) { return s.GPU != nil, s.Env.Date },
		func(s *report.ScaleStudy, path string) CommittedScale { return CommittedScale{s, path} })
}

// ScaleSourceMarkdown says which scale report a notebook shows (the first of
// runs) and where and when it was measured, or that none is committed.
func ScaleSourceMarkdown(runs []CommittedScale) string {
	if len(runs) == 0 {
		return "**No scale-study report is committed under `reports/`** (no committed `reports/*/scale.json`), so there are no scale-study results to show here; `prlab scale` writes one."
	}
	s := runs[0]
	complete := "complete"
	if !s.Complete {
		complete = "**partial** (a checkpoint: the run stopped or was stopped before every graph was done)"
	}
	families := "R-MAT"
	if s.Protocol.Grid {
		families = "R-MAT and 2-D grids"
	}
	var md string
	if s.GPU != nil {
		g := s.GPU
		md = fmt.Sprintf("**Source: the committed scale report `%s`** (run %q), measured on an **%s** (compute capability %s, %d SMs, driver %s, runtime %s) and its host (%s, %d logical CPUs), on %s at commit `%s`.",
			s.Path, s.Name, g.Name, g.ComputeCapability, g.SMs, g.Driver, g.Runtime, s.Env.CPUModel, s.Env.CPUCores, s.Env.Date, s.Env.Commit)
	} else {
		md = fmt.Sprintf("**Source: the committed scale report `%s`** (run %q), measured on %s, %d logical CPUs, on %s at commit `%s`. **It is a CPU-only run: it has no GPU numbers** (%s), and no GPU scale report is committed.",
			s.Path, s.Name, s.Env.CPUModel, s.Env.CPUCores, s.Env.Date, s.Env.Commit, report.ShortReason(s.GPUSkipped))
	}
	md += fmt.Sprintf(" The run is %s: %s from 2^%d to 2^%d nodes, %d graphs, %d rows, %.0f s of wall time. Nothing below is measured on this machine.",
		complete, families, s.Protocol.MinScale, s.Protocol.MaxScale, len(s.Graphs), len(s.Rows), s.ElapsedS)
	if len(runs) > 1 {
		var others []string
		for _, r := range runs[1:] {
			others = append(others, "`"+r.Path+"`")
		}
		md += " Other committed scale reports: " + strings.Join(others, ", ") + "."
	}
	return md
}

func clipText(s string, n int) string {
	if len(s) > n {
		return s[:n-1] + "…"
	}
	return s
}

// ScaleFindings is the list that opens the scale page: the fastest GPU per
// family, the crossover, every failure and skip (report.ScaleFindingsHTML).
func ScaleFindings(s *report.ScaleStudy) string { return string(report.ScaleFindingsHTML(s)) }

// ScaleTimeChart is the scale page's time per iteration chart: R-MAT and
// grid panels side by side (report.ScaleChart with report.ScaleTime).
func ScaleTimeChart(s *report.ScaleStudy) (string, error) {
	return chart(report.ScaleChart(s, report.ScaleTime), "No row of this report was timed.")
}

// ScaleSpeedupChart is the scale page's crossover chart: each GPU
// implementation's speed-up over the fastest multi-core CPU row.
func ScaleSpeedupChart(s *report.ScaleStudy) (string, error) {
	return chart(report.ScaleChart(s, report.ScaleSpeedup), "No GPU row of this report was timed, so there is no crossover to draw.")
}

// ScaleFloorChart is the scale page's fraction of the byte floor chart.
func ScaleFloorChart(s *report.ScaleStudy) (string, error) {
	return chart(report.ScaleChart(s, report.ScaleFloor), "No row of this report has a byte floor.")
}
