package report

import (
	"fmt"
	"slices"
	"strings"
)

// Fragments of the incremental study for notebooks (pkg/nb shows them as
// they are): the summary, the two charts, the movers and the rows tables.

// IncrementalFindingsMarkdown is the study's summary as Markdown bullets: its
// findings sentences (crossovers included) and the rows that did not pass.
func IncrementalFindingsMarkdown(s *IncrementalStudy) string {
	var b strings.Builder
	passed := 0
	for _, r := range s.Rows {
		if r.Status == StatusPass {
			passed++
		}
	}
	fmt.Fprintf(&b, "* **%d of %d rows pass** every gate (warm and cold start each against the float64 oracle's cold start on the same snapshot, and warm against cold).\n", passed, len(s.Rows))
	for _, f := range s.Findings {
		fmt.Fprintf(&b, "* %s\n", f)
	}
	return b.String()
}

// IncrementalSpeedupChart is the speed-up vs batch size chart
// (IncrementalSpeedupLine) as a fragment; nil when no row has a speed-up.
func IncrementalSpeedupChart(s *IncrementalStudy) *Chart {
	if c := IncrementalSpeedupLine(s); c != nil {
		return &Chart{ID: ChartIncrementalSpeedup, Height: "500px", Chart: c}
	}
	return nil
}

// IncrementalIterationsChart is the warm vs cold iterations per year chart
// (IncrementalIterationsLine) as a fragment; nil without yearly batches.
func IncrementalIterationsChart(s *IncrementalStudy) *Chart {
	if c := IncrementalIterationsLine(s); c != nil {
		return &Chart{ID: ChartIncrementalIterations, Height: "420px", Chart: c}
	}
	return nil
}

// IncrementalMoversTable lists, year by year, the papers that entered the
// top 20 (with their rank and title) and those that left it.
func IncrementalMoversTable(s *IncrementalStudy) string {
	titles := map[string]string{}
	for _, y := range s.Years {
		for _, t := range y.Top {
			titles[t.ID] = t.Title
		}
	}
	t := Table{Caption: "Top 20 movers, year by year (float64 oracle's converged ranks on each snapshot)",
		Header: []string{"year", "papers", "citations", "entered the top 20", "left it"}, Align: []string{"r", "r", "r", "l", "l"}}
	for _, y := range s.Years {
		var in, out []string
		for _, r := range y.Top {
			if slices.Contains(y.Entered, r.ID) {
				in = append(in, fmt.Sprintf("#%d %s %s", r.Rank, r.ID, clipText(r.Title, 60)))
			}
		}
		for _, id := range y.Left {
			out = append(out, fmt.Sprintf("%s %s", id, clipText(titles[id], 60)))
		}
		t.Add("", fmt.Sprint(y.Year), fmt.Sprint(y.N), fmt.Sprint(y.NNZ), strings.Join(in, "; "), strings.Join(out, "; "))
	}
	return t.HTML()
}

// IncrementalRowsTable is every row of one batch kind group: "year" for the
// by-year workload, anything else for the random batches.
func IncrementalRowsTable(s *IncrementalStudy, byYear bool) string {
	t := Table{Header: []string{"workload", "batch", "implementation", "result", "update ms", "rebuild ms", "warm it", "cold it", "warm ms", "cold ms", "speed-up"}}
	if byYear {
		t.Caption = "By year: update + warm start vs rebuild + cold start"
	} else {
		t.Caption = "Random batches: update + warm start vs rebuild + cold start"
	}
	for _, r := range s.Rows {
		if (r.BatchKind == BatchYear) != byYear {
			continue
		}
		status := statusClass(r.Status)
		res := r.Status
		if r.Reason != "" {
			res += ": " + clipText(r.Reason, 80)
		}
		t.Add(status, r.Workload, r.Batch, r.Implementation, res, fnum("%.2f", float64(r.UpdateMs)), fnum("%.2f", float64(r.BuildMs)),
			fmt.Sprint(r.WarmIterations), fmt.Sprint(r.ColdIterations), fnum("%.2f", r.Warm.MedianMs), fnum("%.2f", r.Cold.MedianMs), fnum("%.2fx", float64(r.Speedup)))
	}
	if len(t.Rows) == 0 {
		return Para("No such rows in this study.")
	}
	return t.HTML()
}
