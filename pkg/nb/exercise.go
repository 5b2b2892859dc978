package nb

import (
	"fmt"
	"math"
	"slices"

	"github.com/prlab/prlab/pkg/pagerank"
	"github.com/prlab/prlab/pkg/reference"
)

// Exercise is the course's dangling exercise measured on one graph: the
// deliberately wrong variant (reference.NoDangling, which drops the dangling
// redistribution) against the oracle, both converged in float64 to the
// oracle's tolerance (pagerank.OracleTolerance).
//
// The prediction being tested (course capstone, exercise solution): summing
// the broken update over all v gives S' = (1-d) + d*(S - D), so at the fixed
// point the ranks sum to 1 - D*d/(1-d), D being the rank on dangling nodes at
// that fixed point; and the broken vector is the correct one times a
// constant, so the top-k order does not change.
type Exercise struct {
	Graph         string    `json:"graph"`
	N             int       `json:"n"`
	NNZ           int       `json:"nnz"`
	Dangling      int       `json:"dangling"` // dangling node count
	Damping       float64   `json:"damping"`
	Tolerance     float64   `json:"tolerance"`
	OracleIters   int       `json:"oracle_iterations"`
	BrokenIters   int       `json:"broken_iterations"`
	Converged     bool      `json:"converged"` // both runs fell under Tolerance
	OracleSum     float64   `json:"oracle_sum"`
	BrokenSum     float64   `json:"broken_sum"`    // measured sum of the broken ranks
	D             float64   `json:"dangling_mass"` // rank on dangling nodes in the broken fixed point
	Predicted     float64   `json:"predicted_sum"` // 1 - D*d/(1-d)
	AbsDiff       float64   `json:"abs_diff"`      // |BrokenSum - Predicted|
	OracleD       float64   `json:"oracle_dangling_mass"`
	ScaleFactor   float64   `json:"scale_factor"`  // predicted broken/correct ratio (1-d)/(1-d+d*OracleD)
	MaxRatioError float64   `json:"max_ratio_err"` // max_v |broken_v/correct_v - ScaleFactor| / ScaleFactor
	FirstSums     []float64 `json:"first_sums"`    // broken sum after iterations 1..k (k <= 60)
	FirstOracle   []float64 `json:"first_oracle"`  // correct sum after iterations 1..k
	TopK          int       `json:"top_k"`
	OracleTop     []int     `json:"oracle_top"` // node indices, best first
	BrokenTop     []int     `json:"broken_top"`
	SameTop       bool      `json:"same_top"` // the two top-k lists are identical, in order
	Spearman      float64   `json:"spearman"` // rho over the oracle's top 100
	OracleRanks   []float64 `json:"-"`
	BrokenRanks   []float64 `json:"-"`
}

// RunExercise measures Exercise on g with damping d = 0.85, converging both
// runs to pagerank.OracleTolerance (at most pagerank.MaxIterationsCap
// iterations) and comparing their top k (the course uses 20).
func RunExercise(g *pagerank.Graph, k int) (*Exercise, error) {
	p := pagerank.Converge(pagerank.OracleTolerance, pagerank.MaxIterationsCap)
	oracle, broken, err := oracleAndBroken(g, p)
	if err != nil {
		return nil, err
	}
	d := p.Damping
	e := &Exercise{
		Graph: g.Name, N: g.N, NNZ: g.NNZ, Dangling: g.DanglingCount, Damping: d, Tolerance: p.Tolerance,
		OracleIters: oracle.Iterations, BrokenIters: broken.Iterations,
		Converged: oracle.Converged && broken.Converged,
		OracleSum: oracle.FinalSum(), BrokenSum: broken.FinalSum(),
		TopK: k, OracleRanks: oracle.Ranks, BrokenRanks: broken.Ranks,
	}
	e.D = DanglingMass(g, broken.Ranks)
	e.OracleD = DanglingMass(g, oracle.Ranks)
	e.Predicted = 1 - e.D*d/(1-d)
	e.AbsDiff = math.Abs(e.BrokenSum - e.Predicted)
	e.ScaleFactor = (1 - d) / (1 - d + d*e.OracleD)
	for v := range oracle.Ranks {
		r := math.Abs(broken.Ranks[v]/oracle.Ranks[v]-e.ScaleFactor) / e.ScaleFactor
		e.MaxRatioError = max(e.MaxRatioError, r)
	}
	m := 60
	e.FirstSums = slices.Clone(broken.Sums[:min(m, len(broken.Sums))])
	e.FirstOracle = slices.Clone(oracle.Sums[:min(m, len(oracle.Sums))])
	e.OracleTop = pagerank.TopK(oracle.Ranks, k)
	e.BrokenTop = pagerank.TopK(broken.Ranks, k)
	e.SameTop = slices.Equal(e.OracleTop, e.BrokenTop)
	e.Spearman, _ = pagerank.SpearmanTop(oracle.Ranks, broken.Ranks, pagerank.SpearmanTopK)
	return e, nil
}

// DanglingMass is D = sum of x[u] over the dangling nodes u of g (index order).
func DanglingMass(g *pagerank.Graph, x []float64) float64 {
	var D float64
	for u, isD := range g.Dangling {
		if isD != 0 {
			D += x[u]
		}
	}
	return D
}

// Summary is the exercise's measurement in one paragraph of Markdown.
func (e *Exercise) Summary() string {
	verdict := "matches"
	if e.AbsDiff > 1e-9 {
		verdict = "does NOT match"
	}
	top := "identical, in the same order"
	if !e.SameTop {
		top = "DIFFERENT"
	}
	return fmt.Sprintf(`**Measured on %s** (n = %d, nnz = %d, %d dangling nodes, d = %.2f, both runs converged to L1 residual < %.0e: oracle in %d iterations, broken variant in %d):

| quantity | value |
| --- | --- |
| sum of the correct ranks | %.12f |
| sum of the broken ranks (measured) | **%.12f** |
| dangling mass D of the broken fixed point | %.12f |
| predicted sum 1 − D·d/(1−d) | **%.12f** |
| measured − predicted | %.2e |
| rank lost per iteration at the fixed point, d·D | %.6f |
| broken / correct, predicted constant (1−d)/(1−d+d·D_oracle) | %.9f |
| worst node's deviation from that constant (relative) | %.2e |
| Spearman ρ over the oracle's top 100 | %.6f |

The measured sum %s the prediction; the top %d lists are %s.`,
		e.Graph, e.N, e.NNZ, e.Dangling, e.Damping, e.Tolerance, e.OracleIters, e.BrokenIters,
		e.OracleSum, e.BrokenSum, e.D, e.Predicted, e.BrokenSum-e.Predicted, e.Damping*e.D,
		e.ScaleFactor, e.MaxRatioError, e.Spearman, verdict, e.TopK, top)
}

// ComparePrediction compares the reader's predicted fixed-point sum (0: none
// given) with the measured one, in Markdown.
func (e *Exercise) ComparePrediction(predicted float64) string {
	if predicted == 0 {
		return "_You gave no number in `MyPredictedSum`; compare your written prediction with the table above._"
	}
	return fmt.Sprintf("Your predicted sum **%.6f**; measured **%.6f** (off by %+.6f); the formula 1 − D·d/(1−d) gives %.6f.",
		predicted, e.BrokenSum, predicted-e.BrokenSum, e.Predicted)
}

// oracleAndBroken runs the float64 oracle and the no-dangling variant
// (t0-nodangling) on g with p.
func oracleAndBroken(g *pagerank.Graph, p pagerank.Params) (oracle, broken *pagerank.Result, err error) {
	if oracle, err = reference.Oracle().Run(g, p); err != nil {
		return nil, nil, err
	}
	if broken, err = reference.NoDangling().Run(g, p); err != nil {
		return nil, nil, err
	}
	return oracle, broken, nil
}

// ExerciseChecks runs the oracle and the no-dangling variant on the six
// synthetic cases for the fixed iteration count and validates the variant
// against the oracle (pagerank.Validate), as the correctness table does.
func ExerciseChecks(iterations int) (*Table, error) {
	t := &Table{
		Caption: fmt.Sprintf("The broken variant (t0-nodangling) on the six synthetic cases, %d fixed iterations, against the oracle", iterations),
		Header:  []string{"case", "n", "nnz", "dangling", "sum − 1", "allowed", "err/tol", "ρ top 100", "verdict"},
	}
	p := pagerank.Fixed(iterations)
	for _, g := range pagerank.SyntheticCases() {
		oracle, broken, err := oracleAndBroken(g, p)
		if err != nil {
			return nil, err
		}
		v := pagerank.Validate(g, broken, oracle)
		verdict, status := "pass", "pass"
		if !v.Pass {
			verdict, status = "FAIL", "fail"
		}
		t.Add(status, g.Name, fmt.Sprint(g.N), fmt.Sprint(g.NNZ), fmt.Sprint(g.DanglingCount), fmt.Sprintf("%+.3e", v.SumMinus1),
			fmt.Sprintf("%.2e", v.SumAllowed), fmt.Sprintf("%.3g", v.ErrOverTol), fmt.Sprintf("%.6f", v.Spearman), verdict)
	}
	t.Note = "Where a case has no dangling node (nodangling) D = 0 and the variant is the oracle; everywhere else rank leaks and the sum gate fails, while ρ stays 1."
	return t, nil
}
