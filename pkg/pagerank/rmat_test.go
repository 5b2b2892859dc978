package pagerank

import (
	"slices"
	"testing"
)

func TestRMATDeterministicAcrossWorkers(t *testing.T) {
	p := Graph500RMAT(12, 42)
	p.Workers = 1
	n1, s1, d1, err := RMATEdges(p)
	if err != nil {
		t.Fatal(err)
	}
	p.Workers = 7
	n7, s7, d7, _ := RMATEdges(p)
	if n1 != 4096 || n1 != n7 || len(s1) != 16*4096 || !slices.Equal(s1, s7) || !slices.Equal(d1, d7) {
		t.Fatal("RMAT edges depend on the worker count")
	}
	p.Seed = 43
	_, s43, _, _ := RMATEdges(p)
	if slices.Equal(s1, s43) {
		t.Fatal("seed has no effect")
	}
}

func TestRMATSkew(t *testing.T) {
	g, err := RMAT(Graph500RMAT(14, 1))
	if err != nil {
		t.Fatal(err)
	}
	checkCSR(t, g)
	if g.NNZ+g.SelfLoops+g.Duplicates != 16<<14 {
		t.Fatalf("nnz %d + self %d + dup %d != %d", g.NNZ, g.SelfLoops, g.Duplicates, 16<<14)
	}
	maxIn := 0
	for v := 0; v < g.N; v++ {
		maxIn = max(maxIn, g.InDegree(v))
	}
	avg := float64(g.NNZ) / float64(g.N)
	// Power law: the biggest hub holds far more than the average degree
	// (the tiered study reports a 1,800x spread at scale 18); a uniform
	// random graph of this size would stay under about 4x.
	if float64(maxIn) < 50*avg || g.DanglingCount == 0 {
		t.Fatalf("max in-degree %d vs average %.1f, %d dangling: not skewed", maxIn, avg, g.DanglingCount)
	}
	// Every kept edge is counted once in the out-degrees.
	sum := 0
	for v := 0; v < g.N; v++ {
		sum += int(g.OutDegree[v])
	}
	if sum != g.NNZ {
		t.Fatal("degree sum")
	}
}

func TestRMATRejects(t *testing.T) {
	for _, p := range []RMATParams{{Scale: 0, EdgeFactor: 16, A: .57, B: .19, C: .19}, {Scale: 10, EdgeFactor: 0, A: .57, B: .19, C: .19}, {Scale: 10, EdgeFactor: 16, A: .6, B: .3, C: .2}, {Scale: 28, EdgeFactor: 16, A: .57, B: .19, C: .19}} {
		if _, _, _, err := RMATEdges(p); err == nil {
			t.Errorf("%+v accepted", p)
		}
	}
}

func TestGrid2D(t *testing.T) {
	g, err := Grid2D(5)
	if err != nil {
		t.Fatal(err)
	}
	checkCSR(t, g)
	if g.N != 25 || g.NNZ != 4*5*4 || g.DanglingCount != 0 {
		t.Fatalf("n %d nnz %d dangling %d", g.N, g.NNZ, g.DanglingCount)
	}
	// corner 0 has out-degree 2, centre 12 has 4
	if g.OutDegree[0] != 2 || g.OutDegree[12] != 4 || g.InDegree(12) != 4 {
		t.Fatal("degrees")
	}
}

// BenchmarkRMATBuild times generating and building an RMAT graph (scale 18).
func BenchmarkRMATBuild(b *testing.B) {
	for i := 0; i < b.N; i++ {
		g, err := RMAT(Graph500RMAT(18, 1))
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(g.NNZ), "edges")
	}
}
