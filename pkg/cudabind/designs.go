package cudabind

// The one table of GPU designs (designs) and the one type that runs any of
// them (gpuDesign: pagerank.Implementation, Benchmarker and Unavailable).
// A design is a PRLAB_IMPL_* code of csrc/prlab_cuda.h plus what the Go side
// reports about it: its stages, the bytes one iteration moves, the launches
// and host synchronisations of its timed loop, the compute capability it
// needs, and the node order of the graph it runs on (as given, or relabelled
// once on the host; relabelling is a field of the design, not a wrapper).

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/prlab/prlab/pkg/pagerank"
)

// Design codes; values are the PRLAB_IMPL_* constants of csrc/prlab_cuda.h.
const (
	implNaive           = 0
	implThreadPerRow    = 1
	implWarpPerRow      = 2
	implThrustCUB       = 3
	implCusparse        = 4
	implThrustCUBNoSync = 5

	implLayoutFirst = 16 // PRLAB_IMPL_LAYOUT_FIRST: the layout designs' range
	implT4Bucketed  = 16
	implFused       = 17
	implGraph       = 18
	implPersistent  = 19
	implCluster     = 20
	implLayoutEnd   = 21

	implHotHead       = 24 // PRLAB_IMPL_HOTHEAD (csrc/hothead.cu)
	implHotHeadPacked = 25 // PRLAB_IMPL_HOTHEAD_PACKED
	implClusterDSMEM  = 28 // PRLAB_IMPL_CLUSTER_DSMEM (csrc/cluster_dsmem.cu): its own code range
	implPropBlock     = 32 // PRLAB_IMPL_PROPBLOCK (csrc/propblock.cu): its own code range
)

// Registry names of the GPU designs, as reports and verify know them.
const (
	NameNaive               = "gpu-naive"
	NameThreadPerRow        = "gpu-thread-per-row"
	NameWarpPerRow          = "gpu-warp-per-row"
	NameThrustCUB           = "gpu-thrust-cub"
	NameThrustCUBNoSync     = "gpu-thrust-cub-nosync"
	NameCusparse            = "gpu-cusparse"
	NameT4Bucketed          = "gpu-t4-bucketed"
	NameFused               = "gpu-fused"
	NameGraph               = "gpu-graph"
	NamePersistent          = "gpu-persistent"
	NameCluster             = "gpu-cluster"
	NameClusterDSMEM        = "gpu-cluster-dsmem"
	NameCusparseReordered   = "gpu-cusparse-reordered"
	NameFusedReordered      = "gpu-fused-reordered"
	NameT4BucketedReordered = "gpu-t4-bucketed-reordered"
	NameHotHead             = "gpu-hothead"
	NameHotHeadPacked       = "gpu-hothead-packed"
	NamePropBlock           = "gpu-prop-blocking"
)

// family is how a design's iteration is built, which decides how its bytes,
// launches and stage rows are known.
type family int

const (
	// familyStages: one kernel or library call per stage (csrc/api.cu,
	// kernels.cu, library.cu); the iteration's bytes and launches are the
	// sums of its stages'.
	familyStages family = iota
	// familyLayout: kernels built on the layout computed once per uploaded
	// graph (T4 buckets, CSR-Adaptive tiles, persistent and cluster grids;
	// csrc/layout.cu); the bytes are counted for the whole iteration.
	familyLayout
)

// design is one GPU design.
type design struct {
	id     int    // PRLAB_IMPL_* code
	name   string // registry name
	label  string
	family family
	// stages: familyStages, the iteration's stages in launch order;
	// familyLayout, the stages Benchmark times alone. Read from the C table
	// of designs (prlab_designs in csrc/prlab_cuda.h), never written here.
	stages []int
	// bytes, counted and memory: familyLayout, the iteration's counted bytes
	// and where they live (familyStages sums its stages' formulas).
	bytes   ByteFormula
	counted string
	memory  string
	// costs: familyLayout, launches and barriers per iteration of a timed
	// run of iters iterations on g (familyStages: its stages' launches).
	costs     func(g *pagerank.Graph, iters int) Costs
	hostSyncs int    // host synchronisations per timed iteration
	syncNote  string // what they are
	prims     []int  // primitives reported with Benchmark
	// minCC is the compute capability the design needs (major*10 + minor, 0:
	// any); needs names the feature.
	minCC int
	needs string
	// order is "" when the design runs on the graph as given; otherwise the
	// graph is relabelled once on the host by it (pagerank.DegreeOrder), the
	// design runs the kernels of the design named kernelsOf (its own when
	// kernelsOf is "") on the relabelled graph, and its ranks are permuted
	// back to the graph's order.
	order     pagerank.Order
	kernelsOf string
}

// launchPerIteration are the costs of a design that launches one kernel
// per iteration and one more per run (the prologue: x_0/outdeg and the first
// dangling partials), the residual read back after every iteration.
func launchPerIteration(g *pagerank.Graph, iters int) Costs {
	I := float64(max(iters, 1))
	return Costs{HostLaunches: (I + 1) / I, Kernels: (I + 1) / I, ToleranceReads: 1}
}

// oneLaunch gives the costs of a design that runs the prologue and all its
// iterations in one launch: one device-wide barrier (barrier) per iteration
// plus extra per run.
func oneLaunch(extra float64, barrier string) func(g *pagerank.Graph, iters int) Costs {
	return func(g *pagerank.Graph, iters int) Costs {
		I := float64(max(iters, 1))
		return Costs{HostLaunches: 1 / I, Kernels: 1 / I, DeviceBarriers: (I + extra) / I, Barrier: barrier}
	}
}

const fusedCounted = "rowPtr 4(n+1) + colIdx 4nnz + contrib[col] 4nnz + invOut 4n, store x' 4n + contrib' 4n; tile table, heavy-row list and partials O(tiles) not counted"

// LocalityOrder is the relabelling of the reordered designs (NOTES.md,
// section "locality"): out-degree descending.
const LocalityOrder = pagerank.OrderOutDegree

// designs in report order. Host syncs: thrust::transform and thrust::gather
// with the thrust::device policy synchronise the stream before returning
// (CCCL thrust/system/cuda/detail/transform.h: synchronize_optional), which
// makes 3 transforms + 1 gather = 4 per iteration; par_nosync skips them.
// CUB device algorithms, cuSPARSE SpMV and our kernels do not synchronise.
var designs = withRelabelled([]design{
	{id: implNaive, name: NameNaive, label: "GPU naive (T2): thread per row, one atomicAdd per thread", syncNote: "none"},
	{id: implThreadPerRow, name: NameThreadPerRow, label: "GPU thread per row (T3): scalar CSR SpMV, tree reductions", syncNote: "none"},
	{id: implWarpPerRow, name: NameWarpPerRow, label: "GPU warp per row: CSR SpMV, shuffle reductions", syncNote: "none"},
	{id: implThrustCUB, name: NameThrustCUB, label: "GPU Thrust + CUB (thrust::device), no custom kernel",
		hostSyncs: 4, syncNote: "thrust::device synchronises after each of 3 transforms and 1 gather"},
	{id: implThrustCUBNoSync, name: NameThrustCUBNoSync, label: "GPU Thrust + CUB (thrust::cuda::par_nosync)",
		syncNote: "none"},
	{id: implCusparse, name: NameCusparse, label: "GPU cuSPARSE SpMV (CSR, P = A D^-1), shuffle reductions", syncNote: "none"},

	{id: implT4Bucketed, name: NameT4Bucketed, label: "GPU T4: in-degree buckets (thread / warp / block per row), fused combine",
		family: familyLayout, bytes: ByteFormula{32, 8, 0},
		counted: "per bucket 16 rows_b + 8 nnz_b (row id, rowPtr[v], rowPtr[v+1], y; colIdx, contrib[col]); combine y 4n + invOut 4n, store x' 4n + contrib' 4n",
		memory:  "device memory", prims: []int{primEmptyLaunch},
		costs: func(g *pagerank.Graph, iters int) Costs {
			I, b := float64(max(iters, 1)), float64(nonEmpty(T4Buckets(g)))
			return Costs{HostLaunches: (I*(b+1) + 1) / I, Kernels: (I*(b+1) + 1) / I, ToleranceReads: 1}
		}},
	{id: implFused, name: NameFused, label: "GPU fused iteration: one launch (CSR-Adaptive tiles + combine + next dangling partials)",
		family: familyLayout, bytes: ByteFormula{16, 8, 4}, counted: fusedCounted, memory: "device memory",
		prims: []int{primEmptyLaunch},
		costs: launchPerIteration},
	{id: implGraph, name: NameGraph, label: "GPU fused iteration in a CUDA Graph (one graph launch per timed run)",
		family: familyLayout, bytes: ByteFormula{16, 8, 4}, counted: fusedCounted, memory: "device memory",
		prims: []int{primGraphNode},
		costs: func(g *pagerank.Graph, iters int) Costs {
			I := float64(max(iters, 1))
			return Costs{HostLaunches: 1 / I, Kernels: (I + 1) / I, ToleranceReads: 1.0 / 10}
		}},
	{id: implPersistent, name: NamePersistent, label: "GPU persistent: one cooperative launch, one grid.sync() per iteration",
		family: familyLayout, bytes: ByteFormula{16, 8, 4},
		counted: fusedCounted + "; with the resident layout (every block owns one tile) rowPtr, colIdx and invOut are read into shared memory once and served from there",
		memory:  "device memory, or shared memory for the resident tile arrays", prims: []int{primCoopLaunch, primGridSync},
		costs: oneLaunch(1, "grid.sync()")},
	{id: implCluster, name: NameCluster, label: "GPU thread-block cluster: graph and ranks in distributed shared memory (sm_90)",
		family: familyLayout, bytes: ByteFormula{16, 8, 4},
		counted: "the fused iteration's loads and stores, all served by shared and distributed shared memory; 0 bytes of device memory per iteration after the one-time load",
		memory:  "shared memory", prims: []int{primClusterSync}, minCC: 90, needs: "thread-block clusters",
		costs: oneLaunch(2, "cluster.sync()")}, // after the load, one per iteration, one before exit
	{id: implClusterDSMEM, name: NameClusterDSMEM, label: "GPU one thread-block cluster: graph in shared memory, needed-only DSMEM exchange, one cluster-wide barrier per iteration (built with CUDA >= 12.1: st.async of the slices and the dangling partials, the receivers' mbarrier wait as the barrier; else cluster.sync()) (sm_90)",
		family: familyLayout, bytes: ByteFormula{16, 8, 4},
		counted: "the fused iteration's loads and stores (rowPtr 4(n+1), colIdx 4nnz, contrib[col] 4nnz, invOut 4n, x' 4n, contrib' 4n), all served by each block's shared memory; the exchange of the contributions each block's edges need (4 bytes per block and needed remote row, padded to 16-byte segments) through distributed shared memory is not counted; 0 bytes of device memory per iteration after the one-time load",
		memory:  "shared memory", prims: []int{primClusterSync}, minCC: 90, needs: "thread-block clusters",
		costs: oneLaunch(2, "cluster.sync()")}, // after the load, one per iteration, one before exit
	{id: implHotHead, name: NameHotHead, label: "GPU hot head: one launch per iteration (T4 buckets + combine), the hottest contributions from shared memory, graph relabelled by out-degree",
		family: familyLayout, bytes: ByteFormula{24, 8, 0}, order: LocalityOrder,
		counted: "row id 4 + rowPtr[v], rowPtr[v+1] 8 + invOut 4 + store x' 4 + contrib' 4 per row; colIdx 4 + contrib[col] 4 per edge, contrib[col < H] served by shared memory; the per-block staging of contrib[0, H) (G x 4H bytes, 4H <= 96 KiB as tuned) and the dangling partials O(G) not counted",
		memory:  "device memory, and shared memory for the hot head", prims: []int{primEmptyLaunch},
		costs: launchPerIteration},
	{id: implHotHeadPacked, name: NameHotHeadPacked, label: "GPU hot head on the 16-bit column code (gap to the previous column, 4-byte escapes), graph relabelled by out-degree",
		family: familyLayout, bytes: ByteFormula{28, 6, 0}, order: LocalityOrder,
		counted: "row id 4 + rowPtr[v], rowPtr[v+1] 8 + escape offset 4 + invOut 4 + store x' 4 + contrib' 4 per row; code 2 + contrib[col] 4 per edge, contrib[col < H] served by shared memory; + 4 per escaped gap (>= 65535, counted per graph: BytesPerIteration includes them); the segment tables of rows longer than 1024 edges (O(nnz/1024)), the per-block staging of contrib[0, H) and the dangling partials O(G) not counted",
		memory:  "device memory, and shared memory for the hot head", prims: []int{primEmptyLaunch},
		costs: launchPerIteration},
	{id: implPropBlock, name: NamePropBlock, label: "GPU propagation blocking: contributions streamed into destination bins, then added in shared memory in fixed point (the hot head's edges gathered from it), graph relabelled by out-degree",
		family: familyLayout, bytes: ByteFormula{16, 12, 0}, order: LocalityOrder,
		counted: "per cold edge: source-local index 2 + value store 4 (phase 1), value 4 + destination-local index 2 (phase 2); per hot edge (source in the head) the packed source and destination 4 instead of 12: - 8 x hot edges, counted per graph (BytesPerIteration includes them); per row: contribution staged 4 (phase 1), invOut 4, store x' 4 + contrib' 4 (phase 2); the per-block staging of the head (bins x 4H bytes), the segment tables read by phase 1's search, the items and the dangling partials O(bins x chunks) not counted",
		memory:  "device memory, and shared memory for the bins' accumulators, the chunks' contributions and the hot head", prims: []int{primEmptyLaunch},
		costs: func(g *pagerank.Graph, iters int) Costs {
			I := float64(max(iters, 1))
			return Costs{HostLaunches: (2*I + 1) / I, Kernels: (2*I + 1) / I, ToleranceReads: 1}
		}},
}, []struct{ name, kernelsOf, label string }{
	{NameCusparseReordered, NameCusparse, "GPU cuSPARSE SpMV on the graph relabelled by out-degree (one-time host relabel)"},
	{NameFusedReordered, NameFused, "GPU fused iteration on the graph relabelled by out-degree (one-time host relabel)"},
	{NameT4BucketedReordered, NameT4Bucketed, "GPU T4 buckets on the graph relabelled by out-degree (one-time host relabel)"},
})

// The stage lists come from the C table of designs (designStages, lib_cgo.go).
func init() {
	for i := range designs {
		designs[i].stages = designStages(designs[i].id)
	}
}

// withRelabelled appends to base one design per entry of rel: the design
// named kernelsOf, run on the graph relabelled by LocalityOrder.
func withRelabelled(base []design, rel []struct{ name, kernelsOf, label string }) []design {
	out := base
	for _, r := range rel {
		for _, d := range base {
			if d.name == r.kernelsOf {
				d.name, d.label, d.order, d.kernelsOf = r.name, r.label, LocalityOrder, r.kernelsOf
				out = append(out, d)
			}
		}
	}
	return out
}

// Designs returns every GPU design, in report order: the stage-by-stage
// designs (gpu-naive, gpu-thread-per-row, gpu-warp-per-row, gpu-thrust-cub,
// gpu-thrust-cub-nosync, gpu-cusparse), the layout designs (gpu-t4-bucketed,
// gpu-fused, gpu-graph, gpu-persistent, gpu-cluster, gpu-cluster-dsmem), then the designs on
// the graph relabelled by out-degree (gpu-cusparse-reordered,
// gpu-fused-reordered, gpu-t4-bucketed-reordered). Each also implements
// pagerank.Benchmarker and pagerank.Unavailable; gpu-cusparse and
// gpu-warp-per-row also pagerank.Resident (resident.go). They are returned even
// when no GPU is present; then Reason() says why and Run returns an error
// wrapping ErrUnavailable.
func Designs() []pagerank.Implementation {
	out := make([]pagerank.Implementation, len(designs))
	for i := range designs {
		out[i] = implFor(designs[i])
	}
	return out
}

// DesignByName returns the GPU design with registry name name.
func DesignByName(name string) (pagerank.Implementation, bool) {
	for i := range designs {
		if designs[i].name == name {
			return implFor(designs[i]), true
		}
	}
	return nil, false
}

// designOf is the as-given design with code id (nil if none).
func designOf(id int) *design {
	for i := range designs {
		if designs[i].id == id && designs[i].order == "" {
			return &designs[i]
		}
	}
	return nil
}

// gpuDesign is a pagerank.Implementation, Benchmarker and Unavailable backed
// by libprlab_cuda.so.
type gpuDesign struct{ design }

func (d *gpuDesign) Name() string                  { return d.name }
func (d *gpuDesign) Label() string                 { return d.label }
func (d *gpuDesign) Precision() pagerank.Precision { return pagerank.Float32 }

// Reason is "" when the design can run here, else why not: the library,
// driver or device is missing, or the device's compute capability is below
// what the design needs. Whether a graph fits the cluster's shared memory is
// known only at upload (Run then returns an error wrapping ErrUnavailable).
func (d *gpuDesign) Reason() string {
	if _, reason := Available(); reason != "" {
		return reason
	}
	if d.minCC > 0 {
		dev, err := DeviceInfo()
		if err != nil {
			return err.Error()
		}
		if 10*dev.CCMajor+dev.CCMinor < d.minCC {
			return fmt.Sprintf("%s need compute capability %d.%d; %s is %s", d.needs, d.minCC/10, d.minCC%10, dev.Name, dev.ComputeCapability())
		}
	}
	return ""
}

// BytesFormula is the bytes one iteration moves (loads + stores, the
// course's counting rule), as a formula in n and nnz.
func (d *design) BytesFormula() ByteFormula {
	if d.family == familyStages {
		return iterationFormula(d.stages)
	}
	return d.bytes
}

// Counted says how BytesFormula was counted and from which memory.
func (d *design) Counted() string {
	if d.family == familyStages {
		return "the sum of its stages' formulas"
	}
	return d.counted + " [" + d.memory + "]"
}

// Costs counts, per iteration of a timed run of I iterations, what the host
// and the device synchronise on (for the layout designs the prologue that
// computes x_0/outdeg and the first dangling partials is part of the run).
type Costs struct {
	HostLaunches   float64 `json:"host_launches"`   // kernel / graph / cooperative launches, memsets and library calls the host issues
	Kernels        float64 `json:"kernels"`         // kernel executions (graph nodes included)
	DeviceBarriers float64 `json:"device_barriers"` // grid.sync() or cluster.sync()
	Barrier        string  `json:"barrier,omitempty"`
	HostSyncs      float64 `json:"host_syncs"` // in the timed loop
	// ToleranceReads is the 4-byte device-to-host reads per iteration of a
	// tolerance run (the convergence test).
	ToleranceReads float64 `json:"tolerance_reads"`
}

// Costs of a timed run of iters iterations on g.
func (d *design) Costs(g *pagerank.Graph, iters int) Costs {
	if d.family == familyLayout {
		return d.costs(g, iters)
	}
	l := float64(iterationLaunches(d.stages))
	return Costs{HostLaunches: l, Kernels: l, HostSyncs: float64(d.hostSyncs), ToleranceReads: 1}
}

// Stages returns the definitions of the stages of one iteration (the
// stage-by-stage designs; nil for the layout designs).
func (d *design) Stages() []StageDef {
	if d.family != familyStages {
		return nil
	}
	out := make([]StageDef, len(d.stages))
	for i, id := range d.stages {
		out[i] = stageDefs[id]
	}
	return out
}

// formula is BytesFormula as text, with the memory its bytes live in when
// that is not device memory.
func (d *design) formula() string {
	if d.family == familyLayout && d.memory != "device memory" {
		return d.bytes.String() + " (" + d.memory + ")"
	}
	return d.BytesFormula().String()
}

// newResult is the Result skeleton of a run of iters iterations on g (the
// graph's own order and name).
func (d *design) newResult(g *pagerank.Graph, mode pagerank.Mode, iters int) *pagerank.Result {
	f := d.BytesFormula()
	formula := d.formula()
	if d.order != "" && d.kernelsOf != "" {
		formula += fmt.Sprintf(" (%s's kernels and bytes, on the graph relabelled by %s)", d.kernelsOf, d.order)
	} else if d.order != "" {
		formula += fmt.Sprintf(" (on the graph relabelled by %s)", d.order)
	}
	c := d.Costs(g, iters)
	return &pagerank.Result{
		Implementation:        d.name,
		Case:                  g.Name,
		Precision:             pagerank.Float32,
		N:                     g.N,
		NNZ:                   g.NNZ,
		Mode:                  mode,
		BytesPerIteration:     f.Bytes(g.N, g.NNZ),
		BytesFormula:          formula,
		LaunchesPerIteration:  c.HostLaunches,
		HostSyncsPerIteration: c.HostSyncs,
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
// whose L1 residual (the design's own float reduction) is below
// p.Tolerance: the stage-by-stage designs, gpu-t4-bucketed and gpu-fused
// read one value per iteration, gpu-graph one per graph replay (10
// iterations), gpu-persistent and gpu-cluster none (the test runs on the
// device). Residuals and Sums hold one entry per iteration (sums accumulated
// in double by an instrumentation kernel that runs only here, never in
// Benchmark). A relabelled design relabels g once (cached) and returns the
// ranks in g's order.
// Errors: p invalid; ErrUnavailable (wrapped) without a GPU or when the
// cluster cannot hold g; *Error from the library.
func (d *gpuDesign) Run(g *pagerank.Graph, p pagerank.Params) (*pagerank.Result, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	tol := float32(0)
	if p.Mode == pagerank.Tolerance {
		tol = float32(p.Tolerance)
		if tol <= 0 { // a tolerance below float's smallest value: run to the cap
			tol = math.SmallestNonzeroFloat32
		}
	}
	var out runOut
	res := d.newResult(g, p.Mode, p.Iterations)
	perm, err := d.onDevice(g, func(s *Session) error {
		var err error
		out, err = s.lib.runImpl(s.h, d.id, float32(p.Damping), p.Iterations, tol, s.g.N)
		d.escapeBytes(res, s)
		if err != nil {
			return err
		}
		_, err = d.propBlockBytes(res, s, float32(p.Damping))
		return err
	})
	if err != nil {
		return nil, err
	}
	res.Ranks = d.ranksOf(out.ranks, perm)
	res.Iterations = out.done
	res.Converged = out.converged
	res.Residuals = widen(out.residuals)
	res.Sums = out.sums
	return res, nil
}

// onDevice runs fn on the session holding the graph this design runs on (g,
// or g relabelled), after checking that the design can run there. It returns
// the permutation of a relabelled design (nil otherwise). Errors name the
// design and the graph.
func (d *gpuDesign) onDevice(g *pagerank.Graph, fn func(s *Session) error) ([]int32, error) {
	if r := d.Reason(); r != "" {
		return nil, fmt.Errorf("%w: %s", ErrUnavailable, r)
	}
	target, perm := g, []int32(nil)
	if d.order != "" {
		rg, p, _, err := relabelled(g)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.name, err)
		}
		target, perm = rg, p
	}
	err := withSession(target, func(s *Session) error {
		if err := d.usable(s); err != nil {
			return err
		}
		if err := d.prepare(s); err != nil {
			return err
		}
		return fn(s)
	})
	if err != nil {
		return nil, fmt.Errorf("%s on %s: %w", d.name, target.Name, err)
	}
	return perm, nil
}

// usable checks that the design can run on the session's graph (the cluster
// kernel needs the graph to fit its shared memory).
func (d *design) usable(s *Session) error {
	if d.id != implCluster {
		return nil
	}
	info, err := s.lib.layoutInfo(s.h)
	if err != nil {
		return err
	}
	if info.ClusterSize == 0 {
		return fmt.Errorf("%w: %s", ErrUnavailable, info.ClusterReason)
	}
	return nil
}

// prepare uploads what the design needs beyond the CSR, once per session:
// gpu-hothead-packed's column code (EncodeColumns of the session's graph).
func (d *design) prepare(s *Session) error {
	if d.id != implHotHeadPacked || s.escapes >= 0 {
		return nil
	}
	t0 := time.Now()
	code, err := EncodeColumns(s.g.InRowPtr, s.g.InColIdx)
	if err != nil {
		return err
	}
	s.codeMs = float64(time.Since(t0).Microseconds()) / 1000
	if err := s.lib.hotHeadCodes(s.h, code); err != nil {
		return err
	}
	s.escapes = len(code.Exc)
	return nil
}

// HotHeadSetup is the configuration a hot-head design runs with on one
// graph (prlab_hothead_info): contributions staged per block, the load mode
// of the once-read streams (1 ld.global.nc, 2 ld.global.nc.L1::no_allocate
// for the coalesced ones, a thread-per-row row's own indices through
// ld.global.nc, 3 ld.global.cs), loads in flight per thread and step (2, 4 or 8;
// the two-phase gather's edges per thread and tile, 8 or 16), blocks,
// threads per block, threads per heavy row (0: the two-phase gather, which
// has no row loops), and the ms of the one-time tuning's timed iterations
// (the size, mode, loads per step and gather whose knobs are 0 are the
// fastest of 3 timed iterations per candidate; the row loops give the same
// bits whatever the size, mode and loads per step).
type HotHeadSetup struct {
	HotFloats, LoadMode, LoadsPerStep, Grid, Threads, Group int
	TuneMs                                                  float64
}

// loadModes names HotHeadSetup.LoadMode.
var loadModes = map[int]string{1: "ld.global.nc", 2: "ld.global.nc.L1::no_allocate", 3: "ld.global.cs"}

func (h HotHeadSetup) String() string {
	if h.Group == 0 {
		return fmt.Sprintf("%d floats (%d KiB) of contributions staged per block, once-read streams by %s, two-phase gather: tiles of consecutive rows (at most %d rows, %d edges) gathered into shared memory with %d loads in flight per thread, then summed from it, %d blocks x %d threads",
			h.HotFloats, h.HotFloats*4/1024, loadModes[h.LoadMode], h.Threads, h.Threads*h.LoadsPerStep, h.LoadsPerStep, h.Grid, h.Threads)
	}
	return fmt.Sprintf("%d floats (%d KiB) of contributions staged per block, once-read streams by %s, %d loads per thread and step, %d blocks x %d threads, %d threads per row above 1,024 edges",
		h.HotFloats, h.HotFloats*4/1024, loadModes[h.LoadMode], h.LoadsPerStep, h.Grid, h.Threads, h.Group)
}

// setupRow is a hot-head design's row of its one-time setup on the
// session's graph (nil for the other designs).
func (d *design) setupRow(s *Session, damping float32) (*pagerank.Stage, error) {
	if d.id != implHotHead && d.id != implHotHeadPacked {
		return nil, nil
	}
	h, err := s.lib.hotHeadInfo(s.h, d.id, damping)
	if err != nil {
		return nil, err
	}
	return &pagerank.Stage{Name: "one-time setup of the hot head (tuned, not in the timed iterations)", Kind: pagerank.StageRelabel,
		Ms: h.TuneMs, Formula: h.String() + "; 0 bytes per iteration"}, nil
}

// PropBlockSetup is the layout gpu-prop-blocking runs with on one graph
// (prlab_propblock_info): head floats gathered from shared memory in phase
// 2, rows per bin (at most) and per source chunk, bins, chunks, phase-1
// work items, the edges whose source is in the head (4 bytes per iteration
// each instead of 12), the one-time build's wall time (ms; keys, one
// radix sort and the tables, on the GPU), each phase launched alone (ms
// per launch, the mean of 10: the scatter, the accumulate + combine), and
// how phase 2 adds: segments ordered by destination with one atomic per
// run of a destination (Runs; else by source, one per edge), and row sums
// in 64-bit fixed point by integer atomics, the same bits every run
// (Fixed; else float atomics, whose order varies).
type PropBlockSetup struct {
	HotFloats, BinRows, ChunkRows, Bins, Chunks, Items int
	HotEdges                                           int64
	BuildMs, ScatterMs, AccumulateMs                   float64
	Runs, Fixed                                        bool
}

func (p PropBlockSetup) String() string {
	add := "one float atomic per edge"
	if p.Runs {
		add = "one atomic per run of a destination"
	}
	if p.Fixed {
		add += ", 64-bit fixed-point row sums (the same bits every run)"
	} else {
		add += ", float row sums (order varies)"
	}
	return fmt.Sprintf("%d bins of <= %d rows, %d source chunks of %d rows, %d phase-1 items; head %d floats (%d KiB), %d hot edges; %s; alone: scatter %.4f ms, accumulate + combine %.4f ms",
		p.Bins, p.BinRows, p.Chunks, p.ChunkRows, p.Items, p.HotFloats, p.HotFloats*4/1024, p.HotEdges, add, p.ScatterMs, p.AccumulateMs)
}

// propBlockBytes subtracts the 8 bytes per iteration each hot edge saves
// (gpu-prop-blocking; no-op for the other designs) and returns the
// layout's row of the one-time setup (nil for the other designs).
func (d *design) propBlockBytes(res *pagerank.Result, s *Session, damping float32) (*pagerank.Stage, error) {
	if d.id != implPropBlock {
		return nil, nil
	}
	p, err := s.lib.propBlockInfo(s.h, damping)
	if err != nil {
		return nil, err
	}
	res.BytesPerIteration -= 8 * p.HotEdges
	res.BytesFormula += fmt.Sprintf(" - 8 x %d hot edges", p.HotEdges)
	return &pagerank.Stage{Name: "one-time propagation-blocking layout on the GPU (not in the timed iterations)", Kind: pagerank.StageRelabel,
		Ms: p.BuildMs, Formula: p.String() + "; 0 bytes per iteration"}, nil
}

// codeRow is gpu-hothead-packed's row of the one-time host encoding (nil
// for the other designs).
func (d *design) codeRow(s *Session) *pagerank.Stage {
	if d.id != implHotHeadPacked || s.escapes < 0 {
		return nil
	}
	n, nnz := int64(s.g.N), int64(s.g.NNZ)
	return &pagerank.Stage{
		Name: "one-time host column code (EncodeColumns, not in the timed iterations)",
		Kind: pagerank.StageRelabel, Ms: s.codeMs,
		Formula: fmt.Sprintf("%d escapes; 2 nnz + 4 (n+1) + 4 x escapes = %d bytes on the device, read by every iteration instead of colIdx's %d; 0 bytes of device memory to build",
			s.escapes, 2*nnz+4*(n+1)+4*int64(s.escapes), 4*nnz),
	}
}

// escapeBytes adds the bytes of the escaped gaps (4 each) that
// gpu-hothead-packed reads per iteration to res.
func (d *design) escapeBytes(res *pagerank.Result, s *Session) {
	if d.id == implHotHeadPacked && s.escapes >= 0 {
		res.BytesPerIteration += 4 * int64(s.escapes)
		res.BytesFormula += fmt.Sprintf(" + 4 x %d escapes", s.escapes)
	}
}

// ranksOf widens the device's ranks, in g's order for a relabelled design.
func (d *design) ranksOf(ranks []float32, perm []int32) []float64 {
	out := widen(ranks)
	if perm != nil && len(out) == len(perm) {
		out = pagerank.UnpermuteRanks(out, perm)
	}
	return out
}

// StageRepeats is how many timed executions each stage's median is taken
// over (after pagerank.TimingWarmups warm-ups).
const StageRepeats = 20

// Benchmark times p.Iterations iterations (the course: 50, no convergence
// test) with CUDA events recorded around the warmed iterations only (the
// reset of x and every copy stay outside; a layout design's prologue
// inside): `warmups` untimed runs, then `runs` timed ones. Result.Timing
// holds each run's ms (clock "cuda-events"); Ranks are those after the last
// run (in g's order); Residuals and Sums are empty. Result.Stages holds
// each stage of one iteration timed alone (median of StageRepeats) with its
// bytes and formula (GB/s and x DRAM are computed by pkg/study from bytes
// and time, against the copy rows of MeasureStages). The layout designs' rows: one per non-empty T4 bucket
// (its rows and edges in the name) and the combine, or the fused iteration;
// then "whole run / iterations" (the median run over the iterations, with
// the iteration's bytes); then the primitives that explain the design's
// time, per operation with 0 bytes. A relabelled design adds the one-time
// host relabel (0 device bytes; not in the timed iterations).
func (d *gpuDesign) Benchmark(g *pagerank.Graph, p pagerank.Params, warmups, runs int) (*pagerank.Result, error) {
	return d.BenchmarkContext(context.Background(), g, p, warmups, runs)
}

// BenchmarkContext is Benchmark that checks ctx between library calls
// (benchmarkChunked: more than 10 runs are timed in calls of about 0.25 s).
func (d *gpuDesign) BenchmarkContext(ctx context.Context, g *pagerank.Graph, p pagerank.Params, warmups, runs int) (*pagerank.Result, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if warmups < 0 || runs < 1 {
		return nil, fmt.Errorf("cudabind: warmups %d and runs %d must be >= 0 and >= 1", warmups, runs)
	}
	res := d.newResult(g, pagerank.FixedIterations, p.Iterations)
	res.Iterations = p.Iterations // prlab_benchmark runs exactly this many per run: no convergence test
	dmp := float32(p.Damping)
	perm, err := d.onDevice(g, func(s *Session) error {
		d.escapeBytes(res, s)
		pbRow, err := d.propBlockBytes(res, s, dmp)
		if err != nil {
			return err
		}
		ms, ranks, err := benchmarkChunked(ctx, func(w, r int) ([]float32, []float32, error) {
			return s.lib.benchmark(s.h, d.id, dmp, p.Iterations, w, r, s.g.N)
		}, warmups, runs)
		if err != nil {
			return err
		}
		res.Ranks = widen(ranks)
		t := pagerank.NewTiming(res.Iterations, warmups, widen(ms), "cuda-events")
		res.Timing = &t
		res.Stages, err = d.stageRows(s, dmp)
		if err != nil || d.family != familyLayout {
			return err
		}
		res.Stages = append(res.Stages, pagerank.Stage{Name: fmt.Sprintf("whole run / %d iterations", p.Iterations), Kind: pagerank.StageWholeRun,
			Ms: t.MedianMs / float64(p.Iterations), Bytes: res.BytesPerIteration, Formula: d.formula() + " (" + d.counted + ")"})
		for _, pr := range d.prims {
			row, err := s.primitiveRow(pr)
			if err != nil {
				return err
			}
			res.Stages = append(res.Stages, row)
		}
		if row := d.codeRow(s); row != nil {
			res.Stages = append(res.Stages, *row)
		}
		if pbRow != nil {
			res.Stages = append(res.Stages, *pbRow)
		}
		row, err := d.setupRow(s, dmp)
		if row != nil {
			res.Stages = append(res.Stages, *row)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return d.finish(res, g, perm)
}

// finish puts a benchmark's ranks in g's order and adds a relabelled
// design's relabel row.
func (d *gpuDesign) finish(res *pagerank.Result, g *pagerank.Graph, perm []int32) (*pagerank.Result, error) {
	if perm == nil {
		return res, nil
	}
	if len(res.Ranks) == len(perm) {
		res.Ranks = pagerank.UnpermuteRanks(res.Ranks, perm)
	}
	_, _, info, err := relabelled(g)
	if err != nil {
		return nil, err
	}
	res.Stages = append(res.Stages, pagerank.Stage{
		Name:    fmt.Sprintf("one-time host relabel by %s (not in the timed iterations)", info.Order),
		Kind:    pagerank.StageRelabel,
		Ms:      info.TotalMs,
		Formula: info.String() + "; 0 bytes of device memory",
	})
	return res, nil
}

// stageRows times each of the design's stages alone on the session's graph.
func (d *design) stageRows(s *Session, dmp float32) ([]pagerank.Stage, error) {
	var info Layout
	if d.family == familyLayout {
		var err error
		if info, err = s.lib.layoutInfo(s.h); err != nil {
			return nil, err
		}
	}
	var rows []pagerank.Stage
	for _, st := range d.stages {
		name, bytes, formula, ok := d.stageDef(st, info, s.g)
		if !ok {
			continue
		}
		med, err := s.lib.timeStage(s.h, st, dmp, pagerank.TimingWarmups, StageRepeats)
		if err != nil {
			return nil, err
		}
		rows = append(rows, pagerank.Stage{Name: name, Ms: med, Bytes: bytes, Formula: formula})
	}
	return rows, nil
}

// stageDef names stage st of this design on g with layout info and gives
// its bytes and formula; false for an empty T4 bucket (not timed).
func (d *design) stageDef(st int, info Layout, g *pagerank.Graph) (name string, bytes int64, formula string, ok bool) {
	switch st {
	case stageT4Thread, stageT4Warp, stageT4Block:
		b := info.Buckets[st-stageT4Thread]
		return fmt.Sprintf("T4 spmv, %s (%d rows, %d nnz, in-degree <= %d)", b.Name, b.Rows, b.NNZ, b.MaxSeen),
			b.Bytes(), "16 rows + 8 nnz (row id, rowPtr[v], rowPtr[v+1], y; colIdx, contrib[col])", b.Rows > 0
	case stageT4Combine:
		return "T4 combine + next contrib + next dangling partials", 16 * int64(g.N), "16n (load y, invOut; store x', contrib')", true
	case stageFusedIteration:
		return fmt.Sprintf("fused iteration (%d tiles of <= %d edges, %d blocks)", info.Tiles, info.TileEdges, info.GridFused),
			d.bytes.Bytes(g.N, g.NNZ), d.bytes.String() + " (" + fusedCounted + ")", true
	}
	def := stageDefs[st]
	return def.Name, def.Bytes.Bytes(g.N, g.NNZ), def.Bytes.String() + " (" + def.Counted + ")", true
}
