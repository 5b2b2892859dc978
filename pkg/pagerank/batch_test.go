package pagerank

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/prlab/prlab/internal/fixture"
)

// edgeSet is the reference model of a graph: a set of (src, dst) pairs.
type edgeSet map[Edge]bool

func setOf(g *Graph) edgeSet {
	s := edgeSet{}
	src, dst := g.Edges()
	for i := range src {
		s[Edge{src[i], dst[i]}] = true
	}
	return s
}

func buildFromSet(t *testing.T, name string, n int, s edgeSet, ids []string) *Graph {
	t.Helper()
	var src, dst []int32
	for e := range s {
		src, dst = append(src, e.Src), append(dst, e.Dst)
	}
	g, err := NewGraph(name, n, src, dst, ids)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestApplyBatchCounts checks every counter on a hand-made batch whose
// answers are known: graph 0->1, 0->2, 1->2, 2->0 on 3 nodes plus 2 new nodes.
func TestApplyBatchCounts(t *testing.T) {
	g, err := NewGraph("small", 3, []int32{0, 0, 1, 2}, []int32{1, 2, 2, 0}, []string{"a", "b", "c"})
	if err != nil {
		t.Fatal(err)
	}
	b := &Batch{Name: "hand", AddNodes: 2, NewIDs: []string{"d", "e"},
		Deletes: []Edge{{0, 1}, {0, 1}, {1, 0}, {2, 2}, {4, 3}, {2, 0}},
		Inserts: []Edge{{0, 2}, {3, 0}, {3, 0}, {4, 4}, {2, 0}, {4, 3}, {1, 3}}}
	h, st, err := ApplyBatch(g, b, 2)
	if err != nil {
		t.Fatal(err)
	}
	// Deletes: 0->1 removed; second 0->1 absent (batch duplicate); 1->0 absent;
	// 2->2 self-loop absent; 4->3 absent (not yet inserted); 2->0 removed.
	// Inserts: 0->2 present (duplicate); 3->0 added, again (duplicate); 4->4
	// self-loop; 2->0 re-added after its deletion; 4->3 added; 1->3 added.
	want := BatchStats{NewNodes: 2, Inserted: 4, Deleted: 2, DuplicateInserts: 2, AbsentDeletes: 4, SelfLoops: 1, TouchedRows: 5}
	if st != want {
		t.Fatalf("stats %+v, want %+v", st, want)
	}
	if st.Inserted+st.DuplicateInserts+st.SelfLoops != len(b.Inserts) || st.Deleted+st.AbsentDeletes != len(b.Deletes) {
		t.Fatalf("counts do not add up to the batch: %+v", st)
	}
	ref := buildFromSet(t, "small", 5, edgeSet{{0, 2}: true, {1, 2}: true, {2, 0}: true, {3, 0}: true, {4, 3}: true, {1, 3}: true},
		[]string{"a", "b", "c", "d", "e"})
	if err := CompareStructure(h, ref); err != nil {
		t.Fatalf("batch result differs from the rebuild: %v", err)
	}
	if h.DanglingCount != 0 || h.ID(4) != "e" || h.NNZ != 6 {
		t.Fatalf("dangling %d, id(4) %q, nnz %d; want 0, e, 6", h.DanglingCount, h.ID(4), h.NNZ)
	}
	if g.NNZ != 4 || g.N != 3 {
		t.Fatalf("ApplyBatch modified its input: n %d nnz %d", g.N, g.NNZ)
	}
	// Bad index: an error, not a panic.
	if _, _, err := ApplyBatch(g, &Batch{Name: "bad", Inserts: []Edge{{0, 3}}}, 1); err == nil || !strings.Contains(err.Error(), "outside [0, 3)") {
		t.Fatalf("out-of-range insertion: err %v", err)
	}
}

// TestApplyBatchEqualsRebuild applies random batches (insertions and
// deletions, present and absent, duplicates, new nodes) to random graphs and
// compares every array with NewGraph on the model edge set, for 1 and 3
// workers, including the dangling set and the dangling mass of a vector.
func TestApplyBatchEqualsRebuild(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	for trial := 0; trial < 60; trial++ {
		n := 1 + rng.IntN(3000)
		m := rng.IntN(8 * n)
		src, dst := make([]int32, m), make([]int32, m)
		for i := range src {
			src[i], dst[i] = int32(rng.IntN(n)), int32(rng.IntN(n))
		}
		g, err := NewGraph("r", n, src, dst, nil)
		if err != nil {
			t.Fatal(err)
		}
		set := setOf(g)
		add := rng.IntN(50)
		n2 := n + add
		b := &Batch{Name: fmt.Sprint(trial), AddNodes: add}
		gs, gd := g.Edges()
		for i := rng.IntN(2 * (m + 1)); i > 0; i-- {
			if len(gs) > 0 && rng.IntN(3) > 0 {
				j := rng.IntN(len(gs))
				b.Deletes = append(b.Deletes, Edge{gs[j], gd[j]})
			} else {
				b.Deletes = append(b.Deletes, Edge{int32(rng.IntN(n2)), int32(rng.IntN(n2))})
			}
		}
		for i := rng.IntN(2 * (m + 1)); i > 0; i-- {
			if len(gs) > 0 && rng.IntN(4) == 0 {
				j := rng.IntN(len(gs))
				b.Inserts = append(b.Inserts, Edge{gs[j], gd[j]})
			} else {
				b.Inserts = append(b.Inserts, Edge{int32(rng.IntN(n2)), int32(rng.IntN(n2))})
			}
		}
		// The model: deletions, then insertions, self-loops dropped.
		var want BatchStats
		want.NewNodes = add
		for _, e := range b.Deletes {
			if set[e] {
				delete(set, e)
				want.Deleted++
			} else {
				want.AbsentDeletes++
			}
		}
		for _, e := range b.Inserts {
			switch {
			case e.Src == e.Dst:
				want.SelfLoops++
			case set[e]:
				want.DuplicateInserts++
			default:
				set[e] = true
				want.Inserted++
			}
		}
		ref := buildFromSet(t, "r", n2, set, nil)
		for _, w := range []int{1, 3} {
			edgesPerBuildWorker = 64 // cut even small batches into several sort chunks
			h, st, err := ApplyBatch(g, b, w)
			edgesPerBuildWorker = 1 << 16
			if err != nil {
				t.Fatal(err)
			}
			st.TouchedRows = 0
			// A deletion re-inserted in the same batch counts as both.
			if st.Deleted-want.Deleted != st.Inserted-want.Inserted || st.Deleted < want.Deleted {
				t.Fatalf("trial %d workers %d: stats %+v, want %+v", trial, w, st, want)
			}
			st.Deleted, st.Inserted = want.Deleted, want.Inserted
			if st != want {
				t.Fatalf("trial %d workers %d: stats %+v, want %+v", trial, w, st, want)
			}
			if err := CompareStructure(h, ref); err != nil {
				t.Fatalf("trial %d workers %d: %v", trial, w, err)
			}
			x := make([]float64, n2)
			for i := range x {
				x[i] = rng.Float64()
			}
			if h.DanglingMass(x) != ref.DanglingMass(x) {
				t.Fatalf("trial %d: dangling mass differs", trial)
			}
		}
	}
}

func TestSortKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{0, 1, 5, 1 << 15, 3<<16 + 7, 1 << 18} {
		for _, w := range []int{1, 2, 3, 5, 8} {
			keys := make([]uint64, size)
			for i := range keys {
				keys[i] = rng.Uint64() % 1000003
			}
			sortKeys(keys, w)
			for i := 1; i < len(keys); i++ {
				if keys[i-1] > keys[i] {
					t.Fatalf("size %d workers %d: not sorted at %d", size, w, i)
				}
			}
		}
	}
}

func TestRandomBatch(t *testing.T) {
	g, err := RMAT(Graph500RMAT(10, 3))
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range BatchKinds {
		b, err := RandomBatch(g, kind, 0.01, 5)
		if err != nil {
			t.Fatal(err)
		}
		k := len(b.Inserts) + len(b.Deletes)
		if want := int(0.01*float64(g.NNZ) + 0.5); k != want {
			t.Fatalf("%s: %d edges, want %d", kind, k, want)
		}
		b2, _ := RandomBatch(g, kind, 0.01, 5)
		if fmt.Sprint(b2) != fmt.Sprint(b) {
			t.Fatalf("%s: not deterministic", kind)
		}
		_, st, err := ApplyBatch(g, b, 2)
		if err != nil {
			t.Fatal(err)
		}
		if kind == BatchDelete && st.Deleted+st.AbsentDeletes != k {
			t.Fatalf("delete: %+v", st)
		}
		for _, e := range b.Deletes {
			if !setOf(g)[e] {
				t.Fatalf("%s: deletion %v is not an edge of g", kind, e)
			}
		}
	}
	if _, err := RandomBatch(g, "swap", 0.1, 1); err == nil {
		t.Fatal("unknown kind accepted")
	}
	if _, err := RandomBatch(g, BatchInsert, 0, 1); err == nil {
		t.Fatal("fraction 0 accepted")
	}
}

// aanByYear counts, from papers.tsv.gz and acl.txt.gz read with plain string code
// (no package function), the nodes and the distinct non-self-loop edges of
// each year's snapshot: a node is in the snapshot of year y when its year
// is <= y, an edge when both its ends are.
func aanByYear(t *testing.T, dir string) (nodes, edges map[int]int, minYear, maxYear int) {
	t.Helper()
	year := map[string]int{}
	gunzip := func(name string) []byte { return fixture.ReadGzip(t, filepath.Join(dir, name)) }
	sc := bufio.NewScanner(bytes.NewReader(gunzip("papers.tsv.gz")))
	sc.Scan() // header
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		y, _ := strconv.Atoi(cols[1])
		year[cols[0]] = y
	}
	e := gunzip("acl.txt.gz")
	inGraph := map[string]bool{}
	seen := map[string]bool{}
	edgeYears := map[int]int{}
	for _, line := range strings.Split(string(e), "\n") {
		a, b, ok := strings.Cut(line, " , ")
		if !ok {
			continue
		}
		a, b = strings.TrimSpace(a), strings.TrimSpace(b)
		inGraph[a], inGraph[b] = true, true
		if a == b || seen[a+"\x00"+b] {
			continue
		}
		seen[a+"\x00"+b] = true
		edgeYears[max(year[a], year[b])]++
	}
	nodeYears := map[int]int{}
	minYear, maxYear = 1<<30, 0
	for id := range inGraph {
		nodeYears[year[id]]++
		minYear, maxYear = min(minYear, year[id]), max(maxYear, year[id])
	}
	nodes, edges = map[int]int{}, map[int]int{}
	cn, ce := 0, 0
	for y := minYear; y <= maxYear; y++ {
		cn += nodeYears[y]
		ce += edgeYears[y]
		nodes[y], edges[y] = cn, ce
	}
	return nodes, edges, minYear, maxYear
}

// TestAANByYear checks the yearly snapshots and batches of the real graph
// against counts derived independently from the two files, and the batch
// sequence against the snapshots: applying year y's batch to the snapshot
// of y-1 gives the snapshot of y, array for array.
func TestAANByYear(t *testing.T) {
	path := fixture.NeedBundled(t, fixture.Edges)
	dir := filepath.Dir(path)
	nodes, edges, _, maxYear := aanByYear(t, dir)
	y, err := LoadYearlyGraph(context.Background(), "aan", path, filepath.Join(dir, "papers.tsv.gz"))
	if err != nil {
		t.Fatal(err)
	}
	first, err := y.FirstYear(100)
	if err != nil {
		t.Fatal(err)
	}
	if first != 1986 || y.PapersIn(1986) != 188 || y.PapersIn(1982) != 99 {
		t.Fatalf("first year with >= 100 papers %d (papers in 1986: %d, 1982: %d), want 1986 (188, 99)", first, y.PapersIn(1986), y.PapersIn(1982))
	}
	if maxYear != 2012 || y.Forward != 45 {
		t.Fatalf("last year %d, forward citations %d; want 2012, 45", maxYear, y.Forward)
	}
	years := y.YearsBetween(first, 2012)
	if len(years) != 2012-first || years[0] != 1987 || years[len(years)-1] != 2012 {
		t.Fatalf("batch years %v", years)
	}
	prev, err := y.Snapshot(first, 2)
	if err != nil {
		t.Fatal(err)
	}
	if prev.N != nodes[first] || prev.NNZ != edges[first] {
		t.Fatalf("snapshot %d: n %d nnz %d, want %d %d", first, prev.N, prev.NNZ, nodes[first], edges[first])
	}
	from := first
	for _, yr := range years {
		snap, err := y.Snapshot(yr, 2)
		if err != nil {
			t.Fatal(err)
		}
		if snap.N != nodes[yr] || snap.NNZ != edges[yr] {
			t.Fatalf("snapshot %d: n %d nnz %d, want %d %d", yr, snap.N, snap.NNZ, nodes[yr], edges[yr])
		}
		b := y.Batch(from, yr)
		next, st, err := ApplyBatch(prev, b, 2)
		if err != nil {
			t.Fatal(err)
		}
		if st.NewNodes != nodes[yr]-nodes[from] || st.Inserted != edges[yr]-edges[from] || st.Deleted != 0 {
			t.Fatalf("batch %d: %+v, want %d new nodes and %d edges", yr, st, nodes[yr]-nodes[from], edges[yr]-edges[from])
		}
		if err := CompareStructure(next, snap); err != nil {
			t.Fatalf("batch %d applied to %d differs from the snapshot: %v", yr, from, err)
		}
		for v := 0; v < next.N; v++ {
			if next.ID(v) != snap.ID(v) {
				t.Fatalf("batch %d: id %d is %q, snapshot has %q", yr, v, next.ID(v), snap.ID(v))
			}
		}
		prev, from = next, yr
	}
	if prev.N != 16589 || prev.NNZ != 94931 || prev.SelfLoops != 42 || prev.DanglingCount != 1525 {
		t.Fatalf("2012: %s; want the whole graph (16589 nodes, 94931 edges, 42 self-loops, 1525 dangling)", prev.Summary())
	}
}
