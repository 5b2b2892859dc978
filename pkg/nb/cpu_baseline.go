package nb

import (
	"fmt"
	"path/filepath"

	"github.com/prlab/prlab/pkg/report"
)

// CommittedCPUBaseline is a committed run of scripts/gap-vs-t1.sh: its
// gap-vs-t1.csv and t1-scaling.csv (report.CPUBaseline, Dir relative to the
// checkout).
type CommittedCPUBaseline struct {
	*report.CPUBaseline
}

// CommittedCPUBaselines returns every committed reports/*/gap-vs-t1.csv
// that reads (with its t1-scaling.csv), those measured with more than 2
// threads (a many-core host, not the 2-core CPU machine) first, then newest
// first.
func CommittedCPUBaselines() ([]CommittedCPUBaseline, error) {
	return committedReports([]string{"reports/*/" + report.GapVsT1File}, func(path string) (*report.CPUBaseline, error) {
		b, err := report.ReadCPUBaseline(filepath.Dir(path))
		if err == nil && b == nil {
			err = fmt.Errorf("%s: no rows", path)
		}
		return b, err
	}, func(b *report.CPUBaseline) (bool, string) {
		date := ""
		if len(b.GapVsT1) > 0 {
			date = b.GapVsT1[0].Date
		}
		return b.MaxThreads() > 2, date
	}, func(b *report.CPUBaseline, path string) CommittedCPUBaseline {
		b.Dir = filepath.ToSlash(filepath.Dir(path))
		return CommittedCPUBaseline{b}
	})
}

// CPUBaselineSourceMarkdown says which committed CPU-baseline run a
// notebook shows (the first of runs): directory, host, date, commits.
func CPUBaselineSourceMarkdown(runs []CommittedCPUBaseline) string {
	if len(runs) == 0 {
		return "**No CPU-baseline run is committed** (no committed `reports/*/" + report.GapVsT1File + "`); `scripts/gap-vs-t1.sh` writes one."
	}
	b := runs[0]
	r := b.GapVsT1[0]
	return fmt.Sprintf("Shown: `%s/%s` and `%s`, measured %s on %s (up to %d threads), prlab commit `%s`, GAP `%s`; %d committed run(s) in all.",
		b.Dir, report.GapVsT1File, report.T1ScalingFile, r.Date, r.Host, b.MaxThreads(), r.PrlabCommit, report.ShortRev(r.GapRev), len(runs))
}

// GapVsT1Chart is the scale page's GAP-against-T1 chart (ns per edge per
// graph at the largest thread count) with the table under it.
func GapVsT1Chart(b *report.CPUBaseline) (string, error) {
	c, err := chart(report.GapVsT1Chart(b), "No graph of this run has a time.")
	return c + string(report.CPUBaselineTable(b)), err
}

// T1ScalingChart is the scale page's thread-scaling chart.
func T1ScalingChart(b *report.CPUBaseline) (string, error) {
	return chart(report.T1ScalingChart(b), "This run has no thread scaling (one thread count).")
}
