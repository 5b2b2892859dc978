// family.cuh — a family of designs that keeps its own state behind the Ctx,
// as api.cu and layout.cu see it: one record per family (which design codes
// and knobs of prlab_cuda.h are its, its prlab_run, prlab_benchmark,
// prlab_layout_set and the free of its state), defined in the family's .cu
// file, and kFamilies, the list api.cu and layout.cu dispatch through.
#pragma once

#include "common.cuh"

namespace prlab {

struct DesignFamily {
  // impl is one of the family's design codes; knob one of its knobs.
  bool (*ownsImpl)(int impl);
  bool (*ownsKnob)(int knob);
  // prlab_run for one of its designs (same contract as api.cu's runFrom() without a start).
  int (*run)(Ctx &c, int impl, float d, int iterations, float tol, float *ranks, float *residuals, double *sums,
             int *done, int *converged, Err &e);
  // prlab_benchmark for one of its designs (same contract as api.cu's benchmark()).
  int (*benchmark)(Ctx &c, int impl, float d, int iterations, int warmups, int runs, float *runsMs, float *ranks,
                   Err &e);
  // prlab_layout_set for one of its knobs (value >= 0, checked by the caller); a change rebuilds its state.
  int (*set)(Ctx &c, int knob, int value, Err &e);
  // Frees its state of c; safe on a Ctx without one.
  void (*stateFree)(Ctx &c);
};

// The hot-head designs (hothead.cu): codes PRLAB_IMPL_HOTHEAD_FIRST .. _END-1,
// knobs PRLAB_KNOB_HOT_FIRST .. _END-1, state behind Ctx::hothead.
extern const DesignFamily kHotHeadFamily;
// gpu-prop-blocking (propblock.cu): codes PRLAB_IMPL_PROPBLOCK_FIRST .. _END-1,
// knobs PRLAB_KNOB_PB_FIRST .. _END-1, state behind Ctx::propblock.
extern const DesignFamily kPropBlockFamily;

inline const DesignFamily *const kFamilies[] = {&kHotHeadFamily, &kPropBlockFamily};

// The family whose design impl is (whose knob is knob), or nullptr.
inline const DesignFamily *familyOfImpl(int impl) {
  for (const DesignFamily *f : kFamilies)
    if (f->ownsImpl(impl)) return f;
  return nullptr;
}
inline const DesignFamily *familyOfKnob(int knob) {
  for (const DesignFamily *f : kFamilies)
    if (f->ownsKnob(knob)) return f;
  return nullptr;
}

} // namespace prlab
