package study

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/prlab/prlab/pkg/pagerank"
	"github.com/prlab/prlab/pkg/report"
)

// RealCase is the alias --cases accepts for the graph file's case, whatever
// its name: the real graph, or a user's graph (prlab report --graph).
const RealCase = "real"

// TopRows is how many rows the top table shows (the course prints 20).
const TopRows = 20

// Config is one study run. Zero numeric fields take the course protocol's
// values from pkg/pagerank (100 fixed iterations; 50 timed iterations, 3
// warm-ups, 10 runs; tolerances 1e-6 float32 and 1e-12 float64).
type Config struct {
	Name       string               // run name (the report directory's base name)
	EdgeList   string               // the real graph's file, e.g. data/aan/acl.txt.gz (any pagerank.Format)
	Load       pagerank.LoadOptions // how to read it: format ("" = sniffed), undirected, csv/tsv columns
	GraphName  string               // the real graph's case name, e.g. "aan"
	Papers     string               // metadata table (id and any of year, title, label; TSV or .csv); "" for none
	Datasets   []string
	Cases      []string // case names to run (synthetic names, the real graph's name or "real"); empty = all
	Impls      []string // implementation names; empty = all (the oracle always runs)
	Iterations int      // fixed iterations for correctness, in [1, pagerank.MaxIterationsCap]

	TimingIterations int
	Warmups          int
	Runs             int
	FloatTolerance   float64
	OracleTolerance  float64
	MaxIterations    int  // cap in tolerance mode
	KeepRanks        bool // keep every rank vector in the Results (large); otherwise ranks are dropped
	Workers          int  // T1 worker goroutines (0: GOMAXPROCS); used when Entries is nil, recorded in the Protocol

	Entries  []Entry // the implementations; nil = RegistryWorkers(GPU, Workers)
	GPU      GPU     // nil = no GPU support in this binary
	Progress io.Writer
	Now      func() time.Time
}

func (c *Config) defaults() {
	c.GraphName = cmp.Or(c.GraphName, "aan")
	c.Name = cmp.Or(c.Name, "latest")
	c.Iterations = cmp.Or(c.Iterations, pagerank.CorrectnessIterations)
	c.TimingIterations = cmp.Or(c.TimingIterations, pagerank.TimingIterations)
	c.Warmups = cmp.Or(c.Warmups, pagerank.TimingWarmups)
	c.Runs = cmp.Or(c.Runs, pagerank.TimingRuns)
	c.FloatTolerance = cmp.Or(c.FloatTolerance, pagerank.FloatTolerance)
	c.OracleTolerance = cmp.Or(c.OracleTolerance, pagerank.OracleTolerance)
	c.MaxIterations = cmp.Or(c.MaxIterations, 1000)
	defaultIO(&c.Progress, &c.Now)
	if c.Entries == nil {
		c.Entries = RegistryWorkers(c.GPU, c.Workers)
	}
}

// defaultIO is every study's default progress writer (none: io.Discard)
// and clock (none: time.Now).
func defaultIO(progress *io.Writer, now *func() time.Time) {
	if *progress == nil {
		*progress = io.Discard
	}
	if *now == nil {
		*now = time.Now
	}
}

// Validate rejects a configuration out of range; messages give the valid range.
func (c *Config) Validate() error {
	lim := pagerank.MaxIterationsCap
	switch {
	case c.EdgeList == "" && c.WantsRealGraph():
		return errors.New("no edge list given (the real graph, e.g. data/aan/acl.txt.gz)")
	case c.Iterations < 1 || c.Iterations > lim:
		return fmt.Errorf("iterations %d out of range: must be in [1, %d]", c.Iterations, lim)
	case c.TimingIterations < 1 || c.TimingIterations > lim:
		return fmt.Errorf("timing iterations %d out of range: must be in [1, %d]", c.TimingIterations, lim)
	case c.Warmups < 0 || c.Warmups > 1000:
		return fmt.Errorf("warm-ups %d out of range: must be in [0, 1000]", c.Warmups)
	case c.Runs < 1 || c.Runs > 1000:
		return fmt.Errorf("runs %d out of range: must be in [1, 1000]", c.Runs)
	case c.MaxIterations < 1 || c.MaxIterations > lim:
		return fmt.Errorf("max iterations %d out of range: must be in [1, %d]", c.MaxIterations, lim)
	case !(c.FloatTolerance > 0 && c.FloatTolerance < 1):
		return fmt.Errorf("float tolerance %v out of range: must be in (0, 1), e.g. 1e-6", c.FloatTolerance)
	case !(c.OracleTolerance > 0 && c.OracleTolerance < 1):
		return fmt.Errorf("oracle tolerance %v out of range: must be in (0, 1), e.g. 1e-12", c.OracleTolerance)
	}
	valid := CaseNames(c.GraphName)
	for _, n := range c.Cases {
		if !slices.Contains(valid, n) && n != RealCase {
			return fmt.Errorf("unknown case %q: valid cases are %s (or %q for %s)", n, strings.Join(valid, ", "), RealCase, c.graphSummary().Called())
		}
	}
	if _, err := Select(c.Entries, c.Impls); err != nil {
		return err
	}
	return nil
}

// graphSummary is what the configuration says of its graph before it is
// read: its case name and file, enough for GraphSummary.Called (the real
// graph, or a user's graph by name).
func (c *Config) graphSummary() report.GraphSummary {
	return report.GraphSummary{Name: cmp.Or(c.GraphName, "aan"), Path: c.EdgeList}
}

// WantsRealGraph reports whether the selected cases include the real graph
// (no --cases, its name, or "real"). A run without it reads no graph file.
func (c *Config) WantsRealGraph() bool {
	real := c.GraphName
	if real == "" {
		real = "aan"
	}
	return len(c.Cases) == 0 || slices.Contains(c.Cases, real) || slices.Contains(c.Cases, RealCase)
}

// CaseNames is the six synthetic case names followed by the real graph's.
func CaseNames(real string) []string {
	return append(slices.Clone(pagerank.SyntheticCaseNames), real)
}

// runner carries the state of one Run.
type runner struct {
	cfg     Config
	out     *report.Run
	entries []Entry
	avail   map[string]string // name -> "" or why unavailable
	oracle  pagerank.Implementation
	cols    columns // progress line widths, sized to the longest name and number
}

// columns are the widths of the progress lines' columns.
type columns struct{ impl, cas, n, nnz int }

func newColumns(entries []Entry, cases []*pagerank.Graph) columns {
	var c columns
	for _, e := range entries {
		c.impl = max(c.impl, len(e.Impl.Name()))
	}
	for _, g := range cases {
		c.cas = max(c.cas, len(g.Name))
		c.n = max(c.n, len(fmt.Sprint(g.N)))
		c.nnz = max(c.nnz, len(fmt.Sprint(g.NNZ)))
	}
	return c
}

// Run executes the study. It returns an error only when nothing useful can
// be reported: a bad Config, the real graph failing to load, or ctx being
// cancelled (an interrupted run writes nothing). Failures of single
// implementations, the oracle included, are recorded in their rows.
func Run(ctx context.Context, cfg Config) (*report.Run, error) {
	cfg.defaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	entries, _ := Select(cfg.Entries, cfg.Impls)
	r := &runner{cfg: cfg, entries: entries, avail: map[string]string{}}
	p := cfg.Progress

	var g *pagerank.Graph // nil when only synthetic cases run: no graph file is read
	var info pagerank.LoadInfo
	if cfg.WantsRealGraph() {
		var err error
		if g, info, err = pagerank.LoadGraphContext(ctx, cfg.EdgeList, cfg.GraphName, cfg.Load); err != nil {
			called := cfg.graphSummary().Called()
			if ctx.Err() != nil {
				return nil, fmt.Errorf("interrupted while loading %s: %w", called, ctx.Err())
			}
			return nil, fmt.Errorf("load %s: %w", called, err)
		}
		fmt.Fprintln(p, g.Summary())
		for _, n := range info.Notes {
			fmt.Fprintf(p, "  %s: %s\n", cfg.EdgeList, n)
		}
	}

	// The metadata is read before the checksums are taken: a piped file
	// is hashed while it is read (report.FileChecksum), never twice.
	var papers *pagerank.Papers
	if cfg.Papers != "" && g != nil {
		var err error
		if papers, err = pagerank.LoadPapers(cfg.Papers); err != nil {
			return nil, fmt.Errorf("load paper metadata: %w", err)
		}
	}
	env, err := report.CollectEnvironment(cfg.Now(), cfg.Datasets)
	if err != nil {
		return nil, err
	}
	r.out = &report.Run{
		Schema: report.Schema,
		Name:   cfg.Name,
		Env:    env,
		Protocol: report.Protocol{
			Damping: pagerank.DefaultDamping, Iterations: cfg.Iterations, TimingIterations: cfg.TimingIterations,
			Warmups: cfg.Warmups, Runs: cfg.Runs, FloatTolerance: cfg.FloatTolerance, OracleTolerance: cfg.OracleTolerance,
			MaxIterations: cfg.MaxIterations, Oracle: OracleName, SpearmanTopK: pagerank.SpearmanTopK, SpearmanGate: pagerank.SpearmanGate,
			Workers: ResolveWorkers(cfg.Workers),
		},
	}
	if g != nil {
		r.out.Graph = report.GraphSummary{Name: g.Name, Path: cfg.EdgeList, Nodes: g.N, Edges: g.NNZ, SelfLoops: g.SelfLoops,
			Duplicates: g.Duplicates, Dangling: g.DanglingCount, Line: g.Summary(), Format: string(info.Format), LoadNotes: info.Notes,
			Undirected: cfg.Load.Undirected, Columns: cfg.Load.Columns}
		for i := range r.out.Env.Datasets {
			if r.out.Env.Datasets[i].File == filepath.ToSlash(cfg.EdgeList) {
				r.out.Env.Datasets[i].Format = string(info.Format)
			}
		}
	}
	if papers != nil {
		in, out := papers.Coverage(g)
		r.out.Graph.MetadataPath, r.out.Graph.WithMetadata, r.out.Graph.MetadataNotInGraph = cfg.Papers, in, out
		r.out.Graph.MetadataColumns = papers.Columns
		fmt.Fprintf(p, "metadata for %d of %d nodes from %s (%d rows for ids outside the graph)\n", in, g.N, cfg.Papers, out)
	}

	for _, e := range entries {
		name := e.Impl.Name()
		why := Availability(e, cfg.GPU)
		r.avail[name] = why
		if name == OracleName {
			r.oracle = e.Impl
		}
		r.out.Implementations = append(r.out.Implementations, report.Impl{Name: name, Label: e.Impl.Label(), Kind: e.Kind,
			Precision: e.Impl.Precision(), Available: why == "", Reason: why})
	}
	if r.oracle == nil {
		return nil, fmt.Errorf("the registry has no %s implementation to validate against", OracleName)
	}
	r.gpuContext(g)
	if r.out.GPUSkipped != "" {
		fmt.Fprintln(p, gpuSkippedLine(entries, r.avail, r.out.GPUSkipped))
	}

	// Correctness: every selected case, fixed iterations.
	cases := r.cases(g)
	var shown []Entry // the rows printed one by one (not those counted in the GPU skip line)
	for _, e := range entries {
		if !r.gpuSkipped(report.StatusSkipped, r.avail[e.Impl.Name()]) {
			shown = append(shown, e)
		}
	}
	r.cols = newColumns(shown, cases)
	fmt.Fprintf(p, "correctness, %d fixed iterations on both sides\n", cfg.Iterations)
	for _, c := range cases {
		r.out.Cases = append(r.out.Cases, report.CaseSummary{Name: c.Name, N: c.N, NNZ: c.NNZ, Dangling: c.DanglingCount, Real: c == g})
		if err := r.correctness(ctx, c); err != nil {
			return nil, err
		}
	}
	if g != nil && slices.Contains(cases, g) {
		fmt.Fprintf(p, "case %s   %d nodes, %d edges\n", r.out.Graph.CaseLabel(), g.N, g.NNZ)
		if err := r.convergence(ctx, g, papers); err != nil {
			return nil, err
		}
		fmt.Fprintf(p, "timed on %s, %d iterations, %d warm-ups then %d runs\n", g.Name, cfg.TimingIterations, cfg.Warmups, cfg.Runs)
		ticks := report.ReadCPUTicks()
		if err := r.timing(ctx, g); err != nil {
			return nil, err
		}
		// Other processes' share of the cores while the rows were timed:
		// prlab verify cannot compare CPU timings taken on a busy machine.
		r.out.Env.OtherCPU = report.OtherCPUShare(ticks, report.ReadCPUTicks())
	}
	if cfg.GPU != nil && r.out.GPU != nil {
		in := report.TierInput{Baseline: cfg.GPU.Baseline()}
		if g == nil {
			// no real graph in this run: no write-budget check
		} else if wb, err := cfg.GPU.WriteBudget(g); err != nil {
			r.note("write budget check failed: %v", err)
		} else {
			in.WriteBudget = wb
		}
		r.out.Tiers = report.ComputeTiers(r.out, in)
	}
	if err := ctx.Err(); err != nil { // cancelled inside the last implementation's runs
		return nil, fmt.Errorf("interrupted: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("interrupted: %w", err)
	}
	if !cfg.KeepRanks {
		for i := range r.out.Results {
			r.out.Results[i].Ranks = nil
		}
	}
	return r.out, nil
}

func (r *runner) note(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	r.out.Notes = append(r.out.Notes, msg)
	fmt.Fprintln(r.cfg.Progress, "  note: "+msg)
}

// cases returns the selected synthetic cases (course order) and the real
// graph g (nil when it is not selected).
func (r *runner) cases(g *pagerank.Graph) []*pagerank.Graph {
	want := func(name string) bool {
		return len(r.cfg.Cases) == 0 || slices.Contains(r.cfg.Cases, name) ||
			(g != nil && name == g.Name && slices.Contains(r.cfg.Cases, RealCase))
	}
	var out []*pagerank.Graph
	for _, c := range pagerank.SyntheticCases() {
		if want(c.Name) {
			out = append(out, c)
		}
	}
	if g != nil && want(g.Name) {
		out = append(out, g)
	}
	return out
}

// gpuContext fills the GPU context and the copy rows, or the skip reason.
func (r *runner) gpuContext(g *pagerank.Graph) {
	ctx, why, err := openGPU(r.cfg.GPU)
	if why != "" {
		r.out.GPUSkipped = why
		if err != nil {
			r.note("GPU context failed: %v", err)
		}
		return
	}
	r.out.GPU = ctx
	fmt.Fprintf(r.cfg.Progress, "GPU: %s (compute capability %s)\n", ctx.Name, ctx.ComputeCapability)
}

// gpuSkipped reports whether a row was skipped for the run-wide GPU reason
// (counted once in gpuSkippedLine, not printed per row).
func (r *runner) gpuSkipped(status, reason string) bool {
	return skippedForGPU(status, reason, r.out.GPUSkipped)
}

// safeCall runs f, turning a panic into an error.
func safeCall[T any](f func() (T, error)) (v T, err error) {
	defer panicToError(&err)
	return f()
}

// safeCall2 is safeCall for a function of two results.
func safeCall2[A, B any](f func() (A, B, error)) (a A, b B, err error) {
	defer panicToError(&err)
	return f()
}

// panicToError, deferred, turns a panic of the calling function into the
// error *err: "panic: VALUE" and the first frames of the stack.
func panicToError(err *error) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("panic: %v\n%s", p, firstFrames(debug.Stack()))
	}
}

// firstFrames keeps a panic's stack short enough for a report cell.
func firstFrames(stack []byte) string {
	lines := strings.Split(string(stack), "\n")
	if len(lines) > 12 {
		lines = lines[:12]
	}
	return strings.Join(lines, "\n")
}

// run runs one implementation safely: an error, a panic, a nil Result, a
// Result carrying Err or a non-finite rank, residual or sum all come back as
// an error; the Result is stamped with
// the implementation's name and the case. ctx reaches the implementation's
// iterations (pagerank.RunContext): a cancelled run returns an error.
func run(ctx context.Context, e Entry, g *pagerank.Graph, p pagerank.Params) (*pagerank.Result, error) {
	res, err := safeCall(func() (*pagerank.Result, error) { return pagerank.RunContext(ctx, e.Impl, g, p) })
	return stamp(res, err, e, g)
}

func stamp(res *pagerank.Result, err error, e Entry, g *pagerank.Graph) (*pagerank.Result, error) {
	if err == nil && res == nil {
		err = errors.New("returned no Result")
	}
	if err == nil && res.Err != "" {
		err = errors.New(res.Err)
	}
	if err != nil {
		return nil, err
	}
	for _, x := range []struct {
		what string
		v    []float64
	}{{"rank at node", res.Ranks}, {"L1 residual at iteration", res.Residuals}, {"sum of ranks at iteration", res.Sums}} {
		for i, f := range x.v {
			if math.IsNaN(f) || math.IsInf(f, 0) {
				k := i
				if x.what != "rank at node" {
					k++ // iterations are 1-based
				}
				return nil, fmt.Errorf("non-finite %s %d (%v)", x.what, k, f)
			}
		}
	}
	res.Implementation, res.Case = e.Impl.Name(), g.Name
	if res.N == 0 {
		res.N, res.NNZ = g.N, g.NNZ
	}
	return res, nil
}

// failedResult records a failed or skipped run in the Results.
func failedResult(e Entry, g *pagerank.Graph, mode pagerank.Mode, err error, skipped string) pagerank.Result {
	r := pagerank.Result{Implementation: e.Impl.Name(), Case: g.Name, Precision: e.Impl.Precision(), N: g.N, NNZ: g.NNZ, Mode: mode, Skipped: skipped}
	if err != nil {
		r.Err = err.Error()
	}
	return r
}

func nan() report.F { return report.NaN }

// check turns a validation into a correctness row.
func check(e Entry, g *pagerank.Graph, iterations int, v pagerank.Validation) report.Check {
	c := report.Check{Case: g.Name, Identity: e.Identity(), GraphSize: report.SizeOf(g), Iterations: iterations,
		ErrOverTol: report.F(v.ErrOverTol), MaxRelErr: report.F(v.MaxRelErr), SumAndSpearman: report.SumAndSpearmanOf(v),
		SumPass: v.SumPass, SpearmanPass: v.SpearmanPass, ErrPass: v.ErrPass}
	c.Status, c.Reason = Verdict(v)
	if e.Impl.Name() == OracleName && c.Reason == "" {
		c.Reason = "reference (err and ρ against itself)"
	}
	return c
}

func skippedCheck(e Entry, g *pagerank.Graph, iterations int, status, reason string) report.Check {
	return report.Check{Case: g.Name, Identity: e.Identity(), GraphSize: report.SizeOf(g), Iterations: iterations, Outcome: report.Outcome{Status: status, Reason: reason},
		ErrOverTol: nan(), MaxRelErr: nan(), SumAndSpearman: report.Unvalidated(report.F(pagerank.SumAllowed(g.N)))}
}

// correctness runs every entry on case g for the fixed iteration count and
// validates it against the oracle's Result for the same iterations.
func (r *runner) correctness(ctx context.Context, g *pagerank.Graph) error {
	p := pagerank.Fixed(r.cfg.Iterations)
	oracleEntry := Entry{r.oracle, report.KindCPU}
	oracle, oerr := run(ctx, oracleEntry, g, p)
	if oerr != nil {
		r.note("oracle failed on %s: %v", g.Name, oerr)
	}
	for _, e := range r.entries {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("interrupted: %w", err)
		}
		name := e.Impl.Name()
		if why := r.avail[name]; why != "" {
			r.out.Correctness = append(r.out.Correctness, skippedCheck(e, g, p.Iterations, report.StatusSkipped, why))
			r.out.Results = append(r.out.Results, failedResult(e, g, p.Mode, nil, why))
			r.progressLine(g, r.out.Correctness[len(r.out.Correctness)-1])
			continue
		}
		res, err := oracle, oerr
		var m Measured
		if name != OracleName {
			m, err = Measure(ctx, e, g, Measurement{Reference: oracle, ValidateIterations: p.Iterations, KeepRun: true})
			res = m.Run
		} else if oerr == nil {
			m.Validation = pagerank.Validate(g, oracle, oracle)
		}
		var c report.Check
		switch {
		case errors.Is(err, pagerank.ErrUnavailable):
			c = skippedCheck(e, g, p.Iterations, report.StatusSkipped, err.Error())
			r.out.Results = append(r.out.Results, failedResult(e, g, p.Mode, nil, err.Error()))
		case err != nil:
			c = skippedCheck(e, g, p.Iterations, report.StatusFailed, err.Error())
			r.out.Results = append(r.out.Results, failedResult(e, g, p.Mode, err, ""))
		case oerr != nil:
			c = skippedCheck(e, g, p.Iterations, report.StatusFailed, "no oracle result to validate against: "+oerr.Error())
			r.out.Results = append(r.out.Results, *res)
		default:
			c = check(e, g, p.Iterations, m.Validation)
			c.Top = topIDs(g, res.Ranks)
			r.out.Results = append(r.out.Results, *res)
		}
		r.out.Correctness = append(r.out.Correctness, c)
		r.progressLine(g, c)
	}
	return nil
}

func (r *runner) progressLine(g *pagerank.Graph, c report.Check) {
	f := func(format string, x report.F) string {
		if !x.Valid() {
			return "—"
		}
		return fmt.Sprintf(format, float64(x))
	}
	if r.gpuSkipped(c.Status, c.Reason) {
		return
	}
	w := r.cols
	line := fmt.Sprintf("  %-*s  %-*s  n=%-*d  nnz=%-*d  err/tol=%7s  sum-1=%10s  %s", w.cas, g.Name, w.impl, c.Implementation,
		w.n, c.N, w.nnz, c.NNZ, f("%.3f", c.ErrOverTol), f("%+.2e", c.SumMinus1), c.Status)
	if c.Status != report.StatusPass && c.Reason != "" {
		line += " (" + firstLine(c.Reason) + ")"
	}
	fmt.Fprintln(r.cfg.Progress, line)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// tolerance is the convergence tolerance for an implementation's precision:
// float32 stops at the float tolerance, float64 at the oracle's.
func (r *runner) tolerance(prec pagerank.Precision) float64 {
	if prec == pagerank.Float32 {
		return r.cfg.FloatTolerance
	}
	return r.cfg.OracleTolerance
}

// convergence runs tolerance mode on the real graph: the oracle to its tight
// tolerance (its ranks give the top table), every other implementation to
// the tolerance of its precision, validated against the converged oracle.
func (r *runner) convergence(ctx context.Context, g *pagerank.Graph, papers *pagerank.Papers) error {
	oracleEntry := Entry{r.oracle, report.KindCPU}
	oracle, oerr := run(ctx, oracleEntry, g, pagerank.Converge(r.cfg.OracleTolerance, r.cfg.MaxIterations))
	if err := ctx.Err(); err != nil { // Ctrl-C: no "failed to converge" note for an interrupted oracle
		return fmt.Errorf("interrupted: %w", err)
	}
	if oerr != nil {
		r.note("oracle failed to converge on %s: %v", g.Name, oerr)
	} else {
		r.top(g, oracle, papers)
	}
	for _, e := range r.entries {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("interrupted: %w", err)
		}
		name := e.Impl.Name()
		tol := r.tolerance(e.Impl.Precision())
		c := report.Convergence{Identity: e.Identity(), Tolerance: tol, FinalResidual: nan(), SumAndSpearman: report.Unvalidated(report.F(pagerank.SumAllowed(g.N)))}
		var res *pagerank.Result
		var err error
		switch {
		case r.avail[name] != "":
			c.Status, c.Reason = report.StatusSkipped, r.avail[name]
			r.out.Results = append(r.out.Results, failedResult(e, g, pagerank.Tolerance, nil, c.Reason))
		case name == OracleName:
			res, err = oracle, oerr
		default:
			res, err = run(ctx, e, g, pagerank.Converge(tol, r.cfg.MaxIterations))
		}
		if c.Status == "" {
			if err != nil {
				c.Status, c.Reason = report.StatusFailed, err.Error()
				r.out.Results = append(r.out.Results, failedResult(e, g, pagerank.Tolerance, err, ""))
			} else {
				r.out.Results = append(r.out.Results, *res)
				c.Iterations, c.Converged, c.FinalResidual = res.Iterations, res.Converged, report.F(res.FinalResidual())
				c.Top = topIDs(g, res.Ranks)
				if oerr != nil {
					c.Status, c.Reason = report.StatusFailed, "no converged oracle to validate against"
				} else {
					v := pagerank.Validate(g, res, oracle)
					c.SumAndSpearman = report.SumAndSpearmanOf(v)
					// The tolerance run is graded on the sum invariant and the top-100 order.
					switch {
					case v.Problem != "":
						c.Status, c.Reason = report.StatusFailed, v.Problem
					case !res.Converged:
						c.Status, c.Reason = report.StatusFail, fmt.Sprintf("L1 residual %.3g still above %.0e after %d iterations", res.FinalResidual(), tol, res.Iterations)
					case v.SumPass && v.SpearmanPass:
						c.Status = report.StatusPass
					default:
						v.ErrPass = true // not graded here
						c.Status, c.Reason = report.StatusFail, failedGates(v)
					}
				}
			}
		}
		r.out.Convergence = append(r.out.Convergence, c)
		r.convergenceLine(c)
	}
	return nil
}

func (r *runner) convergenceLine(c report.Convergence) {
	p := r.cfg.Progress
	w := r.cols.impl
	switch {
	case r.gpuSkipped(c.Status, c.Reason):
	case c.Status == report.StatusSkipped || c.Status == report.StatusFailed:
		fmt.Fprintf(p, "  %-*s  %s (%s)\n", w, c.Implementation, c.Status, firstLine(c.Reason))
	default:
		conv := "converged"
		if !c.Converged {
			conv = "did not converge"
		}
		fmt.Fprintf(p, "  %-*s  %s, L1 residual under %.0e: %s in %d iterations; sum-1=%+.3e (allowed %.3e), rho=%.6f  %s\n",
			w, c.Implementation, c.Precision, c.Tolerance, conv, c.Iterations, float64(c.SumMinus1), float64(c.SumAllowed), float64(c.Spearman), c.Status)
	}
}

// topIDs is the ids of the SpearmanTopK highest ranks, highest first (ties
// in node order, pagerank.TopK), kept in each row for re-verification.
func topIDs(g *pagerank.Graph, ranks []float64) []string {
	top := pagerank.TopK(ranks, pagerank.SpearmanTopK)
	ids := make([]string, len(top))
	for i, v := range top {
		ids[i] = g.ID(v)
	}
	return ids
}

// top fills the top table from the converged oracle's ranks.
func (r *runner) top(g *pagerank.Graph, oracle *pagerank.Result, papers *pagerank.Papers) {
	for i, v := range pagerank.TopK(oracle.Ranks, TopRows) {
		id := g.ID(v)
		row := report.TopRow{Rank: i + 1, Score: oracle.Ranks[v], InDegree: g.InDegree(v), OutDegree: int(g.OutDegree[v]), ID: id}
		if pp, ok := papers.Lookup(id); ok {
			row.Year, row.Title, row.Label, row.Known = pp.Year, pp.Title, pp.Label, true
		}
		r.out.Top = append(r.out.Top, row)
	}
}

// timing times every available, non-exercise implementation on the real
// graph: GPU implementations through their pagerank.Benchmarker (CUDA
// events), the rest with Go's monotonic clock around Run in fixed mode.
func (r *runner) timing(ctx context.Context, g *pagerank.Graph) error {
	p := pagerank.Fixed(r.cfg.TimingIterations)
	var timed []int // indices into Timings of rows to finish once the copy rows exist
	for _, e := range r.entries {
		if e.Kind == report.KindExercise {
			continue
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("interrupted: %w", err)
		}
		name := e.Impl.Name()
		row := report.TimingRow{Identity: e.Identity(), Case: g.Name, GBps: nan(), XDRAM: nan()}
		if why := r.avail[name]; why != "" {
			row.Status, row.Reason = report.StatusSkipped, why
			r.out.Timings = append(r.out.Timings, row)
			continue
		}
		m, err := Measure(ctx, e, g, Measurement{Timing: Rung{Iterations: p.Iterations, Warmups: r.cfg.Warmups, Runs: r.cfg.Runs}, CPU: WholeCall})
		res := m.Timed
		if cerr := ctx.Err(); cerr != nil {
			return fmt.Errorf("interrupted: %w", cerr)
		}
		if err != nil {
			row.Status, row.Reason = report.StatusFailed, err.Error()
			r.out.Timings = append(r.out.Timings, row)
			fmt.Fprintf(r.cfg.Progress, "  %-*s  failed: %s\n", r.cols.impl, name, firstLine(err.Error()))
			continue
		}
		r.out.Results = append(r.out.Results, *res)
		row.Status, row.Timing = report.StatusPass, *res.Timing
		row.BytesPerIteration, row.BytesFormula = res.BytesPerIteration, res.BytesFormula
		row.LaunchesPerIteration, row.HostSyncsPerIteration = res.LaunchesPerIteration, res.HostSyncsPerIteration
		row.Stages = res.Stages
		if m.GBps > 0 {
			row.GBps = report.F(m.GBps)
		}
		r.out.Timings = append(r.out.Timings, row)
		timed = append(timed, len(r.out.Timings)-1)
		fmt.Fprintf(r.cfg.Progress, "  %-*s  median %s ms, mean %s ms, CV %.1f%%, %s ms/iter (%s, %d runs)\n", r.cols.impl, name,
			report.Ms(4, row.Timing.MedianMs), report.Ms(4, row.Timing.MeanMs), row.Timing.CV*100, report.Ms(4, row.Timing.MsPerIteration()), row.Timing.Clock, len(row.Timing.RunsMs))
	}
	if r.out.GPU != nil {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("interrupted: %w", err)
		}
		type table struct{ copies, stages []pagerank.Stage }
		t, err := safeCall(func() (table, error) {
			c, s, err := r.cfg.GPU.StageTable(g)
			return table{c, s}, err
		})
		if err != nil {
			r.note("stage table failed: %v", err)
		} else {
			r.out.CopyRows, r.out.Stages = t.copies, t.stages
			fmt.Fprintf(r.cfg.Progress, "  stage table: %d copy rows, %d stages\n", len(t.copies), len(t.stages))
		}
	}
	// Every rate of this case, once, from bytes and time (rates.go).
	var dram float64
	if c, ok := DRAMCopy(r.out.CopyRows); ok {
		dram = GBps(c.Bytes, c.Ms)
	}
	SetRates(r.out.CopyRows, dram)
	SetRates(r.out.Stages, dram)
	for _, i := range timed {
		t := &r.out.Timings[i]
		SetRates(t.Stages, dram)
		if dram > 0 && t.GBps.Valid() {
			t.XDRAM = report.F(float64(t.GBps) / dram)
		}
	}
	return nil
}
