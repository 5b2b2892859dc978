package pagerank

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/prlab/prlab/internal/fixture"
)

func TestLoadRealGraphCounts(t *testing.T) {
	g, err := LoadEdgeList(fixture.NeedBundled(t, fixture.Edges), "aan")
	if err != nil {
		t.Fatal(err)
	}
	// Acceptance figures from the data's PROVENANCE.md, measured there with awk.
	want := "loaded 16589 nodes and 94931 edges (dropped 42 self-loops, 0 duplicates); 1525 dangling"
	if got := g.Summary(); got != want {
		t.Fatalf("summary\n got %s\nwant %s", got, want)
	}
	// Max in-degree 847 is J93-2004 (the Penn Treebank paper); max out-degree 88.
	maxIn, arg := 0, -1
	maxOut := int32(0)
	for v := 0; v < g.N; v++ {
		if d := g.InDegree(v); d > maxIn {
			maxIn, arg = d, v
		}
		maxOut = max(maxOut, g.OutDegree[v])
	}
	if maxIn != 847 || g.ID(arg) != "J93-2004" || maxOut != 88 {
		t.Fatalf("max in-degree %d at %s, max out-degree %d; want 847 at J93-2004, 88", maxIn, g.ID(arg), maxOut)
	}
	checkCSR(t, g)
}

// checkCSR verifies both CSRs are consistent transposes of each other.
func checkCSR(t *testing.T, g *Graph) {
	t.Helper()
	if len(g.OutRowPtr) != g.N+1 || len(g.InRowPtr) != g.N+1 || len(g.OutColIdx) != g.NNZ || len(g.InColIdx) != g.NNZ {
		t.Fatalf("shapes: out %d/%d in %d/%d for n=%d nnz=%d", len(g.OutRowPtr), len(g.OutColIdx), len(g.InRowPtr), len(g.InColIdx), g.N, g.NNZ)
	}
	type edge struct{ u, v int32 }
	out := make(map[edge]bool, g.NNZ)
	for u := 0; u < g.N; u++ {
		row := g.OutColIdx[g.OutRowPtr[u]:g.OutRowPtr[u+1]]
		if !slices.IsSorted(row) {
			t.Fatalf("out row %d not sorted", u)
		}
		for _, v := range row {
			if v == int32(u) {
				t.Fatalf("self-loop %d kept", u)
			}
			out[edge{int32(u), v}] = true
		}
	}
	if len(out) != g.NNZ {
		t.Fatalf("%d distinct out-edges, nnz %d", len(out), g.NNZ)
	}
	for v := 0; v < g.N; v++ {
		row := g.InColIdx[g.InRowPtr[v]:g.InRowPtr[v+1]]
		if !slices.IsSorted(row) {
			t.Fatalf("in row %d not sorted", v)
		}
		for _, u := range row {
			if !out[edge{u, int32(v)}] {
				t.Fatalf("in-edge %d -> %d has no out-edge", u, v)
			}
		}
	}
}

func TestNewGraphDropsSelfLoopsAndDuplicates(t *testing.T) {
	src := []int32{0, 0, 1, 1, 2, 2, 0}
	dst := []int32{1, 1, 1, 2, 0, 0, 2}
	g, err := NewGraph("x", 4, src, dst, nil)
	if err != nil {
		t.Fatal(err)
	}
	if g.SelfLoops != 1 || g.Duplicates != 2 || g.NNZ != 4 || g.DanglingCount != 1 || g.Dangling[3] != 1 {
		t.Fatalf("self-loops %d dups %d nnz %d dangling %d", g.SelfLoops, g.Duplicates, g.NNZ, g.DanglingCount)
	}
	// in-edges of 2: 0 and 1; of 0: 2; of 1: 0
	if got := g.InColIdx[g.InRowPtr[2]:g.InRowPtr[3]]; !slices.Equal(got, []int32{0, 1}) {
		t.Fatalf("in(2) = %v", got)
	}
	if g.InvOutDegree[0] != 0.5 || g.InvOutDegree[3] != 0 {
		t.Fatalf("inv out-degree %v", g.InvOutDegree)
	}
	checkCSR(t, g)
}

func TestNewGraphRejects(t *testing.T) {
	if _, err := NewGraph("x", 0, nil, nil, nil); err == nil {
		t.Fatal("n=0 accepted")
	}
	if _, err := NewGraph("x", 2, []int32{0}, []int32{5}, nil); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Fatalf("out-of-range edge: %v", err)
	}
	if _, err := NewGraph("x", math.MaxInt32, nil, nil, nil); err == nil || !strings.Contains(err.Error(), "int32") {
		t.Fatalf("n beyond int32: %v", err)
	}
}

func TestSyntheticCaseSizes(t *testing.T) {
	want := map[string][3]int{ // n, nnz, dangling
		"tiny": {6, 9, 1}, "single": {1, 0, 1}, "nodangling": {4096, 8192, 0},
		"dangling": {4096, 7392, 400}, "star": {10001, 10000, 1}, "chain": {8192, 8191, 1},
	}
	cases := SyntheticCases()
	if len(cases) != 6 {
		t.Fatalf("%d cases", len(cases))
	}
	for _, g := range cases {
		w := want[g.Name]
		if g.N != w[0] || g.NNZ != w[1] || g.DanglingCount != w[2] || g.SelfLoops != 0 || g.Duplicates != 0 {
			t.Errorf("%s: n=%d nnz=%d dangling=%d self=%d dup=%d, want %v", g.Name, g.N, g.NNZ, g.DanglingCount, g.SelfLoops, g.Duplicates, w)
		}
		checkCSR(t, g)
	}
	if star := cases[4]; star.InDegree(0) != 10000 || star.Dangling[0] != 1 {
		t.Errorf("star hub in-degree %d dangling %d", star.InDegree(0), star.Dangling[0])
	}
	if _, err := SyntheticCase("nope"); err == nil {
		t.Error("unknown case accepted")
	}
}

func TestTransposeTwiceIsIdentity(t *testing.T) {
	g, _ := SyntheticCase("dangling")
	rp, ci := Transpose(g.N, g.InRowPtr, g.InColIdx)
	if !slices.Equal(rp, g.OutRowPtr) || !slices.Equal(ci, g.OutColIdx) {
		t.Fatal("transpose of the transpose differs from the out-edge CSR")
	}
}
