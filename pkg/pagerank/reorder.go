package pagerank

import (
	"fmt"
	"runtime"
	"slices"
)

// Node relabelling for locality (NOTES.md, section "locality").
//
// A pull iteration gathers contrib[u] = x[u]/outdeg(u) once per edge u -> v,
// so node u is gathered outdeg(u) times per iteration. When the labels are
// random (R-MAT scrambles them, as Graph500 does), the few nodes that take
// most of the gathers are spread over the whole contribution vector: every
// 32-byte sector, and every 128-byte L2 line, holds some hot node, and at
// 2^24 nodes the 64 MiB vector no longer stays in the 60 MiB L2. Renaming
// the nodes once, by out-degree descending, packs the hot entries into a
// short prefix of the vector (a few MiB that stay cache-resident) without
// changing the graph: PageRank of the relabelled graph is the PageRank of
// the original, permuted. A GPU implementation runs unchanged on the
// relabelled in-edge CSR, and the ranks are permuted back on download
// (UnpermuteRanks).
//
// A permutation is a []int32 perm of length n with perm[old] = new.

// Order names a relabelling of a graph's nodes.
type Order string

const (
	// OrderOutDegree numbers nodes by out-degree descending (the number of
	// times an iteration gathers them), ties by in-degree descending, then
	// by the original index: the hottest gather sources come first.
	OrderOutDegree Order = "out-degree"
	// OrderInDegree numbers nodes by in-degree descending, ties by
	// out-degree descending, then by the original index.
	OrderInDegree Order = "in-degree"
	// OrderIdentity keeps every label (a control).
	OrderIdentity Order = "identity"
)

// Orders lists the orders DegreeOrder accepts.
var Orders = []Order{OrderOutDegree, OrderInDegree, OrderIdentity}

// DegreeOrder returns the permutation (perm[old] = new) that sorts g's nodes
// by order. It is a stable two-key counting sort (least significant key
// first), O(n + max degree), deterministic.
func DegreeOrder(g *Graph, order Order) ([]int32, error) {
	if g == nil || g.N < 1 || len(g.InRowPtr) != g.N+1 || len(g.OutDegree) != g.N {
		return nil, fmt.Errorf("degree order: graph is missing its in-edge CSR or out-degrees")
	}
	n := g.N
	out := func(v int32) int { return int(g.OutDegree[v]) }
	in := func(v int32) int { return int(g.InRowPtr[v+1] - g.InRowPtr[v]) }
	var primary, secondary func(int32) int
	switch order {
	case OrderOutDegree:
		primary, secondary = out, in
	case OrderInDegree:
		primary, secondary = in, out
	case OrderIdentity:
		perm := make([]int32, n)
		for i := range perm {
			perm[i] = int32(i)
		}
		return perm, nil
	default:
		return nil, fmt.Errorf("unknown order %q: valid orders are %v", order, Orders)
	}
	byOld := make([]int32, n) // old indices, in increasing order
	for i := range byOld {
		byOld[i] = int32(i)
	}
	bySecondary := countingSortDesc(byOld, secondary)
	sorted := countingSortDesc(bySecondary, primary) // stable: ties keep the secondary order
	perm := make([]int32, n)
	for newIdx, old := range sorted {
		perm[old] = int32(newIdx)
	}
	return perm, nil
}

// countingSortDesc returns ids stably sorted by key descending.
func countingSortDesc(ids []int32, key func(int32) int) []int32 {
	maxKey := 0
	for _, v := range ids {
		maxKey = max(maxKey, key(v))
	}
	// start[k] = position of the first id with key k, keys descending.
	start := make([]int, maxKey+2)
	for _, v := range ids {
		start[maxKey-key(v)+1]++
	}
	for k := 1; k < len(start); k++ {
		start[k] += start[k-1]
	}
	out := make([]int32, len(ids))
	for _, v := range ids {
		b := maxKey - key(v)
		out[start[b]] = v
		start[b]++
	}
	return out
}

// InversePermutation returns inv with inv[perm[i]] = i, or an error when
// perm is not a permutation of 0..len(perm)-1.
func InversePermutation(perm []int32) ([]int32, error) {
	inv := make([]int32, len(perm))
	for i := range inv {
		inv[i] = -1
	}
	for old, nw := range perm {
		if nw < 0 || int(nw) >= len(perm) {
			return nil, fmt.Errorf("not a permutation: perm[%d] = %d is outside [0, %d)", old, nw, len(perm))
		}
		if inv[nw] >= 0 {
			return nil, fmt.Errorf("not a permutation: perm[%d] = perm[%d] = %d", inv[nw], old, nw)
		}
		inv[nw] = int32(old)
	}
	return inv, nil
}

// RelabelOptions tunes Relabel.
type RelabelOptions struct {
	// InEdgesOnly builds only what a pull iteration reads (the in-edge CSR,
	// the out-degrees, 1/outdeg and the dangling mask); OutRowPtr and
	// OutColIdx of the result are nil.
	InEdgesOnly bool
	// Workers is the goroutine count (<= 0: GOMAXPROCS).
	Workers int
	// Name of the result ("": g's name + "~relabelled").
	Name string
}

// Relabel returns g with node v renamed perm[v]: edge u -> v of g is edge
// perm[u] -> perm[v] of the result, every per-node array is permuted
// (OutDegree, InvOutDegree, Dangling, IDs), rows stay sorted, and
// NNZ, DanglingCount, SelfLoops and Duplicates are g's. Each new row is the
// old row's column indices mapped through perm and sorted; rows are built in
// parallel blocks of about equal work. g is not modified.
func Relabel(g *Graph, perm []int32, opt RelabelOptions) (*Graph, error) {
	if g == nil || g.N < 1 || len(g.InRowPtr) != g.N+1 || len(g.InColIdx) != g.NNZ ||
		len(g.OutDegree) != g.N || len(g.InvOutDegree) != g.N || len(g.Dangling) != g.N {
		return nil, fmt.Errorf("relabel: graph is inconsistent")
	}
	if len(perm) != g.N {
		return nil, fmt.Errorf("relabel %q: permutation of length %d for %d nodes", g.Name, len(perm), g.N)
	}
	inv, err := InversePermutation(perm)
	if err != nil {
		return nil, fmt.Errorf("relabel %q: %w", g.Name, err)
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	name := opt.Name
	if name == "" {
		name = g.Name + "~relabelled"
	}
	n := g.N
	r := &Graph{Name: name, N: n, NNZ: g.NNZ, DanglingCount: g.DanglingCount, SelfLoops: g.SelfLoops, Duplicates: g.Duplicates}
	r.InRowPtr, r.InColIdx = permuteCSR(g.InRowPtr, g.InColIdx, perm, inv, workers)
	if !opt.InEdgesOnly {
		if len(g.OutRowPtr) != n+1 || len(g.OutColIdx) != g.NNZ {
			return nil, fmt.Errorf("relabel %q: no out-edge CSR (use InEdgesOnly)", g.Name)
		}
		r.OutRowPtr, r.OutColIdx = permuteCSR(g.OutRowPtr, g.OutColIdx, perm, inv, workers)
	}
	r.OutDegree = make([]int32, n)
	r.InvOutDegree = make([]float64, n)
	r.Dangling = make([]uint8, n)
	named := g.IDs != nil || g.IDBase != 0 // ids that are not the index itself follow their node
	if named {
		r.IDs = make([]string, n)
	}
	for nw, old := range inv {
		r.OutDegree[nw] = g.OutDegree[old]
		r.InvOutDegree[nw] = g.InvOutDegree[old]
		r.Dangling[nw] = g.Dangling[old]
		if named {
			r.IDs[nw] = g.ID(int(old))
		}
	}
	return r, nil
}

// permuteCSR returns the CSR of P A P^T for the CSR (rowPtr, colIdx): new
// row perm[v] holds perm[c] for every c in old row v, sorted.
func permuteCSR(rowPtr, colIdx, perm, inv []int32, workers int) (nRowPtr, nColIdx []int32) {
	n := len(rowPtr) - 1
	nRowPtr = make([]int32, n+1)
	for nw := 0; nw < n; nw++ {
		old := inv[nw]
		nRowPtr[nw+1] = nRowPtr[nw] + rowPtr[old+1] - rowPtr[old]
	}
	nColIdx = make([]int32, len(colIdx))
	w := max(1, min(workers, len(colIdx)/edgesPerBuildWorker+1))
	blocks := rowBlocks(nRowPtr, 8*w)
	parallelBlocks(w, len(blocks)-1, func(b int) {
		for nw := blocks[b]; nw < blocks[b+1]; nw++ {
			old := inv[nw]
			dst := nColIdx[nRowPtr[nw]:nRowPtr[nw+1]]
			for j, c := range colIdx[rowPtr[old]:rowPtr[old+1]] {
				dst[j] = perm[c]
			}
			slices.Sort(dst)
		}
	})
	return nRowPtr, nColIdx
}

// UnpermuteRanks returns x in the original labels: out[v] = x[perm[v]],
// for ranks x computed on Relabel(g, perm).
func UnpermuteRanks(x []float64, perm []int32) []float64 {
	out := make([]float64, len(perm))
	for old, nw := range perm {
		out[old] = x[nw]
	}
	return out
}

// GatherLocality describes how concentrated a pull iteration's gathers are
// in a labelling: the share of gathers (edges, weighted by source) that land
// in the hottest `bytes` of the contribution vector, counted per line of
// LineBytes (a source's gathers count for its line). Computed for a
// labelling perm of g (nil: g's own labels).
type GatherLocality struct {
	LineBytes int       `json:"line_bytes"`
	Bytes     []int64   `json:"bytes"` // capacities (contribution-vector bytes held)
	Share     []float64 `json:"share"` // share of all gathers served by the hottest lines fitting in Bytes[i]
	Lines     int       `json:"lines"` // lines with at least one gather
}

// Locality computes GatherLocality of g's gathers under perm (nil: the
// identity) for 4-byte contributions, lines of lineBytes, at the given
// capacities: it sums out-degrees per line, sorts lines by that count
// descending and accumulates. O(n log n).
func Locality(g *Graph, perm []int32, lineBytes int, capacities []int64) GatherLocality {
	per := max(lineBytes/4, 1)
	lines := make([]int64, (g.N+per-1)/per)
	total := int64(0)
	for v := 0; v < g.N; v++ {
		l := v
		if perm != nil {
			l = int(perm[v])
		}
		d := int64(g.OutDegree[v])
		lines[l/per] += d
		total += d
	}
	slices.SortFunc(lines, func(a, b int64) int { return int(b - a) })
	loc := GatherLocality{LineBytes: lineBytes, Bytes: capacities, Share: make([]float64, len(capacities))}
	for _, c := range lines {
		if c > 0 {
			loc.Lines++
		}
	}
	for i, capBytes := range capacities {
		k := min(int(capBytes/int64(lineBytes)), len(lines))
		s := int64(0)
		for _, c := range lines[:k] {
			s += c
		}
		if total > 0 {
			loc.Share[i] = float64(s) / float64(total)
		}
	}
	return loc
}
