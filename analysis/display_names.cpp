#include "analysis/display_names.h"

#include <cstdio>

#include "analysis/cxx_names.h"
#include "profile/system_code.h"

namespace quartz::analysis {

using namespace quartz::profile;

namespace {

std::string basename_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// What a frame says of the code that acquired an object (acquiring_frame).
enum class FrameClass : uint8_t { nameless, system, own };

// The program's own frame that first acquired an object: the first of its call chain
// outside system code (std::mutex::lock, std::lock_guard, the C library), else the first
// with a name. 0: none known. `classes` remembers each frame's class: a run of 100,000
// objects asks about the same few frames 100,000 times.
uint64_t acquiring_frame(const Run& run, const ObjectInfo& o,
                         std::unordered_map<uint64_t, FrameClass>& classes) {
  const uint64_t* chain = o.acquired_from.empty() ? &o.first_site : o.acquired_from.data();
  const size_t length = o.acquired_from.empty() ? 1 : o.acquired_from.size();
  uint64_t named = 0;
  for (size_t i = 0; i < length; ++i) {
    const uint64_t frame = chain[i];
    auto [known, added] = classes.try_emplace(frame, FrameClass::nameless);
    if (added) {
      auto it = run.symbols.find(frame);
      if (it != run.symbols.end() && !it->second.function.empty()) {
        known->second = is_system_code(it->second) ? FrameClass::system : FrameClass::own;
      }
    }
    if (known->second == FrameClass::own) return frame;
    if (known->second == FrameClass::system && named == 0) named = frame;
  }
  return named;
}

// An object's name before objects that share it are told apart (object_names). The caches
// keep what the objects' frames give: the same few for 100,000 objects.
struct ObjectNamer {
  const Run& run;
  std::unordered_map<uint64_t, FrameClass> classes;    // acquiring_frame's
  std::unordered_map<uint64_t, std::string> at_frame;  // "@procedure (file:line)"

  std::string own_name(const ObjectInfo& o);
};

std::string ObjectNamer::own_name(const ObjectInfo& o) {
  if (!o.name.empty()) return o.name;
  std::string name = kind_name(o.kind);
  if (o.kind == capture::kJoin) {  // a join waits on the thread joined: name it
    for (const ThreadInfo& t : run.threads) {
      if (t.handle == o.address && t.handle != 0) {
        return name + " " + thread_name(run, t) + " (thread " + std::to_string(t.index) + ")";
      }
    }
  }
  // OpenMP's objects are named by their place in the source: the region whose end it is
  // (its function's entry), the barrier's or the lock's first call.
  const bool openmp = o.kind >= capture::kOmpRegionEnd && o.kind <= capture::kOmpTaskWait;
  if (openmp && o.first_site) {
    const std::string where = location_of(run, o.first_site);
    if (o.kind == capture::kOmpRegionEnd) {
      // libgomp's: the region's function; OMPT's: the call that started the region.
      auto it = run.symbols.find(o.first_site);
      if (it != run.symbols.end() && it->second.function.starts_with("omp_parallel@")) {
        return "end of " + it->second.function;
      }
      if (!where.empty()) return "end of omp_parallel@" + where;
    }
    if (!where.empty()) return name + "@" + where;
  }
  if (const uint64_t frame = acquiring_frame(run, o, classes)) {
    auto [it, added] = at_frame.try_emplace(frame);
    if (added) {
      it->second = "@" + bare_name(display_name(run, frame));
      const std::string where = location_of(run, frame);
      if (!where.empty()) it->second += " (" + where + ")";
    }
    return name + it->second;
  }
  return name + "@" + hex_address(o.address);
}

}  // namespace

std::string hex_address(uint64_t address) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(address));
  return text;
}

std::string location_of(const Run& run, uint64_t address) {
  auto it = run.symbols.find(address);
  if (it == run.symbols.end()) return "";
  const Symbol& s = it->second;
  if (!s.file.empty()) return basename_of(s.file) + (s.line ? ":" + std::to_string(s.line) : "");
  return basename_of(s.module);
}

std::string display_name(const Run& run, uint64_t address) {
  auto it = run.symbols.find(address);
  if (it == run.symbols.end() || it->second.function.empty()) return hex_address(address);
  const Symbol& s = it->second;
  return readable_generated_name(s.function, s.file.empty() ? "" : basename_of(s.file));
}

std::string kind_name(uint32_t kind) {
  return capture::kind_name(kind);
}

// A lambda that calls the program's procedure gives way to it: the lambda only passes
// arguments on.
uint64_t thread_routine(const Run& run, const ThreadInfo& t) {
  auto symbol = [&](uint64_t address) -> const Symbol* {
    auto it = run.symbols.find(address);
    return it == run.symbols.end() || it->second.function.empty() ? nullptr : &it->second;
  };
  const Symbol* start = symbol(t.start_routine);
  if (start && !is_system_code(*start)) return t.start_routine;
  for (size_t i = 0; i < t.routines.size(); ++i) {
    const Symbol* s = symbol(t.routines[i]);
    if (!s || is_system_code(*s)) continue;
    if (is_lambda(s->function) && i + 1 < t.routines.size()) {
      const Symbol* next = symbol(t.routines[i + 1]);
      if (next && !is_system_code(*next)) return t.routines[i + 1];
    }
    return t.routines[i];
  }
  return 0;
}

std::string thread_name(const Run& run, const ThreadInfo& t) {
  const uint64_t routine = t.named || t.index == 0 ? 0 : thread_routine(run, t);
  if (routine) return bare_name(display_name(run, routine));
  return t.name.empty() ? "thread " + std::to_string(t.index) : t.name;
}

std::unordered_map<uint64_t, std::string> object_names(const Run& run) {
  std::unordered_map<uint64_t, std::string> names;
  std::unordered_map<std::string, int> uses;
  ObjectNamer namer{run, {}, {}};
  for (const ObjectInfo& o : run.objects) ++uses[names[o.address] = namer.own_name(o)];
  for (const ObjectInfo& o : run.objects) {
    std::string& name = names[o.address];
    if (uses[name] > 1) name += " #" + std::to_string(o.id);
  }
  return names;
}

}  // namespace quartz::analysis
