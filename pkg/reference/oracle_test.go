package reference

import (
	"math"
	"strings"
	"testing"

	"github.com/prlab/prlab/pkg/pagerank"
)

// Hand computation on the tiny case (pagerank.TinyEdges), d = 0.85 = 17/20, n = 6:
//
//	edges  0->1 0->2 1->2 1->5 2->0 3->2 3->4 4->3 4->5; outdeg 2 2 1 2 2 0 (node 5 dangling)
//	in(0) = {2}, in(1) = {0}, in(2) = {0,1,3}, in(3) = {4}, in(4) = {3}, in(5) = {1,4}
//	(1-d)/n = 1/40
//
// Iteration 1: x0 = 1/6, contrib = (1/12, 1/12, 1/6, 1/12, 1/12, 0), D = 1/6, D/n = 1/36.
//
//	SpMV + D/n, in 36ths: v0: 6+1 = 7, v1: 3+1 = 4, v2: 3+3+3+1 = 10, v3: 4, v4: 4, v5: 3+3+1 = 7
//	x1[v] = 1/40 + (17/20)(k/36) = (18 + 17k)/720  ->  x1 = (137, 86, 188, 86, 86, 137)/720
//	sum = 720/720 = 1; residual = (17 + 34 + 68 + 34 + 34 + 17)/720 = 204/720 = 17/60
//
// Iteration 2, in units of 1/8640: contrib = (822, 516, 2256, 516, 516, 0),
// D = x1[5] = 137/720, D/n = 274.
//
//	t = SpMV + D/n: v0: 2256+274 = 2530, v1: 822+274 = 1096, v2: 822+516+516+274 = 2128,
//	    v3: 516+274 = 790, v4: 790, v5: 516+516+274 = 1306   (total 8640)
//	x2[v] = 1/40 + (17/20)(t/8640) = (4320 + 17t)/172800
//	     -> x2 = (47330, 22952, 40496, 17750, 17750, 26522)/172800
//	x1 in the same units = (32880, 20640, 45120, 20640, 20640, 32880)
//	residual = (14450 + 2312 + 4624 + 2890 + 2890 + 6358)/172800 = 33524/172800
var (
	tinyX1        = []float64{137.0 / 720, 86.0 / 720, 188.0 / 720, 86.0 / 720, 86.0 / 720, 137.0 / 720}
	tinyX2        = []float64{47330.0 / 172800, 22952.0 / 172800, 40496.0 / 172800, 17750.0 / 172800, 17750.0 / 172800, 26522.0 / 172800}
	tinyResiduals = []float64{204.0 / 720, 33524.0 / 172800}
)

func TestOracleTinyByHand(t *testing.T) {
	g := synthetic(t, "tiny")
	for iters, want := range map[int][]float64{1: tinyX1, 2: tinyX2} {
		res := run(t, Oracle(), g, pagerank.Fixed(iters))
		if e := maxAbsDiff(res.Ranks, want); e > 1e-15 {
			t.Errorf("after %d iterations ranks = %v, want %v (max error %.3g)", iters, res.Ranks, want, e)
		}
		for k := 0; k < iters; k++ {
			if math.Abs(res.Residuals[k]-tinyResiduals[k]) > 1e-15 {
				t.Errorf("residual of iteration %d = %.17g, want %.17g", k+1, res.Residuals[k], tinyResiduals[k])
			}
			if math.Abs(res.Sums[k]-1) > 1e-15 {
				t.Errorf("sum after iteration %d = %.17g, want 1", k+1, res.Sums[k])
			}
		}
		if res.Iterations != iters || res.Converged || res.Precision != pagerank.Float64 || res.Implementation != "t0-oracle" {
			t.Errorf("result metadata %+v", res)
		}
	}
}

// The converged oracle must equal the fixed point obtained by solving the
// linear system (I - d*M) x = (1-d)/n directly, where M is the Google
// matrix's link part with dangling columns replaced by 1/n.
func TestOracleFixedPointMatchesGaussianElimination(t *testing.T) {
	tinyEdges := append([][2]int32(nil), pagerank.TinyEdges...)
	cases := []struct {
		g     *pagerank.Graph
		edges [][2]int32
	}{
		{synthetic(t, "tiny"), tinyEdges}, // raw course edge list, not the CSR under test
	}
	for _, scale := range []int{6, 8} { // 64 and 256 nodes, with dangling nodes
		g := rmatGraph(t, scale, 4, uint64(scale))
		if g.DanglingCount == 0 {
			t.Fatalf("rmat scale %d has no dangling node; the test needs some", scale)
		}
		cases = append(cases, struct {
			g     *pagerank.Graph
			edges [][2]int32
		}{g, edgesOf(g)})
	}
	for _, c := range cases {
		want := googleSolve(c.g.N, c.edges, true)
		res := run(t, Oracle(), c.g, pagerank.Converge(1e-15, pagerank.MaxIterationsCap))
		if !res.Converged {
			t.Fatalf("%s (n=%d): not converged after %d iterations, residual %.3g", c.g.Name, c.g.N, res.Iterations, res.FinalResidual())
		}
		if e := maxRelDiff(res.Ranks, want); e > 1e-12 {
			t.Errorf("%s (n=%d): converged ranks differ from the direct solve by %.3g relative", c.g.Name, c.g.N, e)
		}
		if math.Abs(sum(want)-1) > 1e-13 {
			t.Errorf("%s: direct solve sums to %.17g, want 1", c.g.Name, sum(want))
		}
	}
}

// Summing the update over v gives (1-d) + d*(S-D) + d*D = S' = 1 when S = 1,
// so every iteration's sum is 1 up to rounding; and because the Google
// matrix is column-stochastic, the L1 residual contracts by at least d per
// iteration: x_{k+1} - x_k = d*M*(x_k - x_{k-1}) and ||M z||_1 <= ||z||_1.
func TestOracleSumInvariantAndContraction(t *testing.T) {
	for _, g := range pagerank.SyntheticCases() {
		res := run(t, Oracle(), g, pagerank.Fixed(pagerank.CorrectnessIterations))
		if res.Iterations != pagerank.CorrectnessIterations {
			t.Fatalf("%s: %d iterations, want %d", g.Name, res.Iterations, pagerank.CorrectnessIterations)
		}
		for k, s := range res.Sums {
			if math.Abs(s-1) > 1e-12 {
				t.Errorf("%s: sum after iteration %d = %.17g, want 1 within 1e-12", g.Name, k+1, s)
				break
			}
		}
		for k := 1; k < len(res.Residuals); k++ {
			if res.Residuals[k] > d*res.Residuals[k-1]+1e-15 {
				t.Errorf("%s: residual %d = %.3g exceeds d * previous %.3g", g.Name, k+1, res.Residuals[k], d*res.Residuals[k-1])
				break
			}
		}
		if math.Abs(sum(res.Ranks)-res.FinalSum()) > 1e-15 {
			t.Errorf("%s: recorded final sum %.17g but ranks sum to %.17g", g.Name, res.FinalSum(), sum(res.Ranks))
		}
	}
}

// Star: n = L+1 nodes, every leaf cites the hub (node 0), the hub is
// dangling. With h the hub's rank and l a leaf's (all leaves alike):
//
//	l = (1-d)/n + d*h/n               (no in-edges; the hub's rank comes back as D/n)
//	h = (1-d)/n + d*(L*l + h/n)
//
// Substituting l and using n = L+1: h*(1-d)*(1 + L(1+d)) = (1-d)*(1 + d*L), so
//
//	h = (1 + d*L) / (1 + (1+d)*L)     (= 8501/18501 for L = 10000)
func TestOracleStarClosedForm(t *testing.T) {
	g := synthetic(t, "star")
	n := float64(g.N)
	L := n - 1
	hub := (1 + d*L) / (1 + (1+d)*L)
	leaf := (1 - d + d*hub) / n
	res := run(t, Oracle(), g, pagerank.Converge(pagerank.OracleTolerance, pagerank.MaxIterationsCap))
	if !res.Converged {
		t.Fatalf("star: not converged in %d iterations", res.Iterations)
	}
	if math.Abs(res.Ranks[0]-hub) > 1e-11 {
		t.Errorf("star hub = %.15g, want %.15g", res.Ranks[0], hub)
	}
	for v := 1; v < g.N; v++ {
		if math.Abs(res.Ranks[v]-leaf) > 1e-14 {
			t.Fatalf("star leaf %d = %.15g, want %.15g", v, res.Ranks[v], leaf)
		}
	}
}

// Chain: node i cites i+1, the last node is dangling. With a = (1-d+d*D)/n
// (teleport plus the redistributed dangling rank D = x[n-1]):
//
//	x[0] = a, x[i] = a + d*x[i-1]  =>  x[i] = a*(1 - d^(i+1))/(1-d)
//	D = x[n-1] = a*q*n with q = (1 - d^n)/(n*(1-d))  =>  D = (1-d)*q / (1 - d*q)
func TestOracleChainClosedForm(t *testing.T) {
	g := synthetic(t, "chain")
	n := float64(g.N)
	q := (1 - math.Pow(d, n)) / (n * (1 - d))
	D := (1 - d) * q / (1 - d*q)
	a := (1 - d + d*D) / n
	// L1 error after stopping is at most residual*d/(1-d) < 6e-15.
	res := run(t, Oracle(), g, pagerank.Converge(1e-15, pagerank.MaxIterationsCap))
	if !res.Converged {
		t.Fatalf("chain: not converged in %d iterations", res.Iterations)
	}
	for i := 0; i < g.N; i++ {
		want := a * (1 - math.Pow(d, float64(i+1))) / (1 - d)
		if math.Abs(res.Ranks[i]-want) > 1e-14 {
			t.Fatalf("chain x[%d] = %.15g, want %.15g", i, res.Ranks[i], want)
		}
	}
}

// A single dangling node keeps rank 1: x' = (1-d) + d*(0 + 1/1) = 1.
func TestOracleSingleNode(t *testing.T) {
	res := run(t, Oracle(), synthetic(t, "single"), pagerank.Converge(1e-12, 10))
	if res.Ranks[0] != 1 || res.Residuals[0] != 0 || !res.Converged || res.Iterations != 1 {
		t.Errorf("single: ranks %v, residuals %v, converged %v after %d, want [1], [0], true after 1",
			res.Ranks, res.Residuals, res.Converged, res.Iterations)
	}
}

// Tolerance mode stops at the first iteration whose residual is below the
// tolerance; fixed mode ignores the residual; a cap that is too small ends
// a tolerance run unconverged.
func TestOracleModes(t *testing.T) {
	g := synthetic(t, "dangling")
	const tol = 1e-8
	conv := run(t, Oracle(), g, pagerank.Converge(tol, 1000))
	if !conv.Converged || conv.FinalResidual() >= tol {
		t.Fatalf("tolerance run: converged=%v final residual %.3g", conv.Converged, conv.FinalResidual())
	}
	for k, r := range conv.Residuals[:conv.Iterations-1] {
		if r < tol {
			t.Fatalf("tolerance run went on after iteration %d whose residual %.3g < %g", k+1, r, tol)
		}
	}
	fixed := run(t, Oracle(), g, pagerank.Fixed(conv.Iterations+5))
	if fixed.Iterations != conv.Iterations+5 || fixed.Converged {
		t.Errorf("fixed run: %d iterations, converged=%v, want %d, false", fixed.Iterations, fixed.Converged, conv.Iterations+5)
	}
	for k := range conv.Residuals { // same iteration, same numbers
		if fixed.Residuals[k] != conv.Residuals[k] {
			t.Fatalf("residual %d: fixed %.17g, tolerance %.17g", k+1, fixed.Residuals[k], conv.Residuals[k])
		}
	}
	capped := run(t, Oracle(), g, pagerank.Converge(tol, conv.Iterations-1))
	if capped.Converged || capped.Iterations != conv.Iterations-1 {
		t.Errorf("capped run: converged=%v after %d, want false after %d", capped.Converged, capped.Iterations, conv.Iterations-1)
	}
}

func TestRejectsBadInput(t *testing.T) {
	g := synthetic(t, "tiny")
	bad := []pagerank.Params{
		{Damping: 1, Mode: pagerank.FixedIterations, Iterations: 10},
		{Damping: 0.85, Mode: pagerank.FixedIterations, Iterations: 0},
		{Damping: 0.85, Mode: pagerank.Tolerance, Iterations: 10, Tolerance: 0},
		{Damping: 0.85, Mode: "sometimes", Iterations: 10},
	}
	impls := []pagerank.Implementation{Oracle(), NoDangling(), Multicore(pagerank.Float64, 2), Multicore(pagerank.Float32, 2)}
	for _, impl := range impls {
		for _, p := range bad {
			res, err := impl.Run(g, p)
			if err == nil || res != nil || !strings.Contains(err.Error(), p.Validate().Error()) {
				t.Errorf("%s with %+v: got (%v, %v), want Params.Validate's error %q", impl.Name(), p, res, err, p.Validate())
			}
		}
		broken := *g
		broken.InvOutDegree = broken.InvOutDegree[:3]
		if _, err := impl.Run(&broken, pagerank.Fixed(5)); err == nil || !strings.Contains(err.Error(), "InvOutDegree") {
			t.Errorf("%s on a graph with a short InvOutDegree: err %v", impl.Name(), err)
		}
		broken = *g
		broken.InColIdx = append([]int32(nil), g.InColIdx...)
		broken.InColIdx[4] = 6
		if _, err := impl.Run(&broken, pagerank.Fixed(5)); err == nil || !strings.Contains(err.Error(), "column index 6") {
			t.Errorf("%s on a graph with an out-of-range column index: err %v", impl.Name(), err)
		}
		if _, err := impl.Run(nil, pagerank.Fixed(5)); err == nil {
			t.Errorf("%s on a nil graph: no error", impl.Name())
		}
	}
	if _, err := Multicore("float16", 2).Run(g, pagerank.Fixed(5)); err == nil || !strings.Contains(err.Error(), "float16") {
		t.Errorf("float16: err %v, want an unsupported-precision error", err)
	}
}

// On the real citation graph the oracle converges to the tight tolerance,
// and its ranks satisfy the fixed-point equation evaluated independently,
// push-style over the out-edge CSR (each u scatters x[u]/outdeg(u) to the
// nodes it cites), rather than by the pull-style in-edge SpMV under test.
func TestOracleRealGraph(t *testing.T) {
	g := aanGraph(t)
	res := run(t, Oracle(), g, pagerank.Converge(pagerank.OracleTolerance, pagerank.MaxIterationsCap))
	if !res.Converged {
		t.Fatalf("aan: not converged in %d iterations", res.Iterations)
	}
	t.Logf("aan: %s; oracle converged to %g in %d iterations", g.Summary(), pagerank.OracleTolerance, res.Iterations)
	x := res.Ranks
	n := float64(g.N)
	y := make([]float64, g.N)
	mass := 0.0
	for u := 0; u < g.N; u++ {
		deg := g.OutRowPtr[u+1] - g.OutRowPtr[u]
		if deg == 0 {
			mass += x[u]
			continue
		}
		for _, v := range g.OutColIdx[g.OutRowPtr[u]:g.OutRowPtr[u+1]] {
			y[v] += x[u] / float64(deg)
		}
	}
	for v := range y {
		y[v] = (1-d)/n + d*(y[v]+mass/n)
	}
	// ||Gx - x||_1 <= ||x_k+1 - x_k||_1 (the last residual) plus rounding.
	if e := maxAbsDiff(y, x); e > 1e-12 {
		t.Errorf("aan: oracle ranks miss the push-style fixed-point equation by %.3g", e)
	}
	if math.Abs(res.FinalSum()-1) > 1e-12 {
		t.Errorf("aan: sum %.17g", res.FinalSum())
	}
}
