package nb

import (
	"fmt"
	"math"
	"path/filepath"
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
// scale study, those that measured a GPU first, then newest first.
func CommittedScaleRuns() ([]CommittedScale, error) {
	root, err := Root()
	if err != nil {
		return nil, err
	}
	paths, err := filepath.Glob(filepath.Join(root, "reports", "*", "scale.json"))
	if err != nil {
		return nil, err
	}
	var out []CommittedScale
	for _, p := range paths {
		s, err := report.ReadScaleJSON(p)
		if err != nil {
			continue
		}
		rel, _ := filepath.Rel(root, p)
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
// runs), or that none is committed.
func ScaleSourceMarkdown(runs []CommittedScale) string {
	if len(runs) == 0 {
		return "**No scale-study report is committed under `reports/`** (no `reports/*/scale.json`). Nothing of the study's results can be shown here yet."
	}
	s := runs[0]
	where := "a GPU: " + func() string {
		if s.GPU != nil {
			return fmt.Sprintf("%s (compute capability %s)", s.GPU.Name, s.GPU.ComputeCapability)
		}
		return ""
	}()
	if s.GPU == nil {
		where = "**no GPU** — a CPU-only run; its GPU rows are skipped (" + clipText(s.GPUSkipped, 160) + ")"
	}
	complete := "complete"
	if !s.Complete {
		complete = "**partial** (a checkpoint: the run stopped or was stopped before every graph was done)"
	}
	md := fmt.Sprintf("**Source: the committed scale report `%s`**, run %q on %s, commit %s, on %s; %s, scales 2^%d–2^%d, %.0f s of wall time.",
		s.Path, s.Name, s.Env.Date, s.Env.Commit, where, complete, s.Protocol.MinScale, s.Protocol.MaxScale, s.ElapsedS)
	if s.GPU == nil {
		md += " **This is not the study's H200 result**, which issue 5 still owes."
	}
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
	return RunEnvironment(&report.Run{Name: s.Name, Env: s.Env, GPU: s.GPU, GPUSkipped: s.GPUSkipped}, "")
}

// ScaleRowsTable is the scale study's rows: every implementation on every
// graph, with its status, time and GTEPS per iteration, the fraction of the
// byte floor and the speed-up over the fastest multi-core CPU row.
func ScaleRowsTable(s *report.ScaleStudy) string {
	t := &Table{
		Caption: "Scale study rows (" + s.Name + ")",
		Header:  []string{"graph", "nnz", "implementation", "status", "ms / iteration", "GTEPS", "ns / edge", "floor fraction", "× multi-core CPU", "why"},
		Align:   []string{"l", "r", "l", "l", "r", "r", "r", "r", "r", "l"},
	}
	for _, r := range s.Rows {
		t.Add(statusClass(r.Status), r.Graph, fmt.Sprint(r.NNZ), r.Implementation, r.Status, fnum("%.4f", float64(r.MsPerIter)),
			fnum("%.3f", float64(r.GTEPS)), fnum("%.3f", float64(r.NsPerEdge)), fnum("%.3f", float64(r.FloorFraction)),
			fnum("%.1f", float64(r.SpeedupVsCPU)), clipText(r.Reason, 90))
	}
	return t.HTML()
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
		t.Add(status, g.Name, g.Target, g.Measured, g.Status)
	}
	return t.HTML()
}

// ScaleTimeChart draws ms per iteration against nnz (log-log), one line per
// implementation, over the report's R-MAT graphs (rows that passed).
func ScaleTimeChart(s *report.ScaleStudy) (string, error) {
	series := map[string][]opts.LineData{}
	var names []string
	for _, r := range s.Rows {
		if r.Family != "rmat" || r.Status != report.StatusPass || !r.MsPerIter.Valid() || r.MsPerIter <= 0 {
			continue
		}
		if !slices.Contains(names, r.Implementation) {
			names = append(names, r.Implementation)
		}
		series[r.Implementation] = append(series[r.Implementation], opts.LineData{Value: []any{r.NNZ, float64(r.MsPerIter)}})
	}
	if len(names) == 0 {
		return Para("No timed R-MAT rows in this report."), nil
	}
	line := charts.NewLine()
	line.SetGlobalOptions(
		charts.WithInitializationOpts(opts.Initialization{Renderer: "canvas", BackgroundColor: "#ffffff"}),
		charts.WithAnimation(false),
		charts.WithTitleOpts(opts.Title{Title: "Time per iteration vs edges, R-MAT (" + s.Name + ")", Subtitle: "log-log; median of the timed runs"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "log", Name: "nnz"}),
		charts.WithYAxisOpts(opts.YAxis{Type: "log", Name: "ms / iteration"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "bottom", Type: "scroll"}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithGridOpts(opts.Grid{Left: "80", Right: "90", Bottom: "70", Top: "70"}),
	)
	for _, n := range names {
		line.AddSeries(n, series[n])
	}
	return ChartHTML(line, "440px")
}
