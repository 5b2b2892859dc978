package study

import (
	"testing"

	"github.com/prlab/prlab/internal/fixture"
	"github.com/prlab/prlab/pkg/pagerank"
)

// realData is the bundled graph and its papers (a missing file fails t).
func realData(t *testing.T) (edges, papers string) {
	t.Helper()
	return fixture.NeedBundled(t, fixture.Edges), fixture.NeedBundled(t, fixture.Papers)
}

// fakeGPUImpl is a GPU implementation without CUDA: it computes with the
// embedded CPU implementation and its Benchmark reports what a CUDA
// implementation would, fixed: runMs(iterations) per run (CUDA-event
// style), bytes per iteration, the stages, launches per iteration and no
// host sync. Every number derived from a row is then known exactly.
type fakeGPUImpl struct {
	pagerank.Implementation
	name, label string
	runMs       func(iterations int) float64
	bytes       int64
	stages      []pagerank.Stage
	launches    float64
}

func (f fakeGPUImpl) Name() string  { return f.name }
func (f fakeGPUImpl) Label() string { return f.label }
func (f fakeGPUImpl) Benchmark(g *pagerank.Graph, p pagerank.Params, warmups, runs int) (*pagerank.Result, error) {
	res, err := f.Run(g, p)
	if err != nil {
		return nil, err
	}
	ms := make([]float64, runs)
	for i := range ms {
		ms[i] = f.runMs(p.Iterations)
	}
	tm := pagerank.NewTiming(p.Iterations, warmups, ms, "cuda-events")
	res.Timing, res.BytesPerIteration, res.Stages = &tm, f.bytes, f.stages
	res.LaunchesPerIteration, res.HostSyncsPerIteration = f.launches, 0
	return res, nil
}
