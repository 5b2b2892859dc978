package cudabind

import (
	"context"
	"errors"
	"testing"
	"time"
)

// fakeBench times runs of 2 ms each (sleeping), numbering them so the
// concatenation order can be checked, and records each call.
type fakeBench struct {
	next  float32
	calls [][2]int // warmups, runs
	after func(call int)
}

func (f *fakeBench) call(warmups, runs int) ([]float32, []float32, error) {
	f.calls = append(f.calls, [2]int{warmups, runs})
	time.Sleep(time.Duration(warmups+runs) * 2 * time.Millisecond)
	ms := make([]float32, runs)
	for i := range ms {
		ms[i] = f.next
		f.next++
	}
	if f.after != nil {
		f.after(len(f.calls))
	}
	return ms, []float32{float32(len(f.calls))}, nil
}

// TestBenchmarkChunked: the course's protocol (3 warm-ups, 10 runs) is one
// call; 400 runs of 2 ms are split into calls of about 0.25 s, each with one
// warm-up, and come back in order with the last call's ranks.
func TestBenchmarkChunked(t *testing.T) {
	f := &fakeBench{}
	ms, _, err := benchmarkChunked(context.Background(), f.call, 3, 10)
	if err != nil || len(ms) != 10 || len(f.calls) != 1 || f.calls[0] != [2]int{3, 10} {
		t.Fatalf("protocol run: %v, %d ms, calls %v; want one call (3, 10)", err, len(ms), f.calls)
	}
	f = &fakeBench{}
	ms, ranks, err := benchmarkChunked(context.Background(), f.call, 3, 400)
	if err != nil || len(ms) != 400 {
		t.Fatalf("%v, %d runs", err, len(ms))
	}
	for i, x := range ms {
		if x != float32(i) {
			t.Fatalf("run %d is %v: runs out of order", i, x)
		}
	}
	if len(f.calls) < 3 || ranks[0] != float32(len(f.calls)) {
		t.Errorf("calls %v, ranks from call %v: want several calls, ranks from the last", f.calls, ranks[0])
	}
	for _, c := range f.calls[1:] {
		if c[0] != 1 || c[1] > 200 {
			t.Errorf("later call %v: want 1 warm-up and at most ~0.25 s of 2 ms runs", c)
		}
	}
}

// TestBenchmarkChunkedStopsBetweenCalls: a cancel during the first call
// stops before the second; the error says how many runs were done.
func TestBenchmarkChunkedStopsBetweenCalls(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	f := &fakeBench{after: func(int) { cancel() }}
	_, _, err := benchmarkChunked(ctx, f.call, 3, 1000)
	if !errors.Is(err, context.Canceled) || len(f.calls) != 1 {
		t.Fatalf("%v after %d calls; want context.Canceled after 1", err, len(f.calls))
	}
	if want := "interrupted after 10 of 1000 timed runs"; err.Error()[:len(want)] != want {
		t.Errorf("error %q", err)
	}
}
