package pagerank

import (
	"fmt"
	"math"
	"sort"
)

// Kinds of random batch (RandomBatch).
const (
	BatchInsert = "insert" // only insertions
	BatchDelete = "delete" // only deletions
	BatchMixed  = "mixed"  // half deletions, half insertions
)

// BatchKinds lists the random batch kinds in report order.
var BatchKinds = []string{BatchInsert, BatchDelete, BatchMixed}

// RandomBatch returns a seeded batch of k = max(1, round(fraction*nnz))
// edges for g (fraction in (0, 1]). Deletions are k edges of g drawn
// uniformly with replacement (so a large batch deletes some edge twice: the
// second is counted absent). Insertions preserve the degree skew: the source
// is the source of a uniformly drawn edge of g and the destination the
// destination of another, so hubs gain edges in proportion to their degree,
// and some insertions hit edges already present (counted as duplicates).
// Mixed: k/2 deletions and k-k/2 insertions. Deterministic for (g, kind,
// fraction, seed). No new nodes. Errors: g without edges, an unknown kind, a
// fraction outside (0, 1].
func RandomBatch(g *Graph, kind string, fraction float64, seed uint64) (*Batch, error) {
	if g.NNZ == 0 {
		return nil, fmt.Errorf("random batch on %q: the graph has no edges", g.Name)
	}
	if !(fraction > 0 && fraction <= 1) {
		return nil, fmt.Errorf("random batch fraction %v out of range: must be in (0, 1]", fraction)
	}
	k := max(1, int(math.Round(fraction*float64(g.NNZ))))
	var nDel, nIns int
	switch kind {
	case BatchInsert:
		nIns = k
	case BatchDelete:
		nDel = k
	case BatchMixed:
		nDel, nIns = k/2, k-k/2
	default:
		return nil, fmt.Errorf("unknown batch kind %q: must be one of %v", kind, BatchKinds)
	}
	rng := splitmix64(seed*0x9e3779b97f4a7c15 + uint64(len(kind))*0xbf58476d1ce4e5b9 + math.Float64bits(fraction))
	m := uint64(g.NNZ)
	srcOf := func(pos int) int32 { // the row holding out-CSR position pos
		return int32(sort.Search(g.N, func(u int) bool { return int(g.OutRowPtr[u+1]) > pos }))
	}
	b := &Batch{Name: fmt.Sprintf("%s %s", kind, FractionText(fraction))}
	b.Deletes = make([]Edge, nDel)
	for i := range b.Deletes {
		pos := int(rng.next() % m)
		b.Deletes[i] = Edge{srcOf(pos), g.OutColIdx[pos]}
	}
	b.Inserts = make([]Edge, nIns)
	for i := range b.Inserts {
		s := srcOf(int(rng.next() % m))
		d := g.OutColIdx[rng.next()%m]
		b.Inserts[i] = Edge{s, d}
	}
	return b, nil
}

// FractionText writes a batch fraction as a percentage: 0.001 -> "0.1%".
func FractionText(f float64) string {
	return fmt.Sprintf("%s%%", trimFloat(f*100))
}

func trimFloat(x float64) string {
	s := fmt.Sprintf("%.6g", x)
	return s
}
