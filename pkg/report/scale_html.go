package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"math"
	"slices"

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

type scaleView struct {
	*ScaleStudy
	EChartsJS    template.JS
	TimeChart    *chartHTML
	SpeedupChart *chartHTML
	FloorChart   *chartHTML
	Groups       []scaleGroup
}

type scaleGroup struct {
	Graph ScaleGraph
	Rows  []ScaleRow
}

// RenderScaleHTML renders s as one self-contained page (ECharts inline, no
// network requests): the goals next to the measured numbers, the plan and
// protocol, the copy rows, every graph and row, and three charts: log-log
// time per iteration vs edges, GPU/CPU speed-up vs edges (the crossover),
// and the fraction of the byte floor vs edges.
func RenderScaleHTML(s *ScaleStudy) ([]byte, error) {
	v := &scaleView{ScaleStudy: s, EChartsJS: template.JS(echartsJS)}
	for _, g := range s.Graphs {
		grp := scaleGroup{Graph: g}
		for _, r := range s.Rows {
			if r.Graph == g.Name {
				grp.Rows = append(grp.Rows, r)
			}
		}
		v.Groups = append(v.Groups, grp)
	}
	var err error
	if v.TimeChart, err = scaleChart(s, ChartScaleTime, "Time per iteration vs edges", "median ms per iteration; log-log; dashed: 2-D grid",
		"ms per iteration", func(r ScaleRow) F { return r.MsPerIter }, func(ScaleRow) bool { return true }, false); err != nil {
		return nil, err
	}
	if v.SpeedupChart, err = scaleChart(s, ChartScaleSpeedup, "GPU speed-up over the fastest multi-core CPU row vs edges",
		"CPU ms per iteration / GPU ms per iteration on the same graph; above 1 the GPU wins (the crossover)",
		"speed-up (x)", func(r ScaleRow) F { return r.SpeedupVsCPU }, func(r ScaleRow) bool { return r.Kind == KindGPU }, true); err != nil {
		return nil, err
	}
	if v.FloorChart, err = scaleChart(s, ChartScaleFloor, "Fraction of the byte floor vs edges",
		"byte-floor time / measured time per iteration (1 = moves only the compulsory bytes at copy bandwidth)",
		"fraction of floor", func(r ScaleRow) F { return r.FloorFraction }, func(ScaleRow) bool { return true }, false); err != nil {
		return nil, err
	}
	fm := template.FuncMap{"secs": func(ms float64) float64 { return ms / 1000 }}
	t, err := template.New("scale").Funcs(funcs).Funcs(fm).Parse(scaleTemplate)
	if err != nil {
		return nil, fmt.Errorf("scale template: %w", err)
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, v); err != nil {
		return nil, fmt.Errorf("render scale %s: %w", HTMLFile, err)
	}
	return buf.Bytes(), nil
}

// scaleChart draws y(row) against nnz on log axes, one series per
// implementation and family (grid series dashed). breakEven adds the y = 1
// line. It returns nil when no row has a value.
func scaleChart(s *ScaleStudy, id, title, subtitle, yName string, y func(ScaleRow) F, keep func(ScaleRow) bool, breakEven bool) (*chartHTML, error) {
	type key struct{ impl, family string }
	var keys []key
	points := map[key][]opts.LineData{}
	minX, maxX := math.Inf(1), math.Inf(-1)
	for _, r := range s.Rows {
		v := y(r)
		if r.Status != StatusPass || !keep(r) || !v.Valid() || !(v > 0) || r.NNZ <= 0 {
			continue
		}
		k := key{r.Implementation, r.Family}
		if _, ok := points[k]; !ok {
			keys = append(keys, k)
		}
		points[k] = append(points[k], opts.LineData{Value: []any{r.NNZ, sig4(float64(v))}})
		minX, maxX = math.Min(minX, float64(r.NNZ)), math.Max(maxX, float64(r.NNZ))
	}
	if len(keys) == 0 {
		return nil, nil
	}
	slices.SortStableFunc(keys, func(a, b key) int {
		if a.family != b.family {
			if a.family == FamilyRMAT {
				return -1
			}
			return 1
		}
		return 0
	})
	line := charts.NewLine()
	line.SetGlobalOptions(
		charts.WithInitializationOpts(opts.Initialization{ChartID: id, Width: "1000px", Height: "480px", Renderer: "canvas", BackgroundColor: "#ffffff"}),
		charts.WithAnimation(false),
		charts.WithTitleOpts(opts.Title{Title: title, Subtitle: subtitle}),
		charts.WithXAxisOpts(opts.XAxis{Type: "log", Name: "edges (nnz)", NameLocation: "middle", NameGap: 30}),
		charts.WithYAxisOpts(opts.YAxis{Type: "log", Name: yName}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "bottom", Type: "scroll"}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		charts.WithGridOpts(opts.Grid{Left: "80", Right: "40", Bottom: "90", Top: "80"}),
	)
	for _, k := range keys {
		name := k.impl
		style := opts.LineStyle{Width: 2}
		if k.family != FamilyRMAT {
			name += " (" + k.family + ")"
			style.Type = "dashed"
		}
		line.AddSeries(name, points[k], charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true)}),
			charts.WithLineStyleOpts(style))
	}
	if breakEven {
		line.AddSeries("break-even (1x)", []opts.LineData{{Value: []any{minX, 1}}, {Value: []any{maxX, 1}}},
			charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)}),
			charts.WithLineStyleOpts(opts.LineStyle{Type: "dotted", Color: "#888888", Width: 1}))
	}
	return renderChart(id, line)
}

// sig4 rounds x to 4 significant digits (smaller pages, same chart).
func sig4(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	p := math.Pow(10, 3-math.Floor(math.Log10(math.Abs(x))))
	return math.Round(x*p) / p
}
