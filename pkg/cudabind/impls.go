package cudabind

import (
	"context"
	"fmt"
	"math"

	"github.com/prlab/prlab/pkg/pagerank"
)

// Implementation identifiers; values are the PRLAB_IMPL_* constants of csrc/prlab_cuda.h.
const (
	implNaive           = 0
	implThreadPerRow    = 1
	implWarpPerRow      = 2
	implThrustCUB       = 3
	implCusparse        = 4
	implThrustCUBNoSync = 5
)

// Registry names of the GPU implementations.
const (
	NameNaive           = "gpu-naive"
	NameThreadPerRow    = "gpu-thread-per-row"
	NameWarpPerRow      = "gpu-warp-per-row"
	NameThrustCUB       = "gpu-thrust-cub"
	NameThrustCUBNoSync = "gpu-thrust-cub-nosync"
	NameCusparse        = "gpu-cusparse"
)

// implDef is one GPU implementation: the stages of its iteration (whose
// bytes and launches sum to the iteration's), the residual stage it uses in
// tolerance mode, and the host synchronisations its timed loop makes.
type implDef struct {
	id        int
	name      string
	label     string
	stages    []int
	residual  int
	hostSyncs int
	syncNote  string
}

// implDefs in report order. Host syncs: thrust::transform and thrust::gather
// with the thrust::device policy synchronise the stream before returning
// (CCCL thrust/system/cuda/detail/transform.h: synchronize_optional), which
// makes 3 transforms + 1 gather = 4 per iteration; par_nosync skips them.
// CUB device algorithms, cuSPARSE SpMV and our kernels do not synchronise.
var implDefs = []implDef{
	{implNaive, NameNaive, "GPU naive (T2): thread per row, one atomicAdd per thread",
		[]int{stageDanglingAtomic, stageNaivePullCombine}, stageResidualAtomic, 0, "none"},
	{implThreadPerRow, NameThreadPerRow, "GPU thread per row (T3): scalar CSR SpMV, tree reductions",
		[]int{stageScale, stageSpmvScalar, stageDanglingTree, stageCombine}, stageResidualTree, 0, "none"},
	{implWarpPerRow, NameWarpPerRow, "GPU warp per row: CSR SpMV, shuffle reductions",
		[]int{stageScale, stageSpmvWarp, stageDanglingShuffle, stageCombine}, stageResidualShuffle, 0, "none"},
	{implThrustCUB, NameThrustCUB, "GPU Thrust + CUB (thrust::device), no custom kernel",
		[]int{stageScaleThrust, stageSpmvGatherCUB, stageDanglingThrustCUB, stageCombineThrust}, stageResidualThrustCUB, 4,
		"thrust::device synchronises after each of 3 transforms and 1 gather"},
	{implThrustCUBNoSync, NameThrustCUBNoSync, "GPU Thrust + CUB (thrust::cuda::par_nosync)",
		[]int{stageScaleThrust, stageSpmvGatherCUB, stageDanglingThrustCUB, stageCombineThrust}, stageResidualThrustCUB, 0, "none"},
	{implCusparse, NameCusparse, "GPU cuSPARSE SpMV (CSR, P = A D^-1), shuffle reductions",
		[]int{stageSpmvCusparse, stageDanglingShuffle, stageCombine}, stageResidualShuffle, 0, "none"},
}

// gpuImpl is a pagerank.Implementation, Benchmarker and Unavailable backed by
// libprlab_cuda.so.
type gpuImpl struct{ def implDef }

// Implementations returns every GPU implementation, in report order:
// gpu-naive, gpu-thread-per-row, gpu-warp-per-row, gpu-thrust-cub,
// gpu-thrust-cub-nosync, gpu-cusparse. Each also implements
// pagerank.Benchmarker and pagerank.Unavailable. They are returned even when
// no GPU is present; then Reason() says why and Run returns an error
// wrapping ErrUnavailable.
func Implementations() []pagerank.Implementation {
	out := make([]pagerank.Implementation, len(implDefs))
	for i, d := range implDefs {
		out[i] = &gpuImpl{def: d}
	}
	return out
}

// ImplementationByName returns the GPU implementation with registry name name.
func ImplementationByName(name string) (pagerank.Implementation, bool) {
	for _, d := range implDefs {
		if d.name == name {
			return &gpuImpl{def: d}, true
		}
	}
	return nil, false
}

func (im *gpuImpl) Name() string                  { return im.def.name }
func (im *gpuImpl) Label() string                 { return im.def.label }
func (im *gpuImpl) Precision() pagerank.Precision { return pagerank.Float32 }

// Reason is "" when the GPU path can run here, else why not.
func (im *gpuImpl) Reason() string {
	_, reason := Available()
	return reason
}

// BytesFormula is the bytes one iteration moves, as a formula in n and nnz.
func (im *gpuImpl) BytesFormula() ByteFormula { return iterationFormula(im.def.stages) }

// LaunchesPerIteration counts kernel launches, memsets and library calls
// issued by the host in one timed iteration.
func (im *gpuImpl) LaunchesPerIteration() int { return iterationLaunches(im.def.stages) }

// HostSyncsPerIteration counts host-device synchronisations in one timed iteration.
func (im *gpuImpl) HostSyncsPerIteration() int { return im.def.hostSyncs }

// Stages returns the definitions of the stages of one iteration.
func (im *gpuImpl) Stages() []StageDef {
	out := make([]StageDef, len(im.def.stages))
	for i, id := range im.def.stages {
		out[i] = stageDefs[id]
	}
	return out
}

func (im *gpuImpl) newResult(g *pagerank.Graph, mode pagerank.Mode) *pagerank.Result {
	f := im.BytesFormula()
	return &pagerank.Result{
		Implementation:        im.def.name,
		Case:                  g.Name,
		Precision:             pagerank.Float32,
		N:                     g.N,
		NNZ:                   g.NNZ,
		Mode:                  mode,
		BytesPerIteration:     f.Bytes(g.N, g.NNZ),
		BytesFormula:          f.String(),
		LaunchesPerIteration:  float64(im.LaunchesPerIteration()),
		HostSyncsPerIteration: float64(im.def.hostSyncs),
	}
}

func widen(x []float32) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	return out
}

// Run computes PageRank of g in float on the GPU from x = 1/n with damping
// factor p.Damping. FixedIterations runs exactly p.Iterations iterations with
// no host copy inside the loop; Tolerance stops after the first iteration
// whose L1 residual (the implementation's own float reduction) is below
// p.Tolerance, copying that one float to the host each iteration. Residuals
// and Sums hold one entry per iteration (sums accumulated in double by an
// instrumentation kernel that runs only here, never in Benchmark).
// Errors: p invalid; ErrUnavailable (wrapped) without a GPU; *Error from the library.
func (im *gpuImpl) Run(g *pagerank.Graph, p pagerank.Params) (*pagerank.Result, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	s, err := ready()
	if err != nil {
		return nil, err
	}
	mu.Lock()
	defer mu.Unlock()
	h, err := handleLocked(s, g)
	if err != nil {
		return nil, err
	}
	tol := float32(0)
	if p.Mode == pagerank.Tolerance {
		tol = float32(p.Tolerance)
		if tol <= 0 { // a tolerance below float's smallest value: run to the cap
			tol = math.SmallestNonzeroFloat32
		}
	}
	out, err := s.lib.runImpl(h, im.def.id, float32(p.Damping), p.Iterations, tol, g.N)
	if err != nil {
		return nil, fmt.Errorf("%s on %s: %w", im.def.name, g.Name, err)
	}
	res := im.newResult(g, p.Mode)
	res.Ranks = widen(out.ranks)
	res.Iterations = out.done
	res.Converged = out.converged
	res.Residuals = widen(out.residuals)
	res.Sums = out.sums
	return res, nil
}

// StageRepeats is how many timed executions each stage's median is taken
// over (after pagerank.TimingWarmups warm-ups).
const StageRepeats = 20

// Benchmark times p.Iterations iterations (the course: 50, no convergence
// test) with CUDA events recorded around the warmed iterations only (the
// reset of x and every copy stay outside): `warmups` untimed runs, then
// `runs` timed ones. Result.Timing holds each run's ms (clock "cuda-events");
// Result.Stages holds each stage of one iteration timed alone (median of
// StageRepeats), with bytes, GB/s and the fraction of the 128 MiB DRAM copy
// row measured in this process (XDRAM); Ranks are those after the last run.
// Residuals and Sums are empty: the timed loop computes neither.
func (im *gpuImpl) Benchmark(g *pagerank.Graph, p pagerank.Params, warmups, runs int) (*pagerank.Result, error) {
	return im.BenchmarkContext(context.Background(), g, p, warmups, runs)
}

// BenchmarkContext is Benchmark that checks ctx between library calls
// (benchmarkChunked: more than 10 runs are timed in calls of about 0.25 s).
func (im *gpuImpl) BenchmarkContext(ctx context.Context, g *pagerank.Graph, p pagerank.Params, warmups, runs int) (*pagerank.Result, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if warmups < 0 || runs < 1 {
		return nil, fmt.Errorf("cudabind: warmups %d and runs %d must be >= 0 and >= 1", warmups, runs)
	}
	s, err := ready()
	if err != nil {
		return nil, err
	}
	mu.Lock()
	defer mu.Unlock()
	h, err := handleLocked(s, g)
	if err != nil {
		return nil, err
	}
	d := float32(p.Damping)
	ms, ranks, err := benchmarkChunked(ctx, func(w, r int) ([]float32, []float32, error) {
		return s.lib.benchmark(h, im.def.id, d, p.Iterations, w, r, g.N)
	}, warmups, runs)
	if err != nil {
		return nil, fmt.Errorf("%s on %s: %w", im.def.name, g.Name, err)
	}
	dram, err := copyRowLocked(s, h, CopyDRAMName, CopyDRAMBytes, pagerank.TimingWarmups, StageRepeats)
	if err != nil {
		return nil, err
	}
	res := im.newResult(g, pagerank.FixedIterations)
	res.Ranks = widen(ranks)
	res.Iterations = p.Iterations // prlab_benchmark runs exactly this many per run: no convergence test
	t := pagerank.NewTiming(res.Iterations, warmups, widen(ms), "cuda-events")
	res.Timing = &t
	for _, id := range im.def.stages {
		med, err := s.lib.timeStage(h, id, d, pagerank.TimingWarmups, StageRepeats)
		if err != nil {
			return nil, fmt.Errorf("%s on %s: %w", im.def.name, g.Name, err)
		}
		res.Stages = append(res.Stages, stageRow(stageDefs[id], med, g.N, g.NNZ, dram.GBps))
	}
	return res, nil
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
// stage of every implementation timed alone.
type StageTable struct {
	Device Device `json:"device"`
	Graph  string `json:"graph"`
	N      int    `json:"n"`
	NNZ    int    `json:"nnz"`
	// CopyDRAM moves 128 MiB (64 MiB read + 64 MiB written); its GB/s is
	// the denominator of every XDRAM. CopyIteration moves the hand-written
	// iteration's 33n + 8nnz + 4 bytes (cache-resident when that fits in L2).
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
// opt.Warmups). Every stage row carries ms, bytes (formula in n, nnz), GB/s
// and XDRAM = GB/s over the DRAM copy row's GB/s.
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
	s, err := ready()
	if err != nil {
		return nil, err
	}
	mu.Lock()
	defer mu.Unlock()
	dev, err := s.lib.deviceInfo(s.device)
	if err != nil {
		return nil, err
	}
	h, err := handleLocked(s, g)
	if err != nil {
		return nil, err
	}
	t := &StageTable{Device: dev, Graph: g.Name, N: g.N, NNZ: g.NNZ}
	if t.CopyDRAM, err = copyRowLocked(s, h, CopyDRAMName, CopyDRAMBytes, opt.Warmups, opt.Repeats); err != nil {
		return nil, err
	}
	t.CopyDRAM.XDRAM = 1
	iterBytes := iterationFormula(implDefs[implThreadPerRow].stages).Bytes(g.N, g.NNZ)
	if t.CopyIteration, err = copyRowLocked(s, h, CopyIterationName, iterBytes, opt.Warmups, opt.Repeats); err != nil {
		return nil, err
	}
	if t.CopyDRAM.GBps > 0 {
		t.CopyIteration.XDRAM = t.CopyIteration.GBps / t.CopyDRAM.GBps
	}
	for _, def := range StageCatalog() {
		med, err := s.lib.timeStage(h, def.ID, float32(opt.Damping), opt.Warmups, opt.Repeats)
		if err != nil {
			return nil, err
		}
		t.Stages = append(t.Stages, stageRow(def, med, g.N, g.NNZ, t.CopyDRAM.GBps))
	}
	return t, nil
}

// Reduction kinds; values are the PRLAB_REDUCE_* constants of csrc/prlab_cuda.h.
const (
	reduceTree    = 0 // shared-memory tree, two passes
	reduceShuffle = 1 // warp shuffle, two passes
	reduceAtomic  = 2 // one atomicAdd per thread
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
	s, err := ready()
	if err != nil {
		return ReductionCheck{}, err
	}
	mu.Lock()
	defer mu.Unlock()
	h, err := handleLocked(s, g)
	if err != nil {
		return ReductionCheck{}, err
	}
	v, w, grid, err := s.lib.checkReduction(h, kind, which, a, b, mask, threads)
	return ReductionCheck{Value: v, FloatsWritten: w, GridBlocks: grid}, err
}
