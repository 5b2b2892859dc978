package reference

import (
	"math"
	"slices"
	"testing"

	"github.com/prlab/prlab/pkg/pagerank"
)

// On tiny (node 5 dangling) the exercise variant fails the per-element
// check against the oracle. By hand, iteration 1 without D/n: the SpMV sums
// in 36ths are (6, 3, 9, 3, 3, 6), x1 = (18 + 17k)/720 = (120, 69, 171, 69,
// 69, 120)/720, which sums to 618/720 = 1 - d*D with D = 1/6.
func TestNoDanglingFailsTiny(t *testing.T) {
	g := synthetic(t, "tiny")
	one := run(t, NoDangling(), g, pagerank.Fixed(1))
	want := []float64{120.0 / 720, 69.0 / 720, 171.0 / 720, 69.0 / 720, 69.0 / 720, 120.0 / 720}
	if e := maxAbsDiff(one.Ranks, want); e > 1e-15 {
		t.Errorf("iteration 1: ranks %v, want %v", one.Ranks, want)
	}
	if math.Abs(one.Sums[0]-618.0/720) > 1e-15 {
		t.Errorf("iteration 1: sum %.17g, want 618/720", one.Sums[0])
	}

	p := pagerank.Fixed(pagerank.CorrectnessIterations)
	oracle := run(t, Oracle(), g, p)
	v := pagerank.Validate(g, run(t, NoDangling(), g, p), oracle)
	if v.Pass || v.ErrPass || v.SumPass {
		t.Errorf("tiny: the no-dangling variant passes validation: %+v", v)
	}
	if v.ErrOverTol < 10 {
		t.Errorf("tiny: per-element error only %.3g x tolerance", v.ErrOverTol)
	}
	if v.Spearman != 1 {
		t.Errorf("tiny: Spearman %.6f, want 1 (the order is unchanged)", v.Spearman)
	}
	t.Logf("tiny: err/tol %.1f, sum-1 %+.4f (allowed %.2g)", v.ErrOverTol, v.SumMinus1, v.SumAllowed)
}

// Without dangling nodes D = 0, so the variant is the oracle, bit for bit.
func TestNoDanglingPassesNoDangling(t *testing.T) {
	g := synthetic(t, "nodangling")
	if g.DanglingCount != 0 {
		t.Fatalf("nodangling has %d dangling nodes", g.DanglingCount)
	}
	p := pagerank.Fixed(pagerank.CorrectnessIterations)
	oracle, nd := run(t, Oracle(), g, p), run(t, NoDangling(), g, p)
	if i := sameBits(nd.Ranks, oracle.Ranks); i >= 0 {
		t.Errorf("nodangling: rank %d is %.17g, oracle %.17g", i, nd.Ranks[i], oracle.Ranks[i])
	}
	if v := pagerank.Validate(g, nd, oracle); !v.Pass {
		t.Errorf("nodangling: %+v", v)
	}
}

// Summing the broken update over v gives S' = (1-d) + d*(S - D), so at the
// fixed point S = 1 - D*d/(1-d), D being the dangling mass of the broken
// fixed point itself (d/(1-d) = 17/3 at d = 0.85). And since both fixed
// points solve x = k*1 + d*A*x with the same A, the broken ranks are the
// correct ones times k0/k1 = (1-d)/(1-d+d*D_oracle), node by node.
func TestNoDanglingSumSettles(t *testing.T) {
	graphs := []*pagerank.Graph{synthetic(t, "tiny"), synthetic(t, "dangling"), synthetic(t, "star"), synthetic(t, "chain"), rmatGraph(t, 14, 6, 11)}
	// Converged to the oracle's L1 tolerance 1e-12 (the star cannot go much
	// lower: its hub row sums 10^4 terms, and the float64 rounding of that sum
	// keeps the residual at about 6e-13), each rank vector is within
	// d/(1-d)*1e-12 < 6e-12 (L1) of its fixed point, so the predicted sum is
	// good to (1 + d/(1-d))*6e-12 < 4e-11, and the L1 distance between the
	// broken vector and the scaled correct one is below about 2e-11.
	p := pagerank.Converge(pagerank.OracleTolerance, pagerank.MaxIterationsCap)
	for _, g := range graphs {
		nd, oracle := run(t, NoDangling(), g, p), run(t, Oracle(), g, p)
		if !nd.Converged || !oracle.Converged {
			t.Fatalf("%s: not converged (%d, %d iterations)", g.Name, nd.Iterations, oracle.Iterations)
		}
		D := danglingMass(g, nd.Ranks)
		predicted := 1 - D*d/(1-d)
		if math.Abs(nd.FinalSum()-predicted) > 1e-10 {
			t.Errorf("%s: sum settles at %.15g, predicted 1 - D*d/(1-d) = %.15g (D = %.6g)", g.Name, nd.FinalSum(), predicted, D)
		}
		if 1-nd.FinalSum() < 1e-4 {
			t.Errorf("%s: sum %.9f: no visible leak, the case tests nothing", g.Name, nd.FinalSum())
		}
		ratio := (1 - d) / (1 - d + d*danglingMass(g, oracle.Ranks))
		l1 := 0.0
		for v := range nd.Ranks {
			l1 += math.Abs(nd.Ranks[v] - ratio*oracle.Ranks[v])
		}
		if l1 > 1e-10 {
			t.Errorf("%s: broken ranks differ from the correct ones times %.6f by %.3g (L1)", g.Name, ratio, l1)
		}
		// The direct solve of the broken system agrees too (small graphs only).
		if g.N <= 64 {
			want := googleSolve(g.N, edgesOf(g), false)
			if e := maxRelDiff(nd.Ranks, want); e > 1e-10 {
				t.Errorf("%s: broken fixed point differs from its direct solve by %.3g", g.Name, e)
			}
		}
		t.Logf("%-8s D=%.6f predicted sum %.9f measured %.9f (%d iterations)", g.Name, D, predicted, nd.FinalSum(), nd.Iterations)
	}
}

// The top-20 order does not change: the broken vector is the correct one
// scaled by a constant below 1. Checked on the dangling cases, on a random
// graph the size of the real one, and on the real graph when present.
func TestNoDanglingKeepsTop20(t *testing.T) {
	graphs := []*pagerank.Graph{synthetic(t, "dangling"), synthetic(t, "star"), synthetic(t, "chain"), rmatGraph(t, 14, 6, 5)}
	if _, err := statAAN(); err == nil {
		graphs = append(graphs, aanGraph(t))
	}
	p := pagerank.Fixed(pagerank.CorrectnessIterations)
	for _, g := range graphs {
		if g.DanglingCount == 0 {
			t.Fatalf("%s has no dangling node", g.Name)
		}
		want := pagerank.TopK(run(t, Oracle(), g, p).Ranks, 20)
		got := pagerank.TopK(run(t, NoDangling(), g, p).Ranks, 20)
		if !slices.Equal(got, want) {
			t.Errorf("%s: top 20 without redistribution %v, with %v", g.Name, got, want)
		}
	}
}
