package cudabind

// Resident sessions: a graph kept on the device between edge batches
// (pagerank.Resident / pagerank.Session), applied there by csrc/resident.cu
// (CUB sort of the batch by destination, merge into the in-edge CSR) and
// iterated warm with a stage-by-stage design's kernels. The incremental
// study (pkg/study.RunIncremental) measures these as its GPU tier.

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"unsafe"

	"github.com/prlab/prlab/pkg/pagerank"
)

// residentDesigns are the designs that also implement pagerank.Resident:
// gpu-cusparse (the fastest stage-by-stage design on R-MAT 2^22 on the
// H200, reports/h200-scale-2026-11-30) and gpu-warp-per-row (no library
// state to rebuild after a batch). The layout designs build their layout on
// the host from the row pointer, which a device-side update would have to
// redo, so they are not resident.
var residentDesigns = map[string]bool{NameCusparse: true, NameWarpPerRow: true}

// implFor is the Implementation of design d: a residentDesign for the
// designs of residentDesigns, else a gpuDesign.
func implFor(d design) pagerank.Implementation {
	if residentDesigns[d.name] && d.order == "" {
		return &residentDesign{gpuDesign{design: d}}
	}
	return &gpuDesign{design: d}
}

// residentDesign is a gpuDesign whose graph can stay on the device while
// edge batches are applied to it (pagerank.Resident).
type residentDesign struct{ gpuDesign }

var _ pagerank.Resident = (*residentDesign)(nil)

// Reason is gpuDesign.Reason, or why the library cannot hold a resident
// session (one built before the prlab_session_* entry points).
func (d *residentDesign) Reason() string {
	if r := d.gpuDesign.Reason(); r != "" {
		return r
	}
	st := load()
	if err := st.lib.hasSessions(); err != nil {
		return err.Error()
	}
	return ""
}

// deviceStats is one update's counts as the library reports them.
type deviceStats struct {
	pagerank.BatchStats
	N, NNZ   int        // the graph after the batch
	UpdateMs float64    // CUDA events around the whole update
	PhasesMs [5]float64 // its parts (UpdatePhases), summing to UpdateMs
}

// UpdatePhases names the parts of an update that DeviceSession.LastPhases times.
var UpdatePhases = [5]string{"batch upload + scratch reset", "keys + radix sorts", "classification + select + read-back",
	"row lengths + scan + merge", "out-degrees + growth + library state + read-back"}

// residentGraph is a resident graph copied back to the host (tests).
type residentGraph struct {
	RowPtr, ColIdx, OutDegree []int32
	Dangling                  []uint8
	InvOut                    []float32
}

// DeviceSession is one graph resident on the device (pagerank.Session).
// Every call holds the package's library lock.
type DeviceSession struct {
	d          *residentDesign
	lib        *library
	h          unsafe.Pointer
	name       string
	n, nnz     int
	lastUpdate float64 // ms, CUDA events, of the last Apply
	lastPhases [5]float64
	lastRun    float64 // ms, CUDA events, of the last RunFrom
}

var _ pagerank.Session = (*DeviceSession)(nil)

// outDegrees is g's out-degree per node, from the out-edge CSR.
func outDegrees(g *pagerank.Graph) ([]int32, error) {
	if len(g.OutRowPtr) != g.N+1 {
		return nil, fmt.Errorf("cudabind: graph %q has %d out-row pointers for n = %d", g.Name, len(g.OutRowPtr), g.N)
	}
	out := make([]int32, g.N)
	for u := range out {
		out[u] = g.OutRowPtr[u+1] - g.OutRowPtr[u]
	}
	return out, nil
}

// Open uploads g (in-edge CSR and out-degrees; 8(n+1) + 4nnz bytes) into a
// new resident session. Errors: ErrUnavailable (wrapped) without a GPU or
// with a library that has no sessions; an inconsistent graph; *Error.
func (d *residentDesign) Open(g *pagerank.Graph) (pagerank.Session, error) {
	if r := d.Reason(); r != "" {
		return nil, fmt.Errorf("%w: %s", ErrUnavailable, r)
	}
	if err := checkGraph(g); err != nil {
		return nil, err
	}
	od, err := outDegrees(g)
	if err != nil {
		return nil, err
	}
	mu.Lock()
	defer mu.Unlock()
	st, err := ready()
	if err != nil {
		return nil, err
	}
	h, err := st.lib.sessionOpen(st.device, d.id, g, od, pagerank.MaxIterationsCap)
	if err != nil {
		return nil, fmt.Errorf("%s: open a session on %s: %w", d.name, g.Name, err)
	}
	return &DeviceSession{d: d, lib: st.lib, h: h, name: g.Name, n: g.N, nnz: g.NNZ}, nil
}

// Apply applies b on the device (pagerank.ApplyBatch's semantics and
// counts). Errors: a closed session; AddNodes < 0 or NewIDs of the wrong
// length; an edge index outside [0, n+AddNodes) (*Error, the graph
// unchanged); *Error from the library.
func (s *DeviceSession) Apply(b *pagerank.Batch) (pagerank.BatchStats, error) {
	if b == nil {
		return pagerank.BatchStats{}, errors.New("cudabind: nil batch")
	}
	if b.AddNodes < 0 || (b.NewIDs != nil && len(b.NewIDs) != b.AddNodes) {
		return pagerank.BatchStats{}, fmt.Errorf("batch %q: %d new nodes with %d ids", b.Name, b.AddNodes, len(b.NewIDs))
	}
	mu.Lock()
	defer mu.Unlock()
	if s.h == nil {
		return pagerank.BatchStats{}, errors.New("cudabind: session is closed")
	}
	st, err := s.lib.sessionApply(s.h, b.AddNodes, b.Inserts, b.Deletes)
	if err != nil {
		return pagerank.BatchStats{}, fmt.Errorf("%s: batch %q: %w", s.d.name, b.Name, err)
	}
	s.n, s.nnz, s.lastUpdate, s.lastPhases = st.N, st.NNZ, st.UpdateMs, st.PhasesMs
	return st.BatchStats, nil
}

// RunFrom iterates on the resident graph from start (nil: 1/n; else
// length n, finite, >= 0, sum > 0; narrowed to float) as Run does.
func (s *DeviceSession) RunFrom(p pagerank.Params, start []float64) (*pagerank.Result, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	mu.Lock()
	defer mu.Unlock()
	if s.h == nil {
		return nil, errors.New("cudabind: session is closed")
	}
	var x []float32
	if start != nil {
		var err error
		if x, err = narrowStart(start, s.n); err != nil {
			return nil, err
		}
	}
	tol := float32(0)
	if p.Mode == pagerank.Tolerance {
		tol = float32(p.Tolerance)
		if tol <= 0 {
			tol = math.SmallestNonzeroFloat32
		}
	}
	out, ms, err := s.lib.sessionRun(s.h, float32(p.Damping), p.Iterations, tol, x, s.n)
	if err != nil {
		return nil, fmt.Errorf("%s on %s: %w", s.d.name, s.name, err)
	}
	s.lastRun = ms
	res := s.d.newResult(&pagerank.Graph{Name: s.name, N: s.n, NNZ: s.nnz}, p.Mode, p.Iterations)
	res.Ranks = make([]float64, len(out.ranks))
	parallelRange(len(out.ranks), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			res.Ranks[i] = float64(out.ranks[i])
		}
	})
	res.Iterations = out.done
	res.Converged = out.converged
	res.Residuals = widen(out.residuals)
	res.Sums = out.sums
	return res, nil
}

// parallelRange runs fn on [0, n) cut into one chunk per goroutine, up to
// GOMAXPROCS of them (one chunk below 2^16 entries): the host's side of a
// run on a large graph (4M ranks at R-MAT 2^22) is conversions of n-sized
// vectors, which one core does in several ms.
func parallelRange(n int, fn func(lo, hi int)) {
	w := min(runtime.GOMAXPROCS(0), n>>16)
	if w <= 1 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	for i := 0; i < w; i++ {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			fn(lo, hi)
		}(i*n/w, (i+1)*n/w)
	}
	wg.Wait()
}

// narrowStart is start as float after pagerank.CheckStart's checks (length
// n, finite, >= 0, sum > 0; its error on failure), in parallel.
func narrowStart(start []float64, n int) ([]float32, error) {
	if len(start) != n {
		return nil, pagerank.CheckStart(start, n)
	}
	x := make([]float32, n)
	var mu sync.Mutex
	bad, sum := false, 0.0
	parallelRange(n, func(lo, hi int) {
		part, wrong := 0.0, false
		for i := lo; i < hi; i++ {
			v := start[i]
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				wrong = true
				break
			}
			part += v
			x[i] = float32(v)
		}
		mu.Lock()
		bad, sum = bad || wrong, sum+part
		mu.Unlock()
	})
	if bad || !(sum > 0) {
		return nil, pagerank.CheckStart(start, n) // the first bad entry, by its message
	}
	return x, nil
}

// LastMs is the CUDA-event time of the last Apply and of the last RunFrom
// (0 before the first).
func (s *DeviceSession) LastMs() (update, run float64) {
	mu.Lock()
	defer mu.Unlock()
	return s.lastUpdate, s.lastRun
}

// LastPhases is the last Apply's time by parts (UpdatePhases), ms by CUDA events.
func (s *DeviceSession) LastPhases() [5]float64 {
	mu.Lock()
	defer mu.Unlock()
	return s.lastPhases
}

// graph copies the resident graph back to the host (tests).
func (s *DeviceSession) graph() (*residentGraph, error) {
	mu.Lock()
	defer mu.Unlock()
	if s.h == nil {
		return nil, errors.New("cudabind: session is closed")
	}
	return s.lib.sessionGraph(s.h)
}

// Close frees the session's device memory (a second Close is a no-op).
func (s *DeviceSession) Close() error {
	mu.Lock()
	defer mu.Unlock()
	if s.h == nil {
		return nil
	}
	err := s.lib.sessionClose(s.h)
	s.h = nil
	return err
}
