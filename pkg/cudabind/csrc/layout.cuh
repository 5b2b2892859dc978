// layout.cuh — the layout designs, as seen
// by api.cu: degree-bucketed T4, the fused one-launch iteration (stream and
// CUDA Graph), the cooperative persistent kernel and the Hopper
// thread-block-cluster kernel. Their codes are PRLAB_IMPL_LAYOUT_FIRST ..
// PRLAB_IMPL_LAYOUT_END-1 and PRLAB_STAGE_LAYOUT_FIRST .. _END-1 in
// prlab_cuda.h; api.cu calls these for the designs whose row of the table
// of designs (prlab_designs) has family PRLAB_FAMILY_LAYOUT.
// The per-graph state lives behind Ctx::layout and is freed by layoutStateFree.
#pragma once

#include "common.cuh"

namespace prlab {

// prlab_run for a layout design (same contract as api.cu's run()).
int layoutRun(Ctx &c, int impl, float d, int iterations, float tol, float *ranks, float *residuals,
                double *sums, int *done, int *converged, Err &e);
// prlab_benchmark for a layout design (same contract as api.cu's benchmark()).
int layoutBenchmark(Ctx &c, int impl, float d, int iterations, int warmups, int runs,
                      float *runsMs, float *ranks, Err &e);
// prlab_time_stage for a layout stage code.
int layoutTimeStage(Ctx &c, int stage, float d, int warmups, int repeats, float *med, Err &e);
// Frees the layout state of c (streams, events, graphs, buffers); safe on a Ctx without one.
void layoutStateFree(Ctx &c);

} // namespace prlab
