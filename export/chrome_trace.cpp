#include "export/chrome_trace.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace quartz::exports {
namespace {

using trace::Type;

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// Nanoseconds since the run's start as the format's microseconds.
std::string microseconds(double ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", ns / 1000.0);
  return text;
}

struct Slice {
  std::string name, category;
  double start_ns = 0;
  uint64_t object = 0;
};

// What one thread is doing: the locks it holds (outermost first) and its current state.
struct ThreadTrack {
  int64_t tid = 0;
  std::vector<Slice> holds;
  Slice state;
  bool open = false;  // between its first event and its exit
  double last_ns = 0;
  std::vector<std::pair<double, double>> cpu_readings;  // (time, its CPU clock), ns
  // Spinning is not busy (DESIGN.md §2): when it spun, and since when it spins now (< 0: not).
  std::vector<std::pair<double, double>> spins;
  double spin_start_ns = -1;
};

// Events that begin or end a wait or a hold; the others (creating a thread, signalling,
// posting) leave the thread working.
bool changes_state(Type type) {
  switch (type) {
    case Type::lock_request:
    case Type::lock_acquire:
    case Type::lock_release:
    case Type::cond_wait:
    case Type::cond_wake:
    case Type::join_begin:
    case Type::join_end:
    case Type::sem_wait_begin:
    case Type::sem_acquire:
    case Type::barrier_arrive:
    case Type::barrier_depart:
    case Type::spin_begin:
    case Type::spin_end:
    case Type::thread_exit:
      return true;
    default:
      return false;
  }
}

class TraceWriter {
 public:
  TraceWriter(std::ostream& out, const profile::Run& run, const analysis::ProfileView& view)
      : out_(out), run_(run) {
    pid_ = static_cast<int64_t>(run.number(capture::run_keys::kPid));
    if (pid_ <= 0) pid_ = 1;
    for (const analysis::LockRow& l : view.locks) object_names_[l.address] = l.name;
    out_ << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
    std::string program;
    for (const std::string& word : view.arguments) program += (program.empty() ? "" : " ") + word;
    metadata(0, "process_name", program.empty() ? view.program : program);
    for (const analysis::ThreadRow& t : view.threads) {
      metadata(tid_of(t.index), "thread_name", t.name);
      event("{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":" + std::to_string(pid_) +
            ",\"tid\":" + std::to_string(tid_of(t.index)) +
            ",\"args\":{\"sort_index\":" + std::to_string(t.index) + "}}");
    }
  }

  void record(const profile::TraceRecord& r) {
    ThreadTrack& t = track(r.thread);
    const double now = static_cast<double>(r.time_ns);
    t.last_ns = std::max(t.last_ns, now);
    if (r.type == Type::sample || r.type == Type::cpu) {
      t.cpu_readings.emplace_back(now, static_cast<double>(r.cpu_ns));
      return;
    }
    if (!trace::is_sync_event(r.type) || r.type == Type::process_end) return;
    if (!t.open) {
      if (r.type == Type::thread_exit) return;
      t.open = true;
      t.state = {"work", "state", now, 0};
    }
    if (!changes_state(r.type)) return;
    end_state(t, now);
    switch (r.type) {
      case Type::lock_request:
        begin_state(t, "wait " + object_name(r.object, r.kind),
                    r.kind == capture::kSpinlock ? "spinning" : "blocked", now);
        return;
      case Type::cond_wait:
      case Type::sem_wait_begin:
      case Type::barrier_arrive:
        begin_state(t, "wait " + object_name(r.object, r.kind), "blocked", now);
        return;
      case Type::join_begin:
        begin_state(t, "wait " + join_name(r.object), "blocked", now);
        return;
      case Type::spin_begin:
        begin_state(t, "spin " + object_name(r.object, r.kind), "spinning", now);
        return;
      case Type::lock_acquire:
        t.holds.push_back({"hold " + object_name(r.object, r.kind), "hold", now, r.object});
        break;
      case Type::lock_release:
        release(t, r.object, now);
        break;
      case Type::thread_exit:
        close(t, now);
        return;
      default:
        break;
    }
    begin_state(t, "work", "state", now);
  }

  void finish() {
    for (auto& [index, t] : tracks_) {
      if (t.open) close(t, t.last_ns);
      add_busy(t);
    }
    processors_busy();
    out_ << "\n]}\n";
  }

 private:
  ThreadTrack& track(uint32_t index) {
    auto [it, added] = tracks_.try_emplace(index);
    if (added) it->second.tid = tid_of(index);
    return it->second;
  }

  int64_t tid_of(uint32_t index) const {
    for (const profile::ThreadInfo& t : run_.threads) {
      if (t.index == index && t.tid > 0) return t.tid;
    }
    return int64_t{index} + 1;
  }

  std::string object_name(uint64_t address, uint8_t kind) const {
    auto it = object_names_.find(address);
    if (it != object_names_.end()) return it->second;
    char hex[24];
    std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(address));
    return analysis::kind_name(kind) + "@" + hex;
  }

  // A join waits on the joined thread's handle: the report names that object.
  std::string join_name(uint64_t index) const {
    for (const profile::ThreadInfo& t : run_.threads) {
      if (t.index == index && t.handle != 0) return object_name(t.handle, capture::kJoin);
    }
    return "join thread #" + std::to_string(index);
  }

  void event(const std::string& json) {
    out_ << (first_ ? "" : ",\n") << json;
    first_ = false;
  }

  void metadata(int64_t tid, const std::string& what, const std::string& name) {
    event("{\"ph\":\"M\",\"name\":\"" + what + "\",\"pid\":" + std::to_string(pid_) +
          ",\"tid\":" + std::to_string(tid) + ",\"args\":{\"name\":" + json_string(name) + "}}");
  }

  void complete(const ThreadTrack& t, const Slice& s, double end_ns) {
    if (end_ns <= s.start_ns) return;
    event("{\"ph\":\"X\",\"name\":" + json_string(s.name) + ",\"cat\":\"" + s.category +
          "\",\"pid\":" + std::to_string(pid_) + ",\"tid\":" + std::to_string(t.tid) + ",\"ts\":" +
          microseconds(s.start_ns) + ",\"dur\":" + microseconds(end_ns - s.start_ns) + "}");
  }

  void begin_state(ThreadTrack& t, const std::string& name, const char* category, double now) {
    t.state = {name, category, now, 0};
    const bool spinning = t.state.category == "spinning";
    if (spinning && t.spin_start_ns < 0) t.spin_start_ns = now;
    if (!spinning) end_spin(t, now);
  }
  void end_spin(ThreadTrack& t, double now) {
    if (t.spin_start_ns >= 0) t.spins.emplace_back(t.spin_start_ns, now);
    t.spin_start_ns = -1;
  }
  // Emits the state up to `now`; what follows begins there.
  void end_state(ThreadTrack& t, double now) {
    complete(t, t.state, now);
    t.state.start_ns = now;
  }

  // Ends the innermost hold of `object`; holds taken after it end and begin again at `now`,
  // so that every slice of the track nests inside the ones around it.
  void release(ThreadTrack& t, uint64_t object, double now) {
    for (size_t i = t.holds.size(); i-- > 0;) {
      if (t.holds[i].object != object) continue;
      for (size_t j = t.holds.size(); j-- > i;) complete(t, t.holds[j], now);
      t.holds.erase(t.holds.begin() + static_cast<std::ptrdiff_t>(i));
      for (size_t j = i; j < t.holds.size(); ++j) t.holds[j].start_ns = now;
      return;
    }
  }

  void close(ThreadTrack& t, double now) {
    end_state(t, now);
    end_spin(t, now);
    for (size_t j = t.holds.size(); j-- > 0;) complete(t, t.holds[j], now);
    t.holds.clear();
    t.open = false;
  }

  // Between two readings of a thread's CPU clock it ran at the rate Δcpu / Δtime, busy
  // where it did not spin. Its spin waits are known only once they end (a lock's request is
  // recorded when the lock is granted), hence this pass over the whole thread at the end.
  // The sampler's readings and the thread's own interleave: a reading that does not advance
  // both clocks is left out, so no processor time counts twice.
  void add_busy(ThreadTrack& t) {
    std::stable_sort(t.cpu_readings.begin(), t.cpu_readings.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::sort(t.spins.begin(), t.spins.end());
    const std::pair<double, double>* previous = nullptr;
    size_t spin = 0;
    for (const auto& reading : t.cpu_readings) {
      if (previous && (reading.first <= previous->first || reading.second < previous->second)) {
        continue;
      }
      if (previous) {
        const double rate =
            std::min(1.0, (reading.second - previous->second) / (reading.first - previous->first));
        double from = previous->first;
        while (spin < t.spins.size() && t.spins[spin].second <= from) ++spin;
        for (size_t i = spin; i < t.spins.size() && t.spins[i].first < reading.first; ++i) {
          if (t.spins[i].first > from) busy_for(from, t.spins[i].first, rate);
          from = std::max(from, t.spins[i].second);
        }
        if (from < reading.first) busy_for(from, reading.first, rate);
      }
      previous = &reading;
    }
    t.cpu_readings = {};
    t.spins = {};
  }

  void busy_for(double from_ns, double until_ns, double processors) {
    busy_changes_[from_ns] += processors;
    busy_changes_[until_ns] -= processors;
  }

  void processors_busy() {
    double busy = 0, shown = -1;
    for (const auto& [time_ns, change] : busy_changes_) {
      busy += change;
      const double value = std::max(0.0, std::round(busy * 1000) / 1000);
      if (value == shown) continue;
      shown = value;
      char number[32];
      std::snprintf(number, sizeof number, "%.3f", value);
      event("{\"ph\":\"C\",\"name\":\"processors busy\",\"pid\":" + std::to_string(pid_) +
            ",\"tid\":0,\"ts\":" + microseconds(time_ns) + ",\"args\":{\"busy\":" + number + "}}");
    }
  }

  std::ostream& out_;
  const profile::Run& run_;
  int64_t pid_ = 1;
  bool first_ = true;
  std::unordered_map<uint64_t, std::string> object_names_;
  std::map<uint32_t, ThreadTrack> tracks_;
  std::map<double, double> busy_changes_;  // time (ns) -> change of the processors busy
};

}  // namespace

void write_chrome_trace(std::ostream& out, const profile::Run& run,
                        const analysis::ProfileView& view, profile::TraceReader& trace) {
  TraceWriter writer(out, run, view);
  std::vector<profile::TraceRecord> chunk;
  while (trace.next_chunk(chunk)) {
    for (const profile::TraceRecord& r : chunk) writer.record(r);
  }
  writer.finish();
}

}  // namespace quartz::exports
