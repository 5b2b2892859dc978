package study

import (
	"context"
	"errors"
	"testing"

	"github.com/prlab/prlab/pkg/pagerank"
	"github.com/prlab/prlab/pkg/reference"
	"github.com/prlab/prlab/pkg/report"
)

// Measure's two CPU protocols, its validation against the reference (the
// reference's own entry reused, not rerun) and its Stop.
func TestMeasureProtocols(t *testing.T) {
	g, err := pagerank.Grid2D(16)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := run(context.Background(), Entry{reference.Oracle(), report.KindCPU}, g, pagerank.Fixed(20))
	if err != nil {
		t.Fatal(err)
	}
	oracle := Entry{reference.Oracle(), report.KindCPU}
	m, err := Measure(context.Background(), oracle, g, Measurement{Reference: ref, ValidateIterations: 20, KeepRun: true,
		Timing: Rung{Iterations: 4, Warmups: 1, Runs: 3}, CPU: WholeCall})
	if err != nil {
		t.Fatal(err)
	}
	if m.Run != ref || !m.Validation.Pass || m.Validation.MaxRelErr != 0 || m.Validation.Spearman != 1 {
		t.Errorf("the reference against itself: run reused %v, %+v", m.Run == ref, m.Validation)
	}
	if tm := m.Timed.Timing; tm.Clock != "wall" || tm.Iterations != 4 || len(tm.RunsMs) != 3 || m.Timed.Ranks != nil {
		t.Errorf("WholeCall: %+v (ranks kept: %v)", tm, m.Timed.Ranks != nil)
	}

	stops := 0
	f32 := Entry{reference.Multicore(pagerank.Float32, 2), report.KindCPU}
	m, err = Measure(context.Background(), f32, g, Measurement{Reference: ref, ValidateIterations: 20,
		Timing: Rung{Iterations: 6, Warmups: 0, Runs: 5}, CPU: KMinusOne, Stop: func() bool { stops++; return stops == 2 }})
	if err != nil {
		t.Fatal(err)
	}
	if m.Run != nil || m.Phase != "timing" || !m.Validation.Pass {
		t.Errorf("float32 on the grid: run kept %v, phase %q, %+v", m.Run != nil, m.Phase, m.Validation)
	}
	tm := m.Timed.Timing
	if len(tm.RunsMs) != 2 || !(tm.Clock == CPUClockDiff && tm.Iterations == 5 || tm.Clock == CPUClockWhole && tm.Iterations == 6) {
		t.Errorf("KMinusOne stopped after 2 runs: %+v", tm)
	}

	// No reference: the validation says so and nothing is timed.
	m, err = Measure(context.Background(), f32, g, Measurement{ValidateIterations: 20, Timing: Rung{Iterations: 4, Warmups: 0, Runs: 2}})
	if err != nil || m.Validation.Problem == "" || m.Timed != nil {
		t.Errorf("no reference: err %v, %+v, timed %v", err, m.Validation, m.Timed != nil)
	}
	if st, why := Verdict(m.Validation); st != report.StatusFailed || why != m.Validation.Problem {
		t.Errorf("Verdict without a reference: %s %q", st, why)
	}

	// A cancelled context stops the timing with the interruption.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Measure(ctx, oracle, g, Measurement{Timing: Rung{Iterations: 4, Warmups: 0, Runs: 2}, CPU: WholeCall})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
