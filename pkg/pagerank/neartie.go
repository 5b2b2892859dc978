package pagerank

import "math"

// NearTie is the relative gap under which two neighbouring values of the
// reference's top 100 count as tied in Validate's Spearman gate:
// 1e-5, about 100x float32's accumulated rounding after the validation run
// (a relative error around 1e-7 per operation, growing with iterations).
// Differences that small cannot be resolved by a float32 implementation, so
// their order is not a property of its answer. The 2-D grid needs it: its
// 8-fold symmetry makes exact ties, and its interior nodes' ranks agree to
// far below float32's resolution.
const NearTie = 1e-5

// SpearmanNearTies is Spearman's rho between ref and got over ref's top k
// nodes, with ref's near-ties counted as ties: ref's top k, sorted by value,
// is cut into groups wherever the gap between neighbours exceeds NearTie
// times the larger; both rank vectors give every node of a group the
// group's mean rank (for got, the mean of got's own ranks of those nodes),
// so any order inside a group agrees, and only the order between groups is
// compared. With no near-ties it equals SpearmanTop. rho is 1 when
// both rank vectors are constant (one group), 0 when only one is.
func SpearmanNearTies(ref, got []float64, k int, nearTie float64) (rho float64, groups int) {
	a, ra, rb := topRanks(ref, got, k)
	if len(a) < 2 {
		return 1, len(a)
	}
	// a is in descending order: groups are runs of it.
	for i := 0; i < len(a); {
		j := i
		for j+1 < len(a) && a[j]-a[j+1] <= nearTie*math.Abs(a[j]) {
			j++
		}
		var ma, mb float64
		for x := i; x <= j; x++ {
			ma += ra[x]
			mb += rb[x]
		}
		ma, mb = ma/float64(j-i+1), mb/float64(j-i+1)
		for x := i; x <= j; x++ {
			ra[x], rb[x] = ma, mb
		}
		groups++
		i = j + 1
	}
	return rankCorrelation(ra, rb), groups
}
