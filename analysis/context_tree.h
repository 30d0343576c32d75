// The calling-context tree as the view's rows: each path from the root through procedures
// and objects, with its time at itself and with its subtree.
#pragma once

#include <cstdint>
#include <vector>

#include "profile/run.h"

namespace quartz::analysis {

struct ProfileView;

// One calling context. Its name and histograms are the view's (ProfileView::name_of,
// histogram_of): a big run has millions of contexts and far fewer names, and a string and
// two vectors of their own made each context three times the size of its record.
struct ContextRow {
  uint32_t id = 0;  // its index in ProfileView::contexts
  uint32_t parent = capture::kNoParent;
  uint64_t address = 0;  // the procedure or object
  uint32_t kind = capture::kProcedure;
  uint32_t name_index = 0;       // in ProfileView::names
  double normalized_s = 0;       // with its subtree
  double normalized_self_s = 0;  // at this context itself
  double processor_s = 0;        // with its subtree
  double processor_self_s = 0;   // at this context itself
  // Elapsed thread-time spinning or blocked at this context itself: waiting for an object,
  // or in the kernel (I/O, sleep).
  double wait_self_s = 0;
  // Calls to this procedure from the parent context's procedure (the thread's root for a
  // top context), from the call graph: a caller seen in several contexts counts them all.
  // 0 for objects.
  uint64_t calls = 0;
};

// The calling-context tree into `view`: its rows, their names (each distinct procedure's
// or object's once) and histograms. `bins_by_context`: the run's contexts' time by
// processors busy (Run::context_bins, taken or copied), which become the histograms in
// place.
void add_context_rows(const profile::Run& run, std::vector<double> bins_by_context,
                      ProfileView& view);

}  // namespace quartz::analysis
