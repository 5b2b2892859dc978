// propblock.cuh — the propagation-blocking design (csrc/propblock.cu) as
// seen by api.cu and layout.cu: code PRLAB_IMPL_PROPBLOCK and knobs
// PRLAB_KNOB_PB_FIRST .. _END-1 of prlab_cuda.h. Its state lives behind
// Ctx::propblock and is freed by propblockStateFree.
#pragma once

#include "common.cuh"

namespace prlab {

// impl is the propagation-blocking design's code; knob one of its knobs.
bool propblockImpl(int impl);
bool propblockKnob(int knob);
// prlab_run for it (same contract as api.cu's run()).
int propblockRun(Ctx &c, int impl, float d, int iterations, float tol, float *ranks, float *residuals,
                 double *sums, int *done, int *converged, Err &e);
// prlab_benchmark for it (same contract as api.cu's benchmark()).
int propblockBenchmark(Ctx &c, int impl, float d, int iterations, int warmups, int runs, float *runsMs,
                       float *ranks, Err &e);
// prlab_layout_set for one of its knobs (value >= 0 checked by the caller); a change drops the layout.
int propblockSet(Ctx &c, int knob, int value, Err &e);
// Frees the state of c; safe on a Ctx without one.
void propblockStateFree(Ctx &c);

} // namespace prlab
