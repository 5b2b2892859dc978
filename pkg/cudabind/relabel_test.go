package cudabind

// Tests of the relabelled designs (designs.go, relabel.go). TestLocalityRegistry
// needs no GPU; TestReorderedWithFakeLibrary (reordered_fake_test.go) runs
// the glue end to end on the CPU stand-in library; TestGPUReordered* need a
// GPU and libprlab_cuda.so and skip with the reason otherwise.

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/prlab/prlab/pkg/pagerank"
)

func TestLocalityRegistry(t *testing.T) {
	all := Designs()
	names := make([]string, len(all))
	for i, im := range all {
		names[i] = im.Name()
	}
	want := map[string]string{NameCusparseReordered: NameCusparse, NameFusedReordered: NameFused, NameT4BucketedReordered: NameT4Bucketed}
	ls := relabelledDesigns()
	if len(ls) != len(want) {
		t.Fatalf("%d relabelled designs, want %d", len(ls), len(want))
	}
	for _, im := range ls {
		ri := designImpl(im)
		inner := mustDesign(t, ri.kernelsOf)
		if want[im.Name()] != ri.kernelsOf || inner.id != ri.id || inner.order != "" || ri.order != LocalityOrder {
			t.Errorf("%s runs %s (code %d, inner code %d), want %s", im.Name(), ri.kernelsOf, ri.id, inner.id, want[im.Name()])
		}
		if !slices.Contains(names, im.Name()) {
			t.Errorf("%s is not in AllImplementations", im.Name())
		}
		if _, ok := im.(pagerank.Benchmarker); !ok {
			t.Errorf("%s is not a Benchmarker", im.Name())
		}
		u, ok := im.(pagerank.Unavailable)
		if !ok {
			t.Fatalf("%s is not Unavailable", im.Name())
		}
		if u.Reason() != inner.Reason() {
			t.Errorf("%s: reason %q differs from its inner implementation's", im.Name(), u.Reason())
		}
		if im.Precision() != pagerank.Float32 || !strings.Contains(im.Label(), "relabelled by out-degree") {
			t.Errorf("%s: precision %q, label %q", im.Name(), im.Precision(), im.Label())
		}
		if back, ok := DesignByName(im.Name()); !ok || back.Name() != im.Name() {
			t.Errorf("DesignByName(%q) = %v, %v", im.Name(), back, ok)
		}
	}
	if LocalityOrder != pagerank.OrderOutDegree {
		t.Errorf("locality order %q", LocalityOrder)
	}
}

// Without a GPU, Run and Benchmark fail with ErrUnavailable before any
// relabelling (no host time spent on a graph that cannot run).
func TestLocalityUnavailableWithoutGPU(t *testing.T) {
	if ok, _ := Available(); ok {
		t.Skip("a GPU is available")
	}
	g := pagerank.SyntheticCases()[0]
	ReleaseRelabelled()
	before, had := LastRelabelling()
	for _, im := range relabelledDesigns() {
		if _, err := im.Run(g, pagerank.Fixed(10)); !errors.Is(err, ErrUnavailable) || !errors.Is(err, pagerank.ErrUnavailable) {
			t.Errorf("%s Run: %v, want ErrUnavailable", im.Name(), err)
		}
		if _, err := im.(pagerank.Benchmarker).Benchmark(g, pagerank.Fixed(10), 1, 1); !errors.Is(err, ErrUnavailable) {
			t.Errorf("%s Benchmark: %v, want ErrUnavailable", im.Name(), err)
		}
		if _, err := im.Run(g, pagerank.Params{}); err == nil || errors.Is(err, ErrUnavailable) {
			t.Errorf("%s: invalid params gave %v", im.Name(), err)
		}
	}
	if after, has := LastRelabelling(); has != had || after.Graph != before.Graph || relabel.g != nil {
		t.Errorf("a relabelling ran without a GPU: %+v", after)
	}
}

// The relabel cache: one relabelling per graph, shared, logged once.
func TestRelabelCache(t *testing.T) {
	g := rmat(t, 10, 3)
	var log bytes.Buffer
	SetRelabelLog(&log)
	defer SetRelabelLog(nil)
	ReleaseRelabelled()
	rg, perm, info, err := relabelled(g)
	if err != nil {
		t.Fatal(err)
	}
	rg2, _, _, _ := relabelled(g)
	if rg2 != rg || strings.Count(log.String(), "relabel rmat10 by out-degree") != 1 {
		t.Errorf("relabelling not cached: %q", log.String())
	}
	if last, ok := LastRelabelling(); !ok || last.Graph != "rmat10" || last.NNZ != g.NNZ || last.TotalMs < last.RelabelMs {
		t.Errorf("LastRelabelling = %+v, %v", last, ok)
	}
	if info.GatheredPrefix != g.N-g.DanglingCount || rg.OutDegree[info.GatheredPrefix-1] == 0 {
		t.Errorf("gathered prefix %d, want %d non-dangling nodes first", info.GatheredPrefix, g.N-g.DanglingCount)
	}
	if info.After.Share[0] < info.Before.Share[0] || info.After.Lines > info.Before.Lines {
		t.Errorf("locality before %+v after %+v", info.Before, info.After)
	}
	want, _ := pagerank.DegreeOrder(g, pagerank.OrderOutDegree)
	if !slices.Equal(perm, want) || rg.OutRowPtr != nil || rg.Name != "rmat10~out-degree" {
		t.Errorf("cached relabelling is not the out-degree order of g (in-edges only)")
	}
	t.Log(info.String())
	ReleaseRelabelled()
	if _, _, _, err := relabelled(&pagerank.Graph{Name: "broken", N: 3}); err == nil {
		t.Error("inconsistent graph accepted")
	}
}

// Every relabelled design on the six synthetic cases and the real
// graph, 100 fixed iterations, against the float64 oracle on the graph's own
// labels; ranks equal the inner implementation's on the relabelled graph,
// permuted back: bit for bit for the fixed-order kernels (fused, T4), within
// float rounding for cuSPARSE, whose default CSR_ALG1 sums split rows in a
// run-dependent order (two runs differed by 8e-8 relative on rmat16 on the
// H200, 2026-11-30); Benchmark reports the relabel row.
func TestGPUReorderedCorrectness(t *testing.T) {
	frNeedGPU(t)
	iters, graphs := frCorrectnessCases(t)
	rm := rmat(t, 16, 1)
	graphs = append(graphs, rm)
	for _, g := range graphs {
		ref := frOracle(t, g, pagerank.Fixed(iters))
		for _, im := range relabelledDesigns() {
			res, v, ok := runValidated(t, im, g, iters, ref)
			if !ok {
				continue
			}
			if !v.Pass {
				t.Errorf("%s on %s fails validation: %+v", im.Name(), g.Name, v)
			}
			t.Logf("  %-10s %-26s n=%-6d nnz=%-7d err/tol=%6.3f sum-1=%+.2e (allowed %.2e) rho=%.6f  %s",
				g.Name, im.Name(), g.N, g.NNZ, v.ErrOverTol, v.SumMinus1, v.SumAllowed, v.Spearman, passOrFail(v))
			if res.Implementation != im.Name() || res.Case != g.Name || len(res.Ranks) != g.N || res.Iterations != iters {
				t.Errorf("%s on %s: result metadata %s / %s / %d ranks / %d iterations", im.Name(), g.Name, res.Implementation, res.Case, len(res.Ranks), res.Iterations)
			}
			if math.Abs(res.FinalSum()-(1+v.SumMinus1)) > 1e-6 {
				t.Errorf("%s on %s: device sum %.9f, host sum %.9f", im.Name(), g.Name, res.FinalSum(), 1+v.SumMinus1)
			}
			// The same kernels on the relabelled graph, permuted back by hand.
			rg, perm, _, _ := relabelled(g)
			inner, err := mustDesign(t, designImpl(im).kernelsOf).Run(rg, pagerank.Fixed(iters))
			if err != nil {
				t.Fatalf("%s on %s: %v", designImpl(im).kernelsOf, rg.Name, err)
			}
			tol := 0.0 // fixed-order reductions: the same bits
			if designImpl(im).kernelsOf == NameCusparse {
				tol = 1e-5
			}
			for old, nw := range perm {
				if d := math.Abs(res.Ranks[old] - inner.Ranks[nw]); d > tol*math.Abs(inner.Ranks[nw]) {
					t.Errorf("%s on %s: rank of node %d is %v, the inner run's rank of its new label %d is %v", im.Name(), g.Name, old, res.Ranks[old], nw, inner.Ranks[nw])
					break
				}
			}
		}
		if info, ok := LastRelabelling(); ok && info.Graph == g.Name {
			t.Logf("  %s", info)
		}
	}
	// Benchmark: the inner timing, ranks in g's order, and the relabel row.
	g := graphs[len(graphs)-1]
	for _, im := range relabelledDesigns() {
		res, err := im.(pagerank.Benchmarker).Benchmark(g, pagerank.Fixed(20), 1, 3)
		if err != nil {
			t.Fatalf("%s Benchmark on %s: %v", im.Name(), g.Name, err)
		}
		last := res.Stages[len(res.Stages)-1]
		if res.Timing == nil || len(res.Timing.RunsMs) != 3 || !strings.HasPrefix(last.Name, "one-time host relabel by out-degree") || last.Ms <= 0 || last.Bytes != 0 {
			t.Errorf("%s Benchmark: timing %+v, last stage %+v", im.Name(), res.Timing, last)
		}
		ref := frOracle(t, g, pagerank.Fixed(20))
		if v := pagerank.Validate(g, res, ref); !v.Pass {
			t.Errorf("%s Benchmark ranks on %s fail validation: %+v", im.Name(), g.Name, v)
		}
		t.Logf("  %-26s on %s: %.4f ms per iteration (20 x 3), relabel %.1f ms", im.Name(), g.Name, res.Timing.MsPerIteration(), last.Ms)
	}
	ReleaseRelabelled()
}
