// What one thread contributes to the records at one snapshot (attribution.cpp), and how a
// contribution is added to a full record and to a context's record (capture_format.h's
// layouts, through RecordShape).
#pragma once

#include <cmath>
#include <cstdint>

#include "format/capture_format.h"
#include "sampler/tables.h"
#include "support/attributes.h"

namespace quartz::sampler {

// A snapshot's processors busy as histogram bins: e between two whole numbers is that much
// of the interval at each (e = 1.3: 70% at 1, 30% at 2), so that the bins' processors add up
// to the processor time. `bin` is floor(e) in 1..P (0 when nobody is busy); `upper`, the
// share of the interval at bin + 1. (Rounding e would lose or add up to half a processor
// per snapshot.) Below one processor, the busy threads' time is in bin 1 and the rest of the
// interval in bin 0 (normalized_idle).
struct ProcessorsBusy {
  uint32_t bin;
  double upper;
};

// The bins of a snapshot whose busy threads ran e processors' worth. The threads' clocks
// can credit an interval more than P (a reading late by microseconds moves time between
// neighbouring intervals): what is above P, `*carry_s` processor-seconds, is placed in the
// next intervals with room below P, so that the bins add up to the clocks.
QUARTZ_ALWAYS_INLINE ProcessorsBusy processors_busy(double e, double processors, double delta,
                                                    double* carry_s) {
  if (!(e > 0)) return {0, 0};
  if (e < 1) return {1, 0};  // its time is apart from the rest of the interval's: no room
  const double want = e + (delta > 0 ? *carry_s / delta : 0);
  const double placed = std::fmin(processors, want);
  *carry_s = (want - placed) * delta;
  const double whole = std::floor(placed);
  if (whole >= processors) return {static_cast<uint32_t>(processors), 0};
  return {static_cast<uint32_t>(whole), placed - whole};
}

// What one thread contributes at one snapshot, in seconds.
struct Contribution {
  double processor;                    // busy processor time
  double normalized;                   // normalized processor time, in `busy`'s bins
  double normalized_idle;              // normalized time while no processor was busy: bin 0
  double state[capture::kStateCount];  // thread-seconds per state
  ProcessorsBusy busy;                 // the bins of processors busy the time goes to
  uint32_t runnable_bin;               // runnable threads, 0..R1-1
  double runnable;                     // runnable threads (unrounded)
};

// Adds `value` to the histogram at `first` by processors busy.
QUARTZ_ALWAYS_INLINE void add_by_busy(double* first, const ProcessorsBusy& busy, double value) {
  first[busy.bin] += value * (1 - busy.upper);
  if (busy.upper > 0) first[busy.bin + 1] += value * busy.upper;
}

QUARTZ_NOINSTR inline void add_full(const RecordShape& shape, double* record, bool behalf,
                                    const Contribution& c) {
  add_by_busy(record + shape.processor(behalf), c.busy, c.processor);
  add_by_busy(record + shape.normalized(behalf), c.busy, c.normalized);
  record[shape.normalized(behalf)] += c.normalized_idle;
  for (uint32_t s = 0; s < capture::kStateCount; ++s) {
    record[shape.state(behalf) + s] += c.state[s];
    record[shape.runnable(s) + c.runnable_bin] += c.state[s];
  }
}

QUARTZ_NOINSTR inline void add_context(const RecordShape& shape, double* record,
                                       const Contribution& c) {
  add_by_busy(record + shape.context_processor(), c.busy, c.processor);
  add_by_busy(record + shape.context_normalized(), c.busy, c.normalized);
  record[shape.context_normalized()] += c.normalized_idle;
  for (uint32_t s = 0; s < capture::kStateCount; ++s) {
    record[shape.context_state() + s] += c.state[s];
    record[shape.context_runnable_sum() + s] += c.state[s] * c.runnable;
  }
}

}  // namespace quartz::sampler
