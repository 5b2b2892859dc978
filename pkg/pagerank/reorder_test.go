package pagerank

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// reorderGraphs: the six synthetic cases, a small R-MAT graph (skewed,
// dangling nodes, scrambled labels) and a grid.
func reorderGraphs(t *testing.T) []*Graph {
	t.Helper()
	gs := SyntheticCases()
	r, err := RMAT(Graph500RMAT(12, 7))
	if err != nil {
		t.Fatal(err)
	}
	grid, err := Grid2D(9)
	if err != nil {
		t.Fatal(err)
	}
	return append(gs, r, grid)
}

func TestDegreeOrderIsSortedPermutation(t *testing.T) {
	for _, g := range reorderGraphs(t) {
		for _, o := range Orders {
			perm, err := DegreeOrder(g, o)
			if err != nil {
				t.Fatalf("%s %s: %v", g.Name, o, err)
			}
			inv, err := InversePermutation(perm)
			if err != nil {
				t.Fatalf("%s %s: %v", g.Name, o, err)
			}
			key := func(v int32) [3]int {
				out, in := int(g.OutDegree[v]), g.InDegree(int(v))
				switch o {
				case OrderOutDegree:
					return [3]int{-out, -in, int(v)}
				case OrderInDegree:
					return [3]int{-in, -out, int(v)}
				}
				return [3]int{int(v), 0, 0}
			}
			for i := 1; i < len(inv); i++ {
				a, b := key(inv[i-1]), key(inv[i])
				if slices.Compare(a[:], b[:]) >= 0 {
					t.Fatalf("%s %s: new %d (old %d, key %v) not before new %d (old %d, key %v)", g.Name, o, i-1, inv[i-1], a, i, inv[i], b)
				}
			}
		}
	}
	if _, err := DegreeOrder(SyntheticCases()[0], "random"); err == nil || !strings.Contains(err.Error(), "unknown order") {
		t.Errorf("unknown order accepted: %v", err)
	}
}

func TestInversePermutation(t *testing.T) {
	perm := []int32{2, 0, 3, 1}
	inv, err := InversePermutation(perm)
	if err != nil || !slices.Equal(inv, []int32{1, 3, 0, 2}) {
		t.Fatalf("inverse of %v = %v, %v", perm, inv, err)
	}
	for i, p := range perm {
		if inv[p] != int32(i) {
			t.Errorf("inv[perm[%d]] = %d", i, inv[p])
		}
	}
	for _, bad := range [][]int32{{0, 0, 1}, {0, 3, 1}, {-1, 0, 1}} {
		if _, err := InversePermutation(bad); err == nil || !strings.Contains(err.Error(), "not a permutation") {
			t.Errorf("%v accepted as a permutation: %v", bad, err)
		}
	}
}

func equalGraphs(t *testing.T, what string, a, b *Graph, withOut bool) {
	t.Helper()
	if a.N != b.N || a.NNZ != b.NNZ || a.DanglingCount != b.DanglingCount || a.SelfLoops != b.SelfLoops || a.Duplicates != b.Duplicates {
		t.Fatalf("%s: shapes differ: %d/%d/%d vs %d/%d/%d", what, a.N, a.NNZ, a.DanglingCount, b.N, b.NNZ, b.DanglingCount)
	}
	if !slices.Equal(a.InRowPtr, b.InRowPtr) || !slices.Equal(a.InColIdx, b.InColIdx) {
		t.Errorf("%s: in-edge CSR differs", what)
	}
	if withOut && (!slices.Equal(a.OutRowPtr, b.OutRowPtr) || !slices.Equal(a.OutColIdx, b.OutColIdx)) {
		t.Errorf("%s: out-edge CSR differs", what)
	}
	if !slices.Equal(a.OutDegree, b.OutDegree) || !slices.Equal(a.InvOutDegree, b.InvOutDegree) ||
		!slices.Equal(a.Dangling, b.Dangling) || !slices.Equal(a.IDs, b.IDs) {
		t.Errorf("%s: per-node arrays differ", what)
	}
}

// The relabelled graph has edge perm[u] -> perm[v] for every edge u -> v,
// sorted rows, permuted per-node arrays; relabelling back with the inverse
// gives g again, CSR for CSR.
func TestRelabelRoundTrip(t *testing.T) {
	defer func(v int) { edgesPerBuildWorker = v }(edgesPerBuildWorker)
	edgesPerBuildWorker = 64 // many row blocks even on small graphs
	for _, g := range reorderGraphs(t) {
		if g.Name == "tiny" {
			g.IDs = []string{"a", "b", "c", "d", "e", "f"}
		}
		perm, err := DegreeOrder(g, OrderOutDegree)
		if err != nil {
			t.Fatal(err)
		}
		inv, _ := InversePermutation(perm)
		r, err := Relabel(g, perm, RelabelOptions{Workers: 4})
		if err != nil {
			t.Fatal(err)
		}
		if r.Name != g.Name+"~relabelled" {
			t.Errorf("name %q", r.Name)
		}
		// The definition, edge by edge, and sorted rows.
		for u := 0; u < g.N; u++ {
			for e := g.OutRowPtr[u]; e < g.OutRowPtr[u+1]; e++ {
				v := g.OutColIdx[e]
				nu, nv := perm[u], perm[v]
				if _, ok := slices.BinarySearch(r.InColIdx[r.InRowPtr[nv]:r.InRowPtr[nv+1]], nu); !ok {
					t.Fatalf("%s: edge %d -> %d has no in-edge %d -> %d after relabelling", g.Name, u, v, nu, nv)
				}
				if _, ok := slices.BinarySearch(r.OutColIdx[r.OutRowPtr[nu]:r.OutRowPtr[nu+1]], nv); !ok {
					t.Fatalf("%s: edge %d -> %d has no out-edge %d -> %d after relabelling", g.Name, u, v, nu, nv)
				}
			}
		}
		for v := 0; v < r.N; v++ {
			if !slices.IsSorted(r.InColIdx[r.InRowPtr[v]:r.InRowPtr[v+1]]) || !slices.IsSorted(r.OutColIdx[r.OutRowPtr[v]:r.OutRowPtr[v+1]]) {
				t.Fatalf("%s: row %d not sorted", g.Name, v)
			}
			if r.OutDegree[v] != g.OutDegree[inv[v]] || r.InDegree(v) != g.InDegree(int(inv[v])) {
				t.Fatalf("%s: degrees of new node %d differ from old node %d", g.Name, v, inv[v])
			}
		}
		// The relabelled graph equals the one built from the relabelled edge list.
		var src, dst []int32
		for u := 0; u < g.N; u++ {
			for e := g.OutRowPtr[u]; e < g.OutRowPtr[u+1]; e++ {
				src, dst = append(src, perm[u]), append(dst, perm[g.OutColIdx[e]])
			}
		}
		built, err := NewGraph(r.Name, g.N, src, dst, r.IDs)
		if err != nil {
			t.Fatal(err)
		}
		built.SelfLoops, built.Duplicates = g.SelfLoops, g.Duplicates
		equalGraphs(t, g.Name+" relabelled vs built from relabelled edges", r, built, true)
		// Un-permuting gives g back.
		back, err := Relabel(r, inv, RelabelOptions{Workers: 3, Name: g.Name})
		if err != nil {
			t.Fatal(err)
		}
		equalGraphs(t, g.Name+" round trip", back, g, true)
		// In-edges only: the same in-edge CSR and per-node arrays, no out-edge CSR.
		in, err := Relabel(g, perm, RelabelOptions{InEdgesOnly: true, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if in.OutRowPtr != nil || in.OutColIdx != nil {
			t.Errorf("%s: InEdgesOnly built an out-edge CSR", g.Name)
		}
		equalGraphs(t, g.Name+" in-edges only", in, r, false)
		if g.Name == "tiny" {
			g.IDs = nil
		}
	}
}

func TestRelabelRejects(t *testing.T) {
	g, _ := SyntheticCase("tiny")
	if _, err := Relabel(g, []int32{0, 1, 2}, RelabelOptions{}); err == nil || !strings.Contains(err.Error(), "length 3 for 6") {
		t.Errorf("short permutation: %v", err)
	}
	if _, err := Relabel(g, []int32{0, 1, 2, 3, 4, 4}, RelabelOptions{}); err == nil || !strings.Contains(err.Error(), "not a permutation") {
		t.Errorf("repeated label: %v", err)
	}
	perm := []int32{5, 4, 3, 2, 1, 0}
	in, err := Relabel(g, perm, RelabelOptions{InEdgesOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Relabel(in, perm, RelabelOptions{}); err == nil || !strings.Contains(err.Error(), "no out-edge CSR") {
		t.Errorf("relabelling a graph without out-edges: %v", err)
	}
	if _, err := Relabel(nil, perm, RelabelOptions{}); err == nil {
		t.Error("nil graph accepted")
	}
}

// pull64 is a float64 PageRank (x0 = 1/n, dangling mass spread evenly).
func pull64(g *Graph, iters int) []float64 {
	n := g.N
	x, xn := make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = 1 / float64(n)
	}
	for k := 0; k < iters; k++ {
		mass := 0.0
		for u := 0; u < n; u++ {
			if g.Dangling[u] != 0 {
				mass += x[u]
			}
		}
		for v := 0; v < n; v++ {
			s := 0.0
			for e := g.InRowPtr[v]; e < g.InRowPtr[v+1]; e++ {
				s += x[g.InColIdx[e]] * g.InvOutDegree[g.InColIdx[e]]
			}
			xn[v] = (1-DefaultDamping)/float64(n) + DefaultDamping*(s+mass/float64(n))
		}
		x, xn = xn, x
	}
	return x
}

// PageRank of the relabelled graph, permuted back, is PageRank of g (up to
// the float64 rounding of sums taken in another order).
func TestRelabelPreservesPageRank(t *testing.T) {
	for _, g := range reorderGraphs(t) {
		for _, o := range []Order{OrderOutDegree, OrderInDegree} {
			perm, _ := DegreeOrder(g, o)
			r, err := Relabel(g, perm, RelabelOptions{InEdgesOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			want := pull64(g, 40)
			got := UnpermuteRanks(pull64(r, 40), perm)
			for v := range want {
				if math.Abs(got[v]-want[v]) > 1e-12*math.Abs(want[v])+1e-300 {
					t.Fatalf("%s by %s: rank of node %d is %g, want %g", g.Name, o, v, got[v], want[v])
				}
			}
		}
	}
	if got := UnpermuteRanks([]float64{10, 20, 30}, []int32{2, 0, 1}); !slices.Equal(got, []float64{30, 10, 20}) {
		t.Errorf("UnpermuteRanks = %v", got)
	}
}

// After relabelling an R-MAT graph by out-degree, more of its gathers land
// in a small prefix of the contribution vector than with the scrambled labels.
func TestLocality(t *testing.T) {
	g, err := RMAT(Graph500RMAT(14, 1))
	if err != nil {
		t.Fatal(err)
	}
	caps := []int64{1 << 10, 4 << 10, 16 << 10, 1 << 20}
	before := Locality(g, nil, 128, caps)
	perm, _ := DegreeOrder(g, OrderOutDegree)
	after := Locality(g, perm, 128, caps)
	r, _ := Relabel(g, perm, RelabelOptions{InEdgesOnly: true})
	if again := Locality(r, nil, 128, caps); !slices.Equal(again.Share, after.Share) || again.Lines != after.Lines {
		t.Errorf("Locality(g, perm) %+v differs from Locality(relabelled, nil) %+v", after, again)
	}
	t.Logf("rmat14 share of gathers in the hottest lines of %v bytes: before %.3f, after %.3f; lines used %d -> %d", caps, before.Share, after.Share, before.Lines, after.Lines)
	for i := range caps {
		if after.Share[i] < before.Share[i] {
			t.Errorf("capacity %d: share %.3f after relabelling < %.3f before", caps[i], after.Share[i], before.Share[i])
		}
	}
	if after.Share[0] < 2*before.Share[0] || after.Lines >= before.Lines || after.Share[len(caps)-1] != 1 {
		t.Errorf("relabelling did not concentrate the gathers: before %+v, after %+v", before, after)
	}
	id, _ := DegreeOrder(g, OrderIdentity)
	if l := Locality(g, id, 128, caps); !slices.Equal(l.Share, before.Share) {
		t.Errorf("identity permutation %v, nil %v", l.Share, before.Share)
	}
}
