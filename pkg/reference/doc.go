// Package reference holds prlab's CPU PageRank implementations: the float64
// sequential oracle every other implementation is validated against (tier T0),
// the multi-core goroutine implementation in float64 and float32 (tier T1),
// and the course exercise's deliberately wrong variant that omits the
// dangling-node redistribution.
//
// All of them iterate the update rule of the course capstone (Brin & Page
// 1998, with the dangling mass redistributed uniformly):
//
//	x'[v] = (1-d)/n + d * ( sum over in-neighbours u of v of x[u]*invOut[u] + D/n )
//
// where n is the node count, d the damping factor, invOut[u] = 1/outdeg(u)
// (0 for a dangling node) and D = sum of x over dangling nodes. The sum over
// in-neighbours is a pull-style SpMV over the in-edge CSR (Graph.InRowPtr,
// Graph.InColIdx; n+1 row pointers, nnz column indices). The start vector is
// 1/n. Each iteration records the L1 residual ||x' - x||_1 and the sum of x'
// (which the update keeps at 1: summing the rule over v gives
// (1-d) + d*(S - D) + d*D = 1 when S = 1).
//
// Tiers T0/T1 follow the tiered-benchmark structure of the study prlab
// reproduces (T0 sequential oracle, T1 multi-core CPU baseline).
package reference
