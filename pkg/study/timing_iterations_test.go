package study

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/prlab/prlab/pkg/pagerank"
	"github.com/prlab/prlab/pkg/reference"
	"github.com/prlab/prlab/pkg/report"
)

// earlyStopImpl is the oracle that stops after `stopAt` iterations whatever
// it is asked (as a converging run does), sleeping perIter per iteration so
// the wall clock sees the iterations it ran.
type earlyStopImpl struct {
	stopAt  int
	perIter time.Duration
}

func (e *earlyStopImpl) Name() string                  { return "x-early-stop" }
func (e *earlyStopImpl) Label() string                 { return "stops early" }
func (e *earlyStopImpl) Precision() pagerank.Precision { return pagerank.Float64 }
func (e *earlyStopImpl) Run(g *pagerank.Graph, p pagerank.Params) (*pagerank.Result, error) {
	q := p
	q.Iterations = min(p.Iterations, e.stopAt)
	time.Sleep(time.Duration(q.Iterations) * e.perIter)
	return reference.Oracle().Run(g, q)
}

// TestTimingDividesByIterationsRun: asked for 50 timed iterations, the
// implementation runs 5; Timing.Iterations is 5 and ms per iteration is the
// median over 5 (about 4 ms here), not over 50 (0.4 ms).
func TestTimingDividesByIterationsRun(t *testing.T) {
	edges, _ := writeGraph(t)
	impl := &earlyStopImpl{stopAt: 5, perIter: 4 * time.Millisecond}
	entries := append(CPUEntries()[:1], Entry{impl, report.KindCPU})
	run, err := Run(context.Background(), Config{EdgeList: edges, GraphName: "g", Entries: entries, Cases: []string{RealCase},
		Iterations: 10, TimingIterations: 50, Warmups: 0, Runs: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range run.Timings {
		if row.Implementation != impl.Name() {
			continue
		}
		if row.Timing.Iterations != 5 {
			t.Fatalf("Timing.Iterations = %d, want the 5 iterations run (50 were asked)", row.Timing.Iterations)
		}
		if ms := row.Timing.MsPerIteration(); ms < 3.5 || ms > 40 || math.IsNaN(ms) {
			t.Errorf("ms per iteration %.3f, want about 4 (the sleep per iteration)", ms)
		}
		return
	}
	t.Fatal("no timing row")
}

// TestMemcpyBandwidthStopsWhenCancelled: the scale study's first step (two
// memcpy rows of 512 MiB, seconds) returns at once for a cancelled context:
// before it allocates (asked for 64 GiB here, which it would not get), so
// the bound below has a margin of orders of magnitude on a loaded machine.
func TestMemcpyBandwidthStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if _, err := MemcpyBandwidthContext(ctx, 64<<30, 2, 1, 5); !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("took %v", took)
	}
}
