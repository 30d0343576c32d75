#include "invariants.h"

#include <gtest/gtest.h>

#include "analysis/invariants.h"

namespace quartz::test {

void expect_possible_figures(const profile::Run& run) {
  for (const std::string& violation : analysis::invariant_violations(run)) {
    ADD_FAILURE() << violation;
  }
}

}  // namespace quartz::test
