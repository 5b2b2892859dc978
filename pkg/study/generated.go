package study

import (
	"context"
	"math"
	"time"

	"github.com/prlab/prlab/pkg/pagerank"
	"github.com/prlab/prlab/pkg/reference"
	"github.com/prlab/prlab/pkg/report"
)

// GenerateScaleGraphs generates Graph500 R-MAT graphs at the given scales
// (seed 1) and a side x side 2-D grid (side 0: none) for notebook 05, and,
// when iterations > 0, times T0 and T1 (float32) on each with a smoke run:
// Measure's wall-clock loop (wallClock) around 3 whole calls of that many
// fixed iterations, no warm-up, the best of the 3 kept (NaN when a call
// fails). It is a quick look on this machine, not the scale study.
func GenerateScaleGraphs(scales []int, gridSide, iterations int) ([]report.GeneratedGraph, error) {
	var out []report.GeneratedGraph
	describe := func(g *pagerank.Graph, family string, scale, generated int, ms float64) report.GeneratedGraph {
		s := report.GeneratedGraph{Name: g.Name, Family: family, Scale: scale, N: g.N, NNZ: g.NNZ, Generated: generated,
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

// smoke is GenerateScaleGraphs' smoke timing of T0 and T1 (float32) on g.
func smoke(g *pagerank.Graph, iterations int) []report.SmokeTime {
	const repeats = 3
	var out []report.SmokeTime
	for _, im := range []pagerank.Implementation{reference.Oracle(), reference.Multicore(pagerank.Float32, 0)} {
		best := math.NaN()
		if runs, _, err := wallClock(context.Background(), 0, repeats, nil, func() (*pagerank.Result, error) {
			return im.Run(g, pagerank.Fixed(iterations))
		}); err == nil {
			best = math.Inf(1)
			for _, ms := range runs {
				best = min(best, ms)
			}
		}
		per := best / float64(iterations)
		out = append(out, report.SmokeTime{Implementation: im.Name(), Iterations: iterations, Repeats: repeats,
			MsPerIteration: per, GTEPS: float64(g.NNZ) / (per * 1e-3) / 1e9})
	}
	return out
}
