package pagerank

import (
	"context"
	"fmt"
	"slices"
	"sort"
)

// YearlyGraph is a citation graph whose papers carry their publication
// year, ordered so that the graph as it stood at the end of any year is a
// prefix: nodes by year, then by first appearance in the edge list; edges
// by edge year, then in file order. The edge year of u -> v is
// max(year(u), year(v)): the year of the citing paper, except for a
// citation of a paper dated later than the citing one (an erratum, a
// journal version), which enters with the cited paper. Self-loops and
// duplicate lines are kept, so a snapshot or batch drops and counts them as
// NewGraph and ApplyBatch do.
type YearlyGraph struct {
	Name     string
	IDs      []string // dense index -> paper id, length n
	Years    []int    // year of each node, non-decreasing, length n
	Src, Dst []int32  // every edge line, length m
	EdgeYear []int    // edge year of each edge, non-decreasing, length m
	Forward  int      // edges citing a paper of a later year
	Papers   *Papers  // the metadata the years were taken from
}

// LoadYearlyGraph reads the AAN-form edge list at edges (ParseEdgeList,
// read-only, gzip or not; it stops soon after ctx is done) and the paper
// metadata at papers (LoadPapers), and orders the edges by year
// (NewYearlyGraph). Errors name the file and line.
func LoadYearlyGraph(ctx context.Context, name, edges, papers string) (*YearlyGraph, error) {
	f, err := OpenInput(edges)
	if err != nil {
		return nil, err
	}
	el, err := ParseEdgeList(ContextReader(ctx, f), edges)
	f.Close()
	if err != nil {
		return nil, err
	}
	p, err := LoadPapers(papers)
	if err != nil {
		return nil, err
	}
	return NewYearlyGraph(name, el, p)
}

// NewYearlyGraph orders the edge list el by the years in papers (see
// YearlyGraph). Every node of el needs a year: an id without a row in
// papers, or with year 0 (unknown), is an error naming it.
func NewYearlyGraph(name string, el *EdgeList, papers *Papers) (*YearlyGraph, error) {
	if el == nil || len(el.IDs) == 0 {
		return nil, fmt.Errorf("yearly graph %q: no edges", name)
	}
	if papers == nil {
		return nil, fmt.Errorf("yearly graph %q: no paper metadata (papers.tsv) to take the years from", name)
	}
	n := len(el.IDs)
	year := make([]int, n)
	missing := 0
	first := ""
	for v, id := range el.IDs {
		p, ok := papers.Lookup(id)
		if !ok || p.Year == 0 {
			if missing == 0 {
				first = id
			}
			missing++
			continue
		}
		year[v] = p.Year
	}
	if missing > 0 {
		return nil, fmt.Errorf("yearly graph %q: %d of %d nodes have no year in the paper metadata (first: %q); by-year snapshots need every node's year", name, missing, n, first)
	}
	order := make([]int32, n) // new index -> old index
	for i := range order {
		order[i] = int32(i)
	}
	sort.SliceStable(order, func(a, b int) bool { return year[order[a]] < year[order[b]] })
	label := make([]int32, n) // old -> new
	y := &YearlyGraph{Name: name, IDs: make([]string, n), Years: make([]int, n), Papers: papers}
	for i, v := range order {
		label[v] = int32(i)
		y.IDs[i] = el.IDs[v]
		y.Years[i] = year[v]
	}
	m := len(el.Src)
	eyear := make([]int, m)
	for i := range el.Src {
		ys, yd := year[el.Src[i]], year[el.Dst[i]]
		if yd > ys {
			y.Forward++
		}
		eyear[i] = max(ys, yd)
	}
	eorder := make([]int, m)
	for i := range eorder {
		eorder[i] = i
	}
	sort.SliceStable(eorder, func(a, b int) bool { return eyear[eorder[a]] < eyear[eorder[b]] })
	y.Src, y.Dst, y.EdgeYear = make([]int32, m), make([]int32, m), make([]int, m)
	for i, e := range eorder {
		y.Src[i], y.Dst[i], y.EdgeYear[i] = label[el.Src[e]], label[el.Dst[e]], eyear[e]
	}
	return y, nil
}

// NodesUpTo is the number of nodes with year <= year (a prefix of the order).
func (y *YearlyGraph) NodesUpTo(year int) int {
	i, _ := slices.BinarySearch(y.Years, year+1)
	return i
}

// EdgesUpTo is the number of edge lines with edge year <= year.
func (y *YearlyGraph) EdgesUpTo(year int) int {
	i, _ := slices.BinarySearch(y.EdgeYear, year+1)
	return i
}

// PapersIn is the number of nodes published in year.
func (y *YearlyGraph) PapersIn(year int) int { return y.NodesUpTo(year) - y.NodesUpTo(year-1) }

// FirstYear is the first year in which at least minPapers nodes were published.
func (y *YearlyGraph) FirstYear(minPapers int) (int, error) {
	for i := 0; i < len(y.Years); {
		yr := y.Years[i]
		j := y.NodesUpTo(yr)
		if j-i >= minPapers {
			return yr, nil
		}
		i = j
	}
	return 0, fmt.Errorf("yearly graph %q: no year has %d or more papers", y.Name, minPapers)
}

// Years lists the years in (after, last] in which a node or an edge
// arrives, ascending: the years a batch sequence from the snapshot of
// `after` to that of `last` has one batch for.
func (y *YearlyGraph) YearsBetween(after, last int) []int {
	var out []int
	add := func(yr int) {
		if yr > after && yr <= last && (len(out) == 0 || out[len(out)-1] != yr) {
			out = append(out, yr)
		}
	}
	// Both lists are sorted; merge them.
	i, j := y.NodesUpTo(after), y.EdgesUpTo(after)
	for i < len(y.Years) || j < len(y.EdgeYear) {
		switch {
		case j >= len(y.EdgeYear) || (i < len(y.Years) && y.Years[i] <= y.EdgeYear[j]):
			add(y.Years[i])
			i++
		default:
			add(y.EdgeYear[j])
			j++
		}
	}
	return out
}

// Snapshot builds the graph as it stood at the end of year: the nodes with
// year <= year and the edges with edge year <= year, with up to workers
// goroutines (NewGraphParallel; equal to NewGraph). Its name is
// "<name>-<year>".
func (y *YearlyGraph) Snapshot(year, workers int) (*Graph, error) {
	return y.SnapshotContext(context.Background(), year, workers)
}

// SnapshotContext is Snapshot that stops soon after ctx is done
// (NewGraphParallelContext).
func (y *YearlyGraph) SnapshotContext(ctx context.Context, year, workers int) (*Graph, error) {
	n, m := y.NodesUpTo(year), y.EdgesUpTo(year)
	if n == 0 {
		return nil, fmt.Errorf("yearly graph %q: no paper published in or before %d", y.Name, year)
	}
	return NewGraphParallelContext(ctx, fmt.Sprintf("%s-%d", y.Name, year), n, y.Src[:m], y.Dst[:m], y.IDs[:n:n], workers)
}

// Batch is the update from the snapshot of `from` to that of `to` (from <
// to): the nodes published in (from, to] and the edges whose edge year is in
// (from, to], as insertions (self-loops and duplicate lines included, for
// ApplyBatch to count). Its name is the year `to`.
func (y *YearlyGraph) Batch(from, to int) *Batch {
	n0, n1 := y.NodesUpTo(from), y.NodesUpTo(to)
	m0, m1 := y.EdgesUpTo(from), y.EdgesUpTo(to)
	b := &Batch{Name: fmt.Sprint(to), AddNodes: n1 - n0, NewIDs: slices.Clone(y.IDs[n0:n1]), Inserts: make([]Edge, m1-m0)}
	for i := m0; i < m1; i++ {
		b.Inserts[i-m0] = Edge{y.Src[i], y.Dst[i]}
	}
	return b
}
