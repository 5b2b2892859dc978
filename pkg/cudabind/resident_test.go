package cudabind

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/prlab/prlab/pkg/pagerank"
)

// residentGraphOf is an R-MAT graph of the given scale (Graph500 parameters).
func residentGraphOf(t *testing.T, scale int) *pagerank.Graph {
	t.Helper()
	n, src, dst, err := pagerank.RMATEdges(pagerank.Graph500RMAT(scale, 3))
	if err != nil {
		t.Fatal(err)
	}
	g, err := pagerank.NewGraph(fmt.Sprintf("rmat%d", scale), n, src, dst, nil)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// residentBatches is a sequence of batches on g that exercises every rule:
// random insertions, deletions and mixed batches, then new nodes with
// edges to and from them, duplicate insertions (of a present edge and
// repeated in the batch), self-loops, absent and repeated deletions, a
// deletion re-inserted in the same batch, every out-edge of a node deleted
// (it becomes dangling), and an empty batch. Each batch is drawn on the
// graph left by the previous ones. Without rules, only the random batches
// and the emptied row.
func residentBatches(t *testing.T, rules bool) []func(g *pagerank.Graph) *pagerank.Batch {
	random := func(kind string, f float64) func(g *pagerank.Graph) *pagerank.Batch {
		return func(g *pagerank.Graph) *pagerank.Batch {
			b, err := pagerank.RandomBatch(g, kind, f, 7)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
	crafted := func(g *pagerank.Graph) *pagerank.Batch {
		n := int32(g.N)
		var present []pagerank.Edge // three present edges
		for u := int32(0); u < n && len(present) < 3; u++ {
			for e := g.OutRowPtr[u]; e < g.OutRowPtr[u+1] && len(present) < 3; e++ {
				present = append(present, pagerank.Edge{Src: u, Dst: g.OutColIdx[e]})
			}
		}
		if len(present) < 3 {
			t.Fatal("graph has fewer than 3 edges")
		}
		return &pagerank.Batch{Name: "crafted", AddNodes: 3,
			Inserts: []pagerank.Edge{{Src: n, Dst: 0}, {Src: 0, Dst: n + 1}, {Src: n, Dst: 0}, present[0], {Src: 5, Dst: 5},
				present[1], {Src: n + 1, Dst: n}, {Src: n + 2, Dst: n + 2}},
			Deletes: []pagerank.Edge{present[1], present[2], present[2], {Src: 1, Dst: 1}, {Src: 2, Dst: n + 2}, {Src: n, Dst: 1}}}
	}
	emptyRow := func(g *pagerank.Graph) *pagerank.Batch { // every out-edge of the node of largest out-degree
		u := 0
		for v := 0; v < g.N; v++ {
			if g.OutRowPtr[v+1]-g.OutRowPtr[v] > g.OutRowPtr[u+1]-g.OutRowPtr[u] {
				u = v
			}
		}
		b := &pagerank.Batch{Name: "empty a row"}
		for e := g.OutRowPtr[u]; e < g.OutRowPtr[u+1]; e++ {
			b.Deletes = append(b.Deletes, pagerank.Edge{Src: int32(u), Dst: g.OutColIdx[e]})
		}
		return b
	}
	if !rules {
		return []func(*pagerank.Graph) *pagerank.Batch{
			random(pagerank.BatchInsert, 0.01), random(pagerank.BatchDelete, 0.01), random(pagerank.BatchMixed, 0.1),
			emptyRow, random(pagerank.BatchInsert, 0.001),
		}
	}
	return []func(*pagerank.Graph) *pagerank.Batch{
		random(pagerank.BatchInsert, 0.01), random(pagerank.BatchDelete, 0.01), random(pagerank.BatchMixed, 0.1),
		crafted, emptyRow, func(*pagerank.Graph) *pagerank.Batch { return &pagerank.Batch{Name: "empty"} },
		random(pagerank.BatchInsert, 0.001),
	}
}

// rebuild is NewGraph of g's edge set: the graph a host rebuild gives.
func rebuild(t *testing.T, g *pagerank.Graph) *pagerank.Graph {
	t.Helper()
	var src, dst []int32
	for u := 0; u < g.N; u++ {
		for e := g.OutRowPtr[u]; e < g.OutRowPtr[u+1]; e++ {
			src, dst = append(src, int32(u)), append(dst, g.OutColIdx[e])
		}
	}
	r, err := pagerank.NewGraph(g.Name, g.N, src, dst, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// sameResident fails unless the session's graph equals want array for
// array: in-edge CSR, out-degrees, dangling mask, 1/outdeg (as float), and
// the dangling mass of x.
func sameResident(t *testing.T, what string, s *DeviceSession, want *pagerank.Graph, x []float64) {
	t.Helper()
	got, err := s.graph()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	od, _ := outDegrees(want)
	inv := make([]float32, want.N)
	for i, v := range want.InvOutDegree {
		inv[i] = float32(v)
	}
	for _, c := range []struct {
		name string
		ok   bool
	}{{"in-edge row pointer", slices.Equal(got.RowPtr, want.InRowPtr)}, {"in-edge column indices", slices.Equal(got.ColIdx, want.InColIdx)},
		{"out-degrees", slices.Equal(got.OutDegree, od)}, {"dangling mask", slices.Equal(got.Dangling, want.Dangling)},
		{"1/outdeg", slices.Equal(got.InvOut, inv)}} {
		if !c.ok {
			t.Errorf("%s: %s differ from the rebuild's (n = %d / %d, nnz = %d / %d)", what, c.name, len(got.OutDegree), want.N, len(got.ColIdx), want.NNZ)
		}
	}
	mass := func(mask []uint8) float64 {
		m := 0.0
		for i, d := range mask {
			if d != 0 && i < len(x) {
				m += x[i]
			}
		}
		return m
	}
	if a, b := mass(got.Dangling), mass(want.Dangling); a != b {
		t.Errorf("%s: dangling mass %v, the rebuild's %v", what, a, b)
	}
}

// warmStart is prev extended by 1/n for new nodes and rescaled to sum 1
// (pkg/study.WarmStart's rule).
func warmStart(prev []float64, n int) []float64 {
	x := make([]float64, n)
	copy(x, prev)
	sum := 0.0
	for i := range x {
		if i >= len(prev) {
			x[i] = 1 / float64(n)
		}
		sum += x[i]
	}
	for i := range x {
		x[i] /= sum
	}
	return x
}

// checkResidentSessions opens every resident design on g, applies the
// batches one after another, and checks after each one: the counts equal
// ApplyBatch's, the resident graph equals a rebuild, and the warm start
// from the ranks before the batch and the cold start both pass
// pagerank.Validate's gates against a float64 PageRank of the rebuilt
// graph to 1e-12, and against each other, with the warm start needing no
// more iterations than the cold one.
//
// The crafted batch's new nodes (rules) sit near the teleport floor, fed by
// the hub: a float32 run stopped at an L1 residual of 1e-7 leaves them
// 0.2 % off on R-MAT 2^16 (err/tol 1.9, the fake library's sequential
// float32 run alike), so large graphs are checked with rules = false.
func checkResidentSessions(t *testing.T, g *pagerank.Graph, tol float64, rules bool) {
	for _, name := range []string{NameCusparse, NameWarpPerRow} {
		im, ok := DesignByName(name)
		if !ok {
			t.Fatalf("no design %s", name)
		}
		res, ok := im.(pagerank.Resident)
		if !ok {
			t.Fatalf("%s is not pagerank.Resident", name)
		}
		ps, err := res.Open(g)
		if err != nil {
			t.Fatalf("%s: open: %v", name, err)
		}
		s := ps.(*DeviceSession)
		host := g
		p := pagerank.Converge(tol, 1000)
		cold0, err := s.RunFrom(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		prev := cold0.Ranks
		if _, err := s.RunFrom(p, prev[1:]); err == nil {
			t.Errorf("%s: a start vector of %d entries for %d nodes was accepted", name, len(prev)-1, g.N)
		}
		sameResident(t, name+" after open", s, rebuild(t, host), prev)
		warmSum, coldSum := 0, 0
		batches := residentBatches(t, rules)
		for _, mk := range batches {
			b := mk(host)
			what := fmt.Sprintf("%s, batch %q on %s", name, b.Name, g.Name)
			st, err := s.Apply(b)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			next, want, err := pagerank.ApplyBatch(host, b, 2)
			if err != nil {
				t.Fatal(err)
			}
			if st != want {
				t.Errorf("%s: the session counted %+v, ApplyBatch %+v", what, st, want)
			}
			host = next
			ref := rebuild(t, host)
			start := warmStart(prev, host.N)
			sameResident(t, what, s, ref, start)
			warm, err := s.RunFrom(p, start)
			if err != nil {
				t.Fatalf("%s: warm: %v", what, err)
			}
			cold, err := s.RunFrom(p, nil)
			if err != nil {
				t.Fatalf("%s: cold: %v", what, err)
			}
			ranks, _ := oracle64(ref, pagerank.DefaultDamping, 1000, 1e-12)
			oracle := &pagerank.Result{Implementation: "oracle64", Ranks: ranks, Converged: true}
			for _, c := range []struct {
				what     string
				res, ref *pagerank.Result
			}{{"warm vs float64", warm, oracle}, {"cold vs float64", cold, oracle}, {"warm vs cold", warm, cold}} {
				if v := pagerank.Validate(ref, c.res, c.ref); !v.Pass {
					t.Errorf("%s: %s: %+v", what, c.what, v)
				}
			}
			if !warm.Converged || !cold.Converged {
				t.Errorf("%s: converged warm %v (%d iterations), cold %v (%d)", what, warm.Converged, warm.Iterations, cold.Converged, cold.Iterations)
			}
			warmSum += warm.Iterations
			coldSum += cold.Iterations
			prev = warm.Ranks
		}
		if warmSum > coldSum {
			t.Errorf("%s on %s: warm starts took %d iterations in all, cold starts %d", name, g.Name, warmSum, coldSum)
		}
		t.Logf("%s on %s: %d warm iterations against %d cold over %d batches", name, g.Name, warmSum, coldSum, len(batches))
		// An index outside the graph is an error that leaves the graph as it was.
		bad := &pagerank.Batch{Name: "bad", Inserts: []pagerank.Edge{{Src: 0, Dst: 1}, {Src: int32(host.N), Dst: 0}}}
		if _, err := s.Apply(bad); err == nil {
			t.Errorf("%s: a batch with node %d on %d nodes was accepted", name, host.N, host.N)
		}
		sameResident(t, name+" after a refused batch", s, rebuild(t, host), prev)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
		if _, err := s.Apply(&pagerank.Batch{}); err == nil {
			t.Errorf("%s: Apply on a closed session succeeded", name)
		}
	}
}

// narrowStart checks like pagerank.CheckStart on vectors long enough to be
// cut into chunks, and narrows exactly.
func TestNarrowStart(t *testing.T) {
	n := 1 << 18
	x := make([]float64, n)
	for i := range x {
		x[i] = float64(i%7+1) / float64(4*n)
	}
	got, err := narrowStart(x, n)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range x {
		if got[i] != float32(v) {
			t.Fatalf("entry %d: %v, want %v", i, got[i], float32(v))
		}
	}
	for _, c := range []struct {
		at   int
		v    float64
		want string
	}{{n - 3, math.NaN(), fmt.Sprintf("entry %d", n-3)}, {n / 2, -1e-9, fmt.Sprintf("entry %d", n/2)}} {
		y := slices.Clone(x)
		y[c.at] = c.v
		if _, err := narrowStart(y, n); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("entry %d = %v: error %v, want one naming %q", c.at, c.v, err, c.want)
		}
	}
	if _, err := narrowStart(make([]float64, n), n); err == nil {
		t.Error("an all-zero start was accepted")
	}
	if _, err := narrowStart(x[1:], n); err == nil {
		t.Error("a start of n-1 entries was accepted")
	}
}
