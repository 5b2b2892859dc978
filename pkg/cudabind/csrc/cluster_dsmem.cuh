// cluster_dsmem.cuh — the single-cluster design with needed-only exchanges
// (csrc/cluster_dsmem.cu), as seen by api.cu and layout.cu. Its code range
// is PRLAB_IMPL_DSMEM_FIRST .. PRLAB_IMPL_DSMEM_END-1, its knobs
// PRLAB_KNOB_DSM_FIRST .. PRLAB_KNOB_DSM_END-1 (prlab_cuda.h). The state
// lives behind Ctx::dsmem and is freed by dsmemStateFree.
#pragma once

#include "common.cuh"

namespace prlab {

// Whether impl is this file's design.
bool dsmemImpl(int impl);
// prlab_run for it (same contract as api.cu's run()); PRLAB_ERR_UNAVAILABLE
// when the graph does not fit one cluster or the device has no clusters.
int dsmemRun(Ctx &c, int impl, float d, int iterations, float tol, float *ranks, float *residuals,
             double *sums, int *done, int *converged, Err &e);
// prlab_benchmark for it (same contract as api.cu's benchmark()).
int dsmemBenchmark(Ctx &c, int impl, float d, int iterations, int warmups, int runs, float *runsMs,
                   float *ranks, Err &e);
// Whether knob is this file's; dsmemSetKnob sets it (and drops the built layout).
bool dsmemKnob(int knob);
int dsmemSetKnob(Ctx &c, int knob, int value, Err &e);
// Its dangling-mass / residual reduction in isolation (prlab_check_reduction
// kind PRLAB_REDUCE_CLUSTER): one cluster, each block's partial in a slot of
// its shared memory, dumped to slots[rank] for the count; the result in *out;
// *grid the cluster's blocks. PRLAB_ERR_UNAVAILABLE without clusters.
int dsmemCheckReduction(Ctx &c, int which, int n, const float *a, const float *b, const unsigned char *mask,
                        int threads, float *slots, float *out, int *grid, Err &e);
// Frees the state of c; safe on a Ctx without one.
void dsmemStateFree(Ctx &c);

} // namespace prlab
