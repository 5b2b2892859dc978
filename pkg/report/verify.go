package report

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/prlab/prlab/pkg/pagerank"
)

// Re-verification: `prlab verify` reruns a committed report's protocol and
// `prlab compare` puts two reports side by side. Both reduce each report to
// its Evidence (what a re-verification can check: the data, every row's
// status and gates, the convergence counts, the top-k orders and the per-run
// timing samples), whatever the file it came from, and Compare turns two
// Evidences into a Verification: correctness gates (pass/fail, each failure
// naming the row and both values) and a timing comparison (ratio of
// medians, confidence interval, Mann-Whitney U with Holm's correction;
// verify_stats.go). WriteVerification writes verify.json, verify.csv and
// verify.html.

// VerifySchema identifies the layout of verify.json.
const VerifySchema = "prlab/verify/v1"

// File names inside a verification directory.
const (
	VerifyJSONFile = "verify.json"
	VerifyCSVFile  = "verify.csv"
	VerifyHTMLFile = "verify.html"
)

// Report formats Evidence is read from.
const (
	FormatResults = "results" // results.json of `prlab report`
	FormatScale   = "scale"   // scale.json of `prlab scale`
	// FormatIncremental is incremental.json of `prlab incremental`.
	FormatIncremental = "incremental"
)

// Tables of the rows a gate names.
const (
	TableCorrectness = "correctness" // case × implementation, fixed iterations
	TableConvergence = "convergence" // real graph, tolerance mode
	TableTiming      = "timing"      // the timed row's status
	TableTop         = "top"         // the report's top table (the converged oracle)
	TableScale       = "scale"       // scale study: graph × implementation
	TableIncremental = "incremental" // incremental study: (workload, batch) × implementation
)

// Float32IterationSlack is how far a float32 row's convergence count may
// move between two runs of the same protocol on the same data: 1 iteration.
//
// Why: a float32 implementation whose sums are reduced in another order
// (GPU atomics, another block count or CUB version) rounds each rank
// differently, by about one ulp. Near the stopping point the L1 residual is
// ~1e-6, while n ulps of ranks of size ~1/n add up to about n·(1/n)·2^-24 ≈
// 6e-8: a relative perturbation of the residual of up to ~6 %. On the real
// graph T1-f32's residual is 1.027e-6 after 48 iterations and 8.445e-7
// after 49 (it stops at 49; decay 0.822 per iteration), so a perturbation of
// 2.7 % can legitimately move the count by one. Moving it by two needs the
// residual after 47 iterations (≈1.25e-6) to fall under 1e-6, or the one
// after 50 (≈6.9e-7) to stay above it: 25 % or 44 %, four times the bound.
// The CPU does not move at all (T1 is bitwise identical for every worker
// count: TestMulticoreFloat32ConvergenceCountAcrossWorkers). The spread of
// the GPU rows on one H200 was not measured (no device time in the session
// that set this); scripts/h200-study.sh's verify step measures it. float64
// rows must converge in exactly the same count.
const Float32IterationSlack = 1

// Evidence is what a re-verification reads from one report: its
// environment, the data it was computed on, its protocol in words, and
// every row a gate checks.
type Evidence struct {
	Format string      `json:"format"` // FormatResults or FormatScale
	Name   string      `json:"name"`
	Path   string      `json:"path"` // the file it was read from ("" for a rerun not yet written)
	Env    Environment `json:"environment"`
	GPU    *GPUContext `json:"gpu,omitempty"`
	// Data identifies every input: a file's SHA-256, or a generated graph's
	// generator parameters and counts.
	Data []DataFact `json:"data"`
	// Protocol is the protocol as name=value pairs, compared key by key.
	Protocol    []KV              `json:"protocol"`
	Rows        []RowFact         `json:"rows"`
	Convergence []ConvergenceFact `json:"convergence,omitempty"`
	Orders      []OrderFact       `json:"orders,omitempty"`
	Timings     []TimingFact      `json:"timings"`
	Notes       []string          `json:"notes,omitempty"`
}

// KV is one protocol setting.
type KV struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// DataFact is one input of a report. Key matches the same input across
// reports (a file's base name without ".gz"; a generated graph's name);
// Identity must be equal for the data to be the same (a SHA-256, or
// "family/scale/seed n nnz ..." for a generated graph). Primary inputs (the
// graph) must be present on both sides.
type DataFact struct {
	Key      string `json:"key"`
	Identity string `json:"identity"`
	File     string `json:"file,omitempty"`
	Primary  bool   `json:"primary"`
}

// RowFact is one validated row: its status and the two gates every row
// carries (Spearman's ρ over the reference's top k against the gate, and
// sum − 1 against its allowed bound). Numbers are NaN where the row did not run.
type RowFact struct {
	Table          string             `json:"table"`
	Case           string             `json:"case"`
	Implementation string             `json:"implementation"`
	Kind           string             `json:"kind"`
	Precision      pagerank.Precision `json:"precision"`
	Status         string             `json:"status"`
	Reason         string             `json:"reason,omitempty"`
	Spearman       F                  `json:"spearman"`
	SpearmanGate   float64            `json:"spearman_gate"`
	SumMinus1      F                  `json:"sum_minus_1"`
	SumAllowed     F                  `json:"sum_allowed"`
}

// ConvergenceFact is one implementation's iterations to converge.
type ConvergenceFact struct {
	Case           string             `json:"case"`
	Implementation string             `json:"implementation"`
	Precision      pagerank.Precision `json:"precision"`
	Status         string             `json:"status"`
	Iterations     int                `json:"iterations"`
	Converged      bool               `json:"converged"`
}

// OrderFact is a top-k order: node ids, highest rank first.
type OrderFact struct {
	Table          string             `json:"table"`
	Case           string             `json:"case"`
	Implementation string             `json:"implementation"`
	Precision      pagerank.Precision `json:"precision"`
	IDs            []string           `json:"ids"`
}

// TimingFact is one timed row's per-run samples, ms per run of Iterations iterations.
type TimingFact struct {
	Case           string    `json:"case"`
	Implementation string    `json:"implementation"`
	Kind           string    `json:"kind"`
	Iterations     int       `json:"iterations"`
	Warmups        int       `json:"warmups"`
	Clock          string    `json:"clock"`
	RunsMs         []float64 `json:"runs_ms"`
}

// EvidenceOfRun reduces a results.json Run to its Evidence.
func EvidenceOfRun(run *Run, path string) Evidence {
	ev := Evidence{Format: FormatResults, Name: run.Name, Path: path, Env: run.Env, GPU: run.GPU}
	graphFile := dataKey(run.Graph.Path)
	for _, d := range run.Env.Datasets {
		k := dataKey(d.File)
		ev.Data = append(ev.Data, DataFact{Key: k, Identity: d.Content(), File: d.File, Primary: k == graphFile})
	}
	p := run.Protocol
	ev.Protocol = []KV{
		{"damping", fmt.Sprint(p.Damping)}, {"iterations", fmt.Sprint(p.Iterations)},
		{"timing_iterations", fmt.Sprint(p.TimingIterations)}, {"warmups", fmt.Sprint(p.Warmups)},
		{"runs", fmt.Sprint(p.Runs)}, {"float_tolerance", fmt.Sprint(p.FloatTolerance)},
		{"oracle_tolerance", fmt.Sprint(p.OracleTolerance)}, {"max_iterations", fmt.Sprint(p.MaxIterations)},
		{"oracle", p.Oracle}, {"spearman_top_k", fmt.Sprint(p.SpearmanTopK)}, {"spearman_gate", fmt.Sprint(p.SpearmanGate)},
	}
	if p.Workers > 0 {
		ev.Protocol = append(ev.Protocol, KV{"workers", fmt.Sprint(p.Workers)})
	}
	for _, c := range run.Cases {
		ev.Protocol = append(ev.Protocol, KV{"case " + c.Name, fmt.Sprintf("n=%d nnz=%d dangling=%d", c.N, c.NNZ, c.Dangling)})
	}
	gate := p.SpearmanGate
	for _, c := range run.Correctness {
		ev.Rows = append(ev.Rows, RowFact{Table: TableCorrectness, Case: c.Case, Implementation: c.Implementation, Kind: c.Kind,
			Precision: c.Precision, Status: c.Status, Reason: c.Reason, Spearman: c.Spearman, SpearmanGate: gate,
			SumMinus1: c.SumMinus1, SumAllowed: c.SumAllowed})
		if len(c.Top) > 0 {
			ev.Orders = append(ev.Orders, OrderFact{Table: TableCorrectness, Case: c.Case, Implementation: c.Implementation, Precision: c.Precision, IDs: c.Top})
		}
	}
	for _, c := range run.Convergence {
		ev.Rows = append(ev.Rows, RowFact{Table: TableConvergence, Case: run.Graph.Name, Implementation: c.Implementation, Kind: c.Kind,
			Precision: c.Precision, Status: c.Status, Reason: c.Reason, Spearman: c.Spearman, SpearmanGate: gate,
			SumMinus1: c.SumMinus1, SumAllowed: c.SumAllowed})
		ev.Convergence = append(ev.Convergence, ConvergenceFact{Case: run.Graph.Name, Implementation: c.Implementation,
			Precision: c.Precision, Status: c.Status, Iterations: c.Iterations, Converged: c.Converged})
		if len(c.Top) > 0 {
			ev.Orders = append(ev.Orders, OrderFact{Table: TableConvergence, Case: run.Graph.Name, Implementation: c.Implementation, Precision: c.Precision, IDs: c.Top})
		}
	}
	if len(run.Top) > 0 {
		ids := make([]string, len(run.Top))
		for i, t := range run.Top {
			ids[i] = t.ID
		}
		ev.Orders = append(ev.Orders, OrderFact{Table: TableTop, Case: run.Graph.Name, Implementation: p.Oracle, Precision: pagerank.Float64, IDs: ids})
	}
	for _, t := range run.Timings {
		ev.Rows = append(ev.Rows, RowFact{Table: TableTiming, Case: t.Case, Implementation: t.Implementation, Kind: t.Kind,
			Precision: t.Precision, Status: t.Status, Reason: t.Reason, Spearman: NaN, SumMinus1: NaN, SumAllowed: NaN})
		if t.Status == StatusPass && len(t.Timing.RunsMs) > 0 {
			ev.Timings = append(ev.Timings, TimingFact{Case: t.Case, Implementation: t.Implementation, Kind: t.Kind,
				Iterations: t.Timing.Iterations, Warmups: t.Timing.Warmups, Clock: t.Timing.Clock, RunsMs: t.Timing.RunsMs})
		}
	}
	hasTop := false
	for _, o := range ev.Orders {
		hasTop = hasTop || o.Table != TableTop
	}
	if !hasTop {
		ev.Notes = append(ev.Notes, "this report keeps no per-row top-100 order (written before rows kept their top ids): the top-order gate checks the report's top table (the converged oracle's top 20) only")
	}
	return ev
}

// EvidenceOfScale reduces a scale.json ScaleStudy to its Evidence. The
// scale study's graphs are generated, so each graph's identity is its
// generator, seed and counts.
func EvidenceOfScale(s *ScaleStudy, path string) Evidence {
	ev := Evidence{Format: FormatScale, Name: s.Name, Path: path, Env: s.Env, GPU: s.GPU}
	for _, d := range s.Env.Datasets { // the --graph files, by content
		ev.Data = append(ev.Data, DataFact{Key: dataKey(d.File), Identity: d.Content(), File: d.File, Primary: true})
	}
	p := s.Protocol
	for _, g := range s.Graphs {
		if g.Skipped != "" {
			continue
		}
		id := fmt.Sprintf("%s scale %d seed %d edge factor %d (a,b,c)=(%g,%g,%g): n=%d nnz=%d self-loops=%d duplicates=%d dangling=%d",
			g.Family, g.Scale, p.Seed, p.EdgeFactor, p.A, p.B, p.C, g.N, g.NNZ, g.SelfLoops, g.Duplicates, g.Dangling)
		if g.Family == FamilyGrid {
			id = fmt.Sprintf("grid scale %d: n=%d nnz=%d dangling=%d", g.Scale, g.N, g.NNZ, g.Dangling)
		}
		ev.Data = append(ev.Data, DataFact{Key: g.Name, Identity: id, Primary: false})
	}
	ev.Protocol = []KV{{"damping", fmt.Sprint(p.Damping)}, {"validate_iterations", fmt.Sprint(p.ValidateIterations)},
		{"seed", fmt.Sprint(p.Seed)}, {"edge_factor", fmt.Sprint(p.EdgeFactor)}, {"rmat_abc", fmt.Sprintf("%g,%g,%g", p.A, p.B, p.C)}}
	if p.Workers > 0 {
		ev.Protocol = append(ev.Protocol, KV{"workers", fmt.Sprint(p.Workers)})
	}
	for _, r := range s.Rows {
		ev.Rows = append(ev.Rows, RowFact{Table: TableScale, Case: r.Graph, Implementation: r.Implementation, Kind: r.Kind,
			Precision: r.Precision, Status: r.Status, Reason: r.Reason, Spearman: r.Spearman, SpearmanGate: pagerank.SpearmanGate,
			SumMinus1: r.SumMinus1, SumAllowed: F(pagerank.SumAllowed(r.N))})
		if r.Status == StatusPass && len(r.Timing.RunsMs) > 0 {
			ev.Timings = append(ev.Timings, TimingFact{Case: r.Graph, Implementation: r.Implementation, Kind: r.Kind,
				Iterations: r.Timing.Iterations, Warmups: r.Timing.Warmups, Clock: r.Timing.Clock, RunsMs: r.Timing.RunsMs})
		}
	}
	return ev
}

// EvidenceOfIncremental reduces an incremental.json IncrementalStudy to its
// Evidence: every (workload, batch, implementation) row with its warm start
// gates, the warm and cold iteration counts, the oracle's top per year, and
// the per-run samples of the warm and cold runs and of each batch's graph
// update and rebuild.
func EvidenceOfIncremental(s *IncrementalStudy, path string) Evidence {
	ev := Evidence{Format: FormatIncremental, Name: s.Name, Path: path, Env: s.Env, GPU: s.GPU}
	for _, d := range s.Env.Datasets {
		ev.Data = append(ev.Data, DataFact{Key: dataKey(d.File), Identity: d.Content(), File: d.File, Primary: true})
	}
	for _, w := range s.Workloads {
		ev.Data = append(ev.Data, DataFact{Key: "workload " + w.Name, Identity: fmt.Sprintf("%s %s: n=%d nnz=%d", w.Kind, w.Graph, w.N, w.NNZ)})
	}
	p := s.Protocol
	ev.Protocol = []KV{{"damping", fmt.Sprint(p.Damping)}, {"float_tolerance", fmt.Sprint(p.FloatTolerance)},
		{"oracle_tolerance", fmt.Sprint(p.OracleTolerance)}, {"max_iterations", fmt.Sprint(p.MaxIterations)},
		{"warmups", fmt.Sprint(p.Warmups)}, {"runs", fmt.Sprint(p.Runs)}, {"workers", fmt.Sprint(p.Workers)},
		{"seed", fmt.Sprint(p.Seed)}, {"fractions", fmt.Sprint(p.Fractions)}, {"kinds", fmt.Sprint(p.Kinds)},
		{"min_papers", fmt.Sprint(p.MinPapers)}, {"last_year", fmt.Sprint(p.LastYear)}}
	timed := func(cse, impl, kind string, t pagerank.Timing) {
		if len(t.RunsMs) > 0 {
			ev.Timings = append(ev.Timings, TimingFact{Case: cse, Implementation: impl, Kind: kind, Iterations: t.Iterations,
				Warmups: t.Warmups, Clock: t.Clock, RunsMs: t.RunsMs})
		}
	}
	for _, b := range s.Batches {
		cse := b.Case()
		timed(cse, "graph update", KindCPU, b.Update)
		timed(cse, "graph rebuild", KindCPU, b.Rebuild)
	}
	for _, r := range s.Rows {
		cse := r.Case()
		spearman, sum := r.WarmCheck.Spearman, r.WarmCheck.SumMinus1
		if !ran(r.Status) { // a skipped row has no check: its zero GateCheck is no ρ of 0
			spearman, sum = NaN, NaN
		}
		ev.Rows = append(ev.Rows, RowFact{Table: TableIncremental, Case: cse, Implementation: r.Implementation, Kind: r.Kind,
			Precision: r.Precision, Status: r.Status, Reason: r.Reason, Spearman: spearman, SpearmanGate: pagerank.SpearmanGate,
			SumMinus1: sum, SumAllowed: r.WarmCheck.SumAllowed})
		for _, x := range []struct {
			start string
			it    int
			conv  bool
			t     pagerank.Timing
		}{{"warm", r.WarmIterations, r.WarmConverged, r.Warm}, {"cold", r.ColdIterations, r.ColdConverged, r.Cold}} {
			ev.Convergence = append(ev.Convergence, ConvergenceFact{Case: cse + " (" + x.start + ")", Implementation: r.Implementation,
				Precision: r.Precision, Status: r.Status, Iterations: x.it, Converged: x.conv})
			timed(cse+" ("+x.start+")", r.Implementation, r.Kind, x.t)
		}
	}
	for _, y := range s.Years {
		ids := make([]string, len(y.Top))
		for i, t := range y.Top {
			ids[i] = t.ID
		}
		ev.Orders = append(ev.Orders, OrderFact{Table: TableTop, Case: fmt.Sprintf("year %d", y.Year), Implementation: "t0-oracle", Precision: pagerank.Float64, IDs: ids})
	}
	return ev
}

// dataKey names an input file across reports: its base name without a
// ".gz" suffix. SameData matches files by content first (a renamed copy is
// the same input), then by this key (data/aan/acl.txt and acl.txt.gz are
// the same input when their decompressed content's SHA-256 agrees).
func dataKey(path string) string {
	return strings.TrimSuffix(filepath.Base(filepath.ToSlash(path)), ".gz")
}

// ReadEvidence reads the report in dir (or the file named by dir): its
// results.json, scale.json or incremental.json, else its verify.json (a
// verification directory stands for its rerun, so two reruns compare).
// Adding a format is one case here and one EvidenceOf function.
func ReadEvidence(dir string) (Evidence, error) {
	p, err := FindDocument(dir)
	if err != nil {
		return Evidence{}, err
	}
	return readEvidenceFile(p)
}

// FindDocument is the prlab document that stands for the report at path:
// path itself when it is a file, else the first of results.json,
// scale.json, incremental.json and verify.json in the directory path. The
// error names path: no such file or directory, or no report found in it.
func FindDocument(path string) (string, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s: no such file or directory", path)
	}
	if err == nil && !st.IsDir() {
		return path, nil
	}
	for _, f := range reportMarkers {
		p := filepath.Join(path, f)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: no report found (looked for %s)", path, strings.Join(reportMarkers, ", "))
}

// readEvidenceFile reads one report file; the Evidence is named after the
// report's directory (reports/cpu-2core), which tells two reports apart
// where their run names agree.
func readEvidenceFile(p string) (ev Evidence, err error) {
	defer func() {
		if err == nil {
			if d := filepath.Base(filepath.Dir(filepath.Clean(p))); d != "." && d != "/" {
				ev.Name = d
			}
		}
	}()
	switch filepath.Base(p) {
	case ScaleJSONFile:
		return evidenceOf(p, Read[ScaleStudy], EvidenceOfScale)
	case JSONFile:
		return evidenceOf(p, Read[Run], EvidenceOfRun)
	case IncrementalJSONFile:
		return evidenceOf(p, Read[IncrementalStudy], EvidenceOfIncremental)
	case VerifyJSONFile:
		return evidenceOf(p, ReadVerification, func(v *Verification, p string) Evidence {
			ev := v.Rerun
			ev.Path = p
			return ev
		})
	}
	return Evidence{}, fmt.Errorf("%s: not a report file (want %s, %s, %s or %s)", p, JSONFile, ScaleJSONFile, IncrementalJSONFile, VerifyJSONFile)
}

// evidenceOf reads the document p with read and takes its Evidence with of.
func evidenceOf[T any](p string, read func(string) (*T, error), of func(*T, string) Evidence) (Evidence, error) {
	doc, err := read(p)
	if err != nil {
		return Evidence{}, err
	}
	return of(doc, p), nil
}

// ErrNotSameData is returned (wrapped) by SameData when two reports were
// computed on different inputs: nothing can be compared.
var ErrNotSameData = errors.New("not the same data")

// SameData checks that b was computed on a's inputs: every input present
// on both sides (by Key) has the same Identity, and every primary input of
// a is present in b. The error wraps ErrNotSameData and lists every
// difference; notes lists inputs only one side recorded.
func SameData(a, b Evidence) (notes []string, err error) {
	var diffs []string
	// A file (File set: its Identity is its content's SHA-256) matches the
	// other side's file of the same content under any name first, so a
	// renamed or recompressed copy is the same input; else the same Key.
	match := func(x DataFact, in []DataFact) int {
		if x.File != "" {
			if i := slices.IndexFunc(in, func(y DataFact) bool { return y.File != "" && y.Identity == x.Identity }); i >= 0 {
				return i
			}
		}
		return slices.IndexFunc(in, func(y DataFact) bool { return y.Key == x.Key })
	}
	for _, x := range a.Data {
		i := match(x, b.Data)
		switch {
		case i >= 0 && b.Data[i].Identity != x.Identity:
			diffs = append(diffs, fmt.Sprintf("%s: %s in %s, %s in %s", x.Key, short(x.Identity), a.Name, short(b.Data[i].Identity), b.Name))
		case i < 0 && x.Primary:
			diffs = append(diffs, fmt.Sprintf("%s (the graph, %s) was not read by %s", x.Key, short(x.Identity), b.Name))
		case i < 0:
			notes = append(notes, fmt.Sprintf("%s (%s) is recorded by %s only", x.Key, short(x.Identity), a.Name))
		}
	}
	for _, y := range b.Data {
		if match(y, a.Data) < 0 {
			notes = append(notes, fmt.Sprintf("%s (%s) is recorded by %s only", y.Key, short(y.Identity), b.Name))
		}
	}
	if len(diffs) > 0 {
		return notes, fmt.Errorf("%w: %s", ErrNotSameData, strings.Join(diffs, "; "))
	}
	return notes, nil
}

// short abbreviates a SHA-256 to its first 12 hex digits.
func short(id string) string {
	if len(id) == 64 && strings.Trim(id, "0123456789abcdef") == "" {
		return "SHA-256 " + id[:12] + "…"
	}
	return id
}

// Gate names.
const (
	GateData       = "same data"
	GateProtocol   = "same protocol"
	GateStatus     = "status"
	GateIterations = "convergence iterations"
	GateOrder      = "top order"
	GateSpearman   = "Spearman ρ"
	GateSum        = "sum − 1"
	GateSlowdown   = "max slowdown"
)

// GateResult is one gate on one row: the report's and the rerun's value,
// and whether the gate held.
type GateResult struct {
	Gate           string `json:"gate"`
	Table          string `json:"table"`
	Case           string `json:"case"`
	Implementation string `json:"implementation"`
	Report         string `json:"report"` // the value in the report being verified (A)
	Rerun          string `json:"rerun"`  // the value in the rerun (B)
	Pass           bool   `json:"pass"`
	Note           string `json:"note,omitempty"`
}

// String is the gate as one line, e.g.
// `status correctness tiny/t1-multicore-f32: report pass, rerun fail`.
func (g GateResult) String() string { return g.Format("report", "rerun") }

// Format is String with other names for the two sides (compare: the two reports).
func (g GateResult) Format(a, b string) string {
	s := fmt.Sprintf("%s %s %s/%s: %s %s, %s %s", g.Gate, g.Table, g.Case, g.Implementation, a, g.Report, b, g.Rerun)
	if g.Note != "" {
		s += " (" + g.Note + ")"
	}
	return s
}

// Options tune Compare.
type Options struct {
	// MaxSlowdown > 0 gates timing: a row classified slower with a ratio of
	// medians above MaxSlowdown fails.
	MaxSlowdown float64
	// Impls restricts the comparison to these implementations (empty: all).
	Impls []string
	// Mode is "verify" (B is a rerun of A on this machine) or "compare".
	Mode string
}

// Verification is what verify.json holds: both Evidences, every gate, the
// timing comparison and the paragraph.
type Verification struct {
	Schema string `json:"schema"`
	Mode   string `json:"mode"` // "verify" or "compare"
	// Paragraph is the course-style summary at the top of verify.html.
	Paragraph   string          `json:"paragraph"`
	Pass        bool            `json:"pass"`      // every gate held
	SameData    bool            `json:"same_data"` // false: nothing else was compared
	DataError   string          `json:"data_error,omitempty"`
	Comparable  []string        `json:"env_differences,omitempty"` // environment differences that make timing not comparable
	Gates       []GateResult    `json:"gates"`
	Timing      []TimingCompare `json:"timing"`
	Stats       StatsMethod     `json:"stats"`
	MaxSlowdown float64         `json:"max_slowdown,omitempty"`
	Notes       []string        `json:"notes,omitempty"`
	Report      Evidence        `json:"report"` // A: the report being verified
	Rerun       Evidence        `json:"rerun"`  // B: the rerun (verify) or the second report (compare)
}

// Line is g as one line, naming the two sides "report" and "rerun"
// (verify) or by the two reports' names (compare).
func (v *Verification) Line(g GateResult) string {
	if v.Mode == "verify" {
		return g.String()
	}
	return g.Format(v.Report.Name, v.Rerun.Name)
}

// Failures is every gate that did not hold.
func (v *Verification) Failures() []GateResult {
	var out []GateResult
	for _, g := range v.Gates {
		if !g.Pass {
			out = append(out, g)
		}
	}
	return out
}

func (o Options) want(impl string) bool { return len(o.Impls) == 0 || slices.Contains(o.Impls, impl) }

// Compare checks b against a: first the data (different inputs: SameData
// false, nothing else compared), then the protocol, every row's status, the
// convergence counts (float64 identical, float32 within
// Float32IterationSlack), the top orders of float64 rows, ρ and sum − 1 of
// every row that met them in a, and the timing of every row timed on both
// sides (verify_stats.go).
func Compare(a, b Evidence, o Options) *Verification {
	if o.Mode == "" {
		o.Mode = "compare"
	}
	v := &Verification{Schema: VerifySchema, Mode: o.Mode, Report: a, Rerun: b, MaxSlowdown: o.MaxSlowdown, Stats: statsMethod()}
	notes, err := SameData(a, b)
	v.Notes = append(v.Notes, notes...)
	if err != nil {
		v.DataError = err.Error()
		v.Gates = append(v.Gates, GateResult{Gate: GateData, Report: dataSummary(a), Rerun: dataSummary(b), Note: err.Error()})
		v.Paragraph = paragraph(v)
		return v
	}
	v.SameData = true
	v.Gates = append(v.Gates, GateResult{Gate: GateData, Report: dataSummary(a), Rerun: dataSummary(b), Pass: true})
	v.Notes = append(v.Notes, a.Notes...)
	if a.Format != b.Format {
		v.Gates = append(v.Gates, GateResult{Gate: GateProtocol, Report: a.Format, Rerun: b.Format, Note: "different kinds of report"})
	}
	for _, kv := range a.Protocol {
		got := "(absent)"
		for _, y := range b.Protocol {
			if y.Key == kv.Key {
				got = y.Value
			}
		}
		if got != kv.Value {
			v.Gates = append(v.Gates, GateResult{Gate: GateProtocol, Case: kv.Key, Report: kv.Value, Rerun: got})
		}
	}
	v.rowGates(a, b, o)
	v.convergenceGates(a, b, o)
	v.orderGates(a, b, o)
	v.Comparable = envDifferences(a, b)
	// A machine whose load exceeded its cores cannot tell a slower CPU
	// implementation from other processes competing for the cores.
	for _, e := range []Evidence{a, b} {
		if f := strings.Fields(e.Env.LoadAverage); len(f) > 0 {
			if load, err := strconv.ParseFloat(f[0], 64); err == nil && e.Env.CPUCores > 0 && load > float64(e.Env.CPUCores) {
				v.Comparable = append(v.Comparable, fmt.Sprintf("%s %s: load average %s on %d logical cores", loadedPrefix, e.Name, f[0], e.Env.CPUCores))
			}
		}
		if o := e.Env.OtherCPU; o != nil && *o > OtherCPULimit {
			v.Comparable = append(v.Comparable, fmt.Sprintf("%s %s: other processes used %.0f %% of the cores while it timed", loadedPrefix, e.Name, 100**o))
		}
	}
	v.timing(a, b, o)
	v.Pass = len(v.Failures()) == 0
	v.Paragraph = paragraph(v)
	return v
}

func dataSummary(e Evidence) string {
	var s []string
	for _, d := range e.Data {
		s = append(s, d.Key+" "+short(d.Identity))
	}
	if len(s) == 0 {
		return "(no inputs recorded)"
	}
	if len(s) > 4 {
		return fmt.Sprintf("%s and %d more", strings.Join(s[:4], ", "), len(s)-4)
	}
	return strings.Join(s, ", ")
}

func rowKey(table, cse, impl string) string { return table + "\x00" + cse + "\x00" + impl }

func fmtRho(x F) string {
	if !x.Valid() {
		return "—"
	}
	return fmt.Sprintf("%.6f", float64(x))
}

func fmtSum(x, allowed F) string {
	if !x.Valid() {
		return "—"
	}
	return fmt.Sprintf("%+.3e (allowed %.3e)", float64(x), float64(allowed))
}

func (v *Verification) rowGates(a, b Evidence, o Options) {
	rerun := map[string]RowFact{}
	for _, r := range b.Rows {
		rerun[rowKey(r.Table, r.Case, r.Implementation)] = r
	}
	for _, x := range a.Rows {
		if !o.want(x.Implementation) {
			continue
		}
		y, ok := rerun[rowKey(x.Table, x.Case, x.Implementation)]
		g := GateResult{Gate: GateStatus, Table: x.Table, Case: x.Case, Implementation: x.Implementation, Report: x.Status}
		if !ok {
			g.Rerun, g.Note = "(no row)", "not run by "+b.Name
			v.Gates = append(v.Gates, g)
			continue
		}
		g.Rerun, g.Pass = y.Status, y.Status == x.Status
		if !g.Pass && y.Reason != "" {
			g.Note = firstLineOf(y.Reason)
		}
		v.Gates = append(v.Gates, g)
		if x.Spearman.Valid() && float64(x.Spearman) >= x.SpearmanGate {
			v.Gates = append(v.Gates, GateResult{Gate: GateSpearman, Table: x.Table, Case: x.Case, Implementation: x.Implementation,
				Report: fmtRho(x.Spearman), Rerun: fmtRho(y.Spearman), Pass: y.Spearman.Valid() && float64(y.Spearman) >= x.SpearmanGate,
				Note: fmt.Sprintf("gate %.3f", x.SpearmanGate)})
		}
		if x.SumMinus1.Valid() && x.SumAllowed.Valid() && math.Abs(float64(x.SumMinus1)) <= float64(x.SumAllowed) {
			v.Gates = append(v.Gates, GateResult{Gate: GateSum, Table: x.Table, Case: x.Case, Implementation: x.Implementation,
				Report: fmtSum(x.SumMinus1, x.SumAllowed), Rerun: fmtSum(y.SumMinus1, y.SumAllowed),
				Pass: y.SumMinus1.Valid() && math.Abs(float64(y.SumMinus1)) <= float64(x.SumAllowed)})
		}
	}
}

func ran(status string) bool { return status == StatusPass || status == StatusFail }

func (v *Verification) convergenceGates(a, b Evidence, o Options) {
	for _, x := range a.Convergence {
		if !o.want(x.Implementation) || !ran(x.Status) {
			continue
		}
		i := slices.IndexFunc(b.Convergence, func(y ConvergenceFact) bool { return y.Case == x.Case && y.Implementation == x.Implementation })
		if i < 0 || !ran(b.Convergence[i].Status) {
			continue // the status gate already names the row
		}
		y := b.Convergence[i]
		g := GateResult{Gate: GateIterations, Table: TableConvergence, Case: x.Case, Implementation: x.Implementation,
			Report: fmt.Sprint(x.Iterations), Rerun: fmt.Sprint(y.Iterations)}
		d := y.Iterations - x.Iterations
		if x.Precision == pagerank.Float32 {
			g.Pass = d >= -Float32IterationSlack && d <= Float32IterationSlack
			g.Note = fmt.Sprintf("float32: within ±%d", Float32IterationSlack)
		} else {
			g.Pass = d == 0
			g.Note = string(x.Precision) + ": identical"
		}
		v.Gates = append(v.Gates, g)
	}
}

func (v *Verification) orderGates(a, b Evidence, o Options) {
	for _, x := range a.Orders {
		if !o.want(x.Implementation) || x.Precision != pagerank.Float64 {
			continue
		}
		i := slices.IndexFunc(b.Orders, func(y OrderFact) bool {
			return y.Table == x.Table && y.Case == x.Case && y.Implementation == x.Implementation
		})
		if i < 0 {
			continue
		}
		y := b.Orders[i]
		g := GateResult{Gate: GateOrder, Table: x.Table, Case: x.Case, Implementation: x.Implementation, Pass: true,
			Report: fmt.Sprintf("top %d", len(x.IDs)), Rerun: fmt.Sprintf("top %d", len(y.IDs))}
		k := min(len(x.IDs), len(y.IDs))
		if len(x.IDs) != len(y.IDs) {
			g.Pass, g.Note = false, "different lengths"
		}
		for r := 0; r < k; r++ {
			if x.IDs[r] != y.IDs[r] {
				g.Pass = false
				g.Report, g.Rerun = fmt.Sprintf("rank %d: %s", r+1, x.IDs[r]), fmt.Sprintf("rank %d: %s", r+1, y.IDs[r])
				g.Note = "first difference in the float64 order"
				break
			}
		}
		if g.Pass {
			g.Report = fmt.Sprintf("top %d identical", k)
			g.Rerun = g.Report
		}
		v.Gates = append(v.Gates, g)
	}
}

// OtherCPULimit is the largest share of the cores that other processes may
// have used while a run timed (Environment.OtherCPU) for its CPU rows to be
// compared: a multi-core row uses every core, so it slows by about that
// share, and above TimingMinEffect (5 %) a busy machine alone could raise
// an alarm.
const OtherCPULimit = TimingMinEffect

// loadedPrefix starts the difference that names a loaded machine (CPU rows only).
const loadedPrefix = "loaded machine"

// envDifferences lists the differences that make timing not comparable:
// the GPU model, driver, CUDA runtime, CCCL, the CPU model, its logical
// cores and GOMAXPROCS (the CPU implementations use GOMAXPROCS workers).
func envDifferences(a, b Evidence) []string {
	var d []string
	cmp := func(what, x, y string) {
		if x != y {
			d = append(d, fmt.Sprintf("%s: %s → %s", what, orNone(x), orNone(y)))
		}
	}
	cmp("CPU", a.Env.CPUModel, b.Env.CPUModel)
	cmp("logical cores", fmt.Sprint(a.Env.CPUCores), fmt.Sprint(b.Env.CPUCores))
	cmp("GOMAXPROCS", fmt.Sprint(a.Env.GOMAXPROCS), fmt.Sprint(b.Env.GOMAXPROCS))
	var ga, gb GPUContext
	if a.GPU != nil {
		ga = *a.GPU
	}
	if b.GPU != nil {
		gb = *b.GPU
	}
	cmp("GPU", ga.Name, gb.Name)
	cmp("CUDA driver API", ga.Driver, gb.Driver)
	if ga.KernelDriver != "" && gb.KernelDriver != "" { // older reports did not record it
		cmp("driver", ga.KernelDriver, gb.KernelDriver)
	}
	cmp("CUDA runtime", ga.Runtime, gb.Runtime)
	cmp("CCCL", ga.CCCL, gb.CCCL)
	return d
}

func orNone(s string) string {
	if s == "" || s == "0" {
		return "none"
	}
	return s
}

func firstLineOf(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}
