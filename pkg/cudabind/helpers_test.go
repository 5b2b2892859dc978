package cudabind

import (
	"math"
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
