package study

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/prlab/prlab/pkg/pagerank"
	"github.com/prlab/prlab/pkg/report"
)

// Incremental study defaults.
const (
	DefaultMinPapers       = 100  // the by-year sequence starts with the first year that has this many papers
	DefaultLastYear        = 2012 // the AAN release's last year
	DefaultIncrementalSeed = 1
	DefaultIncrementalRuns = 3
	// DefaultIncrementalFloatTolerance is the float32 rows' L1 tolerance:
	// ten times tighter than the course's 1e-6, because every row here is
	// graded on err/tol too, and a float32 run stopped at 1e-6 can be off by
	// 2e-3 relative on a low-ranked node (measured on the AAN snapshots),
	// twice RelTolerance.
	DefaultIncrementalFloatTolerance = 1e-7
)

// DefaultFractions are the random batch sizes, as fractions of the edges (0.01 % to 10 %).
var DefaultFractions = []float64{0.0001, 0.001, 0.01, 0.1}

// HostSession is a pagerank.Session whose graph lives in host memory: the
// CPU tier. Apply merges the batch with pagerank.ApplyBatch; RunFrom runs
// the implementation's warm start. Open costs nothing (no upload).
type HostSession struct {
	Impl    pagerank.WarmStarter
	Graph   *pagerank.Graph
	Workers int
}

// Apply replaces the held graph by the graph after b (see pagerank.ApplyBatch).
func (h *HostSession) Apply(b *pagerank.Batch) (pagerank.BatchStats, error) {
	g, st, err := pagerank.ApplyBatch(h.Graph, b, h.Workers)
	if err == nil {
		h.Graph = g
	}
	return st, err
}

// RunFrom iterates on the held graph from start (nil: 1/n).
func (h *HostSession) RunFrom(p pagerank.Params, start []float64) (*pagerank.Result, error) {
	return h.Impl.RunFrom(h.Graph, p, start)
}

// Close releases nothing (the graph is garbage collected).
func (h *HostSession) Close() error { return nil }

var _ pagerank.Session = (*HostSession)(nil)

// IncrementalConfig is one incremental study. Zero fields take the defaults.
type IncrementalConfig struct {
	Name      string
	EdgeList  string // the by-year graph's edge list (AAN acl.txt); "" = no by-year workload
	Papers    string // its metadata with the years (papers.tsv)
	GraphName string // "aan"
	Datasets  []string
	Graphs    []GraphFile // graph files for random batches (any format pkg/pagerank reads)
	RMAT      []int       // R-MAT scales for random batches (Graph500 parameters, Seed)
	Fractions []float64
	Kinds     []string
	Seed      uint64
	MinPapers int
	LastYear  int
	Impls     []string // implementations with a warm start or a resident session; empty = all of them but the oracle and the exercise
	Warmups   int      // < 0: none
	Runs      int

	FloatTolerance, OracleTolerance float64
	MaxIterations                   int
	Workers                         int // ApplyBatch, the rebuild and T1 (0: GOMAXPROCS)

	// Checkpoint, when set, is called after every workload with the study so far.
	Checkpoint func(*report.IncrementalStudy) error
	Entries    []Entry // nil: Registry(GPU)
	GPU        GPU
	Progress   io.Writer
	Now        func() time.Time
}

func (c *IncrementalConfig) defaults() {
	if c.Name == "" {
		c.Name = "incremental"
	}
	if c.GraphName == "" {
		c.GraphName = "aan"
	}
	if c.Fractions == nil {
		c.Fractions = DefaultFractions
	}
	if c.Kinds == nil {
		c.Kinds = pagerank.BatchKinds
	}
	if c.Seed == 0 {
		c.Seed = DefaultIncrementalSeed
	}
	if c.MinPapers == 0 {
		c.MinPapers = DefaultMinPapers
	}
	if c.LastYear == 0 {
		c.LastYear = DefaultLastYear
	}
	if c.Warmups == 0 {
		c.Warmups = 1
	}
	if c.Warmups < 0 {
		c.Warmups = 0
	}
	if c.Runs == 0 {
		c.Runs = DefaultIncrementalRuns
	}
	if c.FloatTolerance == 0 {
		c.FloatTolerance = DefaultIncrementalFloatTolerance
	}
	if c.OracleTolerance == 0 {
		c.OracleTolerance = pagerank.OracleTolerance
	}
	if c.MaxIterations == 0 {
		c.MaxIterations = 1000
	}
	if c.Workers <= 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	defaultIO(&c.Progress, &c.Now)
	if c.Entries == nil {
		c.Entries = RegistryWorkers(c.GPU, c.Workers)
	}
}

// Validate rejects a configuration out of range; messages give the valid range.
func (c *IncrementalConfig) Validate() error {
	switch {
	case c.EdgeList == "" && len(c.Graphs) == 0 && len(c.RMAT) == 0:
		return errors.New("nothing to run: no by-year graph, no --graph and no --rmat scale")
	case c.EdgeList != "" && c.Papers == "":
		return errors.New("the by-year workload needs the paper metadata with years (papers.tsv)")
	case c.Runs < 1 || c.Runs > 1000:
		return fmt.Errorf("runs %d out of range: must be in [1, 1000]", c.Runs)
	case c.Warmups > 100:
		return fmt.Errorf("warm-ups %d out of range: must be in [0, 100]", c.Warmups)
	case c.MaxIterations < 1 || c.MaxIterations > pagerank.MaxIterationsCap:
		return fmt.Errorf("max iterations %d out of range: must be in [1, %d]", c.MaxIterations, pagerank.MaxIterationsCap)
	case c.MinPapers < 1:
		return fmt.Errorf("min papers %d out of range: must be >= 1", c.MinPapers)
	}
	for _, s := range c.RMAT {
		if s < 2 || s > MaxScaleLimit {
			return fmt.Errorf("R-MAT scale %d out of range: must be in [2, %d]", s, MaxScaleLimit)
		}
	}
	for _, f := range c.Fractions {
		if !(f > 0 && f <= 1) {
			return fmt.Errorf("batch fraction %v out of range: must be in (0, 1] (0.001 = 0.1%% of the edges)", f)
		}
	}
	for _, k := range c.Kinds {
		if !slices.Contains(pagerank.BatchKinds, k) {
			return fmt.Errorf("unknown batch kind %q: valid kinds are %s", k, strings.Join(pagerank.BatchKinds, ", "))
		}
	}
	_, err := c.tiers()
	return err
}

// tiers is the entries the study runs: the selected ones with a warm start.
func (c *IncrementalConfig) tiers() ([]Entry, error) {
	var out []Entry
	for _, e := range c.Entries {
		name := e.Impl.Name()
		_, warm := e.Impl.(pagerank.WarmStarter)
		_, resident := e.Impl.(pagerank.Resident)
		switch {
		case len(c.Impls) > 0 && !slices.Contains(c.Impls, name):
		case len(c.Impls) > 0 && !warm && !resident:
			return nil, fmt.Errorf("implementation %q has no warm start (neither pagerank.WarmStarter nor pagerank.Resident)", name)
		case len(c.Impls) == 0 && (name == OracleName || e.Kind == report.KindExercise || (!warm && !resident)):
		default:
			out = append(out, e)
		}
	}
	for _, n := range c.Impls {
		if !slices.ContainsFunc(c.Entries, func(e Entry) bool { return e.Impl.Name() == n }) {
			return nil, fmt.Errorf("unknown implementation %q: valid names are %s", n, strings.Join(Names(c.Entries), ", "))
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no implementation with a warm start selected")
	}
	return out, nil
}

// incrementalRunner is the state of one RunIncremental.
type incrementalRunner struct {
	cfg    IncrementalConfig
	ctx    context.Context
	start  time.Time
	out    *report.IncrementalStudy
	tiers  []Entry
	avail  map[string]string
	oracle pagerank.Implementation
}

func (r *incrementalRunner) progress(format string, args ...any) {
	fmt.Fprintf(r.cfg.Progress, "[%6.1fs] %s\n", r.cfg.Now().Sub(r.start).Seconds(), fmt.Sprintf(format, args...))
}

func (r *incrementalRunner) note(format string, args ...any) {
	addNote(&r.out.Notes, r.cfg.Progress, format, args...)
}

// RunIncremental runs the incremental study: the by-year workload (the
// citation graph's yearly snapshots from the first year with MinPapers
// papers to LastYear, each year's papers and citations one batch) and
// random batches (every kind and fraction, each applied to the same base
// graph) on every R-MAT scale and graph file. Per batch: the update
// (ApplyBatch) against the rebuild, both timed and compared array for
// array; the oracle's cold start to its tolerance on the new snapshot; and
// per implementation the warm start from its ranks before the batch against
// the cold start, timed, iterations counted, each validated against the
// oracle and against each other (pagerank.Validate's gates). It returns an
// error only for a bad configuration, a graph that does not load, or a
// cancelled ctx.
func RunIncremental(ctx context.Context, cfg IncrementalConfig) (*report.IncrementalStudy, error) {
	cfg.defaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	tiers, _ := cfg.tiers()
	r := &incrementalRunner{cfg: cfg, ctx: ctx, start: cfg.Now(), tiers: tiers, avail: map[string]string{}}
	for _, e := range cfg.Entries {
		if e.Impl.Name() == OracleName {
			r.oracle = e.Impl
		}
	}
	if r.oracle == nil {
		return nil, fmt.Errorf("the registry has no %s implementation to validate against", OracleName)
	}
	env, err := report.CollectEnvironment(cfg.Now(), cfg.Datasets)
	if err != nil {
		return nil, err
	}
	ticks := report.ReadCPUTicks()
	r.out = &report.IncrementalStudy{StudyHeader: report.StudyHeader{Schema: report.IncrementalSchema, Name: cfg.Name, Env: env}, Protocol: r.protocol()}
	r.out.GPUSkipped = gpuSkipReason(cfg.GPU)
	for _, e := range tiers {
		r.avail[e.Impl.Name()] = Availability(e, cfg.GPU)
	}
	if names := gpuSkippedNames(tiers, r.avail, r.out.GPUSkipped); r.out.GPUSkipped != "" && len(names) > 0 {
		// One line for the GPU tiers skipped on every batch; their rows are not printed one by one.
		r.progress("GPU tiers skipped on every batch (%s): %s", strings.Join(names, ", "), r.out.GPUSkipped)
	}
	checkpoint := func() {
		if cfg.Checkpoint != nil {
			r.finish(false)
			if err := cfg.Checkpoint(r.out); err != nil {
				r.note("checkpoint failed: %v", err)
			}
		}
	}
	if cfg.EdgeList != "" {
		if err := r.byYear(); err != nil {
			return nil, err
		}
		checkpoint()
	}
	for _, s := range cfg.RMAT {
		p := pagerank.Graph500RMAT(s, cfg.Seed)
		p.Workers = cfg.Workers
		t0 := time.Now()
		n, src, dst, err := pagerank.RMATEdgesContext(ctx, p)
		if err != nil {
			return nil, err
		}
		g, err := pagerank.NewGraphParallelContext(ctx, fmt.Sprintf("rmat%d", s), n, src, dst, nil, cfg.Workers)
		if err != nil {
			return nil, err
		}
		src, dst = nil, nil
		w := report.Workload{Name: g.Name, Kind: report.WorkloadRandom, Graph: g.Name, N: g.N, NNZ: g.NNZ,
			BuildMs: ms(time.Since(t0)), Source: fmt.Sprintf("Graph500 R-MAT scale %d (a=%.2f b=%.2f c=%.2f, edge factor %d, seed %d)", s, p.A, p.B, p.C, p.EdgeFactor, cfg.Seed)}
		if err := r.random(w, g); err != nil {
			return nil, err
		}
		checkpoint()
	}
	for _, f := range cfg.Graphs {
		t0 := time.Now()
		g, _, err := pagerank.LoadGraphContext(ctx, f.Path, f.Name, loadOptions(f.Load, cfg.Workers))
		if err != nil {
			return nil, fmt.Errorf("load %s: %w", f.Path, err)
		}
		w := report.Workload{Name: g.Name, Kind: report.WorkloadRandom, Graph: g.Name, N: g.N, NNZ: g.NNZ, BuildMs: ms(time.Since(t0)), Source: f.Path}
		if slices.ContainsFunc(r.out.Workloads, func(x report.Workload) bool { return x.Name == w.Name }) {
			w.Name += fmt.Sprintf("-%d", len(r.out.Workloads))
		}
		if err := r.random(w, g); err != nil {
			return nil, err
		}
		checkpoint()
	}
	r.finish(true)
	r.out.Env.OtherCPU = report.OtherCPUShare(ticks, report.ReadCPUTicks())
	if start, end := r.out.Env.LoadAverage, report.LoadAverage(); start != "" && end != "" {
		verdict := "at most the core count, so the CPU work had the cores to itself"
		if busierThan(start, runtime.NumCPU()) || busierThan(end, runtime.NumCPU()) {
			verdict = "above the core count, other processes competed for the CPU and every CPU time here is longer than this host can do"
		}
		r.note("load average (1, 5, 15 min) at the start %s, at the end %s, on %d logical cores: %s", start, end, runtime.NumCPU(), verdict)
	}
	return r.out, nil
}

// loadOptions is o with the study's worker count.
func loadOptions(o pagerank.LoadOptions, workers int) pagerank.LoadOptions {
	o.Workers = workers
	return o
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

func (r *incrementalRunner) protocol() report.IncrementalProtocol {
	c := r.cfg
	return report.IncrementalProtocol{
		Damping: pagerank.DefaultDamping, FloatTolerance: c.FloatTolerance, OracleTolerance: c.OracleTolerance,
		MaxIterations: c.MaxIterations, Warmups: c.Warmups, Runs: c.Runs, Workers: c.Workers, Seed: c.Seed,
		Fractions: c.Fractions, Kinds: c.Kinds, MinPapers: c.MinPapers, LastYear: c.LastYear,
		Update: "pagerank.ApplyBatch on the graph before the batch: the batch sorted by source (parallel sort of 64-bit keys), every out-CSR row merged with its deletions and insertions, the edges that changed sorted by destination and merged into the in-edge CSR, out-degrees, 1/outdeg and the dangling mask recomputed; deletions first, then insertions; self-loops, duplicate insertions and deletions of absent edges counted and skipped; the result is compared array for array with the rebuild (equal to rebuild)",
		Warm:   "the implementation's own converged ranks before the batch (by year: on the previous year's snapshot; random: on the base graph), new nodes 1/n, the vector rescaled to sum 1, then iterations until the L1 residual falls under the tolerance of the implementation's precision",
		Cold:   "the graph rebuilt on the host from the snapshot's edge list with NewGraphParallel (by year: the file's citation lines up to that year; random: the updated graph's edge list in CSR order, which favours the rebuild: its rows arrive sorted), uploaded (GPU tiers; nothing on the CPU), then iterations from 1/n to the same tolerance",
		Validation: fmt.Sprintf("the float64 oracle's cold start to %g on every snapshot is the reference; warm and cold ranks are each validated against it, and warm against cold, with pagerank.Validate's gates: |sum-1| <= 4*FLT_EPSILON*sqrt(n), Spearman rho over the top %d >= %.3f, max relative error <= %g (err/tol <= 1); a row passes when both converged and all three checks pass",
			c.OracleTolerance, pagerank.SpearmanTopK, pagerank.SpearmanGate, pagerank.RelTolerance),
		Speedup: "(rebuild ms + upload ms + cold iterate ms) / (update ms + warm iterate ms), medians; above 1 the incremental path wins",
		Clock:   "Go's monotonic wall clock around each whole call (the update, the rebuild, and each Run/RunFrom including its per-call setup), the loop of study.Measure's whole-call protocol",
	}
}

// timeIt is Measure's wall-clock loop (wallClock: warm-ups, then runs
// calls of f timed around the whole call) as a Timing of the runs (ms),
// and f's last value.
func timeIt[T any](ctx context.Context, warmups, runs int, f func() (T, error)) (pagerank.Timing, T, error) {
	samples, last, err := wallClock(ctx, warmups, runs, nil, f)
	if err != nil {
		return pagerank.Timing{}, last, err
	}
	return pagerank.NewTiming(0, warmups, samples, "wall"), last, nil
}

// tolerance is the convergence tolerance of a precision.
func (r *incrementalRunner) tolerance(prec pagerank.Precision) float64 {
	if prec == pagerank.Float32 {
		return r.cfg.FloatTolerance
	}
	return r.cfg.OracleTolerance
}

// runFrom runs e from start (nil: cold) safely: errors, panics and
// non-finite values come back as an error (see run).
func runFrom(ctx context.Context, e Entry, g *pagerank.Graph, p pagerank.Params, start []float64) (*pagerank.Result, error) {
	ws, ok := e.Impl.(pagerank.WarmStarter)
	if !ok {
		return nil, fmt.Errorf("%s has no warm start", e.Impl.Name())
	}
	res, err := safeCall(func() (*pagerank.Result, error) { return pagerank.RunFromContext(ctx, ws, g, p, start) })
	return stamp(res, err, e, g)
}

// WarmStart is the warm-start vector for a graph of n nodes from the ranks
// before a batch (length n0 <= n): the old ranks, 1/n for each of the
// n - n0 new nodes, the whole vector divided by its sum so it sums to 1.
func WarmStart(prev []float64, n int) []float64 {
	x := make([]float64, n)
	copy(x, prev)
	for i := len(prev); i < n; i++ {
		x[i] = 1 / float64(n)
	}
	sum := 0.0
	for _, v := range x {
		sum += v
	}
	for i := range x {
		x[i] /= sum
	}
	return x
}

// snapshotInput is one batch ready to measure: the graph before it, the
// batch, and how the cold path rebuilds the graph after it.
type snapshotInput struct {
	workload string
	row      report.BatchRow
	before   *pagerank.Graph
	batch    *pagerank.Batch
	rebuild  func() (*pagerank.Graph, error)
	// prev[name] is each tier's converged ranks on before.
	prev map[string][]float64
}

// measured is what measuring one batch leaves for the next one.
type measured struct {
	after  *pagerank.Graph
	oracle *pagerank.Result
	warm   map[string][]float64 // each tier's warm-start ranks on after
}

// measureBatch measures one batch: update vs rebuild, the oracle on the new
// snapshot, and every tier's warm and cold recompute.
func (r *incrementalRunner) measureBatch(in snapshotInput) (*measured, error) {
	ctx, cfg := r.ctx, r.cfg
	b := in.row
	b.Workload = in.workload
	b.NBefore, b.NNZBefore = in.before.N, in.before.NNZ
	b.Requested = len(in.batch.Inserts) + len(in.batch.Deletes)
	type applied struct {
		g  *pagerank.Graph
		st pagerank.BatchStats
	}
	upd, a, err := timeIt(ctx, cfg.Warmups, cfg.Runs, func() (applied, error) {
		g, st, err := pagerank.ApplyBatch(in.before, in.batch, cfg.Workers)
		return applied{g, st}, err
	})
	if err != nil {
		return nil, fmt.Errorf("batch %s of %s: %w", in.batch.Name, in.workload, err)
	}
	after := a.g
	b.BatchStats = a.st
	b.Update = upd
	reb, rebuilt, err := timeIt(ctx, cfg.Warmups, cfg.Runs, in.rebuild)
	if err != nil {
		return nil, fmt.Errorf("rebuild after batch %s of %s: %w", in.batch.Name, in.workload, err)
	}
	b.Rebuild = reb
	b.UpdateSpeedup = report.F(reb.MedianMs / upd.MedianMs)
	b.N, b.NNZ, b.Dangling = after.N, after.NNZ, after.DanglingCount
	if err := pagerank.CompareStructure(after, rebuilt); err != nil {
		b.Mismatch = err.Error()
	} else {
		b.MatchesRebuild = true
	}
	rebuilt = nil

	// The reference: the oracle's cold start on the new snapshot.
	oracle, oerr := run(ctx, Entry{r.oracle, report.KindCPU}, after, pagerank.Converge(cfg.OracleTolerance, cfg.MaxIterations))
	if oerr != nil {
		r.note("oracle failed on %s batch %s: %v", in.workload, in.batch.Name, oerr)
	} else {
		b.OracleIterations = oracle.Iterations
		if prev := in.prev[OracleName]; prev != nil {
			x := WarmStart(prev, after.N)
			b.DanglingMass = report.F(after.DanglingMass(x))
			b.DanglingMassRebuild = b.DanglingMass
		}
	}
	r.out.Batches = append(r.out.Batches, b)
	m := &measured{after: after, oracle: oracle, warm: map[string][]float64{}}
	if oracle != nil {
		m.warm[OracleName] = oracle.Ranks
	}
	line := fmt.Sprintf("%-12s %-16s n=%-8d nnz=%-9d +%d -%d (dup %d, absent %d, self-loops %d) update %s ms, rebuild %s ms, equal %v",
		in.workload, in.batch.Name, b.N, b.NNZ, b.Inserted, b.Deleted, b.DuplicateInserts, b.AbsentDeletes, b.SelfLoops,
		report.Ms(2, upd.MedianMs), report.Ms(2, reb.MedianMs), b.MatchesRebuild)
	r.progress("%s", line)

	for _, e := range r.tiers {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("interrupted: %w", err)
		}
		row, warm, err := r.tierRow(e, b, in.before, after, in.batch, in.prev[e.Impl.Name()], oracle, oerr)
		if err != nil {
			return nil, err
		}
		if warm != nil {
			m.warm[e.Impl.Name()] = warm
		}
		r.out.Rows = append(r.out.Rows, row)
		if skippedForGPU(row.Status, row.Reason, r.out.GPUSkipped) {
			continue // said once, before the first batch
		}
		dev := ""
		if d := row.DeviceMs; d != nil {
			dev = fmt.Sprintf(" [by events: update %s, warm %s, cold %s ms]", report.Ms(2, float64(d.UpdateMs)), report.Ms(2, float64(d.WarmMs)), report.Ms(2, float64(d.ColdMs)))
		}
		r.progress("  %-18s %-7s warm %3d it %9s ms, cold %3d it %9s ms; incremental %9s ms vs recompute %9s ms: %6.2fx%s %s",
			row.Implementation, row.Status, row.WarmIterations, report.Ms(2, row.Warm.MedianMs), row.ColdIterations, report.Ms(2, row.Cold.MedianMs),
			report.Ms(2, float64(row.IncrementalMs)), report.Ms(2, float64(row.RecomputeMs)), float64(row.Speedup), dev, firstLine(row.Reason))
	}
	return m, nil
}

// gateCheck turns a validation into a GateCheck.
func gateCheck(against string, v pagerank.Validation) report.GateCheck {
	c := report.GateCheck{Against: against, ErrOverTol: report.F(v.ErrOverTol), SumAndSpearman: report.SumAndSpearmanOf(v),
		Pass: v.Pass && v.Problem == ""}
	switch {
	case v.Problem != "":
		c.Reason = v.Problem
	case !v.Pass:
		c.Reason = failedGates(v)
	}
	return c
}

// recompute is what one implementation's measurement of one batch gives:
// update and upload times (ms), warm and cold timings and their last results.
type recompute struct {
	updateMs, loadMs float64
	warmT, coldT     pagerank.Timing
	warm, cold       *pagerank.Result
	device           *report.DeviceTimes // a resident session's CUDA-event medians, if it keeps them
}

// deviceTimed is a pagerank.Session that keeps the CUDA-event time of its
// last Apply and its last RunFrom (cudabind.DeviceSession).
type deviceTimed interface {
	LastMs() (update, run float64)
}

// hostRecompute measures a host tier (pagerank.WarmStarter): the update is
// the batch's host update (already timed), nothing is uploaded, and warm and
// cold starts run on the updated graph.
func (r *incrementalRunner) hostRecompute(e Entry, b report.BatchRow, g *pagerank.Graph, p pagerank.Params, start []float64) (*recompute, error) {
	cfg := r.cfg
	rc := &recompute{updateMs: b.Update.MedianMs}
	var err error
	rc.warmT, rc.warm, err = timeIt(r.ctx, cfg.Warmups, cfg.Runs, func() (*pagerank.Result, error) { return runFrom(r.ctx, e, g, p, start) })
	if err != nil {
		return nil, fmt.Errorf("warm start: %w", err)
	}
	rc.coldT, rc.cold, err = timeIt(r.ctx, cfg.Warmups, cfg.Runs, func() (*pagerank.Result, error) { return runFrom(r.ctx, e, g, p, nil) })
	if err != nil {
		return nil, fmt.Errorf("cold start: %w", err)
	}
	return rc, nil
}

// residentRecompute measures a resident tier (pagerank.Resident, e.g. a
// GPU holding the graph in device memory): each timed update opens a session
// on the graph before the batch (untimed) and times Session.Apply; the warm
// start runs on the last updated session; the cold path times Open of the
// rebuilt graph (the upload) and the cold start on it. The session's batch
// counts must equal the host's.
func (r *incrementalRunner) residentRecompute(e Entry, res pagerank.Resident, b report.BatchRow, before, after *pagerank.Graph, batch *pagerank.Batch, p pagerank.Params, start []float64) (rc *recompute, err error) {
	cfg := r.cfg
	rc = &recompute{}
	var held []pagerank.Session
	defer func() {
		for _, s := range held {
			if cerr := s.Close(); cerr != nil && err == nil {
				err = fmt.Errorf("close: %w", cerr)
			}
		}
	}()
	open := func(g *pagerank.Graph) (pagerank.Session, error) {
		s, err := safeCall(func() (pagerank.Session, error) { return res.Open(g) })
		if err == nil {
			held = append(held, s)
		}
		return s, err
	}
	var updated pagerank.Session
	var samples, devUpdate, devWarm, devCold []float64
	for i := 0; i < cfg.Warmups+cfg.Runs; i++ {
		if err := r.ctx.Err(); err != nil {
			return nil, fmt.Errorf("interrupted: %w", err)
		}
		s, err := open(before)
		if err != nil {
			return nil, fmt.Errorf("open the graph before the batch: %w", err)
		}
		t0 := time.Now()
		st, err := safeCall(func() (pagerank.BatchStats, error) { return s.Apply(batch) })
		elapsed := time.Since(t0)
		if err != nil {
			return nil, fmt.Errorf("update: %w", err)
		}
		if st != b.BatchStats {
			return nil, fmt.Errorf("update: the session counted %+v, the host %+v", st, b.BatchStats)
		}
		if i >= cfg.Warmups {
			samples = append(samples, ms(elapsed))
			if dt, ok := s.(deviceTimed); ok {
				u, _ := dt.LastMs()
				devUpdate = append(devUpdate, u)
			}
		}
		updated = s
	}
	rc.updateMs = pagerank.NewTiming(0, cfg.Warmups, samples, "wall").MedianMs
	// runTimed is one RunFrom on s, its CUDA-event time appended to *dev.
	runTimed := func(s pagerank.Session, start []float64, dev *[]float64) (*pagerank.Result, error) {
		res, err := safeCall(func() (*pagerank.Result, error) { return s.RunFrom(p, start) })
		if dt, ok := s.(deviceTimed); ok && err == nil {
			_, run := dt.LastMs()
			*dev = append(*dev, run)
		}
		return stamp(res, err, e, after)
	}
	rc.warmT, rc.warm, err = timeIt(r.ctx, cfg.Warmups, cfg.Runs, func() (*pagerank.Result, error) {
		return runTimed(updated, start, &devWarm)
	})
	if err != nil {
		return nil, fmt.Errorf("warm start: %w", err)
	}
	loadT, fresh, err := timeIt(r.ctx, cfg.Warmups, cfg.Runs, func() (pagerank.Session, error) { return open(after) })
	if err != nil {
		return nil, fmt.Errorf("upload of the rebuilt graph: %w", err)
	}
	rc.loadMs = loadT.MedianMs
	rc.coldT, rc.cold, err = timeIt(r.ctx, cfg.Warmups, cfg.Runs, func() (*pagerank.Result, error) {
		return runTimed(fresh, nil, &devCold)
	})
	if err != nil {
		return nil, fmt.Errorf("cold start: %w", err)
	}
	if len(devUpdate) > 0 {
		// The median of v after its first skip samples (timeIt's untimed warm-ups).
		med := func(v []float64, skip int) report.F {
			if len(v) <= skip {
				return report.NaN
			}
			return report.F(pagerank.NewTiming(0, 0, v[skip:], "cuda-events").MedianMs)
		}
		rc.device = &report.DeviceTimes{UpdateMs: med(devUpdate, 0), WarmMs: med(devWarm, cfg.Warmups), ColdMs: med(devCold, cfg.Warmups)}
	}
	return rc, nil
}

// tierRow measures one implementation on one batch (before -> after by
// batch) and grades it. An implementation failing is recorded in its row;
// only a cancelled ctx is an error.
func (r *incrementalRunner) tierRow(e Entry, b report.BatchRow, before, g *pagerank.Graph, batch *pagerank.Batch, prev []float64, oracle *pagerank.Result, oerr error) (report.IncrementalRow, []float64, error) {
	cfg := r.cfg
	name := e.Impl.Name()
	tol := r.tolerance(e.Impl.Precision())
	row := report.IncrementalRow{BatchID: b.BatchID, BatchKind: b.Kind, Fraction: b.Fraction, Year: b.Year,
		GraphSize: report.SizeOf(g), Identity: e.Identity(), Tolerance: tol,
		UpdateMs: report.NaN, BuildMs: report.F(b.Rebuild.MedianMs), LoadMs: report.NaN,
		IncrementalMs: report.NaN, RecomputeMs: report.NaN, Speedup: report.NaN, IterationRatio: report.NaN}
	fail := func(status, why string) (report.IncrementalRow, []float64, error) {
		row.Status, row.Reason = status, why
		return row, nil, nil
	}
	if why := r.avail[name]; why != "" {
		return fail(report.StatusSkipped, why)
	}
	if prev == nil {
		return fail(report.StatusFailed, "no ranks before the batch to start from (the previous run failed)")
	}
	p := pagerank.Converge(tol, cfg.MaxIterations)
	start := WarmStart(prev, g.N)
	var rc *recompute
	var err error
	if res, ok := e.Impl.(pagerank.Resident); ok {
		rc, err = r.residentRecompute(e, res, b, before, g, batch, p, start)
	} else {
		rc, err = r.hostRecompute(e, b, g, p, start)
	}
	if err != nil {
		if r.ctx.Err() != nil {
			return row, nil, err
		}
		return fail(report.StatusFailed, err.Error())
	}
	warm, cold := rc.warm, rc.cold
	rc.warmT.Iterations, rc.coldT.Iterations = warm.Iterations, cold.Iterations
	row.Warm, row.Cold = rc.warmT, rc.coldT
	row.UpdateMs, row.LoadMs = report.F(rc.updateMs), report.F(rc.loadMs)
	row.DeviceMs = rc.device
	row.WarmIterations, row.ColdIterations = warm.Iterations, cold.Iterations
	row.WarmConverged, row.ColdConverged = warm.Converged, cold.Converged
	row.IncrementalMs = report.F(rc.updateMs + rc.warmT.MedianMs)
	row.RecomputeMs = report.F(b.Rebuild.MedianMs + rc.loadMs + rc.coldT.MedianMs)
	row.Speedup = row.RecomputeMs / row.IncrementalMs
	row.IterationRatio = report.F(float64(warm.Iterations) / float64(max(cold.Iterations, 1)))
	row.Agreement = gateCheck("cold start", pagerank.Validate(g, warm, cold))
	if oerr != nil {
		row.WarmCheck = report.GateCheck{Against: OracleName, Reason: "no oracle result: " + oerr.Error(), ErrOverTol: report.NaN, SumAndSpearman: report.Unvalidated(report.NaN)}
		row.ColdCheck = row.WarmCheck
	} else {
		row.WarmCheck = gateCheck(OracleName, pagerank.Validate(g, warm, oracle))
		row.ColdCheck = gateCheck(OracleName, pagerank.Validate(g, cold, oracle))
	}
	var why []string
	if !warm.Converged {
		why = append(why, fmt.Sprintf("warm start did not converge in %d iterations (residual %.3g)", warm.Iterations, warm.FinalResidual()))
	}
	if !cold.Converged {
		why = append(why, fmt.Sprintf("cold start did not converge in %d iterations (residual %.3g)", cold.Iterations, cold.FinalResidual()))
	}
	for _, c := range []struct {
		what string
		g    report.GateCheck
	}{{"warm vs oracle", row.WarmCheck}, {"cold vs oracle", row.ColdCheck}, {"warm vs cold", row.Agreement}} {
		if !c.g.Pass {
			why = append(why, c.what+": "+c.g.Reason)
		}
	}
	row.Status = report.StatusPass
	if len(why) > 0 {
		row.Status, row.Reason = report.StatusFail, strings.Join(why, "; ")
	}
	return row, warm.Ranks, nil
}

// coldRanks runs every tier (and the oracle) cold on g to its tolerance:
// the ranks the first batch's warm start begins from.
func (r *incrementalRunner) coldRanks(g *pagerank.Graph) map[string][]float64 {
	prev := map[string][]float64{}
	for _, e := range append([]Entry{{r.oracle, report.KindCPU}}, r.tiers...) {
		name := e.Impl.Name()
		if r.avail[name] != "" {
			continue
		}
		res, err := coldRun(r.ctx, e, g, pagerank.Converge(r.tolerance(e.Impl.Precision()), r.cfg.MaxIterations))
		if err != nil {
			r.note("%s failed on the base graph %s: %v", name, g.Name, err)
			continue
		}
		prev[name] = res.Ranks
	}
	return prev
}

// coldRun runs e cold on g: through RunFrom, or for a resident tier
// through a session opened and closed for it.
func coldRun(ctx context.Context, e Entry, g *pagerank.Graph, p pagerank.Params) (*pagerank.Result, error) {
	res, ok := e.Impl.(pagerank.Resident)
	if !ok {
		return runFrom(ctx, e, g, p, nil)
	}
	s, err := safeCall(func() (pagerank.Session, error) { return res.Open(g) })
	if err != nil {
		return nil, err
	}
	defer s.Close()
	out, err := safeCall(func() (*pagerank.Result, error) { return s.RunFrom(p, nil) })
	return stamp(out, err, e, g)
}

// byYear runs the by-year workload.
func (r *incrementalRunner) byYear() error {
	cfg := r.cfg
	yg, err := pagerank.LoadYearlyGraph(r.ctx, cfg.GraphName, cfg.EdgeList, cfg.Papers)
	if err != nil {
		return fmt.Errorf("by year: %w", err)
	}
	first, err := yg.FirstYear(cfg.MinPapers)
	if err != nil {
		return fmt.Errorf("by year: %w", err)
	}
	years := yg.YearsBetween(first, cfg.LastYear)
	if len(years) == 0 {
		return fmt.Errorf("by year: last year %d leaves no batch: the first snapshot is %d (the first year with at least %d papers); pick a later last year", cfg.LastYear, first, cfg.MinPapers)
	}
	lastYear := years[len(years)-1] // the data's last year when cfg.LastYear lies beyond it
	t0 := time.Now()
	g, err := yg.Snapshot(first, cfg.Workers)
	if err != nil {
		return fmt.Errorf("by year: %w", err)
	}
	w := report.Workload{Name: cfg.GraphName + "-by-year", Kind: report.WorkloadByYear, Graph: g.Name, N: g.N, NNZ: g.NNZ, BuildMs: ms(time.Since(t0)),
		Source: fmt.Sprintf("%s with the years of %s", cfg.EdgeList, cfg.Papers),
		Note: fmt.Sprintf("first snapshot %d (the first year with at least %d papers: %d); an edge enters in the later of its two papers' years (%d citations of a later-dated paper)",
			first, cfg.MinPapers, yg.PapersIn(first), yg.Forward)}
	r.out.Workloads = append(r.out.Workloads, w)
	r.progress("%s: %s; %d batches to %d", w.Name, g.Summary(), len(years), lastYear)
	prev := r.coldRanks(g)
	var prevTop []int
	if x := prev[OracleName]; x != nil {
		prevTop = r.yearTop(g, first, yg.PapersIn(first), &pagerank.Result{Ranks: x}, nil, yg.Papers)
	}
	from := first
	for _, yr := range yg.YearsBetween(first, cfg.LastYear) {
		if err := r.ctx.Err(); err != nil {
			return fmt.Errorf("interrupted: %w", err)
		}
		batch := yg.Batch(from, yr)
		row := report.BatchRow{BatchID: report.BatchID{Batch: batch.Name}, Kind: report.BatchYear, Year: yr,
			Fraction: report.F(float64(len(batch.Inserts)) / float64(max(g.NNZ, 1)))}
		m, err := r.measureBatch(snapshotInput{workload: w.Name, row: row, before: g, batch: batch, prev: prev,
			rebuild: func() (*pagerank.Graph, error) { return yg.SnapshotContext(r.ctx, yr, cfg.Workers) }})
		if err != nil {
			return err
		}
		if m.oracle != nil {
			prevTop = r.yearTop(m.after, yr, yg.PapersIn(yr), m.oracle, prevTop, yg.Papers)
		}
		g, prev, from = m.after, m.warm, yr
	}
	return nil
}

// yearTop records the top 20 of a year's snapshot and what entered and left
// it since the top before (nil for the first year); it returns this top.
func (r *incrementalRunner) yearTop(g *pagerank.Graph, year, newPapers int, oracle *pagerank.Result, before []int, papers *pagerank.Papers) []int {
	top := pagerank.TopK(oracle.Ranks, TopRows)
	y := report.YearTop{Year: year, N: g.N, NNZ: g.NNZ, NewPapers: newPapers}
	for i, v := range top {
		id := g.ID(v)
		t := report.TopRow{Rank: i + 1, Score: oracle.Ranks[v], InDegree: g.InDegree(v), OutDegree: int(g.OutDegree[v]), ID: id}
		if p, ok := papers.Lookup(id); ok {
			t.Year, t.Title, t.Known = p.Year, p.Title, true
		}
		y.Top = append(y.Top, t)
		if before != nil && !slices.Contains(before, v) {
			y.Entered = append(y.Entered, id)
		}
	}
	for _, v := range before {
		if !slices.Contains(top, v) {
			y.Left = append(y.Left, g.ID(v))
		}
	}
	r.out.Years = append(r.out.Years, y)
	return top
}

// random runs every random batch kind and size on g, each applied to g itself.
func (r *incrementalRunner) random(w report.Workload, g *pagerank.Graph) error {
	cfg := r.cfg
	r.out.Workloads = append(r.out.Workloads, w)
	r.progress("%s: %s (built in %.0f ms)", w.Name, g.Summary(), w.BuildMs)
	prev := r.coldRanks(g)
	for _, kind := range cfg.Kinds {
		for _, f := range cfg.Fractions {
			if err := r.ctx.Err(); err != nil {
				return fmt.Errorf("interrupted: %w", err)
			}
			batch, err := pagerank.RandomBatch(g, kind, f, cfg.Seed)
			if err != nil {
				return err
			}
			row := report.BatchRow{BatchID: report.BatchID{Batch: batch.Name}, Kind: kind, Fraction: report.F(f)}
			// The rebuild's input, prepared untimed: the edge list after the batch.
			after, _, err := pagerank.ApplyBatch(g, batch, cfg.Workers)
			if err != nil {
				return err
			}
			src, dst := after.Edges()
			n, ids := after.N, after.IDs
			after = nil
			rebuild := func() (*pagerank.Graph, error) {
				return pagerank.NewGraphParallelContext(r.ctx, g.Name, n, src, dst, ids, cfg.Workers)
			}
			if _, err := r.measureBatch(snapshotInput{workload: w.Name, row: row, before: g, batch: batch, prev: prev, rebuild: rebuild}); err != nil {
				return err
			}
		}
	}
	return nil
}

// finish derives the crossovers and the findings from the rows so far.
func (r *incrementalRunner) finish(complete bool) {
	r.out.Crossovers = Crossovers(r.out)
	r.out.Findings = IncrementalFindings(r.out)
	r.out.ElapsedS = r.cfg.Now().Sub(r.start).Seconds()
	r.out.Complete = complete
}

// Crossovers finds, per random workload, implementation and batch kind,
// the batch sizes between which the speed-up (passing rows only) falls
// below 1: Above is the smallest measured fraction with a speed-up under
// 1, Below the largest smaller fraction with a speed-up of at least 1.
func Crossovers(s *report.IncrementalStudy) []report.Crossover {
	var keys []report.Series
	pts := map[report.Series][]report.IncrementalRow{}
	for _, x := range s.Rows {
		if x.BatchKind == report.BatchYear || x.Status != report.StatusPass || !x.Speedup.Valid() {
			continue
		}
		k := x.Series()
		if _, ok := pts[k]; !ok {
			keys = append(keys, k)
		}
		pts[k] = append(pts[k], x)
	}
	out := []report.Crossover{} // [] in incremental.json, not null
	for _, k := range keys {
		rows := pts[k]
		sort.SliceStable(rows, func(a, b int) bool { return rows[a].Fraction < rows[b].Fraction })
		c := report.Crossover{Series: k, Below: report.NaN, Above: report.NaN}
		for _, x := range rows {
			if x.Speedup < 1 {
				c.Above = x.Fraction
				break
			}
			c.Below = x.Fraction
		}
		pct := func(f report.F) string { return pagerank.FractionText(float64(f)) }
		at := func(f report.F) report.F {
			for _, x := range rows {
				if x.Fraction == f {
					return x.Speedup
				}
			}
			return report.NaN
		}
		switch {
		case !c.Above.Valid():
			last := rows[len(rows)-1]
			c.Text = fmt.Sprintf("no crossover: speed-up >= 1 at every measured size up to %s (%.2fx there)", pct(last.Fraction), float64(last.Speedup))
		case !c.Below.Valid():
			c.Text = fmt.Sprintf("below 1 already at the smallest size, %s (%.2fx)", pct(c.Above), float64(at(c.Above)))
		default:
			c.Text = fmt.Sprintf("speed-up falls below 1 between %s (%.2fx) and %s (%.2fx) of the edges", pct(c.Below), float64(at(c.Below)), pct(c.Above), float64(at(c.Above)))
		}
		out = append(out, c)
	}
	return out
}

// IncrementalFindings is the summary: per by-year workload and
// implementation the iterations and speed-ups over the years; per random
// workload, kind and implementation the speed-up at the smallest and
// largest batch; whether every update equalled its rebuild.
func IncrementalFindings(s *report.IncrementalStudy) []string {
	var out []string
	equal, total := 0, len(s.Batches)
	for _, b := range s.Batches {
		if b.MatchesRebuild {
			equal++
		}
	}
	if total > 0 {
		if equal == total {
			out = append(out, fmt.Sprintf("Every one of the %d batches merged into the CSRs gave exactly the graph a rebuild gives (both CSRs, out-degrees, 1/outdeg, the dangling set).", total))
		} else {
			out = append(out, fmt.Sprintf("%d of %d batches gave a graph that differs from the rebuild (see the batch table).", total-equal, total))
		}
	}
	type key struct{ w, impl string }
	var keys []key
	groups := map[key][]report.IncrementalRow{}
	for _, x := range s.Rows {
		if x.Status != report.StatusPass || x.BatchKind != report.BatchYear {
			continue
		}
		k := key{x.Workload, x.Implementation}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], x)
	}
	medianOf := func(xs []float64) float64 {
		slices.Sort(xs)
		if len(xs) == 0 {
			return math.NaN()
		}
		if len(xs)%2 == 1 {
			return xs[len(xs)/2]
		}
		return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
	}
	for _, k := range keys {
		rows := groups[k]
		var wi, ci, sp, fr []float64
		for _, x := range rows {
			wi, ci = append(wi, float64(x.WarmIterations)), append(ci, float64(x.ColdIterations))
			sp, fr = append(sp, float64(x.Speedup)), append(fr, float64(x.Fraction))
		}
		lo, hi := slices.Min(sp), slices.Max(sp)
		out = append(out, fmt.Sprintf("%s, %s: over %d yearly batches (median batch %s of the edges), the warm start needed a median %.0f iterations against %.0f cold (ratio %.2f); update + warm start was %.2fx as fast as rebuild + cold start (median; %.2fx to %.2fx).",
			k.w, k.impl, len(rows), fmt.Sprintf("%.3g%%", 100*medianOf(fr)), medianOf(wi), medianOf(ci), medianOf(wi)/medianOf(ci), medianOf(sp), lo, hi))
	}
	for _, c := range Crossovers(s) {
		out = append(out, fmt.Sprintf("%s, %s batches, %s: %s.", c.Workload, c.BatchKind, c.Implementation, c.Text))
	}
	failed, skipped := 0, 0
	for _, x := range s.Rows {
		switch x.Status {
		case report.StatusPass:
		case report.StatusSkipped:
			skipped++
		default:
			failed++
		}
	}
	if failed > 0 {
		out = append(out, fmt.Sprintf("%d of %d rows did not pass (see their reasons).", failed, len(s.Rows)))
	}
	if skipped > 0 {
		out = append(out, fmt.Sprintf("%d of %d rows were skipped (an implementation not available here, e.g. a GPU tier without the CUDA library; see their reasons).", skipped, len(s.Rows)))
	}
	return out
}
