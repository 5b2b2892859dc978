package reference

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/prlab/prlab/pkg/pagerank"
)

func cancellable() []pagerank.Implementation {
	return []pagerank.Implementation{Oracle(), NoDangling(),
		Multicore(pagerank.Float64, 1), Multicore(pagerank.Float64, 2), Multicore(pagerank.Float32, 3)}
}

// TestRunContextStopsPromptly: a run of 10,000 iterations on R-MAT 2^16 is
// cancelled after 30 ms; RunContext returns context.Canceled (no Result)
// well within a second of the cancel.
func TestRunContextStopsPromptly(t *testing.T) {
	g, err := pagerank.RMAT(pagerank.Graph500RMAT(16, 1))
	if err != nil {
		t.Fatal(err)
	}
	for _, im := range cancellable() {
		ctx, cancel := context.WithCancel(context.Background())
		var cancelled time.Time
		timer := time.AfterFunc(30*time.Millisecond, func() { cancelled = time.Now(); cancel() })
		res, err := im.(pagerank.ContextRunner).RunContext(ctx, g, pagerank.Fixed(10000))
		took := time.Since(cancelled)
		timer.Stop()
		cancel()
		if res != nil || !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v, %v; want no Result and context.Canceled", im.Name(), res, err)
			continue
		}
		if took > 250*time.Millisecond {
			t.Errorf("%s: returned %v after the cancel, want well under a second", im.Name(), took)
		}
		t.Logf("%s: %v after the cancel: %v", im.Name(), took, err)
	}
	// Cancelled before the start: nothing runs (cold or warm start).
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, im := range cancellable() {
		if _, err := im.(pagerank.ContextRunner).RunContext(ctx, g, pagerank.Fixed(5)); !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a cancelled context: %v", im.Name(), err)
		}
		if _, err := im.(pagerank.ContextWarmStarter).RunFromContext(ctx, g, pagerank.Fixed(5), nil); !errors.Is(err, context.Canceled) {
			t.Errorf("%s RunFromContext with a cancelled context: %v", im.Name(), err)
		}
	}
}

// TestOracleStopsInsideAnIteration: the oracle looks at its stop flag every
// rowsPerCheck rows, so a stop set before an iteration ends it before the
// swap: the state is the one before the iteration.
func TestOracleStopsInsideAnIteration(t *testing.T) {
	g, err := pagerank.RMAT(pagerank.Graph500RMAT(17, 1))
	if err != nil {
		t.Fatal(err)
	}
	if g.N <= rowsPerCheck {
		t.Fatalf("n = %d: want more than one chunk of %d rows", g.N, rowsPerCheck)
	}
	st := newOracleState(g, pagerank.DefaultDamping, true, nil)
	before := slices.Clone(st.x)
	st.stop.Store(true)
	st.step()
	if !slices.Equal(st.x, before) {
		t.Error("a stopped step changed x")
	}
}

// TestRunContextUncancelledIsRun: with a context that is never cancelled the
// ranks are bitwise those of Run.
func TestRunContextUncancelledIsRun(t *testing.T) {
	g, err := pagerank.RMAT(pagerank.Graph500RMAT(12, 3))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, im := range cancellable() {
		want, err := im.Run(g, pagerank.Converge(1e-9, 200))
		if err != nil {
			t.Fatal(err)
		}
		got, err := im.(pagerank.ContextRunner).RunContext(ctx, g, pagerank.Converge(1e-9, 200))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Ranks, want.Ranks) || got.Iterations != want.Iterations || !slices.Equal(got.Residuals, want.Residuals) {
			t.Errorf("%s: RunContext differs from Run (%d vs %d iterations)", im.Name(), got.Iterations, want.Iterations)
		}
	}
}
