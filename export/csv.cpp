#include "export/csv.h"

#include <charconv>
#include <map>
#include <stdexcept>

namespace quartz::exports {
namespace {

using analysis::kind_name;

class CsvWriter {
 public:
  explicit CsvWriter(std::ostream& out) : out_(out) {}

  CsvWriter& text(const std::string& value) {
    separate();
    if (value.find_first_of(",\"\r\n") == std::string::npos) {
      out_ << value;
      return *this;
    }
    out_ << '"';
    for (char c : value) out_ << (c == '"' ? "\"\"" : std::string(1, c));
    out_ << '"';
    return *this;
  }
  CsvWriter& number(double value) {
    char digits[32];
    const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
    return text(std::string(digits, end));
  }
  CsvWriter& number(uint64_t value) { return text(std::to_string(value)); }
  // An index that may be absent (a root context, a thread of unknown parent): empty.
  CsvWriter& index(uint32_t value) {
    return text(value == capture::kNoParent ? "" : std::to_string(value));
  }
  void end_row() {
    out_ << "\r\n";
    first_ = true;
  }
  void header(const std::vector<std::string>& names) {
    for (const std::string& n : names) text(n);
    end_row();
  }

 private:
  void separate() {
    if (!first_) out_ << ',';
    first_ = false;
  }
  std::ostream& out_;
  bool first_ = true;
};

// Normalized time by processors busy, one column per level: normalized_0_busy_s ...
std::vector<std::string> histogram_columns(const analysis::ProfileView& v) {
  std::vector<std::string> names;
  for (size_t i = 0; i < v.parallelism_s.size(); ++i) {
    names.push_back("normalized_" + std::to_string(i) + "_busy_s");
  }
  return names;
}

void histogram(CsvWriter& w, const analysis::ProfileView& v, std::span<const double> h) {
  for (size_t i = 0; i < v.parallelism_s.size(); ++i) w.number(i < h.size() ? h[i] : 0.0);
}

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

void parallelism(CsvWriter& w, const analysis::ProfileView& v) {
  w.header({"processors_busy", "elapsed_s"});
  for (size_t i = 0; i < v.parallelism_s.size(); ++i) {
    w.number(uint64_t{i}).number(v.parallelism_s[i]);
    w.end_row();
  }
}

void procedures(CsvWriter& w, const analysis::ProfileView& v) {
  w.header(
      concat({"name", "location", "address", "calls", "normalized_s", "normalized_self_s",
              "processor_s", "processor_self_s", "busy_s", "spinning_s", "blocked_s", "ready_s"},
             histogram_columns(v)));
  for (const analysis::ProcedureRow& p : v.procedures) {
    const analysis::Totals& t = p.totals;
    w.text(p.name).text(p.location).number(p.address).number(p.calls);
    w.number(t.normalized_s)
        .number(t.normalized_self_s)
        .number(t.processor_s)
        .number(t.processor_self_s);
    for (double s : t.state_s) w.number(s);
    histogram(w, v, t.histogram_s);
    w.end_row();
  }
}

void call_graph(CsvWriter& w, const analysis::ProfileView& v) {
  w.header({"parent", "child", "kind", "normalized_s", "share", "calls"});
  std::map<uint64_t, std::string> names;
  for (const analysis::ProcedureRow& p : v.procedures) names[p.address] = p.name;
  // A view made without its call graph (the viewer's) sums it from its rows here.
  const analysis::CallGraph summed =
      v.children.empty() ? analysis::call_graph(v) : analysis::CallGraph{};
  for (const auto& [parent, children] : v.children.empty() ? summed : v.children) {
    const std::string parent_name = parent == 0 ? "<program>" : names[parent];
    for (const analysis::ChildRow& c : children) {
      w.text(parent_name).text(v.name_of(c)).text(c.is_self() ? "" : kind_name(c.kind));
      w.number(c.normalized_s).number(c.share).number(c.calls);
      w.end_row();
    }
  }
}

void locks(CsvWriter& w, const analysis::ProfileView& v) {
  w.header({"name", "kind", "address", "normalized_s", "wait_s", "wait_spinning_s",
            "wait_blocked_s", "hold_s", "acquisitions", "contended", "posts", "mean_wait_s",
            "mean_queue"});
  for (const analysis::LockRow& l : v.locks) {
    w.text(l.name).text(kind_name(l.kind)).number(l.address).number(l.totals.normalized_s);
    w.number(l.wait_s).number(l.wait_spinning_s).number(l.wait_blocked_s).number(l.hold_s);
    w.number(l.acquisitions).number(l.contended).number(l.posts);
    w.number(l.mean_wait_s).number(l.mean_queue);
    w.end_row();
  }
}

void threads(CsvWriter& w, const analysis::ProfileView& v) {
  w.header({"index", "parent", "name", "normalized_s", "busy_s", "spinning_s", "blocked_s",
            "ready_s", "cpu_s", "calls"});
  for (const analysis::ThreadRow& t : v.threads) {
    w.number(uint64_t{t.index}).index(t.parent).text(t.name).number(t.totals.normalized_s);
    w.number(t.busy_s).number(t.spinning_s).number(t.blocked_s).number(t.ready_s);
    w.number(t.cpu_s).number(t.calls);
    w.end_row();
  }
}

void contexts(CsvWriter& w, const analysis::ProfileView& v) {
  w.header(concat({"id", "parent", "name", "kind", "address", "calls", "normalized_s",
                   "normalized_self_s", "processor_s", "processor_self_s", "wait_self_s"},
                  histogram_columns(v)));
  for (const analysis::ContextRow& c : v.contexts) {
    w.number(uint64_t{c.id}).index(c.parent).text(v.name_of(c)).text(kind_name(c.kind));
    w.number(c.address).number(c.calls).number(c.normalized_s).number(c.normalized_self_s);
    w.number(c.processor_s).number(c.processor_self_s).number(c.wait_self_s);
    histogram(w, v, v.histogram_of(c));
    w.end_row();
  }
}

}  // namespace

const std::vector<std::string>& csv_tables() {
  static const std::vector<std::string> kTables{"parallelism", "procedures", "call_graph",
                                                "locks",       "threads",    "contexts"};
  return kTables;
}

void write_csv(std::ostream& out, const analysis::ProfileView& view, const std::string& table) {
  CsvWriter w(out);
  if (table == "parallelism") return parallelism(w, view);
  if (table == "procedures") return procedures(w, view);
  if (table == "call_graph") return call_graph(w, view);
  if (table == "locks") return locks(w, view);
  if (table == "threads") return threads(w, view);
  if (table == "contexts") return contexts(w, view);
  throw std::invalid_argument("no table '" + table + "'");
}

}  // namespace quartz::exports
