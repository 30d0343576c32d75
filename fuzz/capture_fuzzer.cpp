// A capture file as `quartz report` and `quartz import` read it: parsed, analyzed and printed
// (text and JSON). A damaged capture must give a one-line CaptureError, nothing else.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <vector>

#include "analysis/profile_view.h"
#include "analysis/report.h"
#include "fuzz/checksums.h"
#include "fuzz/one_line.h"
#include "profile/capture.h"

namespace {

void parse_and_report(const std::vector<unsigned char>& bytes) {
  using namespace quartz;
  try {
    const profile::Run run = profile::parse_capture(bytes, "fuzz.capture");
    const analysis::ProfileView view = analysis::analyze(run);
    std::ostringstream out;
    analysis::print_text_report(out, view, {});
    analysis::print_json_report(out, view, {});
  } catch (const profile::CaptureError& error) {
    fuzz::check_one_line(error);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<unsigned char> bytes(data, data + size);
  parse_and_report(bytes);
  quartz::fuzz::fix_capture_checksums(bytes);
  parse_and_report(bytes);
  return 0;
}
