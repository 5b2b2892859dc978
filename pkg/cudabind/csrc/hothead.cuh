// hothead.cuh — the hot-head design (csrc/hothead.cu) as seen by api.cu and
// layout.cu: codes PRLAB_IMPL_HOTHEAD_FIRST .. _END-1 and knobs
// PRLAB_KNOB_HOT_FIRST .. _END-1 of prlab_cuda.h. Its state lives behind
// Ctx::hothead and is freed by hotheadStateFree.
#pragma once

#include "common.cuh"

namespace prlab {

// impl is a hot-head design code; knob is a hot-head knob.
bool hotheadImpl(int impl);
bool hotheadKnob(int knob);
// prlab_run for a hot-head design (same contract as api.cu's run()).
int hotheadRun(Ctx &c, int impl, float d, int iterations, float tol, float *ranks, float *residuals,
               double *sums, int *done, int *converged, Err &e);
// prlab_benchmark for a hot-head design (same contract as api.cu's benchmark()).
int hotheadBenchmark(Ctx &c, int impl, float d, int iterations, int warmups, int runs, float *runsMs,
                     float *ranks, Err &e);
// prlab_layout_set for a hot-head knob (value >= 0 checked by the caller); a change rebuilds its state.
int hotheadSet(Ctx &c, int knob, int value, Err &e);
// Frees the hot-head state of c; safe on a Ctx without one.
void hotheadStateFree(Ctx &c);

} // namespace prlab
