package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/prlab/prlab/pkg/pagerank"
)

// Chart element ids of index.html (valid JavaScript identifiers).
const (
	ChartTime        = "chart_time"
	ChartRoofline    = "chart_roofline"
	ChartConvergence = "chart_convergence"
	ChartXDRAM       = "chart_xdram"
)

// chartWidth is the width (px) the charts are laid out for; they stretch to
// their container up to it.
const chartWidth = 1000

func baseInit() charts.GlobalOpts {
	return charts.WithInitializationOpts(opts.Initialization{Renderer: "canvas", BackgroundColor: "#ffffff"})
}

// plainLegend is a legend that never pages: vertical at the right of the
// plot (the grid leaves legendRoom px for it) or a wrapped row under it.
func plainLegend(selected map[string]bool, side bool) opts.Legend {
	l := opts.Legend{Show: opts.Bool(true), Type: "plain", TextStyle: &opts.TextStyle{FontSize: 11}, Selected: selected}
	if side {
		l.Orient, l.Right, l.Top = "vertical", "6", "60"
	} else {
		l.Bottom, l.Left = "4", "center"
	}
	return l
}

const legendRoom = 215

// sideLegendHeight is the CSS height of a chart whose plain vertical legend
// of entries lines sits beside the plot: tall enough for one column of them
// (26 px a line, 110 px of title and axis), so the legend never wraps into a
// second column over the plot; at least 460 px.
func sideLegendHeight(entries int) string {
	return fmt.Sprintf("%dpx", max(460, 110+26*entries))
}

// TimeChart is the median time per iteration of every timed implementation
// on the real graph, µs, sorted fastest first, on a log axis (CPU and GPU
// rows differ by two decades), each bar in its implementation's fixed colour
// (ImplColour), CPU rows tagged "(CPU)" in their label. nil when no row was
// timed.
func TimeChart(run *Run) *Chart {
	type row struct {
		name, kind string
		us         float64
	}
	var rows []row
	for _, t := range run.Timings {
		if us := t.Timing.MsPerIteration() * 1000; t.Status == StatusPass && us > 0 && finite(us) {
			rows = append(rows, row{t.Implementation, t.Kind, us})
		}
	}
	if len(rows) == 0 {
		return nil
	}
	slices.SortStableFunc(rows, func(a, b row) int { return cmpFloat(a.us, b.us) })
	// A bar on an ECharts log axis starts at 1, so the unit keeps every value
	// at or above 1: µs, or ns when some row is under a microsecond.
	unit, scale := "µs", 1.0
	if rows[0].us < 1 {
		unit, scale = "ns", 1000
	}
	names := make([]string, len(rows))
	data := make([]opts.BarData, len(rows))
	lo, hi := math.Inf(1), 0.0
	for i, r := range rows {
		v := r.us * scale
		names[i] = r.name + kindTag(r.kind)
		data[i] = opts.BarData{Value: sig3(v), ItemStyle: &opts.ItemStyle{Color: ImplColour(r.name)}}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	bar := charts.NewBar()
	bar.SetGlobalOptions(baseInit(), charts.WithAnimation(false),
		charts.WithTitleOpts(opts.Title{Title: "Time per iteration on " + run.Graph.Name + ", fastest first",
			Subtitle: fmt.Sprintf("median of %d runs of %d iterations, %s per iteration, log axis; each implementation has its own colour, the same in every chart", run.Protocol.Runs, run.Protocol.TimingIterations, unit)}),
		charts.WithXAxisOpts(opts.XAxis{Type: "log", Name: unit + " per iteration (log)", NameLocation: "middle", NameGap: 26,
			Min: axisBound(math.Pow(10, math.Floor(math.Log10(lo)))), Max: axisBound(math.Pow(10, math.Ceil(math.Log10(hi*1.5))))}),
		charts.WithYAxisOpts(opts.YAxis{Type: "category", Data: names, Inverse: opts.Bool(true), AxisLabel: &opts.AxisLabel{Interval: "0"}}),
		charts.WithGridOpts(opts.Grid{Left: "10", Right: "70", Top: "62", Bottom: "40", ContainLabel: opts.Bool(true)}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}),
	)
	bar.AddSeries(unit+" per iteration", data, charts.WithLabelOpts(opts.Label{Show: opts.Bool(true), Position: "right", Formatter: "{c}"}))
	return &Chart{ID: ChartTime, Height: fmt.Sprintf("%dpx", 110+22*len(rows)), Chart: bar}
}

// kindTag marks a bar's label with its kind when the name does not say it
// ("t1-multicore-f32 (CPU)"); GPU rows are named gpu-….
func kindTag(kind string) string {
	switch kind {
	case KindCPU:
		return " (CPU)"
	case KindExercise:
		return " (exercise)"
	}
	return ""
}

// axisBound is x as an axis bound, or nil (automatic) when x is not finite.
func axisBound(x float64) any {
	if !finite(x) || x == 0 {
		return nil
	}
	return x
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// RooflineChart puts every timed GPU design at (bytes per iteration, µs per
// iteration) on log-log axes, against the measured ceilings: the time the
// bytes take at the 128 MiB copy row's rate (DRAM) and at the one-iteration
// copy row's rate (L2-resident), one empty kernel launch, and one
// grid.sync(); a hollow marker under each design is its own launch +
// barrier floor (Floor). A design on a ceiling is bound by it. Each design's
// point is labelled with its name: the one-launch designs share one column
// of bytes, so rooflineLabelSides alternates the sides in a column and the
// browser moves a name that would still overlap another
// (rooflineLabelLayout). The time axis starts at the decade under the
// lowest point or line. nil without a timed GPU row or copy rows.
func RooflineChart(run *Run) *Chart {
	c := MeasuredCeilings(run)
	var rows []TimingRow
	for _, t := range run.Timings {
		if us := t.Timing.MsPerIteration(); t.Kind == KindGPU && t.Status == StatusPass && t.BytesPerIteration > 0 && us > 0 && finite(us*1000) {
			rows = append(rows, t)
		}
	}
	if len(rows) == 0 || !(c.DRAMGBps > 0) || !finite(c.DRAMGBps) {
		return nil
	}
	loB, hiB, loT, hiT := math.Inf(1), 0.0, math.Inf(1), 0.0
	for _, t := range rows {
		b, us := float64(t.BytesPerIteration), t.Timing.MsPerIteration()*1000
		loB, hiB, loT, hiT = math.Min(loB, b), math.Max(hiB, b), math.Min(loT, us), math.Max(hiT, us)
	}
	x0, x1 := sig3(loB/2), sig3(hiB*2)
	// The time axis starts at the decade below the lowest point or
	// horizontal line (a floor marker, one launch, one grid.sync()), not at
	// the DRAM line's far left end: the decades the points use get the room.
	for _, t := range rows {
		if f := c.DesignFloor(t); f.LaunchUs+f.BarrierUs > 0 {
			loT = math.Min(loT, f.LaunchUs+f.BarrierUs)
		}
	}
	for _, us := range []float64{c.LaunchUs, c.GridSyncUs} {
		if us > 0 && finite(us) {
			loT = math.Min(loT, us)
		}
	}
	y0 := math.Pow(10, math.Floor(math.Log10(loT)))
	sc := charts.NewScatter()
	sc.SetGlobalOptions(baseInit(), charts.WithAnimation(false),
		charts.WithTitleOpts(opts.Title{Title: "Roofline: bytes per iteration against time per iteration (GPU)",
			Subtitle: "log-log; lines: the measured ceilings; hollow marker under a design: its launches × launch cost + barrier"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "log", Name: "bytes per iteration (log)", NameLocation: "middle", NameGap: 28, Min: axisBound(x0), Max: axisBound(x1),
			AxisLabel: &opts.AxisLabel{Formatter: opts.FuncOpts("function (v) { return (v / 1e6).toPrecision(2) + ' MB'; }")}}),
		charts.WithYAxisOpts(opts.YAxis{Type: "log", Name: "µs per iteration (log)", NameLocation: "middle", NameGap: 36, Min: axisBound(y0)}),
		// containLabel does not count the axis name: Left leaves it room.
		charts.WithGridOpts(opts.Grid{Left: "48", Right: fmt.Sprint(legendRoom), Top: "70", Bottom: "44", ContainLabel: opts.Bool(true)}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item", Formatter: opts.FuncOpts(
			"function (p) { var v = p.value; return p.marker + p.seriesName + '<br/>' + (v[2] || '') + (v[2] ? '<br/>' : '') + v[0].toLocaleString() + ' bytes, ' + v[1] + ' µs'; }")}),
		charts.WithLegendOpts(plainLegend(nil, true)),
	)
	side := rooflineLabelSides(rows)
	for i, t := range rows {
		f := c.DesignFloor(t)
		colour := charts.WithItemStyleOpts(opts.ItemStyle{Color: ImplColour(t.Implementation)})
		// Several one-launch designs move the same bytes within a few µs of
		// each other: each measured point carries its design's name, on
		// alternating sides within a column of equal bytes.
		sc.AddSeries(t.Implementation, []opts.ScatterData{{Value: []any{t.BytesPerIteration, sig3(f.MeasuredUs), "bound: " + f.Bound}, SymbolSize: 13}}, colour,
			charts.WithLabelOpts(opts.Label{Show: opts.Bool(true), Position: side[i], FontSize: 10, Color: ImplColour(t.Implementation), Formatter: "{a}",
				BackgroundColor: "rgba(255,255,255,0.85)"}), // readable over a ceiling line
			charts.WithLabelLineOpts(opts.LabelLine{Show: opts.Bool(true), LineStyle: &opts.LineStyle{Width: 1, Color: ImplColour(t.Implementation)}}))
		// Its floor marker: a second series of the same name (the legend
		// shows and hides both), unlabelled.
		if fl := f.LaunchUs + f.BarrierUs; fl > 0 && finite(fl) {
			sc.AddSeries(t.Implementation, []opts.ScatterData{{Value: []any{t.BytesPerIteration, sig3(fl), "its launch + barrier floor"}, Symbol: "emptyTriangle", SymbolSize: 9}}, colour)
		}
	}
	ceil := func(name, colour, dash string, pts [][2]float64) {
		var d []opts.ScatterData
		for _, p := range pts {
			if finite(p[0]) && finite(p[1]) && p[1] > 0 {
				d = append(d, opts.ScatterData{Value: []any{p[0], sig3(p[1]), name}})
			}
		}
		if len(d) == 0 {
			return
		}
		sc.AddSeries(name, d, charts.WithSeriesOpts(func(s *charts.SingleSeries) { s.Type = "line" }),
			charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)}),
			charts.WithLineStyleOpts(opts.LineStyle{Color: colour, Type: dash, Width: 1.5}),
			charts.WithItemStyleOpts(opts.ItemStyle{Color: colour}))
	}
	rate := func(gbps float64) [][2]float64 {
		return [][2]float64{{x0, x0 / (gbps * 1e3)}, {x1, x1 / (gbps * 1e3)}}
	}
	ceil(fmt.Sprintf("DRAM copy rate (%.0f GB/s)", c.DRAMGBps), "#444444", "solid", rate(c.DRAMGBps))
	if c.IterCopyGBps > 0 && finite(c.IterCopyGBps) {
		ceil(fmt.Sprintf("one-iteration copy (L2, %.0f GB/s)", c.IterCopyGBps), "#888888", "dashed", rate(c.IterCopyGBps))
	}
	if c.LaunchUs > 0 {
		ceil(fmt.Sprintf("one kernel launch (%.2f µs)", c.LaunchUs), "#c0392b", "dotted", [][2]float64{{x0, c.LaunchUs}, {x1, c.LaunchUs}})
	}
	if c.GridSyncUs > 0 {
		ceil(fmt.Sprintf("one grid.sync() (%.2f µs)", c.GridSyncUs), "#e67e22", "dotted", [][2]float64{{x0, c.GridSyncUs}, {x1, c.GridSyncUs}})
	}
	return &Chart{ID: ChartRoofline, Height: sideLegendHeight(len(rows) + 4), Chart: sc,
		OptionJS: strings.ReplaceAll(rooflineLabelLayout, "LEGEND_ROOM", fmt.Sprint(legendRoom))}
}

// rooflineLabelLayout gives every labelled series of the roofline a
// labelLayout function (ECharts 5) that places the names one by one in
// series order, in the browser's own text boxes: at the side
// rooflineLabelSides chose if that box is free, else the other side, else
// one label height further up or down (alternating, up to 12 steps), the
// first box that overlaps no name placed before and no point drawn before;
// a moved name keeps a leader line (labelLine) to its point. No name
// enters the legend's room (legendRoom px at the right). Several designs
// share a byte count (the one-launch designs: one column of points a few µs
// apart), and names of neighbouring columns reach into each other, so a
// fixed side alone lets names print over each other. The boxes are kept per
// layout pass: a pass begins where a label is laid out a second time
// (resize, legend click).
const rooflineLabelLayout = `(function () {
  var placed = null, right = Infinity; // right: where the legend's room begins, px
  // points: the box of every marker of the scatter series shown, in pixels.
  function points() {
    var out = [], el = document.getElementById(id), chart = el && window.echarts.getInstanceByDom(el);
    if (!chart) { return out; }
    right = chart.getWidth() - LEGEND_ROOM;
    var shown = (chart.getOption().legend || [{}])[0].selected || {};
    option.series.forEach(function (s, i) {
      if (s.type !== 'scatter' || shown[s.name] === false) { return; }
      (s.data || []).forEach(function (d) {
        var xy = chart.convertToPixel({seriesIndex: i}, d.value.slice(0, 2)), z = (d.symbolSize || 10) / 2;
        if (xy && isFinite(xy[0]) && isFinite(xy[1])) { out.push({x: xy[0] - z, y: xy[1] - z, w: 2 * z, h: 2 * z}); }
      });
    });
    return out;
  }
  function layout(p) {
    var k = p.seriesIndex + '/' + p.dataIndex;
    if (!placed || placed.seen[k]) { placed = {seen: {}, boxes: points()}; }
    placed.seen[k] = true;
    var boxes = placed.boxes, r = p.rect, l = p.labelRect, w = l.width, h = l.height, gap = 5;
    function free(x, y) {
      if (x < 0 || y < 0 || x + w > right) { return false; }
      for (var i = 0; i < boxes.length; i++) {
        var b = boxes[i];
        if (x < b.x + b.w && b.x < x + w && y < b.y + b.h && b.y < y + h) { return false; }
      }
      return true;
    }
    var onRight = l.x >= r.x + r.width / 2, y0 = r.y + r.height / 2 - h / 2;
    var xs = onRight ? [r.x + r.width + gap, r.x - w - gap] : [r.x - w - gap, r.x + r.width + gap];
    if (free(l.x, l.y)) { boxes.push({x: l.x, y: l.y, w: w, h: h}); return {}; }
    for (var s = 0; s < 25; s++) {
      var y = y0 + (s % 2 ? -1 : 1) * Math.ceil(s / 2) * (h + 1);
      for (var j = 0; j < 2; j++) {
        if (free(xs[j], y)) {
          boxes.push({x: xs[j], y: y, w: w, h: h});
          return {x: xs[j], y: y, align: 'left', verticalAlign: 'top'};
        }
      }
    }
    boxes.push({x: l.x, y: l.y, w: w, h: h});
    return {};
  }
  option.series.forEach(function (s) {
    if (s.label && s.label.show) { s.labelLayout = layout; }
    if (s.type === 'line') { s.z = 1; } // the ceilings under the points and their names
  });
})();`

// rooflineLabelSides is the side ("right" or "left") of each row's name
// label on the roofline: rows with the same bytes per iteration stand in one
// column, and within it, fastest first, the names alternate right, left,
// right, so two designs a few µs apart do not print over each other.
func rooflineLabelSides(rows []TimingRow) []string {
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmpFloat(rows[a].Timing.MsPerIteration(), rows[b].Timing.MsPerIteration())
	})
	seen := map[int64]int{}
	side := make([]string, len(rows))
	for _, i := range order {
		side[i] = [2]string{"right", "left"}[seen[rows[i].BytesPerIteration]%2]
		seen[rows[i].BytesPerIteration]++
	}
	return side
}

// ConvergenceChart is the L1 residual per iteration of every tolerance-mode
// run on the real graph, one line per implementation in its fixed colour.
// ECharts' log axis labels only every power of 10 of the exponent, so the
// series are log10(residual) on a value axis labelled 1e<k>. With more than
// 8 lines only the CPU lines and the best GPU design are drawn at first; the
// legend (plain, one column beside the plot, the chart as tall as it needs:
// sideLegendHeight) adds any other with one click. nil when no run produced
// residuals.
func ConvergenceChart(run *Run) *Chart {
	kinds := map[string]string{}
	for _, im := range run.Implementations {
		kinds[im.Name] = im.Kind
	}
	best := ""
	if s := Summarize(run); s.BestGPU != nil {
		best = s.BestGPU.Implementation
	}
	line := charts.NewLine()
	minRes, maxRes := math.Inf(1), math.Inf(-1)
	var names []string
	type series struct {
		name string
		data []opts.LineData
	}
	var ss []series
	for _, r := range run.Results {
		if r.Case != run.Graph.Name || r.Mode != pagerank.Tolerance || len(r.Residuals) == 0 {
			continue
		}
		data := make([]opts.LineData, 0, len(r.Residuals))
		for k, x := range r.Residuals {
			if x > 0 && finite(x) {
				minRes, maxRes = math.Min(minRes, x), math.Max(maxRes, x)
				data = append(data, opts.LineData{Value: []any{k + 1, sig3(math.Log10(x))}})
			}
		}
		names = append(names, r.Implementation)
		ss = append(ss, series{r.Implementation, data})
	}
	if len(ss) == 0 {
		return nil
	}
	selected := map[string]bool{}
	hidden := 0
	if len(names) > 8 {
		for _, n := range names {
			selected[n] = kinds[n] != KindGPU || n == best
			if !selected[n] {
				hidden++
			}
		}
	}
	sub := "‖x_{k+1} − x_k‖₁, tolerance mode, log scale; a line that coincides with another hides it (the tooltip lists every value)"
	top := "70"
	if hidden > 0 {
		sub += fmt.Sprintf("\ndrawn: CPU rows and the fastest GPU (%s); click the legend for the other %d", best, hidden)
		top = "86"
	}
	// Ticks every step decades, the axis ends on ticks (a bound between
	// ticks would print its label over the neighbouring tick's).
	lo, hi := math.Floor(math.Log10(minRes)), math.Ceil(math.Log10(maxRes))
	step := math.Ceil((hi - lo) / 5)
	if !(step >= 1) || !finite(step) { // also no positive residual at all (lo, hi infinite)
		step = 1
	}
	lo, hi = math.Floor(lo/step)*step, math.Ceil(hi/step)*step
	side := len(names) > 8
	line.SetGlobalOptions(baseInit(), charts.WithAnimation(false),
		charts.WithTitleOpts(opts.Title{Title: "L1 residual per iteration on " + run.Graph.Name, Subtitle: sub, SubtitleStyle: &opts.TextStyle{LineHeight: 16}}),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: "iteration", NameLocation: "middle", NameGap: 26, Min: 1}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Name: "L1 residual", Min: axisBound(lo), Max: axisBound(hi),
			MinInterval: step, MaxInterval: step, AxisLabel: &opts.AxisLabel{Formatter: opts.FuncOpts("function (v) { return '1e' + v; }")}}),
		charts.WithLegendOpts(plainLegend(selected, side)),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis", Formatter: opts.FuncOpts(`function (ps) {
  if (!Array.isArray(ps)) { ps = [ps]; }
  var s = 'iteration ' + ps[0].value[0];
  ps.forEach(function (p) { s += '<br/>' + p.marker + p.seriesName + ': ' + Math.pow(10, p.value[1]).toExponential(3); });
  return s;
}`)}),
		charts.WithGridOpts(opts.Grid{Left: "20", Right: rightRoom(side), Top: top, Bottom: bottomRoom(side, len(names)), ContainLabel: opts.Bool(true)}),
	)
	for _, x := range ss {
		style := opts.LineStyle{Width: 2, Color: ImplColour(x.name)}
		if kinds[x.name] != KindGPU {
			style.Type = "dashed"
		}
		line.AddSeries(x.name, x.data, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)}),
			charts.WithLineStyleOpts(style), charts.WithItemStyleOpts(opts.ItemStyle{Color: ImplColour(x.name)}))
	}
	height := "460px"
	if side {
		height = sideLegendHeight(len(names))
	}
	return &Chart{ID: ChartConvergence, Height: height, Chart: line}
}

func rightRoom(side bool) string {
	if side {
		return fmt.Sprint(legendRoom)
	}
	return "40"
}

func bottomRoom(side bool, n int) string {
	if side {
		return "40"
	}
	return fmt.Sprint(50 + 20*((n+5)/6))
}

// XDRAMChart is each stage's effective bandwidth as a fraction of the 128
// MiB DRAM copy row (x DRAM), one bar per stage (0-byte primitives left
// out), with the copy rows as marked lines (DRAM = 1, and the copy of one
// iteration's bytes); the axis is logarithmic when the values span more than
// a decade. stages are the course's stage table when the run timed every
// stage alone, else each design's own stages. nil without stages.
func XDRAMChart(run *Run) *Chart {
	type bar struct {
		name, impl string
		x          float64
	}
	var bars []bar
	if len(run.Stages) > 0 {
		for _, s := range run.Stages {
			bars = append(bars, bar{s.Name, "", s.XDRAM})
		}
	} else {
		for _, t := range run.Timings {
			if t.Kind == KindGPU {
				for _, s := range t.Stages {
					bars = append(bars, bar{t.Implementation + ": " + s.Name, t.Implementation, s.XDRAM})
				}
			}
		}
	}
	var names []string
	var impls []string
	data := map[string][]opts.ScatterData{}
	lo, hi := math.Inf(1), 0.0
	for _, b := range bars {
		if !(b.x > 0) || !finite(b.x) {
			continue
		}
		names = append(names, b.name)
		if _, ok := data[b.impl]; !ok {
			impls = append(impls, b.impl)
		}
		data[b.impl] = append(data[b.impl], opts.ScatterData{Value: []any{sig3(b.x), len(names) - 1}, Symbol: "rect", SymbolSize: 11})
		lo, hi = math.Min(lo, b.x), math.Max(hi, b.x)
	}
	if len(names) == 0 {
		return nil
	}
	marks := []opts.MarkLineNameXAxisItem{{Name: "DRAM copy (1)", XAxis: 1}}
	hi = math.Max(hi, 1)
	for _, s := range run.CopyRows {
		if s.XDRAM > 0 && s.XDRAM < 1 {
			marks = append(marks, opts.MarkLineNameXAxisItem{Name: fmt.Sprintf("one-iteration copy (%.3g)", s.XDRAM), XAxis: sig3(s.XDRAM)})
			lo = math.Min(lo, s.XDRAM)
		}
	}
	// A dot per stage: on a log axis a bar would start at 1, not at the axis minimum.
	axis := opts.XAxis{Type: "value", Name: "x DRAM", NameLocation: "middle", NameGap: 26, Min: 0, Max: 1.05}
	if hi/lo > 10 {
		axis = opts.XAxis{Type: "log", Name: "x DRAM (log)", NameLocation: "middle", NameGap: 26,
			Min: axisBound(math.Pow(10, math.Floor(math.Log10(lo)))), Max: 1}
	}
	b := charts.NewScatter()
	b.SetGlobalOptions(baseInit(), charts.WithAnimation(false),
		charts.WithTitleOpts(opts.Title{Title: "Effective bandwidth per stage, x DRAM",
			Subtitle: "stage GB/s over the 128 MiB device-to-device copy row, one dot per stage; dashed: the copy rows"}),
		charts.WithXAxisOpts(axis),
		charts.WithYAxisOpts(opts.YAxis{Type: "category", Data: names, Inverse: opts.Bool(true), AxisLabel: &opts.AxisLabel{Interval: "0", FontSize: 11},
			SplitLine: &opts.SplitLine{Show: opts.Bool(true), LineStyle: &opts.LineStyle{Color: "#eeeeee"}}}),
		charts.WithGridOpts(opts.Grid{Left: "10", Right: "70", Top: "84", Bottom: "40", ContainLabel: opts.Bool(true)}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item", Formatter: opts.FuncOpts("function (p) { return p.marker + p.seriesName + ': ' + p.value[0] + ' x DRAM'; }")}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}),
	)
	for i, im := range impls {
		colour, name := ColourGPU, "stage alone"
		if im != "" {
			colour, name = ImplColour(im), im
		}
		so := []charts.SeriesOpts{charts.WithLabelOpts(opts.Label{Show: opts.Bool(true), Position: "right", FontSize: 11, Formatter: "{@[0]}"}),
			charts.WithItemStyleOpts(opts.ItemStyle{Color: colour})}
		if i == 0 {
			so = append(so, charts.WithMarkLineNameXAxisItemOpts(marks...),
				charts.WithMarkLineStyleOpts(opts.MarkLineStyle{Symbol: []string{"none", "none"},
					Label:     &opts.Label{Show: opts.Bool(true), Formatter: "{b}", Position: "start", FontSize: 11},
					LineStyle: &opts.LineStyle{Color: "#444444", Type: "dashed", Width: 1.5}}))
		}
		b.AddSeries(name, data[im], so...)
	}
	// 22 px per row and 140 for the title, the axis and the grid's margins: a row's 11 px label (13 px tall as
	// a browser with a CJK font measures it) keeps clear of its neighbours' also with 3 rows.
	return &Chart{ID: ChartXDRAM, Height: fmt.Sprintf("%dpx", 140+22*len(names)), Chart: b}
}
