package pagerank

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
)

// Cancellation. Every long loop of prlab stops soon after its context is
// done (Ctrl-C): loading (ContextReader), building (NewGraphContext,
// NewGraphParallelContext, RMATEdgesContext), iterating (ContextRunner) and
// timing (ContextBenchmarker). A stopped call returns an error wrapping
// ctx's error (errors.Is(err, context.Canceled)) and no partial result.

// ContextRunner is implemented by implementations whose Run can be stopped:
// RunContext is Run that returns soon after ctx is done (the CPU ones within
// about a millisecond of work) with an error wrapping ctx.Err().
type ContextRunner interface {
	RunContext(ctx context.Context, g *Graph, p Params) (*Result, error)
}

// ContextBenchmarker is implemented by Benchmarkers that can be stopped
// between timed runs (pkg/cudabind splits its runs into calls of a fraction
// of a second and checks ctx between them).
type ContextBenchmarker interface {
	BenchmarkContext(ctx context.Context, g *Graph, p Params, warmups, runs int) (*Result, error)
}

// ContextWarmStarter is implemented by WarmStarters whose RunFrom can be
// stopped as ContextRunner's RunContext can.
type ContextWarmStarter interface {
	RunFromContext(ctx context.Context, g *Graph, p Params, start []float64) (*Result, error)
}

// RunFromContext runs ws from start, through its RunFromContext when it has
// one, else through RunFrom (after checking ctx).
func RunFromContext(ctx context.Context, ws WarmStarter, g *Graph, p Params, start []float64) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("interrupted: %w", err)
	}
	if c, ok := ws.(ContextWarmStarter); ok {
		return c.RunFromContext(ctx, g, p, start)
	}
	return ws.RunFrom(g, p, start)
}

// RunContext runs impl on g with p: through its RunContext when it has one,
// else through Run (after checking ctx; that Run cannot be stopped midway).
func RunContext(ctx context.Context, impl Implementation, g *Graph, p Params) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: interrupted: %w", impl.Name(), err)
	}
	if c, ok := impl.(ContextRunner); ok {
		return c.RunContext(ctx, g, p)
	}
	return impl.Run(g, p)
}

// BenchmarkContext is RunContext for Benchmark.
func BenchmarkContext(ctx context.Context, b Benchmarker, g *Graph, p Params, warmups, runs int) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("interrupted: %w", err)
	}
	if c, ok := b.(ContextBenchmarker); ok {
		return c.BenchmarkContext(ctx, g, p, warmups, runs)
	}
	return b.Benchmark(g, p, warmups, runs)
}

// ContextReader returns a reader whose Read fails with ctx's error once ctx
// is done. Parsers read through 64 KiB buffers, so a cancelled load stops
// within one buffer; the check is one atomic load per Read.
func ContextReader(ctx context.Context, r io.Reader) io.Reader {
	if ctx.Done() == nil {
		return r
	}
	return &ctxReader{ctx, r}
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(b []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, fmt.Errorf("interrupted: %w", err)
	}
	return c.r.Read(b)
}

// stopFlag is set once ctx is done (context.AfterFunc), for loops that look
// at it every stopEvery items: one predictable branch, no lock.
type stopFlag struct {
	atomic.Bool
	ctx context.Context
}

// stopEvery is how many edges (or rows) a build loop handles between two
// looks at its stopFlag: 2^16, well under a millisecond of work.
const stopEvery = 1 << 16

// watch returns a stopFlag for ctx and the function that releases it.
func watch(ctx context.Context) (*stopFlag, func() bool) {
	s := &stopFlag{ctx: ctx}
	return s, context.AfterFunc(ctx, func() { s.Store(true) })
}

// stopped reports whether s is set (a nil s never is).
func (s *stopFlag) stopped() bool { return s != nil && s.Load() }

// err is the error of a stopped build.
func (s *stopFlag) err(what string) error {
	if !s.Load() {
		return nil
	}
	return fmt.Errorf("%s: interrupted: %w", what, context.Cause(s.ctx))
}
