package reference

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/prlab/prlab/pkg/pagerank"
)

// TestWorkerPanicIsContained: a panic in one T1 worker goroutine (not the
// caller's) comes back as a panic on the caller's goroutine, naming the
// worker, with every worker goroutine ended and nothing left blocked at the
// barrier; the next run works normally.
func TestWorkerPanicIsContained(t *testing.T) {
	g, err := pagerank.RMAT(pagerank.Graph500RMAT(12, 3))
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []int{0, 1} { // the caller's worker, and a goroutine
		before := runtime.NumGoroutine()
		testHookIteration = func(w, k int) {
			if w == bad && k == 3 {
				panic(fmt.Sprintf("injected in worker %d", w))
			}
		}
		got := func() (v any) {
			defer func() { v = recover() }()
			Multicore(pagerank.Float32, 3).Run(g, pagerank.Fixed(20))
			return nil
		}()
		testHookIteration = nil
		msg, _ := got.(string)
		if !strings.Contains(msg, fmt.Sprintf("t1 worker %d of 3: injected in worker %d", bad, bad)) {
			t.Fatalf("worker %d: recovered %v, want the worker's panic", bad, got)
		}
		deadline := time.Now().Add(2 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			t.Fatalf("worker %d: %d goroutines left running (before: %d)", bad, n, before)
		}
	}
	res, err := Multicore(pagerank.Float32, 3).Run(g, pagerank.Fixed(20))
	if err != nil || res.Iterations != 20 {
		t.Fatalf("run after the panics: %v, %v", res, err)
	}
}
