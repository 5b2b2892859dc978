package cudabind

import (
	"math"
	"strings"
	"testing"

	"github.com/prlab/prlab/pkg/pagerank"
)

// fltEpsilon is FLT_EPSILON (2^-23).
const fltEpsilon = 1.1920928955078125e-07

// oracle64 is a float64 PageRank of g (the course's update rule, x0 = 1/n),
// written here so these tests depend on nothing outside pkg/pagerank:
//
//	x'[v] = (1-d)/n + d (sum over in-edges u->v of x[u]/outdeg(u) + D/n),  D = rank on dangling nodes.
//
// With tol > 0 it stops after the first iteration whose L1 residual is below
// tol. It returns the ranks and the number of iterations run.
func oracle64(g *pagerank.Graph, d float64, iters int, tol float64) ([]float64, int) {
	n := g.N
	x := make([]float64, n)
	xn := make([]float64, n)
	for i := range x {
		x[i] = 1 / float64(n)
	}
	k := 0
	for k < iters {
		mass := 0.0
		for u := 0; u < n; u++ {
			if g.Dangling[u] != 0 {
				mass += x[u]
			}
		}
		res := 0.0
		for v := 0; v < n; v++ {
			s := 0.0
			for e := g.InRowPtr[v]; e < g.InRowPtr[v+1]; e++ {
				u := g.InColIdx[e]
				s += x[u] * g.InvOutDegree[u]
			}
			xn[v] = (1-d)/float64(n) + d*(s+mass/float64(n))
			res += math.Abs(xn[v] - x[v])
		}
		x, xn = xn, x
		k++
		if tol > 0 && res < tol {
			break
		}
	}
	return x, k
}

// maxRelErr is max_i |got_i - want_i| / |want_i|.
func maxRelErr(got, want []float64) float64 {
	m := 0.0
	for i := range want {
		if r := math.Abs(got[i]-want[i]) / math.Abs(want[i]); r > m || math.IsNaN(r) {
			m = r
			if math.IsNaN(r) {
				return math.Inf(1)
			}
		}
	}
	return m
}

// useLibrary makes the package use the library at path (as if it were the
// only candidate) for the rest of the test, then restores the real probe.
func useLibrary(t *testing.T, path string) (reason string) {
	t.Helper()
	real := load() // the process's real probe, kept for restore
	mu.Lock()
	prevSess, prevCopy := current, copyRowCache
	lib, p, r := probe([]string{path}, 0)
	loaded = state{lib: lib, path: p, reason: r}
	current, copyRowCache = nil, map[int64]pagerank.Stage{}
	mu.Unlock()
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		if current != nil && loaded.lib != nil {
			_ = loaded.lib.graphFree(current.h)
		}
		if loaded.lib != nil {
			loaded.lib.close()
		}
		loaded, current, copyRowCache = real, prevSess, prevCopy
	})
	return r
}

// synthetic returns the six course cases (pagerank.SyntheticCases).
func synthetic(t *testing.T) []*pagerank.Graph {
	t.Helper()
	gs := pagerank.SyntheticCases()
	if len(gs) != 6 {
		t.Fatalf("%d synthetic cases, want 6", len(gs))
	}
	return gs
}

// rmat returns the Graph500 R-MAT graph of 2^scale nodes drawn from seed
// (pagerank.Graph500RMAT), failing the test if it cannot be built.
func rmat(t *testing.T, scale int, seed uint64) *pagerank.Graph {
	t.Helper()
	g, err := pagerank.RMAT(pagerank.Graph500RMAT(scale, seed))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// runValidated runs im on g for iters fixed iterations and validates its
// ranks against ref (pagerank.Validate); a run error is reported on t as
// "NAME on CASE: err" and ok is false.
func runValidated(t *testing.T, im pagerank.Implementation, g *pagerank.Graph, iters int, ref *pagerank.Result) (res *pagerank.Result, v pagerank.Validation, ok bool) {
	t.Helper()
	res, err := im.Run(g, pagerank.Fixed(iters))
	if err != nil {
		t.Errorf("%s on %s: %v", im.Name(), g.Name, err)
		return nil, v, false
	}
	return res, pagerank.Validate(g, res, ref), true
}

// passOrFail is a validation's verdict in the GPU tests' logs.
func passOrFail(v pagerank.Validation) string {
	if v.Pass {
		return "pass"
	}
	return "FAIL"
}

// designsWhere returns the designs (in report order) for which keep is true.
func designsWhere(keep func(d *design) bool) []pagerank.Implementation {
	var out []pagerank.Implementation
	for _, im := range Designs() {
		if keep(&designImpl(im).design) {
			out = append(out, im)
		}
	}
	return out
}

// stageDesigns: the stage-by-stage designs on the graph as given (the course's).
func stageDesigns() []pagerank.Implementation {
	return designsWhere(func(d *design) bool { return d.family == familyStages && d.order == "" })
}

// layoutDesigns: the layout designs on the graph as given.
func layoutDesigns() []pagerank.Implementation {
	return designsWhere(func(d *design) bool { return d.family == familyLayout && d.order == "" })
}

// relabelledDesigns: the designs that run another design's kernels on the
// graph relabelled by out-degree.
func relabelledDesigns() []pagerank.Implementation {
	return designsWhere(func(d *design) bool { return d.order != "" && d.kernelsOf != "" })
}

// ownRelabelledDesigns: the designs whose own kernels run only on the
// relabelled graph (gpu-hothead, gpu-hothead-packed, gpu-prop-blocking).
func ownRelabelledDesigns() []pagerank.Implementation {
	return designsWhere(func(d *design) bool { return d.order != "" && d.kernelsOf == "" })
}

// hotHeadDesigns: gpu-hothead and gpu-hothead-packed (the hot-head knobs' designs).
func hotHeadDesigns() []pagerank.Implementation {
	return designsWhere(func(d *design) bool { return d.id == implHotHead || d.id == implHotHeadPacked })
}

// mustDesign returns the design named name.
func mustDesign(t *testing.T, name string) *gpuDesign {
	t.Helper()
	im, ok := DesignByName(name)
	if !ok {
		t.Fatalf("no design %q", name)
	}
	return designImpl(im)
}

// isLayout reports whether im is a layout design.
func isLayout(im pagerank.Implementation) bool {
	d := designImpl(im)
	return d != nil && d.family == familyLayout
}

// designImpl is the gpuDesign behind a GPU implementation (a residentDesign's
// embedded one), or nil.
func designImpl(im pagerank.Implementation) *gpuDesign {
	switch d := im.(type) {
	case *gpuDesign:
		return d
	case *residentDesign:
		return &d.gpuDesign
	}
	return nil
}

// runFixedChecked runs im (at knob setting config) for iters fixed
// iterations on g and checks the run against the oracle ref: it passes
// pagerank.Validate, gives g.N ranks, iters iterations and iters residuals
// (errors name design, setting and graph; the validation is logged). It
// returns that run and a second one of the same setting, for the caller's
// own comparison of the bits, or nil, nil when the first run fails (an
// error of the test already); a failing second run stops the test.
func runFixedChecked(t *testing.T, im pagerank.Implementation, config string, g *pagerank.Graph, ref *pagerank.Result, iters int) (res, again *pagerank.Result) {
	t.Helper()
	res, err := im.Run(g, pagerank.Fixed(iters))
	if err != nil {
		t.Errorf("%s (%s) on %s: %v", im.Name(), config, g.Name, err)
		return nil, nil
	}
	v := pagerank.Validate(g, res, ref)
	if !v.Pass {
		t.Errorf("%s (%s) on %s fails validation: %+v", im.Name(), config, g.Name, v)
	}
	t.Logf("  %-10s %-14s n=%-6d nnz=%-7d err/tol=%6.3f sum-1=%+.2e rho=%.6f", g.Name, config, g.N, g.NNZ, v.ErrOverTol, v.SumMinus1, v.Spearman)
	if len(res.Ranks) != g.N || res.Iterations != iters || len(res.Residuals) != iters {
		t.Errorf("%s (%s) on %s: %d ranks, %d iterations, %d residuals", im.Name(), config, g.Name, len(res.Ranks), res.Iterations, len(res.Residuals))
	}
	again, err = im.Run(g, pagerank.Fixed(iters))
	if err != nil {
		t.Fatal(err)
	}
	return res, again
}

// checkToleranceRun runs im on g in tolerance mode (until the device's L1
// residual falls below pagerank.FloatTolerance, at most 1000 iterations)
// and checks that it stopped for that reason: converged exactly when the
// last residual is below the tolerance, else after all 1000 iterations.
func checkToleranceRun(t *testing.T, im pagerank.Implementation, g *pagerank.Graph) {
	t.Helper()
	tr, err := im.Run(g, pagerank.Converge(pagerank.FloatTolerance, 1000))
	if err != nil {
		t.Fatalf("%s tolerance run on %s: %v", im.Name(), g.Name, err)
	}
	if last := tr.Residuals[len(tr.Residuals)-1]; tr.Converged != (last < pagerank.FloatTolerance) || (!tr.Converged && tr.Iterations != 1000) {
		t.Errorf("%s tolerance run on %s: converged %v after %d, last residual %g", im.Name(), g.Name, tr.Converged, tr.Iterations, last)
	}
}

// oneTimeRows benchmarks im on g (5 fixed iterations, no warm-up, one run)
// and checks that the result's one-time rows (kind pagerank.StageRelabel,
// outside the timed iterations) are, in order, len(prefixes) rows whose
// names start with prefixes; it returns those rows.
func oneTimeRows(t *testing.T, im *gpuDesign, g *pagerank.Graph, prefixes ...string) []pagerank.Stage {
	t.Helper()
	b, err := im.Benchmark(g, pagerank.Fixed(5), 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	var rows []pagerank.Stage
	var names []string
	for _, st := range b.Stages {
		if st.Kind == pagerank.StageRelabel {
			rows, names = append(rows, st), append(names, st.Name)
		}
	}
	ok := len(names) == len(prefixes)
	for i := 0; ok && i < len(prefixes); i++ {
		ok = strings.HasPrefix(names[i], prefixes[i])
	}
	if !ok {
		t.Errorf("one-time rows of the benchmark: %q, want names starting with %q", names, prefixes)
	}
	return rows
}

// setRelabelledKnobs sets each knob k of knobs to its value in the session of
// g relabelled by LocalityOrder (the graph the relabelled designs run on,
// which the next Run or Benchmark of g reuses); kind names the knobs in the
// fatal error of a refused setting.
func setRelabelledKnobs(t *testing.T, g *pagerank.Graph, kind string, knobs map[int]int) {
	t.Helper()
	rg, _, _, err := relabelled(g)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range knobs {
		if err := setLayoutKnob(rg, k, v); err != nil {
			t.Fatalf("%s knob %d = %d on %s: %v", kind, k, v, rg.Name, err)
		}
	}
}
