package reference

import (
	"math"
	"os"
	"sync"
	"testing"

	"github.com/prlab/prlab/internal/fixture"
	"github.com/prlab/prlab/pkg/pagerank"
)

const d = pagerank.DefaultDamping

// synthetic returns the lead's named synthetic case or fails the test.
func synthetic(t testing.TB, name string) *pagerank.Graph {
	t.Helper()
	g, err := pagerank.SyntheticCase(name)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// run runs impl on g with p or fails the test.
func run(t testing.TB, impl pagerank.Implementation, g *pagerank.Graph, p pagerank.Params) *pagerank.Result {
	t.Helper()
	res, err := impl.Run(g, p)
	if err != nil {
		t.Fatalf("%s on %s: %v", impl.Name(), g.Name, err)
	}
	if len(res.Ranks) != g.N || res.N != g.N || res.NNZ != g.NNZ || res.Case != g.Name {
		t.Fatalf("%s on %s: result shape n=%d nnz=%d case=%q ranks=%d, want n=%d nnz=%d", impl.Name(), g.Name,
			res.N, res.NNZ, res.Case, len(res.Ranks), g.N, g.NNZ)
	}
	if len(res.Residuals) != res.Iterations || len(res.Sums) != res.Iterations {
		t.Fatalf("%s on %s: %d residuals and %d sums for %d iterations", impl.Name(), g.Name,
			len(res.Residuals), len(res.Sums), res.Iterations)
	}
	return res
}

// rmatGraph builds the lead's R-MAT graph (pagerank.RMAT: Graph500
// quadrant probabilities, scrambled node ids) with 2^scale nodes and
// edgeFactor*2^scale generated edges; self-loops and duplicates are dropped,
// and low-probability nodes end up with no out-edge, i.e. dangling.
func rmatGraph(t testing.TB, scale, edgeFactor int, seed uint64) *pagerank.Graph {
	t.Helper()
	p := pagerank.Graph500RMAT(scale, seed)
	p.EdgeFactor = edgeFactor
	g, err := pagerank.RMAT(p)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// aanPath is the bundled ACL Anthology Network edge list (repository root
// data/aan/acl.txt.gz, committed); PRLAB_AAN_EDGES overrides it.
func aanPath() string {
	if p := os.Getenv("PRLAB_AAN_EDGES"); p != "" {
		return p
	}
	return fixture.Bundled(fixture.Edges)
}

var aan struct {
	once sync.Once
	g    *pagerank.Graph
	err  error
}

// aanGraph loads the real citation graph once; a missing file fails the
// calling test or benchmark with the mend.
func aanGraph(t testing.TB) *pagerank.Graph {
	t.Helper()
	path := aanPath()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("real graph not present (%v): restore it with `git checkout data/aan` or set PRLAB_AAN_EDGES", err)
	}
	aan.once.Do(func() { aan.g, aan.err = pagerank.LoadEdgeList(path, "aan") })
	if aan.err != nil {
		t.Fatal(aan.err)
	}
	return aan.g
}

// googleSolve computes the PageRank fixed point independently of the
// iteration: it forms the dense n x n matrix M from the raw edge list
// (M[v][u] = 1/outdeg(u) for an edge u -> v; when redistribute, M[v][u] =
// 1/n for every v if u has no out-edge) and solves (I - d*M) x = (1-d)/n * 1
// by Gaussian elimination with partial pivoting in float64. Edges must be
// free of self-loops and duplicates.
func googleSolve(n int, edges [][2]int32, redistribute bool) []float64 {
	outdeg := make([]int, n)
	for _, e := range edges {
		outdeg[e[0]]++
	}
	a := make([][]float64, n) // augmented [I - dM | b]
	for v := range a {
		a[v] = make([]float64, n+1)
		a[v][v] = 1
		a[v][n] = (1 - d) / float64(n)
	}
	for _, e := range edges {
		u, v := e[0], e[1]
		a[v][u] -= d / float64(outdeg[u])
	}
	if redistribute {
		for u := 0; u < n; u++ {
			if outdeg[u] == 0 {
				for v := 0; v < n; v++ {
					a[v][u] -= d / float64(n)
				}
			}
		}
	}
	for col := 0; col < n; col++ {
		piv := col
		for r := col + 1; r < n; r++ {
			if math.Abs(a[r][col]) > math.Abs(a[piv][col]) {
				piv = r
			}
		}
		a[col], a[piv] = a[piv], a[col]
		for r := col + 1; r < n; r++ {
			f := a[r][col] / a[col][col]
			if f == 0 {
				continue
			}
			for c := col; c <= n; c++ {
				a[r][c] -= f * a[col][c]
			}
		}
	}
	x := make([]float64, n)
	for r := n - 1; r >= 0; r-- {
		s := a[r][n]
		for c := r + 1; c < n; c++ {
			s -= a[r][c] * x[c]
		}
		x[r] = s / a[r][r]
	}
	return x
}

// edgesOf lists g's edges (u -> v) from its out-edge CSR.
func edgesOf(g *pagerank.Graph) [][2]int32 {
	var out [][2]int32
	for u := 0; u < g.N; u++ {
		for _, v := range g.OutColIdx[g.OutRowPtr[u]:g.OutRowPtr[u+1]] {
			out = append(out, [2]int32{int32(u), v})
		}
	}
	return out
}

// maxAbsDiff is max_i |a[i] - b[i]|.
func maxAbsDiff(a, b []float64) float64 {
	m := 0.0
	for i := range a {
		m = max(m, math.Abs(a[i]-b[i]))
	}
	return m
}

// maxRelDiff is max_i |a[i] - b[i]| / |b[i]|.
func maxRelDiff(a, b []float64) float64 {
	m := 0.0
	for i := range a {
		m = max(m, math.Abs(a[i]-b[i])/math.Abs(b[i]))
	}
	return m
}

// danglingMass is the sum of x over g's dangling nodes.
func danglingMass(g *pagerank.Graph, x []float64) float64 {
	s := 0.0
	for u, dg := range g.Dangling {
		if dg != 0 {
			s += x[u]
		}
	}
	return s
}

func sum(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s
}

// statAAN reports whether the real graph's edge list is there.
func statAAN() (os.FileInfo, error) { return os.Stat(aanPath()) }
