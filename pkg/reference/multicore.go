package reference

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/prlab/prlab/pkg/pagerank"
)

// Multicore returns the T1 implementation: the oracle's update rule run by
// persistent goroutines over the in-edge CSR, in float64 (prec =
// pagerank.Float64, name "t1-multicore-f64") or float32 (pagerank.Float32,
// name "t1-multicore-f32"). Any other prec gives an implementation whose Run
// returns an error. workers <= 0 means runtime.GOMAXPROCS(0) at Run time;
// more workers than row blocks are capped at the block count.
//
// Determinism: the n rows are cut into fixed row blocks of about blockWork
// units of work (rowCost per row + 1 per in-edge), computed from the graph
// alone.
// Every block writes its partial sums (residual, rank sum, dangling mass)
// into its own slot, and every reduction adds the slots in block order. The
// worker count only decides which goroutine computes which block, so the
// ranks, residuals and sums are bitwise identical for any worker count or
// GOMAXPROCS.
//
// One iteration k is one fused pass per block plus one barrier:
//
//	D_k      = sum over blocks of danglingPartial_k[b]        (block order)
//	x'[v]    = (1-d)/n + d*(sum_{u in in(v)} contrib_k[u] + D_k/n)   (SpMV + combine)
//	contrib_{k+1}[v] = x'[v]*invOut[v];  danglingPartial_{k+1}[b] += x'[v] if v is dangling
//	residualPartial[b] += |x'[v] - x[v]|;  sumPartial[b] += x'[v]
//	barrier; residual_k = sum of residualPartial in block order
//
// Scaling by out-degree (the course's first kernel) and the dangling-mass
// reduction are fused into the previous iteration's pass (the initial
// contrib_0 and D_0 come from the setup pass before the loop), so an
// iteration needs one barrier. x, contrib and the partials are double
// buffered by iteration parity, which is what makes one barrier enough.
// Every sum, including the partial sums and their reductions, accumulates in
// the implementation's precision; Result.Residuals and Result.Sums are
// widened to float64, and the tolerance test compares the widened residual.
//
// Row sums: a row with fewer than wideRow (16) in-edges is summed in CSR
// order with one accumulator; a longer row with eight interleaved
// accumulators combined pairwise (gatherSum8), which keeps a hub row's
// float32 rounding error about eight times smaller and lets eight gathers
// be in flight. Both are properties of the row, not of the worker count.
//
// Row order: inside each block the engine visits rows sorted by in-degree
// (rows with at least maxOrderedDegree in-edges last, in their original
// order). It works on a relabelled copy of the in-edge CSR in which every
// block's rows are renumbered in that order, so all its streams stay
// sequential. Visiting short rows of equal length one after another makes
// the SpMV inner loop's exit branch predictable; in natural order it
// mispredicts about once per row, which more than doubles the time of an
// iteration on the real citation graph (BenchmarkRowOrder, BENCHMARKS.md).
// Each row still sums its in-edges in CSR order, so only the order of the
// per-block partial sums changes, and that order is again fixed by the
// graph alone.
//
// Workers live for the whole Run (worker 0 is the calling goroutine); they
// build the relabelled CSR for their own blocks (two setup passes, two
// barriers), then iterate; the iteration loop does not allocate. Memory per
// run, with s = 4 bytes (float32) or 8 (float64): ranks as pairs and two
// contrib vectors (4sn), row records with invOut and the dangling mask
// (about (4+2s)n), the relabelled column indices and the labels (4nnz + 8n),
// plus the returned float64 ranks (8n). Params are validated first; see
// Oracle for the modes.
func Multicore(prec pagerank.Precision, workers int) pagerank.Implementation {
	m := &multicore{prec: prec, workers: workers}
	m.entryPoints = entryPoints{m.runFrom}
	return m
}

type multicore struct {
	entryPoints
	prec    pagerank.Precision
	workers int
}

func (m *multicore) Name() string {
	switch m.prec {
	case pagerank.Float64:
		return "t1-multicore-f64"
	case pagerank.Float32:
		return "t1-multicore-f32"
	}
	return "t1-multicore-" + string(m.prec)
}

func (m *multicore) Label() string { return "multi-core CPU, " + string(m.prec) + ", goroutines" }

func (m *multicore) Precision() pagerank.Precision { return m.prec }

// runFrom is the run behind Run, RunFrom, RunContext and RunFromContext
// (entryPoints); see Multicore. A cancel aborts the engine's barrier
// (runContext), so the iteration itself gains no check.
func (m *multicore) runFrom(ctx context.Context, g *pagerank.Graph, p pagerank.Params, start []float64) (*pagerank.Result, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", m.Name(), err)
	}
	if err := checkGraph(g); err != nil {
		return nil, fmt.Errorf("%s: %w", m.Name(), err)
	}
	if start != nil {
		if err := pagerank.CheckStart(start, g.N); err != nil {
			return nil, fmt.Errorf("%s: %w", m.Name(), err)
		}
	}
	workers := m.workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if err := ctx.Err(); err != nil {
		return nil, interrupted(m.Name(), 0, err)
	}
	res := newResult(m.Name(), m.prec, g, p)
	var ok bool
	switch m.prec {
	case pagerank.Float64:
		ok = runEngine(ctx, newEngine[float64](g, p.Damping, workers), p, start, res)
	case pagerank.Float32:
		ok = runEngine(ctx, newEngine[float32](g, p.Damping, workers), p, start, res)
	default:
		return nil, fmt.Errorf("%s: precision %q not supported: must be %q or %q", m.Name(), m.prec, pagerank.Float64, pagerank.Float32)
	}
	if !ok {
		return nil, interrupted(m.Name(), res.Iterations, context.Cause(ctx))
	}
	return res, nil
}

// runEngine runs e from start (nil: 1/n) with p into res and sets
// res.Ranks; false when ctx stopped the run.
func runEngine[T float](ctx context.Context, e *engine[T], p pagerank.Params, start []float64, res *pagerank.Result) bool {
	e.start = start
	if !e.runContext(ctx, p, res) {
		return false
	}
	res.Ranks = e.ranks()
	return true
}

// runContext is run with ctx wired to the barrier's abort; false when ctx
// stopped the run (res then holds the iterations completed before it).
func (e *engine[T]) runContext(ctx context.Context, p pagerank.Params, res *pagerank.Result) bool {
	defer context.AfterFunc(ctx, e.bar.abort)()
	e.run(p, res)
	return !e.bar.broken.Load()
}

// Work model for partitioning: a row costs rowCost units, an in-edge 1.
// Timing every block of the real citation graph single-threaded gave about
// 4 ns per row (loop, combine, residual, sum, contrib and dangling partials)
// and 0.5 ns per in-edge (the gather and add), i.e. a row weighs about 8
// in-edges; with 1 per row the second half of the graph (more rows, fewer
// edges) took 30% longer than the first, and 2 workers waited on it.
const rowCost = 8

// blockWork is the target work of one row block in the units above. It
// fixes the partition (and so the summation order) for a graph,
// independent of the worker count.
const blockWork = 8192

// rowsWork is the work of rows [lo, hi) of an in-edge CSR.
func rowsWork(rowPtr []int32, lo, hi int) int {
	return rowCost*(hi-lo) + int(rowPtr[hi]-rowPtr[lo])
}

// partitionRows cuts the n rows of an in-edge CSR (rowPtr of length n+1)
// into consecutive blocks of about target work (rowCost per row + 1 per
// in-edge). A row is never split, so a row heavier than target is a block
// of its own. It returns the block starts followed by n (length blocks+1).
func partitionRows(rowPtr []int32, target int) []int32 {
	n := len(rowPtr) - 1
	bounds := []int32{0}
	work := 0
	for v := 0; v < n; v++ {
		work += rowsWork(rowPtr, v, v+1)
		if work >= target && v+1 < n {
			bounds = append(bounds, int32(v+1))
			work = 0
		}
	}
	return append(bounds, int32(n))
}

// float is the set of precisions the T1 engine is instantiated for.
type float interface{ ~float32 | ~float64 }

// partial holds one block's partial sums for one iteration, padded so that
// two blocks' sums never share a 64-byte cache line.
type partial[T float] struct {
	residual, sum, dangling T
	_                       [64]byte
}

// row is one row of the engine's relabelled in-edge CSR with the per-node
// values the combine needs, packed so that the row loop keeps one pointer
// (not three) live: the row pointer as row ends (row i spans
// colIdx[rows[i-1].end : rows[i].end], the start of row 0 being 0),
// 1/outdeg (0 for a dangling node) and the dangling mask (1 or 0).
type row[T float] struct {
	end    int32
	invOut T
	dmask  T
}

// maxOrderedDegree caps the in-degree key of the per-block row order: rows
// with at least this many in-edges are visited last, in their original
// order (their loop exit mispredicts once per many gathers anyway). It must
// be at least wideRow, so that the wide rows form a suffix of each block.
const maxOrderedDegree = 64

// engine is one T1 run on one graph. Node ids inside the engine are the
// relabelled ones (see Multicore): label[v] is node v's engine id and
// node[i] the original node of engine id i; a block covers the same engine
// ids [blocks[b], blocks[b+1]) as original ids, and the same edge range.
type engine[T float] struct {
	g        *pagerank.Graph
	n        int
	d        T // damping factor
	teleport T // (1-d)/n
	nT       T // n as T

	start       []float64 // x_0 by original id (nil: 1/n), the warm start
	label, node []int32   // original id -> engine id, engine id -> original id, length n
	// seq is the node order the blocks cut (seq[i] = original id at
	// position i; nil: the original order) and seqPtr the in-edge row
	// pointer in that order (length n+1; g.InRowPtr when seq is nil). Block
	// b covers positions, and engine ids, [blocks[b], blocks[b+1]).
	seq, seqPtr []int32
	rows        []row[T] // relabelled in-edge CSR row ends with invOut and the dangling mask, length n
	colIdx      []int32  // relabelled in-edge CSR column index (engine ids), length nnz

	x         [][2]T          // x[i][k&1] is iteration k's input rank of engine id i
	contrib   [2][]T          // contrib[k&1] is iteration k's input x*invOut, by engine id
	part      [2][]partial[T] // [k&1] holds D_k's partials and residual_{k-1}'s
	blocks    []int32         // row block b is rows [blocks[b], blocks[b+1])
	wideStart []int32         // block b's rows from wideStart[b] on have >= wideRow in-edges
	owned     []int           // worker w owns blocks [owned[w], owned[w+1])
	// next[k&1][w] is the next unclaimed block of worker w's range in
	// iteration k (see claimBlocks); nil: no stealing, each worker computes
	// exactly its own range.
	next       [2][]paddedCounter
	bar        *spinBarrier
	pull       bool // run pullShared (engineOptions.pull)
	iterations int  // iterations run by the last run (written by worker 0)

	// stamps, when non-nil (benchmarks), receives worker 0's monotonic
	// clock reading after the setup and after every iteration's barrier;
	// its capacity must cover the iterations, so the loop does not allocate.
	stamps []time.Time
	// waited[w], filled when stamps is non-nil, is the time worker w spent
	// in the per-iteration barrier (waiting for the slowest worker plus the
	// crossing itself).
	waited []paddedDuration

	sink []paddedSum[T] // per worker, keeps pullShared's loads alive
}

// paddedSum is a T on its own cache line.
type paddedSum[T float] struct {
	v T
	_ [64]byte
}

// paddedCounter is an atomic block counter on its own cache line.
type paddedCounter struct {
	n atomic.Int32
	_ [60]byte
}

// paddedDuration is a time.Duration on its own cache line.
type paddedDuration struct {
	d time.Duration
	_ [56]byte
}

// engineOptions are the engine's two scheduling and layout choices, both
// on in Multicore; the benchmarks turn them off one at a time to measure
// what each is worth (BenchmarkEngineOptions).
type engineOptions struct {
	// outDegreeOrder numbers the nodes by out-degree descending before the
	// blocks are cut (pagerank.DegreeOrder, the GPU rows' relabel), so the
	// contributions of the nodes gathered most sit in a short prefix of
	// contrib; else blocks follow the original ids.
	outDegreeOrder bool
	// steal lets a worker that finished its own range claim the remaining
	// blocks of the others' (claimBlocks); else the schedule is static.
	steal bool
	// pull is when the workers run pullShared.
	pull pullMode
}

// pullMode is when an engine runs pullShared before each SpMV.
type pullMode uint8

const (
	pullOn    pullMode = iota // with 2 or more workers (T1's default)
	pullNever                 // a benchmark variant
)

var defaultEngineOptions = engineOptions{outDegreeOrder: true, steal: true}

func newEngine[T float](g *pagerank.Graph, d float64, workers int) *engine[T] {
	return newEngineWith[T](g, d, workers, defaultEngineOptions)
}

func newEngineWith[T float](g *pagerank.Graph, d float64, workers int, opt engineOptions) *engine[T] {
	n := g.N
	e := &engine[T]{
		g: g, n: n, d: T(d), teleport: T((1 - d) / float64(n)), nT: T(n),
		label: make([]int32, n), node: make([]int32, n),
		rows: make([]row[T], n), colIdx: make([]int32, len(g.InColIdx)),
		x: make([][2]T, n),
	}
	for i := range 2 {
		e.contrib[i] = make([]T, n)
	}
	e.seqPtr = g.InRowPtr
	if opt.outDegreeOrder {
		e.seq, e.seqPtr = outDegreeSequence(g)
	}
	e.blocks = partitionRows(e.seqPtr, blockWork)
	nb := len(e.blocks) - 1
	e.wideStart = make([]int32, nb)
	e.part[0] = make([]partial[T], nb)
	e.part[1] = make([]partial[T], nb)
	workers = max(1, min(workers, nb))
	e.owned = assignBlocks(e.blocks, e.seqPtr, workers)
	e.pull = workers > 1 && opt.pull == pullOn
	if opt.steal && workers > 1 {
		e.next = [2][]paddedCounter{make([]paddedCounter, workers), make([]paddedCounter, workers)}
	}
	e.bar = newSpinBarrier(workers)
	e.sink = make([]paddedSum[T], workers)
	return e
}

// outDegreeSequence returns g's nodes sorted by out-degree descending
// (pagerank.DegreeOrder's OrderOutDegree: ties by in-degree descending, then
// by id), seq[i] = the node at position i, and the in-edge row pointer of
// the rows in that order (length n+1). O(n + max degree), sequential.
func outDegreeSequence(g *pagerank.Graph) (seq, seqPtr []int32) {
	perm, err := pagerank.DegreeOrder(g, pagerank.OrderOutDegree)
	if err != nil {
		panic(err) // checkGraph admitted g: its in-edge CSR and out-degrees exist
	}
	seq = make([]int32, g.N)
	for v, i := range perm {
		seq[i] = int32(v)
	}
	seqPtr = make([]int32, g.N+1)
	for i, v := range seq {
		seqPtr[i+1] = seqPtr[i] + g.InRowPtr[v+1] - g.InRowPtr[v]
	}
	return seq, seqPtr
}

// assignBlocks gives each of workers goroutines a consecutive range of
// blocks of about equal work (rowsWork); it returns the range starts
// followed by the block count. Only the speed depends on it, not the ranks.
func assignBlocks(blocks, rowPtr []int32, workers int) []int {
	nb := len(blocks) - 1
	n := len(rowPtr) - 1
	total := rowsWork(rowPtr, 0, n)
	owned := make([]int, workers+1)
	b := 0
	for w := 1; w < workers; w++ {
		goal := total * w / workers
		// Move the boundary to the block end nearest the goal.
		for b < nb {
			start, end := rowsWork(rowPtr, 0, int(blocks[b])), rowsWork(rowPtr, 0, int(blocks[b+1]))
			if end-goal > goal-start {
				break
			}
			b++
		}
		owned[w] = max(b, owned[w-1])
	}
	owned[workers] = nb
	return owned
}

// run iterates according to p (already validated), appending one residual
// and one sum per iteration to res and setting res.Iterations and
// res.Converged. Workers 1..W-1 are goroutines started here; worker 0 is the
// caller. All workers reduce the residual partials in the same order, so
// they reach the same stop decision without further synchronisation.
//
// A panic in any worker is contained: that worker records it and aborts the
// barrier, the others stop at their next barrier, and once every goroutine
// has returned the panic is raised again on the caller's goroutine (where the
// study runner recovers it and marks the row failed) instead of killing the
// process or leaving workers blocked.
func (e *engine[T]) run(p pagerank.Params, res *pagerank.Result) {
	workers := len(e.owned) - 1
	var wg sync.WaitGroup
	var failed atomic.Pointer[workerPanic]
	guard := func(w int) {
		if r := recover(); r != nil {
			failed.CompareAndSwap(nil, &workerPanic{w, r})
			e.bar.abort()
		}
	}
	for w := 1; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer guard(w)
			e.work(w, p, nil)
		}()
	}
	func() {
		defer guard(0)
		e.iterations = e.work(0, p, res)
	}()
	wg.Wait()
	if f := failed.Load(); f != nil {
		panic(fmt.Sprintf("t1 worker %d of %d: %v", f.worker, workers, f.value))
	}
}

// workerPanic is the first panic a T1 worker raised.
type workerPanic struct {
	worker int
	value  any
}

// testHookIteration, when set by a test, runs at the start of every worker's
// iteration k (used to inject a panic into one worker).
var testHookIteration func(w, k int)

// work is worker w's whole run; it returns the number of iterations run.
// Only worker 0 gets a res (nil is allowed: the benchmarks record nothing).
func (e *engine[T]) work(w int, p pagerank.Params, res *pagerank.Result) int {
	lo, hi := e.owned[w], e.owned[w+1]
	if e.next[0] != nil {
		e.next[0][w].n.Store(int32(lo))
		e.next[1][w].n.Store(int32(lo))
	}
	for b := lo; b < hi; b++ {
		e.orderBlock(b)
	}
	e.bar.wait() // every label is known
	if e.bar.broken.Load() {
		return 0
	}
	for b := lo; b < hi; b++ {
		e.initBlock(b)
	}
	e.bar.wait() // the relabelled CSR, contrib_0 and D_0's partials are complete
	if e.bar.broken.Load() {
		return 0
	}
	measure := e.stamps != nil
	if measure && w == 0 {
		e.stamps = append(e.stamps, time.Now())
	}
	tolerance := p.Mode == pagerank.Tolerance
	for k := 0; k < p.Iterations; k++ {
		if testHookIteration != nil {
			testHookIteration(w, k)
		}
		cur := k & 1
		var mass T
		for i := range e.part[cur] {
			mass += e.part[cur][i].dangling
		}
		massPerNode := mass / e.nT
		if e.pull {
			e.pullShared(w, cur)
		}
		if e.next[0] != nil {
			e.claimBlocks(w, cur, massPerNode)
		} else {
			for b := lo; b < hi && !e.bar.broken.Load(); b++ {
				e.iterateBlock(b, cur, massPerNode)
			}
		}
		if measure {
			t0 := time.Now()
			e.bar.wait()
			t1 := time.Now()
			e.waited[w].d += t1.Sub(t0)
			if w == 0 {
				e.stamps = append(e.stamps, t1)
			}
		} else {
			e.bar.wait()
		}
		if e.bar.broken.Load() {
			return k
		}
		var residual, sum T
		for i := range e.part[cur^1] {
			residual += e.part[cur^1][i].residual
			sum += e.part[cur^1][i].sum
		}
		if res != nil {
			res.Residuals = append(res.Residuals, float64(residual))
			res.Sums = append(res.Sums, float64(sum))
			res.Iterations = k + 1
		}
		if tolerance && float64(residual) < p.Tolerance {
			if res != nil {
				res.Converged = true
			}
			return k + 1
		}
	}
	return p.Iterations
}

// claimBlocks is worker w's share of iteration k (cur = k&1) under work
// stealing: it claims blocks of its own range one at a time (an atomic
// increment of next[cur][w]), then, when its range is done, the remaining
// blocks of the other workers' ranges in turn (w+1, w+2, ...), as OpenMP's
// dynamic schedule does for GAP's pr_spmv. A worker slowed by cache misses
// or by losing its core to another process then no longer holds everyone
// at the barrier. Which worker computes a block changes nothing in it, so
// results stay bitwise identical. It also re-arms next[cur^1][w] for
// iteration k+1: that buffer was last claimed from in iteration k-1, which
// every worker has left (the barrier), and k+1 starts after the next one.
func (e *engine[T]) claimBlocks(w, cur int, massPerNode T) {
	workers := len(e.owned) - 1
	e.next[cur^1][w].n.Store(int32(e.owned[w]))
	for i := range workers {
		v := (w + i) % workers
		ctr, end := &e.next[cur][v].n, int32(e.owned[v+1])
		for !e.bar.broken.Load() {
			b := ctr.Add(1) - 1
			if b >= end {
				break
			}
			e.iterateBlock(int(b), cur, massPerNode)
		}
	}
}

// orderBlock numbers block b's rows by a stable counting sort on
// min(in-degree, maxOrderedDegree): node[i] and label[v] for the block, and
// wideStart[b], the first engine id of the block with >= wideRow in-edges.
func (e *engine[T]) orderBlock(b int) {
	lo, hi := e.blocks[b], e.blocks[b+1]
	rowPtr := e.seqPtr
	var count [maxOrderedDegree + 2]int32
	key := func(p int32) int32 { return min(rowPtr[p+1]-rowPtr[p], maxOrderedDegree) }
	for p := lo; p < hi; p++ {
		count[key(p)+1]++
	}
	for k := 1; k < len(count); k++ {
		count[k] += count[k-1]
	}
	e.wideStart[b] = lo + count[wideRow] // rows with key < wideRow come first
	for p := lo; p < hi; p++ {
		k := key(p)
		i := lo + count[k]
		count[k]++
		v := p
		if e.seq != nil {
			v = e.seq[p]
		}
		e.node[i] = v
		e.label[v] = i
	}
}

// initBlock fills block b's part of the relabelled CSR (same edge range as
// the original block; each row keeps its CSR order, column indices mapped
// to engine ids), invOut and the dangling mask by engine id, x_0 = 1/n,
// contrib_0 and the dangling partial D_0.
func (e *engine[T]) initBlock(b int) {
	g := e.g
	lo, hi := e.blocks[b], e.blocks[b+1]
	x0 := 1 / e.nT
	c := e.contrib[0]
	pos := e.seqPtr[lo]
	var mass T
	for i := lo; i < hi; i++ {
		v := e.node[i]
		for _, u := range g.InColIdx[g.InRowPtr[v]:g.InRowPtr[v+1]] {
			e.colIdx[pos] = e.label[u]
			pos++
		}
		r := row[T]{end: pos, invOut: T(g.InvOutDegree[v])}
		if g.Dangling[v] != 0 {
			r.dmask = 1
		}
		e.rows[i] = r
		xv := x0
		if e.start != nil {
			xv = T(e.start[v])
		}
		e.x[i][0] = xv
		c[i] = xv * r.invOut
		mass += xv * r.dmask
	}
	e.part[0][b] = partial[T]{dangling: mass}
}

// pullShared reads one element per 64-byte cache line of contrib_k outside
// worker w's own rows, right after the barrier and before the SpMV. Those
// lines were written by the other workers during the previous iteration
// and sit modified in their caches; the SpMV would fetch each of them on
// its first random gather, one cross-core transfer latency at a time. A
// sequential pass lets the hardware prefetcher stream them in. Measured
// with 2 workers: 5-10% less time per iteration on the real graph, 2-4% on
// rmat18 (BENCHMARKS.md). It changes no value. Whether it still pays when
// contrib is far larger than the private caches (R-MAT 2^22, 2^24 on 16
// cores) is what BenchmarkEngineOptionsInterleaved's outdeg-steal-nopull
// measures.
func (e *engine[T]) pullShared(w, cur int) {
	c := e.contrib[cur]
	own0, own1 := int(e.blocks[e.owned[w]]), int(e.blocks[e.owned[w+1]])
	step := 64 / int(unsafe.Sizeof(c[0]))
	var acc T
	for i := 0; i < own0; i += step {
		acc += c[i]
	}
	for i := own1; i < len(c); i += step {
		acc += c[i]
	}
	e.sink[w].v += acc
}

// iterateBlock is one iteration on block b: the SpMV row sums over the
// relabelled in-edge CSR gathering contrib_k, the combine into x_{k+1}, and
// the partials of the residual, the rank sum and D_{k+1}, plus
// contrib_{k+1}. All streams are sequential; only the gather c[u] is not.
//
// The block's rows come sorted by in-degree, so its short rows (fewer than
// wideRow in-edges) are a prefix, summed inline with one accumulator, and
// its wide rows a suffix, summed by gatherSum8. Two loops rather than one
// branch: a call inside the row loop makes the compiler spill and reload
// every loop-carried value on every row.
func (e *engine[T]) iterateBlock(b, cur int, massPerNode T) {
	lo, hi, wide := int(e.blocks[b]), int(e.blocks[b+1]), int(e.wideStart[b])
	nxt := cur ^ 1
	// Re-slice to the block's rows so the compiler can prove the per-row
	// indices in bounds; only the gather c[u] keeps its check.
	rows := e.rows[lo:hi]
	x := e.x[lo:hi][:len(rows)]
	cn := e.contrib[nxt][lo:hi][:len(rows)]
	c, colIdx := e.contrib[cur], e.colIdx
	d, teleport := e.d, e.teleport
	start := int32(0)
	if lo > 0 {
		start = e.rows[lo-1].end
	}
	var residual, sum, mass T
	for i := range rows[:wide-lo] {
		r := &rows[i]
		var s T
		for _, u := range colIdx[start:r.end] {
			s += c[u]
		}
		start = r.end
		xv := teleport + d*(s+massPerNode)
		xo := x[i][cur]
		x[i][nxt] = xv
		residual += max(xv-xo, xo-xv) // |x' - x| without a branch (its sign is unpredictable)
		sum += xv
		cn[i] = xv * r.invOut
		mass += xv * r.dmask
	}
	for i := wide - lo; i < len(rows); i++ {
		r := &rows[i]
		s := gatherSum8(c, colIdx[start:r.end])
		start = r.end
		xv := teleport + d*(s+massPerNode)
		xo := x[i][cur]
		x[i][nxt] = xv
		residual += max(xv-xo, xo-xv)
		sum += xv
		cn[i] = xv * r.invOut
		mass += xv * r.dmask
	}
	e.part[nxt][b] = partial[T]{residual: residual, sum: sum, dangling: mass}
}

// wideRow is the row length (in-degree) from which a row's SpMV sum uses
// eight accumulators instead of one. It is a property of the row, not of
// the worker count, so results stay bitwise reproducible.
const wideRow = 16

// gatherSum8 returns sum_j c[row[j]] accumulated in eight interleaved
// partial sums (element j goes to sum j mod 8, the tail to sum 0), combined
// pairwise. Against one running sum it has eight independent dependency
// chains, so eight gathers can be in flight, and in float32 it keeps a hub
// row's rounding error about eight times smaller (each partial sum stays
// an eighth as large). On the course's star case (one row of 10000) that
// is the difference between the thread-per-row and warp-per-row error
// columns of the course's correctness table.
func gatherSum8[T float](c []T, row []int32) T {
	var a0, a1, a2, a3, a4, a5, a6, a7 T
	j := 0
	for ; j+8 <= len(row); j += 8 {
		r := row[j : j+8 : j+8]
		a0 += c[r[0]]
		a1 += c[r[1]]
		a2 += c[r[2]]
		a3 += c[r[3]]
		a4 += c[r[4]]
		a5 += c[r[5]]
		a6 += c[r[6]]
		a7 += c[r[7]]
	}
	for ; j < len(row); j++ {
		a0 += c[row[j]]
	}
	return ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7))
}

// ranks returns the rank vector after the last iteration run, in original
// node order, widened to float64: iteration k writes buffer (k+1)&1, so
// after m iterations x_m is in buffer m&1.
func (e *engine[T]) ranks() []float64 {
	k := e.iterations & 1
	out := make([]float64, e.n)
	for v, i := range e.label {
		out[v] = float64(e.x[i][k])
	}
	return out
}
