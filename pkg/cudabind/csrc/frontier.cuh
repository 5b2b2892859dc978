// frontier.cuh — the performance-frontier implementations (issue 5), as seen
// by api.cu: degree-bucketed T4, the fused one-launch iteration (stream and
// CUDA Graph), the cooperative persistent kernel and the Hopper
// thread-block-cluster kernel. Their codes are PRLAB_IMPL_LAYOUT_FIRST ..
// PRLAB_IMPL_LAYOUT_END-1 and PRLAB_STAGE_LAYOUT_FIRST .. _END-1 in
// prlab_cuda.h; api.cu routes those codes here before its own range checks.
// The per-graph state lives behind Ctx::frontier and is freed by frontierFree.
#pragma once

#include "common.cuh"

namespace prlab {

bool isFrontierImpl(int impl);
bool isFrontierStage(int stage);

// prlab_run for a frontier implementation (same contract as api.cu's run()).
int frontierRun(Ctx &c, int impl, float d, int iterations, float tol, float *ranks, float *residuals,
                double *sums, int *done, int *converged, Err &e);
// prlab_benchmark for a frontier implementation (same contract as api.cu's benchmark()).
int frontierBenchmark(Ctx &c, int impl, float d, int iterations, int warmups, int runs,
                      float *runsMs, float *ranks, Err &e);
// prlab_time_stage for a frontier stage code.
int frontierTimeStage(Ctx &c, int stage, float d, int warmups, int repeats, float *med, Err &e);
// Frees the frontier state of c (streams, events, graphs, buffers); safe on a Ctx without one.
void frontierFree(Ctx &c);

} // namespace prlab
