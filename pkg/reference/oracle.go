package reference

import (
	"context"
	"fmt"
	"math"
	"sync/atomic"

	"github.com/prlab/prlab/pkg/pagerank"
)

// Oracle returns the T0 implementation: float64, one goroutine, pull-style
// iteration over the in-edge CSR. Every other implementation is validated
// against its Result. Name "t0-oracle".
//
// One iteration, in this order (course capstone update rule, Brin & Page 1998):
//
//	contrib[u] = x[u] * invOut[u]                      for every u (n multiplies)
//	D          = sum of x[u] over dangling nodes u      (sequential, index order)
//	x'[v]      = (1-d)/n + d*(sum_{u in in(v)} contrib[u] + D/n)   (SpMV, nnz gathers)
//	residual   = sum_v |x'[v] - x[v]|                   (L1, index order)
//	sum        = sum_v x'[v]
//
// Cost per iteration: O(n + nnz) flops; memory 8n (x) + 8n (contrib) + 8n
// (x') + 4(n+1) + 4nnz (in-edge CSR) + 8n (invOut) + n (dangling mask) bytes.
//
// Run validates p first (returning Params.Validate's error) and checks that
// g's arrays have the shapes Graph documents. In FixedIterations mode it runs
// exactly p.Iterations iterations; in Tolerance mode it stops after the first
// iteration whose L1 residual is below p.Tolerance (Converged = true) or after
// p.Iterations. Result.Residuals and Result.Sums hold one entry per iteration.
//
// Rounding floor: with plain float64 sums the residual cannot fall much
// below the rounding error of the longest row's sum. On the star case (one
// row of 10^4 in-edges) the iteration ends in a rounding cycle whose L1
// residual is about 6e-13, just under pagerank.OracleTolerance (1e-12); a
// tighter tolerance is never reached there.
func Oracle() pagerank.Implementation {
	return newSequential("t0-oracle", "CPU oracle, float64, sequential", true)
}

// NoDangling returns the course exercise's deliberately wrong variant of the
// oracle: identical to Oracle except that the dangling mass is not
// redistributed (0 is passed where D/n goes). Name "t0-nodangling".
//
// It is correct only on graphs without dangling nodes (there D = 0 and its
// ranks equal the oracle's bit for bit). Otherwise rank leaks every
// iteration: summing the broken update over v gives S' = (1-d) + d*(S - D),
// so at its fixed point the ranks sum to 1 - D*d/(1-d), with D the dangling
// mass of that fixed point (course capstone, exercise solution). Both fixed
// points solve (I - d*A)x = k*1 with the same A, so the broken vector is the
// correct one times a constant below 1 and the rank order does not change.
func NoDangling() pagerank.Implementation {
	return newSequential("t0-nodangling", "CPU, float64, no dangling redistribution (deliberately wrong, course exercise)", false)
}

// sequential is the T0 oracle (redistribute = true) and the exercise variant.
type sequential struct {
	entryPoints
	name, label  string
	redistribute bool
}

func newSequential(name, label string, redistribute bool) *sequential {
	s := &sequential{name: name, label: label, redistribute: redistribute}
	s.entryPoints = entryPoints{s.runFrom}
	return s
}

func (s *sequential) Name() string                  { return s.name }
func (s *sequential) Label() string                 { return s.label }
func (s *sequential) Precision() pagerank.Precision { return pagerank.Float64 }

// runFrom is the run behind Run, RunFrom, RunContext and RunFromContext
// (entryPoints); see Oracle.
func (s *sequential) runFrom(ctx context.Context, g *pagerank.Graph, p pagerank.Params, start []float64) (*pagerank.Result, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", s.name, err)
	}
	if err := checkGraph(g); err != nil {
		return nil, fmt.Errorf("%s: %w", s.name, err)
	}
	if start != nil {
		if err := pagerank.CheckStart(start, g.N); err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, interrupted(s.name, 0, err)
	}
	st := newOracleState(g, p.Damping, s.redistribute, start)
	defer context.AfterFunc(ctx, func() { st.stop.Store(true) })()
	res := newResult(s.name, pagerank.Float64, g, p)
	for k := 0; k < p.Iterations; k++ {
		r, sum := st.step()
		if st.stop.Load() {
			return nil, interrupted(s.name, k, context.Cause(ctx))
		}
		res.Residuals = append(res.Residuals, r)
		res.Sums = append(res.Sums, sum)
		res.Iterations++
		if p.Mode == pagerank.Tolerance && r < p.Tolerance {
			res.Converged = true
			break
		}
	}
	res.Ranks = st.x
	return res, nil
}

// interrupted is the error of a run stopped by its context after k
// complete iterations.
func interrupted(name string, k int, cause error) error {
	return fmt.Errorf("%s: interrupted after %d iterations: %w", name, k, cause)
}

// rowsPerCheck is how many rows the oracle's SpMV runs between two looks at
// its stop flag: 2^16 rows is about 1 ms on the real graph (17 ns a row)
// and a few ms on R-MAT rows of 16 in-edges; one predictable branch each.
const rowsPerCheck = 1 << 16

// oracleState is one run of the sequential iteration: x (current ranks),
// xNext and contrib, each of length n, float64.
type oracleState struct {
	g            *pagerank.Graph
	d            float64
	redistribute bool
	x, xNext     []float64
	contrib      []float64
	stop         atomic.Bool // set when the run's context is done; step returns early
}

func newOracleState(g *pagerank.Graph, d float64, redistribute bool, start []float64) *oracleState {
	n := g.N
	st := &oracleState{g: g, d: d, redistribute: redistribute,
		x: make([]float64, n), xNext: make([]float64, n), contrib: make([]float64, n)}
	if start != nil {
		copy(st.x, start)
		return st
	}
	x0 := 1 / float64(n)
	for i := range st.x {
		st.x[i] = x0
	}
	return st
}

// step runs one iteration, swaps x and xNext, and returns the L1 residual
// ||x' - x||_1 and the sum of x'. It does not allocate. When stop is set it
// returns early (x is then unchanged, xNext partly written).
func (st *oracleState) step() (residual, sum float64) {
	g := st.g
	x, xn, c := st.x, st.xNext, st.contrib
	inv, dangling := g.InvOutDegree[:len(x)], g.Dangling[:len(x)]
	n := len(x)

	// Scale by out-degree and the dangling mass D.
	var mass float64
	for u, xu := range x {
		c[u] = xu * inv[u]
		if dangling[u] != 0 {
			mass += xu
		}
	}
	if !st.redistribute {
		mass = 0 // the exercise: pass 0 where D goes
	}

	// Pull-style SpMV over the in-edge CSR, combine, residual and sum.
	d := st.d
	teleport := (1 - d) / float64(n)
	massPerNode := mass / float64(n)
	rowPtr, colIdx := g.InRowPtr[:n+1], g.InColIdx
	for v0 := 0; v0 < n; v0 += rowsPerCheck {
		if st.stop.Load() {
			return 0, 0 // cancelled: the caller checks stop and drops this iteration
		}
		v1 := min(v0+rowsPerCheck, n)
		residual, sum = spmvRows(rowPtr[v0:v1+1], colIdx, c, x[v0:v1], xn[v0:v1], teleport, d, massPerNode, residual, sum)
	}
	st.x, st.xNext = xn, x
	return residual, sum
}

// spmvRows is the SpMV, combine, residual and sum of one range of rows:
// xn's rows, whose len(xn)+1 row ends are rowPtr and whose current ranks
// are x. residual and sum are the running totals, carried on in row order
// (so the result is bitwise that of one loop over every row). The reslices
// at the top let the compiler drop the bounds checks in the loop.
func spmvRows(rowPtr, colIdx []int32, c, x, xn []float64, teleport, d, massPerNode, residual, sum float64) (float64, float64) {
	rowPtr = rowPtr[:len(xn)+1]
	x = x[:len(xn)]
	for v := range xn {
		var s float64
		for _, u := range colIdx[rowPtr[v]:rowPtr[v+1]] {
			s += c[u]
		}
		xv := teleport + d*(s+massPerNode)
		xn[v] = xv
		residual += math.Abs(xv - x[v])
		sum += xv
	}
	return residual, sum
}

// newResult fills the fields every implementation in this package shares;
// Residuals and Sums get capacity p.Iterations so that recording them inside
// the iteration loop never allocates.
func newResult(name string, prec pagerank.Precision, g *pagerank.Graph, p pagerank.Params) *pagerank.Result {
	return &pagerank.Result{
		Implementation: name,
		Case:           g.Name,
		Precision:      prec,
		N:              g.N,
		NNZ:            g.NNZ,
		Mode:           p.Mode,
		Residuals:      make([]float64, 0, p.Iterations),
		Sums:           make([]float64, 0, p.Iterations),
	}
}

// checkGraph returns an error when g is nil or its arrays do not have the
// shapes pagerank.Graph documents (n >= 1; in-edge row pointer of length n+1,
// non-decreasing from 0 to nnz; column indices in [0, n); invOut and dangling
// mask of length n).
func checkGraph(g *pagerank.Graph) error {
	if g == nil {
		return fmt.Errorf("nil graph")
	}
	n := g.N
	switch {
	case n < 1:
		return fmt.Errorf("graph %q: node count %d, want >= 1", g.Name, n)
	case len(g.InRowPtr) != n+1:
		return fmt.Errorf("graph %q: in-edge CSR row pointer has length %d, want n+1 = %d", g.Name, len(g.InRowPtr), n+1)
	case g.InRowPtr[0] != 0 || int(g.InRowPtr[n]) != len(g.InColIdx):
		return fmt.Errorf("graph %q: in-edge CSR row pointer runs %d..%d, want 0..%d (nnz)", g.Name, g.InRowPtr[0], g.InRowPtr[n], len(g.InColIdx))
	case len(g.InvOutDegree) != n:
		return fmt.Errorf("graph %q: InvOutDegree has length %d, want n = %d", g.Name, len(g.InvOutDegree), n)
	case len(g.Dangling) != n:
		return fmt.Errorf("graph %q: Dangling has length %d, want n = %d", g.Name, len(g.Dangling), n)
	}
	// O(n + nnz), once per run: a bad index would otherwise panic inside a
	// worker goroutine, which no caller can recover.
	for v := 0; v < n; v++ {
		if g.InRowPtr[v] > g.InRowPtr[v+1] {
			return fmt.Errorf("graph %q: in-edge CSR row pointer decreases at row %d", g.Name, v)
		}
	}
	for j, u := range g.InColIdx {
		if u < 0 || int(u) >= n {
			return fmt.Errorf("graph %q: in-edge CSR column index %d at position %d outside [0, %d)", g.Name, u, j, n)
		}
	}
	return nil
}
