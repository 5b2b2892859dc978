package report

import (
	"cmp"
	_ "embed"
	"fmt"
	"html/template"
	"math"
	"slices"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/prlab/prlab/pkg/pagerank"
)

//go:embed incremental.html.tmpl
var incrementalTemplate string

// Chart element ids of the incremental page (valid JavaScript identifiers).
const (
	ChartIncrementalSpeedup    = "chart_incremental_speedup"
	ChartIncrementalIterations = "chart_incremental_iterations"
)

type incrementalView struct {
	*IncrementalStudy
	EChartsJS       template.JS
	SpeedupChart    template.HTML
	IterationsChart template.HTML
	Passed, Total   int
	Skipped         int // rows not run (a GPU tier without the CUDA library): neither pass nor fail
	Ran             int // Total - Skipped: the summary is green when all of them pass
	ByYear          []IncrementalRow
	Random          []IncrementalRow
	Titles          map[string]string // id -> title, for the movers
}

// RenderIncrementalHTML renders s as one self-contained page (ECharts
// inline, no network requests): the summary and the crossovers first, the
// speed-up vs batch size chart (log x), warm vs cold iterations per year,
// the year-by-year top-20 movers, then every batch and row with the
// protocol and environment.
func RenderIncrementalHTML(s *IncrementalStudy) ([]byte, error) {
	v := &incrementalView{IncrementalStudy: s, EChartsJS: template.JS(echartsJS), Titles: map[string]string{}}
	for _, r := range s.Rows {
		v.Total++
		switch r.Status {
		case StatusPass:
			v.Passed++
		case StatusSkipped:
			v.Skipped++
		}
		if r.BatchKind == BatchYear {
			v.ByYear = append(v.ByYear, r)
		} else {
			v.Random = append(v.Random, r)
		}
	}
	v.Ran = v.Total - v.Skipped
	for _, y := range s.Years {
		for _, t := range y.Top {
			v.Titles[t.ID] = t.Title
		}
	}
	var err error
	if v.SpeedupChart, err = incrementalSpeedupChart(s); err != nil {
		return nil, err
	}
	if v.IterationsChart, err = incrementalIterationsChart(s); err != nil {
		return nil, err
	}
	fm := template.FuncMap{
		"fracText": func(x any) string { return percent("%.3g%%", x) },
		"titleOf":  func(id string) string { return v.Titles[id] },
		"entered":  func(y YearTop, id string) bool { return slices.Contains(y.Entered, id) },
		"lastYear": func(ys []YearTop) *YearTop {
			if len(ys) == 0 {
				return nil
			}
			return &ys[len(ys)-1]
		},
	}
	return renderPage("incremental", incrementalTemplate, fm, v, HTMLFile)
}

func incrementalSpeedupChart(s *IncrementalStudy) (template.HTML, error) {
	if c := IncrementalSpeedupChart(s); c != nil {
		return c.HTML()
	}
	return "", nil
}

func incrementalIterationsChart(s *IncrementalStudy) (template.HTML, error) {
	if c := IncrementalIterationsChart(s); c != nil {
		return c.HTML()
	}
	return "", nil
}

// incrementalKindDash is the line type of a random batch kind in the
// speed-up chart; the colour is the implementation's (ImplColour).
var incrementalKindDash = map[string]string{pagerank.BatchInsert: "solid", pagerank.BatchDelete: "dashed", pagerank.BatchMixed: "dotted"}

// incrementalWorkloadSymbols are the point shapes of the workloads in the
// speed-up chart, in the order they first appear.
var incrementalWorkloadSymbols = []string{"circle", "rect", "triangle", "diamond", "roundRect", "pin"}

// IncrementalSpeedupLine is the speed-up vs batch size chart of the page
// and the notebook: every passing row's speed-up against its batch size as
// a percentage of the edges before the batch (log x, log y), one series per
// workload, batch kind and implementation (the yearly batches as points:
// years are not ordered by size), with the break-even line y = 1. A series
// has its implementation's colour (ImplColour, as in every chart), its
// batch kind's line type (insert solid, delete dashed, mixed dotted) and its
// workload's point shape. Nil when no row has a speed-up.
func IncrementalSpeedupLine(s *IncrementalStudy) *charts.Line {
	var keys, workloads []string
	impl, kind, workload := map[string]string{}, map[string]string{}, map[string]string{}
	points := map[string][]opts.LineData{}
	minX, maxX := math.Inf(1), math.Inf(-1)
	for _, r := range s.Rows {
		if r.Status != StatusPass || !r.Speedup.Valid() || !(r.Speedup > 0) || !r.Fraction.Valid() || !(r.Fraction > 0) {
			continue
		}
		k := r.Workload + " " + r.BatchKind + " · " + r.Implementation
		if r.BatchKind == BatchYear {
			k = r.Workload + " · " + r.Implementation
		}
		if _, ok := points[k]; !ok {
			keys = append(keys, k)
			impl[k], kind[k], workload[k] = r.Implementation, r.BatchKind, r.Workload
			if !slices.Contains(workloads, r.Workload) {
				workloads = append(workloads, r.Workload)
			}
		}
		x := float64(r.Fraction) * 100
		points[k] = append(points[k], opts.LineData{Value: []any{sig3(x), sig3(float64(r.Speedup))}, Name: r.Batch})
		minX, maxX = math.Min(minX, x), math.Max(maxX, x)
	}
	if len(keys) == 0 {
		return nil
	}
	line := incrementalLine(opts.Title{Title: "Speed-up of update + warm start over a cold recompute, vs batch size",
		Subtitle: "(rebuild + upload + cold iterations) / (update + warm iterations); above 1 the incremental path wins; log-log"},
		opts.XAxis{Type: "log", Name: "batch size (% of the edges before the batch)", NameLocation: "middle", NameGap: 30},
		opts.YAxis{Type: "log", Name: "speed-up (x)"}, "item")
	for _, k := range keys {
		pts := points[k]
		slices.SortStableFunc(pts, func(a, b opts.LineData) int {
			return cmp.Compare(a.Value.([]any)[0].(float64), b.Value.([]any)[0].(float64))
		})
		colour := ImplColour(impl[k])
		style := opts.LineStyle{Width: 2, Color: colour, Type: incrementalKindDash[kind[k]]}
		symbol := incrementalWorkloadSymbols[slices.Index(workloads, workload[k])%len(incrementalWorkloadSymbols)]
		lineOpts := opts.LineChart{ShowSymbol: opts.Bool(true), Symbol: symbol}
		if len(pts) > 0 && pts[0].Name != "" && isYearSeries(k, s) {
			style.Opacity = opts.Float(0) // years are not ordered by size: points only
		}
		line.AddSeries(k, pts, charts.WithLineChartOpts(lineOpts), charts.WithLineStyleOpts(style),
			charts.WithItemStyleOpts(opts.ItemStyle{Color: colour}))
	}
	line.AddSeries("break-even (1x)", []opts.LineData{{Value: []any{minX, 1}}, {Value: []any{maxX, 1}}},
		charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)}),
		charts.WithLineStyleOpts(opts.LineStyle{Type: "dotted", Color: "#888888", Width: 1}),
		charts.WithItemStyleOpts(opts.ItemStyle{Color: "#888888"}))
	return line
}

func isYearSeries(key string, s *IncrementalStudy) bool {
	w := workloadOfYears(s)
	return w != "" && len(key) > len(w) && key[:len(w)] == w
}

// IncrementalIterationsLine is the page's and the notebook's chart of warm
// and cold iterations per year of the by-year workload, one pair of series
// per implementation in its colour (ImplColour): warm solid, cold dashed.
// Nil without years.
func IncrementalIterationsLine(s *IncrementalStudy) *charts.Line {
	var years []int
	seen := map[int]bool{}
	var impls []string
	warm, cold := map[string]map[int]int{}, map[string]map[int]int{}
	for _, r := range s.Rows {
		if r.BatchKind != BatchYear || r.Status == StatusSkipped || r.Status == StatusFailed {
			continue
		}
		if !seen[r.Year] {
			seen[r.Year] = true
			years = append(years, r.Year)
		}
		if warm[r.Implementation] == nil {
			impls = append(impls, r.Implementation)
			warm[r.Implementation], cold[r.Implementation] = map[int]int{}, map[int]int{}
		}
		warm[r.Implementation][r.Year], cold[r.Implementation][r.Year] = r.WarmIterations, r.ColdIterations
	}
	if len(years) == 0 {
		return nil
	}
	x := make([]string, len(years))
	for i, y := range years {
		x[i] = fmt.Sprint(y)
	}
	line := incrementalLine(opts.Title{Title: "Iterations to converge after each year's batch: warm start vs cold start",
		Subtitle: "L1 residual under the implementation's tolerance; warm = from the previous year's ranks, new papers 1/n, rescaled to sum 1"},
		opts.XAxis{Type: "category", Name: "year", NameLocation: "middle", NameGap: 30},
		opts.YAxis{Type: "value", Name: "iterations"}, "axis")
	line.SetXAxis(x)
	for _, im := range impls {
		for _, side := range []struct {
			name string
			m    map[int]int
			dash string
		}{{"warm", warm[im], "solid"}, {"cold", cold[im], "dashed"}} {
			pts := make([]opts.LineData, len(years))
			for i, y := range years {
				pts[i] = opts.LineData{Value: side.m[y]}
			}
			line.AddSeries(im+" "+side.name, pts, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true)}),
				charts.WithLineStyleOpts(opts.LineStyle{Width: 2, Type: side.dash, Color: ImplColour(im)}),
				charts.WithItemStyleOpts(opts.ItemStyle{Color: ImplColour(im)}))
		}
	}
	return line
}

// incrementalLine is a line chart with the incremental page's common
// options: canvas, no animation, legend under the plot, tooltip by trigger.
func incrementalLine(title opts.Title, x opts.XAxis, y opts.YAxis, trigger string) *charts.Line {
	line := charts.NewLine()
	line.SetGlobalOptions(
		charts.WithInitializationOpts(opts.Initialization{Renderer: "canvas", BackgroundColor: "#ffffff"}),
		charts.WithAnimation(false),
		charts.WithTitleOpts(title),
		charts.WithXAxisOpts(x),
		charts.WithYAxisOpts(y),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "bottom", Type: "plain"}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: trigger}),
		charts.WithGridOpts(opts.Grid{Left: "80", Right: "40", Bottom: "140", Top: "80"}),
	)
	return line
}
