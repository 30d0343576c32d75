#include "viewer/loading/run_comparison.h"

namespace quartz::viewer {

RunComparison compare_runs(std::shared_ptr<const RunData> a, std::shared_ptr<const RunData> b) {
  RunComparison out{std::move(a), std::move(b), {}};
  out.comparison = analysis::compare({out.a->view}, {out.b->view});
  return out;
}

}  // namespace quartz::viewer
