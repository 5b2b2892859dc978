package pagerank

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLoadAndBuildStopWhenCancelled: every loading and building step
// returns context.Canceled for a cancelled context, and the same result as
// without a context otherwise.
func TestLoadAndBuildStopWhenCancelled(t *testing.T) {
	done, cancel := context.WithCancel(context.Background())
	cancel()
	var b strings.Builder
	for i := range 200000 {
		fmt.Fprintf(&b, "%d %d\n", i, (i*7919)%200000)
	}
	path := filepath.Join(t.TempDir(), "edges.txt")
	os.WriteFile(path, []byte(b.String()), 0o644)
	if _, err := LoadEdgeListContext(done, path, "x"); !errors.Is(err, context.Canceled) {
		t.Errorf("LoadEdgeListContext: %v", err)
	}
	p := Graph500RMAT(14, 1)
	if _, _, _, err := RMATEdgesContext(done, p); !errors.Is(err, context.Canceled) {
		t.Errorf("RMATEdgesContext: %v", err)
	}
	n, src, dst, err := RMATEdges(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewGraphContext(done, "r", n, src, dst, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("NewGraphContext: %v", err)
	}
	if _, err := NewGraphParallelContext(done, "r", n, src, dst, nil, 2); !errors.Is(err, context.Canceled) {
		t.Errorf("NewGraphParallelContext: %v", err)
	}
	// Uncancelled: the same graph as the plain builders.
	live, stop := context.WithCancel(context.Background())
	defer stop()
	a, err := NewGraphParallelContext(live, "r", n, src, dst, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := NewGraph("r", n, src, dst, nil)
	if a.NNZ != want.NNZ || a.Duplicates != want.Duplicates || fmt.Sprint(a.InColIdx[:50]) != fmt.Sprint(want.InColIdx[:50]) {
		t.Errorf("parallel build with a live context differs")
	}
	g, err := LoadEdgeListContext(live, path, "x")
	if err != nil || g.N != 200000 {
		t.Errorf("LoadEdgeListContext with a live context: %v", err)
	}
}

// TestBuildStopsMidway: a cancel during the build of R-MAT 2^20 (16M edges)
// ends it midway: the build returns context.Canceled, and the time from the
// cancel to its return is under half of an uncancelled build of the same
// kind timed just before (a bound relative to this machine's speed, so a
// loaded 2-core CI machine does not fail it; a build that checks the
// context only at its end would take the whole remaining build time).
func TestBuildStopsMidway(t *testing.T) {
	if testing.Short() {
		t.Skip("builds R-MAT 2^20")
	}
	n, src, dst, err := RMATEdges(Graph500RMAT(20, 1))
	if err != nil {
		t.Fatal(err)
	}
	for _, build := range []struct {
		name string
		f    func(context.Context) (*Graph, error)
	}{
		{"serial", func(ctx context.Context) (*Graph, error) { return NewGraphContext(ctx, "r", n, src, dst, nil) }},
		{"parallel", func(ctx context.Context) (*Graph, error) {
			return NewGraphParallelContext(ctx, "r", n, src, dst, nil, 2)
		}},
	} {
		start := time.Now()
		if g, err := build.f(context.Background()); err != nil || g.N != n {
			t.Fatalf("%s: uncancelled build: %v", build.name, err)
		}
		full := time.Since(start)
		ctx, cancel := context.WithCancel(context.Background())
		var at time.Time
		time.AfterFunc(100*time.Millisecond, func() { at = time.Now(); cancel() })
		g, err := build.f(ctx)
		if g != nil || !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v (built before the cancel?)", build.name, err)
			continue
		}
		if took := time.Since(at); took > full/2 {
			t.Errorf("%s: stopped %v after the cancel; an uncancelled build took %v", build.name, took, full)
		}
	}
}
