package pagerank

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// NewGraphParallel builds exactly the Graph that NewGraph builds from the
// same arguments (the same CSRs element for element, the same degrees, the
// same self-loop, duplicate and dangling counts, the same error for bad
// input), with up to `workers` goroutines (<= 0: GOMAXPROCS). It exists for
// the scale study, where the serial build of an RMAT graph at scale 24 (268M
// edges) takes longer than every CPU implementation's iterations together.
//
// Method: a parallel counting sort that keeps the serial sort's order.
// The edge list is cut into W consecutive chunks; each worker histograms its
// chunk's sources into its own row of a W x n count matrix; a prefix sum over
// rows, then over chunks within a row, gives chunk c of row s the start
// rowPtr[s] + sum over c' < c of count[c'][s]; each worker then scatters its
// chunk in edge order. Row s therefore lists its edges in edge-list order, as
// the serial scatter does. Rows are sorted and deduplicated in parallel (row
// blocks of about equal edge count, taken dynamically) and compacted into a
// new column index by a prefix sum of the new row lengths. The transpose is
// the same counting sort over out-CSR rows cut into W ranges of about equal
// edge count, scattered in row order, so every in-row comes out sorted, as
// Transpose's does.
//
// Memory beyond NewGraph's: the W x n int32 count matrix (W is lowered until
// it is at most 1 GiB: W = 16 at n = 2^24) and a second column index while
// compacting (4*nnz bytes). Cost O(n*W + nnz log maxdeg) work, of which only
// two O(n) prefix sums are serial.
func NewGraphParallel(name string, n int, src, dst []int32, ids []string, workers int) (*Graph, error) {
	return NewGraphParallelContext(context.Background(), name, n, src, dst, ids, workers)
}

// NewGraphParallelContext is NewGraphParallel that stops soon after ctx is
// done: every worker looks at a flag every stopEvery edges or rows, and the
// build returns an error wrapping ctx's error between passes.
func NewGraphParallelContext(ctx context.Context, name string, n int, src, dst []int32, ids []string, workers int) (*Graph, error) {
	if err := checkBuildArgs(name, n, src, dst, ids); err != nil {
		return nil, err
	}
	stop, release := watch(ctx)
	defer release()
	what := fmt.Sprintf("build graph %q", name)
	W := buildWorkers(workers, n, len(src))
	g := &Graph{Name: name, N: n, IDs: ids}
	counts := make([]int32, W*n) // counts[c*n + s]

	// Pass 1: range check, self-loops, per-chunk source histograms.
	m := len(src)
	bad := make([]int, W)
	selfLoops := make([]int, W)
	parallelDo(W, func(c int) {
		lo, hi := c*m/W, (c+1)*m/W
		hist := counts[c*n : (c+1)*n]
		bad[c] = -1
		for i := lo; i < hi; i++ {
			if (i-lo)%stopEvery == 0 && stop.stopped() {
				return
			}
			s, d := src[i], dst[i]
			if s < 0 || int(s) >= n || d < 0 || int(d) >= n {
				bad[c] = i
				return
			}
			if s == d {
				selfLoops[c]++
				continue
			}
			hist[s]++
		}
	})
	if err := stop.err(what); err != nil {
		return nil, err
	}
	for c := range W {
		if i := bad[c]; i >= 0 {
			return nil, fmt.Errorf("graph %q: edge %d (%d -> %d) has an index outside [0, %d)", name, i, src[i], dst[i], n)
		}
		g.SelfLoops += selfLoops[c]
	}
	rowPtr := chunkOffsets(counts, n, W)
	colIdx := make([]int32, rowPtr[n])
	parallelDo(W, func(c int) {
		lo, hi := c*m/W, (c+1)*m/W
		next := counts[c*n : (c+1)*n]
		for i := lo; i < hi; i++ {
			if (i-lo)%stopEvery == 0 && stop.stopped() {
				return
			}
			s, d := src[i], dst[i]
			if s == d {
				continue
			}
			colIdx[next[s]] = d
			next[s]++
		}
	})

	if err := stop.err(what); err != nil {
		return nil, err
	}
	// Sort and deduplicate each row in place; newLen[u] is its length after.
	newLen := make([]int32, n+1) // newLen[u+1], so a prefix sum turns it into the row pointer
	blocks := rowBlocks(rowPtr, 8*W)
	dups := make([]int, len(blocks)-1)
	parallelBlocks(W, len(blocks)-1, func(b int) {
		for u := blocks[b]; u < blocks[b+1]; u++ {
			if (u-blocks[b])%stopEvery == 0 && stop.stopped() {
				return
			}
			row := colIdx[rowPtr[u]:rowPtr[u+1]]
			slices.Sort(row)
			w := 0
			for j, c := range row {
				if j > 0 && c == row[j-1] {
					continue
				}
				row[w] = c
				w++
			}
			dups[b] += len(row) - w
			newLen[u+1] = int32(w)
		}
	})
	if err := stop.err(what); err != nil {
		return nil, err
	}
	for _, d := range dups {
		g.Duplicates += d
	}
	for u := 0; u < n; u++ {
		newLen[u+1] += newLen[u]
	}
	outRowPtr := newLen
	outColIdx := colIdx
	if g.Duplicates > 0 {
		outColIdx = make([]int32, outRowPtr[n])
		parallelBlocks(W, len(blocks)-1, func(b int) {
			for u := blocks[b]; u < blocks[b+1]; u++ {
				copy(outColIdx[outRowPtr[u]:outRowPtr[u+1]], colIdx[rowPtr[u]:])
			}
		})
	}
	colIdx = nil
	g.OutRowPtr = outRowPtr
	g.OutColIdx = outColIdx[:outRowPtr[n]:outRowPtr[n]]
	g.NNZ = int(outRowPtr[n])

	g.setDegrees(W)
	clear(counts)
	g.InRowPtr, g.InColIdx = transposeParallel(n, g.OutRowPtr, g.OutColIdx, W, counts, stop)
	if err := stop.err(what); err != nil {
		return nil, err
	}
	return g, nil
}

// setDegrees sets OutDegree, InvOutDegree, Dangling and DanglingCount of
// g's N nodes from OutRowPtr (length N+1), with W goroutines over
// contiguous node ranges.
func (g *Graph) setDegrees(W int) {
	n, rp := g.N, g.OutRowPtr
	g.OutDegree = make([]int32, n)
	g.InvOutDegree = make([]float64, n)
	g.Dangling = make([]uint8, n)
	g.DanglingCount = 0
	dangling := make([]int, W)
	parallelDo(W, func(c int) {
		for u := c * n / W; u < (c+1)*n/W; u++ {
			deg := rp[u+1] - rp[u]
			g.OutDegree[u] = deg
			if deg == 0 {
				g.Dangling[u] = 1
				dangling[c]++
			} else {
				g.InvOutDegree[u] = 1 / float64(deg)
			}
		}
	})
	for _, d := range dangling {
		g.DanglingCount += d
	}
}

// TransposeParallel is Transpose with up to workers goroutines (<= 0:
// GOMAXPROCS); the result is identical to Transpose's (every new row sorted).
func TransposeParallel(n int, rowPtr, colIdx []int32, workers int) (tRowPtr, tColIdx []int32) {
	W := buildWorkers(workers, n, len(colIdx))
	return transposeParallel(n, rowPtr, colIdx, W, make([]int32, W*n), nil)
}

// transposeParallel: counts is a zeroed W x n scratch matrix. When stop
// (nil: never) is set the workers return early and the result is garbage.
func transposeParallel(n int, rowPtr, colIdx []int32, W int, counts []int32, stop *stopFlag) (tRowPtr, tColIdx []int32) {
	// W ranges of rows of about equal edge count; range c is rows [rb[c], rb[c+1]).
	rb := rowBlocks(rowPtr, W)
	W = len(rb) - 1
	parallelDo(W, func(c int) {
		hist := counts[c*n : (c+1)*n]
		for i, v := range colIdx[rowPtr[rb[c]]:rowPtr[rb[c+1]]] {
			if i%stopEvery == 0 && stop.stopped() {
				return
			}
			hist[v]++
		}
	})
	tRowPtr = chunkOffsets(counts, n, W)
	tColIdx = make([]int32, len(colIdx))
	parallelDo(W, func(c int) {
		next := counts[c*n : (c+1)*n]
		for u := rb[c]; u < rb[c+1]; u++ {
			if (u-rb[c])%stopEvery == 0 && stop.stopped() {
				return
			}
			for _, v := range colIdx[rowPtr[u]:rowPtr[u+1]] {
				tColIdx[next[v]] = int32(u)
				next[v]++
			}
		}
	})
	return tRowPtr, tColIdx
}

// chunkOffsets turns the W x n count matrix (counts[c*n+s]: entries of row s
// in chunk c) into the row pointer (length n+1, returned) and, in place,
// into each chunk's first slot in each row: rowPtr[s] + sum_{c'<c} counts[c'][s].
func chunkOffsets(counts []int32, n, W int) []int32 {
	rowPtr := make([]int32, n+1)
	parallelDo(W, func(part int) {
		for s := part * n / W; s < (part+1)*n/W; s++ {
			var t int32
			for c := 0; c < W; c++ {
				t += counts[c*n+s]
			}
			rowPtr[s+1] = t
		}
	})
	for s := 0; s < n; s++ {
		rowPtr[s+1] += rowPtr[s]
	}
	parallelDo(W, func(part int) {
		for s := part * n / W; s < (part+1)*n/W; s++ {
			off := rowPtr[s]
			for c := 0; c < W; c++ {
				k := counts[c*n+s]
				counts[c*n+s] = off
				off += k
			}
		}
	})
	return rowPtr
}

// rowBlocks cuts the rows of a CSR (rowPtr, length n+1) into at most `parts`
// consecutive ranges of about equal work (1 per row + 1 per entry); it
// returns the range starts followed by n.
func rowBlocks(rowPtr []int32, parts int) []int {
	n := len(rowPtr) - 1
	total := int64(n) + int64(rowPtr[n])
	out := []int{0}
	u := 0
	for p := 1; p < parts; p++ {
		goal := total * int64(p) / int64(parts)
		for u < n && int64(u)+int64(rowPtr[u]) < goal {
			u++
		}
		if u > out[len(out)-1] {
			out = append(out, u)
		}
	}
	if out[len(out)-1] != n {
		out = append(out, n)
	}
	return out
}

// edgesPerBuildWorker is the fewest edges worth a goroutine of their own in
// a parallel build (a variable so tests can cut small graphs into many chunks).
var edgesPerBuildWorker = 1 << 16

// buildWorkers is the goroutine count for a build of n nodes and m edges:
// the request (<= 0: GOMAXPROCS), at most one per edgesPerBuildWorker edges,
// and small enough that the W x n int32 count matrix stays within 1 GiB.
func buildWorkers(workers, n, m int) int {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, max(1, m/edgesPerBuildWorker), max(1, (1<<30)/(4*max(n, 1))))
	return max(1, workers)
}

// parallelDo runs f(0) ... f(w-1) on w goroutines and waits for them.
func parallelDo(w int, f func(c int)) {
	if w == 1 {
		f(0)
		return
	}
	var wg sync.WaitGroup
	for c := range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(c)
		}()
	}
	wg.Wait()
}

// parallelBlocks runs f(b) for b in [0, blocks) on w goroutines that take
// blocks dynamically (hub rows make some blocks much slower than others).
func parallelBlocks(w, blocks int, f func(b int)) {
	var next atomic.Int64
	parallelDo(min(w, max(blocks, 1)), func(int) {
		for {
			b := int(next.Add(1)) - 1
			if b >= blocks {
				return
			}
			f(b)
		}
	})
}

// GridEdges returns the edge list of Grid2D(side) (n = side^2 nodes, node
// r*side+c, every node citing its in-grid von Neumann neighbours,
// 4*side*(side-1) edges) in the same order Grid2D generates it, filled by
// up to `workers` goroutines (<= 0: GOMAXPROCS), one range of grid rows each.
// NewGraphParallel(name, side*side, src, dst, nil, w) equals Grid2D(side).
func GridEdges(side, workers int) (n int, src, dst []int32, err error) {
	if side < 2 || side > 46340 {
		return 0, nil, nil, fmt.Errorf("grid side %d out of range: must be in [2, 46340]", side)
	}
	n = side * side
	m := 4 * side * (side - 1)
	src, dst = make([]int32, m), make([]int32, m)
	// Edges emitted before grid row r: rows 0..r-1 each emit 2(side-1) right/left
	// edges and 2*side down/up edges.
	before := func(r int) int { return r * (2*(side-1) + 2*side) }
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	W := max(1, min(workers, side/64))
	parallelDo(W, func(part int) {
		r0, r1 := part*side/W, (part+1)*side/W
		e := before(r0)
		for r := r0; r < r1; r++ {
			for c := 0; c < side; c++ {
				u := int32(r*side + c)
				if c+1 < side {
					src[e], dst[e], src[e+1], dst[e+1] = u, u+1, u+1, u
					e += 2
				}
				if r+1 < side {
					src[e], dst[e], src[e+1], dst[e+1] = u, u+int32(side), u+int32(side), u
					e += 2
				}
			}
		}
	})
	return n, src, dst, nil
}
