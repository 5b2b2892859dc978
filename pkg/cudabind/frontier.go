package cudabind

// The performance-frontier GPU implementations (issue 5): degree-bucketed
// T4, the fused one-launch iteration on a stream and in a CUDA Graph, the
// cooperative persistent kernel, and the Hopper thread-block-cluster kernel
// that keeps a small graph in distributed shared memory. Their kernels live
// in csrc/frontier.cu; NOTES.md, section "frontier", holds the floors,
// predictions and measurements.
//
// FrontierImplementations returns them; AllImplementations returns the
// course's implementations (Implementations) followed by these, which is
// what a study registry should list.

import (
	"context"
	"fmt"
	"math"
	"unsafe"

	"github.com/prlab/prlab/pkg/pagerank"
)

// Frontier implementation codes: PRLAB_IMPL_T4_BUCKETED .. PRLAB_IMPL_CLUSTER
// of csrc/prlab_cuda.h (a range of their own, after the course's codes).
const (
	implT4Bucketed    = 16
	implFused         = 17
	implGraph         = 18
	implPersistent    = 19
	implCluster       = 20
	implFrontierFirst = 16
	implFrontierEnd   = 21
)

// Frontier stage codes: PRLAB_STAGE_T4_SPMV_THREAD .. PRLAB_STAGE_FUSED_ITERATION.
const (
	stageT4Thread       = 64
	stageT4Warp         = 65
	stageT4Block        = 66
	stageT4Combine      = 67
	stageFusedIteration = 68
	stageFrontierFirst  = 64
	stageFrontierEnd    = 69
)

// Primitive codes: PRLAB_PRIM_*.
const (
	primEmptyLaunch = 0
	primGraphNode   = 1
	primGridSync    = 2
	primClusterSync = 3
	primCoopLaunch  = 4
	primCount       = 5
)

// Knob codes: PRLAB_FKNOB_* (value 0 = automatic).
const (
	knobTileEdges   = 0
	knobTileRows    = 1
	knobBlocksPerSM = 2
	knobGraphK      = 3
	knobClusterSize = 4
	knobResident    = 5
	knobClusterMode = 6
	knobCount       = 7
)

// Registry names of the frontier implementations.
const (
	NameT4Bucketed = "gpu-t4-bucketed"
	NameFused      = "gpu-fused"
	NameGraph      = "gpu-graph"
	NamePersistent = "gpu-persistent"
	NameCluster    = "gpu-cluster"
)

// PrimitiveCount is how many operations one timed execution of a primitive
// performs (the reported cost is the median time divided by it).
const PrimitiveCount = 1000

// ---------------------------------------------------------------- T4 buckets

// Bucket is one T4 in-degree bucket of a graph: the rows whose in-degree is
// in [MinDegree, MaxDegree] (MaxDegree -1: unbounded), their count and edges.
type Bucket struct {
	Name      string `json:"name"`
	MinDegree int    `json:"min_degree"`
	MaxDegree int    `json:"max_degree"`
	Rows      int    `json:"rows"`
	NNZ       int64  `json:"nnz"`
	MaxSeen   int    `json:"max_seen"` // largest in-degree present (0 when empty)
}

var (
	bucketNames  = [3]string{"thread per row", "warp per row", "block per row"}
	bucketBounds = [3][2]int{{0, 32}, {33, 1024}, {1025, -1}}
	bucketStages = [3]int{stageT4Thread, stageT4Warp, stageT4Block}
)

// Bytes is the device-memory traffic of the bucket's SpMV kernel: per row
// the row id 4, rowPtr[v] and rowPtr[v+1] 8 and y[v] 4; per edge colIdx 4
// and contrib[col] 4 (the course's counting rule): 16 rows + 8 nnz.
func (b Bucket) Bytes() int64 { return 16*int64(b.Rows) + 8*b.NNZ }

// T4Buckets splits g's rows by in-degree the way the library does at upload:
// thread per row for in-degree <= 32 (the in-degree-0 rows too), warp per
// row for 33..1024, block per row above 1024 (Merrill & Garland's and
// Gunrock's thresholds: one warp, one block of 1024 threads).
func T4Buckets(g *pagerank.Graph) [3]Bucket {
	var out [3]Bucket
	for b := range out {
		out[b] = Bucket{Name: bucketNames[b], MinDegree: bucketBounds[b][0], MaxDegree: bucketBounds[b][1]}
	}
	for v := 0; v < g.N; v++ {
		d := int(g.InRowPtr[v+1] - g.InRowPtr[v])
		b := 2
		if d <= 32 {
			b = 0
		} else if d <= 1024 {
			b = 1
		}
		out[b].Rows++
		out[b].NNZ += int64(d)
		out[b].MaxSeen = max(out[b].MaxSeen, d)
	}
	return out
}

// nonEmpty counts the buckets that hold at least one row.
func nonEmpty(bs [3]Bucket) int {
	k := 0
	for _, b := range bs {
		if b.Rows > 0 {
			k++
		}
	}
	return k
}

// FrontierInfo is the layout the library built for one graph: the T4
// buckets, the CSR-Adaptive tiles of the fused kernels, the grids, and
// whether (and with what shape) the cluster kernel can hold the graph.
type FrontierInfo struct {
	Buckets         [3]Bucket `json:"buckets"`
	Tiles           int       `json:"tiles"`
	TileEdges       int       `json:"tile_edges"`
	TileRows        int       `json:"tile_rows"`
	HeavyRows       int       `json:"heavy_rows"`  // in-degree > 32 inside tiles: warp per row
	BlockTiles      int       `json:"block_tiles"` // rows longer than a tile: block per row
	GridFused       int       `json:"grid_fused"`
	GridT4          int       `json:"grid_t4"`
	GridCoop        int       `json:"grid_coop"`
	CoopBlocksPerSM int       `json:"coop_blocks_per_sm"` // occupancy of the persistent kernel
	// PersistentResident: the persistent kernel keeps each block's tile
	// (column indices, row offsets, 1/outdeg) in shared memory across
	// iterations (every block owns exactly one tile).
	PersistentResident bool `json:"persistent_resident"`
	ThreadsPerBlock    int  `json:"threads_per_block"`
	ClusterSize        int  `json:"cluster_size"` // 0: unavailable (ClusterReason)
	// ClusterReplicated: every cluster block holds the whole contribution
	// vector (local gather, pushed updates); else the gather reads
	// distributed shared memory.
	ClusterReplicated bool   `json:"cluster_replicated"`
	ClusterThreads    int    `json:"cluster_threads"`
	ClusterSmemBytes  int64  `json:"cluster_smem_bytes"`
	ClusterReason     string `json:"cluster_reason,omitempty"`
	SMs               int    `json:"sms"`
	GraphK            int    `json:"graph_k"`
	MaxInDegree       int    `json:"max_in_degree"`
}

// FrontierLayout uploads g (if needed) and returns the frontier layout the
// library built for it. Errors wrap ErrUnavailable without a GPU.
func FrontierLayout(g *pagerank.Graph) (FrontierInfo, error) {
	s, err := ready()
	if err != nil {
		return FrontierInfo{}, err
	}
	mu.Lock()
	defer mu.Unlock()
	h, err := handleLocked(s, g)
	if err != nil {
		return FrontierInfo{}, err
	}
	return s.lib.frontierInfo(h)
}

// setFrontierKnob sets a layout knob for g's upload (tests and experiments).
func setFrontierKnob(g *pagerank.Graph, knob, value int) error {
	s, err := ready()
	if err != nil {
		return err
	}
	mu.Lock()
	defer mu.Unlock()
	h, err := handleLocked(s, g)
	if err != nil {
		return err
	}
	return s.lib.frontierSet(h, knob, value)
}

// ---------------------------------------------------------------- implementations

// FrontierCosts counts, per iteration of a timed run of I iterations, what
// the host and the device synchronise on (the prologue that computes
// x_0/outdeg and the first dangling partials is part of the run).
type FrontierCosts struct {
	HostLaunches   float64 `json:"host_launches"`   // kernel / graph / cooperative launches the host issues
	Kernels        float64 `json:"kernels"`         // kernel executions (graph nodes included)
	DeviceBarriers float64 `json:"device_barriers"` // grid.sync() or cluster.sync()
	Barrier        string  `json:"barrier,omitempty"`
	HostSyncs      float64 `json:"host_syncs"` // in the timed loop
	// ToleranceReads is the 4-byte device-to-host reads per iteration of a
	// tolerance run (the convergence test).
	ToleranceReads float64 `json:"tolerance_reads"`
}

type frontierDef struct {
	id      int
	name    string
	label   string
	bytes   ByteFormula
	counted string
	memory  string // where the counted bytes live
	stages  []int  // stages timed alone in Benchmark
	prims   []int  // primitives reported with Benchmark
}

const fusedCounted = "rowPtr 4(n+1) + colIdx 4nnz + contrib[col] 4nnz + invOut 4n, store x' 4n + contrib' 4n; tile table, heavy-row list and partials O(tiles) not counted"

var frontierDefs = []frontierDef{
	{implT4Bucketed, NameT4Bucketed, "GPU T4: in-degree buckets (thread / warp / block per row), fused combine",
		ByteFormula{32, 8, 0},
		"per bucket 16 rows_b + 8 nnz_b (row id, rowPtr[v], rowPtr[v+1], y; colIdx, contrib[col]); combine y 4n + invOut 4n, store x' 4n + contrib' 4n",
		"device memory", []int{stageT4Thread, stageT4Warp, stageT4Block, stageT4Combine}, []int{primEmptyLaunch}},
	{implFused, NameFused, "GPU fused iteration: one launch (CSR-Adaptive tiles + combine + next dangling partials)",
		ByteFormula{16, 8, 4}, fusedCounted, "device memory", []int{stageFusedIteration}, []int{primEmptyLaunch}},
	{implGraph, NameGraph, "GPU fused iteration in a CUDA Graph (one graph launch per timed run)",
		ByteFormula{16, 8, 4}, fusedCounted, "device memory", []int{stageFusedIteration}, []int{primGraphNode}},
	{implPersistent, NamePersistent, "GPU persistent: one cooperative launch, one grid.sync() per iteration",
		ByteFormula{16, 8, 4}, fusedCounted + "; with the resident layout (every block owns one tile) rowPtr, colIdx and invOut are read into shared memory once and served from there",
		"device memory, or shared memory for the resident tile arrays", nil, []int{primCoopLaunch, primGridSync}},
	{implCluster, NameCluster, "GPU thread-block cluster: graph and ranks in distributed shared memory (sm_90)",
		ByteFormula{16, 8, 4},
		"the fused iteration's loads and stores, all served by shared and distributed shared memory; 0 bytes of device memory per iteration after the one-time load",
		"shared memory", nil, []int{primClusterSync}},
}

type frontierImpl struct{ def frontierDef }

// FrontierImplementations returns the frontier implementations in report
// order: gpu-t4-bucketed, gpu-fused, gpu-graph, gpu-persistent,
// gpu-cluster. Each also implements pagerank.Benchmarker and
// pagerank.Unavailable; without a GPU, Reason() says why and Run returns an
// error wrapping ErrUnavailable.
func FrontierImplementations() []pagerank.Implementation {
	out := make([]pagerank.Implementation, len(frontierDefs))
	for i, d := range frontierDefs {
		out[i] = &frontierImpl{def: d}
	}
	return out
}

// AllImplementations returns Implementations() followed by
// FrontierImplementations() and LocalityImplementations() (reordered.go):
// every GPU implementation prlab has.
func AllImplementations() []pagerank.Implementation {
	return append(append(Implementations(), FrontierImplementations()...), LocalityImplementations()...)
}

// FrontierImplementationByName returns the frontier implementation named name.
func FrontierImplementationByName(name string) (pagerank.Implementation, bool) {
	for _, d := range frontierDefs {
		if d.name == name {
			return &frontierImpl{def: d}, true
		}
	}
	return nil, false
}

func (im *frontierImpl) Name() string                  { return im.def.name }
func (im *frontierImpl) Label() string                 { return im.def.label }
func (im *frontierImpl) Precision() pagerank.Precision { return pagerank.Float32 }

// Reason is "" when the implementation can run here, else why not. The
// cluster implementation also needs compute capability 9.0; whether a given
// graph fits in the cluster's shared memory is known only at upload (Run
// then returns an error wrapping ErrUnavailable).
func (im *frontierImpl) Reason() string {
	if _, reason := Available(); reason != "" {
		return reason
	}
	if im.def.id == implCluster {
		d, err := DeviceInfo()
		if err != nil {
			return err.Error()
		}
		if d.CCMajor < 9 {
			return fmt.Sprintf("thread-block clusters need compute capability 9.0; %s is %s", d.Name, d.ComputeCapability())
		}
	}
	return ""
}

// BytesFormula is the bytes one timed iteration moves (loads + stores, the
// course's counting rule), as a formula in n and nnz.
func (im *frontierImpl) BytesFormula() ByteFormula { return im.def.bytes }

// Counted says how BytesFormula was counted and from which memory.
func (im *frontierImpl) Counted() string { return im.def.counted + " [" + im.def.memory + "]" }

// Costs counts launches and synchronisations per iteration of a timed run of
// iters iterations on g.
func (im *frontierImpl) Costs(g *pagerank.Graph, iters int) FrontierCosts {
	I := float64(max(iters, 1))
	per := func(k float64) float64 { return k / I }
	switch im.def.id {
	case implT4Bucketed:
		b := float64(nonEmpty(T4Buckets(g)))
		return FrontierCosts{HostLaunches: per(I*(b+1) + 1), Kernels: per(I*(b+1) + 1), ToleranceReads: 1}
	case implFused:
		return FrontierCosts{HostLaunches: per(I + 1), Kernels: per(I + 1), ToleranceReads: 1}
	case implGraph:
		return FrontierCosts{HostLaunches: per(1), Kernels: per(I + 1), ToleranceReads: 1.0 / 10}
	case implPersistent:
		return FrontierCosts{HostLaunches: per(1), Kernels: per(1), DeviceBarriers: per(I + 1), Barrier: "grid.sync()"}
	default: // cluster: after the load, one per iteration, one before exit
		return FrontierCosts{HostLaunches: per(1), Kernels: per(1), DeviceBarriers: per(I + 2), Barrier: "cluster.sync()"}
	}
}

func (im *frontierImpl) newResult(g *pagerank.Graph, mode pagerank.Mode, iters int) *pagerank.Result {
	f := im.def.bytes
	formula := f.String()
	if im.def.memory != "device memory" {
		formula += " (" + im.def.memory + ")"
	}
	return &pagerank.Result{
		Implementation:        im.def.name,
		Case:                  g.Name,
		Precision:             pagerank.Float32,
		N:                     g.N,
		NNZ:                   g.NNZ,
		Mode:                  mode,
		BytesPerIteration:     f.Bytes(g.N, g.NNZ),
		BytesFormula:          formula,
		LaunchesPerIteration:  im.Costs(g, iters).HostLaunches,
		HostSyncsPerIteration: 0,
	}
}

// usable checks, with mu held and g uploaded, that the implementation can run
// on g (the cluster kernel needs the graph to fit its shared memory).
// openLocked (mu held) loads the library, uploads g if it is not the graph
// on the device, and checks this implementation can run on it.
func (im *frontierImpl) openLocked(g *pagerank.Graph) (state, unsafe.Pointer, FrontierInfo, error) {
	s, err := ready()
	if err != nil {
		return s, nil, FrontierInfo{}, err
	}
	h, err := handleLocked(s, g)
	if err != nil {
		return s, nil, FrontierInfo{}, err
	}
	info, err := im.usable(s, h)
	return s, h, info, err
}

func (im *frontierImpl) usable(s state, h unsafe.Pointer) (FrontierInfo, error) {
	info, err := s.lib.frontierInfo(h)
	if err != nil {
		return info, err
	}
	if im.def.id == implCluster && info.ClusterSize == 0 {
		return info, fmt.Errorf("%w: %s: %s", ErrUnavailable, im.def.name, info.ClusterReason)
	}
	return info, nil
}

// Run computes PageRank of g in float on the GPU from x = 1/n (same contract
// as the course implementations' Run). Residuals and Sums hold one entry per
// iteration, computed by the implementation's own kernels in a fixed order
// (the timed runs skip them). Tolerance mode tests convergence: gpu-t4-bucketed
// and gpu-fused read one int per iteration, gpu-graph one per 10 iterations
// (one graph replay), gpu-persistent and gpu-cluster none (on the device).
// Errors: p invalid; ErrUnavailable (wrapped) without a GPU or when the
// cluster cannot hold g; *Error from the library.
func (im *frontierImpl) Run(g *pagerank.Graph, p pagerank.Params) (*pagerank.Result, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	mu.Lock()
	defer mu.Unlock()
	s, h, _, err := im.openLocked(g)
	if err != nil {
		return nil, err
	}
	tol := float32(0)
	if p.Mode == pagerank.Tolerance {
		tol = float32(p.Tolerance)
		if tol <= 0 {
			tol = math.SmallestNonzeroFloat32
		}
	}
	out, err := s.lib.runImpl(h, im.def.id, float32(p.Damping), p.Iterations, tol, g.N)
	if err != nil {
		return nil, fmt.Errorf("%s on %s: %w", im.def.name, g.Name, err)
	}
	res := im.newResult(g, p.Mode, p.Iterations)
	res.Ranks = widen(out.ranks)
	res.Iterations = out.done
	res.Converged = out.converged
	res.Residuals = widen(out.residuals)
	res.Sums = out.sums
	return res, nil
}

// Benchmark times p.Iterations iterations (the course: 50, no convergence
// test; the prologue inside the events), `warmups` untimed runs then `runs`
// timed ones, with CUDA events. Result.Stages holds: each stage timed alone
// (T4: one row per non-empty bucket, with that bucket's rows and edges in
// its name, and the combine; gpu-fused and gpu-graph: one fused iteration),
// then "whole run / iterations" (the median run over the iterations, with
// the iteration's bytes), then the primitives that explain the
// implementation's time (empty launch, graph node, cooperative launch,
// grid.sync(), cluster.sync()), each per operation with 0 bytes.
func (im *frontierImpl) Benchmark(g *pagerank.Graph, p pagerank.Params, warmups, runs int) (*pagerank.Result, error) {
	return im.BenchmarkContext(context.Background(), g, p, warmups, runs)
}

// BenchmarkContext is Benchmark that checks ctx between library calls
// (benchmarkChunked: more than 10 runs are timed in calls of about 0.25 s).
func (im *frontierImpl) BenchmarkContext(ctx context.Context, g *pagerank.Graph, p pagerank.Params, warmups, runs int) (*pagerank.Result, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if warmups < 0 || runs < 1 {
		return nil, fmt.Errorf("cudabind: warmups %d and runs %d must be >= 0 and >= 1", warmups, runs)
	}
	mu.Lock()
	defer mu.Unlock()
	s, h, info, err := im.openLocked(g)
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
	res := im.newResult(g, pagerank.FixedIterations, p.Iterations)
	res.Ranks = widen(ranks)
	res.Iterations = p.Iterations // prlab_benchmark runs exactly this many per run: no convergence test
	t := pagerank.NewTiming(res.Iterations, warmups, widen(ms), "cuda-events")
	res.Timing = &t
	for _, st := range im.def.stages {
		var name, counted string
		var bytes int64
		switch st {
		case stageT4Thread, stageT4Warp, stageT4Block:
			b := info.Buckets[st-stageT4Thread]
			if b.Rows == 0 {
				continue
			}
			name = fmt.Sprintf("T4 spmv, %s (%d rows, %d nnz, in-degree <= %d)", b.Name, b.Rows, b.NNZ, b.MaxSeen)
			bytes, counted = b.Bytes(), "16 rows + 8 nnz (row id, rowPtr[v], rowPtr[v+1], y; colIdx, contrib[col])"
		case stageT4Combine:
			name = "T4 combine + next contrib + next dangling partials"
			bytes, counted = 16*int64(g.N), "16n (load y, invOut; store x', contrib')"
		default:
			name = fmt.Sprintf("fused iteration (%d tiles of <= %d edges, %d blocks)", info.Tiles, info.TileEdges, info.GridFused)
			bytes, counted = im.def.bytes.Bytes(g.N, g.NNZ), im.def.bytes.String()+" ("+fusedCounted+")"
		}
		med, err := s.lib.frontierTimeStage(h, st, d, pagerank.TimingWarmups, StageRepeats)
		if err != nil {
			return nil, fmt.Errorf("%s on %s: %w", im.def.name, g.Name, err)
		}
		res.Stages = append(res.Stages, bytesRow(name, med, bytes, counted, dram.GBps))
	}
	res.Stages = append(res.Stages, bytesRow(fmt.Sprintf("whole run / %d iterations", p.Iterations), t.MedianMs/float64(p.Iterations),
		res.BytesPerIteration, res.BytesFormula+" ("+im.def.counted+")", dram.GBps))
	for _, pr := range im.def.prims {
		row, err := primitiveRowLocked(s, h, pr)
		if err != nil {
			return nil, fmt.Errorf("%s on %s: %w", im.def.name, g.Name, err)
		}
		res.Stages = append(res.Stages, row)
	}
	return res, nil
}

// bytesRow is a stage row with effective bandwidth and x DRAM.
func bytesRow(name string, ms float64, bytes int64, formula string, dramGBps float64) pagerank.Stage {
	st := pagerank.Stage{Name: name, Ms: ms, Bytes: bytes, Formula: formula}
	if ms > 0 {
		st.GBps = float64(bytes) / (ms * 1e6)
	}
	if dramGBps > 0 {
		st.XDRAM = st.GBps / dramGBps
	}
	return st
}

var primNames = [primCount]string{
	primEmptyLaunch: "primitive: empty kernel launch, back to back",
	primGraphNode:   "primitive: CUDA-graph node (empty kernel), per node",
	primGridSync:    "primitive: cooperative grid.sync(), persistent grid",
	primClusterSync: "primitive: cluster.sync(), one cluster",
	primCoopLaunch:  "primitive: cooperative launch (persistent grid, no sync)",
}

var primHow = [primCount]string{
	primEmptyLaunch: "median time of 1000 launches of an empty <<<1, 32>>> kernel on one stream / 1000",
	primGraphNode:   "median time of one replay of a graph of 1000 empty-kernel nodes / 1000",
	primGridSync:    "(median of a cooperative kernel with 1000 grid.sync() - median with none) / 1000",
	primClusterSync: "(median of a one-cluster kernel with 1000 cluster.sync() - median with none) / 1000",
	primCoopLaunch:  "median time of 1000 back-to-back cooperative launches of an empty persistent-shaped grid / 1000",
}

// primitiveRowLocked measures one primitive on g's layout. mu held.
func primitiveRowLocked(s state, h unsafe.Pointer, which int) (pagerank.Stage, error) {
	med, err := s.lib.frontierPrimitive(h, which, PrimitiveCount, pagerank.TimingWarmups, StageRepeats)
	if err != nil {
		return pagerank.Stage{}, err
	}
	return pagerank.Stage{Name: primNames[which], Ms: med / PrimitiveCount, Formula: primHow[which] + "; 0 bytes"}, nil
}

// MeasurePrimitives times, on g's frontier layout, the operations that set
// the time of a cache-resident iteration: a back-to-back empty kernel launch,
// a CUDA-graph node, a cooperative launch and grid.sync() of the persistent
// grid, and cluster.sync() of the cluster kernel's shape (omitted where the
// device has no clusters). Each row's Ms is per operation (median of
// StageRepeats executions of PrimitiveCount operations, after 3 warm-ups).
func MeasurePrimitives(g *pagerank.Graph) ([]pagerank.Stage, error) {
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
	info, err := s.lib.frontierInfo(h)
	if err != nil {
		return nil, err
	}
	var out []pagerank.Stage
	for _, which := range []int{primEmptyLaunch, primGraphNode, primCoopLaunch, primGridSync, primClusterSync} {
		if which == primClusterSync && info.ClusterSize == 0 {
			continue
		}
		row, err := primitiveRowLocked(s, h, which)
		if err != nil {
			return nil, err
		}
		out = append(out, row)
	}
	return out, nil
}
