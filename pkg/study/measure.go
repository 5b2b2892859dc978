package study

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"time"

	"github.com/prlab/prlab/pkg/pagerank"
	"github.com/prlab/prlab/pkg/report"
)

// Measure is the one measurement every study command makes of one
// implementation on one graph (prlab report's correctness and timing
// phases, prlab scale's rows, prlab verify through them):
//
//  1. Validate (when m.ValidateIterations > 0): one Run of that many fixed
//     iterations from 1/n, checked against m.Reference with
//     pagerank.Validate — the one rule for everyone: |sum-1| <=
//     4*FLT_EPSILON*sqrt(n), Spearman rho over the reference's top 100 >=
//     0.999 (near-ties counted as ties where the plain rho misses), max
//     relative error <= pagerank.RelTolerance. The reference's own entry
//     reuses m.Reference instead of running again.
//  2. Time (when m.Timing.Runs > 0), one protocol per clock:
//     - GPU (a pagerank.Benchmarker): its own Benchmark, CUDA events around
//     K warmed iterations on the device, upload and copies outside; ms per
//     iteration = median / K. The device clock sees only the kernels, which
//     is what a GPU design is compared on.
//     - CPU (no Benchmarker): Go's monotonic wall clock, in the protocol
//     the command chooses (CPUProtocol): WholeCall for prlab report, whose
//     tables compare with the course's CPU times taken around the whole
//     call (its committed reports are timed so); KMinusOne for prlab
//     scale, which compares CPU against GPU per iteration and so removes
//     the per-call setup the CUDA events exclude. The incremental study
//     times its CPU rows' warm and cold starts (tolerance mode, RunFrom)
//     and the batch's update and rebuild with the same WholeCall loop
//     (wallClock), so "wall" means one thing in every command.
//  3. Rates (rates.go): GBps from the run's own byte count and median time.
//
// Measure returns the error of the phase that failed and names the phase
// in Measured.Phase ("validation" or "timing"); an implementation that
// cannot run returns an error wrapping pagerank.ErrUnavailable.
func Measure(ctx context.Context, e Entry, g *pagerank.Graph, m Measurement) (Measured, error) {
	var out Measured
	if m.ValidateIterations > 0 {
		out.Phase = "validation"
		res := m.Reference
		if res == nil || res.Implementation != e.Impl.Name() {
			var err error
			if res, err = run(ctx, e, g, pagerank.Fixed(m.ValidateIterations)); err != nil {
				return out, err
			}
		}
		out.Validation = pagerank.Validate(g, res, m.Reference)
		if m.KeepRun {
			out.Run = res
		}
		if out.Validation.Problem != "" {
			return out, nil // nothing valid to time
		}
	}
	if m.Timing.Runs <= 0 {
		return out, nil
	}
	out.Phase = "timing"
	var err error
	if b, ok := e.Impl.(pagerank.Benchmarker); ok {
		out.Timed, err = safeCall(func() (*pagerank.Result, error) {
			return pagerank.BenchmarkContext(ctx, b, g, pagerank.Fixed(m.Timing.Iterations), m.Timing.Warmups, m.Timing.Runs)
		})
		out.Timed, err = stamp(out.Timed, err, e, g)
		if err == nil && (out.Timed.Timing == nil || len(out.Timed.Timing.RunsMs) == 0) {
			err = errors.New("Benchmark returned no timed runs")
		}
	} else if m.CPU == KMinusOne {
		out.Timed, err = kMinusOne(ctx, e, g, m)
	} else {
		out.Timed, err = wholeCall(ctx, e, g, m)
	}
	if err != nil {
		out.Timed = nil
		return out, err
	}
	out.Timed.Ranks = nil // timing runs are validated by the validation run
	if t := out.Timed.Timing; out.Timed.BytesPerIteration > 0 && t.MedianMs > 0 {
		out.GBps = GBps(out.Timed.BytesPerIteration*int64(t.Iterations), t.MedianMs)
	}
	return out, nil
}

// Verdict is the status and reason of a validation, the same in every
// command's rows: failed (it could not be validated: v.Problem), pass (the
// reason is the near-tie note, if any) or fail (the gates missed, then the
// near-tie note).
func Verdict(v pagerank.Validation) (status, reason string) {
	switch {
	case v.Problem != "":
		return report.StatusFailed, v.Problem
	case v.Pass:
		return report.StatusPass, v.TieNote
	}
	reason = failedGates(v)
	if v.TieNote != "" {
		reason += "; " + v.TieNote
	}
	return report.StatusFail, reason
}

func failedGates(v pagerank.Validation) string {
	var why []string
	if !v.SumPass {
		why = append(why, fmt.Sprintf("|sum−1| %.3g > %.3g", math.Abs(v.SumMinus1), v.SumAllowed))
	}
	if !v.SpearmanPass {
		why = append(why, fmt.Sprintf("ρ %.6f < %.3f", v.Spearman, pagerank.SpearmanGate))
	}
	if !v.ErrPass {
		why = append(why, fmt.Sprintf("err/tol %.3g > 1", v.ErrOverTol))
	}
	return strings.Join(why, "; ")
}

// Measurement says what Measure does.
type Measurement struct {
	// Reference is the result validated against (the oracle's or the scale
	// study's reference, same graph, ValidateIterations iterations); nil
	// gives a Validation with its Problem set.
	Reference *pagerank.Result
	// ValidateIterations > 0 runs and validates; 0 skips validation.
	ValidateIterations int
	// KeepRun keeps the validation run's Result (ranks included) in Measured.Run.
	KeepRun bool
	// Timing is K fixed iterations, warm-ups and timed runs; Runs 0 skips timing.
	Timing Rung
	// CPU is the wall-clock protocol of an implementation without Benchmark.
	CPU CPUProtocol
	// Stop, when set, is asked before every CPU timed run after the first:
	// true keeps the runs done so far (the scale study's time budget).
	Stop func() bool
}

// Measured is what Measure found.
type Measured struct {
	Phase      string              // the phase reached: "validation" or "timing"
	Validation pagerank.Validation // zero when not validated
	Run        *pagerank.Result    // the validation run, when Measurement.KeepRun
	Timed      *pagerank.Result    // the last timed run (Timing, bytes, stages; no ranks); nil when not timed
	GBps       float64             // bytes per iteration x iterations / median ms, GB/s (rates.go); 0 when not counted
}

// CPUProtocol is how Measure times an implementation on Go's wall clock.
type CPUProtocol int

const (
	// WholeCall times each run around the whole Run of K iterations,
	// allocation of the work vectors included (clock "wall"); ms per
	// iteration = median / K. prlab report's protocol.
	WholeCall CPUProtocol = iota
	// KMinusOne times each run as a Run of 1 iteration then a Run of K
	// iterations, from a collected heap, and keeps their difference: K-1
	// iterations without the per-call setup (clock CPUClockDiff); where
	// that difference is below noise it falls back to the whole K-iteration
	// call (clock CPUClockWhole, an upper bound; see cpuTiming). prlab
	// scale's protocol.
	KMinusOne
)

// wholeCall is the WholeCall protocol (wallClock around Run of K fixed
// iterations); every timed run must have run as many iterations.
func wholeCall(ctx context.Context, e Entry, g *pagerank.Graph, m Measurement) (*pagerank.Result, error) {
	p := pagerank.Fixed(m.Timing.Iterations)
	var iters []int // of every call, warm-ups first
	runs, last, err := wallClock(ctx, m.Timing.Warmups, m.Timing.Runs, m.Stop, func() (*pagerank.Result, error) {
		res, err := run(ctx, e, g, p)
		if err == nil {
			iters = append(iters, res.Iterations)
		}
		return res, err
	})
	if err != nil {
		return nil, err
	}
	timed := iters[len(iters)-len(runs):]
	for i := 1; i < len(timed); i++ {
		if timed[i] != timed[i-1] {
			return nil, fmt.Errorf("timed run %d ran %d iterations, run %d ran %d: the runs are not comparable", i, timed[i-1], i+1, timed[i])
		}
	}
	// Per iteration means per iteration actually run, not requested.
	t := pagerank.NewTiming(last.Iterations, m.Timing.Warmups, runs, "wall")
	last.Timing = &t
	return last, nil
}

// wallClock is the one wall-clock timing loop: warmups untimed calls of f,
// then up to runs calls, each timed on Go's monotonic clock around the
// whole call (ms). ctx is checked before every call, so an interrupt
// (SIGINT) stops a long loop after the call in progress; stop, when set,
// is asked before every timed call after the first (true keeps the runs
// done so far). It returns every timed call's ms and f's last value.
func wallClock[T any](ctx context.Context, warmups, runs int, stop func() bool, f func() (T, error)) ([]float64, T, error) {
	var last T
	for i := 0; i < warmups; i++ {
		if err := ctx.Err(); err != nil {
			return nil, last, fmt.Errorf("interrupted: %w", err)
		}
		if _, err := f(); err != nil {
			return nil, last, fmt.Errorf("warm-up %d: %w", i+1, err)
		}
	}
	samples := make([]float64, 0, runs)
	for i := 0; i < runs; i++ {
		if err := ctx.Err(); err != nil {
			return nil, last, fmt.Errorf("interrupted: %w", err)
		}
		if i > 0 && stop != nil && stop() {
			break
		}
		start := time.Now()
		v, err := f()
		elapsed := time.Since(start)
		if err != nil {
			return nil, last, fmt.Errorf("timed run %d: %w", i+1, err)
		}
		samples = append(samples, float64(elapsed.Nanoseconds())/1e6)
		last = v
	}
	return samples, last, nil
}

// kMinusOne is the KMinusOne protocol (K is at least 2); the Result is the
// last K-iteration run's, its Timing the protocol's.
func kMinusOne(ctx context.Context, e Entry, g *pagerank.Graph, m Measurement) (*pagerank.Result, error) {
	k := max(m.Timing.Iterations, 2)
	for i := 0; i < m.Timing.Warmups; i++ {
		if _, err := run(ctx, e, g, pagerank.Fixed(k)); err != nil {
			return nil, fmt.Errorf("warm-up %d: %w", i+1, err)
		}
	}
	var diffs, whole []float64
	var last *pagerank.Result
	ran1, ranK := 0, 0 // iterations the two calls actually ran (the Timing divides by these)
	for i := 0; i < m.Timing.Runs; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if i > 0 && m.Stop != nil && m.Stop() {
			break // e.g. the budget is nearly spent: keep the runs done so far (Timing says how many)
		}
		runtime.GC() // start both calls from a collected heap (outside the timed region)
		t0 := time.Now()
		one, err := run(ctx, e, g, pagerank.Fixed(1))
		if err != nil {
			return nil, fmt.Errorf("timed run %d (1 iteration): %w", i+1, err)
		}
		t1 := time.Now()
		many, err := run(ctx, e, g, pagerank.Fixed(k))
		if err != nil {
			return nil, fmt.Errorf("timed run %d (%d iterations): %w", i+1, k, err)
		}
		t2 := time.Now()
		if i > 0 && (one.Iterations != ran1 || many.Iterations != ranK) {
			return nil, fmt.Errorf("timed run %d ran %d and %d iterations, run 1 %d and %d: not comparable", i+1, one.Iterations, many.Iterations, ran1, ranK)
		}
		ran1, ranK, last = one.Iterations, many.Iterations, many
		diffs = append(diffs, float64((t2.Sub(t1)-t1.Sub(t0)).Nanoseconds())/1e6)
		whole = append(whole, float64(t2.Sub(t1).Nanoseconds())/1e6)
	}
	if ranK <= ran1 {
		return nil, fmt.Errorf("the %d-iteration run ran %d iterations, the 1-iteration run %d: no difference to time", k, ranK, ran1)
	}
	t := cpuTiming(ranK, ran1, m.Timing.Warmups, diffs, whole)
	last.Timing = &t
	return last, nil
}

// cpuTiming turns paired wall-clock runs into a Timing: diffs[i] is run i's
// K-iteration time minus its 1-iteration time (K-1 iterations without the
// per-call setup), whole[i] its K-iteration time. When the median
// difference is not clearly positive (under a fifth of what K-1 of the K
// iterations would take at the whole-call rate: noise larger than the
// signal, as with one run of 3 iterations on a loaded machine), the honest
// number left is the whole call: Timing is then K iterations with setup
// included (an upper bound), and its clock says so.
//
// k and one are the iterations the two calls actually ran (K and 1 in
// fixed mode): the difference times k-one iterations.
func cpuTiming(k, one, warmups int, diffs, whole []float64) pagerank.Timing {
	t := pagerank.NewTiming(k-one, warmups, diffs, CPUClockDiff)
	w := pagerank.NewTiming(k, warmups, whole, CPUClockWhole)
	if !(t.MedianMs > 0.2*w.MedianMs*float64(k-one)/float64(k)) {
		return w
	}
	return t
}

// Clocks of the KMinusOne protocol's Timing.
const (
	CPUClockDiff  = "wall, K minus 1 iteration"
	CPUClockWhole = "wall, K iterations incl. setup (difference below noise)"
)
