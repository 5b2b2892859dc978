package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"math"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/render"

	"github.com/prlab/prlab/pkg/pagerank"
)

// echartsJS is Apache ECharts 5.6.0 (assets/README.md), inlined into every
// page so the charts draw with no network access.
//
//go:embed assets/echarts.min.js
var echartsJS string

//go:embed report.html.tmpl
var pageTemplate string

// Chart element ids in the page (the browser test looks for their canvases).
// go-echarts also uses the id in JavaScript variable names, so it must be a
// valid identifier (no hyphen).
const (
	ChartConvergence = "chart_convergence"
	ChartXDRAM       = "chart_xdram"
)

// RenderHTML renders run as one self-contained HTML page (no external
// requests: the chart library and all data are inline).
func RenderHTML(run *Run) ([]byte, error) {
	v, err := newView(run)
	if err != nil {
		return nil, err
	}
	t, err := template.New("report").Funcs(funcs).Parse(pageTemplate)
	if err != nil {
		return nil, fmt.Errorf("report template: %w", err)
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, v); err != nil {
		return nil, fmt.Errorf("render %s: %w", HTMLFile, err)
	}
	return buf.Bytes(), nil
}

type chartHTML struct {
	ID      string
	Element template.HTML
	Script  template.HTML
}

type view struct {
	*Run
	// Rows shown in the tables: every row except those skipped for the
	// run-wide GPU reason, which SkippedGPU summarises in one line instead.
	CorrectnessRows []Check
	ConvergenceRows []Convergence
	TimingRows      []TimingRow
	SkippedGPU      string
	EChartsJS       template.JS
	Verdict         []string
	Exercise        []string
	Labels          map[string]string
	ConvChart       *chartHTML
	XDRAMChart      *chartHTML
	StageRows       []stageView
	EndToEnd        []TimingRow
	RatioLines      []string
	DRAM            float64
	GPUTimed        bool
	L2Line          string
	TopGuard        string
	HasTierTable    bool
	Calibration     string
}

type stageView struct {
	Implementation string
	pagerank.Stage
}

var funcs = template.FuncMap{
	"f": func(format string, x any) string {
		var v float64
		switch t := x.(type) {
		case F:
			v = float64(t)
		case float64:
			v = t
		case int:
			v = float64(t)
		case int64:
			v = float64(t)
		default:
			return fmt.Sprint(x)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return "—"
		}
		return fmt.Sprintf(format, v)
	},
	"pct": func(x any) string {
		var v float64
		switch t := x.(type) {
		case F:
			v = float64(t)
		case float64:
			v = t
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return "—"
		}
		return fmt.Sprintf("%.1f%%", v*100)
	},
	"yesno": func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	},
	"year": func(y int) string {
		if y == 0 {
			return "unknown"
		}
		return fmt.Sprint(y)
	},
	"title": func(t TopRow) string {
		if !t.Known {
			return "(no metadata for this id)"
		}
		if t.Title == "" {
			return "(untitled)"
		}
		return t.Title
	},
	"msPerIter": func(t pagerank.Timing) float64 { return t.MsPerIteration() },
}

func newView(run *Run) (*view, error) {
	v := &view{Run: run, EChartsJS: template.JS(echartsJS), Labels: map[string]string{}}
	for _, im := range run.Implementations {
		v.Labels[im.Name] = im.Label
	}
	gpuSkipped := func(status, reason string) bool {
		return run.GPUSkipped != "" && status == StatusSkipped && reason == run.GPUSkipped
	}
	skipped := map[string]bool{}
	for _, c := range run.Correctness {
		if gpuSkipped(c.Status, c.Reason) {
			skipped[c.Implementation] = true
		} else {
			v.CorrectnessRows = append(v.CorrectnessRows, c)
		}
	}
	for _, c := range run.Convergence {
		if !gpuSkipped(c.Status, c.Reason) {
			v.ConvergenceRows = append(v.ConvergenceRows, c)
		}
	}
	for _, t := range run.Timings {
		if !gpuSkipped(t.Status, t.Reason) {
			v.TimingRows = append(v.TimingRows, t)
		}
	}
	if len(skipped) > 0 {
		v.SkippedGPU = fmt.Sprintf("%d GPU implementations not shown: skipped on every case because %s", len(skipped), run.GPUSkipped)
	}
	v.verdict()
	if c, err := convergenceChart(run); err != nil {
		return nil, err
	} else {
		v.ConvChart = c
	}
	v.DRAM = DRAMCopyRow(run)
	// The stage table: the course's (every stage timed alone) when the run
	// measured it, else each implementation's own stages.
	for _, s := range run.Stages {
		v.StageRows = append(v.StageRows, stageView{"", s})
	}
	v.TopGuard = topGuard(run)
	for _, t := range run.Timings {
		if t.Kind == KindGPU {
			v.EndToEnd = append(v.EndToEnd, t)
			if t.Status == StatusPass {
				v.GPUTimed = true
			}
			if len(run.Stages) == 0 {
				for _, s := range t.Stages {
					v.StageRows = append(v.StageRows, stageView{t.Label, s})
				}
			}
		}
	}
	v.RatioLines = ratioLines(v.EndToEnd)
	if run.GPU != nil {
		if len(run.CopyRows) > 0 || len(v.StageRows) > 0 {
			c, err := xdramChart(run, v.StageRows)
			if err != nil {
				return nil, err
			}
			v.XDRAMChart = c
		}
		var maxBytes int64
		for _, t := range v.EndToEnd {
			maxBytes = max(maxBytes, t.BytesPerIteration)
		}
		if run.GPU.L2Bytes > 0 && maxBytes > 0 {
			v.L2Line = fmt.Sprintf("L2 on this card is %d bytes, and one iteration touches up to %d", run.GPU.L2Bytes, maxBytes)
			if maxBytes < run.GPU.L2Bytes {
				v.L2Line += ": the working set fits in L2, so DRAM bandwidth does not bound an iteration. "
				if best := bestXDRAM(v.EndToEnd); best < 0.5 {
					v.L2Line += fmt.Sprintf("Here the best implementation reaches %.3g of the DRAM copy row: at this size an iteration is bound by launches, barriers and latency (see the copy of one iteration's bytes and the per-stage times), not by bandwidth, which is why silver and gold are out of reach on this graph.", best)
				} else {
					v.L2Line += "Effective bandwidth can then exceed the DRAM copy row (compare the two copy rows)."
				}
			} else {
				v.L2Line += "."
			}
		}
		if th, ok := ThresholdsFor(run.GPU.ComputeCapability); ok {
			if th.Calibrated {
				v.Calibration = fmt.Sprintf("The course calibrated the %s column (Tesla T4: 95.7 GB/s against a 244.8 GB/s copy row, 0.391).", th.Column)
			} else {
				v.Calibration = fmt.Sprintf("The course left the %s column uncalibrated (no measured passing result yet); grades here are provisional.", th.Column)
			}
		} else {
			v.Calibration = fmt.Sprintf("The course's tier table has no column for compute capability %s.", run.GPU.ComputeCapability)
		}
	}
	v.HasTierTable = len(run.Tiers) > 0
	return v, nil
}

// verdict summarises correctness like the course's closing "every case passed".
func (v *view) verdict() {
	var bad []string
	var ran, skippedRows int
	exercise := map[string][]string{}
	for _, c := range v.Correctness {
		if c.Kind == KindExercise {
			exercise[c.Implementation] = append(exercise[c.Implementation], c.Case+" "+c.Status)
			continue
		}
		switch c.Status {
		case StatusPass:
			ran++
		case StatusSkipped:
			skippedRows++
		default:
			ran++
			bad = append(bad, fmt.Sprintf("%s on %s: %s", c.Implementation, c.Case, c.Status))
		}
	}
	for _, c := range v.Convergence {
		if c.Kind != KindExercise && c.Status != StatusPass && c.Status != StatusSkipped {
			bad = append(bad, fmt.Sprintf("%s converging on %s: %s", c.Implementation, v.Graph.Name, c.Status))
		}
	}
	switch {
	case ran == 0:
		v.Verdict = []string{"no correctness case ran"}
	case len(bad) == 0 && skippedRows == 0:
		v.Verdict = []string{"every case passed"}
	case len(bad) == 0:
		v.Verdict = []string{fmt.Sprintf("every case that ran passed (%d rows; %d skipped rows, see below)", ran, skippedRows)}
	default:
		v.Verdict = append([]string{fmt.Sprintf("%d problem(s):", len(bad))}, bad...)
	}
	for _, im := range v.Implementations {
		if r, ok := exercise[im.Name]; ok {
			v.Exercise = append(v.Exercise, fmt.Sprintf("%s (%s): %s", im.Name, im.Label, strings.Join(r, ", ")))
		}
	}
}

// ratioLines are the course's end-to-end comparisons ("our kernels take 0.19x
// the library's time and move 0.56x its bytes"): every timed GPU
// implementation against the slowest one.
func ratioLines(rows []TimingRow) []string {
	var ref *TimingRow
	for i := range rows {
		r := &rows[i]
		if r.Status == StatusPass && r.Timing.MedianMs > 0 && (ref == nil || r.Timing.MedianMs > ref.Timing.MedianMs) {
			ref = r
		}
	}
	if ref == nil {
		return nil
	}
	var lines []string
	for _, r := range rows {
		if r.Status != StatusPass || r.Implementation == ref.Implementation || r.Timing.MedianMs <= 0 {
			continue
		}
		line := fmt.Sprintf("%s takes %.2fx %s's time", r.Label, r.Timing.MedianMs/ref.Timing.MedianMs, ref.Label)
		if r.BytesPerIteration > 0 && ref.BytesPerIteration > 0 {
			line += fmt.Sprintf(" and moves %.2fx its bytes", float64(r.BytesPerIteration)/float64(ref.BytesPerIteration))
		}
		lines = append(lines, line)
	}
	return lines
}

// convergenceChart is the L1 residual per iteration of every tolerance-mode
// run on the real graph, log y axis, one series per implementation.
func convergenceChart(run *Run) (c *chartHTML, err error) {
	line := charts.NewLine()
	line.SetGlobalOptions(
		charts.WithInitializationOpts(opts.Initialization{ChartID: ChartConvergence, Width: "960px", Height: "440px", Renderer: "canvas", BackgroundColor: "#ffffff"}),
		charts.WithAnimation(false),
		charts.WithTitleOpts(opts.Title{Title: "L1 residual per iteration on " + run.Graph.Name, Subtitle: "||x_{k+1} − x_k||_1, tolerance mode; log scale"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: "iteration", NameLocation: "middle", NameGap: 28, Min: 1}),
		charts.WithYAxisOpts(opts.YAxis{Type: "log", Name: "L1 residual",
			AxisLabel: &opts.AxisLabel{Formatter: opts.FuncOpts("function (v) { return v.toExponential(0); }")}}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "bottom", Type: "scroll"}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithGridOpts(opts.Grid{Left: "70", Right: "40", Bottom: "90", Top: "80"}),
	)
	n := 0
	for _, r := range run.Results {
		if r.Case != run.Graph.Name || r.Mode != pagerank.Tolerance || len(r.Residuals) == 0 {
			continue
		}
		data := make([]opts.LineData, 0, len(r.Residuals))
		for k, x := range r.Residuals {
			if x > 0 && finite(x) {
				data = append(data, opts.LineData{Value: []any{k + 1, x}})
			}
		}
		// The registry name keeps the legend short; the tables give the labels.
		line.AddSeries(r.Implementation, data,
			charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)}))
		n++
	}
	if n == 0 {
		return nil, nil
	}
	return renderChart(ChartConvergence, line)
}

// xdramChart is a bar per stage (and copy row) of its effective bandwidth as
// a fraction of the 128 MiB DRAM copy row.
func xdramChart(run *Run, stages []stageView) (*chartHTML, error) {
	var names []string
	var data []opts.BarData
	for _, s := range run.CopyRows {
		names = append(names, s.Name)
		data = append(data, opts.BarData{Value: round3(s.XDRAM)})
	}
	for _, s := range stages {
		name := s.Name
		if s.Implementation != "" {
			name = s.Implementation + ": " + name
		}
		names = append(names, name)
		data = append(data, opts.BarData{Value: round3(s.XDRAM)})
	}
	bar := charts.NewBar()
	h := 140 + 28*len(names)
	bar.SetGlobalOptions(
		charts.WithInitializationOpts(opts.Initialization{ChartID: ChartXDRAM, Width: "960px", Height: fmt.Sprintf("%dpx", h), Renderer: "canvas", BackgroundColor: "#ffffff"}),
		charts.WithAnimation(false),
		charts.WithTitleOpts(opts.Title{Title: "Effective bandwidth per stage, x DRAM", Subtitle: "GB/s over the 128 MiB device-to-device copy row (1.00)"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: "x DRAM", NameLocation: "middle", NameGap: 26}),
		charts.WithYAxisOpts(opts.YAxis{Type: "category", Data: names, Inverse: opts.Bool(true)}),
		charts.WithGridOpts(opts.Grid{Left: "330", Right: "60", Top: "70", Bottom: "50"}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
	)
	bar.AddSeries("x DRAM", data, charts.WithLabelOpts(opts.Label{Show: opts.Bool(true), Position: "right"}))
	return renderChart(ChartXDRAM, bar)
}

func round3(x float64) float64 {
	if !finite(x) {
		return 0
	}
	return math.Round(x*1000) / 1000
}

// render turns a go-echarts chart into its <div> and <script> snippet; go-echarts
// panics on template errors, which come back here as an error.
func renderChart(id string, c interface {
	RenderSnippet() render.ChartSnippet
}) (out *chartHTML, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("render chart %s: %v", id, p)
		}
	}()
	s := c.RenderSnippet()
	return &chartHTML{ID: id, Element: template.HTML(s.Element), Script: template.HTML(s.Script)}, nil
}

// bestXDRAM is the largest x DRAM fraction among the passing end-to-end rows (0 if none).
func bestXDRAM(rows []TimingRow) float64 {
	best := 0.0
	for _, r := range rows {
		if r.Status == StatusPass && float64(r.XDRAM) > best {
			best = float64(r.XDRAM)
		}
	}
	return best
}

// topGuard quantifies the course's transposed-graph guard for the top table:
// the mean in- and out-degree of the top papers against the graph's mean
// degree nnz/n. A transposed graph would rank long bibliographies (large
// out-degree) first.
func topGuard(run *Run) string {
	if len(run.Top) == 0 || run.Graph.Nodes == 0 {
		return ""
	}
	var in, out float64
	low := 0
	mean := float64(run.Graph.Edges) / float64(run.Graph.Nodes)
	for _, t := range run.Top {
		in += float64(t.InDegree)
		out += float64(t.OutDegree)
		if float64(t.InDegree) < mean {
			low++
		}
	}
	k := float64(len(run.Top))
	s := fmt.Sprintf("Measured: the top %d have mean in-degree %.1f and mean out-degree %.1f; the graph's mean degree is %.2f.", len(run.Top), in/k, out/k, mean)
	if in/k > out/k {
		s += " In-degree well above out-degree: the graph is not transposed."
	} else {
		s += " Out-degree dominates: check the edge direction (CITING , CITED) before trusting this ranking."
	}
	if low > 0 {
		s += fmt.Sprintf(" %d of them are cited less often than the average paper: PageRank counts who cites, not how often, so a paper cited by highly ranked papers (or two papers that cite each other and little else, which keeps rank circulating between them) can rank high with few citations.", low)
	}
	return s
}
