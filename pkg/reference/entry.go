package reference

import (
	"context"

	"github.com/prlab/prlab/pkg/pagerank"
)

// entryPoints gives an implementation of this package its four ways in
// from its one run function (start nil: x_0 = 1/n):
//
//   - Run: pagerank.Implementation.
//   - RunFrom: pagerank.WarmStarter, x_0 = start.
//   - RunContext and RunFromContext: pagerank.ContextRunner and
//     pagerank.ContextWarmStarter. They stop soon after ctx is done and
//     return an error wrapping ctx.Err() and no Result. T0 checks a flag
//     every 2^16 rows; T1's barrier is aborted, and workers check it after
//     every row block.
type entryPoints struct {
	run func(ctx context.Context, g *pagerank.Graph, p pagerank.Params, start []float64) (*pagerank.Result, error)
}

// Run computes PageRank of g with p from x_0 = 1/n.
func (e entryPoints) Run(g *pagerank.Graph, p pagerank.Params) (*pagerank.Result, error) {
	return e.run(context.Background(), g, p, nil)
}

// RunFrom is Run from x_0 = start (nil: 1/n), rounded to the
// implementation's precision.
func (e entryPoints) RunFrom(g *pagerank.Graph, p pagerank.Params, start []float64) (*pagerank.Result, error) {
	return e.run(context.Background(), g, p, start)
}

// RunContext is Run that stops when ctx is done.
func (e entryPoints) RunContext(ctx context.Context, g *pagerank.Graph, p pagerank.Params) (*pagerank.Result, error) {
	return e.run(ctx, g, p, nil)
}

// RunFromContext is RunFrom that stops when ctx is done.
func (e entryPoints) RunFromContext(ctx context.Context, g *pagerank.Graph, p pagerank.Params, start []float64) (*pagerank.Result, error) {
	return e.run(ctx, g, p, start)
}
