package report

import (
	"fmt"
	"math"

	"github.com/prlab/prlab/pkg/pagerank"
)

// The scale study (the tiered study's phase 6): every CPU and GPU
// implementation on RMAT graphs (and 2-D grids of comparable n) from 2^16 to
// 2^24 nodes in one run, time per iteration, GTEPS, the byte floor, the
// CPU/GPU crossover and the goals of issue 5. pkg/study.RunScale fills a
// ScaleStudy; WriteScale writes it as scale.json, the scale-*.csv tables (csv.go) and index.html.

// ScaleSchema identifies the layout of scale.json; Read[ScaleStudy] rejects any other value.
const ScaleSchema = "prlab/scale/v1"

// File names inside a scale-study report directory.
const (
	ScaleJSONFile = "scale.json"
)

// Graph families of the scale study.
const (
	FamilyRMAT = "rmat" // Graph500 R-MAT: power-law degrees, low diameter
	FamilyGrid = "grid" // 2-D grid: no degree skew, diameter 2(side-1)
	FamilyFile = "file" // a graph file the user gave (prlab scale --graph)
)

// Goal statuses.
const (
	GoalMet         = "met"
	GoalNotMet      = "not met"
	GoalNotMeasured = "not measured"
	// GoalNotComparable: measured, but against a figure for a different
	// graph, so the comparison settles nothing either way.
	GoalNotComparable = "not comparable: different graphs"
)

// ScaleStudy is one scale-study run: what scale.json holds and all the page needs.
type ScaleStudy struct {
	StudyHeader
	Protocol ScaleProtocol `json:"protocol"`
	// Plan is the plan printed before the run started (estimated times).
	Plan []string `json:"plan"`
	// Bandwidth holds the copy rows every byte floor divides by: the GPU's
	// 128 MiB device-to-device copy (from pkg/cudabind) and the host's large
	// memcpy, single-threaded and with every core. Bytes count read + written.
	Bandwidth []pagerank.Stage `json:"bandwidth"`
	Graphs    []ScaleGraph     `json:"graphs"`
	Rows      []ScaleRow       `json:"rows"`
	Goals     []Goal           `json:"goals"`
	Notes     []string         `json:"notes,omitempty"`
	ElapsedS  float64          `json:"elapsed_s"` // wall time of the whole study, seconds
	// Complete is false in a checkpoint written while the study was still
	// running (after each graph), so that a run killed from outside still
	// leaves the graphs it finished.
	Complete bool `json:"complete"`
	// CPUBaselineDir is the directory, relative to the report's, of the
	// gap-vs-t1.csv and t1-scaling.csv the page draws (AttachCPUBaseline);
	// CPUBaseline holds them while rendering and is not part of scale.json.
	CPUBaselineDir string       `json:"cpu_baseline_dir,omitempty"`
	CPUBaseline    *CPUBaseline `json:"-"`
}

// ScaleProtocol states how the scale study measured, in words and numbers,
// so every number in the report can be read without the code.
type ScaleProtocol struct {
	Damping            float64 `json:"damping"`
	ValidateIterations int     `json:"validate_iterations"` // fixed iterations of every validation run
	Seed               uint64  `json:"seed"`                // R-MAT seed
	EdgeFactor         int     `json:"edge_factor"`         // R-MAT edges generated per node (16)
	A                  float64 `json:"a"`                   // R-MAT quadrant probabilities (Graph500: 0.57, 0.19, 0.19)
	B                  float64 `json:"b"`
	C                  float64 `json:"c"`
	MinScale           int     `json:"min_scale"`
	MaxScale           int     `json:"max_scale"`
	Grid               bool    `json:"grid"`          // 2-D grids of comparable n were run too
	BudgetS            float64 `json:"budget_s"`      // time budget, seconds
	OracleRule         string  `json:"oracle_rule"`   // when the float64 sequential oracle runs, and what validates the rest
	Reference          string  `json:"reference"`     // how each row is validated
	CPUTiming          string  `json:"cpu_timing"`    // how CPU time per iteration is measured
	GPUTiming          string  `json:"gpu_timing"`    // how GPU time per iteration is measured
	Ladder             string  `json:"ladder"`        // iterations x runs used as the sizes grow
	FloorFormula       string  `json:"floor_formula"` // the byte floor and the copy rows it divides by
	EdgeCount          string  `json:"edge_count"`    // what prlab counts as an edge (GTEPS, ns per edge)
	// Workers is the goroutine count of the multi-core CPU rows (T1) and of
	// the multi-core memcpy row (--workers, default GOMAXPROCS); generation and
	// the build use GOMAXPROCS. 0 in studies from before it was recorded.
	Workers int `json:"workers,omitempty"`
	// Rung is the fixed protocol every row was timed with ("50x5": 50
	// iterations x 5 runs, one warm-up first) when the study ran with --rung,
	// which applies no time budget (BudgetS is then not used); "" when the
	// rows were fitted to BudgetS, and in studies from before it was recorded.
	Rung string `json:"rung,omitempty"`
}

// ScaleRung is one timing protocol of a scale study's row: Iterations per
// timed run, Warmups untimed runs first, then Runs timed runs.
type ScaleRung struct{ Iterations, Warmups, Runs int }

// String is the rung as --rung reads it, ITERATIONSxRUNS ("50x5").
func (r ScaleRung) String() string { return fmt.Sprintf("%dx%d", r.Iterations, r.Runs) }

// Words is the rung for a reader: "50 iterations × 5 runs after one warm-up".
func (r ScaleRung) Words() string {
	w := "no warm-up"
	switch {
	case r.Warmups == 1:
		w = "one warm-up"
	case r.Warmups > 1:
		w = fmt.Sprintf("%d warm-ups", r.Warmups)
	}
	return fmt.Sprintf("%d iterations × %d runs after %s", r.Iterations, r.Runs, w)
}

// ScaleLadder is the timing protocol per row of a study fitted to a time
// budget, from the course's (50 iterations, 3 warm-ups, 10 runs) down to two
// runs of 5 iterations without warm-up. pkg/study's planner starts every
// row on step 0 and steps the most expensive rows down until the estimated
// study fits the budget; the step a row ran on is in its Timing
// (iterations, warm-ups, number of runs).
var ScaleLadder = []ScaleRung{
	{pagerank.TimingIterations, pagerank.TimingWarmups, pagerank.TimingRuns},
	{20, 1, 5},
	{10, 1, 3},
	{5, 1, 3},
	{5, 0, 2},
}

// FixedRung is the one protocol every row of s was timed with when the
// study ran with --rung (which times every row after one warm-up), or nil
// when its rows were fitted to the time budget. It is Protocol.Rung where
// the study recorded it. A study from before Protocol.Rung was recorded
// says it only through its rows: when every timed row ran the same K
// iterations (K-1 for a CPU row, whose time is the difference of a K- and a
// 1-iteration run), warm-ups and runs, and that protocol is no step of
// ScaleLadder, the budget did not choose it, so it was a fixed rung.
func (s *ScaleStudy) FixedRung() *ScaleRung {
	if s.Protocol.Rung != "" {
		r := ScaleRung{Warmups: 1}
		if n, err := fmt.Sscanf(s.Protocol.Rung, "%dx%d", &r.Iterations, &r.Runs); err != nil || n != 2 || r.String() != s.Protocol.Rung {
			return nil // Validate rejects such a document
		}
		return &r
	}
	var rows []pagerank.Timing
	k := 0
	for _, r := range s.Rows {
		if len(r.Timing.RunsMs) > 0 {
			rows = append(rows, r.Timing)
			k = max(k, r.Timing.Iterations)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	rung := ScaleRung{k, rows[0].Warmups, len(rows[0].RunsMs)}
	for _, t := range rows {
		if t.Warmups != rung.Warmups || len(t.RunsMs) != rung.Runs || (t.Iterations != k && t.Iterations != k-1) {
			return nil
		}
	}
	for _, l := range ScaleLadder {
		if l.Warmups == rung.Warmups && l.Runs == rung.Runs && (l.Iterations == k || l.Iterations == k+1) {
			return nil
		}
	}
	return &rung
}

// ScaleGraph is one graph of the study.
type ScaleGraph struct {
	Family string `json:"family" csv:"family"` // FamilyRMAT, FamilyGrid or FamilyFile
	Scale  int    `json:"scale" csv:"scale"`   // n = 2^Scale (grid: side^2 with side = round(2^(Scale/2)); file: the smallest Scale with 2^Scale >= n)
	Name   string `json:"name" csv:"name"`
	Path   string `json:"path,omitempty" csv:"path"`     // FamilyFile: the file read
	Format string `json:"format,omitempty" csv:"format"` // FamilyFile: its format (pagerank.Format)
	// FamilyFile: each edge stored both ways, and the csv/tsv columns read.
	Undirected   bool     `json:"undirected,omitempty" csv:"undirected"`
	Columns      []string `json:"columns,omitempty" csv:"-"`
	GraphSize             // NNZ: directed edges after dropping self-loops and duplicates
	SelfLoops    int      `json:"self_loops" csv:"self_loops"`
	Duplicates   int      `json:"duplicates" csv:"duplicates"`
	Dangling     int      `json:"dangling" csv:"dangling"`
	MaxInDegree  int      `json:"max_in_degree" csv:"max_in_degree"`
	MaxOutDegree int      `json:"max_out_degree" csv:"max_out_degree"`
	BuildMs      float64  `json:"build_ms" csv:"build_ms"` // edge generation + parallel CSR and transpose build, wall ms
	// Reference is the implementation every row on this graph is validated
	// against; ReferenceNote says why when it is not the oracle.
	Reference     string `json:"reference" csv:"reference"`
	ReferenceNote string `json:"reference_note,omitempty" csv:"reference_note"`
	Skipped       string `json:"skipped,omitempty" csv:"skipped"` // why the graph was not run (time budget), if it was not
}

// ScaleRow is one implementation on one graph of the scale study.
//
// Units: MsPerIter in milliseconds (median of Timing's runs / Timing.Iterations);
// GTEPS = NNZ / (MsPerIter * 1e6), giga traversed edges per second of one
// iteration; NsPerEdge = MsPerIter * 1e6 / NNZ; FloorBytes the byte floor of
// one iteration at this row's precision; FloorMs = FloorBytes / (CopyGBps *
// 1e6); FloorFraction = FloorMs / MsPerIter (1 = at the floor);
// CodeFloorBytes, CodeFloorMs and CodeFloorFraction the same for the second,
// compressed-stream floor (the 16-bit column code's 2 bytes per edge in
// place of colIdx's 4; 0 bytes in reports from before it was computed);
// SpeedupVsCPU = the fastest multi-core CPU row's MsPerIter on this graph /
// this row's (GPU rows; > 1 means the GPU wins).
type ScaleRow struct {
	Family string `json:"family" csv:"family"`
	Scale  int    `json:"scale" csv:"scale"`
	Graph  string `json:"graph" csv:"graph"`
	GraphSize
	Identity
	Outcome                    // StatusPass, StatusFail (validation), StatusFailed (error) or StatusSkipped
	Reference  string          `json:"reference" csv:"reference"` // what the ranks were validated against
	ErrOverTol F               `json:"err_over_tol" csv:"err_over_tol"`
	SumMinus1  F               `json:"sum_minus_1" csv:"sum_minus_1"`
	Spearman   F               `json:"spearman" csv:"spearman"`
	Timing     pagerank.Timing `json:"timing" csv:"timing"`
	MsPerIter  F               `json:"ms_per_iter" csv:"ms_per_iter"`
	GTEPS      F               `json:"gteps" csv:"gteps"`
	NsPerEdge  F               `json:"ns_per_edge" csv:"ns_per_edge"`
	// BytesPerIteration is the implementation's own count of one iteration's
	// traffic (GPU implementations; 0 when not counted).
	BytesPerIteration int64  `json:"bytes_per_iteration" csv:"bytes_per_iteration"`
	FloorBytes        int64  `json:"floor_bytes" csv:"floor_bytes"`
	CopyRow           string `json:"copy_row" csv:"copy_row"` // name of the Bandwidth row the floor divides by
	CopyGBps          F      `json:"copy_gbps" csv:"copy_gbps"`
	FloorMs           F      `json:"floor_ms" csv:"floor_ms"`
	FloorFraction     F      `json:"floor_fraction" csv:"floor_fraction"`
	CodeFloorBytes    int64  `json:"code_floor_bytes" csv:"code_floor_bytes"`
	CodeFloorMs       F      `json:"code_floor_ms" csv:"code_floor_ms"`
	CodeFloorFraction F      `json:"code_floor_fraction" csv:"code_floor_fraction"`
	SpeedupVsCPU      F      `json:"speedup_vs_cpu" csv:"speedup_vs_cpu"`
}

// Goal is one goal of the scale study (GPU time, GPU speed-up, Go CPU against GAP) next to the number this run measured.
type Goal struct {
	Name     string `json:"name" csv:"name"`
	Target   string `json:"target" csv:"target"`     // the goal in words, with its source
	Measured string `json:"measured" csv:"measured"` // the measured number in words
	Value    F      `json:"value" csv:"value"`       // the measured number the goal compares (unit in Target)
	Limit    F      `json:"limit" csv:"limit"`       // the number it is compared with
	Status   string `json:"status" csv:"status"`     // GoalMet, GoalNotMet or GoalNotMeasured
	Note     string `json:"note,omitempty" csv:"note"`
}

// GTEPS is giga traversed edges per second of one iteration: nnz edges in
// msPerIter milliseconds is nnz / (msPerIter * 1e6). NaN unless msPerIter > 0.
func GTEPS(nnz int, msPerIter float64) float64 {
	if !(msPerIter > 0) {
		return math.NaN()
	}
	return float64(nnz) / (msPerIter * 1e6)
}

// ScaleFiles renders s into the files of a scale report directory
// (scale.json, the tables of ScaleCSV, index.html), keyed by name, for
// OutDir.Write.
func ScaleFiles(s *ScaleStudy) (map[string][]byte, error) {
	return studyFiles(s, ScaleCSV, RenderScaleHTML)
}

// studyFiles renders a study into its report directory's files, keyed by
// name: the JSON document (Encode, which also sanitizes s), its CSV tables
// (tables) and index.html (page).
func studyFiles[T Document, PT document[T]](s PT, tables func(PT) (map[string][]byte, error), page func(PT) ([]byte, error)) (map[string][]byte, error) {
	b, err := Encode(s)
	if err != nil {
		return nil, err
	}
	out, err := tables(s)
	if err != nil {
		return nil, err
	}
	_, file := s.schemaFile()
	out[file] = b
	if out[HTMLFile], err = page(s); err != nil {
		return nil, err
	}
	return out, nil
}

// WriteScale renders s in memory and writes dir as one unit (WriteDir).
func WriteScale(dir string, s *ScaleStudy) error {
	return writeRendered(dir)(ScaleFiles(s))
}

// sanitize makes s encodable: non-finite plain float64 values (which
// encoding/json cannot write) become 0, and non-finite timed runs are cut;
// F fields encode NaN as null themselves.
func (s *ScaleStudy) sanitize() {
	if s.Schema == "" {
		s.Schema = ScaleSchema
	}
	zero := func(ps ...*float64) {
		for _, p := range ps {
			if math.IsNaN(*p) || math.IsInf(*p, 0) {
				*p = 0
			}
		}
	}
	for i := range s.Bandwidth {
		b := &s.Bandwidth[i]
		zero(&b.Ms, &b.GBps, &b.XDRAM)
	}
	for i := range s.Rows {
		t := &s.Rows[i].Timing
		zero(&t.MeanMs, &t.MedianMs, &t.StdMs, &t.CV)
		for k, x := range t.RunsMs {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				t.RunsMs = t.RunsMs[:k]
				break
			}
		}
	}
	for i := range s.Graphs {
		zero(&s.Graphs[i].BuildMs)
	}
	zero(&s.ElapsedS, &s.Protocol.BudgetS, &s.Protocol.Damping, &s.Protocol.A, &s.Protocol.B, &s.Protocol.C)
}

var families = []string{FamilyRMAT, FamilyGrid, FamilyFile}
var goalStatuses = []string{GoalMet, GoalNotMet, GoalNotMeasured, GoalNotComparable}

// Validate checks the invariants the page and the readers rely on; the error names the field.
func (s *ScaleStudy) Validate() error {
	if err := checkHead(s.Schema, ScaleSchema, s.Name, s.Env.Date); err != nil {
		return err
	}
	if r := s.Protocol.Rung; r != "" && s.FixedRung() == nil {
		return fmt.Errorf("protocol.rung: %q, want ITERATIONSxRUNS such as 50x5", clip(r))
	}
	graphs := map[string]bool{}
	if err := eachRow(s.Graphs, "graphs", func(p string, g ScaleGraph) error {
		if err := oneOf(p+".family", g.Family, families); err != nil {
			return err
		}
		if err := unique(graphs, p+".name", g.Name); err != nil {
			return err
		}
		if g.N < 0 || g.NNZ < 0 {
			return fmt.Errorf("%s: n %d and nnz %d must be >= 0", p, g.N, g.NNZ)
		}
		return nil
	}); err != nil {
		return err
	}
	if err := eachRow(s.Rows, "rows", func(p string, r ScaleRow) error {
		if !graphs[r.Graph] {
			return fmt.Errorf("%s.graph: %q is not in graphs", p, clip(r.Graph))
		}
		if err := r.Identity.check(p, r.Status); err != nil {
			return err
		}
		if r.N < 0 || r.NNZ < 0 || r.FloorBytes < 0 || r.CodeFloorBytes < 0 || r.BytesPerIteration < 0 {
			return fmt.Errorf("%s: n, nnz and byte counts must be >= 0", p)
		}
		return timedRuns(p+".timing.runs_ms", r.Timing.RunsMs)
	}); err != nil {
		return err
	}
	return eachRow(s.Goals, "goals", func(p string, g Goal) error { return oneOf(p+".status", g.Status, goalStatuses) })
}
