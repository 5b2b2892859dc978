package cudabind

// The layout designs' side of the binding: the layout the library builds
// once per uploaded graph (T4 in-degree buckets, CSR-Adaptive tiles, the
// persistent and cluster grids), its knobs, and the primitives (launches,
// graph nodes, grid and cluster barriers) that explain a cache-resident
// iteration's time. The kernels live in csrc/layout.cu; NOTES.md holds
// the floors, predictions and measurements.

import (
	"fmt"

	"github.com/prlab/prlab/pkg/pagerank"
)

// Layout-design stage codes: PRLAB_STAGE_T4_SPMV_THREAD .. PRLAB_STAGE_FUSED_ITERATION.
const (
	stageT4Thread       = 64
	stageT4Warp         = 65
	stageT4Block        = 66
	stageT4Combine      = 67
	stageFusedIteration = 68
	stageLayoutFirst    = 64
	stageLayoutEnd      = 69
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

// Layout knob codes: PRLAB_KNOB_* (value 0 = automatic).
const (
	knobTileEdges   = 0
	knobTileRows    = 1
	knobBlocksPerSM = 2
	knobGraphK      = 3
	knobClusterSize = 4
	knobResident    = 5
	knobClusterMode = 6
	knobCount       = 7

	// The hot-head design's knobs (PRLAB_KNOB_HOT_*, csrc/hothead.cu).
	knobHotFloats      = 16 // contributions staged in shared memory per block (0: tuned among 0, 12288, 24576; below 4: none)
	knobHotThreads     = 17 // threads per block: 256, 512, 1024 (0: 1024)
	knobHotOccupancy   = 18 // 1: built for 1024 threads per SM, 2: for 2048 (0: 2)
	knobHotBlocksPerSM = 19 // at most this many blocks per SM (0: occupancy)
	knobHotGroup       = 20 // threads per heavy row (0: the block)
	knobHotStream      = 21 // load mode of the once-read streams: 1 ld.global.nc, 2 .L1::no_allocate, 3 evict-first (0: tuned)
	knobHotUnroll      = 22 // loads in flight per thread and step, 2, 4 or 8 (0: tuned)
	knobHotTile        = 23 // 1 row loops, 2 row loops in two column passes, 8 or 16 the two-phase gather's edges per thread and tile (0: the row loops)
	knobHotEnd         = 24
	// gpu-cluster-dsmem's knobs (PRLAB_KNOB_DSM_*, csrc/cluster_dsmem.cu).
	knobDSMExchange = 24 // 0 auto (async where built with CUDA >= 12.1, else stores), 1 16-byte DSMEM stores, 2 cp.async.bulk + mbarrier, 3 through L2, 4 per-row stores, 5 the stores as st.async completing on the receivers' mbarriers (CUDA >= 12.1)
	knobDSMAblate   = 25 // timing only, bits: 1 no gather, 2 no row sums + combine, 4 no exchange, 8 no cluster.sync(), 16 no iterations
	knobDSMThreads  = 26 // threads per block (auto 1024)
	knobDSMCluster  = 27 // blocks in the cluster (auto 16, else 8)
	knobDSMGather   = 28 // 0 auto (8), 1 staged in shared memory, 2 row sums read the ghost vector directly, 3 pieces of 8, 4 of 4, 5 / 6 the same bank-ordered, 7 = 5 fused (rows of one piece finished by its thread), 8 rows packed into warps
	knobDSMBalance  = 29 // rows split by 1 + in-degree + this x min(out-degree, C-1) (auto 0: rows + edges)
	knobDSMFirst    = 24
	knobDSMPartials = 30 // bits: 1 dangling partials stored into every block before the barrier, 2 the dangling block sum with one barrier, 4 every warp's partial to every block, 8 explicit (alone: two-barrier sum), 16 warp 0 only reduces (auto 0 = 18)
	knobDSMPipeline = 31 // bits (rows packed into warps only): 1 split cluster barrier (own-row columns read inside it), 2 16-bit column indices, 8 per 16-byte load, 4 rows finished in their packed warp, 8 explicit (alone: none; auto 0: none); stores only, without 1, 2, 4: 16 heavy rows split over packed warps, 32 phase timer (stdout), 64 packed warps paired by cost, 128 small rows several per lane (with 16); 256 none explicitly (auto 0 with the stores and async exchanges: 144); 512 (async, automatic layout) the generic kernel instead of the default's one with the layout's flags as constants (kFixedShape)
	knobDSMAssign   = 32 // rows to blocks: 1 contiguous ranges, 2 rows moved from the largest senders, 3 rows moved to cut the exchange (both relabelled inside the design); auto 0: 3
	knobDSMEnd      = 33

	// gpu-prop-blocking (PRLAB_KNOB_PB_*, csrc/propblock.cu); 0 automatic.
	knobPBHot       = 40 // head floats gathered from shared memory in phase 2 (0: 12288; 1: none)
	knobPBBinRows   = 41 // rows per bin at most (0: 8192 with fixed-point sums, else 16384)
	knobPBChunkRows = 42 // source rows per chunk (0: 16384)
	knobPBBinEdges  = 43 // edges per bin at most (0: 262144)
	knobPBItemEdges = 44 // edges per phase-1 work item (0: 262144)
	knobPBReplicate = 45 // 1: never keep per-lane replicas of a short bin's sums
	knobPBRuns      = 46 // 0 or 1: segments ordered by destination, phase 2 adds each lane's runs of one destination once; 2: by source
	knobPBFixed     = 47 // 0 or 1: row sums in 64-bit fixed point by 32-bit integer atomics (the same bits every run); 2: float atomics
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

// Layout is the layout the library built for one graph: the T4
// buckets, the CSR-Adaptive tiles of the fused kernels, the grids, and
// whether (and with what shape) the cluster kernel can hold the graph.
type Layout struct {
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

// LayoutOf uploads g (if needed) and returns the layout the library built
// for it. Errors wrap ErrUnavailable without a GPU.
func LayoutOf(g *pagerank.Graph) (Layout, error) {
	var info Layout
	err := withSession(g, func(s *Session) error {
		var err error
		info, err = s.lib.layoutInfo(s.h)
		return err
	})
	return info, err
}

// setLayoutKnob sets a layout knob for g's upload (tests and experiments).
func setLayoutKnob(g *pagerank.Graph, knob, value int) error {
	return withSession(g, func(s *Session) error { return s.lib.setKnob(s.h, knob, value) })
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

// primitiveRow measures one primitive on the session's layout. mu held.
func (s *Session) primitiveRow(which int) (pagerank.Stage, error) {
	med, err := s.lib.timePrimitive(s.h, which, PrimitiveCount, pagerank.TimingWarmups, StageRepeats)
	if err != nil {
		return pagerank.Stage{}, err
	}
	return pagerank.Stage{Name: primNames[which], Kind: pagerank.StagePrimitive, Ms: med / PrimitiveCount, Formula: primHow[which] + "; 0 bytes"}, nil
}

// MeasurePrimitives times, on g's layout, the operations that set
// the time of a cache-resident iteration: a back-to-back empty kernel launch,
// a CUDA-graph node, a cooperative launch and grid.sync() of the persistent
// grid, and cluster.sync() of the cluster kernel's shape (omitted where the
// device has no clusters). Each row's Ms is per operation (median of
// StageRepeats executions of PrimitiveCount operations, after 3 warm-ups).
func MeasurePrimitives(g *pagerank.Graph) ([]pagerank.Stage, error) {
	var out []pagerank.Stage
	err := withSession(g, func(s *Session) error {
		info, err := s.lib.layoutInfo(s.h)
		if err != nil {
			return err
		}
		for _, which := range []int{primEmptyLaunch, primGraphNode, primCoopLaunch, primGridSync, primClusterSync} {
			if which == primClusterSync && info.ClusterSize == 0 {
				continue
			}
			row, err := s.primitiveRow(which)
			if err != nil {
				return err
			}
			out = append(out, row)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// stageName names stage code st in error messages.
func stageName(st int) string {
	if st >= 0 && st < stageCount {
		return stageDefs[st].Name
	}
	return fmt.Sprintf("layout stage %d", st)
}
