#include "profile/symbolize_run.h"

#include <algorithm>

#include "profile/compiler_copies.h"
#include "profile/symbolizer.h"

namespace quartz::profile {
namespace {

// Modules by load bias, highest first: an address belongs to the highest-based module
// below it that knows a function there.
class ModuleMap {
 public:
  explicit ModuleMap(const std::vector<Module>& modules) : modules_(modules) {
    std::sort(modules_.begin(), modules_.end(),
              [](const Module& a, const Module& b) { return a.load_bias > b.load_bias; });
  }

  // `call_site`: a return address, whose line is that of the call just before it.
  Symbol lookup(Symbolizer& symbolizer, uint64_t address, bool call_site) const {
    for (const Module& m : modules_) {
      if (m.load_bias > address) continue;
      const uint64_t elf = address - m.load_bias - (call_site ? 1 : 0);
      SourceSymbol s = symbolizer.symbolize(m.path, elf);
      if (s.function.empty()) continue;
      return Symbol{std::move(s.function), std::move(s.file), s.line, m.path};
    }
    return Symbol{};
  }

 private:
  std::vector<Module> modules_;
};

}  // namespace

void symbolize_run(Run& run) {
  Symbolizer symbolizer;
  const ModuleMap modules(run.modules);
  auto add = [&](uint64_t address, bool call_site) {
    if (address == 0 || run.symbols.count(address)) return;
    run.symbols[address] = modules.lookup(symbolizer, address, call_site);
  };
  for (const ProcedureInfo& p : run.procedures) add(p.address, false);
  for (const ContextInfo& c : run.contexts) {
    if (c.kind == capture::kProcedure) add(c.address, false);
  }
  for (const Edge& e : run.edges) {
    add(e.caller, false);
    add(e.callee, false);
  }
  for (const ThreadInfo& t : run.threads) {
    add(t.start_routine, false);
    for (uint64_t routine : t.routines) add(routine, false);
  }
  for (const ObjectInfo& o : run.objects) {
    add(o.first_site, true);
    for (uint64_t frame : o.acquired_from) add(frame, true);
  }
  merge_compiler_copies(run);
}

}  // namespace quartz::profile
