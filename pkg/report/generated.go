package report

import (
	"fmt"
	"slices"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// GeneratedGraph describes one generated graph of notebook 05's families
// (Graph500 R-MAT, 2-D grid): its shape and degree skew, and a smoke timing
// (study.GenerateScaleGraphs measures it).
type GeneratedGraph struct {
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

// GeneratedGraphsTable is the generated graphs' shapes.
func GeneratedGraphsTable(gs []GeneratedGraph) string {
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

// SmokeTable is the smoke timings of the generated graphs.
func SmokeTable(gs []GeneratedGraph) string {
	t := &Table{
		Caption: "Smoke timings on this machine (wall clock, best of 3, fixed iterations; NOT the study's protocol)",
		Header:  []string{"graph", "nnz", "implementation", "iterations", "ms / iteration", "GTEPS"},
	}
	for _, g := range gs {
		for _, s := range g.Smoke {
			t.Add("", g.Name, fmt.Sprint(g.NNZ), s.Implementation, fmt.Sprint(s.Iterations), Ms(4, s.MsPerIteration), fnum("%.4f", s.GTEPS))
		}
	}
	return t.HTML()
}

// SmokeChart draws ms per iteration against nnz (log-log) per implementation
// for the R-MAT graphs, in the implementations' page colours; nil when
// there is no smoke timing.
func SmokeChart(gs []GeneratedGraph) *Chart {
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
		return nil
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
		c := ImplColour(n) // the implementation's colour on every page
		line.AddSeries(n, series[n], charts.WithLineStyleOpts(opts.LineStyle{Color: c}), charts.WithItemStyleOpts(opts.ItemStyle{Color: c}))
	}
	return &Chart{ID: "chart_nb", Height: "420px", Chart: line}
}
