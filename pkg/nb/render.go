package nb

import (
	"fmt"
	"html/template"
	"path/filepath"

	"github.com/prlab/prlab/pkg/report"
)

// The notebooks show pkg/report's fragments: the same summary, tables and
// charts as index.html, wrapped for GoNB cells. Nothing here computes a
// number or draws a chart of its own.

// relToRoot writes p relative to the checkout when it lies inside it, so
// outputs name no machine path ("notebooks/.cache/...", "data/aan/acl.txt.gz").
func relToRoot(p string) string {
	root, err := Root()
	if err != nil || p == "" || !filepath.IsAbs(p) {
		return p
	}
	if rel, err := filepath.Rel(root, p); err == nil && !filepath.IsAbs(rel) && rel != ".." && !startsWithDotDot(rel) {
		return filepath.ToSlash(rel)
	}
	return filepath.Base(p)
}

func startsWithDotDot(rel string) bool { return len(rel) >= 3 && rel[:3] == "../" }

// forDisplay is a shallow copy of run whose paths are relative to the
// checkout (the graph file, the metadata file).
func forDisplay(run *report.Run) *report.Run {
	c := *run
	c.Graph.Path, c.Graph.MetadataPath = relToRoot(run.Graph.Path), relToRoot(run.Graph.MetadataPath)
	c.Env.Datasets = nil
	for _, d := range run.Env.Datasets {
		d.File = relToRoot(d.File)
		c.Env.Datasets = append(c.Env.Datasets, d)
	}
	return &c
}

// Environment is the run's context as a small table: where and when every
// number below was measured (date, commit, Go, OS, CPU, GPU or why none),
// and whether the run was computed by this cell or loaded from the cache.
func Environment(s *StudyRun) string {
	cache := relToRoot(s.CachePath)
	note := fmt.Sprintf("Computed by this cell in %.1f s and cached in %s.", s.Took.Seconds(), cache)
	if s.FromCache {
		note = "Loaded from the notebooks' results cache " + cache + " (same parameters and data); delete it or call nb.ClearCache() to recompute."
	}
	return report.RunEnvironment(forDisplay(s.Run), note)
}

// RunEnvironment is report.RunEnvironment (the run's environment table with
// a note), its paths relative to the checkout.
func RunEnvironment(run *report.Run, note string) string {
	return report.RunEnvironment(forDisplay(run), note)
}

// Summary is index.html's summary block (report.SummaryHTML).
func Summary(run *report.Run) (string, error) { return str(report.SummaryHTML(run)) }

// PassMatrix is index.html's correctness matrix (report.CorrectnessMatrixHTML).
func PassMatrix(run *report.Run) string {
	h, err := report.CorrectnessMatrixHTML(run)
	if err != nil {
		return Para("correctness matrix: %v", err)
	}
	return string(h)
}

// The tables, as the pages' notebook-sized fragments (pkg/report):
// index.html's, then the scale page's.
var (
	CasesTable       = report.CasesTable
	ValidationLines  = report.ValidationLines
	TierTable        = report.TierTable
	CorrectnessTable = report.CorrectnessTable
	ConvergenceTable = report.ConvergenceTable
	TopTable         = report.TopTable
	TimingTable      = report.TimingTable
	StageTable       = report.StageTable
	CountChecks      = report.CountChecks
	BestGPUTiming    = report.BestGPUTiming

	ScaleStudyEnvironment = report.ScaleStudyEnvironment
	ScaleBandwidthTable   = report.ScaleBandwidthTable
	ScaleRowsTable        = report.ScaleRowsTable
	ScaleMatrix           = report.ScaleMatrix
	ScaleGoalsTable       = report.ScaleGoalsTable
	BestScaleGPU          = report.BestScaleGPU
)

// Counts tallies correctness rows by kind and status (report.Counts).
type Counts = report.Counts

// LoadSummary is the course's load line and the metadata coverage, with the
// file paths relative to the checkout.
func LoadSummary(run *report.Run) string { return report.LoadSummary(forDisplay(run)) }

// ConvergenceChart is index.html's convergence chart (report.ConvergenceChart).
func ConvergenceChart(run *report.Run) (string, error) {
	return chart(report.ConvergenceChart(run), "No tolerance-mode results on "+run.Graph.Called()+" in this run.")
}

// TimingChart is index.html's time per iteration chart (report.TimeChart).
func TimingChart(run *report.Run) (string, error) {
	return chart(report.TimeChart(run), "No timed rows in this run.")
}

// RooflineChart is index.html's roofline (report.RooflineChart).
func RooflineChart(run *report.Run) (string, error) {
	return chart(report.RooflineChart(run), "No roofline: this run has no timed GPU row with copy rows.")
}

// XDRAMChart is index.html's x DRAM per stage chart (report.XDRAMChart).
func XDRAMChart(run *report.Run) (string, error) {
	return chart(report.XDRAMChart(run), "No x DRAM chart: this run has no GPU stage rows.")
}

// chart renders c under a fresh element id (a notebook page may show the
// same chart twice), or says why there is none.
func chart(c *report.Chart, none string) (string, error) {
	if c == nil {
		return Para("%s", none), nil
	}
	c.ID += "_" + randomID()
	return str(c.HTML())
}

func str(h template.HTML, err error) (string, error) { return string(h), err }
