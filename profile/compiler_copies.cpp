#include "profile/compiler_copies.h"

#include <map>
#include <tuple>

namespace quartz::profile {
namespace {

// Each copy's address -> the address kept for its function.
std::unordered_map<uint64_t, uint64_t> copies_of(const Run& run) {
  std::map<std::tuple<std::string, std::string, int>, uint64_t> lowest;
  for (const auto& [address, symbol] : run.symbols) {
    if (symbol.function.empty() || symbol.file.empty() || symbol.line <= 0) continue;
    auto [it, fresh] = lowest.try_emplace({symbol.function, symbol.file, symbol.line}, address);
    if (!fresh && address < it->second) it->second = address;
  }
  std::unordered_map<uint64_t, uint64_t> kept;
  for (const auto& [address, symbol] : run.symbols) {
    if (symbol.function.empty() || symbol.file.empty() || symbol.line <= 0) continue;
    const uint64_t first = lowest.at({symbol.function, symbol.file, symbol.line});
    if (first != address) kept[address] = first;
  }
  return kept;
}

}  // namespace

void merge_compiler_copies(Run& run) {
  const std::unordered_map<uint64_t, uint64_t> kept = copies_of(run);
  if (kept.empty()) return;
  auto canonical = [&](uint64_t address) {
    const auto it = kept.find(address);
    return it == kept.end() ? address : it->second;
  };

  std::vector<ProcedureInfo> procedures;
  std::unordered_map<uint64_t, size_t> position;
  for (ProcedureInfo& p : run.procedures) {
    p.address = canonical(p.address);
    const auto [it, fresh] = position.try_emplace(p.address, procedures.size());
    if (fresh) {
      procedures.push_back(std::move(p));
    } else {
      add_record(procedures[it->second].record, p.record);
    }
  }
  run.procedures = std::move(procedures);

  std::vector<Edge> edges;
  std::map<std::pair<uint64_t, uint64_t>, size_t> edge_at;
  for (const Edge& e : run.edges) {
    const std::pair<uint64_t, uint64_t> key{canonical(e.caller), canonical(e.callee)};
    const auto [it, fresh] = edge_at.try_emplace(key, edges.size());
    if (fresh) {
      edges.push_back(Edge{key.first, key.second, e.calls});
    } else {
      edges[it->second].calls += e.calls;
    }
  }
  run.edges = std::move(edges);

  for (ContextInfo& c : run.contexts) {
    if (c.kind == capture::kProcedure) c.address = canonical(c.address);
  }
  for (ThreadInfo& t : run.threads) {
    t.start_routine = canonical(t.start_routine);
    for (uint64_t& routine : t.routines) routine = canonical(routine);
  }
}

}  // namespace quartz::profile
