package pagerank

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat"
)

// Precision names the floating-point type an implementation iterates in.
type Precision string

const (
	Float64 Precision = "float64"
	Float32 Precision = "float32"
)

// Stage is one measured stage of one iteration (a kernel, a library call, a
// copy row). Ms is the median time of one execution of the stage in
// milliseconds; Bytes is the number of bytes the stage moves through device
// (or main) memory once, counted from its loads and stores, not guessed.
// Implementations report Name, Kind, Ms, Bytes and Formula; the rates are
// computed once, by pkg/study (study.SetRates): GBps = Bytes / (Ms * 1e6),
// and XDRAM is GBps over the GB/s of the copy row of kind StageCopyDRAM
// (the 128 MiB device-to-device copy) measured in the same process (the
// course's "x DRAM" column); 0 when no such row exists (CPU).
type Stage struct {
	Name    string    `json:"name" csv:"stage"`
	Kind    StageKind `json:"kind,omitempty" csv:"stage_kind"`
	Ms      float64   `json:"ms" csv:"ms"`
	Bytes   int64     `json:"bytes" csv:"bytes"`
	GBps    float64   `json:"gbps" csv:"gbps"`
	XDRAM   float64   `json:"x_dram" csv:"x_dram"`
	Formula string    `json:"formula,omitempty" csv:"formula"` // how Bytes was counted, e.g. "4n + 4n + 4n"
}

// StageKind says what a Stage row measures ("" for a stage of the iteration:
// a kernel or a library call).
type StageKind string

const (
	// StageCopyDRAM is the device-to-device copy of 128 MiB: the DRAM
	// bandwidth every x DRAM divides by.
	StageCopyDRAM StageKind = "copy-dram"
	// StageCopyIteration is the copy of one iteration's bytes (cache-resident
	// when they fit in L2).
	StageCopyIteration StageKind = "copy-iteration"
	// StageCopyHost is a host memcpy row (the CPU byte floors' rate).
	StageCopyHost StageKind = "copy-host"
	// StageWholeRun is a timed run's median divided by its iterations.
	StageWholeRun StageKind = "whole-run"
	// StagePrimitive is a launch or barrier cost, per operation, 0 bytes.
	StagePrimitive StageKind = "primitive"
	// StageRelabel is one-time host preprocessing, outside the timed iterations.
	StageRelabel StageKind = "relabel"
)

// Timing summarises repeated timed runs of a fixed number of iterations
// (the course's protocol: 50 iterations, no convergence test, 3 warm-ups,
// then 10 timed runs). All times in milliseconds.
type Timing struct {
	Iterations int       `json:"iterations" csv:"iterations"` // iterations per timed run
	Warmups    int       `json:"warmups" csv:"warmups"`
	RunsMs     []float64 `json:"runs_ms" csv:"-"` // one entry per timed run
	MeanMs     float64   `json:"mean_ms" csv:"mean_ms"`
	MedianMs   float64   `json:"median_ms" csv:"median_ms"`
	StdMs      float64   `json:"std_ms" csv:"std_ms"`
	CV         float64   `json:"cv" csv:"cv"`       // coefficient of variation StdMs/MeanMs (fraction, not percent)
	Clock      string    `json:"clock" csv:"clock"` // "cuda-events" or "wall" (Go's monotonic clock)
}

// NewTiming computes mean, median, sample standard deviation and CV of runs
// (milliseconds) with gonum/stat.
func NewTiming(iterations, warmups int, runs []float64, clock string) Timing {
	t := Timing{Iterations: iterations, Warmups: warmups, RunsMs: append([]float64(nil), runs...), Clock: clock}
	if len(runs) == 0 {
		return t
	}
	t.MeanMs = stat.Mean(runs, nil)
	sorted := append([]float64(nil), runs...)
	sort.Float64s(sorted)
	t.MedianMs = stat.Quantile(0.5, stat.Empirical, sorted, nil)
	if len(sorted)%2 == 0 { // stat.Empirical picks the lower middle; use the midpoint
		t.MedianMs = (sorted[len(sorted)/2-1] + sorted[len(sorted)/2]) / 2
	}
	if len(runs) > 1 {
		t.StdMs = stat.StdDev(runs, nil)
	}
	if t.MeanMs > 0 {
		t.CV = t.StdMs / t.MeanMs
	}
	return t
}

// MsPerIteration is the median time of one iteration in milliseconds.
func (t Timing) MsPerIteration() float64 {
	if t.Iterations == 0 {
		return math.NaN()
	}
	return t.MedianMs / float64(t.Iterations)
}

// Result is what every implementation (CPU or GPU) returns for one run on
// one graph. Ranks has length n (the graph's node count), in the graph's
// dense node order, always widened to float64 for comparison.
type Result struct {
	Implementation string    `json:"implementation"` // registry name, e.g. "t0-oracle"
	Case           string    `json:"case"`           // graph name, e.g. "tiny" or "aan"
	Precision      Precision `json:"precision"`
	N              int       `json:"n"`
	NNZ            int       `json:"nnz"`
	Mode           Mode      `json:"mode"`
	Ranks          []float64 `json:"ranks,omitempty"`
	Iterations     int       `json:"iterations"` // iterations actually run
	Converged      bool      `json:"converged"`  // tolerance mode only: residual fell under Tolerance
	Residuals      []float64 `json:"residuals"`  // L1 residual ||x_{k+1} - x_k||_1 after each iteration
	Sums           []float64 `json:"sums"`       // sum of ranks after each iteration
	// Stages holds per-stage timings and bytes (GPU implementations); empty on the CPU.
	Stages []Stage `json:"stages,omitempty"`
	// BytesPerIteration is the bytes one iteration moves, summed from its stages'
	// load/store counts (0 when the implementation does not count bytes).
	BytesPerIteration int64 `json:"bytes_per_iteration"`
	// BytesFormula documents BytesPerIteration in terms of n and nnz.
	BytesFormula string `json:"bytes_formula,omitempty"`
	// LaunchesPerIteration and HostSyncsPerIteration count kernel launches (or
	// graph/library calls) and host-device synchronisations per iteration in
	// the timed loop (0 on the CPU).
	LaunchesPerIteration  float64 `json:"launches_per_iteration"`
	HostSyncsPerIteration float64 `json:"host_syncs_per_iteration"`
	Timing                *Timing `json:"timing,omitempty"`
	// Err is set when the run failed; Skipped is set (with the reason) when the
	// implementation could not run here (e.g. no GPU). Ranks are empty then.
	Err     string `json:"error,omitempty"`
	Skipped string `json:"skipped,omitempty"`
}

// OK reports whether the result holds ranks (neither failed nor skipped).
func (r *Result) OK() bool { return r != nil && r.Err == "" && r.Skipped == "" && len(r.Ranks) > 0 }

// FinalSum is the sum of ranks after the last iteration (NaN if none).
func (r *Result) FinalSum() float64 {
	if len(r.Sums) == 0 {
		return math.NaN()
	}
	return r.Sums[len(r.Sums)-1]
}

// FinalResidual is the L1 residual of the last iteration (NaN if none).
func (r *Result) FinalResidual() float64 {
	if len(r.Residuals) == 0 {
		return math.NaN()
	}
	return r.Residuals[len(r.Residuals)-1]
}

// ErrUnavailable is wrapped by errors an implementation returns when it
// cannot run on this machine or this graph (no GPU, or a graph too large for
// a shared-memory design); runners record such a row as skipped, not failed.
var ErrUnavailable = errors.New("implementation unavailable here")

// Implementation is one PageRank implementation (CPU or GPU). Run computes
// PageRank of g with p and returns a Result; a returned error means the run
// failed (the caller records it in the Result and carries on with the others).
type Implementation interface {
	// Name is the short registry name used in flags, CSV and JSON ("t1-multicore-f32").
	Name() string
	// Label is the human-readable name used in reports ("multi-core CPU, float32").
	Label() string
	Precision() Precision
	Run(g *Graph, p Params) (*Result, error)
}

// Benchmarker is implemented by implementations that time themselves (GPU
// implementations use CUDA events around warmed kernels). Others are timed
// by the runner with Go's monotonic clock around Run in fixed-iteration mode.
type Benchmarker interface {
	Benchmark(g *Graph, p Params, warmups, runs int) (*Result, error)
}

// WarmStarter is implemented by implementations that can start from a
// given rank vector instead of 1/n: the incremental study's warm start after
// a batch of edge updates (Meerkat's incremental PageRank restarts from the
// ranks computed before the batch). start has length g.N, finite,
// non-negative entries; RunFrom validates p and start as Run validates p and
// then iterates exactly as Run does from x_0 = start. RunFrom(g, p,
// uniform 1/n) equals Run(g, p).
type WarmStarter interface {
	RunFrom(g *Graph, p Params, start []float64) (*Result, error)
}

// Resident is implemented by implementations that keep the graph where
// they iterate (a GPU's memory) and apply edge batches there, without a host
// rebuild and re-upload. Open uploads g and returns a Session holding it;
// the incremental study times Open as the cold path's upload,
// Session.Apply as the update and Session.RunFrom as the warm and cold
// iterations.
type Resident interface {
	Open(g *Graph) (Session, error)
}

// Session is one resident graph (see Resident). Apply changes it by one
// Batch with ApplyBatch's semantics and counts (the resident structure must
// equal what ApplyBatch gives on the host); RunFrom iterates on it from start
// (nil: 1/n) as WarmStarter.RunFrom does; Close frees it.
type Session interface {
	Apply(b *Batch) (BatchStats, error)
	RunFrom(p Params, start []float64) (*Result, error)
	Close() error
}

// CheckStart returns an error unless start is a usable warm-start vector for
// n nodes: length n, every entry finite and >= 0, sum > 0.
func CheckStart(start []float64, n int) error {
	if len(start) != n {
		return fmt.Errorf("start vector has %d entries, want n = %d", len(start), n)
	}
	sum := 0.0
	for i, x := range start {
		if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return fmt.Errorf("start vector entry %d is %v: want finite and >= 0", i, x)
		}
		sum += x
	}
	if !(sum > 0) {
		return fmt.Errorf("start vector sums to %v, want > 0", sum)
	}
	return nil
}

// Unavailable is implemented by implementations that may not be able to run on
// this machine (GPU ones). Reason returns "" when the implementation can run,
// otherwise why not (no library, no driver, no device).
type Unavailable interface {
	Reason() string
}

func (r *Result) String() string {
	return fmt.Sprintf("%s on %s: %d iterations, residual %.3g, sum %.9f", r.Implementation, r.Case, r.Iterations, r.FinalResidual(), r.FinalSum())
}
