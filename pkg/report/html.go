package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"math"

	"github.com/prlab/prlab/pkg/pagerank"
)

// echartsJS is Apache ECharts 5.6.0 (assets/README.md), inlined into every
// page so the charts draw with no network access.
//
//go:embed assets/echarts.min.js
var echartsJS string

//go:embed report.html.tmpl
var pageTemplate string

// RenderHTML renders run as one self-contained HTML page (no external
// requests: the chart library and all data are inline).
func RenderHTML(run *Run) ([]byte, error) {
	v, err := newView(run)
	if err != nil {
		return nil, err
	}
	return renderPage("report", pageTemplate, nil, v, HTMLFile)
}

// renderPage is the one page renderer: it parses text (the page template
// named name) with funcs and the page's own extra functions, and executes
// it on view; errors name the template or the file being rendered.
func renderPage(name, text string, extra template.FuncMap, view any, file string) ([]byte, error) {
	t, err := template.New(name).Funcs(funcs).Funcs(extra).Parse(text)
	if err != nil {
		return nil, fmt.Errorf("%s template: %w", name, err)
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, view); err != nil {
		return nil, fmt.Errorf("render %s %s: %w", name, file, err)
	}
	return buf.Bytes(), nil
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
	Labels          map[string]string
	Summary         template.HTML
	Matrix          template.HTML
	TimeChart       template.HTML
	RooflineChart   template.HTML
	ConvChart       template.HTML
	XDRAMChart      template.HTML
	StageRows       []stageView
	EndToEnd        []TimingRow
	DRAM            float64
	GPUTimed        bool
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
		v, ok := number(x)
		if !ok {
			return fmt.Sprint(x)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return "—"
		}
		return fmt.Sprintf(format, v)
	},
	"pct":   func(x any) string { return percent("%.1f%%", x) },
	"yesno": yesNo,
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
	"ms": func(decimals int, x any) string { // a time in ms (Ms); F, float64 or int
		v, ok := number(x)
		if !ok {
			return fmt.Sprint(x)
		}
		return Ms(decimals, v)
	},
	"commas": commas,
	"finite": func(x float64) bool { return finite(x) },
	"short":  ShortReason,
	"colour": ImplColour,
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
		v.SkippedGPU = fmt.Sprintf("%d GPU implementations not shown: skipped on every case because %s", len(skipped), ShortReason(run.GPUSkipped))
	}
	var err error
	if v.Summary, err = SummaryHTML(run); err != nil {
		return nil, err
	}
	if v.Matrix, err = CorrectnessMatrixHTML(run); err != nil {
		return nil, err
	}
	for _, c := range []struct {
		dst   *template.HTML
		chart *Chart
	}{{&v.TimeChart, TimeChart(run)}, {&v.RooflineChart, RooflineChart(run)}, {&v.ConvChart, ConvergenceChart(run)}, {&v.XDRAMChart, XDRAMChart(run)}} {
		if c.chart == nil {
			continue
		}
		if *c.dst, err = c.chart.HTML(); err != nil {
			return nil, err
		}
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
	if run.GPU != nil {
		if th, ok := ThresholdsFor(run.GPU.ComputeCapability); ok {
			if th.Calibrated {
				v.Calibration = fmt.Sprintf("The course calibrated the %s column (Tesla T4: 95.7 GB/s against a 244.8 GB/s copy row, 0.391).", th.Column)
			} else {
				v.Calibration = fmt.Sprintf("The course left the %s column uncalibrated (no measured passing result yet); grades here are provisional.", th.Column)
				if note := CalibrationNote(run, th); note != "" {
					v.Calibration += " " + note
				}
			}
		} else {
			v.Calibration = fmt.Sprintf("The course's tier table has no column for compute capability %s.", run.GPU.ComputeCapability)
		}
	}
	v.HasTierTable = len(run.Tiers) > 0
	return v, nil
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
	s += " " + directionFinding(in/k, out/k, len(run.Top), run.Graph.Nodes)
	if low > 0 {
		s += fmt.Sprintf(" %d of them are cited less often than the average paper: PageRank counts who cites, not how often, so a paper cited by highly ranked papers (or two papers that cite each other and little else, which keeps rank circulating between them) can rank high with few citations.", low)
	}
	return s
}

// directionMargin is the factor by which one of the top-k's mean degrees
// must exceed the other before the guard reads a direction from them: 1.25
// (25 %), so rounding and a few ties on small or nearly symmetric graphs do
// not flag an edge-direction problem.
const directionMargin = 1.25

// directionFinding is the guard's verdict from the top-k's mean in- and
// out-degree (edges per node): not transposed when in > 1.25 x out,
// check the direction when out > 1.25 x in, otherwise no verdict, saying
// why (the top k are the whole graph of n nodes, so both sums are nnz; equal
// means, as on a symmetric or --undirected graph; or means too close).
func directionFinding(in, out float64, k, n int) string {
	switch {
	case k >= n:
		return fmt.Sprintf("The top %d are all %d nodes, so their in- and out-degree sums are both the edge count: the guard cannot tell the edge direction here.", k, n)
	case in == out:
		return "Equal mean in- and out-degree: the graph looks symmetric (undirected), so the guard cannot tell the edge direction."
	case in > directionMargin*out:
		return "In-degree well above out-degree: the graph is not transposed."
	case out > directionMargin*in:
		return "Out-degree dominates: check the edge direction (CITING , CITED) before trusting this ranking."
	}
	return fmt.Sprintf("Mean in- and out-degree are within a factor %.2f of each other: the guard cannot tell the edge direction.", directionMargin)
}

// number is x as a float64 when x is an F, float64, int or int64.
func number(x any) (float64, bool) {
	switch t := x.(type) {
	case F:
		return float64(t), true
	case float64:
		return t, true
	case int:
		return float64(t), true
	case int64:
		return float64(t), true
	}
	return 0, false
}

// percent writes a fraction (F or float64) as a percentage with format
// (e.g. "%.1f%%"), or "—" when it is not a finite number.
func percent(format string, x any) string {
	v, _ := number(x)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "—"
	}
	return fmt.Sprintf(format, v*100)
}
