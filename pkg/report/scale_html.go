package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"math"
	"slices"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

//go:embed scale.html.tmpl
var scaleTemplate string

// Chart element ids of the scale page (valid JavaScript identifiers).
const (
	ChartScaleTime    = "chart_scale_time"
	ChartScaleSpeedup = "chart_scale_speedup"
	ChartScaleFloor   = "chart_scale_floor"
)

// ScaleDrawnGPU is how many GPU designs a scale chart draws at first (the
// fastest on the largest graph of each family); the others are one legend
// click away.
const ScaleDrawnGPU = 3

type scaleView struct {
	*ScaleStudy
	EChartsJS    template.JS
	Findings     template.HTML
	TimeChart    template.HTML
	SpeedupChart template.HTML
	FloorChart   template.HTML
	CPUBaseline  template.HTML
	Groups       []scaleGroup
	SpearmanNote string
}

type scaleGroup struct {
	Graph ScaleGraph
	Rows  []ScaleRow
}

// RenderScaleHTML renders s as one self-contained page (ECharts inline, no
// network requests): the findings first, the goals next to the measured
// numbers, three charts as small multiples (R-MAT | grid: time per
// iteration, GPU/CPU speed-up, fraction of the byte floor), the plan and
// protocol, the copy rows, every graph and row.
func RenderScaleHTML(s *ScaleStudy) ([]byte, error) {
	v := &scaleView{ScaleStudy: s, EChartsJS: template.JS(echartsJS), SpearmanNote: spearmanNote}
	for _, g := range s.Graphs {
		grp := scaleGroup{Graph: g}
		for _, r := range s.Rows {
			if r.Graph == g.Name {
				grp.Rows = append(grp.Rows, r)
			}
		}
		v.Groups = append(v.Groups, grp)
	}
	v.Findings = ScaleFindingsHTML(s)
	var err error
	for _, c := range []struct {
		dst    *template.HTML
		metric ScaleMetric
	}{{&v.TimeChart, ScaleTime}, {&v.SpeedupChart, ScaleSpeedup}, {&v.FloorChart, ScaleFloor}} {
		if ch := ScaleChart(s, c.metric); ch != nil {
			if *c.dst, err = ch.HTML(); err != nil {
				return nil, err
			}
		}
	}
	if v.CPUBaseline, err = CPUBaselineHTML(s.CPUBaseline); err != nil {
		return nil, err
	}
	fm := template.FuncMap{"secs": func(ms float64) float64 { return ms / 1000 }, "reason": scaleReason}
	return renderPage("scale", scaleTemplate, fm, v, HTMLFile)
}

// spearmanNote is said once under the rows table instead of in every row
// whose reason is the near-tie Spearman note (grid rows: many ranks tie).
const spearmanNote = "ρ* marks a row whose Spearman ρ over the reference's top 100 is below the gate with every value distinct and passes with the reference's near-ties (relative gap ≤ 1e-5) counted as ties: on grids many ranks are equal up to float rounding."

// scaleReason shortens a row's reason for the table: the near-tie Spearman
// note becomes "ρ* 0.998" (spearmanNote says the rest once).
func scaleReason(r ScaleRow) string {
	const p = "Spearman rho over the reference's top 100 is "
	if strings.HasPrefix(r.Reason, p) && strings.Contains(r.Reason, "near-ties") {
		rest := strings.TrimPrefix(r.Reason, p)
		if i := strings.IndexByte(rest, ' '); i > 0 {
			return "ρ* " + rest[:i]
		}
	}
	return ShortReason(r.Reason)
}

// ScaleMetric is what a scale chart plots against nnz.
type ScaleMetric struct {
	ID, Title, Subtitle, YName string
	Y                          func(ScaleRow) F
	GPUOnly, BreakEven         bool
}

// The scale charts.
var (
	ScaleTime = ScaleMetric{ID: ChartScaleTime, Title: "Time per iteration against edges",
		Subtitle: "median ms per iteration, log-log", YName: "ms per iteration", Y: func(r ScaleRow) F { return r.MsPerIter }}
	ScaleSpeedup = ScaleMetric{ID: ChartScaleSpeedup, Title: "GPU speed-up over the fastest multi-core CPU row",
		Subtitle: "CPU ms / GPU ms per iteration, same graph and host; above the dotted 1× line the GPU wins (the crossover)",
		YName:    "speed-up (×)", Y: func(r ScaleRow) F { return r.SpeedupVsCPU }, GPUOnly: true, BreakEven: true}
	ScaleFloor = ScaleMetric{ID: ChartScaleFloor, Title: "Fraction of the byte floor",
		Subtitle: "floor time / measured time per iteration (1 = only the compulsory bytes, at copy bandwidth)",
		YName:    "fraction of floor", Y: func(r ScaleRow) F { return r.FloorFraction }}
)

// ScaleFamilies are the families s has rows for, R-MAT first.
func ScaleFamilies(s *ScaleStudy) []string {
	var out []string
	for _, f := range []string{FamilyRMAT, FamilyGrid} {
		if slices.ContainsFunc(s.Rows, func(r ScaleRow) bool { return r.Family == f }) {
			out = append(out, f)
		}
	}
	return out
}

// FamilyName is a family's name in prose ("R-MAT", "2-D grid").
func FamilyName(f string) string {
	switch f {
	case FamilyRMAT:
		return "R-MAT"
	case FamilyGrid:
		return "2-D grid"
	}
	return f
}

// ScaleDrawn is the set of implementations a scale chart draws at first:
// every CPU row and the ScaleDrawnGPU fastest GPU designs on the largest
// graph of each family (passing rows).
func ScaleDrawn(s *ScaleStudy) map[string]bool {
	drawn := map[string]bool{}
	for _, fam := range ScaleFamilies(s) {
		largest := 0
		for _, r := range s.Rows {
			if r.Family == fam && r.Kind == KindGPU && r.Status == StatusPass && r.MsPerIter > 0 {
				largest = max(largest, r.NNZ)
			}
		}
		var top []ScaleRow
		for _, r := range s.Rows {
			if r.Kind != KindGPU {
				drawn[r.Implementation] = true
			} else if r.Family == fam && r.NNZ == largest && r.Status == StatusPass && r.MsPerIter > 0 {
				top = append(top, r)
			}
		}
		slices.SortFunc(top, func(a, b ScaleRow) int { return cmpFloat(float64(a.MsPerIter), float64(b.MsPerIter)) })
		for i := 0; i < len(top) && i < ScaleDrawnGPU; i++ {
			drawn[top[i].Implementation] = true
		}
	}
	return drawn
}

// ScaleChart draws m against nnz as small multiples, one panel per family
// (R-MAT left, 2-D grid right when the study has grids, log-log; the subtitle
// names the panels only then), one series per implementation in its
// fixed colour (CPU dashed). The legend is plain (never paged), beside the
// panels; one entry toggles the implementation in every panel. Drawn at
// first: ScaleDrawn's implementations. nil when no row has a value.
func ScaleChart(s *ScaleStudy, m ScaleMetric) *Chart {
	fams := ScaleFamilies(s)
	type key struct{ impl, fam string }
	points := map[key][]opts.LineData{}
	var names []string
	kind := map[string]string{}
	minX, maxX := map[string]float64{}, map[string]float64{}
	for _, r := range s.Rows {
		v := m.Y(r)
		if r.Status != StatusPass || (m.GPUOnly && r.Kind != KindGPU) || !v.Valid() || !(v > 0) || r.NNZ <= 0 {
			continue
		}
		if !slices.Contains(names, r.Implementation) {
			names = append(names, r.Implementation)
		}
		kind[r.Implementation] = r.Kind
		k := key{r.Implementation, r.Family}
		points[k] = append(points[k], opts.LineData{Value: []any{r.NNZ, sig3(float64(v))}})
		if _, ok := minX[r.Family]; !ok {
			minX[r.Family], maxX[r.Family] = math.Inf(1), 0
		}
		minX[r.Family], maxX[r.Family] = math.Min(minX[r.Family], float64(r.NNZ)), math.Max(maxX[r.Family], float64(r.NNZ))
	}
	if len(names) == 0 {
		return nil
	}
	drawn := ScaleDrawn(s)
	selected := map[string]bool{}
	hidden := 0
	for _, n := range names {
		selected[n] = drawn[n]
		if !drawn[n] {
			hidden++
		}
	}
	const breakEven = "break-even (1×)"
	if m.BreakEven {
		selected[breakEven] = true
	}
	sub := m.Subtitle
	if len(fams) > 1 {
		sub += "; left: R-MAT, right: 2-D grid"
	}
	if hidden > 0 {
		sub += fmt.Sprintf("\ndrawn: CPU rows and the %d fastest GPU designs on the largest graphs; click the legend for the other %d", ScaleDrawnGPU, hidden)
	}
	line := charts.NewLine()
	var grids []opts.Grid
	width := 76.0 / float64(len(fams))
	for i, fam := range fams {
		// The first panel leaves 30 px for its rotated y-axis name (containLabel
		// makes room for the tick labels, not for the name).
		left := "40" // the rotated axis name's room, 44 px left of the axis (its 12 px line height half of it further out)
		if i > 0 {
			left = fmt.Sprintf("%.0f%%", 4+float64(i)*(width+1))
		}
		grids = append(grids, opts.Grid{Left: left, Width: fmt.Sprintf("%.0f%%", width-3),
			Top: "92", Bottom: "40", ContainLabel: opts.Bool(true)})
		x := opts.XAxis{Type: "log", Name: "edges (nnz), " + FamilyName(fam), NameLocation: "middle", NameGap: 26, GridIndex: i,
			AxisLabel: &opts.AxisLabel{Formatter: opts.FuncOpts(edgeLabel)},
			Min:       axisBound(math.Pow(10, math.Floor(math.Log10(minX[fam])))), Max: axisBound(math.Pow(10, math.Ceil(math.Log10(maxX[fam]))))}
		y := opts.YAxis{Type: "log", Name: m.YName, GridIndex: i, NameLocation: "middle", NameGap: 44}
		if i == 0 {
			line.SetGlobalOptions(charts.WithXAxisOpts(x), charts.WithYAxisOpts(y))
		} else {
			line.ExtendXAxis(x)
			line.ExtendYAxis(y)
		}
	}
	line.SetGlobalOptions(baseInit(), charts.WithAnimation(false),
		charts.WithTitleOpts(opts.Title{Title: fmt.Sprintf("%s (%s)", m.Title, s.Name), Subtitle: sub,
			SubtitleStyle: &opts.TextStyle{FontSize: 12, LineHeight: 17, Color: "#666666"}}),
		charts.WithGridOpts(grids...),
		charts.WithLegendOpts(plainLegend(selected, true)),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item", Formatter: opts.FuncOpts(
			"function (p) { return p.marker + p.seriesName + '<br/>' + p.value[0].toLocaleString() + ' edges: ' + p.value[1]; }")}),
	)
	for _, n := range names {
		for i, fam := range fams {
			d, ok := points[key{n, fam}]
			if !ok {
				continue
			}
			style := opts.LineStyle{Width: 2, Color: ImplColour(n)}
			if kind[n] != KindGPU {
				style.Type = "dashed"
			}
			line.AddSeries(n, d, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true), XAxisIndex: i, YAxisIndex: i}),
				charts.WithLineStyleOpts(style), charts.WithItemStyleOpts(opts.ItemStyle{Color: ImplColour(n)}))
		}
	}
	if m.BreakEven {
		for i, fam := range fams {
			line.AddSeries(breakEven, []opts.LineData{{Value: []any{minX[fam], 1}}, {Value: []any{maxX[fam], 1}}},
				charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false), XAxisIndex: i, YAxisIndex: i}),
				charts.WithLineStyleOpts(opts.LineStyle{Type: "dotted", Color: "#888888", Width: 1}),
				charts.WithItemStyleOpts(opts.ItemStyle{Color: "#888888"}))
		}
	}
	return &Chart{ID: m.ID, Height: "470px", Chart: line}
}

// edgeLabel writes an edge count on an axis as 100k, 1M, 10M, 1G.
const edgeLabel = "function (v) { return v >= 1e9 ? v / 1e9 + 'G' : v >= 1e6 ? v / 1e6 + 'M' : v >= 1e3 ? v / 1e3 + 'k' : String(v); }"

// sig3 rounds x to 3 significant digits: every chart value and label has
// the same precision (4.14, 4.54, 12.8), and pages are smaller.
func sig3(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	p := math.Pow(10, 2-math.Floor(math.Log10(math.Abs(x))))
	if r := math.Round(x*p) / p; finite(r) && r != 0 {
		return r
	}
	return x // at the ends of the float64 range rounding would overflow
}
