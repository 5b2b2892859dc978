// Package report is prlab's row model and its outputs: results.json (every
// Result and every derived table, enough to re-render the page without
// recomputing), one tidy CSV per table (correctness.csv, timing.csv, ...;
// the same row structs through gocsv, csv.go), and index.html
// (html/template + go-echarts, with Apache ECharts embedded so the page
// draws offline). Every row embeds one Identity (implementation, label,
// kind, precision).
//
// The report never knows which implementation it draws: every row comes from
// a pagerank.Result or from a table that pkg/study derived from Results.
//
// It is also the one presentation layer: every table, chart and finding is
// an HTML fragment built here (summary.go, matrix.go, run_charts.go,
// scale_html.go, scale_findings.go, tables.go; one colour per implementation
// in palette.go; Chart.HTML draws any of them), the pages show them, and
// pkg/nb only wraps the same fragments for notebook cells.
//
// Every output directory (report, scale, verify, incremental) is written as
// one unit by the one writer in outdir.go: the files go into a fresh sibling
// directory, are fsynced, and are swapped in with one rename, under an flock
// that admits one writer per directory. A failed, interrupted or killed run
// leaves the previous directory or the new one, never a mix:
//
//	o, err := report.LockOut(dir) // at the start: a second writer fails now, naming this pid
//	defer o.Close()
//	err = o.Write(map[string][]byte{"index.html": page, "results.json": js})
//
// or report.WriteDir(dir, files) for a one-shot write. Entries of dir the
// write does not name (README.md, logs, verify-*/ folders) are kept.
package report

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/prlab/prlab/pkg/dataset"
	"github.com/prlab/prlab/pkg/pagerank"
)

// Schema identifies the layout of results.json; Read[Run] rejects any other value.
const Schema = "prlab/results/v1"

// Implementation kinds.
const (
	KindCPU      = "cpu"      // CPU implementation (pkg/reference)
	KindGPU      = "gpu"      // CUDA implementation (pkg/cudabind)
	KindExercise = "exercise" // deliberately wrong variant (the course's exercise)
)

// Row statuses. A row is "pass" or "fail" when the implementation ran and was
// validated, "failed" when it returned an error or panicked, and "skipped"
// when it could not run on this machine (e.g. no GPU); Reason says why.
const (
	StatusPass    = "pass"
	StatusFail    = "fail"
	StatusFailed  = "failed"
	StatusSkipped = "skipped"
)

// Outcome is how one row ended: Status is one of the row statuses above
// (each row type says which it uses) and Reason says why when it is not
// StatusPass (empty, and omitted from JSON, otherwise). Every row table
// (correctness, convergence, timing, scale, incremental) embeds it, so JSON
// and CSV carry the two columns under the same names.
type Outcome struct {
	Status string `json:"status" csv:"status"`
	Reason string `json:"reason,omitempty" csv:"reason"`
}

// Run is one complete study: the environment, the protocol, every Result and
// the tables derived from them. It is what results.json holds, and all the
// HTML report needs.
type Run struct {
	Schema          string            `json:"schema"`
	Name            string            `json:"name"` // run name, normally the report directory's base name
	Env             Environment       `json:"environment"`
	Protocol        Protocol          `json:"protocol"`
	Graph           GraphSummary      `json:"graph"` // the real graph
	Cases           []CaseSummary     `json:"cases"` // every case run, synthetic and real
	Implementations []Impl            `json:"implementations"`
	Correctness     []Check           `json:"correctness"` // case × implementation, fixed iterations
	Convergence     []Convergence     `json:"convergence"` // real graph, tolerance mode, per implementation
	Top             []TopRow          `json:"top"`         // top papers by the converged oracle's ranks
	Timings         []TimingRow       `json:"timings"`     // real graph, per implementation
	GPU             *GPUContext       `json:"gpu,omitempty"`
	GPUSkipped      string            `json:"gpu_skipped,omitempty"` // why GPU rows were skipped, when they were
	CopyRows        []pagerank.Stage  `json:"copy_rows,omitempty"`   // device-to-device copy rows (128 MiB; one iteration's bytes)
	Stages          []pagerank.Stage  `json:"stages,omitempty"`      // the course's stage table: every GPU stage timed alone, in the same process as CopyRows
	Tiers           []TierRow         `json:"tiers,omitempty"`
	Notes           []string          `json:"notes,omitempty"` // run-level problems (e.g. oracle failures)
	Results         []pagerank.Result `json:"results"`         // every Result the study produced
}

// Environment is the context printed with every number.
type Environment struct {
	Date       string     `json:"date"`   // RFC 3339, UTC
	Commit     string     `json:"commit"` // git commit of the working tree ("+dirty" when modified), or "unknown"
	GoVersion  string     `json:"go_version"`
	OS         string     `json:"os"` // GOOS/GOARCH and kernel release
	CPUModel   string     `json:"cpu_model"`
	CPUCores   int        `json:"cpu_cores"` // logical CPUs (runtime.NumCPU)
	GOMAXPROCS int        `json:"gomaxprocs"`
	Datasets   []Checksum `json:"datasets"`
	// LoadAverage is /proc/loadavg's 1, 5 and 15 minute load averages when
	// the run started ("" where unknown or in reports written before it was kept).
	LoadAverage string `json:"load_average,omitempty"`
	// OtherCPU is the share (0..1) of the machine's CPU time that other
	// processes used while the run measured (CPUShare: /proc/stat's busy
	// ticks over all cores less this process's own, over all ticks); nil
	// where unknown or in reports written before it was kept.
	OtherCPU *float64 `json:"other_cpu,omitempty"`
}

// Checksum is one input file and its SHA-256.
type Checksum struct {
	File   string `json:"file"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"` // 64 lowercase hex digits
	// ContentSHA256 is the SHA-256 of the decompressed content of a
	// gzip-compressed file ("" for a plain file, whose content is SHA256).
	ContentSHA256 string `json:"content_sha256,omitempty"`
	Format        string `json:"format,omitempty"` // the graph file's format (pagerank.Format), when this file is the graph
}

// Content is the SHA-256 of the file's content: decompressed for a gzip
// file, the file's own otherwise. Re-verification compares inputs by it.
func (c Checksum) Content() string {
	if c.ContentSHA256 != "" {
		return c.ContentSHA256
	}
	return c.SHA256
}

// Protocol is the measurement protocol the run used (course defaults in
// pagerank: 100 fixed iterations, 50 timed iterations, 3 warm-ups, 10 runs,
// tolerances 1e-6 float and 1e-12 for the float64 oracle).
type Protocol struct {
	Damping          float64 `json:"damping"`
	Iterations       int     `json:"iterations"` // fixed iterations for correctness
	TimingIterations int     `json:"timing_iterations"`
	Warmups          int     `json:"warmups"`
	Runs             int     `json:"runs"`
	FloatTolerance   float64 `json:"float_tolerance"`  // L1 residual, float32 implementations
	OracleTolerance  float64 `json:"oracle_tolerance"` // L1 residual, float64 implementations and the oracle
	MaxIterations    int     `json:"max_iterations"`   // cap in tolerance mode
	Oracle           string  `json:"oracle"`           // implementation every Result is validated against
	SpearmanTopK     int     `json:"spearman_top_k"`   // 100
	SpearmanGate     float64 `json:"spearman_gate"`    // 0.999
	// Workers is the goroutine count of the multi-core CPU rows (T1; the
	// --workers flag, default GOMAXPROCS); 0 in reports from before it was recorded.
	Workers int `json:"workers,omitempty"`
}

// GraphSummary is the real graph's load summary (the course's load line).
type GraphSummary struct {
	Name       string   `json:"name"`
	Path       string   `json:"path"`
	Nodes      int      `json:"nodes"`
	Edges      int      `json:"edges"` // after dropping self-loops and duplicates
	SelfLoops  int      `json:"self_loops"`
	Duplicates int      `json:"duplicates"`
	Dangling   int      `json:"dangling"`
	Line       string   `json:"line"`                 // "loaded N nodes and M edges (dropped ...); D dangling"
	Format     string   `json:"format,omitempty"`     // pagerank.Format the file was read as, e.g. "aan", "el", "mtx"
	LoadNotes  []string `json:"load_notes,omitempty"` // what the reader ignored, e.g. "weights in column 3 ignored: ..."
	// How the file was read besides its format (prlab verify rereads it so):
	// each edge stored both ways, and the csv/tsv source and target columns.
	Undirected bool     `json:"undirected,omitempty"`
	Columns    []string `json:"columns,omitempty"`
	// Metadata coverage: graph nodes with a metadata row, and metadata rows
	// for ids that are not in the graph (allowed, counted).
	MetadataPath       string `json:"metadata_path,omitempty"`
	WithMetadata       int    `json:"with_metadata"`
	MetadataNotInGraph int    `json:"metadata_not_in_graph"`
	// MetadataColumns: which of "year", "title", "label" the metadata has
	// (nil in reports written before it existed: year and title).
	MetadataColumns []string `json:"metadata_columns,omitempty"`
}

// DisplayName is the graph's case name and, for the bundled graph (read
// from dataset.Dir, as the run's graph path says), what it is:
// "aan — ACL Anthology Network citation graph". Other graphs keep their name.
func (g GraphSummary) DisplayName() string {
	if g.Path != "" && filepath.ToSlash(filepath.Dir(g.Path)) == dataset.Dir {
		return g.Name + " — " + dataset.Title
	}
	return g.Name
}

// UserGraph reports whether the graph is a user's own graph file (prlab
// report --graph FILE) rather than the study's real graph, the AAN
// citation graph read from a data folder (data/aan or one laid out like
// it: dataset.IsEdgeFile). A run of synthetic cases only (no Path) has
// neither. Pages and messages call only the real graph "the real graph"
// and its case "real"; a user's graph goes by its case name (the file's
// base name or --name).
func (g GraphSummary) UserGraph() bool {
	return g.Path != "" && !dataset.IsEdgeFile(g.Path)
}

// Called is how a sentence names the graph: "the graph NAME" for a
// UserGraph, else "the real graph".
func (g GraphSummary) Called() string {
	if g.UserGraph() {
		return "the graph " + g.Name
	}
	return "the real graph"
}

// CaseLabel is the graph's case as the course's validation block heads it
// ("case real   N nodes, M edges"): its name for a UserGraph, else "real".
func (g GraphSummary) CaseLabel() string {
	if g.UserGraph() {
		return g.Name
	}
	return "real"
}

// Shows reports whether the top table has the metadata column col ("year",
// "title" or "label"): the columns the metadata file has.
func (g GraphSummary) Shows(col string) bool {
	if g.MetadataPath == "" {
		return false
	}
	if g.MetadataColumns == nil {
		return col == "year" || col == "title"
	}
	return slices.Contains(g.MetadataColumns, col)
}

// Subject is what a run covered, as the page's heading names it: the real
// graph's (or a user's graph's) case name, or, for a run of synthetic cases
// only (prlab report --cases tiny,star), those case names and "correctness only".
func (r *Run) Subject() string {
	if r.Graph.Name != "" {
		return r.Graph.Name
	}
	names := make([]string, 0, len(r.Cases))
	for _, c := range r.Cases {
		names = append(names, c.Name)
	}
	if len(names) == 0 {
		return "no case (correctness only)"
	}
	return strings.Join(names, ", ") + " (correctness only)"
}

// CaseSummary names one case and its shape.
type CaseSummary struct {
	Name     string `json:"name"`
	N        int    `json:"n"`
	NNZ      int    `json:"nnz"`
	Dangling int    `json:"dangling"`
	Real     bool   `json:"real"`
}

// StudyHeader opens the scale and incremental study documents (scale.json,
// incremental.json): the schema, the study's name (normally the report
// directory's base name), the machine, and the GPU every GPU row ran on —
// or why GPU rows were skipped (once, not per row).
type StudyHeader struct {
	Schema     string      `json:"schema"`
	Name       string      `json:"name"`
	Env        Environment `json:"environment"`
	GPU        *GPUContext `json:"gpu,omitempty"`
	GPUSkipped string      `json:"gpu_skipped,omitempty"` // why GPU rows were skipped, when they were
}

// Impl is one registered implementation and whether it could run here.
type Impl struct {
	Name      string             `json:"name"`
	Label     string             `json:"label"`
	Kind      string             `json:"kind"` // KindCPU, KindGPU or KindExercise
	Precision pagerank.Precision `json:"precision"`
	Available bool               `json:"available"`
	Reason    string             `json:"reason,omitempty"` // why not available
}

// Identity names the implementation a row measured; every row of every
// table (correctness, convergence, timing, scale, incremental) embeds it, so
// JSON and CSV carry the same four columns under the same names.
type Identity struct {
	Implementation string             `json:"implementation" csv:"implementation"`
	Label          string             `json:"label" csv:"label"`
	Kind           string             `json:"kind" csv:"kind"` // KindCPU, KindGPU or KindExercise
	Precision      pagerank.Precision `json:"precision" csv:"precision"`
}

// GraphSize is the shape of the graph a row ran on: N nodes and NNZ
// directed edges (self-loops and duplicates dropped). The correctness,
// scale and incremental rows embed it beside the name of their graph.
type GraphSize struct {
	N   int `json:"n" csv:"n"`
	NNZ int `json:"nnz" csv:"nnz"`
}

// SizeOf is g's GraphSize.
func SizeOf(g *pagerank.Graph) GraphSize { return GraphSize{N: g.N, NNZ: g.NNZ} }

// SumAndSpearman holds the two gates of a validation (pagerank.Validate)
// that every correctness, convergence and incremental check row records:
// SumMinus1 = sum(ranks) − 1, which passes when |SumMinus1| <= SumAllowed =
// 4·FLT_EPSILON·sqrt(n), and Spearman's rho over the oracle's top 100 (gate
// 0.999). Embedded where the three columns stand together, so JSON and CSV
// write them in place under the same names. NaN (null in JSON, empty in
// CSV) where the row was not validated.
type SumAndSpearman struct {
	SumMinus1  F `json:"sum_minus_1" csv:"sum_minus_1"`
	SumAllowed F `json:"sum_allowed" csv:"sum_allowed"`
	Spearman   F `json:"spearman" csv:"spearman"`
}

// SumAndSpearmanOf keeps the sum and Spearman numbers of v.
func SumAndSpearmanOf(v pagerank.Validation) SumAndSpearman {
	return SumAndSpearman{SumMinus1: F(v.SumMinus1), SumAllowed: F(v.SumAllowed), Spearman: F(v.Spearman)}
}

// Unvalidated is the SumAndSpearman of a row that was not validated: NaN sum
// and rho beside allowed, the bound the row would have been held to (NaN
// where not known).
func Unvalidated(allowed F) SumAndSpearman {
	return SumAndSpearman{SumMinus1: NaN, SumAllowed: allowed, Spearman: NaN}
}

// Check is one case × implementation correctness row: Iterations fixed
// iterations validated against the oracle's Result for the same iterations.
// SumMinus1 is sum(ranks) − 1, allowed |SumMinus1| <= SumAllowed =
// 4·FLT_EPSILON·sqrt(n); Spearman is rho over the oracle's top 100 (gate
// 0.999); ErrOverTol is the largest per-element error as a multiple of the
// tolerance documented by pagerank.Validate. Numbers are NaN (null in JSON,
// empty in CSV) when the row did not run.
type Check struct {
	Case string `json:"case" csv:"case"`
	Identity
	GraphSize
	Iterations int `json:"iterations" csv:"iterations"`
	Outcome
	ErrOverTol F `json:"err_over_tol" csv:"err_over_tol"`
	MaxRelErr  F `json:"max_rel_err" csv:"max_rel_err"`
	SumAndSpearman
	SumPass      bool `json:"sum_pass" csv:"sum_pass"`
	SpearmanPass bool `json:"spearman_pass" csv:"spearman_pass"`
	ErrPass      bool `json:"err_pass" csv:"err_pass"`
	// Top is this row's own top-k node ids (k = the protocol's SpearmanTopK),
	// highest rank first, for re-verification; empty when the row did not
	// run and in reports written before it was kept.
	Top []string `json:"top,omitempty" csv:"-"`
}

// Convergence is one implementation's tolerance-mode run on the real graph:
// iterations until the L1 residual fell under Tolerance, and the converged
// ranks validated against the oracle's converged ranks.
type Convergence struct {
	Identity
	Tolerance     float64 `json:"tolerance" csv:"tolerance"`
	Iterations    int     `json:"iterations" csv:"iterations"`
	Converged     bool    `json:"converged" csv:"converged"`
	FinalResidual F       `json:"final_residual" csv:"final_residual"`
	SumAndSpearman
	Outcome
	Top []string `json:"top,omitempty" csv:"-"` // this row's top-k ids (see Check.Top)
}

// TopRow is one row of the top-k table (the course prints 20): a highly
// ranked paper should have a high in-degree; a top list of high out-degree
// papers means the graph was transposed the wrong way.
type TopRow struct {
	Rank      int     `json:"rank" csv:"rank"` // 1-based
	Score     float64 `json:"score" csv:"score"`
	InDegree  int     `json:"in_degree" csv:"in_degree"`
	OutDegree int     `json:"out_degree" csv:"out_degree"`
	ID        string  `json:"id" csv:"id"`
	Year      int     `json:"year" csv:"year"` // 0 when unknown
	Title     string  `json:"title" csv:"title"`
	Label     string  `json:"label,omitempty" csv:"label"`
	Known     bool    `json:"known" csv:"known"` // the id has a metadata row
}

// TimingRow is one implementation's timing on the real graph: Timing.Runs
// runs of Timing.Iterations iterations after Timing.Warmups warm-ups, by CUDA
// events around warmed kernels (GPU) or Go's monotonic wall clock (CPU).
// GBps = BytesPerIteration·iterations / median time; XDRAM is GBps over the
// 128 MiB device-to-device copy row (GPU only; NaN otherwise).
type TimingRow struct {
	Identity
	Case                  string           `json:"case" csv:"case"`
	Outcome                                // StatusPass (timed), StatusFailed or StatusSkipped
	Timing                pagerank.Timing  `json:"timing" csv:"timing"`
	BytesPerIteration     int64            `json:"bytes_per_iteration" csv:"bytes_per_iteration"`
	BytesFormula          string           `json:"bytes_formula,omitempty" csv:"bytes_formula"`
	GBps                  F                `json:"gbps" csv:"gbps"`
	XDRAM                 F                `json:"x_dram" csv:"x_dram"`
	LaunchesPerIteration  float64          `json:"launches_per_iteration" csv:"launches_per_iteration"`
	HostSyncsPerIteration float64          `json:"host_syncs_per_iteration" csv:"host_syncs_per_iteration"`
	Stages                []pagerank.Stage `json:"stages,omitempty" csv:"-"`
}

// GPUContext is the GPU and toolkit every GPU number was measured on.
type GPUContext struct {
	Name               string `json:"name"`
	ComputeCapability  string `json:"compute_capability"` // "major.minor", e.g. "9.0"
	SMs                int    `json:"sms"`
	L2Bytes            int64  `json:"l2_bytes"`
	MaxThreadsPerBlock int    `json:"max_threads_per_block"`
	GlobalMemBytes     int64  `json:"global_mem_bytes,omitempty"`
	Driver             string `json:"driver"`                  // CUDA driver API version, "major.minor"
	KernelDriver       string `json:"kernel_driver,omitempty"` // NVIDIA kernel module version, e.g. "580.159.04" (/proc/driver/nvidia/version); empty where unreadable or in reports before it was recorded
	Runtime            string `json:"runtime"`
	CCCL               string `json:"cccl,omitempty"`
	Library            string `json:"library,omitempty"` // path of the CUDA library that was loaded
}

// TierRow grades one GPU implementation with the course's tier table (see
// Thresholds): pass = all six cases (and the real graph) correct; bronze =
// pass and faster than the thread-per-row implementation on the timed case;
// silver = bronze, write budgets met, and end-to-end effective bandwidth at
// least Silver × the DRAM copy row; gold = silver at Gold × with CV < 5 %.
type TierRow struct {
	Implementation string `json:"implementation" csv:"implementation"`
	Label          string `json:"label" csv:"label"`
	Tier           string `json:"tier" csv:"tier"` // "none", "pass", "bronze", "silver" or "gold"
	AllCorrect     bool   `json:"all_correct" csv:"all_correct"`
	BeatsBaseline  bool   `json:"beats_baseline" csv:"beats_baseline"`
	Baseline       string `json:"baseline" csv:"baseline"`         // implementation the bronze line compares against
	WriteBudget    string `json:"write_budget" csv:"write_budget"` // "met", "not met" or "not checked"
	Fraction       F      `json:"fraction" csv:"fraction"`         // end-to-end GB/s over the DRAM copy row's GB/s
	CV             F      `json:"cv" csv:"cv"`                     // of the timed runs, fraction
	Silver         F      `json:"silver" csv:"silver"`             // threshold fraction for this compute capability
	Gold           F      `json:"gold" csv:"gold"`
	Calibrated     bool   `json:"calibrated" csv:"calibrated"` // the course measured a passing result for this column
	Column         string `json:"column" csv:"column"`         // the course column used, e.g. "9.0, 10.0"
	Why            string `json:"why" csv:"why"`               // the first requirement the next tier misses
}

// F is a float64 that encodes NaN and ±Inf as JSON null and as an empty CSV
// cell (encoding/json cannot write them), and decodes null/empty back to NaN.
type F float64

// NaN is the "no value" F.
var NaN = F(math.NaN())

// Valid reports whether f holds a finite number.
func (f F) Valid() bool { return !math.IsNaN(float64(f)) && !math.IsInf(float64(f), 0) }

// MarshalJSON writes null for a non-finite value.
func (f F) MarshalJSON() ([]byte, error) {
	if !f.Valid() {
		return []byte("null"), nil
	}
	return json.Marshal(float64(f))
}

// UnmarshalJSON reads a number, or null as NaN.
func (f *F) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = NaN
		return nil
	}
	var x float64
	if err := json.Unmarshal(b, &x); err != nil {
		return fmt.Errorf("want a number or null, got %s", clip(string(b)))
	}
	*f = F(x)
	return nil
}

// MarshalCSV writes an empty cell for a non-finite value (gocsv TypeMarshaller).
func (f F) MarshalCSV() (string, error) {
	if !f.Valid() {
		return "", nil
	}
	return strconv.FormatFloat(float64(f), 'g', -1, 64), nil
}

// UnmarshalCSV reads a number, or an empty cell as NaN (gocsv TypeUnmarshaller).
func (f *F) UnmarshalCSV(s string) error {
	if s == "" {
		*f = NaN
		return nil
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("want a number or an empty cell, got %q", clip(s))
	}
	*f = F(x)
	return nil
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}
