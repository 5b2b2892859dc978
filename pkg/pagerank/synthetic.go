package pagerank

import "fmt"

// The six synthetic correctness cases of the course capstone, with its sizes
// (n, nnz). Each is deterministic: no randomness beyond a fixed-seed
// generator, so every implementation sees the same graph everywhere.
//
//	tiny        n=6      nnz=9      hand-checkable, node 5 dangling
//	single      n=1      nnz=0      one isolated (dangling) node
//	nodangling  n=4096   nnz=8192   every node cites 2 others
//	dangling    n=4096   nnz=7392   400 dangling nodes, the rest cite 2 others
//	star        n=10001  nnz=10000  every leaf cites the hub (node 0, dangling)
//	chain       n=8192   nnz=8191   node i cites node i+1; the last is dangling
var SyntheticCaseNames = []string{"tiny", "single", "nodangling", "dangling", "star", "chain"}

// SyntheticCases returns the six course correctness cases in the course's order.
func SyntheticCases() []*Graph {
	out := make([]*Graph, 0, len(SyntheticCaseNames))
	for _, name := range SyntheticCaseNames {
		g, err := SyntheticCase(name)
		if err != nil {
			panic(err) // the generators are fixed; an error here is a bug
		}
		out = append(out, g)
	}
	return out
}

// TinyEdges is the tiny case's edge list (src -> dst), small enough to iterate by hand:
//
//	0 -> 1, 0 -> 2, 1 -> 2, 1 -> 5, 2 -> 0, 3 -> 2, 3 -> 4, 4 -> 3, 4 -> 5
//
// Out-degrees 2, 2, 1, 2, 2, 0: node 5 is dangling.
var TinyEdges = [][2]int32{{0, 1}, {0, 2}, {1, 2}, {1, 5}, {2, 0}, {3, 2}, {3, 4}, {4, 3}, {4, 5}}

// SyntheticCase builds one named synthetic case (see SyntheticCaseNames).
func SyntheticCase(name string) (*Graph, error) {
	var n int
	var src, dst []int32
	add := func(u, v int) { src = append(src, int32(u)); dst = append(dst, int32(v)) }
	switch name {
	case "tiny":
		n = 6
		for _, e := range TinyEdges {
			add(int(e[0]), int(e[1]))
		}
	case "single":
		n = 1
	case "nodangling", "dangling":
		n = 4096
		dangling := 0
		if name == "dangling" {
			dangling = 400 // every 10th node up to 4000 cites nothing: nnz = (4096-400)*2 = 7392
		}
		rng := splitmix64(0x9e3779b97f4a7c15)
		for u := 0; u < n; u++ {
			if u%10 == 0 && u/10 < dangling {
				continue
			}
			a := int(rng.next() % uint64(n-1))
			if a >= u {
				a++ // skip self
			}
			b := a
			for b == a || b == u {
				b = int(rng.next() % uint64(n))
			}
			add(u, a)
			add(u, b)
		}
	case "star":
		n = 10001
		for leaf := 1; leaf < n; leaf++ {
			add(leaf, 0)
		}
	case "chain":
		n = 8192
		for i := 0; i+1 < n; i++ {
			add(i, i+1)
		}
	default:
		return nil, fmt.Errorf("unknown synthetic case %q: want one of %v", name, SyntheticCaseNames)
	}
	return NewGraph(name, n, src, dst, nil)
}

// splitmix64 is Steele, Lea & Flood's SplitMix64 generator ("Fast splittable
// pseudorandom number generators", OOPSLA 2014): a fixed, portable stream so
// synthetic graphs are identical on every machine.
type splitmix64 uint64

func (s *splitmix64) next() uint64 {
	*s += 0x9e3779b97f4a7c15
	z := uint64(*s)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
