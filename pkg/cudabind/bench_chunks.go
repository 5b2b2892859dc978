package cudabind

import (
	"context"
	"fmt"
	"time"
)

// Benchmark calls are split so that an interrupt (Ctrl-C) is seen between
// them: the library times all the runs of one call without returning, so
// one call of --runs 1000 on a large graph would hold the process for
// minutes. The split is on the Go side (the .cu code is unchanged).
const (
	// benchFirstRuns is the most timed runs of the first call, which also
	// makes all the warm-ups: the course's protocol (3 warm-ups, 10 runs) is
	// one call, as before.
	benchFirstRuns = 10
	// benchChunkSeconds is the target length of every later call, sized
	// from the first call's time per run; each later call makes one warm-up
	// of its own (the device just ran the same kernels; it guards against a
	// per-call setup inside the first timed run).
	benchChunkSeconds = 0.25
)

// benchCall is one library benchmark call: warmups untimed then runs timed
// runs, returning each timed run's ms and the ranks after the last.
type benchCall func(warmups, runs int) (ms, ranks []float32, err error)

// benchmarkChunked makes `runs` timed runs through call in calls of at most
// about benchChunkSeconds after the first, checking ctx between calls; the
// ms of every call are concatenated in order. Errors: ctx's (wrapped, with
// how many runs were done), or the call's.
func benchmarkChunked(ctx context.Context, call benchCall, warmups, runs int) ([]float32, []float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("interrupted before the timed runs: %w", err)
	}
	first := min(runs, benchFirstRuns)
	start := time.Now()
	ms, ranks, err := call(warmups, first)
	if err != nil {
		return nil, nil, err
	}
	perRun := time.Since(start).Seconds() / float64(warmups+first)
	for len(ms) < runs {
		if err := ctx.Err(); err != nil {
			return nil, nil, fmt.Errorf("interrupted after %d of %d timed runs: %w", len(ms), runs, err)
		}
		n := runs - len(ms)
		if perRun > 0 {
			n = min(n, max(1, int(benchChunkSeconds/perRun)-1))
		}
		more, r, err := call(1, n)
		if err != nil {
			return nil, nil, err
		}
		ms, ranks = append(ms, more...), r
	}
	return ms, ranks, nil
}
