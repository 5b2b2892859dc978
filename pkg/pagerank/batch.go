package pagerank

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
)

// Edge is one directed edge Src -> Dst between dense node indices.
type Edge struct{ Src, Dst int32 }

// Batch is one update of a graph, applied in this order: AddNodes new nodes
// get the indices n .. n+AddNodes-1 (n is the graph's node count before the
// batch), then every edge of Deletes is removed, then every edge of Inserts
// is added. The result is the graph of the edge set (E \ Deletes) ∪ Inserts,
// self-loops dropped, on n+AddNodes nodes: exactly what NewGraph builds from
// that edge set (see ApplyBatch).
type Batch struct {
	Name     string   // e.g. "1987" or "insert 0.1%"
	AddNodes int      // new nodes, appended after the existing ones
	NewIDs   []string // their external ids (length AddNodes), or nil
	Inserts  []Edge   // may name new nodes; duplicates and present edges are counted, not errors
	Deletes  []Edge   // edges to remove; absent edges are counted, not errors
}

// BatchStats counts what ApplyBatch did with a Batch. Inserted + DuplicateInserts
// + SelfLoops = len(Inserts); Deleted + AbsentDeletes = len(Deletes).
type BatchStats struct {
	NewNodes         int `json:"new_nodes" csv:"new_nodes"`
	Inserted         int `json:"inserted" csv:"inserted"`                   // edges added
	Deleted          int `json:"deleted" csv:"deleted"`                     // edges removed
	DuplicateInserts int `json:"duplicate_inserts" csv:"duplicate_inserts"` // insertions of an edge already present (in the graph after the deletions, or earlier in the batch)
	AbsentDeletes    int `json:"absent_deletes" csv:"absent_deletes"`       // deletions of an edge not in the graph (or deleted earlier in the batch)
	SelfLoops        int `json:"self_loops" csv:"self_loops"`               // insertions u -> u, dropped as NewGraph drops them
	TouchedRows      int `json:"touched_rows" csv:"touched_rows"`           // out-CSR rows whose content changed
}

// packEdge is the sort key of the edge a -> b: a in the high 32 bits.
func packEdge(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// ApplyBatch returns the graph g after batch b, built by merging the batch
// into g's two CSRs instead of rebuilding them: the batch's edges are sorted
// by source (a parallel sort of 64-bit keys), every out-CSR row is merged
// with its deletions and insertions in one pass (rows cut into blocks of
// about equal work, two passes: lengths, then a prefix sum and the writes),
// the edges that really changed are sorted by destination and merged into
// the in-edge CSR the same way, and out-degrees, 1/outdeg and the dangling
// mask are recomputed for every row. g itself is not modified.
//
// The result equals, array for array (CompareStructure), the Graph that
// NewGraph builds from the resulting edge set on n+AddNodes nodes; its
// SelfLoops and Duplicates are g's plus the batch's dropped self-loops and
// duplicate insertions. Cost: O(n + nnz) streaming copy plus O(b log b) for
// a batch of b edges, against NewGraph's O(n + nnz log maxdeg) with random
// scatters; memory: a second copy of both CSRs. workers <= 0 means
// GOMAXPROCS.
//
// Errors: an edge index outside [0, n+AddNodes), AddNodes < 0, NewIDs of the
// wrong length, or a result beyond the int32 index limits.
func ApplyBatch(g *Graph, b *Batch, workers int) (*Graph, BatchStats, error) {
	var st BatchStats
	if g == nil || b == nil {
		return nil, st, fmt.Errorf("apply batch: nil graph or batch")
	}
	if b.AddNodes < 0 {
		return nil, st, fmt.Errorf("batch %q: %d new nodes, want >= 0", b.Name, b.AddNodes)
	}
	if b.NewIDs != nil && len(b.NewIDs) != b.AddNodes {
		return nil, st, fmt.Errorf("batch %q: %d ids for %d new nodes", b.Name, len(b.NewIDs), b.AddNodes)
	}
	n := g.N + b.AddNodes
	if n > maxNodes {
		return nil, st, fmt.Errorf("batch %q: %d nodes exceeds the int32 index limit %d", b.Name, n, maxNodes)
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	st.NewNodes = b.AddNodes
	check := func(what string, es []Edge) error {
		for i, e := range es {
			if e.Src < 0 || int(e.Src) >= n || e.Dst < 0 || int(e.Dst) >= n {
				return fmt.Errorf("batch %q: %s %d (%d -> %d) has an index outside [0, %d)", b.Name, what, i, e.Src, e.Dst, n)
			}
		}
		return nil
	}
	if err := check("insertion", b.Inserts); err != nil {
		return nil, st, err
	}
	if err := check("deletion", b.Deletes); err != nil {
		return nil, st, err
	}

	// Sorted, deduplicated keys (src<<32 | dst); self-loops dropped.
	ins := make([]uint64, 0, len(b.Inserts))
	for _, e := range b.Inserts {
		if e.Src == e.Dst {
			st.SelfLoops++
			continue
		}
		ins = append(ins, packEdge(e.Src, e.Dst))
	}
	del := make([]uint64, 0, len(b.Deletes))
	for _, e := range b.Deletes {
		if e.Src == e.Dst { // a self-loop is never in a Graph
			st.AbsentDeletes++
			continue
		}
		del = append(del, packEdge(e.Src, e.Dst))
	}
	sortKeys(ins, workers)
	sortKeys(del, workers)
	var k int
	ins, k = dedupKeys(ins)
	st.DuplicateInserts += k
	del, k = dedupKeys(del)
	st.AbsentDeletes += k

	// Out-CSR: merge; the effective changes come back as (dst<<32 | src) keys.
	om := mergeCSR(g.N, n, g.OutRowPtr, g.OutColIdx, del, ins, workers, true)
	st.Deleted, st.Inserted = len(om.removed), len(om.added)
	st.AbsentDeletes += om.absent
	st.DuplicateInserts += om.duplicate
	st.TouchedRows = om.touched
	if int64(g.NNZ)-int64(st.Deleted)+int64(st.Inserted) > int64(maxEdges) {
		return nil, st, fmt.Errorf("batch %q: %d edges after the batch exceeds the int32 index limit %d", b.Name, g.NNZ-st.Deleted+st.Inserted, maxEdges)
	}
	sortKeys(om.removed, workers)
	sortKeys(om.added, workers)
	im := mergeCSR(g.N, n, g.InRowPtr, g.InColIdx, om.removed, om.added, workers, false)
	if im.absent != 0 || im.duplicate != 0 {
		panic(fmt.Sprintf("apply batch %q: in-edge CSR out of step with the out-edge CSR (%d absent, %d duplicate)", b.Name, im.absent, im.duplicate))
	}

	out := &Graph{Name: g.Name, N: n, NNZ: int(om.rowPtr[n]),
		OutRowPtr: om.rowPtr, OutColIdx: om.colIdx, InRowPtr: im.rowPtr, InColIdx: im.colIdx,
		SelfLoops: g.SelfLoops + st.SelfLoops, Duplicates: g.Duplicates + st.DuplicateInserts}
	if g.IDs != nil {
		out.IDs = make([]string, n)
		copy(out.IDs, g.IDs)
		for i := g.N; i < n; i++ {
			if b.NewIDs != nil {
				out.IDs[i] = b.NewIDs[i-g.N]
			} else {
				out.IDs[i] = fmt.Sprint(i)
			}
		}
	}
	out.setDegrees(max(1, min(workers, n/4096)))
	return out, st, nil
}

// merged is one CSR after mergeCSR.
type merged struct {
	rowPtr, colIdx    []int32
	removed, added    []uint64 // effective changes, keys with the column index in the high bits
	absent, duplicate int
	touched           int
}

// mergeCSR merges sorted, deduplicated deletion and insertion keys (row<<32
// | col) into an nOld-row CSR, giving an nNew-row CSR (rows from nOld on
// start empty). A deletion of an absent entry and an insertion of a present
// one (after the deletions) are counted and skipped. With collect, the
// entries really removed and added are returned as col<<32 | row keys (the
// transpose's keys).
func mergeCSR(nOld, nNew int, rowPtr, colIdx []int32, del, ins []uint64, workers int, collect bool) merged {
	oldEnd := func(u int) int32 { return rowPtr[min(u, nOld)] } // start of row u (end of row u-1)
	// Row blocks of about equal work: one per row, one per old entry, one per batch key.
	parts := max(1, min(8*workers, nNew/1024))
	bounds := make([]int, parts+1)
	total := int64(nNew) + int64(rowPtr[nOld]) + int64(len(del)+len(ins))
	work := func(u int) int64 {
		k := uint64(u) << 32
		return int64(u) + int64(oldEnd(u)) + int64(lowerBound(del, k)+lowerBound(ins, k))
	}
	for p := 1; p < parts; p++ {
		goal := total * int64(p) / int64(parts)
		bounds[p] = max(bounds[p-1], sort.Search(nNew, func(u int) bool { return work(u) >= goal }))
	}
	bounds[parts] = nNew

	newLen := make([]int32, nNew+1) // newLen[u+1]; prefix-summed into the row pointer
	counts := make([]rowCounts, parts)
	keyRange := func(keys []uint64, lo, hi int) []uint64 {
		return keys[lowerBound(keys, uint64(lo)<<32):lowerBound(keys, uint64(hi)<<32)]
	}
	// nextRow splits the keys of the smallest row left in d or a off both:
	// that row, its deletions and insertions, and what remains.
	nextRow := func(d, a []uint64) (u int, du, au, dRest, aRest []uint64) {
		r := uint64(math.MaxUint64)
		if len(d) > 0 {
			r = d[0] >> 32
		}
		if len(a) > 0 {
			r = min(r, a[0]>>32)
		}
		nd, na := 0, 0
		for nd < len(d) && d[nd]>>32 == r {
			nd++
		}
		for na < len(a) && a[na]>>32 == r {
			na++
		}
		return int(r), d[:nd], a[:na], d[nd:], a[na:]
	}
	parallelBlocks(workers, parts, func(p int) {
		lo, hi := bounds[p], bounds[p+1]
		d, a := keyRange(del, lo, hi), keyRange(ins, lo, hi)
		for u := lo; u < min(hi, nOld); u++ {
			newLen[u+1] = rowPtr[u+1] - rowPtr[u]
		}
		var bc rowCounts
		for len(d) > 0 || len(a) > 0 {
			var u int
			var du, au []uint64
			u, du, au, d, a = nextRow(d, a)
			l, c := mergeRow(u, colIdx[oldEnd(u):oldEnd(u+1)], du, au, nil, nil, nil)
			newLen[u+1] = int32(l)
			bc.add(c)
		}
		counts[p] = bc
	})
	var m merged
	remOff := make([]int, parts+1)
	addOff := make([]int, parts+1)
	for p, c := range counts {
		m.absent += c.absent
		m.duplicate += c.duplicate
		m.touched += c.touched
		remOff[p+1] = remOff[p] + c.removed
		addOff[p+1] = addOff[p] + c.added
	}
	for u := 0; u < nNew; u++ {
		newLen[u+1] += newLen[u]
	}
	m.rowPtr = newLen
	m.colIdx = make([]int32, newLen[nNew])
	if collect {
		m.removed = make([]uint64, remOff[parts])
		m.added = make([]uint64, addOff[parts])
	}
	parallelBlocks(workers, parts, func(p int) {
		lo, hi := bounds[p], bounds[p+1]
		d, a := keyRange(del, lo, hi), keyRange(ins, lo, hi)
		var rem, add []uint64
		if collect {
			rem, add = m.removed[remOff[p]:remOff[p+1]], m.added[addOff[p]:addOff[p+1]]
		}
		u0 := lo // rows [u0, u) are untouched: one copy, same length in both CSRs
		for len(d) > 0 || len(a) > 0 {
			var u int
			var du, au []uint64
			u, du, au, d, a = nextRow(d, a)
			copy(m.colIdx[newLen[u0]:newLen[u]], colIdx[oldEnd(u0):oldEnd(u)])
			_, c := mergeRow(u, colIdx[oldEnd(u):oldEnd(u+1)], du, au, m.colIdx[newLen[u]:newLen[u+1]], rem, add)
			if collect {
				rem, add = rem[c.removed:], add[c.added:]
			}
			u0 = u + 1
		}
		copy(m.colIdx[newLen[u0]:newLen[hi]], colIdx[oldEnd(u0):oldEnd(hi)])
	})
	return m
}

// rowCounts are mergeRow's counts for one row or a block of rows, padded to
// a cache line of its own.
type rowCounts struct {
	absent, duplicate, touched, removed, added int
	_                                          [24]byte
}

func (c *rowCounts) add(o rowCounts) {
	c.absent += o.absent
	c.duplicate += o.duplicate
	c.touched += o.touched
	c.removed += o.removed
	c.added += o.added
}

// mergeRow merges row u (sorted entries old, sorted deletion keys d and
// insertion keys a of this row, the column in the low 32 bits) into out
// when out is non-nil, and returns the new length and the counts. With rem
// and add non-nil, the entries removed and added are written there as
// col<<32 | u keys (the transpose's).
func mergeRow(u int, old []int32, d, a []uint64, out []int32, rem, add []uint64) (length int, c rowCounts) {
	i, j, ai, w := 0, 0, 0, 0
	if len(d) == 0 { // insertions only: a plain merge of two sorted lists
		for ai < len(a) {
			x := int32(uint32(a[ai]))
			switch {
			case i < len(old) && old[i] < x:
				if out != nil {
					out[w] = old[i]
				}
				i++
			case i < len(old) && old[i] == x: // insertion of a present entry
				if out != nil {
					out[w] = x
				}
				i++
				ai++
				c.duplicate++
			default: // a new entry, also every insertion past the old row's end
				if out != nil {
					out[w] = x
				}
				if add != nil {
					add[c.added] = packEdge(x, int32(u))
				}
				c.added++
				ai++
			}
			w++
		}
		if out != nil {
			copy(out[w:], old[i:])
		}
		w += len(old) - i
		if c.added > 0 {
			c.touched = 1
		}
		return w, c
	}
	// Deletions first (old minus d), then the insertions merge with what is kept.
	for i < len(old) || ai < len(a) {
		var col int32
		fromOld := false
		switch {
		case ai >= len(a) || (i < len(old) && old[i] <= int32(uint32(a[ai]))):
			col, fromOld = old[i], true
		default:
			col = int32(uint32(a[ai]))
		}
		if fromOld {
			i++
			for j < len(d) && int32(uint32(d[j])) < col { // deletion of an absent entry
				c.absent++
				j++
			}
			if j < len(d) && int32(uint32(d[j])) == col { // deleted
				j++
				if rem != nil {
					rem[c.removed] = packEdge(col, int32(u))
				}
				c.removed++
				// An insertion of the same entry re-adds it below.
				continue
			}
			if ai < len(a) && int32(uint32(a[ai])) == col { // insertion of a present entry
				c.duplicate++
				ai++
			}
		} else {
			ai++
			if add != nil {
				add[c.added] = packEdge(col, int32(u))
			}
			c.added++
		}
		if out != nil {
			out[w] = col
		}
		w++
	}
	c.absent += len(d) - j
	if c.removed > 0 || c.added > 0 {
		c.touched = 1
	}
	return w, c
}

// lowerBound is the first index i with keys[i] >= k (len(keys) if none).
func lowerBound(keys []uint64, k uint64) int {
	i, _ := slices.BinarySearch(keys, k)
	return i
}

// dedupKeys removes repeated keys from a sorted slice in place and returns
// the shortened slice and how many it removed.
func dedupKeys(keys []uint64) ([]uint64, int) {
	out := slices.Compact(keys)
	return out, len(keys) - len(out)
}

// sortKeys sorts keys ascending with up to workers goroutines: W chunks
// sorted in parallel, then merged pairwise (the merges of one round in
// parallel too).
func sortKeys(keys []uint64, workers int) {
	W := max(1, min(workers, len(keys)/(1<<15)))
	if W == 1 {
		slices.Sort(keys)
		return
	}
	bounds := make([]int, W+1)
	for c := range W + 1 {
		bounds[c] = c * len(keys) / W
	}
	parallelDo(W, func(c int) { slices.Sort(keys[bounds[c]:bounds[c+1]]) })
	buf := make([]uint64, len(keys))
	src, dst := keys, buf
	for len(bounds) > 2 {
		pairs := (len(bounds) - 1) / 2
		next := []int{0}
		parallelDo(pairs, func(p int) {
			lo, mid, hi := bounds[2*p], bounds[2*p+1], bounds[2*p+2]
			mergeKeys(dst[lo:hi], src[lo:mid], src[mid:hi])
		})
		for p := 0; p < pairs; p++ {
			next = append(next, bounds[2*p+2])
		}
		if (len(bounds)-1)%2 == 1 { // odd chunk out: carried over
			lo, hi := bounds[len(bounds)-2], bounds[len(bounds)-1]
			copy(dst[lo:hi], src[lo:hi])
			next = append(next, hi)
		}
		bounds = next
		src, dst = dst, src
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
}

func mergeKeys(dst, a, b []uint64) {
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if a[i] <= b[j] {
			dst[k] = a[i]
			i++
		} else {
			dst[k] = b[j]
			j++
		}
		k++
	}
	k += copy(dst[k:], a[i:])
	copy(dst[k:], b[j:])
}

// Edges returns g's edge list in out-CSR order (source ascending, then
// destination): len nnz each. NewGraph(g.Name, g.N, src, dst, g.IDs)
// rebuilds g.
func (g *Graph) Edges() (src, dst []int32) {
	src, dst = make([]int32, g.NNZ), make([]int32, g.NNZ)
	copy(dst, g.OutColIdx)
	for u := 0; u < g.N; u++ {
		for j := g.OutRowPtr[u]; j < g.OutRowPtr[u+1]; j++ {
			src[j] = int32(u)
		}
	}
	return src, dst
}

// CompareStructure returns nil when a and b hold the same graph bit for
// bit (n, nnz, both CSRs, out-degrees, 1/outdeg, the dangling mask and
// count), else an error naming the first array that differs and where.
func CompareStructure(a, b *Graph) error {
	if a.N != b.N || a.NNZ != b.NNZ {
		return fmt.Errorf("n, nnz: %d, %d vs %d, %d", a.N, a.NNZ, b.N, b.NNZ)
	}
	for _, x := range []struct {
		name string
		p, q []int32
	}{{"out row pointer", a.OutRowPtr, b.OutRowPtr}, {"out column index", a.OutColIdx, b.OutColIdx},
		{"in row pointer", a.InRowPtr, b.InRowPtr}, {"in column index", a.InColIdx, b.InColIdx},
		{"out-degree", a.OutDegree, b.OutDegree}} {
		if i := firstDiff(x.p, x.q); i >= 0 {
			return fmt.Errorf("%s differs at %d", x.name, i)
		}
	}
	for i := range a.InvOutDegree {
		if math.Float64bits(a.InvOutDegree[i]) != math.Float64bits(b.InvOutDegree[i]) {
			return fmt.Errorf("1/outdeg differs at node %d", i)
		}
	}
	if i := firstDiff(a.Dangling, b.Dangling); i >= 0 {
		return fmt.Errorf("dangling mask differs at node %d", i)
	}
	if a.DanglingCount != b.DanglingCount {
		return fmt.Errorf("dangling count %d vs %d", a.DanglingCount, b.DanglingCount)
	}
	return nil
}

func firstDiff[T comparable](p, q []T) int {
	if len(p) != len(q) {
		return min(len(p), len(q))
	}
	for i := range p {
		if p[i] != q[i] {
			return i
		}
	}
	return -1
}

// DanglingMass is the rank on dangling nodes, sum of x[v] over v with
// Dangling[v] = 1, in index order (the D of the update rule). x has length n.
func (g *Graph) DanglingMass(x []float64) float64 {
	var m float64
	for v, d := range g.Dangling {
		if d != 0 {
			m += x[v]
		}
	}
	return m
}
