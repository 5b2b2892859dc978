package pagerank

import "fmt"

// Mode selects how an iteration loop stops.
type Mode string

const (
	// FixedIterations runs exactly Params.Iterations iterations (the course's
	// correctness mode uses 100, its timing mode 50, with no convergence test).
	FixedIterations Mode = "fixed"
	// Tolerance stops after the first iteration whose L1 residual
	// ||x_{k+1} - x_k||_1 is below Params.Tolerance, or after Params.Iterations.
	Tolerance Mode = "tolerance"
)

// DefaultDamping is the damping factor d = 0.85 of Brin & Page, "The anatomy
// of a large-scale hypertextual Web search engine" (1998), used by the course.
const DefaultDamping = 0.85

// Course protocol constants (the GPU course capstone prlab reproduces).
const (
	CorrectnessIterations = 100   // fixed iterations for correctness on both sides
	TimingIterations      = 50    // iterations per timed run, no convergence test
	TimingWarmups         = 3     // warm-up runs before timing
	TimingRuns            = 10    // timed runs
	FloatTolerance        = 1e-6  // L1 residual tolerance for float32 convergence runs
	OracleTolerance       = 1e-12 // L1 residual tolerance for the float64 oracle's converged run
	MaxIterationsCap      = 10000 // upper bound accepted for Params.Iterations
)

// Params are the PageRank parameters shared by every implementation.
//
// Update rule (course capstone; Brin & Page):
//
//	x'[v] = (1-d)/n + d * ( sum over in-neighbours u of v of x[u]/outdeg[u] + D/n )
//
// where D is the rank on dangling nodes (out-degree 0), redistributed
// uniformly every iteration. The start vector is 1/n.
type Params struct {
	Damping    float64 // d, in (0,1)
	Mode       Mode
	Iterations int     // fixed mode: iterations to run; tolerance mode: the cap
	Tolerance  float64 // tolerance mode: stop when the L1 residual < Tolerance
}

// Fixed returns the course parameters for a fixed number of iterations.
func Fixed(iterations int) Params {
	return Params{Damping: DefaultDamping, Mode: FixedIterations, Iterations: iterations}
}

// Converge returns the course parameters for a tolerance run capped at maxIter.
func Converge(tol float64, maxIter int) Params {
	return Params{Damping: DefaultDamping, Mode: Tolerance, Iterations: maxIter, Tolerance: tol}
}

// Validate rejects parameters out of range; the error names the valid range.
func (p Params) Validate() error {
	if !(p.Damping > 0 && p.Damping < 1) {
		return fmt.Errorf("damping factor %v out of range: must be in (0, 1), e.g. 0.85", p.Damping)
	}
	if p.Iterations <= 0 || p.Iterations > MaxIterationsCap {
		return fmt.Errorf("iterations %d out of range: must be in [1, %d]", p.Iterations, MaxIterationsCap)
	}
	switch p.Mode {
	case FixedIterations:
	case Tolerance:
		if !(p.Tolerance > 0) {
			return fmt.Errorf("tolerance %v out of range: must be > 0 (e.g. 1e-6)", p.Tolerance)
		}
	default:
		return fmt.Errorf("unknown mode %q: must be %q or %q", p.Mode, FixedIterations, Tolerance)
	}
	return nil
}
