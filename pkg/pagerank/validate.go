package pagerank

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat"
)

// Validation gates (course capstone, "Validate before timing").
const (
	// FltEpsilon is C's FLT_EPSILON, 2^-23, the float32 machine epsilon.
	FltEpsilon = 1.0 / (1 << 23)
	// SpearmanTopK is how many of the oracle's highest-ranked nodes Spearman's rho compares.
	SpearmanTopK = 100
	// SpearmanGate is the minimum rho over the oracle's top 100.
	SpearmanGate = 0.999
	// RelTolerance is prlab's per-element tolerance: |x_v - ref_v| <= RelTolerance * ref_v.
	// The course reports the largest error as a multiple of a tolerance without
	// publishing it; 1e-3 relative is prlab's choice: float32 accumulation over
	// 100 iterations stays orders of magnitude below it on every case (err/tol
	// around 1e-3), while dropping the dangling redistribution on tiny exceeds it
	// by two orders of magnitude. Every rank is at least (1-d)/n > 0, so the
	// relative bound is always defined.
	RelTolerance = 1e-3
)

// SumAllowed is the sum-invariant bound 4*FLT_EPSILON*sqrt(n) for n nodes.
func SumAllowed(n int) float64 { return 4 * FltEpsilon * math.Sqrt(float64(n)) }

// Validation compares one Result with the oracle's Result on the same graph.
type Validation struct {
	Case           string  `json:"case"`
	Implementation string  `json:"implementation"`
	SumMinus1      float64 `json:"sum_minus_1"`  // sum of final ranks minus 1
	SumAllowed     float64 `json:"sum_allowed"`  // 4*FLT_EPSILON*sqrt(n)
	Spearman       float64 `json:"spearman"`     // rho over the oracle's top min(100, n), ties by average rank
	TopK           int     `json:"top_k"`        // how many nodes rho compared
	MaxRelErr      float64 `json:"max_rel_err"`  // max_v |x_v - ref_v| / ref_v
	ErrOverTol     float64 `json:"err_over_tol"` // MaxRelErr / RelTolerance (the course's err/tol column)
	WorstNode      int     `json:"worst_node"`   // index of the node with MaxRelErr
	SumPass        bool    `json:"sum_pass"`
	SpearmanPass   bool    `json:"spearman_pass"`
	ErrPass        bool    `json:"err_pass"`
	Pass           bool    `json:"pass"`
	Problem        string  `json:"problem,omitempty"` // why it could not be validated (failed, skipped, wrong length)
	// TieNote is set when the plain Spearman gate failed and rho was taken
	// again with the oracle's near-ties counted as ties (SpearmanNearTies):
	// it gives both rhos; Spearman and SpearmanPass are then the near-tie ones.
	TieNote string `json:"tie_note,omitempty"`
}

// Validate checks res against the oracle Result on graph g (both ranks of length n):
// the sum invariant |sum-1| <= 4*FLT_EPSILON*sqrt(n), Spearman's rho over the
// oracle's top 100 >= 0.999, and max relative error <= RelTolerance.
// Where the plain rho misses the gate, rho is taken again with the oracle's
// near-ties counted as ties (SpearmanNearTies with NearTie) and TieNote says
// so: a float32 run cannot order values closer than its rounding, as on the
// 2-D grid's symmetric and interior nodes.
func Validate(g *Graph, res, oracle *Result) Validation {
	v := Validation{Case: g.Name, SumAllowed: SumAllowed(g.N), WorstNode: -1}
	if res != nil {
		v.Implementation = res.Implementation
	}
	switch {
	case res == nil:
		v.Problem = "no result"
	case res.Skipped != "":
		v.Problem = "skipped: " + res.Skipped
	case res.Err != "":
		v.Problem = "failed: " + res.Err
	case oracle == nil || !oracle.OK():
		v.Problem = "no oracle result to compare with"
	case len(res.Ranks) != g.N || len(oracle.Ranks) != g.N:
		v.Problem = fmt.Sprintf("rank vectors have length %d and %d, want n=%d", len(res.Ranks), len(oracle.Ranks), g.N)
	default:
		// A rank that is NaN or ±Inf (or a sum that overflows) means the run
		// failed; there are no numbers to grade (and none that results.json
		// could hold).
		sum := 0.0
		for i, x := range res.Ranks {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				v.Problem = fmt.Sprintf("rank of node %d is %v: non-finite ranks", i, x)
				break
			}
			sum += x
		}
		if v.Problem == "" && math.IsInf(sum, 0) {
			v.Problem = fmt.Sprintf("sum of ranks is %v: non-finite", sum)
		}
	}
	if v.Problem != "" {
		v.SumMinus1, v.Spearman, v.MaxRelErr, v.ErrOverTol = math.NaN(), math.NaN(), math.NaN(), math.NaN()
		return v
	}
	sum := 0.0
	for _, x := range res.Ranks {
		sum += x
	}
	v.SumMinus1 = sum - 1
	v.SumPass = math.Abs(v.SumMinus1) <= v.SumAllowed

	for i, x := range res.Ranks {
		ref := oracle.Ranks[i]
		e := math.Abs(x-ref) / math.Abs(ref)
		if math.IsNaN(x) || math.IsInf(x, 0) {
			e = math.Inf(1)
		}
		if e > v.MaxRelErr || v.WorstNode < 0 {
			v.MaxRelErr, v.WorstNode = e, i
		}
	}
	v.ErrOverTol = v.MaxRelErr / RelTolerance
	v.ErrPass = v.MaxRelErr <= RelTolerance

	v.Spearman, v.TopK = SpearmanTop(oracle.Ranks, res.Ranks, SpearmanTopK)
	v.SpearmanPass = v.Spearman >= SpearmanGate
	if !v.SpearmanPass {
		rho, groups := SpearmanNearTies(oracle.Ranks, res.Ranks, SpearmanTopK, NearTie)
		v.TieNote = fmt.Sprintf("Spearman rho over the reference's top %d is %.6f with every value distinct, %.6f with the reference's near-ties (relative gap <= %g) as ties (%d groups)",
			v.TopK, v.Spearman, rho, NearTie, groups)
		v.Spearman = rho
		v.SpearmanPass = rho >= SpearmanGate
	}
	v.Pass = v.SumPass && v.ErrPass && v.SpearmanPass
	return v
}

// TopK returns the indices of the k largest values of ranks, largest first;
// ties are broken by the smaller index so the order is deterministic.
// k is clamped to [0, len(ranks)].
func TopK(ranks []float64, k int) []int {
	if top, ok := topKSelect(ranks, k); ok { // same answer in O(n log k); see topk.go
		return top
	}
	return topKSort(ranks, k)
}

// topKSort is TopK's definition, and its answer where topKSelect declines
// (a NaN): a stable sort of all n indices by value, descending, O(n log n).
func topKSort(ranks []float64, k int) []int {
	k = max(0, min(k, len(ranks)))
	idx := make([]int, len(ranks))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return ranks[idx[a]] > ranks[idx[b]] })
	return idx[:k:k]
}

// SpearmanTop is Spearman's rank correlation between ref and got restricted
// to ref's top k nodes: the Pearson correlation (gonum stat.Correlation) of
// their ranks among those k nodes, tied values sharing the average rank.
// When k < 2, or both rank vectors are constant (all tied), the orders agree
// trivially and rho is 1; when exactly one is constant rho is 0.
func SpearmanTop(ref, got []float64, k int) (rho float64, used int) {
	a, ra, rb := topRanks(ref, got, k)
	if len(a) < 2 {
		return 1, len(a)
	}
	return rankCorrelation(ra, rb), len(a)
}

// topRanks returns the values a of ref's top k nodes (descending) and the
// average ranks ra, rb of those nodes' values in ref and in got.
func topRanks(ref, got []float64, k int) (a, ra, rb []float64) {
	top := TopK(ref, k)
	a = make([]float64, len(top))
	b := make([]float64, len(top))
	for i, v := range top {
		a[i], b[i] = ref[v], got[v]
	}
	return a, AverageRanks(a), AverageRanks(b)
}

// rankCorrelation is the Pearson correlation of two rank vectors: 1 when
// both are constant, 0 when exactly one is.
func rankCorrelation(ra, rb []float64) float64 {
	ca, cb := constant(ra), constant(rb)
	switch {
	case ca && cb:
		return 1
	case ca || cb:
		return 0
	}
	return stat.Correlation(ra, rb, nil)
}

func constant(x []float64) bool {
	for _, v := range x {
		if v != x[0] {
			return false
		}
	}
	return true
}

// AverageRanks returns the 1-based ascending rank of each value, tied values
// sharing the mean of the ranks they span (the standard tie rule for
// Spearman's rho).
func AverageRanks(x []float64) []float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return x[idx[a]] < x[idx[b]] })
	r := make([]float64, len(x))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && x[idx[j+1]] == x[idx[i]] {
			j++
		}
		avg := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			r[idx[k]] = avg
		}
		i = j + 1
	}
	return r
}
