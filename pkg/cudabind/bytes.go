package cudabind

import (
	"fmt"
	"strings"
)

// ByteFormula is the device-memory traffic of one stage (or one iteration)
// as a linear function of the graph's shape: PerN*n + PerNNZ*nnz + Const bytes.
//
// Counting rule (the course capstone's, which its byte figures follow):
// every array element a kernel loads or stores counts once at its width
// (float and int32 4 bytes, the dangling mask 1 byte); the row pointer
// counts n+1 entries (hence the constant 4); the broadcast read of the
// dangling mass D and the O(gridDim) reduction partials are not counted.
// Gathers count 4 bytes per edge even though a 32-byte sector is fetched,
// so effective bandwidth on a scattered gather understates the sectors moved.
type ByteFormula struct {
	PerN   int64 // bytes per node
	PerNNZ int64 // bytes per edge
	Const  int64 // bytes independent of the shape
}

// Bytes evaluates the formula for a graph of n nodes and nnz edges.
func (f ByteFormula) Bytes(n, nnz int) int64 {
	return f.PerN*int64(n) + f.PerNNZ*int64(nnz) + f.Const
}

// Plus adds two formulas term by term.
func (f ByteFormula) Plus(g ByteFormula) ByteFormula {
	return ByteFormula{f.PerN + g.PerN, f.PerNNZ + g.PerNNZ, f.Const + g.Const}
}

// String renders the formula as the course writes it, e.g. "33n + 8nnz + 4".
func (f ByteFormula) String() string {
	var parts []string
	if f.PerN != 0 {
		parts = append(parts, fmt.Sprintf("%dn", f.PerN))
	}
	if f.PerNNZ != 0 {
		parts = append(parts, fmt.Sprintf("%dnnz", f.PerNNZ))
	}
	if f.Const != 0 || len(parts) == 0 {
		parts = append(parts, fmt.Sprintf("%d", f.Const))
	}
	return strings.Join(parts, " + ")
}

// Stage identifiers; the values are the PRLAB_STAGE_* constants of
// csrc/prlab_cuda.h and must stay equal to them.
const (
	stageScale             = 0
	stageSpmvScalar        = 1
	stageSpmvWarp          = 2
	stageSpmvGatherCUB     = 3
	stageSpmvCusparse      = 4
	stageNaivePullCombine  = 5
	stageDanglingAtomic    = 6
	stageDanglingTree      = 7
	stageDanglingShuffle   = 8
	stageDanglingThrustCUB = 9
	stageResidualAtomic    = 10
	stageResidualTree      = 11
	stageResidualShuffle   = 12
	stageResidualThrustCUB = 13
	stageCombine           = 14
	stageScaleThrust       = 15
	stageCombineThrust     = 16
	stageCount             = 17
)

// StageDef describes one stage: its report name, its bytes per execution
// (from the loads and stores of its kernels, see csrc/kernels.cu and
// csrc/library.cu), the launches it makes (kernels, memsets and library
// calls, as issued by the host) and how its bytes were counted.
type StageDef struct {
	ID       int
	Name     string
	Bytes    ByteFormula
	Launches int
	Counted  string // the per-array terms, e.g. "x 4n + invOut 4n + contrib 4n"
}

// stageDefs is the catalogue, indexed by stage ID, in the course's
// stage-table order within each group.
var stageDefs = [stageCount]StageDef{
	stageScale: {stageScale, "scale by out-degree", ByteFormula{12, 0, 0}, 1,
		"load x 4n + invOut 4n, store contrib 4n"},
	stageSpmvScalar: {stageSpmvScalar, "spmv, thread per row", ByteFormula{8, 8, 4}, 1,
		"load rowPtr 4(n+1) + colIdx 4nnz + contrib[colIdx] 4nnz, store y 4n"},
	stageSpmvWarp: {stageSpmvWarp, "spmv, warp per row", ByteFormula{8, 8, 4}, 1,
		"load rowPtr 4(n+1) + colIdx 4nnz + contrib[colIdx] 4nnz, store y 4n"},
	stageSpmvGatherCUB: {stageSpmvGatherCUB, "spmv, gather + CUB segmented", ByteFormula{8, 16, 4}, 2,
		"gather: load colIdx 4nnz + contrib 4nnz, store gathered 4nnz; segmented reduce: load gathered 4nnz + rowPtr 4(n+1), store y 4n"},
	stageSpmvCusparse: {stageSpmvCusparse, "spmv, cuSPARSE (P x)", ByteFormula{8, 12, 4}, 1,
		"load rowPtr 4(n+1) + colIdx 4nnz + values 4nnz + x[colIdx] 4nnz, store y 4n (the algorithm's minimum; cuSPARSE internals may move more)"},
	stageNaivePullCombine: {stageNaivePullCombine, "pull + combine, naive thread per row", ByteFormula{8, 12, 4}, 1,
		"load rowPtr 4(n+1) + colIdx 4nnz + x[colIdx] 4nnz + invOut[colIdx] 4nnz, store x' 4n"},
	stageDanglingAtomic: {stageDanglingAtomic, "dangling mass, one atomic per thread", ByteFormula{5, 0, 0}, 2,
		"load x 4n + dangling mask 1n; n atomicAdds on one address (L2, not counted)"},
	stageDanglingTree: {stageDanglingTree, "dangling mass, tree reduction", ByteFormula{5, 0, 0}, 2,
		"load x 4n + dangling mask 1n; writes gridDim.x + 1 floats"},
	stageDanglingShuffle: {stageDanglingShuffle, "dangling mass, shuffle reduction", ByteFormula{5, 0, 0}, 2,
		"load x 4n + dangling mask 1n; writes gridDim.x + 1 floats"},
	stageDanglingThrustCUB: {stageDanglingThrustCUB, "dangling mass, transform + CUB reduce", ByteFormula{13, 0, 0}, 2,
		"transform: load x 4n + mask 1n, store masked 4n; DeviceReduce: load masked 4n"},
	stageResidualAtomic: {stageResidualAtomic, "residual, one atomic per thread", ByteFormula{8, 0, 0}, 2,
		"load x 4n + x' 4n; n atomicAdds on one address"},
	stageResidualTree: {stageResidualTree, "residual, tree reduction", ByteFormula{8, 0, 0}, 2,
		"load x 4n + x' 4n; writes gridDim.x + 1 floats"},
	stageResidualShuffle: {stageResidualShuffle, "residual, shuffle reduction", ByteFormula{8, 0, 0}, 2,
		"load x 4n + x' 4n; writes gridDim.x + 1 floats"},
	stageResidualThrustCUB: {stageResidualThrustCUB, "residual, transform + CUB reduce", ByteFormula{16, 0, 0}, 2,
		"transform: load x 4n + x' 4n, store |x'-x| 4n; DeviceReduce: load 4n"},
	stageCombine: {stageCombine, "combine", ByteFormula{8, 0, 0}, 1,
		"load y 4n, store x' 4n (D broadcast)"},
	stageScaleThrust: {stageScaleThrust, "scale, thrust::transform", ByteFormula{12, 0, 0}, 1,
		"load x 4n + invOut 4n, store contrib 4n"},
	stageCombineThrust: {stageCombineThrust, "combine, thrust::transform", ByteFormula{8, 0, 0}, 1,
		"load y 4n, store x' 4n (D broadcast)"},
}

// StageCatalog returns every stage the library can time, in stage-table order.
func StageCatalog() []StageDef {
	order := []int{
		stageScale, stageSpmvScalar, stageSpmvWarp, stageSpmvGatherCUB, stageSpmvCusparse,
		stageNaivePullCombine,
		stageDanglingTree, stageDanglingShuffle, stageDanglingAtomic, stageDanglingThrustCUB,
		stageResidualTree, stageResidualShuffle, stageResidualAtomic, stageResidualThrustCUB,
		stageCombine, stageScaleThrust, stageCombineThrust,
	}
	out := make([]StageDef, len(order))
	for i, id := range order {
		out[i] = stageDefs[id]
	}
	return out
}

// iterationFormula sums the byte formulas of an iteration's stages.
func iterationFormula(stages []int) ByteFormula {
	var f ByteFormula
	for _, id := range stages {
		f = f.Plus(stageDefs[id].Bytes)
	}
	return f
}

// iterationLaunches sums the launches of an iteration's stages.
func iterationLaunches(stages []int) int {
	total := 0
	for _, id := range stages {
		total += stageDefs[id].Launches
	}
	return total
}

// Course figures (GPU course capstone, day 40) for its graph of n = 28042
// papers and nnz = 314010 citations: one hand-written iteration moves
// 3,437,470 bytes, one Thrust + CUB iteration 6,173,886 (1.80 times as many).
const (
	CourseN                    = 28042
	CourseNNZ                  = 314010
	CourseHandBytes            = 3437470
	CourseThrustCUBBytes       = 6173886
	CopyDRAMBytes        int64 = 128 << 20 // the DRAM copy row moves 128 MiB (read + written)
)
