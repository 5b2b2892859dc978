package nb

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/prlab/prlab/pkg/pagerank"
	"github.com/prlab/prlab/pkg/report"
)

// Environment is the run's context as a small table: where and when every
// number below was measured (date, commit, Go, OS, CPU, GPU or why none),
// and whether the run was computed by this cell or loaded from the cache.
func Environment(s *StudyRun) string {
	note := fmt.Sprintf("Computed by this cell in %.1f s and cached in %s.", s.Took.Seconds(), s.CachePath)
	if s.FromCache {
		note = "Loaded from the notebooks' results cache " + s.CachePath + " (same parameters and data); delete it or call nb.ClearCache() to recompute."
	}
	return RunEnvironment(s.Run, note)
}

// RunEnvironment is Environment for any run (e.g. a committed report), with
// a note under the table.
func RunEnvironment(run *report.Run, note string) string {
	e := run.Env
	t := &Table{Caption: "Run environment: " + run.Name, Header: []string{"", ""}, Align: []string{"l", "l"}}
	t.Add("", "date (UTC)", e.Date)
	t.Add("", "commit", e.Commit)
	t.Add("", "Go", e.GoVersion)
	t.Add("", "OS", e.OS)
	t.Add("", "CPU", fmt.Sprintf("%s, %d logical CPUs, GOMAXPROCS %d", e.CPUModel, e.CPUCores, e.GOMAXPROCS))
	if run.GPU != nil {
		g := run.GPU
		t.Add("", "GPU", fmt.Sprintf("%s (compute capability %s, %d SMs, L2 %d bytes), driver %s, runtime %s", g.Name, g.ComputeCapability, g.SMs, g.L2Bytes, g.Driver, g.Runtime))
	} else {
		t.Add("skip", "GPU", "none: "+run.GPUSkipped)
	}
	for _, d := range e.Datasets {
		t.Add("", "data", fmt.Sprintf("%s  %d bytes  sha256 %s…", d.File, d.Bytes, d.SHA256[:min(16, len(d.SHA256))]))
	}
	t.Note = note
	return t.HTML()
}

// CasesTable lists the cases of the run: n, nnz, dangling nodes.
func CasesTable(run *report.Run) string {
	t := &Table{Caption: "Cases", Header: []string{"case", "n", "nnz", "dangling", "real graph"}}
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
func ValidationLines(run *report.Run) string {
	var b strings.Builder
	fmt.Fprintf(&b, "case real   %d nodes, %d edges\n", run.Graph.Nodes, run.Graph.Edges)
	for _, c := range run.Convergence {
		if c.Status == report.StatusSkipped {
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
func TierTable(run *report.Run) string {
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
func LoadSummary(run *report.Run) string {
	g := run.Graph
	t := &Table{Caption: "The real graph", Header: []string{"", ""}, Align: []string{"l", "r"}}
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
	case report.StatusPass:
		return "pass"
	case report.StatusSkipped:
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
func why(run *report.Run, reason string) string {
	if run.GPUSkipped != "" && reason != "" && strings.Contains(reason, run.GPUSkipped) {
		return noGPU
	}
	return reason
}

// gpuSkippedNote states the run's GPU skip reason once, for a table whose
// rows say noGPU ("" when the run had a GPU).
func gpuSkippedNote(run *report.Run) string {
	if run.GPUSkipped == "" {
		return ""
	}
	return "GPU rows skipped: " + run.GPUSkipped + ". "
}

// CorrectnessTable is the course's correctness table: every case ×
// implementation at the fixed iteration count, err/tol, sum − 1 against the
// allowed 4·FLT_EPSILON·sqrt(n), Spearman ρ over the oracle's top 100, and
// the verdict (skipped rows say why).
func CorrectnessTable(run *report.Run) string {
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
func PassMatrix(run *report.Run) string {
	var impls, cases []string
	cell := map[[2]string]string{}
	for _, c := range run.Correctness {
		if !slices.Contains(impls, c.Implementation) {
			impls = append(impls, c.Implementation)
		}
		if !slices.Contains(cases, c.Case) {
			cases = append(cases, c.Case)
		}
		v := c.Status
		if v == report.StatusFail || v == report.StatusFailed {
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
func CountChecks(run *report.Run) Counts {
	var c Counts
	for _, r := range run.Correctness {
		ex := r.Kind == report.KindExercise
		switch {
		case r.Status == report.StatusSkipped:
			c.Skipped++
		case r.Status == report.StatusPass && ex:
			c.ExercisePass++
		case ex:
			c.ExerciseFail++
		case r.Status == report.StatusPass:
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
func ConvergenceTable(run *report.Run) string {
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

// ConvergenceChart draws the L1 residual per iteration of every
// tolerance-mode run on the real graph (log y axis), one line per
// implementation. With more than MaxLegendSeries lines (a GPU run has 15)
// the legend is a scrolling column beside the plot and only the CPU lines
// and the best GPU line (BestGPUTiming) are drawn at first; the subtitle
// says so, and a click on a legend entry adds any other.
func ConvergenceChart(run *report.Run) (string, error) {
	minRes, maxRes := math.Inf(1), math.Inf(-1)
	type series struct {
		name, impl, kind string
		data             []opts.LineData
	}
	kinds := map[string]string{}
	for _, im := range run.Implementations {
		kinds[im.Name] = im.Kind
	}
	var ss []series
	for _, r := range run.Results {
		if r.Case != run.Graph.Name || r.Mode != pagerank.Tolerance || len(r.Residuals) == 0 {
			continue
		}
		data := make([]opts.LineData, 0, len(r.Residuals))
		for k, x := range r.Residuals {
			if x > 0 && !math.IsInf(x, 0) && !math.IsNaN(x) {
				minRes, maxRes = min(minRes, x), max(maxRes, x)
				data = append(data, opts.LineData{Value: []any{k + 1, math.Log10(x)}})
			}
		}
		ss = append(ss, series{fmt.Sprintf("%s (%s)", r.Implementation, r.Precision), r.Implementation, kinds[r.Implementation], data})
	}
	if len(ss) == 0 {
		return Para("No tolerance-mode results on the real graph in this run."), nil
	}
	names := make([]string, len(ss))
	shown := map[string]bool{}
	best := BestGPUTiming(run)
	for i, x := range ss {
		names[i] = x.name
		shown[x.name] = x.kind != report.KindGPU || x.impl == best
	}
	legend, grid, hidden := seriesLegend(names, func(n string) bool { return shown[n] },
		opts.Grid{Left: "80", Right: "90", Bottom: "70", Top: "70"})
	subtitle := "‖x_{k+1} − x_k‖₁, tolerance mode, log scale"
	if hidden > 0 {
		subtitle += fmt.Sprintf("; drawn: CPU and the fastest GPU (%s); click the legend for the other %d", best, hidden)
	}
	line := charts.NewLine()
	line.SetGlobalOptions(
		charts.WithInitializationOpts(opts.Initialization{Renderer: "canvas", BackgroundColor: "#ffffff"}),
		charts.WithAnimation(false),
		charts.WithTitleOpts(opts.Title{Title: "L1 residual per iteration on " + run.Graph.Name, Subtitle: subtitle}),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: "iteration", Min: 1, AxisLine: &opts.AxisLine{OnZero: opts.Bool(false)}}),
		// ECharts' log axis labels only every power of 10 of the exponent (1e0, 1e-10),
		// so the series are log10(residual) on a value axis labelled 1e<k>.
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Name: "L1 residual", Min: exponent(minRes, math.Floor), Max: exponent(maxRes, math.Ceil),
			MinInterval: 1, SplitNumber: 14, AxisLabel: &opts.AxisLabel{Formatter: opts.FuncOpts("function (v) { return '1e' + v; }")}}),
		charts.WithLegendOpts(legend),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis", Formatter: opts.FuncOpts(`function (ps) {
  if (!Array.isArray(ps)) { ps = [ps]; }
  var s = 'iteration ' + ps[0].value[0];
  ps.forEach(function (p) { s += '<br/>' + p.marker + p.seriesName + ': ' + Math.pow(10, p.value[1]).toExponential(3); });
  return s;
}`)}),
		charts.WithGridOpts(grid),
	)
	for _, x := range ss {
		line.AddSeries(x.name, x.data, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)}))
	}
	return ChartHTML(line, "440px")
}

// BestGPUTiming is the GPU implementation with the least median time per
// iteration among the run's passing timing rows on the real graph ("" when
// no GPU row was timed).
func BestGPUTiming(run *report.Run) string {
	best, bestMs := "", math.Inf(1)
	for _, r := range run.Timings {
		if r.Kind != report.KindGPU || r.Status != report.StatusPass {
			continue
		}
		if ms := r.Timing.MsPerIteration(); ms > 0 && ms < bestMs {
			best, bestMs = r.Implementation, ms
		}
	}
	return best
}

// TopTable is the top-k table (the course prints 20): rank, score, in- and
// out-degree, id, year, title. Highly ranked papers should have a high
// in-degree; a top list of high out-degree papers would mean the graph was
// transposed the wrong way.
func TopTable(rows []report.TopRow, caption string) string {
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
func TimingTable(run *report.Run) string {
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
			fnum("%.3f", tm.MedianMs), fnum("%.3f", tm.MeanMs), fnum("%.1f%%", 100*tm.CV), fnum("%.4f", tm.MsPerIteration()),
			bytes, fnum("%.1f", float64(r.GBps)), fnum("%.3f", float64(r.XDRAM)), tm.Clock, why(run, r.Reason))
	}
	t.Note = strings.TrimSpace(gpuSkippedNote(run))
	return t.HTML()
}

// StageTable lists every measured stage (GPU runs): ms, bytes, GB/s and
// x DRAM, with the copy rows first.
func StageTable(run *report.Run) string {
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
		return Para("This run has no stage rows: stages and copy rows are measured on a GPU only (CUDA events), and this run had none (%s).", run.GPUSkipped)
	}
	return t.HTML()
}

// XDRAMChart draws each stage's effective bandwidth as a fraction of the 128
// MiB DRAM copy row measured in the same process (GPU runs).
func XDRAMChart(run *report.Run) (string, error) {
	var names []string
	var data []opts.BarData
	for _, s := range run.CopyRows {
		names = append(names, "copy: "+s.Name)
		data = append(data, opts.BarData{Value: round3(s.XDRAM)})
	}
	for _, r := range run.Timings {
		for _, s := range r.Stages {
			names = append(names, r.Implementation+": "+s.Name)
			data = append(data, opts.BarData{Value: round3(s.XDRAM)})
		}
	}
	if len(names) == 0 {
		return Para("No x DRAM chart: this run has no GPU stage rows."), nil
	}
	bar := charts.NewBar()
	bar.SetGlobalOptions(
		charts.WithInitializationOpts(opts.Initialization{Renderer: "canvas", BackgroundColor: "#ffffff"}),
		charts.WithAnimation(false),
		charts.WithTitleOpts(opts.Title{Title: "Effective bandwidth per stage, x DRAM", Subtitle: "GB/s over the 128 MiB device-to-device copy row (= 1.00)"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: "x DRAM"}),
		charts.WithYAxisOpts(opts.YAxis{Type: "category", Data: names, Inverse: opts.Bool(true)}),
		charts.WithGridOpts(opts.Grid{Left: "330", Right: "60", Top: "70", Bottom: "30"}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
	)
	bar.AddSeries("x DRAM", data, charts.WithLabelOpts(opts.Label{Show: opts.Bool(true), Position: "right"}))
	return ChartHTML(bar, fmt.Sprintf("%dpx", 120+28*len(names)))
}

// TimingChart draws the median ms per iteration of every timed
// implementation (horizontal bars); it is the chart a CPU-only run has.
func TimingChart(run *report.Run) (string, error) {
	var names []string
	var data []opts.BarData
	for _, r := range run.Timings {
		if r.Status != report.StatusPass {
			continue
		}
		names = append(names, r.Implementation)
		data = append(data, opts.BarData{Value: math.Round(r.Timing.MsPerIteration()*1e4) / 1e4})
	}
	if len(names) == 0 {
		return Para("No timed rows in this run."), nil
	}
	bar := charts.NewBar()
	bar.SetGlobalOptions(
		charts.WithInitializationOpts(opts.Initialization{Renderer: "canvas", BackgroundColor: "#ffffff"}),
		charts.WithAnimation(false),
		charts.WithTitleOpts(opts.Title{Title: "Median time per iteration on " + run.Graph.Name, Subtitle: fmt.Sprintf("%d iterations per run, %d warm-ups, %d runs; ms", run.Protocol.TimingIterations, run.Protocol.Warmups, run.Protocol.Runs)}),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: "ms / iteration"}),
		charts.WithYAxisOpts(opts.YAxis{Type: "category", Data: names, Inverse: opts.Bool(true)}),
		charts.WithGridOpts(opts.Grid{Left: "160", Right: "120", Top: "70", Bottom: "30"}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
	)
	bar.AddSeries("ms / iteration", data, charts.WithLabelOpts(opts.Label{Show: opts.Bool(true), Position: "right"}))
	return ChartHTML(bar, fmt.Sprintf("%dpx", 130+40*len(names)))
}

func round3(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return math.Round(x*1000) / 1000
}

// exponent is round(log10(x)) for x > 0 (round is math.Floor or math.Ceil),
// an axis bound in decades; nil (automatic) when x is not a positive number.
func exponent(x float64, round func(float64) float64) any {
	if !(x > 0) || math.IsInf(x, 0) {
		return nil
	}
	return round(math.Log10(x))
}
