package nb

import (
	"fmt"
	"math"
	"slices"
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
		charts.WithXAxisOpts(opts.XAxis{Type: "log", Name: "nnz", NameLocation: "middle", NameGap: 26}),
		charts.WithYAxisOpts(opts.YAxis{Type: "log", Name: "ms / iteration", NameLocation: "middle", NameGap: 44}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "bottom", Type: "plain"}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithGridOpts(opts.Grid{Left: "30", Right: "40", Bottom: "60", Top: "70", ContainLabel: opts.Bool(true)}),
	)
	for _, n := range names {
		c := report.ImplColour(n) // the implementation's colour on every page
		line.AddSeries(n, series[n], charts.WithLineStyleOpts(opts.LineStyle{Color: c}), charts.WithItemStyleOpts(opts.ItemStyle{Color: c}))
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
	return committedReports([]string{"reports/*/" + report.ScaleJSONFile}, report.ReadScaleJSON,
		func(s *report.ScaleStudy) (bool, string) { return s.GPU != nil, s.Env.Date },
		func(s *report.ScaleStudy, path string) CommittedScale { return CommittedScale{s, path} })
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
			s.Path, s.Name, s.Env.CPUModel, s.Env.CPUCores, s.Env.Date, s.Env.Commit, report.ShortReason(s.GPUSkipped))
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

// ScaleFindings is the list that opens the scale page: the fastest GPU per
// family, the crossover, every failure and skip (report.ScaleFindingsHTML).
func ScaleFindings(s *report.ScaleStudy) string { return string(report.ScaleFindingsHTML(s)) }

// ScaleTimeChart is the scale page's time per iteration chart: R-MAT and
// grid panels side by side (report.ScaleChart with report.ScaleTime).
func ScaleTimeChart(s *report.ScaleStudy) (string, error) {
	return chart(report.ScaleChart(s, report.ScaleTime), "No row of this report was timed.")
}

// ScaleSpeedupChart is the scale page's crossover chart: each GPU
// implementation's speed-up over the fastest multi-core CPU row.
func ScaleSpeedupChart(s *report.ScaleStudy) (string, error) {
	return chart(report.ScaleChart(s, report.ScaleSpeedup), "No GPU row of this report was timed, so there is no crossover to draw.")
}

// ScaleFloorChart is the scale page's fraction of the byte floor chart.
func ScaleFloorChart(s *report.ScaleStudy) (string, error) {
	return chart(report.ScaleChart(s, report.ScaleFloor), "No row of this report has a byte floor.")
}
