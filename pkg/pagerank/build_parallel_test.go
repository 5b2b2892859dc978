package pagerank

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// sameGraph fails unless a and b are equal field by field (CSRs element by
// element, degrees, counts, ids).
func sameGraph(t *testing.T, what string, a, b *Graph) {
	t.Helper()
	if !reflect.DeepEqual(a, b) {
		switch {
		case a.N != b.N || a.NNZ != b.NNZ:
			t.Fatalf("%s: n %d/%d nnz %d/%d", what, a.N, b.N, a.NNZ, b.NNZ)
		case a.SelfLoops != b.SelfLoops || a.Duplicates != b.Duplicates || a.DanglingCount != b.DanglingCount:
			t.Fatalf("%s: self-loops %d/%d duplicates %d/%d dangling %d/%d", what, a.SelfLoops, b.SelfLoops, a.Duplicates, b.Duplicates, a.DanglingCount, b.DanglingCount)
		case !reflect.DeepEqual(a.OutRowPtr, b.OutRowPtr) || !reflect.DeepEqual(a.OutColIdx, b.OutColIdx):
			t.Fatalf("%s: out-edge CSR differs", what)
		case !reflect.DeepEqual(a.InRowPtr, b.InRowPtr) || !reflect.DeepEqual(a.InColIdx, b.InColIdx):
			t.Fatalf("%s: in-edge CSR differs", what)
		}
		t.Fatalf("%s: graphs differ", what)
	}
}

// randomEdges is a small multigraph with self-loops, duplicates and dangling nodes.
func randomEdges(seed uint64, n, m int) (src, dst []int32) {
	r := rand.New(rand.NewPCG(seed, 7))
	src, dst = make([]int32, m), make([]int32, m)
	for i := range src {
		src[i] = int32(r.IntN(n / 2)) // upper half never cites: dangling
		dst[i] = int32(r.IntN(n))
		if i%11 == 0 {
			dst[i] = src[i] // self-loop
		}
		if i%13 == 0 && i > 0 {
			src[i], dst[i] = src[i-1], dst[i-1] // duplicate
		}
	}
	return src, dst
}

// smallChunks lets tiny graphs use every requested worker.
func smallChunks(t *testing.T) {
	old := edgesPerBuildWorker
	edgesPerBuildWorker = 1
	t.Cleanup(func() { edgesPerBuildWorker = old })
}

func TestNewGraphParallelEqualsSerial(t *testing.T) {
	smallChunks(t)
	for _, scale := range []int{8, 13} {
		n, src, dst, err := RMATEdges(Graph500RMAT(scale, 5))
		if err != nil {
			t.Fatal(err)
		}
		want, err := NewGraph("r", n, src, dst, nil)
		if err != nil {
			t.Fatal(err)
		}
		if want.Duplicates == 0 || want.SelfLoops == 0 || want.DanglingCount == 0 {
			t.Fatalf("scale %d: test graph should have duplicates, self-loops and dangling nodes", scale)
		}
		for _, w := range []int{1, 2, 3, 7, 16} {
			got, err := NewGraphParallel("r", n, src, dst, nil, w)
			if err != nil {
				t.Fatal(err)
			}
			sameGraph(t, "rmat", got, want)
		}
	}
	// A random multigraph, large enough for several chunks (2^16 edges each).
	src, dst := randomEdges(3, 5000, 300000)
	ids := make([]string, 5000)
	for i := range ids {
		ids[i] = "p" + string(rune('a'+i%26))
	}
	want, err := NewGraph("m", 5000, src, dst, ids)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{1, 4, 5} {
		got, err := NewGraphParallel("m", 5000, src, dst, ids, w)
		if err != nil {
			t.Fatal(err)
		}
		sameGraph(t, "multigraph", got, want)
	}
	// No duplicates at all (the compaction is skipped) and a single node.
	for _, c := range SyntheticCases() {
		var s, d []int32
		for u := 0; u < c.N; u++ {
			for _, v := range c.OutColIdx[c.OutRowPtr[u]:c.OutRowPtr[u+1]] {
				s, d = append(s, int32(u)), append(d, v)
			}
		}
		want, _ := NewGraph(c.Name, c.N, s, d, nil)
		got, err := NewGraphParallel(c.Name, c.N, s, d, nil, 3)
		if err != nil {
			t.Fatal(err)
		}
		sameGraph(t, c.Name, got, want)
	}
}

func TestNewGraphParallelErrorsEqualSerial(t *testing.T) {
	smallChunks(t)
	src, dst := randomEdges(9, 100, 200000)
	src[150000] = 100 // out of range, in a later chunk
	dst[190000] = -1
	_, e1 := NewGraph("b", 100, src, dst, nil)
	_, e2 := NewGraphParallel("b", 100, src, dst, nil, 4)
	if e1 == nil || e2 == nil || e1.Error() != e2.Error() {
		t.Fatalf("errors differ: %v / %v", e1, e2)
	}
	for _, args := range []struct {
		n        int
		src, dst []int32
		ids      []string
	}{{0, nil, nil, nil}, {3, []int32{1}, nil, nil}, {3, nil, nil, []string{"a"}}} {
		_, e1 := NewGraph("x", args.n, args.src, args.dst, args.ids)
		_, e2 := NewGraphParallel("x", args.n, args.src, args.dst, args.ids, 2)
		if e1 == nil || e2 == nil || e1.Error() != e2.Error() {
			t.Fatalf("errors differ: %v / %v", e1, e2)
		}
	}
}

func TestTransposeParallelEqualsSerial(t *testing.T) {
	smallChunks(t)
	g, err := RMAT(Graph500RMAT(12, 2))
	if err != nil {
		t.Fatal(err)
	}
	wantP, wantC := Transpose(g.N, g.OutRowPtr, g.OutColIdx)
	for _, w := range []int{1, 2, 6} {
		p, c := TransposeParallel(g.N, g.OutRowPtr, g.OutColIdx, w)
		if !reflect.DeepEqual(p, wantP) || !reflect.DeepEqual(c, wantC) {
			t.Fatalf("workers %d: transpose differs", w)
		}
	}
}

func TestGridEdgesEqualsGrid2D(t *testing.T) {
	smallChunks(t)
	for _, side := range []int{2, 3, 5, 130, 300} {
		want, err := Grid2D(side)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []int{1, 3} {
			n, src, dst, err := GridEdges(side, w)
			if err != nil {
				t.Fatal(err)
			}
			got, err := NewGraphParallel(want.Name, n, src, dst, nil, w)
			if err != nil {
				t.Fatal(err)
			}
			sameGraph(t, want.Name, got, want)
		}
	}
	if _, _, _, err := GridEdges(1, 1); err == nil {
		t.Fatal("side 1 accepted")
	}
}

func TestRowBlocks(t *testing.T) {
	rowPtr := []int32{0, 10, 10, 10, 12, 40} // 5 rows, work 11,1,1,3,29 = 45
	b := rowBlocks(rowPtr, 3)
	if b[0] != 0 || b[len(b)-1] != 5 {
		t.Fatalf("blocks %v", b)
	}
	for i := 1; i < len(b); i++ {
		if b[i] <= b[i-1] {
			t.Fatalf("blocks %v not increasing", b)
		}
	}
	if got := rowBlocks([]int32{0, 0}, 8); !reflect.DeepEqual(got, []int{0, 1}) {
		t.Fatalf("one row: %v", got)
	}
}
