package nb

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/prlab/prlab/pkg/pagerank"
	"github.com/prlab/prlab/pkg/reference"
	"github.com/prlab/prlab/pkg/report"
)

// ScaleGraph describes one generated graph of the scale study's families
// (Graph500 R-MAT, 2-D grid): its shape and degree skew.
type ScaleGraph struct {
	Name       string      `json:"name"`
	Family     string      `json:"family"` // "rmat" or "grid"
	Scale      int         `json:"scale"`  // log2 n for R-MAT; 0 for the grid
	N          int         `json:"n"`
	NNZ        int         `json:"nnz"`
	Generated  int         `json:"generated"` // edges generated before dropping
	SelfLoops  int         `json:"self_loops"`
	Duplicates int         `json:"duplicates"`
	Dangling   int         `json:"dangling"`
	MaxInDeg   int         `json:"max_in_degree"`
	MeanDeg    float64     `json:"mean_degree"`
	GenerateMs float64     `json:"generate_ms"` // generation + CSR build + transpose, wall clock
	BytesPerIt int64       `json:"bytes_per_iteration_f32"`
	Smoke      []SmokeTime `json:"smoke,omitempty"`
}

// SmokeTime is a quick wall-clock time of one CPU implementation on one
// generated graph: Iterations fixed iterations, the best of Repeats runs. It
// is a smoke run on this machine, not the study's timing protocol.
type SmokeTime struct {
	Implementation string  `json:"implementation"`
	Iterations     int     `json:"iterations"`
	Repeats        int     `json:"repeats"`
	MsPerIteration float64 `json:"ms_per_iteration"`
	GTEPS          float64 `json:"gteps"` // nnz / time per iteration / 1e9
}

// ScaleGraphs generates Graph500 R-MAT graphs at the given scales (seed 1)
// and a side x side 2-D grid (side 0: none), and, when iterations > 0, times
// T0 and T1 (float32) on each with a quick wall-clock smoke run (best of 3).
func ScaleGraphs(scales []int, gridSide, iterations int) ([]ScaleGraph, error) {
	var out []ScaleGraph
	describe := func(g *pagerank.Graph, family string, scale, generated int, ms float64) ScaleGraph {
		s := ScaleGraph{Name: g.Name, Family: family, Scale: scale, N: g.N, NNZ: g.NNZ, Generated: generated,
			SelfLoops: g.SelfLoops, Duplicates: g.Duplicates, Dangling: g.DanglingCount, GenerateMs: ms,
			MeanDeg: float64(g.NNZ) / float64(g.N)}
		for v := 0; v < g.N; v++ {
			s.MaxInDeg = max(s.MaxInDeg, g.InDegree(v))
		}
		// One float32 pull iteration, minimal traffic: row pointer 4(n+1),
		// column index 4 nnz, gathered contributions 4 nnz (at best), x and
		// x' 8n, inverse out-degree 4n, dangling mask n.
		s.BytesPerIt = int64(4*(g.N+1) + 8*g.NNZ + 12*g.N + g.N)
		return s
	}
	for _, sc := range scales {
		start := time.Now()
		g, err := pagerank.RMAT(pagerank.Graph500RMAT(sc, 1))
		if err != nil {
			return nil, err
		}
		s := describe(g, "rmat", sc, 16<<sc, float64(time.Since(start).Microseconds())/1e3)
		if iterations > 0 {
			s.Smoke = smoke(g, iterations)
		}
		out = append(out, s)
	}
	if gridSide > 0 {
		start := time.Now()
		g, err := pagerank.Grid2D(gridSide)
		if err != nil {
			return nil, err
		}
		s := describe(g, "grid", 0, g.NNZ, float64(time.Since(start).Microseconds())/1e3)
		if iterations > 0 {
			s.Smoke = smoke(g, iterations)
		}
		out = append(out, s)
	}
	return out, nil
}

func smoke(g *pagerank.Graph, iterations int) []SmokeTime {
	impls := []pagerank.Implementation{reference.Oracle(), reference.Multicore(pagerank.Float32, 0)}
	var out []SmokeTime
	for _, im := range impls {
		best := math.Inf(1)
		const repeats = 3
		for r := 0; r < repeats; r++ {
			start := time.Now()
			if _, err := im.Run(g, pagerank.Fixed(iterations)); err != nil {
				best = math.NaN()
				break
			}
			best = min(best, float64(time.Since(start).Nanoseconds())/1e6)
		}
		per := best / float64(iterations)
		out = append(out, SmokeTime{Implementation: im.Name(), Iterations: iterations, Repeats: repeats,
			MsPerIteration: per, GTEPS: float64(g.NNZ) / (per * 1e-3) / 1e9})
	}
	return out
}

// ScaleTable renders ScaleGraphs' result.
func ScaleTable(gs []ScaleGraph) string {
	t := &Table{
		Caption: "Generated graphs (Graph500 R-MAT a=0.57, b=0.19, c=0.19, edge factor 16, seed 1; and a 2-D grid)",
		Header:  []string{"graph", "n", "edges generated", "nnz kept", "self-loops", "duplicates", "dangling", "mean degree", "max in-degree", "f32 bytes / iteration (floor)", "generate ms"},
	}
	for _, g := range gs {
		t.Add("", g.Name, fmt.Sprint(g.N), fmt.Sprint(g.Generated), fmt.Sprint(g.NNZ), fmt.Sprint(g.SelfLoops), fmt.Sprint(g.Duplicates),
			fmt.Sprint(g.Dangling), fmt.Sprintf("%.2f", g.MeanDeg), fmt.Sprint(g.MaxInDeg), fmt.Sprint(g.BytesPerIt), fmt.Sprintf("%.1f", g.GenerateMs))
	}
	return t.HTML()
}

// SmokeTable renders the smoke timings of ScaleGraphs.
func SmokeTable(gs []ScaleGraph) string {
	t := &Table{
		Caption: "Smoke timings on this machine (wall clock, best of 3, fixed iterations; NOT the study's protocol)",
		Header:  []string{"graph", "nnz", "implementation", "iterations", "ms / iteration", "GTEPS"},
	}
	for _, g := range gs {
		for _, s := range g.Smoke {
			t.Add("", g.Name, fmt.Sprint(g.NNZ), s.Implementation, fmt.Sprint(s.Iterations), fnum("%.4f", s.MsPerIteration), fnum("%.4f", s.GTEPS))
		}
	}
	return t.HTML()
}

// SmokeChart draws ms per iteration against nnz (log-log) per implementation
// for the R-MAT graphs of ScaleGraphs.
func SmokeChart(gs []ScaleGraph) (string, error) {
	series := map[string][]opts.LineData{}
	var names []string
	for _, g := range gs {
		if g.Family != "rmat" {
			continue
		}
		for _, s := range g.Smoke {
			if !slices.Contains(names, s.Implementation) {
				names = append(names, s.Implementation)
			}
			if s.MsPerIteration > 0 {
				series[s.Implementation] = append(series[s.Implementation], opts.LineData{Value: []any{g.NNZ, s.MsPerIteration}})
			}
		}
	}
	if len(names) == 0 {
		return Para("No smoke timings."), nil
	}
	line := charts.NewLine()
	line.SetGlobalOptions(
		charts.WithInitializationOpts(opts.Initialization{Renderer: "canvas", BackgroundColor: "#ffffff"}),
		charts.WithAnimation(false),
		charts.WithTitleOpts(opts.Title{Title: "CPU smoke run: time per iteration vs edges (R-MAT)", Subtitle: "log-log; this machine, wall clock; not the scale study"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "log", Name: "nnz"}),
		charts.WithYAxisOpts(opts.YAxis{Type: "log", Name: "ms / iteration"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "bottom"}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithGridOpts(opts.Grid{Left: "80", Right: "90", Bottom: "70", Top: "70"}),
	)
	for _, n := range names {
		line.AddSeries(n, series[n])
	}
	return ChartHTML(line, "420px")
}

// CommittedScale is a scale-study report (scale.json, written by `prlab
// scale`) committed under reports/, and its path relative to the checkout.
type CommittedScale struct {
	*report.ScaleStudy
	Path string
}

// CommittedScaleRuns returns every reports/*/scale.json that reads as a
// scale study and is committed (see committedFilter: scratch folders and
// folders git does not track are left out), those that measured a GPU
// first, then newest first.
func CommittedScaleRuns() ([]CommittedScale, error) {
	root, err := Root()
	if err != nil {
		return nil, err
	}
	paths, err := filepath.Glob(filepath.Join(root, "reports", "*", report.ScaleJSONFile))
	if err != nil {
		return nil, err
	}
	committed := committedFilter(root)
	var out []CommittedScale
	for _, p := range paths {
		rel, _ := filepath.Rel(root, p)
		if !committed(rel) {
			continue
		}
		s, err := report.ReadScaleJSON(p)
		if err != nil {
			continue
		}
		out = append(out, CommittedScale{ScaleStudy: s, Path: rel})
	}
	slices.SortStableFunc(out, func(a, b CommittedScale) int {
		if (a.GPU != nil) != (b.GPU != nil) {
			if a.GPU != nil {
				return -1
			}
			return 1
		}
		return strings.Compare(b.Env.Date, a.Env.Date)
	})
	return out, nil
}

// ScaleSourceMarkdown says which scale report a notebook shows (the first of
// runs) and where and when it was measured, or that none is committed.
func ScaleSourceMarkdown(runs []CommittedScale) string {
	if len(runs) == 0 {
		return "**No scale-study report is committed under `reports/`** (no committed `reports/*/scale.json`), so there are no scale-study results to show here; `prlab scale` writes one."
	}
	s := runs[0]
	complete := "complete"
	if !s.Complete {
		complete = "**partial** (a checkpoint: the run stopped or was stopped before every graph was done)"
	}
	families := "R-MAT"
	if s.Protocol.Grid {
		families = "R-MAT and 2-D grids"
	}
	var md string
	if s.GPU != nil {
		g := s.GPU
		md = fmt.Sprintf("**Source: the committed scale report `%s`** (run %q), measured on an **%s** (compute capability %s, %d SMs, driver %s, runtime %s) and its host (%s, %d logical CPUs), on %s at commit `%s`.",
			s.Path, s.Name, g.Name, g.ComputeCapability, g.SMs, g.Driver, g.Runtime, s.Env.CPUModel, s.Env.CPUCores, s.Env.Date, s.Env.Commit)
	} else {
		md = fmt.Sprintf("**Source: the committed scale report `%s`** (run %q), measured on %s, %d logical CPUs, on %s at commit `%s`. **It is a CPU-only run: it has no GPU numbers** (%s), and no GPU scale report is committed.",
			s.Path, s.Name, s.Env.CPUModel, s.Env.CPUCores, s.Env.Date, s.Env.Commit, clipText(s.GPUSkipped, 160))
	}
	md += fmt.Sprintf(" The run is %s: %s from 2^%d to 2^%d nodes, %d graphs, %d rows, %.0f s of wall time. Nothing below is measured on this machine.",
		complete, families, s.Protocol.MinScale, s.Protocol.MaxScale, len(s.Graphs), len(s.Rows), s.ElapsedS)
	if len(runs) > 1 {
		var others []string
		for _, r := range runs[1:] {
			others = append(others, "`"+r.Path+"`")
		}
		md += " Other committed scale reports: " + strings.Join(others, ", ") + "."
	}
	return md
}

func clipText(s string, n int) string {
	if len(s) > n {
		return s[:n-1] + "…"
	}
	return s
}

// ScaleStudyEnvironment is RunEnvironment for a scale report.
func ScaleStudyEnvironment(s *report.ScaleStudy) string {
	return RunEnvironment(&report.Run{Name: s.Name, Env: s.Env, GPU: s.GPU, GPUSkipped: s.GPUSkipped},
		fmt.Sprintf("R-MAT a=%.2f b=%.2f c=%.2f, edge factor %d, seed %d; %d fixed iterations per validation run, damping %.2f; time budget %.0f s.",
			s.Protocol.A, s.Protocol.B, s.Protocol.C, s.Protocol.EdgeFactor, s.Protocol.Seed, s.Protocol.ValidateIterations, s.Protocol.Damping, s.Protocol.BudgetS))
}

// ScaleBandwidthTable lists the copy rows every byte floor of the report
// divides by (the GPU's device-to-device copy, the host's memcpy).
func ScaleBandwidthTable(s *report.ScaleStudy) string {
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
// graph, with its status, time and GTEPS per iteration, the fraction of the
// byte floor and the speed-up over the fastest multi-core CPU row. The table
// is long (implementations × graphs), so it is folded in a <details> element.
func ScaleRowsTable(s *report.ScaleStudy) string {
	t := &Table{
		Caption: "Scale study rows (" + s.Name + ")",
		Header:  []string{"graph", "nnz", "implementation", "status", "it × runs", "ms / iteration", "GTEPS", "ns / edge", "floor fraction", "× multi-core CPU", "why"},
		Align:   []string{"l", "r", "l", "l", "r", "r", "r", "r", "r", "r", "l"},
	}
	for _, r := range s.Rows {
		runs := "—"
		if r.Timing.Iterations > 0 {
			runs = fmt.Sprintf("%d × %d", r.Timing.Iterations, len(r.Timing.RunsMs))
		}
		t.Add(statusClass(r.Status), r.Graph, fmt.Sprint(r.NNZ), r.Implementation, r.Status, runs, fnum("%.4f", float64(r.MsPerIter)),
			fnum("%.3f", float64(r.GTEPS)), fnum("%.3f", float64(r.NsPerEdge)), fnum("%.3f", float64(r.FloorFraction)),
			fnum("%.1f", float64(r.SpeedupVsCPU)), clipText(r.Reason, 140))
	}
	return fmt.Sprintf(`<details><summary style="font:13px sans-serif;cursor:pointer">All %d rows of %s (click to open)</summary>%s</details>`,
		len(s.Rows), escape(s.Name), t.HTML())
}

// ScaleMatrix is one family's rows at a glance: an implementation per row,
// a graph per column, ms per iteration in each cell, or "FAIL" (validation
// failed; the time it took follows) or "skip". A row is marked fail when any
// of its cells failed, skip when none ran.
func ScaleMatrix(s *report.ScaleStudy, family string) string {
	var graphs []report.ScaleGraph
	for _, g := range s.Graphs {
		if g.Family == family {
			graphs = append(graphs, g)
		}
	}
	if len(graphs) == 0 {
		return Para("This report has no %s graphs.", family)
	}
	t := &Table{Caption: fmt.Sprintf("%s: ms per iteration (%s)", familyName(family), s.Name), Header: []string{"implementation"}}
	t.Align = []string{"l"}
	for _, g := range graphs {
		t.Header = append(t.Header, fmt.Sprintf("%s (%.3g M edges)", g.Name, float64(g.NNZ)/1e6))
		t.Align = append(t.Align, "r")
	}
	cell := map[[2]string]report.ScaleRow{}
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
			case r.Status == report.StatusPass:
				ran = true
				row = append(row, fnum("%.4g", float64(r.MsPerIter)))
			case r.Status == report.StatusSkipped:
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

func familyName(f string) string {
	switch f {
	case report.FamilyRMAT:
		return "R-MAT"
	case report.FamilyGrid:
		return "2-D grid"
	}
	return f
}

// ScaleGoalsTable is issue 5's goals next to what the report measured.
func ScaleGoalsTable(s *report.ScaleStudy) string {
	t := &Table{Caption: "Goals (issue 5) and what this report measured", Header: []string{"goal", "target", "measured", "status"},
		Align: []string{"l", "l", "l", "l"}}
	for _, g := range s.Goals {
		status := "skip"
		switch g.Status {
		case report.GoalMet:
			status = "pass"
		case report.GoalNotMet:
			status = "fail"
		}
		measured := g.Measured
		if g.Note != "" {
			measured += " (" + g.Note + ")"
		}
		t.Add(status, g.Name, g.Target, measured, g.Status)
	}
	return t.HTML()
}

// BestScaleGPU is the GPU implementation with the least time per iteration
// on the largest graph of the family that has a passing GPU row ("" when
// none has).
func BestScaleGPU(s *report.ScaleStudy, family string) string {
	var best report.ScaleRow
	found := false
	for _, r := range s.Rows {
		if r.Family != family || r.Kind != report.KindGPU || r.Status != report.StatusPass || !(r.MsPerIter > 0) {
			continue
		}
		if !found || r.NNZ > best.NNZ || (r.NNZ == best.NNZ && r.MsPerIter < best.MsPerIter) {
			best, found = r, true
		}
	}
	return best.Implementation
}

// scaleMetric is what a scale chart plots against nnz.
type scaleMetric struct {
	title, subtitle, yName string
	y                      func(report.ScaleRow) report.F
	keep                   func(report.ScaleRow) bool
	breakEven              bool
}

var (
	scaleTime = scaleMetric{title: "Time per iteration vs edges", subtitle: "median ms per iteration; log-log", yName: "ms / iteration",
		y: func(r report.ScaleRow) report.F { return r.MsPerIter }}
	scaleSpeedup = scaleMetric{title: "GPU speed-up over the fastest multi-core CPU row vs edges",
		subtitle: "CPU ms / GPU ms per iteration, same graph and host; above the dotted 1x line the GPU wins", yName: "speed-up (x)",
		y: func(r report.ScaleRow) report.F { return r.SpeedupVsCPU }, keep: func(r report.ScaleRow) bool { return r.Kind == report.KindGPU }, breakEven: true}
	scaleFloor = scaleMetric{title: "Fraction of the byte floor vs edges",
		subtitle: "floor time / measured time per iteration (1 = only the compulsory bytes, at copy bandwidth)", yName: "fraction of floor",
		y: func(r report.ScaleRow) report.F { return r.FloorFraction }}
)

// ScaleTimeChart draws ms per iteration against nnz (log-log), one line per
// implementation, over the report's graphs of one family (rows that passed
// validation). With more than MaxLegendSeries lines, the CPU rows and the
// best GPU (BestScaleGPU) are drawn at first and the others are in a
// scrolling legend beside the plot, one click away.
func ScaleTimeChart(s *report.ScaleStudy, family string) (string, error) {
	return scaleChart(s, family, scaleTime)
}

// ScaleSpeedupChart is the crossover: each GPU implementation's speed-up
// over the fastest multi-core CPU row of the same graph against nnz, with
// the break-even line at 1x. Drawn at first: the best GPU and every GPU
// implementation that is at or below break-even somewhere (the ones that
// cross); the rest are in the legend.
func ScaleSpeedupChart(s *report.ScaleStudy, family string) (string, error) {
	return scaleChart(s, family, scaleSpeedup)
}

// ScaleFloorChart draws each row's fraction of the byte floor against nnz
// (log-log): the floor's time (the least bytes one iteration must move, at
// the copy row's bandwidth) over the measured time. Drawn at first: CPU rows
// and the best GPU.
func ScaleFloorChart(s *report.ScaleStudy, family string) (string, error) {
	return scaleChart(s, family, scaleFloor)
}

func scaleChart(s *report.ScaleStudy, family string, m scaleMetric) (string, error) {
	series := map[string][]opts.LineData{}
	kind := map[string]string{}
	crosses := map[string]bool{}
	var names []string
	minX, maxX := math.Inf(1), math.Inf(-1)
	for _, r := range s.Rows {
		v := m.y(r)
		if r.Family != family || r.Status != report.StatusPass || (m.keep != nil && !m.keep(r)) || !v.Valid() || !(v > 0) || r.NNZ <= 0 {
			continue
		}
		if !slices.Contains(names, r.Implementation) {
			names = append(names, r.Implementation)
		}
		kind[r.Implementation] = r.Kind
		if v <= 1 {
			crosses[r.Implementation] = true
		}
		series[r.Implementation] = append(series[r.Implementation], opts.LineData{Value: []any{r.NNZ, sig4(float64(v))}})
		minX, maxX = min(minX, float64(r.NNZ)), max(maxX, float64(r.NNZ))
	}
	if len(names) == 0 {
		return Para("No %s rows with a %s in this report.", familyName(family), m.yName), nil
	}
	best := BestScaleGPU(s, family)
	const breakEven = "break-even (1x)"
	legendNames := slices.Clone(names)
	if m.breakEven {
		legendNames = append(legendNames, breakEven)
	}
	show := func(n string) bool {
		switch {
		case n == breakEven || n == best:
			return true
		case m.breakEven:
			return crosses[n]
		}
		return kind[n] != report.KindGPU
	}
	legend, grid, hidden := seriesLegend(legendNames, show, opts.Grid{Left: "80", Right: "40", Bottom: "90", Top: "80"})
	if hidden > 0 {
		grid.Top, legend.Top = "100", "100" // a two-line subtitle
	}
	subtitle := m.subtitle
	if hidden > 0 {
		drawn := "CPU and the best GPU (" + best + ")"
		if m.breakEven {
			drawn = "the best GPU (" + best + ") and those that cross 1x"
		}
		subtitle += fmt.Sprintf("\ndrawn: %s; click the legend for the other %d", drawn, hidden)
	}
	line := charts.NewLine()
	line.SetGlobalOptions(
		charts.WithInitializationOpts(opts.Initialization{Renderer: "canvas", BackgroundColor: "#ffffff"}),
		charts.WithAnimation(false),
		charts.WithTitleOpts(opts.Title{Title: fmt.Sprintf("%s, %s (%s)", m.title, familyName(family), s.Name), Subtitle: subtitle,
			SubtitleStyle: &opts.TextStyle{FontSize: 12, LineHeight: 17, Color: "#666666"}}),
		charts.WithXAxisOpts(opts.XAxis{Type: "log", Name: "edges (nnz)", NameLocation: "middle", NameGap: 30}),
		charts.WithYAxisOpts(opts.YAxis{Type: "log", Name: m.yName}),
		charts.WithLegendOpts(legend),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		charts.WithGridOpts(grid),
	)
	for _, n := range names {
		style := opts.LineStyle{Width: 2}
		if kind[n] != report.KindGPU {
			style.Type = "dashed"
		}
		line.AddSeries(n, series[n], charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true)}), charts.WithLineStyleOpts(style))
	}
	if m.breakEven {
		line.AddSeries(breakEven, []opts.LineData{{Value: []any{minX, 1}}, {Value: []any{maxX, 1}}},
			charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)}),
			charts.WithLineStyleOpts(opts.LineStyle{Type: "dotted", Color: "#888888", Width: 1}),
			charts.WithItemStyleOpts(opts.ItemStyle{Color: "#888888"}))
	}
	return ChartHTML(line, "480px")
}

// sig4 rounds x to 4 significant digits (smaller outputs, same chart).
func sig4(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	p := math.Pow(10, 3-math.Floor(math.Log10(math.Abs(x))))
	return math.Round(x*p) / p
}

// ScaleFindings states, in Markdown computed from the report's rows, what a
// reader should not miss: the best GPU and its margin on the largest graph
// of each family, where each GPU implementation crosses the fastest
// multi-core CPU row, every implementation that failed validation (where,
// and by how much) and every one that was skipped (where, and why).
func ScaleFindings(s *report.ScaleStudy) string {
	var lines []string
	for _, fam := range []string{report.FamilyRMAT, report.FamilyGrid} {
		best := BestScaleGPU(s, fam)
		if best == "" {
			continue
		}
		var top report.ScaleRow
		for _, r := range s.Rows {
			if r.Family == fam && r.Implementation == best && r.Status == report.StatusPass && r.NNZ >= top.NNZ {
				top = r
			}
		}
		lines = append(lines, fmt.Sprintf("**Fastest GPU on the largest %s graph** (%s, %s edges): `%s`, %s ms per iteration, %s GTEPS, %s of the byte floor, %s× the fastest multi-core CPU row.",
			familyName(fam), top.Graph, commas(top.NNZ), best, fnum("%.3g", float64(top.MsPerIter)), fnum("%.3g", float64(top.GTEPS)),
			fnum("%.3f", float64(top.FloorFraction)), fnum("%.1f", float64(top.SpeedupVsCPU))))
	}
	if c := crossover(s, report.FamilyRMAT); c != "" {
		lines = append(lines, c)
	}
	type group struct {
		graphs []string
		reason string
		n      int
	}
	collect := func(status func(string) bool) ([]string, map[string]*group) {
		var order []string
		m := map[string]*group{}
		for _, r := range s.Rows {
			if !status(r.Status) {
				continue
			}
			g, ok := m[r.Implementation]
			if !ok {
				g = &group{}
				m[r.Implementation] = g
				order = append(order, r.Implementation)
			}
			g.graphs = append(g.graphs, r.Graph)
			g.reason = r.Reason // the last (largest graph's) reason
			g.n++
		}
		return order, m
	}
	ran := func(impl string) []string {
		var out []string
		for _, r := range s.Rows {
			if r.Implementation == impl && r.Status != report.StatusSkipped {
				out = append(out, r.Graph)
			}
		}
		return out
	}
	order, failed := collect(func(st string) bool { return st == report.StatusFail || st == report.StatusFailed })
	for _, im := range order {
		g := failed[im]
		lines = append(lines, fmt.Sprintf("**`%s` fails** on %d of %d graphs (%s); on the last: %s.", im, g.n, len(s.Graphs), strings.Join(g.graphs, ", "), g.reason))
	}
	order, skipped := collect(func(st string) bool { return st == report.StatusSkipped })
	for _, im := range order {
		g := skipped[im]
		where := strings.Join(g.graphs, ", ")
		if g.n > 4 {
			where = "every graph"
			if r := ran(im); len(r) > 0 {
				where = "every graph but " + strings.Join(r, ", ")
			}
		}
		lines = append(lines, fmt.Sprintf("**`%s` is skipped** on %d of %d graphs (%s): %s.", im, g.n, len(s.Graphs), where, clipText(g.reason, 220)))
	}
	if len(lines) == 0 {
		return "_No rows in this report._"
	}
	return "* " + strings.Join(lines, "\n* ")
}

// crossover says, for one family, from which graph on each GPU
// implementation beats the fastest multi-core CPU row (speed-up > 1 on that
// graph and every larger one it passed).
func crossover(s *report.ScaleStudy, family string) string {
	type pt struct {
		graph string
		nnz   int
		x     float64
	}
	pts := map[string][]pt{}
	var impls []string
	smallest := ""
	smallestNNZ := math.MaxInt
	for _, r := range s.Rows {
		if r.Family != family {
			continue
		}
		if r.NNZ < smallestNNZ {
			smallest, smallestNNZ = r.Graph, r.NNZ
		}
		if r.Kind != report.KindGPU || r.Status != report.StatusPass || !r.SpeedupVsCPU.Valid() {
			continue
		}
		if !slices.Contains(impls, r.Implementation) {
			impls = append(impls, r.Implementation)
		}
		pts[r.Implementation] = append(pts[r.Implementation], pt{r.Graph, r.NNZ, float64(r.SpeedupVsCPU)})
	}
	if len(impls) == 0 {
		return ""
	}
	var always, later []string
	for _, im := range impls {
		p := pts[im]
		slices.SortFunc(p, func(a, b pt) int { return a.nnz - b.nnz })
		from := -1
		for i := len(p) - 1; i >= 0 && p[i].x > 1; i-- {
			from = i
		}
		switch {
		case from == 0 && p[0].graph == smallest:
			always = append(always, "`"+im+"`")
		case from > 0:
			later = append(later, fmt.Sprintf("`%s` beats it only from %s on (%s edges, %.2f×; %.2f× on %s)", im, p[from].graph, commas(p[from].nnz), p[from].x, p[from-1].x, p[from-1].graph))
		case from == 0:
			later = append(later, fmt.Sprintf("`%s` beats it from %s on (%s edges, %.2f×), its smallest passing graph", im, p[0].graph, commas(p[0].nnz), p[0].x))
		default:
			later = append(later, fmt.Sprintf("`%s` does not beat it on its largest passing graph (%.2f× on %s)", im, p[len(p)-1].x, p[len(p)-1].graph))
		}
	}
	md := fmt.Sprintf("**Crossover (%s, against the fastest multi-core CPU row of the same graph):** ", familyName(family))
	if len(always) > 0 {
		md += fmt.Sprintf("%d of %d GPU implementations that ran (%s) beat it already on the smallest graph (%s, %s edges) and on every larger one they passed",
			len(always), len(impls), strings.Join(always, ", "), smallest, commas(smallestNNZ))
		if len(later) > 0 {
			md += "; "
		}
	}
	md += strings.Join(later, "; ")
	return md + "."
}

// commas writes n with thousands separators (263,431,158).
func commas(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}
