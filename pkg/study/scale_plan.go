package study

import (
	"fmt"
	"math"
	"math/bits"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/prlab/prlab/pkg/pagerank"
	"github.com/prlab/prlab/pkg/report"
)

// Rung is one step of the scale study's timing ladder: Iterations per timed
// run, Warmups untimed runs, then Runs timed runs.
type Rung = report.ScaleRung

// Ladder is the timing protocol per row (report.ScaleLadder: the course's
// 50 iterations, 3 warm-ups, 10 runs, down to two runs of 5 iterations
// without warm-up). The planner starts every row on rung 0 and steps the
// most expensive rows down until the estimated study fits the time budget.
var Ladder = report.ScaleLadder

// ScaleRates is the planner's cost model. Time per iteration of
// implementation `impl` on a graph of nnz edges is estimated as
//
//	t = FixedUs + NsPerEdge * nnz * Growth^log2(nnz / AtNNZ)   (ns, us as named; Growth only above AtNNZ)
//
// from the prior below or, once the study has timed the implementation on
// a graph of the same family, from that measurement (AtNNZ = its nnz):
// Growth > 1 models a gather whose working set falls out of the caches as
// the graph grows. Setup is the per-run cost outside the iterations (CPU:
// allocating and converting the work vectors; GPU: upload and read-back),
// in ns per node + ns per edge.
type ScaleRates struct {
	NsPerEdge, FixedUs, AtNNZ float64
	SetupNsPerNode            float64
	SetupNsPerEdge            float64
	Growth                    float64 // per doubling of nnz; 0 means cpuGrowth
}

// Build cost model, core-ns per generated edge (R-MAT generation draws
// Scale random numbers per edge; the parallel CSR build is two counting
// sorts and a row sort), divided by the core count.
const (
	genNsPerEdge   = 150.0
	buildNsPerEdge = 200.0
	cpuGrowth      = 1.25 // per doubling of nnz: gathers fall out of the caches
	gpuGrowth      = 1.10 // the GPU's 50 MiB L2 holds the gathered vector up to about 2^23 nodes
)

// priorRates are the planner's starting estimates, before anything is
// measured on this host: the sequential float64 oracle gathers at about
// 5 ns per edge; a multi-core row at that over 0.7 x the core count; a GPU
// row at 0.02 ns per edge plus 15 us of launches per iteration and an
// upload at about 0.5 ns per edge. They only shape the first plan: every
// measured row replaces its implementation's rates for the rest of the run.
func priorRates(e Entry, workers int) ScaleRates {
	switch {
	case e.Kind == report.KindGPU:
		return ScaleRates{NsPerEdge: 0.02, FixedUs: 15, AtNNZ: 1 << 20, SetupNsPerNode: 2, SetupNsPerEdge: 0.5, Growth: gpuGrowth}
	case e.Impl.Name() == OracleName:
		return ScaleRates{NsPerEdge: 5, AtNNZ: 1 << 20, SetupNsPerNode: 15, SetupNsPerEdge: 1}
	default:
		r := 5 / (0.7 * float64(max(1, workers)))
		if e.Impl.Precision() == pagerank.Float32 {
			r *= 0.8
		}
		return ScaleRates{NsPerEdge: r, FixedUs: 20, AtNNZ: 1 << 20, SetupNsPerNode: 15, SetupNsPerEdge: 1}
	}
}

// perIterationS is the estimated seconds of one iteration on nnz edges.
func (r ScaleRates) perIterationS(nnz float64) float64 {
	growth := r.Growth
	if growth == 0 {
		growth = cpuGrowth
	}
	g := 1.0
	if r.AtNNZ > 0 && nnz > r.AtNNZ {
		g = math.Pow(growth, math.Log2(nnz/r.AtNNZ))
	}
	return (r.FixedUs*1e3 + r.NsPerEdge*nnz*g) * 1e-9
}

func (r ScaleRates) setupS(n, nnz float64) float64 {
	return (r.SetupNsPerNode*n + r.SetupNsPerEdge*nnz) * 1e-9
}

// plannedGraph is one graph of the plan.
type plannedGraph struct {
	Family string
	Scale  int
	Side   int // grid side (grid only)
	N      int
	NNZ    int // estimated until built
	Oracle bool
	Rows   []plannedRow
	Skip   string     // why the whole graph is dropped (budget)
	File   *GraphFile // FamilyFile: the file to read
	format string     // FamilyFile: the format it was read as
}

// nSign is how the plan prints n: "=" where it is known (generated graphs,
// a file already read), "~" for a file not read yet, whose n and nnz are
// estimated from its size.
func (g *plannedGraph) nSign() string {
	if g.File != nil && g.File.NNZ == 0 {
		return "~"
	}
	return "="
}

// GraphFile is a user's graph file in the scale study.
type GraphFile struct {
	Path string
	Name string               // the graph's name in the study (unique)
	Load pagerank.LoadOptions // format, undirected, columns
	// N and NNZ are the file's graph once read (a plan-only study reads
	// every file first); 0 until then, when the plan estimates them from
	// the file's size.
	N, NNZ int
}

// plannedRow is one implementation on one graph.
type plannedRow struct {
	Entry Entry
	Rung  int
	Fixed *Rung  // the protocol to time it with instead of Ladder[Rung] (a replayed study)
	Skip  string // why it will not run (oracle rule, time budget)
}

func (g *plannedGraph) name() string {
	if g.File != nil {
		return g.File.Name
	}
	if g.Family == report.FamilyGrid {
		return fmt.Sprintf("grid%d", g.Side)
	}
	return fmt.Sprintf("rmat%d", g.Scale)
}

func (g *plannedGraph) label() string {
	if g.File != nil {
		return "file " + g.File.Name
	}
	return fmt.Sprintf("%s 2^%d", g.Family, g.Scale)
}

// planner holds the cost model and the budget of a scale study.
type planner struct {
	cfg          *ScaleConfig
	workers      int                   // T1 worker goroutines (the multi-core rows' prior rate)
	buildWorkers int                   // goroutines of generation and the build (0: workers)
	rates        map[string]ScaleRates // key impl + "/" + family
	// measured build cost, core-ns per edge (0 until the first graph is built)
	buildNs float64
}

func rateKey(impl, family string) string { return impl + "/" + family }

func (p *planner) rate(e Entry, family string) ScaleRates {
	if r, ok := p.rates[rateKey(e.Impl.Name(), family)]; ok {
		return r
	}
	if family != report.FamilyRMAT { // a grid row before any grid was timed: the R-MAT rate
		if r, ok := p.rates[rateKey(e.Impl.Name(), report.FamilyRMAT)]; ok {
			return r
		}
	}
	if p.cfg.Rates != nil {
		if r, ok := p.cfg.Rates[e.Impl.Name()]; ok {
			return r
		}
	}
	return priorRates(e, p.workers)
}

// minLearnNNZ is the smallest graph whose timing replaces the prior rates: on
// fewer edges the time per iteration is fixed costs (a 2-node graph timed
// at 0.2 µs would predict 40 ns per edge, and a budget-fitted plan would
// then skip every real graph after it).
const minLearnNNZ = 1 << 12

// learn replaces e's rates on family by a measurement: msPerIter on nnz
// edges (nnz >= minLearnNNZ; smaller graphs leave the rates as they were).
func (p *planner) learn(e Entry, family string, nnz int, msPerIter float64) {
	if !(msPerIter > 0) || nnz < minLearnNNZ {
		return
	}
	r := p.rate(e, family)
	fixed := r.FixedUs * 1e3
	ns := msPerIter*1e6 - fixed
	if ns <= 0 {
		ns = msPerIter * 1e6 / 2
	}
	r.NsPerEdge, r.AtNNZ = ns/float64(nnz), float64(nnz)
	p.rates[rateKey(e.Impl.Name(), family)] = r
}

// buildS is the estimated seconds to generate and build g.
func (p *planner) buildS(g *plannedGraph) float64 {
	gen := genNsPerEdge
	if g.Family == report.FamilyGrid {
		gen = 5
	}
	b := buildNsPerEdge
	if p.buildNs > 0 {
		b = p.buildNs
	}
	generated := float64(g.NNZ) / 0.95
	w := p.buildWorkers
	if w == 0 {
		w = p.workers
	}
	return (gen + b) * generated * 1e-9 / float64(max(1, w))
}

// rowS is the estimated seconds of one row at rung k: the validation run of
// ValidateIterations, and the timing. CPU timing runs K and 1 iterations per
// run (the difference is the time of K-1 iterations, see RunScale); GPU
// timing runs K iterations per run between CUDA events plus every stage
// timed alone (3 warm-ups + 20 repeats, about 23 iterations).
func (p *planner) rowS(g *plannedGraph, r plannedRow, k int) float64 {
	rt := p.rate(r.Entry, g.Family)
	it := rt.perIterationS(float64(g.NNZ))
	setup := rt.setupS(float64(g.N), float64(g.NNZ))
	validate := setup + float64(p.cfg.ValidateIterations)*it + float64(g.N)*20e-9
	rung := Ladder[k]
	if r.Fixed != nil {
		rung = *r.Fixed
	}
	var timing float64
	if r.Entry.Kind == report.KindGPU {
		timing = float64(rung.Warmups+rung.Runs)*float64(rung.Iterations)*it + 23*it + 0.02
	} else {
		timing = float64(rung.Warmups+rung.Runs) * (2*setup + float64(rung.Iterations+1)*it)
	}
	return validate + timing
}

// graphS is the estimated seconds of graph g as planned.
func (p *planner) graphS(g *plannedGraph) float64 {
	if g.Skip != "" {
		return 0
	}
	t := p.buildS(g)
	for _, r := range g.Rows {
		if r.Skip == "" {
			t += p.rowS(g, r, r.Rung)
		}
	}
	return t
}

func (p *planner) totalS(gs []*plannedGraph) float64 {
	t := 0.0
	for _, g := range gs {
		t += p.graphS(g)
	}
	return t
}

// OracleShare is the oracle rule: the float64 sequential oracle runs on a
// graph only when its validation run plus one short timed run (the last
// rung) is estimated to take at most this fraction of the budget; above
// that it would take too long, and the graph is validated against
// ReferenceFallback. The rule is monotone in nnz: once skipped, the oracle
// is skipped on every larger graph.
const OracleShare = 0.10

// fit makes gs fit targetS seconds in three steps. The oracle rule first
// (OracleShare). Then, while even every row on the last rung overruns,
// graphs are left out: 2-D grids from the largest down, and R-MAT graphs
// (which carry the goals) from the largest down only when no grid is left. Then rungs:
// every row starts on the course protocol and the single most expensive row
// steps down one rung at a time until the estimate fits, so small graphs
// keep the full protocol and only the big rows are shortened.
func (p *planner) fit(gs []*plannedGraph, targetS float64) {
	for _, g := range gs {
		for _, r := range g.Rows {
			if r.Entry.Impl.Name() == OracleName && g.Oracle && g.Skip == "" && p.rowS(g, r, len(Ladder)-1) > OracleShare*p.cfg.Budget.Seconds() {
				p.skipOracleFrom(gs, g.NNZ)
			}
		}
	}
	minTotal := func() float64 {
		t := 0.0
		for _, g := range gs {
			if g.Skip != "" {
				continue
			}
			t += p.buildS(g)
			for _, r := range g.Rows {
				if r.Skip == "" {
					t += p.rowS(g, r, len(Ladder)-1)
				}
			}
		}
		return t
	}
	for minTotal() > targetS {
		// The largest grid first; R-MAT graphs (the goals) only when no grid is left.
		var drop *plannedGraph
		for _, g := range gs {
			if g.Skip != "" {
				continue
			}
			grid, dropGrid := g.Family == report.FamilyGrid, drop != nil && drop.Family == report.FamilyGrid
			if drop == nil || (grid && !dropGrid) || (grid == dropGrid && g.Scale > drop.Scale) {
				drop = g
			}
		}
		if drop == nil {
			break
		}
		last := Ladder[len(Ladder)-1]
		drop.Skip = fmt.Sprintf("time budget: with every row on the last rung (%d iterations x %d runs) the study was estimated to overrun its %.0f s budget, so graphs are left out: the 2-D grids first, largest first, then the largest R-MAT graphs (the goals' family)",
			last.Iterations, last.Runs, p.cfg.Budget.Seconds())
	}
	for _, g := range gs {
		for i := range g.Rows {
			g.Rows[i].Rung = 0
		}
	}
	for p.totalS(gs) > targetS {
		var bestG *plannedGraph
		bestI, bestS := -1, -1.0
		for _, g := range gs {
			if g.Skip != "" {
				continue
			}
			for i, r := range g.Rows {
				if r.Skip != "" || r.Rung == len(Ladder)-1 {
					continue
				}
				if s := p.rowS(g, r, r.Rung); s > bestS {
					bestG, bestI, bestS = g, i, s
				}
			}
		}
		if bestG == nil {
			return
		}
		bestG.Rows[bestI].Rung++
	}
}

// skipOracleFrom skips the oracle on every graph of at least nnz edges.
func (p *planner) skipOracleFrom(gs []*plannedGraph, nnz int) {
	for _, g := range gs {
		if g.NNZ < nnz || !g.Oracle {
			continue
		}
		g.Oracle = false
		for i := range g.Rows {
			if g.Rows[i].Entry.Impl.Name() == OracleName {
				g.Rows[i].Skip = oracleSkipReason(p.rowS(g, g.Rows[i], len(Ladder)-1), p.cfg.Budget)
			}
		}
	}
}

func oracleSkipReason(estS float64, budget time.Duration) string {
	return fmt.Sprintf("%s skipped from this size on: its validation run and one short timed run were estimated at %.0f s, more than %.0f %% of the %.0f s budget; validated against %s instead",
		OracleName, estS, OracleShare*100, budget.Seconds(), ReferenceFallback)
}

// graphsFor lists the graphs of cfg in run order: every R-MAT graph by
// scale, then every 2-D grid by scale. The R-MAT graphs carry the goals, so
// they run first (the largest, the goal graph, included) and the grids,
// the contrast, use what budget is left.
func graphsFor(cfg *ScaleConfig, entries []Entry) []*plannedGraph {
	var gs []*plannedGraph
	for s := cfg.MinScale; s <= cfg.MaxScale; s++ {
		n := 1 << s
		gs = append(gs, &plannedGraph{Family: report.FamilyRMAT, Scale: s, N: n, NNZ: int(0.95 * float64(16*n))})
	}
	for s := cfg.MinScale; s <= cfg.MaxScale && cfg.Grid; s++ {
		side := GridSide(s)
		gs = append(gs, &plannedGraph{Family: report.FamilyGrid, Scale: s, Side: side, N: side * side, NNZ: 4 * side * (side - 1)})
	}
	for i := range cfg.Files {
		f := &cfg.Files[i]
		nnz := 1 << 20 // until read: from the file size, about 12 bytes per edge line (4x that compressed)
		if f.NNZ > 0 {
			gs = append(gs, &plannedGraph{Family: report.FamilyFile, Scale: bits.Len(uint(f.N - 1)), N: f.N, NNZ: f.NNZ, File: f})
			continue
		}
		if st, err := os.Stat(f.Path); err == nil {
			per := int64(12)
			if strings.HasSuffix(f.Path, ".gz") {
				per = 3
			}
			nnz = int(max(1, st.Size()/per))
		}
		n := max(1, nnz/8)
		gs = append(gs, &plannedGraph{Family: report.FamilyFile, Scale: bits.Len(uint(n - 1)), N: n, NNZ: nnz, File: f})
	}
	for _, g := range gs {
		g.Oracle = true
		if cfg.OracleMaxScale < 0 || (cfg.OracleMaxScale > 0 && g.Scale > cfg.OracleMaxScale) {
			g.Oracle = false
		}
		for _, e := range entries {
			r := plannedRow{Entry: e}
			if e.Impl.Name() == OracleName && !g.Oracle {
				r.Skip = fmt.Sprintf("%s skipped above scale %d (--oracle-max-scale); validated against %s instead", OracleName, cfg.OracleMaxScale, ReferenceFallback)
				if cfg.OracleMaxScale < 0 {
					r.Skip = fmt.Sprintf("%s skipped (--oracle-max-scale %d); validated against %s instead", OracleName, cfg.OracleMaxScale, ReferenceFallback)
				}
			}
			g.Rows = append(g.Rows, r)
		}
	}
	return gs
}

// GridSide is the side of the scale study's 2-D grid at scale s:
// round(2^(s/2)), so that n = side^2 is within 0.1 % of 2^s.
func GridSide(s int) int { return int(math.Round(math.Pow(2, float64(s)/2))) }

// planKey is the structure of a plan (graphs, rungs, skips) without its
// estimates, to tell whether a re-plan changed anything.
func planKey(gs []*plannedGraph) string {
	var b strings.Builder
	for _, g := range gs {
		fmt.Fprintf(&b, "%s:%t:%t;", g.name(), g.Skip != "", g.Oracle)
		for _, r := range g.Rows {
			fmt.Fprintf(&b, "%d%t,", r.Rung, r.Skip != "")
		}
	}
	return b.String()
}

// planLines describes the plan for people: one line per graph with the
// protocol rung of its rows and its estimated seconds.
func (p *planner) planLines(gs []*plannedGraph, gpuLine string) []string {
	var lines []string
	total := p.totalS(gs)
	of := fmt.Sprintf("of the %.0f s budget", p.cfg.Budget.Seconds())
	if p.cfg.Rung != nil {
		of = fmt.Sprintf("every row %s (--rung, no time budget)", p.cfg.Rung)
	}
	lines = append(lines, fmt.Sprintf("plan: %d graphs, estimated %.0f s %s (%d cores, GOMAXPROCS %d, T1 on %d workers); validation runs %d fixed iterations",
		len(gs), total, of, runtime.NumCPU(), runtime.GOMAXPROCS(0), p.workers, p.cfg.ValidateIterations))
	if gpuLine != "" {
		lines = append(lines, gpuLine)
	}
	lastSkip := ""
	for _, g := range gs {
		if g.Skip != "" {
			why := g.Skip
			if why == lastSkip {
				why = "as above"
			}
			lastSkip = g.Skip
			lines = append(lines, fmt.Sprintf("  %-10s n%s%-9d nnz~%-10d SKIPPED: %s", g.label(), g.nSign(), g.N, g.NNZ, why))
			continue
		}
		ref := OracleName
		if !g.Oracle {
			ref = ReferenceFallback
		}
		var parts []string
		for _, r := range g.Rows {
			if r.Skip != "" {
				if r.Entry.Impl.Name() == OracleName {
					parts = append(parts, OracleName+" skipped")
				}
				continue
			}
			rung := Ladder[r.Rung]
			if r.Fixed != nil {
				rung = *r.Fixed
			}
			parts = append(parts, fmt.Sprintf("%s %dx%d", r.Entry.Impl.Name(), rung.Iterations, rung.Runs))
		}
		lines = append(lines, fmt.Sprintf("  %-10s n%s%-9d nnz~%-10d ~%5.1f s  ref %s | %s", g.label(), g.nSign(), g.N, g.NNZ, p.graphS(g), ref, strings.Join(parts, ", ")))
	}
	if p.cfg.Rung != nil {
		lines = append(lines, "  (NxR = N iterations per timed run x R runs)")
	} else {
		lines = append(lines, "  (NxR = N iterations per timed run x R runs; rows step down the ladder "+ladderText()+" only where the budget needs it)")
	}
	return lines
}

func ladderText() string {
	var s []string
	for _, r := range Ladder {
		s = append(s, fmt.Sprintf("%dx%d", r.Iterations, r.Runs))
	}
	return strings.Join(s, " > ")
}
