package pagerank

import (
	"context"
	"fmt"
	"slices"
	"strconv"
)

// Graph is a directed graph in compressed sparse row (CSR) form, twice:
// out-edges (row u lists the nodes u cites) and in-edges (row v lists the
// nodes that cite v; the transpose, which the pull-style PageRank SpMV reads).
//
// Shapes: n nodes, nnz edges after dropping self-loops and duplicates.
// Indices are int32 so the arrays upload unchanged to the GPU; graphs with
// more than math.MaxInt32 nodes or edges are rejected by the builders.
type Graph struct {
	Name string   // case name, e.g. "aan" or "tiny"
	N    int      // node count n
	NNZ  int      // edge count nnz
	IDs  []string // external id of each dense node index, length n (nil for synthetic graphs and integer ids equal to the index)
	// IDBase: with IDs nil, node v's id is v + IDBase (1 for a MatrixMarket
	// file, whose ids are 1-based; 0 otherwise).
	IDBase int

	OutRowPtr []int32 // out-edge CSR row pointer, length n+1
	OutColIdx []int32 // out-edge CSR column index (cited node), length nnz, sorted within each row
	InRowPtr  []int32 // in-edge CSR row pointer, length n+1
	InColIdx  []int32 // in-edge CSR column index (citing node), length nnz, sorted within each row

	OutDegree     []int32   // out-degree of each node, length n
	InvOutDegree  []float64 // 1/outdeg, 0 for dangling nodes, length n
	Dangling      []uint8   // 1 where outdeg == 0 (dangling node), length n (one byte each, as uploaded)
	DanglingCount int

	// Dropped while building.
	SelfLoops  int
	Duplicates int
}

// InDegree returns the in-degree of node v.
func (g *Graph) InDegree(v int) int { return int(g.InRowPtr[v+1] - g.InRowPtr[v]) }

// ID returns the external id of node v, or v + IDBase as text when the
// graph has no ids.
func (g *Graph) ID(v int) string {
	if v < len(g.IDs) {
		return g.IDs[v]
	}
	return strconv.Itoa(v + g.IDBase)
}

// Summary is the course's load line, e.g.
// "loaded 16589 nodes and 94931 edges (dropped 42 self-loops, 0 duplicates); 1525 dangling".
func (g *Graph) Summary() string {
	return fmt.Sprintf("loaded %d nodes and %d edges (dropped %d self-loops, %d duplicates); %d dangling",
		g.N, g.NNZ, g.SelfLoops, g.Duplicates, g.DanglingCount)
}

// checkBuildArgs rejects what NewGraph and NewGraphParallel cannot build:
// n outside [1, maxNodes], edge arrays of different lengths or longer than
// maxEdges, and ids that do not name every node.
func checkBuildArgs(name string, n int, src, dst []int32, ids []string) error {
	if n <= 0 {
		return fmt.Errorf("graph %q: node count %d must be positive", name, n)
	}
	if n > maxNodes {
		return fmt.Errorf("graph %q: %d nodes exceeds the int32 index limit %d", name, n, maxNodes)
	}
	if len(src) != len(dst) {
		return fmt.Errorf("graph %q: %d sources but %d destinations", name, len(src), len(dst))
	}
	if len(src) > maxEdges {
		return fmt.Errorf("graph %q: %d edges exceeds the int32 index limit %d", name, len(src), maxEdges)
	}
	if ids != nil && len(ids) != n {
		return fmt.Errorf("graph %q: %d ids for %d nodes", name, len(ids), n)
	}
	return nil
}

// NewGraph builds a Graph from n nodes and an edge list src[i] -> dst[i]
// (dense indices in [0, n)). Self-loops and duplicate edges are dropped and
// counted. The out-edge CSR is built by a counting sort on the source, rows
// are sorted and deduplicated, and the in-edge CSR is the transpose built
// once by a second counting sort (histogram of in-degrees, exclusive prefix
// sum, scatter), the course's host-side transpose. Cost O(n + nnz log maxdeg).
func NewGraph(name string, n int, src, dst []int32, ids []string) (*Graph, error) {
	return NewGraphContext(context.Background(), name, n, src, dst, ids)
}

// NewGraphContext is NewGraph that stops soon after ctx is done (its loops
// look at a flag every stopEvery edges or rows), returning an error that
// wraps ctx's error.
func NewGraphContext(ctx context.Context, name string, n int, src, dst []int32, ids []string) (*Graph, error) {
	if err := checkBuildArgs(name, n, src, dst, ids); err != nil {
		return nil, err
	}
	stop, release := watch(ctx)
	defer release()
	what := fmt.Sprintf("build graph %q", name)
	g := &Graph{Name: name, N: n, IDs: ids}

	// Out-edge CSR by counting sort on the source, self-loops dropped.
	rowPtr := make([]int32, n+1)
	for i := range src {
		if i%stopEvery == 0 && stop.Load() {
			return nil, stop.err(what)
		}
		s, d := src[i], dst[i]
		if s < 0 || int(s) >= n || d < 0 || int(d) >= n {
			return nil, fmt.Errorf("graph %q: edge %d (%d -> %d) has an index outside [0, %d)", name, i, s, d, n)
		}
		if s == d {
			g.SelfLoops++
			continue
		}
		rowPtr[s+1]++
	}
	for u := 0; u < n; u++ {
		rowPtr[u+1] += rowPtr[u]
	}
	colIdx := make([]int32, rowPtr[n])
	next := slices.Clone(rowPtr[:n])
	for i := range src {
		if i%stopEvery == 0 && stop.Load() {
			return nil, stop.err(what)
		}
		s, d := src[i], dst[i]
		if s == d {
			continue
		}
		colIdx[next[s]] = d
		next[s]++
	}
	// Sort each row and drop duplicates, compacting in place.
	w := int32(0)
	start := int32(0)
	for u := 0; u < n; u++ {
		if u%stopEvery == 0 && stop.Load() {
			return nil, stop.err(what)
		}
		row := colIdx[start:rowPtr[u+1]]
		start = rowPtr[u+1]
		slices.Sort(row)
		rowStart := w
		for j, c := range row {
			if j > 0 && c == row[j-1] {
				g.Duplicates++
				continue
			}
			colIdx[w] = c
			w++
		}
		rowPtr[u] = rowStart
	}
	rowPtr[n] = w
	g.OutRowPtr = rowPtr
	g.OutColIdx = colIdx[:w:w]
	g.NNZ = int(w)

	g.OutDegree = make([]int32, n)
	g.InvOutDegree = make([]float64, n)
	g.Dangling = make([]uint8, n)
	for u := 0; u < n; u++ {
		deg := rowPtr[u+1] - rowPtr[u]
		g.OutDegree[u] = deg
		if deg == 0 {
			g.Dangling[u] = 1
			g.DanglingCount++
		} else {
			g.InvOutDegree[u] = 1 / float64(deg)
		}
	}
	if err := stop.err(what); err != nil {
		return nil, err
	}
	g.InRowPtr, g.InColIdx = Transpose(n, g.OutRowPtr, g.OutColIdx)
	if err := stop.err(what); err != nil {
		return nil, err
	}
	return g, nil
}

// Transpose returns the transpose of an n-row CSR matrix (rowPtr length n+1,
// colIdx length nnz, columns in [0, n)) by counting sort: a histogram of
// column counts, an exclusive prefix sum into the new row pointer, then a
// scatter in source-row order, so each new row comes out sorted.
func Transpose(n int, rowPtr, colIdx []int32) (tRowPtr, tColIdx []int32) {
	tRowPtr = make([]int32, n+1)
	for _, c := range colIdx { // histogram
		tRowPtr[c+1]++
	}
	for v := 0; v < n; v++ { // exclusive prefix sum
		tRowPtr[v+1] += tRowPtr[v]
	}
	tColIdx = make([]int32, len(colIdx))
	next := slices.Clone(tRowPtr[:n])
	for u := 0; u < n; u++ { // scatter
		for j := rowPtr[u]; j < rowPtr[u+1]; j++ {
			c := colIdx[j]
			tColIdx[next[c]] = int32(u)
			next[c]++
		}
	}
	return tRowPtr, tColIdx
}
