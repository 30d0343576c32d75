#include "analysis/row_json.h"

#include <nlohmann/json.hpp>
#include <span>

namespace quartz::analysis {

using nlohmann::json;

namespace {

// Per thread state, by the state's name.
template <typename PerState>
json by_state(const PerState& values) {
  return {{"busy", values[capture::kBusy]},
          {"spinning", values[capture::kSpinning]},
          {"blocked", values[capture::kBlocked]},
          {"ready", values[capture::kReady]}};
}

json child_json(const ChildRow& c, const ProfileView& view) {
  return {{"name", view.name_of(c)},
          {"kind", kind_name(c.kind)},
          {"normalized_s", c.normalized_s},
          {"share", c.share},
          {"calls", c.calls}};
}

json parent_json(uint32_t parent) {
  return parent == capture::kNoParent ? json(nullptr) : json(parent);
}

std::vector<double> values(std::span<const double> s) {
  return std::vector<double>(s.begin(), s.end());
}

}  // namespace

json totals_json(const Totals& t) {
  return {{"normalized_s", t.normalized_s},      {"normalized_self_s", t.normalized_self_s},
          {"processor_s", t.processor_s},        {"processor_self_s", t.processor_self_s},
          {"histogram_s", t.histogram_s},        {"histogram_self_s", t.histogram_self_s},
          {"state_s", by_state(t.state_s)},      {"mean_runnable", by_state(t.mean_runnable)},
          {"runnable_s", by_state(t.runnable_s)}};
}

json procedure_json(const ProcedureRow& p, const ProfileView& view) {
  json row = totals_json(p.totals);
  row["name"] = p.name;
  row["address"] = p.address;
  row["location"] = p.location;
  row["calls"] = p.calls;
  auto& children = row["children"] = json::array();
  if (auto it = view.children.find(p.address); it != view.children.end()) {
    for (const ChildRow& c : it->second) children.push_back(child_json(c, view));
  }
  return row;
}

json lock_json(const LockRow& l) {
  json row = totals_json(l.totals);
  row["id"] = l.id;
  row["name"] = l.name;
  row["kind"] = kind_name(l.kind);
  row["address"] = l.address;
  row["wait_s"] = l.wait_s;
  row["wait_spinning_s"] = l.wait_spinning_s;
  row["wait_blocked_s"] = l.wait_blocked_s;
  row["hold_s"] = l.hold_s;
  row["acquisitions"] = l.acquisitions;
  row["contended"] = l.contended;
  row["posts"] = l.posts;
  row["mean_wait_s"] = l.mean_wait_s;
  row["mean_queue"] = l.mean_queue;
  row["queue_s"] = l.queue_s;
  return row;
}

json thread_json(const ThreadRow& t) {
  json row = totals_json(t.totals);
  row["index"] = t.index;
  row["parent"] = parent_json(t.parent);
  row["name"] = t.name;
  row["named"] = t.named;
  row["routine"] = t.routine;
  row["role"] = t.role;
  row["busy_s"] = t.busy_s;
  row["spin_s"] = t.spinning_s;
  row["blocked_s"] = t.blocked_s;
  row["ready_s"] = t.ready_s;
  row["cpu_s"] = t.cpu_s;
  row["calls"] = t.calls;
  return row;
}

json context_json(const ContextRow& c, const ProfileView& view) {
  return {{"id", c.id},
          {"parent", parent_json(c.parent)},
          {"address", c.address},
          {"name", view.name_of(c)},
          {"kind", kind_name(c.kind)},
          {"normalized_s", c.normalized_s},
          {"normalized_self_s", c.normalized_self_s},
          {"processor_s", c.processor_s},
          {"processor_self_s", c.processor_self_s},
          {"wait_self_s", c.wait_self_s},
          {"calls", c.calls},
          {"histogram_s", values(view.histogram_of(c))},
          {"histogram_self_s", values(view.histogram_self_of(c))}};
}

json unpatched_json(const UnpatchedProcedure& u) {
  json entry{{"name", u.name}, {"calls", u.calls}, {"at_s", u.at_s}};
  if (u.call_ns > 0) entry["measured_call_ns"] = u.call_ns;
  return entry;
}

json limit_json(const LimitReached& l) {
  return {{"limit", l.limit}, {"lost", l.lost}, {"lost_what", l.lost_what}, {"flag", l.flag}};
}

json finding_json(const Finding& f) {
  return {{"property", property_name(f.property)},
          {"about", about_measurement(f.property) ? "measurement" : "program"},
          {"severity", f.severity},
          {"confidence", f.confidence},
          {"subject", f.subject},
          {"location", f.location},
          {"evidence", f.evidence},
          {"advice", f.advice}};
}

json findings_json(const std::vector<Finding>& findings) {
  auto rows = json::array();
  for (const Finding& f : findings) rows.push_back(finding_json(f));
  return rows;
}

json change_json(const Change& c) {
  return {{"name", c.name}, {"location", c.location}, {"a_s", c.a_s},
          {"b_s", c.b_s},   {"noise_s", c.noise_s},   {"beyond_noise", c.beyond_noise()}};
}

json changes_json(const std::vector<Change>& changes) {
  auto rows = json::array();
  for (const Change& c : changes) rows.push_back(change_json(c));
  return rows;
}

}  // namespace quartz::analysis
