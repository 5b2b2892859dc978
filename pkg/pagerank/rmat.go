package pagerank

import (
	"context"
	"fmt"
	"runtime"
	"sync"
)

// RMATParams are the recursive-matrix (R-MAT) generator's quadrant
// probabilities and size. Chakrabarti, Zhan & Faloutsos, "R-MAT: A Recursive
// Model for Graph Mining" (SDM 2004); the defaults are the Graph500
// benchmark's (a=0.57, b=0.19, c=0.19, d=0.05, edge factor 16).
type RMATParams struct {
	Scale      int     // n = 2^Scale nodes
	EdgeFactor int     // edges generated = EdgeFactor * n (before dropping self-loops and duplicates)
	A, B, C    float64 // quadrant probabilities; D = 1 - A - B - C
	Seed       uint64
	// Workers generating edges in parallel (0: GOMAXPROCS). The output does
	// not depend on it: edges are generated in fixed chunks, each from its own
	// SplitMix64 stream derived from (Seed, chunk index).
	Workers int
}

// Graph500RMAT returns the Graph500 parameters at the given scale and seed.
func Graph500RMAT(scale int, seed uint64) RMATParams {
	return RMATParams{Scale: scale, EdgeFactor: 16, A: 0.57, B: 0.19, C: 0.19, Seed: seed}
}

// rmatChunk is the number of edges generated from one random stream.
const rmatChunk = 1 << 16

// RMATEdges generates EdgeFactor * 2^Scale directed edges (src -> dst), with
// node labels scrambled by a seeded permutation so that degree does not
// correlate with index (as Graph500 does). Deterministic for a given
// RMATParams whatever the number of workers.
func RMATEdges(p RMATParams) (n int, src, dst []int32, err error) {
	return RMATEdgesContext(context.Background(), p)
}

// RMATEdgesContext is RMATEdges that stops soon after ctx is done (workers
// look at a flag before each chunk of rmatChunk edges) with an error
// wrapping ctx's error.
func RMATEdgesContext(ctx context.Context, p RMATParams) (n int, src, dst []int32, err error) {
	if p.Scale < 1 || p.Scale > 30 {
		return 0, nil, nil, fmt.Errorf("RMAT scale %d out of range: must be in [1, 30]", p.Scale)
	}
	if p.EdgeFactor < 1 {
		return 0, nil, nil, fmt.Errorf("RMAT edge factor %d out of range: must be >= 1", p.EdgeFactor)
	}
	if p.A <= 0 || p.B < 0 || p.C < 0 || p.A+p.B+p.C >= 1 {
		return 0, nil, nil, fmt.Errorf("RMAT probabilities a=%v b=%v c=%v: need a > 0, b, c >= 0 and a+b+c < 1", p.A, p.B, p.C)
	}
	n = 1 << p.Scale
	m := int64(p.EdgeFactor) * int64(n)
	if m > int64(maxNodes) {
		return 0, nil, nil, fmt.Errorf("RMAT scale %d edge factor %d gives %d edges, beyond the int32 index limit", p.Scale, p.EdgeFactor, m)
	}
	src = make([]int32, m)
	dst = make([]int32, m)
	perm := permutation(n, p.Seed^0xa0761d6478bd642f)
	chunks := int((m + rmatChunk - 1) / rmatChunk)
	workers := p.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	// Thresholds as 53-bit fixed point for exact, portable comparisons.
	const one = 1 << 53
	ta := uint64(p.A * one)
	tab := uint64((p.A + p.B) * one)
	tabc := uint64((p.A + p.B + p.C) * one)
	stop, release := watch(ctx)
	defer release()
	var wg sync.WaitGroup
	next := make(chan int, chunks)
	for c := 0; c < chunks; c++ {
		next <- c
	}
	close(next)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range next {
				if stop.Load() {
					return
				}
				rng := splitmix64(p.Seed*0x9e3779b97f4a7c15 + uint64(c)*0xbf58476d1ce4e5b9 + 1)
				lo := int64(c) * rmatChunk
				hi := min(lo+rmatChunk, m)
				for e := lo; e < hi; e++ {
					var u, v int
					for bit := p.Scale - 1; bit >= 0; bit-- {
						r := rng.next() >> 11 // 53 random bits
						switch {
						case r < ta: // top-left: neither bit
						case r < tab: // top-right
							v |= 1 << bit
						case r < tabc: // bottom-left
							u |= 1 << bit
						default:
							u |= 1 << bit
							v |= 1 << bit
						}
					}
					src[e] = perm[u]
					dst[e] = perm[v]
				}
			}
		}()
	}
	wg.Wait()
	if err := stop.err(fmt.Sprintf("RMAT scale %d", p.Scale)); err != nil {
		return 0, nil, nil, err
	}
	return n, src, dst, nil
}

// RMAT generates an R-MAT graph (see RMATEdges) and builds its Graph, named
// "rmat<scale>"; self-loops and duplicate edges are dropped and counted.
func RMAT(p RMATParams) (*Graph, error) {
	n, src, dst, err := RMATEdges(p)
	if err != nil {
		return nil, err
	}
	return NewGraph(fmt.Sprintf("rmat%d", p.Scale), n, src, dst, nil)
}

// permutation returns a seeded Fisher-Yates shuffle of 0..n-1.
func permutation(n int, seed uint64) []int32 {
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
	}
	rng := splitmix64(seed)
	for i := n - 1; i > 0; i-- {
		j := int(rng.next() % uint64(i+1))
		perm[i], perm[j] = perm[j], perm[i]
	}
	return perm
}

// Grid2D builds a side x side 2-D grid in which every node cites its four
// (von Neumann) neighbours inside the grid: n = side^2,
// nnz = 4*side*(side-1), no dangling node, no degree skew, diameter
// 2*(side-1). It is the scale study's high-diameter, no-skew contrast to RMAT.
func Grid2D(side int) (*Graph, error) {
	if side < 2 || side > 46340 {
		return nil, fmt.Errorf("grid side %d out of range: must be in [2, 46340]", side)
	}
	n := side * side
	src := make([]int32, 0, 4*side*(side-1))
	dst := make([]int32, 0, 4*side*(side-1))
	for r := 0; r < side; r++ {
		for c := 0; c < side; c++ {
			u := int32(r*side + c)
			if c+1 < side {
				src, dst = append(src, u, u+1), append(dst, u+1, u)
			}
			if r+1 < side {
				src, dst = append(src, u, u+int32(side)), append(dst, u+int32(side), u)
			}
		}
	}
	return NewGraph(fmt.Sprintf("grid%d", side), n, src, dst, nil)
}
