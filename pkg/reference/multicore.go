package reference

import (
	"fmt"
	"runtime"
	"sync"

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
// units of work (1 per row + 1 per in-edge), computed from the graph alone.
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
// contrib_0 and D_0 come from one extra pass before the loop), so an
// iteration needs one barrier. x, contrib and the partials are double
// buffered by iteration parity, which is what makes one barrier enough.
// Every sum, including the partial sums and their reductions, accumulates in
// the implementation's precision; Result.Residuals and Result.Sums are
// widened to float64, and the tolerance test compares the widened residual.
//
// Workers live for the whole Run (worker 0 is the calling goroutine) and
// the iteration loop does not allocate; memory per run is 2 rank and 2
// contrib vectors of n elements plus invOut and a dangling mask in the
// working precision. Params are validated first; see Oracle for the modes.
func Multicore(prec pagerank.Precision, workers int) pagerank.Implementation {
	return &multicore{prec: prec, workers: workers}
}

type multicore struct {
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

// Run computes PageRank of g with p; see Multicore.
func (m *multicore) Run(g *pagerank.Graph, p pagerank.Params) (*pagerank.Result, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", m.Name(), err)
	}
	if err := checkGraph(g); err != nil {
		return nil, fmt.Errorf("%s: %w", m.Name(), err)
	}
	workers := m.workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	res := newResult(m.Name(), m.prec, g, p)
	switch m.prec {
	case pagerank.Float64:
		e := newEngine[float64](g, p.Damping, workers)
		e.run(p, res)
		res.Ranks = e.ranks()
	case pagerank.Float32:
		e := newEngine[float32](g, p.Damping, workers)
		e.run(p, res)
		res.Ranks = widen(e.ranks())
	default:
		return nil, fmt.Errorf("%s: precision %q not supported: must be %q or %q", m.Name(), m.prec, pagerank.Float64, pagerank.Float32)
	}
	return res, nil
}

// blockWork is the target work of one row block, in units of 1 per row plus
// 1 per in-edge. It fixes the partition (and so the summation order) for a
// graph, independent of the worker count.
const blockWork = 4096

// partitionRows cuts the n rows of an in-edge CSR (rowPtr of length n+1)
// into consecutive blocks of about target work (1 per row + 1 per in-edge).
// A row is never split, so a row heavier than target is a block of its own.
// It returns the block starts followed by n (length blocks+1).
func partitionRows(rowPtr []int32, target int) []int32 {
	n := len(rowPtr) - 1
	bounds := []int32{0}
	work := 0
	for v := 0; v < n; v++ {
		work += 1 + int(rowPtr[v+1]-rowPtr[v])
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

// engine is one T1 run on one graph: the graph's in-edge CSR, invOut and the
// dangling mask converted to T, double-buffered rank and contrib vectors
// (length n each), the fixed row blocks and the per-block partial sums.
type engine[T float] struct {
	n        int
	rowPtr   []int32 // in-edge CSR row pointer, length n+1
	colIdx   []int32 // in-edge CSR column index, length nnz
	invOut   []T     // 1/outdeg, 0 for dangling nodes
	dmask    []T     // 1 for a dangling node, else 0
	d        T       // damping factor
	teleport T       // (1-d)/n
	nT       T       // n as T

	x, contrib [2][]T          // [k&1] holds iteration k's input
	part       [2][]partial[T] // [k&1] holds D_k's partials and residual_{k-1}'s
	blocks     []int32         // row block b is rows [blocks[b], blocks[b+1])
	owned      []int           // worker w computes blocks [owned[w], owned[w+1])
	bar        *spinBarrier
	iterations int // iterations run by the last run (written by worker 0)
}

func newEngine[T float](g *pagerank.Graph, d float64, workers int) *engine[T] {
	n := g.N
	e := &engine[T]{
		n: n, rowPtr: g.InRowPtr, colIdx: g.InColIdx,
		invOut: make([]T, n), dmask: make([]T, n),
		d: T(d), teleport: T((1 - d) / float64(n)), nT: T(n),
	}
	for u := 0; u < n; u++ {
		e.invOut[u] = T(g.InvOutDegree[u])
		if g.Dangling[u] != 0 {
			e.dmask[u] = 1
		}
	}
	for i := range 2 {
		e.x[i] = make([]T, n)
		e.contrib[i] = make([]T, n)
	}
	e.blocks = partitionRows(g.InRowPtr, blockWork)
	nb := len(e.blocks) - 1
	e.part[0] = make([]partial[T], nb)
	e.part[1] = make([]partial[T], nb)
	workers = max(1, min(workers, nb))
	e.owned = assignBlocks(e.blocks, g.InRowPtr, workers)
	e.bar = newSpinBarrier(workers)
	return e
}

// assignBlocks gives each of workers goroutines a consecutive range of
// blocks of about equal work (rows + in-edges); it returns the range starts
// followed by the block count. Only the speed depends on it, not the ranks.
func assignBlocks(blocks, rowPtr []int32, workers int) []int {
	nb := len(blocks) - 1
	n := len(rowPtr) - 1
	total := n + int(rowPtr[n])
	owned := make([]int, workers+1)
	b := 0
	for w := 1; w < workers; w++ {
		goal := total * w / workers
		for b < nb {
			end := int(blocks[b+1]) + int(rowPtr[blocks[b+1]])
			if end > goal {
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
func (e *engine[T]) run(p pagerank.Params, res *pagerank.Result) {
	workers := len(e.owned) - 1
	var wg sync.WaitGroup
	for w := 1; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.work(w, p, nil)
		}()
	}
	e.iterations = e.work(0, p, res)
	wg.Wait()
}

// work is worker w's whole run; it returns the number of iterations run.
// Only worker 0 gets a res (nil is allowed: the benchmarks record nothing).
func (e *engine[T]) work(w int, p pagerank.Params, res *pagerank.Result) int {
	lo, hi := e.owned[w], e.owned[w+1]
	x0 := 1 / e.nT
	for b := lo; b < hi; b++ {
		e.initBlock(b, x0)
	}
	e.bar.wait()
	tolerance := p.Mode == pagerank.Tolerance
	for k := 0; k < p.Iterations; k++ {
		cur := k & 1
		var mass T
		for i := range e.part[cur] {
			mass += e.part[cur][i].dangling
		}
		massPerNode := mass / e.nT
		for b := lo; b < hi; b++ {
			e.iterateBlock(b, cur, massPerNode)
		}
		e.bar.wait()
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

// initBlock sets block b's x_0 = 1/n, contrib_0 and dangling partial D_0.
func (e *engine[T]) initBlock(b int, x0 T) {
	x, c := e.x[0], e.contrib[0]
	var mass T
	for v := e.blocks[b]; v < e.blocks[b+1]; v++ {
		x[v] = x0
		c[v] = x0 * e.invOut[v]
		mass += x0 * e.dmask[v]
	}
	e.part[0][b] = partial[T]{dangling: mass}
}

// iterateBlock is one iteration on block b: the SpMV row sums over the
// in-edge CSR gathering contrib_k, the combine into x_{k+1}, and the
// partials of the residual, the rank sum and D_{k+1}, plus contrib_{k+1}.
func (e *engine[T]) iterateBlock(b, cur int, massPerNode T) {
	lo, hi := int(e.blocks[b]), int(e.blocks[b+1])
	m := hi - lo
	nxt := cur ^ 1
	// Re-slice everything to the block's m rows so the compiler can prove
	// the per-row indices in bounds; only the gather c[u] keeps its check.
	xn := e.x[nxt][lo:hi]
	x := e.x[cur][lo:hi][:m]
	cn := e.contrib[nxt][lo:hi][:m]
	inv := e.invOut[lo:hi][:m]
	dm := e.dmask[lo:hi][:m]
	ends := e.rowPtr[lo+1 : hi+1][:m] // ends[i] is row lo+i's end; its start is the previous end
	c, colIdx := e.contrib[cur], e.colIdx
	d, teleport := e.d, e.teleport
	start := e.rowPtr[lo]
	var residual, sum, mass T
	for i := range xn {
		end := ends[i]
		row := colIdx[start:end]
		start = end
		var s T
		if len(row) >= wideRow {
			s = gatherSum8(c, row)
		} else {
			for _, u := range row {
				s += c[u]
			}
		}
		xv := teleport + d*(s+massPerNode)
		xn[i] = xv
		diff := xv - x[i]
		if diff < 0 {
			diff = -diff
		}
		residual += diff
		sum += xv
		cn[i] = xv * inv[i]
		mass += xv * dm[i]
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

// ranks returns the rank vector after the last iteration run: iteration
// k writes buffer (k+1)&1, so after m iterations x_m is in buffer m&1.
func (e *engine[T]) ranks() []T { return e.x[e.iterations&1] }

func widen(x []float32) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	return out
}
