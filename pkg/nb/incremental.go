package nb

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/prlab/prlab/pkg/dataset"
	"github.com/prlab/prlab/pkg/report"
	"github.com/prlab/prlab/pkg/study"
)

// CommittedIncremental is one committed incremental-study report and its
// path relative to the checkout.
type CommittedIncremental struct {
	*report.IncrementalStudy
	Path string
}

// CommittedIncrementalRuns returns every committed reports/*/incremental.json
// that reads as an incremental study, those that measured a GPU first, then
// newest first.
func CommittedIncrementalRuns() ([]CommittedIncremental, error) {
	return committedReports([]string{"reports/*/" + report.IncrementalJSONFile}, report.Read[report.IncrementalStudy],
		func(s *report.IncrementalStudy) (bool, string) { return hasGPURows(s), s.Env.Date },
		func(s *report.IncrementalStudy, path string) CommittedIncremental {
			return CommittedIncremental{s, path}
		})
}

// hasGPURows says whether s has a row of a GPU tier (Kind KindGPU); the
// incremental study records its GPU tiers in its rows, not in a GPU block.
func hasGPURows(s *report.IncrementalStudy) bool {
	return s.GPU != nil || slices.ContainsFunc(s.Rows, func(r report.IncrementalRow) bool { return r.Kind == report.KindGPU })
}

// IncrementalSourceMarkdown says which committed incremental report a
// notebook shows (the first of runs), where and when it was measured, and
// what it does not have (GPU rows), or that none is committed.
func IncrementalSourceMarkdown(runs []CommittedIncremental) string {
	if len(runs) == 0 {
		return "**No incremental-study report is committed under `reports/`** (no `reports/*/incremental.json`); `prlab incremental` writes one."
	}
	s := runs[0]
	var workloads []string
	for _, w := range s.Workloads {
		workloads = append(workloads, fmt.Sprintf("`%s` (%s, n = %d, nnz = %d)", w.Name, w.Kind, w.N, w.NNZ))
	}
	md := fmt.Sprintf("**Source: the committed incremental report `%s`** (run %q), measured on %s, %d logical CPUs, on %s at commit `%s`; workloads %s; %d batches, %d rows, %.0f s.",
		s.Path, s.Name, s.Env.CPUModel, s.Env.CPUCores, s.Env.Date, s.Env.Commit, strings.Join(workloads, ", "), len(s.Batches), len(s.Rows), s.ElapsedS)
	if !hasGPURows(s.IncrementalStudy) {
		md += " **CPU tier only: it has no GPU rows** (" + clipText(s.GPUSkipped, 120) + ")."
	}
	if s.Env.LoadAverage != "" {
		md += fmt.Sprintf(" Load average at the start: %s.", s.Env.LoadAverage)
	}
	return md
}

// IncrementalByYear runs the by-year workload of the incremental study on
// this machine's CPU tier (the bundled AAN graph, 1986 to 2012, t1-multicore
// in both precisions, runs timed runs per step) or loads the same run from
// the notebook cache.
func IncrementalByYear(runs int) (*report.IncrementalStudy, error) {
	_, entries, err := DataDir("data/aan")
	if err != nil {
		return nil, err
	}
	var sums []string
	for _, e := range entries {
		sums = append(sums, e.SHA256)
	}
	return Cached("incremental-by-year-"+CacheKey(runs, sums), func() (*report.IncrementalStudy, error) {
		cfg := study.IncrementalConfig{Name: "notebook", Runs: runs,
			EdgeList: dataset.Lookup(entries, EdgeFile), Papers: dataset.Lookup(entries, PapersFile)}
		for _, e := range entries {
			cfg.Datasets = append(cfg.Datasets, e.Path)
		}
		return study.RunIncremental(context.Background(), cfg)
	})
}

// IncrementalFindings is report.IncrementalFindingsMarkdown: the study's
// summary as Markdown bullets.
func IncrementalFindings(s *report.IncrementalStudy) string {
	return report.IncrementalFindingsMarkdown(s)
}

// IncrementalSpeedupChart is the page's speed-up vs batch size chart
// (report.IncrementalSpeedupChart) for a notebook cell.
func IncrementalSpeedupChart(s *report.IncrementalStudy) (string, error) {
	return chart(report.IncrementalSpeedupChart(s), "No row has a speed-up to draw.")
}

// IncrementalIterationsChart is the page's warm vs cold iterations per
// year chart (report.IncrementalIterationsChart) for a notebook cell.
func IncrementalIterationsChart(s *report.IncrementalStudy) (string, error) {
	return chart(report.IncrementalIterationsChart(s), "No yearly batch in this study.")
}

// IncrementalMoversTable is report.IncrementalMoversTable.
func IncrementalMoversTable(s *report.IncrementalStudy) string {
	return report.IncrementalMoversTable(s)
}

// IncrementalRowsTable is report.IncrementalRowsTable.
func IncrementalRowsTable(s *report.IncrementalStudy, byYear bool) string {
	return report.IncrementalRowsTable(s, byYear)
}
