package report

import (
	"cmp"
	"fmt"
	"html"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The tables of the notebooks (pkg/nb shows them in GoNB cells): small HTML
// fragments with inline styles, so they look the same in the classic
// Notebook, JupyterLab, an nbconvert export and a printed page. Wide tables
// scroll sideways inside their own box instead of being cut off.

func escape(s string) string { return html.EscapeString(s) }

// Table is a small HTML table builder for notebook outputs: a caption,
// header cells, rows of cells (text, escaped), and optional per-row CSS
// classes ("pass", "fail", "skip"). It renders with inline styles so it looks
// the same in Jupyter Notebook, JupyterLab, the nbconvert export and GitHub.
type Table struct {
	Caption string
	Header  []string
	Rows    [][]string
	Status  []string // per row: "pass", "fail", "skip" or ""
	Align   []string // per column: "l" or "r" (default "r" for cells that look numeric)
	Note    string   // a line under the table (escaped)
}

// Add appends one row with a status ("pass", "fail", "skip" or "").
func (t *Table) Add(status string, cells ...string) {
	t.Rows = append(t.Rows, cells)
	t.Status = append(t.Status, status)
}

var statusStyle = map[string]string{
	"pass": "background:#eef8ee",
	"fail": "background:#fbeaea",
	"skip": "background:#f4f4f4;color:#777",
}

// HTML renders the table.
func (t *Table) HTML() string {
	var b strings.Builder
	b.WriteString(`<div class="prlab-scroll" style="overflow-x:auto;max-width:100%"><table class="prlab-table" style="border-collapse:collapse;font:13px/1.35 sans-serif;margin:6px 0">`)
	if t.Caption != "" {
		fmt.Fprintf(&b, `<caption style="text-align:left;font-weight:bold;padding:4px 0">%s</caption>`, escape(t.Caption))
	}
	b.WriteString("<thead><tr>")
	for _, h := range t.Header {
		fmt.Fprintf(&b, `<th style="border-bottom:2px solid #999;padding:3px 8px;text-align:left">%s</th>`, escape(h))
	}
	b.WriteString("</tr></thead><tbody>")
	for i, row := range t.Rows {
		style := ""
		if i < len(t.Status) {
			style = statusStyle[t.Status[i]]
		}
		fmt.Fprintf(&b, `<tr style="%s">`, style)
		for j, c := range row {
			align := "left"
			if j < len(t.Align) {
				if t.Align[j] == "r" {
					align = "right"
				}
			} else if numeric(c) {
				align = "right"
			}
			wrap := "white-space:nowrap"
			if len(c) > 48 { // long text wraps instead of widening the table past the page
				wrap = "white-space:normal;min-width:220px;max-width:460px"
			}
			fmt.Fprintf(&b, `<td style="border-bottom:1px solid #ddd;padding:2px 8px;text-align:%s;%s">%s</td>`, align, wrap, escape(c))
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</tbody></table></div>")
	if t.Note != "" {
		fmt.Fprintf(&b, `<div style="font:12px sans-serif;color:#555;margin-bottom:8px">%s</div>`, escape(t.Note))
	}
	return b.String()
}

// Markdown renders the table as GitHub-flavoured Markdown (status as a column).
func (t *Table) Markdown() string {
	var b strings.Builder
	if t.Caption != "" {
		fmt.Fprintf(&b, "**%s**\n\n", t.Caption)
	}
	b.WriteString("| " + strings.Join(t.Header, " | ") + " |\n|")
	for range t.Header {
		b.WriteString(" --- |")
	}
	b.WriteString("\n")
	for _, row := range t.Rows {
		cells := make([]string, len(row))
		for i, c := range row {
			cells[i] = strings.ReplaceAll(c, "|", `\|`)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	if t.Note != "" {
		b.WriteString("\n" + t.Note + "\n")
	}
	return b.String()
}

func numeric(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || s == "—" {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune("0123456789+-.eE%x×, ", r) {
			return false
		}
	}
	return true
}

// fnum formats a float with format f, or "—" when it is NaN or infinite.
func fnum(f string, x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "—"
	}
	return fmt.Sprintf(f, x)
}

// Ms formats a time in milliseconds (per run or per iteration) with the
// given decimals, as every table and the CLI print it ("0.3307"); a
// positive time those decimals would show with fewer than two significant
// digits (a tiny graph's 42 ns per iteration: "0.0000" ms) gets three
// significant digits instead ("0.000042"). NaN or infinite is "—".
func Ms(decimals int, ms float64) string {
	switch {
	case math.IsNaN(ms) || math.IsInf(ms, 0):
		return "—"
	case ms > 0 && ms < math.Pow10(1-decimals):
		r, _ := strconv.ParseFloat(strconv.FormatFloat(ms, 'e', 2, 64), 64)
		return strconv.FormatFloat(r, 'f', -1, 64)
	}
	return strconv.FormatFloat(ms, 'f', decimals, 64)
}

// Para is a paragraph of escaped text for notebook output.
func Para(format string, args ...any) string {
	return `<p style="font:13px/1.4 sans-serif;max-width:1000px">` + escape(fmt.Sprintf(format, args...)) + `</p>`
}

// RunEnvironment is Environment for any run (e.g. a committed report), with
// a note under the table.
func RunEnvironment(run *Run, note string) string {
	e := run.Env
	t := &Table{Caption: "Run environment: " + run.Name, Header: []string{"", ""}, Align: []string{"l", "l"}}
	t.Add("", "date (UTC)", e.Date)
	t.Add("", "commit", e.Commit)
	t.Add("", "Go", e.GoVersion)
	t.Add("", "OS", e.OS)
	t.Add("", "CPU", fmt.Sprintf("%s, %d logical CPUs, GOMAXPROCS %d", e.CPUModel, e.CPUCores, e.GOMAXPROCS))
	if run.GPU != nil {
		g := run.GPU
		driver := "CUDA driver API " + g.Driver
		if g.KernelDriver != "" {
			driver = "driver " + g.KernelDriver + " (CUDA driver API " + g.Driver + ")"
		}
		t.Add("", "GPU", fmt.Sprintf("%s (compute capability %s, %d SMs, L2 %d bytes), %s, runtime %s", g.Name, g.ComputeCapability, g.SMs, g.L2Bytes, driver, g.Runtime))
	} else {
		t.Add("skip", "GPU", "none: "+ShortReason(run.GPUSkipped))
	}
	for _, d := range e.Datasets {
		t.Add("", "data", fmt.Sprintf("%s  %d bytes  sha256 %s…", d.File, d.Bytes, d.SHA256[:min(16, len(d.SHA256))]))
	}
	t.Note = note
	return t.HTML()
}

// CasesTable lists the cases of the run: n, nnz, dangling nodes.
func CasesTable(run *Run) string {
	last := "real graph"
	if run.Graph.UserGraph() {
		last = "graph file"
	}
	t := &Table{Caption: "Cases", Header: []string{"case", "n", "nnz", "dangling", last}}
	for _, c := range run.Cases {
		real := "no"
		if c.Real {
			real = "yes"
		}
		t.Add("", c.Name, fmt.Sprint(c.N), fmt.Sprint(c.NNZ), fmt.Sprint(c.Dangling), real)
	}
	return t.HTML()
}

// ValidationLines is the course's validation block for the real graph, one
// line per converged implementation: sum of ranks minus 1 against the
// allowed 4·FLT_EPSILON·sqrt(n), Spearman ρ over the oracle's top 100
// against 0.999, and the verdict.
func ValidationLines(run *Run) string {
	var b strings.Builder
	fmt.Fprintf(&b, "case %s   %d nodes, %d edges\n", run.Graph.CaseLabel(), run.Graph.Nodes, run.Graph.Edges)
	for _, c := range run.Convergence {
		if c.Status == StatusSkipped {
			r := why(run, c.Reason)
			if r == noGPU {
				r = "no GPU here (the run environment's GPU row says why)"
			}
			fmt.Fprintf(&b, "  %-18s skipped: %s\n", c.Implementation, r)
			continue
		}
		fmt.Fprintf(&b, "  %-18s %-8s L1 residual under %.0e in %d iterations; sum−1 %+.3e (allowed %.3e); rho %.6f (need %.3f)  %s\n",
			c.Implementation, c.Precision, c.Tolerance, c.Iterations, float64(c.SumMinus1), float64(c.SumAllowed), float64(c.Spearman), run.Protocol.SpearmanGate, c.Status)
	}
	return `<pre style="font-size:12.5px;line-height:1.35">` + escape(b.String()) + `</pre>`
}

// TierTable is the course's tier grading of the GPU implementations, or a
// line saying why there is none.
func TierTable(run *Run) string {
	if len(run.Tiers) == 0 {
		return Para("No tier rows: tiers grade GPU implementations, and this run has none.")
	}
	t := &Table{Caption: "Tiers (course table; column by compute capability)", Header: []string{"implementation", "tier", "all correct", "beats baseline", "write budget", "fraction of DRAM copy", "CV", "silver", "gold", "column", "calibrated", "next tier misses"}}
	for _, r := range run.Tiers {
		t.Add("", r.Implementation, r.Tier, yesNo(r.AllCorrect), yesNo(r.BeatsBaseline), r.WriteBudget, fnum("%.3f", float64(r.Fraction)),
			fnum("%.1f%%", 100*float64(r.CV)), fnum("%.2f", float64(r.Silver)), fnum("%.2f", float64(r.Gold)), r.Column, yesNo(r.Calibrated), r.Why)
	}
	return t.HTML()
}

// LoadSummary is the course's load line and the metadata coverage.
func LoadSummary(run *Run) string {
	g := run.Graph
	caption := "The real graph"
	if g.UserGraph() {
		caption = "The graph " + g.Name
	}
	t := &Table{Caption: caption, Header: []string{"", ""}, Align: []string{"l", "r"}}
	t.Add("", "edge list", g.Path)
	t.Add("", "nodes n", fmt.Sprint(g.Nodes))
	t.Add("", "edges nnz (after dropping)", fmt.Sprint(g.Edges))
	t.Add("", "self-loops dropped", fmt.Sprint(g.SelfLoops))
	t.Add("", "duplicate edges dropped", fmt.Sprint(g.Duplicates))
	t.Add("", "dangling nodes (out-degree 0)", fmt.Sprint(g.Dangling))
	if g.MetadataPath != "" {
		t.Add("", "nodes with metadata (title, year)", fmt.Sprintf("%d of %d", g.WithMetadata, g.Nodes))
		t.Add("", "metadata rows for ids outside the graph", fmt.Sprint(g.MetadataNotInGraph))
	}
	return fmt.Sprintf(`<pre style="font-size:13px">%s</pre>`, escape(g.Line)) + t.HTML()
}

func statusClass(s string) string {
	switch s {
	case StatusPass:
		return "pass"
	case StatusSkipped:
		return "skip"
	default:
		return "fail"
	}
}

// noGPU is what a row says instead of the run's GPU skip reason (long: the
// library paths tried), which gpuSkippedNote states once under the table.
const noGPU = "no GPU (reason below the table)"

// why is a row's reason for a table: the run's GPU skip reason, which every
// GPU row of a run without a GPU repeats, is shortened to noGPU.
func why(run *Run, reason string) string {
	if run.GPUSkipped != "" && reason != "" && strings.Contains(reason, run.GPUSkipped) {
		return noGPU
	}
	return reason
}

// gpuSkippedNote states the run's GPU skip reason once, for a table whose
// rows say noGPU ("" when the run had a GPU).
func gpuSkippedNote(run *Run) string {
	if run.GPUSkipped == "" {
		return ""
	}
	return "GPU rows skipped: " + ShortReason(run.GPUSkipped) + ". "
}

// CorrectnessTable is the course's correctness table: every case ×
// implementation at the fixed iteration count, err/tol, sum − 1 against the
// allowed 4·FLT_EPSILON·sqrt(n), Spearman ρ over the oracle's top 100, and
// the verdict (skipped rows say why).
func CorrectnessTable(run *Run) string {
	t := &Table{
		Caption: fmt.Sprintf("Correctness, %d fixed iterations on both sides, validated against %s", run.Protocol.Iterations, run.Protocol.Oracle),
		Header:  []string{"case", "implementation", "kind", "n", "nnz", "err/tol", "sum − 1", "allowed", "ρ top 100", "status", "why"},
		Align:   []string{"l", "l", "l", "r", "r", "r", "r", "r", "r", "l", "l"},
	}
	for _, c := range run.Correctness {
		t.Add(statusClass(c.Status), c.Case, c.Implementation, c.Kind, fmt.Sprint(c.N), fmt.Sprint(c.NNZ),
			fnum("%.3f", float64(c.ErrOverTol)), fnum("%+.2e", float64(c.SumMinus1)), fnum("%.2e", float64(c.SumAllowed)),
			fnum("%.6f", float64(c.Spearman)), c.Status, why(run, c.Reason))
	}
	t.Note = gpuSkippedNote(run) + "err/tol: largest per-element relative error over prlab's tolerance (pagerank.RelTolerance = 1e-3), pass ≤ 1. " +
		"Kind \"exercise\" is the deliberately wrong no-dangling variant: it is expected to fail wherever a case has dangling nodes."
	return t.HTML()
}

// PassMatrix is the correctness table folded to one cell per case ×
// implementation ("pass", "FAIL", "skipped"), the quick view.
func PassMatrix(run *Run) string {
	impls, cases := correctnessAxes(run)
	cell := map[[2]string]string{}
	for _, c := range run.Correctness {
		v := c.Status
		if v == StatusFail || v == StatusFailed {
			v = strings.ToUpper(v)
		}
		cell[[2]string{c.Case, c.Implementation}] = v
	}
	t := &Table{Caption: "Pass table (case × implementation)", Header: append([]string{"case"}, impls...)}
	for _, cs := range cases {
		row := []string{cs}
		all := "pass"
		for _, im := range impls {
			v := cell[[2]string{cs, im}]
			row = append(row, v)
			if v != "pass" && !strings.HasPrefix(im, "t0-nodangling") && v != "skipped" {
				all = "fail"
			}
		}
		t.Add(all, row...)
	}
	return t.HTML()
}

// Counts tallies the correctness rows by kind and status.
type Counts struct{ Pass, Fail, Skipped, ExercisePass, ExerciseFail int }

// CountChecks counts run's correctness rows.
func CountChecks(run *Run) Counts {
	var c Counts
	for _, r := range run.Correctness {
		ex := r.Kind == KindExercise
		switch {
		case r.Status == StatusSkipped:
			c.Skipped++
		case r.Status == StatusPass && ex:
			c.ExercisePass++
		case ex:
			c.ExerciseFail++
		case r.Status == StatusPass:
			c.Pass++
		default:
			c.Fail++
		}
	}
	return c
}

// ConvergenceTable is the real graph's tolerance-mode block: iterations
// until the L1 residual fell under each implementation's tolerance, sum − 1
// against the allowed bound, and Spearman ρ over the oracle's top 100.
func ConvergenceTable(run *Run) string {
	t := &Table{
		Caption: "Converged on " + run.Graph.Name + " (tolerance mode, L1 residual)",
		Header:  []string{"implementation", "precision", "tolerance", "iterations", "converged", "final residual", "sum − 1", "allowed", "ρ top 100", "status", "why"},
		Align:   []string{"l", "l", "r", "r", "l", "r", "r", "r", "r", "l", "l"},
	}
	for _, c := range run.Convergence {
		t.Add(statusClass(c.Status), c.Implementation, string(c.Precision), fmt.Sprintf("%.0e", c.Tolerance), fmt.Sprint(c.Iterations),
			fmt.Sprint(c.Converged), fnum("%.3e", float64(c.FinalResidual)), fnum("%+.3e", float64(c.SumMinus1)),
			fnum("%.3e", float64(c.SumAllowed)), fnum("%.6f", float64(c.Spearman)), c.Status, why(run, c.Reason))
	}
	t.Note = strings.TrimSpace(gpuSkippedNote(run))
	return t.HTML()
}

// TopTable is the top-k table (the course prints 20): rank, score, in- and
// out-degree, id, year, title. Highly ranked papers should have a high
// in-degree; a top list of high out-degree papers would mean the graph was
// transposed the wrong way.
func TopTable(rows []TopRow, caption string) string {
	t := &Table{Caption: caption, Header: []string{"rank", "score", "in-deg", "out-deg", "id", "year", "title"},
		Align: []string{"r", "r", "r", "r", "l", "r", "l"}}
	for _, r := range rows {
		year := "—"
		if r.Year > 0 {
			year = fmt.Sprint(r.Year)
		}
		title := r.Title
		if !r.Known {
			title = "(no metadata row)"
		}
		t.Add("", fmt.Sprint(r.Rank), fmt.Sprintf("%.7f", r.Score), fmt.Sprint(r.InDegree), fmt.Sprint(r.OutDegree), r.ID, year, title)
	}
	return t.HTML()
}

// TimingTable is the timing protocol's end-to-end table on the real graph:
// median, mean, CV of the timed runs, ms per iteration, bytes per
// iteration, effective bandwidth and x DRAM (GPU), with the clock used.
func TimingTable(run *Run) string {
	t := &Table{
		Caption: "Timed on " + run.Graph.Name,
		Header:  []string{"implementation", "kind", "status", "iterations × runs", "median ms", "mean ms", "CV", "ms / iteration", "bytes / iteration", "GB/s", "x DRAM", "clock", "why"},
		Align:   []string{"l", "l", "l", "r", "r", "r", "r", "r", "r", "r", "r", "l", "l"},
	}
	for _, r := range run.Timings {
		tm := r.Timing
		bytes := "—"
		if r.BytesPerIteration > 0 {
			bytes = fmt.Sprint(r.BytesPerIteration)
		}
		t.Add(statusClass(r.Status), r.Implementation, r.Kind, r.Status, fmt.Sprintf("%d × %d", tm.Iterations, len(tm.RunsMs)),
			Ms(3, tm.MedianMs), Ms(3, tm.MeanMs), fnum("%.1f%%", 100*tm.CV), Ms(4, tm.MsPerIteration()),
			bytes, fnum("%.1f", float64(r.GBps)), fnum("%.3f", float64(r.XDRAM)), tm.Clock, why(run, r.Reason))
	}
	t.Note = strings.TrimSpace(gpuSkippedNote(run))
	return t.HTML()
}

// StageTable lists every measured stage (GPU runs): ms, bytes, GB/s and
// x DRAM, with the copy rows first.
func StageTable(run *Run) string {
	t := &Table{
		Caption: "Stages (one execution each) and device-to-device copy rows",
		Header:  []string{"implementation", "stage", "ms", "bytes", "GB/s", "x DRAM", "bytes counted as"},
		Align:   []string{"l", "l", "r", "r", "r", "r", "l"},
	}
	for _, s := range run.CopyRows {
		t.Add("skip", "(copy row)", s.Name, fnum("%.4f", s.Ms), fmt.Sprint(s.Bytes), fnum("%.1f", s.GBps), fnum("%.3f", s.XDRAM), s.Formula)
	}
	n := 0
	for _, r := range run.Timings {
		for _, s := range r.Stages {
			t.Add("", r.Implementation, s.Name, fnum("%.4f", s.Ms), fmt.Sprint(s.Bytes), fnum("%.1f", s.GBps), fnum("%.3f", s.XDRAM), s.Formula)
			n++
		}
	}
	if n == 0 && len(run.CopyRows) == 0 {
		return Para("This run has no stage rows: stages and copy rows are measured on a GPU only (CUDA events), and this run had none (%s).", ShortReason(run.GPUSkipped))
	}
	return t.HTML()
}

// ScaleStudyEnvironment is RunEnvironment for a scale
func ScaleStudyEnvironment(s *ScaleStudy) string {
	return RunEnvironment(&Run{Name: s.Name, Env: s.Env, GPU: s.GPU, GPUSkipped: s.GPUSkipped},
		fmt.Sprintf("R-MAT a=%.2f b=%.2f c=%.2f, edge factor %d, seed %d; %d fixed iterations per validation run, damping %.2f; time budget %.0f s.",
			s.Protocol.A, s.Protocol.B, s.Protocol.C, s.Protocol.EdgeFactor, s.Protocol.Seed, s.Protocol.ValidateIterations, s.Protocol.Damping, s.Protocol.BudgetS))
}

// ScaleBandwidthTable lists the copy rows every byte floor of the report
// divides by (the GPU's device-to-device copy, the host's memcpy).
func ScaleBandwidthTable(s *ScaleStudy) string {
	t := &Table{Caption: "Copy rows the byte floor divides by (measured in the same process as the rows)",
		Header: []string{"copy row", "ms", "bytes (read + written)", "GB/s", "how"}, Align: []string{"l", "r", "r", "r", "l"}}
	for _, b := range s.Bandwidth {
		t.Add("", b.Name, fnum("%.4f", b.Ms), fmt.Sprint(b.Bytes), fnum("%.1f", b.GBps), b.Formula)
	}
	if len(t.Rows) == 0 {
		return Para("This report has no copy rows.")
	}
	return t.HTML()
}

// ScaleRowsTable is the scale study's rows: every implementation on every
// graph, with its status, time and GTEPS per iteration, the fractions of the
// byte floor and of the compressed-stream (code) floor and the speed-up
// over the fastest multi-core CPU row. The table
// is long (implementations × graphs), so it is folded in a <details> element.
func ScaleRowsTable(s *ScaleStudy) string {
	t := &Table{
		Caption: "Scale study rows (" + s.Name + ")",
		Header:  []string{"graph", "nnz", "implementation", "status", "it × runs", "ms / iteration", "GTEPS", "ns / edge", "floor fraction", "code-floor fraction", "× multi-core CPU", "why"},
		Align:   []string{"l", "r", "l", "l", "r", "r", "r", "r", "r", "r", "r", "l"},
	}
	for _, r := range s.Rows {
		runs := "—"
		if r.Timing.Iterations > 0 {
			runs = fmt.Sprintf("%d × %d", r.Timing.Iterations, len(r.Timing.RunsMs))
		}
		codeFloor := "—" // a report from before the code floor was computed
		if r.CodeFloorBytes > 0 {
			codeFloor = fnum("%.3f", float64(r.CodeFloorFraction))
		}
		t.Add(statusClass(r.Status), r.Graph, fmt.Sprint(r.NNZ), r.Implementation, r.Status, runs, Ms(4, float64(r.MsPerIter)),
			fnum("%.3f", float64(r.GTEPS)), fnum("%.3f", float64(r.NsPerEdge)), fnum("%.3f", float64(r.FloorFraction)),
			codeFloor, fnum("%.1f", float64(r.SpeedupVsCPU)), clipText(scaleReason(r), 140))
	}
	t.Note = spearmanNote
	return fmt.Sprintf(`<details><summary style="font:13px sans-serif;cursor:pointer">All %d rows of %s (click to open)</summary>%s</details>`,
		len(s.Rows), escape(s.Name), t.HTML())
}

// ScaleMatrix is one family's rows at a glance: an implementation per row,
// a graph per column, ms per iteration in each cell, or "FAIL" (validation
// failed; the time it took follows) or "skip". A row is marked fail when any
// of its cells failed, skip when none ran.
func ScaleMatrix(s *ScaleStudy, family string) string {
	var graphs []ScaleGraph
	for _, g := range s.Graphs {
		if g.Family == family {
			graphs = append(graphs, g)
		}
	}
	if len(graphs) == 0 {
		return Para("This report has no %s graphs.", family)
	}
	t := &Table{Caption: fmt.Sprintf("%s: ms per iteration (%s)", FamilyName(family), s.Name), Header: []string{"implementation"}}
	t.Align = []string{"l"}
	for _, g := range graphs {
		t.Header = append(t.Header, fmt.Sprintf("%s (%.3g M edges)", g.Name, float64(g.NNZ)/1e6))
		t.Align = append(t.Align, "r")
	}
	cell := map[[2]string]ScaleRow{}
	var impls []string
	for _, r := range s.Rows {
		if r.Family != family {
			continue
		}
		if !slices.Contains(impls, r.Implementation) {
			impls = append(impls, r.Implementation)
		}
		cell[[2]string{r.Implementation, r.Graph}] = r
	}
	for _, im := range impls {
		row := []string{im}
		failed, ran := false, false
		for _, g := range graphs {
			r, ok := cell[[2]string{im, g.Name}]
			switch {
			case !ok:
				row = append(row, "—")
			case r.Status == StatusPass:
				ran = true
				row = append(row, fnum("%.4g", float64(r.MsPerIter)))
			case r.Status == StatusSkipped:
				row = append(row, "skip")
			default:
				failed, ran = true, true
				row = append(row, "FAIL "+fnum("%.4g", float64(r.MsPerIter)))
			}
		}
		status := "pass"
		if failed {
			status = "fail"
		} else if !ran {
			status = "skip"
		}
		t.Add(status, row...)
	}
	t.Note = "Median ms per iteration of the timed runs; FAIL: the row ran but its ranks failed validation (its time follows); skip: it did not run (the rows table says why)."
	return t.HTML()
}

// ScaleGoalsTable is the scale study's goals next to what the report measured.
func ScaleGoalsTable(s *ScaleStudy) string {
	t := &Table{Caption: "Goals and what this report measured", Header: []string{"goal", "target", "measured", "status"},
		Align: []string{"l", "l", "l", "l"}}
	for _, g := range s.Goals {
		status := cmp.Or(map[string]string{GoalMet: "pass", GoalNotMet: "fail"}[g.Status], "skip")
		measured := g.Measured
		if g.Note != "" {
			measured += " (" + g.Note + ")"
		}
		t.Add(status, g.Name, g.Target, measured, g.Status)
	}
	return t.HTML()
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// BestGPUTiming is the GPU implementation with the least median time per
// iteration among the run's passing timing rows on the real graph ("" when
// no GPU row was timed).
func BestGPUTiming(run *Run) string {
	if s := Summarize(run); s.BestGPU != nil {
		return s.BestGPU.Implementation
	}
	return ""
}
