package pagerank

import (
	"container/heap"
	"math"
	"slices"
)

// topKSelect returns what TopK returns (the indices of the k largest values,
// largest first, ties by the smaller index) by one pass with a size-k
// min-heap: O(n log k) instead of sorting all n indices, which at n = 2^24
// (the scale study's RMAT graph) is the difference between milliseconds and
// tens of seconds per validation. ok is false when ranks holds a NaN: then
// the order is not a strict weak order and only the sort defines the answer.
func topKSelect(ranks []float64, k int) (top []int, ok bool) {
	k = max(0, min(k, len(ranks)))
	h := &worstFirst{ranks: ranks, idx: make([]int, 0, k)}
	for i, x := range ranks {
		if math.IsNaN(x) {
			return nil, false
		}
		switch {
		case k == 0:
		case len(h.idx) < k:
			heap.Push(h, i)
		case x > ranks[h.idx[0]]: // equal values keep the earlier (smaller) index
			h.idx[0] = i
			heap.Fix(h, 0)
		}
	}
	top = h.idx
	slices.SortFunc(top, func(a, b int) int {
		switch {
		case ranks[a] > ranks[b]:
			return -1
		case ranks[a] < ranks[b]:
			return 1
		}
		return a - b
	})
	return top[:k:k], true
}

// worstFirst is a heap of indices whose root is the worst kept entry: the
// smallest value, and among equal values the largest index.
type worstFirst struct {
	ranks []float64
	idx   []int
}

func (h *worstFirst) Len() int { return len(h.idx) }
func (h *worstFirst) Less(i, j int) bool {
	a, b := h.idx[i], h.idx[j]
	if h.ranks[a] != h.ranks[b] {
		return h.ranks[a] < h.ranks[b]
	}
	return a > b
}
func (h *worstFirst) Swap(i, j int) { h.idx[i], h.idx[j] = h.idx[j], h.idx[i] }
func (h *worstFirst) Push(x any)    { h.idx = append(h.idx, x.(int)) }
func (h *worstFirst) Pop() any {
	x := h.idx[len(h.idx)-1]
	h.idx = h.idx[:len(h.idx)-1]
	return x
}
