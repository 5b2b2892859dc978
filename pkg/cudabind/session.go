package cudabind

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/prlab/prlab/pkg/pagerank"
)

// Session is the device with one graph uploaded: Open uploads it once, the
// designs run on it, Close frees it. The package keeps one current Session
// (the graph of the last Run, Benchmark or MeasureStages call), so that a
// study's calls on the same *Graph upload it once; Release closes it.
// Every call into the library holds mu: one CUDA context, and timings that
// must not overlap.
type Session struct {
	lib    *library
	device int
	g      *pagerank.Graph
	h      unsafe.Pointer
	// escapes is the number of escapes of g's column code once it was
	// uploaded for gpu-hothead-packed (-1 before); codeMs the host time
	// EncodeColumns took.
	escapes int
	codeMs  float64
}

var (
	current      *Session                     // the graph on the device; guarded by mu
	copyRowCache = map[int64]pagerank.Stage{} // bytes moved -> measured row (this process); guarded by mu
)

func checkGraph(g *pagerank.Graph) error {
	if g == nil {
		return errors.New("cudabind: nil graph")
	}
	if g.N < 1 || len(g.InRowPtr) != g.N+1 || len(g.InColIdx) != g.NNZ || len(g.InvOutDegree) != g.N || len(g.Dangling) != g.N {
		return fmt.Errorf("cudabind: graph %q is inconsistent: n=%d nnz=%d but len(InRowPtr)=%d (want n+1), len(InColIdx)=%d, len(InvOutDegree)=%d, len(Dangling)=%d",
			g.Name, g.N, g.NNZ, len(g.InRowPtr), len(g.InColIdx), len(g.InvOutDegree), len(g.Dangling))
	}
	return nil
}

// ready returns the loaded state or an error wrapping ErrUnavailable.
func ready() (state, error) {
	s := load()
	if s.reason != "" {
		return s, fmt.Errorf("%w: %s", ErrUnavailable, s.reason)
	}
	return s, nil
}

// openLocked uploads g's in-edge CSR. mu held.
func openLocked(g *pagerank.Graph) (*Session, error) {
	st, err := ready()
	if err != nil {
		return nil, err
	}
	if err := checkGraph(g); err != nil {
		return nil, err
	}
	h, err := st.lib.graphCreate(st.device, g, pagerank.MaxIterationsCap)
	if err != nil {
		return nil, err
	}
	return &Session{lib: st.lib, device: st.device, g: g, h: h, escapes: -1}, nil
}

// Open uploads g to the device ($PRLAB_CUDA_DEVICE) and returns the
// session holding it, which becomes the current one: every design's Run and
// Benchmark on g, MeasureStages, LayoutOf and MeasurePrimitives then use
// this upload (a relabelled design uploads its relabelled graph, closing
// this session). Close frees it. Errors: ErrUnavailable (wrapped) without a
// GPU; an inconsistent graph; *Error from the library.
func Open(g *pagerank.Graph) (*Session, error) {
	var out *Session
	err := withSession(g, func(s *Session) error { out = s; return nil })
	return out, err
}

// Graph is the graph the session holds.
func (s *Session) Graph() *pagerank.Graph { return s.g }

// Close frees the session's device memory (a no-op when it is no longer
// the current session: then it was freed when another graph was uploaded).
func (s *Session) Close() error {
	mu.Lock()
	defer mu.Unlock()
	if current != s {
		return nil
	}
	return releaseLocked()
}

// withSession runs fn with mu held on the current Session for g, uploading
// g (and freeing the previous graph) when it is not the graph on the device.
// This is the one place where calls reach the library.
func withSession(g *pagerank.Graph, fn func(s *Session) error) error {
	mu.Lock()
	defer mu.Unlock()
	if current == nil || current.g != g {
		if err := releaseLocked(); err != nil {
			return err
		}
		s, err := openLocked(g)
		if err != nil {
			return err
		}
		current = s
	}
	return fn(current)
}

func releaseLocked() error {
	if current == nil {
		return nil
	}
	err := current.lib.graphFree(current.h)
	current = nil
	return err
}

// Release frees the device copy of the current graph (the package keeps
// one graph on the device between calls so Run, Benchmark and MeasureStages
// on the same *Graph upload it once).
func Release() error {
	mu.Lock()
	defer mu.Unlock()
	return releaseLocked()
}

// copyRow measures (once per process and size) the device-to-device copy
// row of kind `kind` moving `bytes` bytes (bytes/2 read + bytes/2 written). mu held.
func (s *Session) copyRow(name string, kind pagerank.StageKind, bytes int64, warmups, repeats int) (pagerank.Stage, error) {
	if row, ok := copyRowCache[bytes]; ok {
		row.Name, row.Kind = name, kind
		return row, nil
	}
	ms, err := s.lib.timeCopy(s.h, bytes, warmups, repeats)
	if err != nil {
		return pagerank.Stage{}, err
	}
	row := pagerank.Stage{Name: name, Kind: kind, Ms: ms, Bytes: bytes, Formula: fmt.Sprintf("cudaMemcpy device to device of %d bytes: %d read + %d written", bytes/2, bytes/2, bytes/2)}
	copyRowCache[bytes] = row
	return row, nil
}

// Names of the two copy rows.
const (
	CopyDRAMName      = "copy, 128 MiB (DRAM)"
	CopyIterationName = "copy, one iteration's bytes"
)

// StageOptions tunes MeasureStages; zero values take the defaults.
type StageOptions struct {
	Damping float64 // default pagerank.DefaultDamping
	Warmups int     // untimed executions per stage; default pagerank.TimingWarmups (3)
	Repeats int     // timed executions per stage (median); default StageRepeats (20)
}

// StageTable is the course's stage table for one graph on one GPU, all
// measured in one process: the two device-to-device copy rows, then every
// stage of every stage-by-stage design timed alone.
type StageTable struct {
	Device Device `json:"device"`
	Graph  string `json:"graph"`
	N      int    `json:"n"`
	NNZ    int    `json:"nnz"`
	// CopyDRAM moves 128 MiB (64 MiB read + 64 MiB written), kind
	// pagerank.StageCopyDRAM: its rate is the denominator of every x DRAM.
	// CopyIteration moves the hand-written iteration's 33n + 8nnz + 4 bytes
	// (cache-resident when that fits in L2). Rows carry ms and bytes; rates
	// are computed by pkg/study.
	CopyDRAM      pagerank.Stage   `json:"copy_dram"`
	CopyIteration pagerank.Stage   `json:"copy_iteration"`
	Stages        []pagerank.Stage `json:"stages"`
}

// Rows returns the copy rows followed by the stages (the table as printed).
func (t *StageTable) Rows() []pagerank.Stage {
	return append([]pagerank.Stage{t.CopyDRAM, t.CopyIteration}, t.Stages...)
}

// MeasureStages builds the stage table of g: copy rows measured in this
// process, then each stage of StageCatalog() timed alone with CUDA events
// (inputs prepared by one full iteration; median of opt.Repeats after
// opt.Warmups). Every row carries ms and bytes (formula in n, nnz); GB/s
// and x DRAM are computed from them by pkg/study.
// Errors: ErrUnavailable (wrapped) without a GPU; *Error from the library.
func MeasureStages(g *pagerank.Graph, opt StageOptions) (*StageTable, error) {
	if opt.Damping == 0 {
		opt.Damping = pagerank.DefaultDamping
	}
	if opt.Warmups == 0 {
		opt.Warmups = pagerank.TimingWarmups
	}
	if opt.Repeats == 0 {
		opt.Repeats = StageRepeats
	}
	if !(opt.Damping > 0 && opt.Damping < 1) || opt.Warmups < 0 || opt.Repeats < 1 {
		return nil, fmt.Errorf("cudabind: stage options out of range: %+v", opt)
	}
	var t *StageTable
	err := withSession(g, func(s *Session) error {
		dev, err := s.lib.deviceInfo(s.device)
		if err != nil {
			return err
		}
		t = &StageTable{Device: dev, Graph: g.Name, N: g.N, NNZ: g.NNZ}
		if t.CopyDRAM, err = s.copyRow(CopyDRAMName, pagerank.StageCopyDRAM, CopyDRAMBytes, opt.Warmups, opt.Repeats); err != nil {
			return err
		}
		iterBytes := designOf(implThreadPerRow).BytesFormula().Bytes(g.N, g.NNZ)
		if t.CopyIteration, err = s.copyRow(CopyIterationName, pagerank.StageCopyIteration, iterBytes, opt.Warmups, opt.Repeats); err != nil {
			return err
		}
		for _, def := range StageCatalog() {
			med, err := s.lib.timeStage(s.h, def.ID, float32(opt.Damping), opt.Warmups, opt.Repeats)
			if err != nil {
				return err
			}
			t.Stages = append(t.Stages, pagerank.Stage{Name: def.Name, Ms: med, Bytes: def.Bytes.Bytes(g.N, g.NNZ), Formula: def.Bytes.String() + " (" + def.Counted + ")"})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// Reduction kinds; values are the PRLAB_REDUCE_* constants of csrc/prlab_cuda.h.
const (
	reduceTree    = 0 // shared-memory tree, two passes
	reduceShuffle = 1 // warp shuffle, two passes
	reduceAtomic  = 2 // one atomicAdd per thread
	reduceCluster = 3 // gpu-cluster-dsmem's: one partial per block of one cluster, in its shared memory
)

// ReductionCheck is the outcome of one isolated reduction run.
type ReductionCheck struct {
	Value         float64 // the reduction's float result, widened
	FloatsWritten int     // scratch floats the reduction changed (partials + result)
	GridBlocks    int     // gridDim.x of the first pass
}

// checkReduction runs reduction `kind` over host data (which = 0: dangling
// mass sum a[i]*mask[i]; which = 1: residual sum |b[i]-a[i]|) with
// `threads` threads per block, on the device holding g.
func checkReduction(g *pagerank.Graph, kind, which int, a, b []float32, mask []uint8, threads int) (ReductionCheck, error) {
	var rc ReductionCheck
	err := withSession(g, func(s *Session) error {
		var err error
		rc.Value, rc.FloatsWritten, rc.GridBlocks, err = s.lib.checkReduction(s.h, kind, which, a, b, mask, threads)
		return err
	})
	return rc, err
}
