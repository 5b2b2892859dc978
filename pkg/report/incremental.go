package report

import (
	"fmt"

	"github.com/prlab/prlab/pkg/pagerank"
)

// The incremental study: PageRank after batches of edge updates. Each batch
// is applied to the held graph (pagerank.ApplyBatch on the CPU tier) and the
// ranks recomputed from the previous ones (warm start), next to a cold
// recompute that rebuilds the graph and starts from 1/n. pkg/study's
// RunIncremental fills an IncrementalStudy; WriteIncremental writes it as
// incremental.json, the incremental-*.csv tables (csv.go) and index.html.

// IncrementalSchema identifies the layout of incremental.json; Read[IncrementalStudy] rejects any other value.
const IncrementalSchema = "prlab/incremental/v1"

// File names inside an incremental-study report directory.
const (
	IncrementalJSONFile = "incremental.json"
)

// Workload kinds.
const (
	WorkloadByYear = "by-year" // a citation graph as it grew: one batch per year (new papers and their citations)
	WorkloadRandom = "random"  // seeded random batches of a fraction of the edges, each applied to the same base graph
)

// Batch kinds: a year of the by-year workload, or a random batch kind (pagerank.BatchKinds).
const BatchYear = "year"

// IncrementalStudy is one incremental-study run: what incremental.json holds
// and all the page needs.
type IncrementalStudy struct {
	StudyHeader
	Protocol   IncrementalProtocol `json:"protocol"`
	Workloads  []Workload          `json:"workloads"`
	Batches    []BatchRow          `json:"batches"`
	Rows       []IncrementalRow    `json:"rows"`
	Years      []YearTop           `json:"years,omitempty"`
	Crossovers []Crossover         `json:"crossovers"`
	Findings   []string            `json:"findings"` // the summary, sentence by sentence
	Notes      []string            `json:"notes,omitempty"`
	ElapsedS   float64             `json:"elapsed_s"`
	// Complete is false in a checkpoint written while the study still ran.
	Complete bool `json:"complete"`
}

// IncrementalProtocol states how the study measured, in numbers and words.
type IncrementalProtocol struct {
	Damping         float64   `json:"damping"`
	FloatTolerance  float64   `json:"float_tolerance"`  // L1 residual tolerance of float32 rows
	OracleTolerance float64   `json:"oracle_tolerance"` // L1 residual tolerance of float64 rows and of the oracle
	MaxIterations   int       `json:"max_iterations"`
	Warmups         int       `json:"warmups"`
	Runs            int       `json:"runs"`
	Workers         int       `json:"workers"` // goroutines of the update, the rebuild and T1
	Seed            uint64    `json:"seed"`    // random batches and R-MAT
	Fractions       []float64 `json:"fractions"`
	Kinds           []string  `json:"kinds"`
	MinPapers       int       `json:"min_papers"` // by-year: the first snapshot is the first year with this many papers
	LastYear        int       `json:"last_year"`
	Update          string    `json:"update"`     // how a batch is applied and timed
	Warm            string    `json:"warm"`       // the warm start
	Cold            string    `json:"cold"`       // the cold recompute
	Validation      string    `json:"validation"` // what each row is validated against, with the gates
	Speedup         string    `json:"speedup"`    // the speed-up's formula
	Clock           string    `json:"clock"`
}

// Workload is one sequence or set of batches on one graph.
type Workload struct {
	Name    string  `json:"name"` // e.g. "aan-by-year", "rmat20"
	Kind    string  `json:"kind"` // WorkloadByYear or WorkloadRandom
	Graph   string  `json:"graph"`
	Source  string  `json:"source"` // file path, or the generator and its parameters
	N       int     `json:"n"`      // base graph (first snapshot)
	NNZ     int     `json:"nnz"`
	BuildMs float64 `json:"build_ms"` // building the base graph once, wall ms
	Note    string  `json:"note,omitempty"`
}

// BatchID names one batch of an incremental study: its workload and its
// name within the workload (a year, or "insert 0.1%"). The batch rows and
// the implementation rows embed it, so JSON and CSV carry the two columns
// under the same names.
type BatchID struct {
	Workload string `json:"workload" csv:"workload"`
	Batch    string `json:"batch" csv:"batch"` // year, or "insert 0.1%"
}

// Case is the batch as one case name, "workload batch" (e.g. "aan-by-year
// 1987"), as verify.json's rows and timings name it.
func (b BatchID) Case() string { return b.Workload + " " + b.Batch }

// BatchRow is one batch: its size, what applying it did, and the graph-update
// timings (shared by every implementation row of the batch on the CPU).
//
// Update times pagerank.ApplyBatch on the graph before the batch (merge of
// the batch into both CSRs); Rebuild times pagerank.NewGraphParallel on the
// edge list after the batch (what a cold recompute pays on the host first).
// Both in ms, every run kept.
type BatchRow struct {
	BatchID
	Kind      string `json:"kind" csv:"kind"` // BatchYear or a random kind
	Fraction  F      `json:"fraction" csv:"fraction"`
	Year      int    `json:"year,omitempty" csv:"year"`
	NBefore   int    `json:"n_before" csv:"n_before"`
	NNZBefore int    `json:"nnz_before" csv:"nnz_before"`
	N         int    `json:"n" csv:"n"`
	NNZ       int    `json:"nnz" csv:"nnz"`
	Dangling  int    `json:"dangling" csv:"dangling"`
	Requested int    `json:"requested" csv:"requested"` // insertions + deletions in the batch
	pagerank.BatchStats
	Update         pagerank.Timing `json:"update" csv:"update"`
	Rebuild        pagerank.Timing `json:"rebuild" csv:"rebuild"`
	UpdateSpeedup  F               `json:"update_speedup" csv:"update_speedup"` // rebuild median / update median
	MatchesRebuild bool            `json:"matches_rebuild" csv:"matches_rebuild"`
	Mismatch       string          `json:"mismatch,omitempty" csv:"mismatch"` // the first differing array when it does not
	// DanglingMass is the rank on dangling nodes of the oracle's warm-start
	// vector on the updated graph; DanglingMassRebuild the same on the rebuilt one (equal when the structures are).
	DanglingMass        F   `json:"dangling_mass" csv:"dangling_mass"`
	DanglingMassRebuild F   `json:"dangling_mass_rebuild" csv:"dangling_mass_rebuild"`
	OracleIterations    int `json:"oracle_iterations" csv:"oracle_iterations"` // the oracle's cold start to its tolerance
}

// GateCheck is one validation with the study's gates (pagerank.Validate).
type GateCheck struct {
	Against    string `json:"against" csv:"against"` // what it was compared with
	ErrOverTol F      `json:"err_over_tol" csv:"err_over_tol"`
	SumAndSpearman
	Pass   bool   `json:"pass" csv:"pass"`
	Reason string `json:"reason,omitempty" csv:"reason"`
}

// IncrementalRow is one implementation on one batch. Times in ms (medians
// of the runs in the Timings): IncrementalMs = UpdateMs + Warm median;
// RecomputeMs = BuildMs + LoadMs + Cold median; Speedup = RecomputeMs /
// IncrementalMs (> 1: the incremental path wins). LoadMs is the upload of
// the rebuilt graph (GPU tiers; 0 on the CPU, whose graph is already in
// memory). IterationRatio = WarmIterations / ColdIterations.
type IncrementalRow struct {
	BatchID
	BatchKind      string          `json:"batch_kind" csv:"batch_kind"`
	Fraction       F               `json:"fraction" csv:"fraction"`
	Year           int             `json:"year,omitempty" csv:"year"`
	GraphSize                      // of the graph after the batch
	Identity                       // Kind: KindCPU or KindGPU
	Tolerance      float64         `json:"tolerance" csv:"tolerance"`
	Outcome                        // StatusPass: warm, cold and their agreement pass every gate
	WarmIterations int             `json:"warm_iterations" csv:"warm_iterations"`
	ColdIterations int             `json:"cold_iterations" csv:"cold_iterations"`
	WarmConverged  bool            `json:"warm_converged" csv:"warm_converged"`
	ColdConverged  bool            `json:"cold_converged" csv:"cold_converged"`
	Warm           pagerank.Timing `json:"warm" csv:"warm"`
	Cold           pagerank.Timing `json:"cold" csv:"cold"`
	UpdateMs       F               `json:"update_ms" csv:"update_ms"`
	BuildMs        F               `json:"build_ms" csv:"build_ms"`
	LoadMs         F               `json:"load_ms" csv:"load_ms"`
	IncrementalMs  F               `json:"incremental_ms" csv:"incremental_ms"`
	RecomputeMs    F               `json:"recompute_ms" csv:"recompute_ms"`
	Speedup        F               `json:"speedup" csv:"speedup"`
	IterationRatio F               `json:"iteration_ratio" csv:"iteration_ratio"`
	WarmCheck      GateCheck       `json:"warm_check" csv:"warm_check"`
	ColdCheck      GateCheck       `json:"cold_check" csv:"cold_check"`
	Agreement      GateCheck       `json:"agreement" csv:"agreement"` // warm against cold
	// DeviceMs: a resident GPU tier's medians by CUDA events (nil for the others).
	DeviceMs *DeviceTimes `json:"device_ms,omitempty" csv:"device_ms"`
}

// DeviceTimes are a resident GPU tier's medians over the timed runs by CUDA
// events around each whole library call, in ms: the update (the batch's
// upload and the two read-backs included) and the warm and cold runs (the
// start's upload and the ranks' download included). The row's wall times
// add the host's side of the same calls (float64 <-> float conversions, cgo).
type DeviceTimes struct {
	UpdateMs F `json:"update_ms" csv:"update_ms"`
	WarmMs   F `json:"warm_ms" csv:"warm_ms"`
	ColdMs   F `json:"cold_ms" csv:"cold_ms"`
}

// YearTop is the top of one year's snapshot by the oracle's converged
// ranks, with the papers that entered and left it since the year before.
type YearTop struct {
	Year      int      `json:"year"`
	N         int      `json:"n"`
	NNZ       int      `json:"nnz"`
	NewPapers int      `json:"new_papers"`
	Top       []TopRow `json:"top"`
	Entered   []string `json:"entered,omitempty"` // ids new in the top this year
	Left      []string `json:"left,omitempty"`    // ids that dropped out of it
}

// Crossover is where an implementation's speed-up on one workload and batch
// kind falls below 1 as the batch grows: Below is the largest measured
// fraction still >= 1, Above the smallest measured fraction under 1 (NaN
// when every measured fraction is on one side).
type Crossover struct {
	Series
	Below F      `json:"below" csv:"below"`
	Above F      `json:"above" csv:"above"`
	Text  string `json:"text" csv:"text"`
}

// Series is what a crossover is found on and one line of the speed-up
// chart: one workload's batches of one kind, run by one implementation.
type Series struct {
	Workload       string `json:"workload" csv:"workload"`
	Implementation string `json:"implementation" csv:"implementation"`
	BatchKind      string `json:"batch_kind" csv:"batch_kind"`
}

// Series is the series r belongs to.
func (r IncrementalRow) Series() Series { return Series{r.Workload, r.Implementation, r.BatchKind} }

// IncrementalFiles renders s into the three files of an incremental report
// directory (incremental.json, the tables of IncrementalCSV, index.html), keyed by name,
// for OutDir.Write.
func IncrementalFiles(s *IncrementalStudy) (map[string][]byte, error) {
	return studyFiles(s, IncrementalCSV, RenderIncrementalHTML)
}

// WriteIncremental renders s in memory and writes dir as one unit (WriteDir).
func WriteIncremental(dir string, s *IncrementalStudy) error {
	return writeRendered(dir)(IncrementalFiles(s))
}

// sanitize zeroes non-finite plain floats (encoding/json cannot write them)
// and names them in the notes; F fields write NaN as null themselves.
func (s *IncrementalStudy) sanitize() {
	if s.Schema == "" {
		s.Schema = IncrementalSchema
	}
	scrubNotes(s, &s.Notes)
}

var workloadKinds = []string{WorkloadByYear, WorkloadRandom}

// Validate checks the invariants the page and readers rely on; the error names the field.
func (s *IncrementalStudy) Validate() error {
	if err := checkHead(s.Schema, IncrementalSchema, s.Name, s.Env.Date); err != nil {
		return err
	}
	workloads := map[string]bool{}
	if err := eachRow(s.Workloads, "workloads", func(p string, w Workload) error {
		if err := unique(workloads, p+".name", w.Name); err != nil {
			return err
		}
		return oneOf(p+".kind", w.Kind, workloadKinds)
	}); err != nil {
		return err
	}
	batchKinds := append([]string{BatchYear}, pagerank.BatchKinds...)
	batches := map[string]map[string]bool{} // workload -> its batches
	if err := eachRow(s.Batches, "batches", func(p string, b BatchRow) error {
		if !workloads[b.Workload] {
			return fmt.Errorf("%s.workload: %q is not in workloads", p, clip(b.Workload))
		}
		if err := oneOf(p+".kind", b.Kind, batchKinds); err != nil {
			return err
		}
		if batches[b.Workload] == nil {
			batches[b.Workload] = map[string]bool{}
		}
		if err := unique(batches[b.Workload], p+".batch", b.Batch); err != nil {
			return err
		}
		if b.N < 0 || b.NNZ < 0 || b.Inserted < 0 || b.Deleted < 0 || b.DuplicateInserts < 0 || b.AbsentDeletes < 0 {
			return fmt.Errorf("%s: counts must be >= 0", p)
		}
		if err := timedRuns(p+".update.runs_ms", b.Update.RunsMs); err != nil {
			return err
		}
		return timedRuns(p+".rebuild.runs_ms", b.Rebuild.RunsMs)
	}); err != nil {
		return err
	}
	if err := eachRow(s.Rows, "rows", func(p string, r IncrementalRow) error {
		if !batches[r.Workload][r.Batch] {
			return fmt.Errorf("%s: batch %q of workload %q is not in batches", p, clip(r.Batch), clip(r.Workload))
		}
		if err := r.Identity.check(p, r.Status); err != nil {
			return err
		}
		if r.WarmIterations < 0 || r.ColdIterations < 0 {
			return fmt.Errorf("%s: iterations must be >= 0", p)
		}
		return nil
	}); err != nil {
		return err
	}
	for i, y := range s.Years {
		for j, t := range y.Top {
			if t.Rank != j+1 {
				return fmt.Errorf("years[%d].top[%d].rank: %d, want %d", i, j, t.Rank, j+1)
			}
		}
	}
	return nil
}

// workloadOfYears is the name of the by-year workload (the one Years belong to).
func workloadOfYears(s *IncrementalStudy) string {
	for _, w := range s.Workloads {
		if w.Kind == WorkloadByYear {
			return w.Name
		}
	}
	return ""
}
