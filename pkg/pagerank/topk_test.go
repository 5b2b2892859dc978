package pagerank

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestTopKSelectEqualsSort(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		n := 1 + r.IntN(300)
		x := make([]float64, n)
		for i := range x {
			x[i] = float64(r.IntN(20)) / 7 // many ties
			if trial%3 == 0 {
				x[i] = r.Float64()
			}
			if trial%5 == 0 && i%4 == 0 {
				x[i] = math.Copysign(0, -1) // -0 ties +0
			}
		}
		for _, k := range []int{0, 1, 5, 100, n, n + 3, -1} {
			got, ok := topKSelect(x, k)
			if !ok {
				t.Fatal("no NaN, but not ok")
			}
			if want := topKSort(x, k); !slices.Equal(got, want) {
				t.Fatalf("trial %d n %d k %d: %v, want %v", trial, n, k, got, want)
			}
			if got := TopK(x, k); !slices.Equal(got, topKSort(x, k)) {
				t.Fatalf("TopK differs from its definition")
			}
		}
	}
	x := []float64{1, math.NaN(), 3, 2}
	if _, ok := topKSelect(x, 2); ok {
		t.Fatal("NaN accepted by the heap path")
	}
	if got := TopK(x, 4); !slices.Equal(got, topKSort(x, 4)) {
		t.Fatalf("TopK with NaN %v, want %v", got, topKSort(x, 4))
	}
	// Known values: largest first, the tie 5 at indices 1 and 3 in index order.
	if got := TopK([]float64{1, 5, 2, 5, 4}, 3); !slices.Equal(got, []int{1, 3, 4}) {
		t.Fatalf("TopK = %v, want [1 3 4]", got)
	}
}
