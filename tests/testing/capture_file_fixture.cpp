#include "tests/testing/capture_file_fixture.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <string>

namespace quartz::profile::test_support {

static_assert(std::endian::native == std::endian::little, "captures are little-endian");

void PayloadWriter::str(const std::string& s) {
  u32(static_cast<uint32_t>(s.size()));
  raw(s.data(), s.size());
}

void PayloadWriter::f64s(const std::vector<double>& values) {
  for (double v : values) f64(v);
}

void PayloadWriter::raw(const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  bytes_.insert(bytes_.end(), p, p + n);
}

FullRecord full_record(uint32_t processors, uint32_t runnable_bins, double seed) {
  FullRecord r;
  double next = seed;
  auto fill = [&](std::vector<double>& v, size_t n) {
    v.resize(n);
    for (double& x : v) x = (next += 0.125);
  };
  fill(r.processor_self, processors + 1);
  fill(r.processor_behalf, processors + 1);
  fill(r.normalized_self, processors + 1);
  fill(r.normalized_behalf, processors + 1);
  for (double& x : r.state_self) x = (next += 0.125);
  for (double& x : r.state_behalf) x = (next += 0.125);
  for (auto& hist : r.runnable) fill(hist, runnable_bins);
  return r;
}

ContextRecord context_record(uint32_t processors, double seed) {
  ContextRecord r;
  double next = seed;
  r.processor.resize(processors + 1);
  r.normalized.resize(processors + 1);
  for (double& x : r.processor) x = (next += 0.25);
  for (double& x : r.normalized) x = (next += 0.25);
  for (double& x : r.states.state) x = (next += 0.25);
  for (double& x : r.states.runnable_sum) x = (next += 0.25);
  return r;
}

CaptureFile CaptureFile::of(const Run& run) {
  CaptureFile b(run.processors, run.runnable_bins);
  b.final(run.final);
  for (const auto& [key, value] : run.info) b.run_key(key, value);
  for (const Module& m : run.modules) b.module(m);
  for (const ThreadInfo& t : run.threads) b.thread(t);
  for (const ObjectInfo& o : run.objects) b.object(o);
  for (const ProcedureInfo& p : run.procedures) b.procedure(p);
  for (size_t i = 0; i < run.contexts.size(); ++i) b.context(run.contexts[i], run.record_of(i));
  for (const Edge& e : run.edges) b.edge(e.caller, e.callee, e.calls);
  b.program(run.program);
  return b;
}

CaptureFile& CaptureFile::final(bool is_final) {
  flags_ = is_final ? (flags_ | capture::kFinal) : (flags_ & ~uint32_t{capture::kFinal});
  return *this;
}

CaptureFile& CaptureFile::run_key(const std::string& key, const std::string& value) {
  ++run_keys_;
  run_.str(key);
  run_.str(value);
  return *this;
}

CaptureFile& CaptureFile::module(const Module& m) {
  ++modules_count_;
  modules_.u32(m.id);
  modules_.u64(m.load_bias);
  modules_.str(m.path);
  return *this;
}

CaptureFile& CaptureFile::thread(const ThreadInfo& t) {
  ++threads_count_;
  threads_.u32(t.index);
  threads_.u32(t.parent);
  threads_.i32(t.tid);
  threads_.str(t.name);
  threads_.u64(t.start_routine);
  threads_.u64(t.handle);
  threads_.u64(t.created_ns);
  threads_.u64(t.exited_ns);
  threads_.u64(t.calls);
  threads_.u64(t.stack_overflows);
  threads_.u64(t.unmatched_exits);
  threads_.u64(t.exact_blocked_ns);
  threads_.u64(t.exact_spinning_ns);
  threads_.u64(t.cpu_ns);
  threads_.u64(t.run_queue_ns);
  write_full(threads_, t.record);
  return *this;
}

CaptureFile& CaptureFile::object(const ObjectInfo& o) {
  ++objects_count_;
  objects_.u64(o.address);
  objects_.u32(o.kind);
  objects_.str(o.name);
  objects_.u64(o.first_site);
  objects_.u64(o.acquisitions);
  objects_.u64(o.contended);
  objects_.u64(o.posts);
  objects_.u64(o.exact_wait_ns);
  objects_.f64(o.wait_spinning_s);
  objects_.f64(o.wait_blocked_s);
  objects_.f64(o.hold_s);
  objects_.u32(static_cast<uint32_t>(o.queue.size()));
  objects_.f64s(o.queue);
  write_full(objects_, o.record);
  return *this;
}

CaptureFile& CaptureFile::procedure(const ProcedureInfo& p) {
  ++procedures_count_;
  procedures_.u64(p.address);
  write_full(procedures_, p.record);
  return *this;
}

CaptureFile& CaptureFile::context(const ContextInfo& c, const ContextRecord& record) {
  ++contexts_count_;
  contexts_.u32(c.id);
  contexts_.u32(c.parent);
  contexts_.u64(c.address);
  contexts_.u32(c.kind);
  contexts_.f64s(record.processor);
  contexts_.f64s(record.normalized);
  contexts_.f64s(record.states.state);
  contexts_.f64s(record.states.runnable_sum);
  return *this;
}

CaptureFile& CaptureFile::edge(uint64_t caller, uint64_t callee, uint64_t calls) {
  ++edges_count_;
  edges_.u64(caller);
  edges_.u64(callee);
  edges_.u64(calls);
  return *this;
}

CaptureFile& CaptureFile::program(const FullRecord& record) {
  program_ = record;
  has_program_ = true;
  return *this;
}

CaptureFile& CaptureFile::raw_section(uint32_t type, std::vector<unsigned char> payload) {
  raw_.emplace_back(type, std::move(payload));
  return *this;
}

CaptureFile& CaptureFile::without(capture::SectionType type) {
  without_.push_back(static_cast<uint32_t>(type));
  return *this;
}

std::vector<unsigned char> CaptureFile::bytes(std::vector<SectionSpan>* sections) const {
  using capture::SectionType;
  std::vector<std::pair<uint32_t, std::vector<unsigned char>>> out;
  auto add = [&](SectionType type, uint32_t count, const PayloadWriter& items) {
    PayloadWriter payload;
    payload.u32(count);
    payload.raw(items.bytes().data(), items.bytes().size());
    out.emplace_back(static_cast<uint32_t>(type), payload.bytes());
  };
  if (!dropped(SectionType::run)) add(SectionType::run, run_keys_, run_);
  if (modules_count_) add(SectionType::modules, modules_count_, modules_);
  if (threads_count_) add(SectionType::threads, threads_count_, threads_);
  if (objects_count_) add(SectionType::objects, objects_count_, objects_);
  if (procedures_count_) add(SectionType::procedures, procedures_count_, procedures_);
  if (contexts_count_) add(SectionType::contexts, contexts_count_, contexts_);
  if (edges_count_) add(SectionType::edges, edges_count_, edges_);
  if (!dropped(SectionType::program)) {
    PayloadWriter payload;
    write_full(payload, has_program_ ? program_ : zero_record());
    out.emplace_back(static_cast<uint32_t>(SectionType::program), payload.bytes());
  }
  for (const auto& section : raw_) out.push_back(section);

  capture::FileHeader header{};
  std::memcpy(header.magic, capture::kFileMagic, sizeof header.magic);
  header.version = version_;
  header.flags = flags_;
  header.section_count = static_cast<uint32_t>(out.size());
  header.processors = processors_;
  header.runnable_bins = runnable_bins_;
  PayloadWriter file;
  file.raw(&header, sizeof header);
  for (const auto& [type, payload] : out) {
    capture::SectionHeader section{};
    section.type = type;
    section.bytes = payload.size();
    section.crc32 = capture::crc32_update(0, payload.data(), payload.size());
    if (sections) {
      const size_t at = file.bytes().size();
      sections->push_back(SectionSpan{type, at, at + sizeof section, payload.size()});
    }
    file.raw(&section, sizeof section);
    file.raw(payload.data(), payload.size());
  }
  std::vector<unsigned char> bytes = file.bytes();
  bytes.resize(bytes.size() + sizeof(capture::FileFooter));
  reseal(bytes);
  return bytes;
}

void CaptureFile::reseal(std::vector<unsigned char>& bytes) {
  capture::FileFooter footer{};
  std::memcpy(footer.magic, capture::kFooterMagic, sizeof footer.magic);
  const size_t footer_at = bytes.size() - sizeof footer;
  footer.file_bytes = bytes.size();
  footer.crc32 = capture::crc32_update(0, bytes.data(), footer_at);
  std::memcpy(bytes.data() + footer_at, &footer, sizeof footer);
}

void CaptureFile::reseal_section(std::vector<unsigned char>& bytes, const SectionSpan& span) {
  capture::SectionHeader header;
  std::memcpy(&header, bytes.data() + span.header_offset, sizeof header);
  header.crc32 = capture::crc32_update(0, bytes.data() + span.payload_offset, span.payload_bytes);
  std::memcpy(bytes.data() + span.header_offset, &header, sizeof header);
  reseal(bytes);
}

FullRecord CaptureFile::zero_record() const {
  FullRecord r;
  r.processor_self.assign(processors_ + 1, 0);
  r.processor_behalf.assign(processors_ + 1, 0);
  r.normalized_self.assign(processors_ + 1, 0);
  r.normalized_behalf.assign(processors_ + 1, 0);
  for (auto& hist : r.runnable) hist.assign(runnable_bins_, 0);
  return r;
}

void CaptureFile::write_full(PayloadWriter& w, const FullRecord& r) {
  w.f64s(r.processor_self);
  w.f64s(r.processor_behalf);
  w.f64s(r.normalized_self);
  w.f64s(r.normalized_behalf);
  w.f64s(r.state_self);
  w.f64s(r.state_behalf);
  for (const auto& hist : r.runnable) w.f64s(hist);
}

bool CaptureFile::dropped(capture::SectionType type) const {
  for (uint32_t t : without_) {
    if (t == static_cast<uint32_t>(type)) return true;
  }
  return false;
}

Run sample_run() {
  using namespace capture;
  Run run;
  run.processors = 3;
  run.runnable_bins = 4;
  run.final = true;
  run.info = {
      {run_keys::kProgram, "/opt/bench/solver"},
      {run_keys::kArguments, std::string("--threads\x1f") + "8\x1finput file.dat"},
      {run_keys::kHost, "node17"},
      {run_keys::kPid, "4242"},
      {run_keys::kStartRealtimeNs, "1700000000123456789"},
      {run_keys::kElapsedNs, "2500000000"},
      {run_keys::kPeriodNs, "1000000"},
      {run_keys::kSamples, "2500"},
      {run_keys::kThreadSamples, "20000"},
      {run_keys::kTornSamples, "50"},
      {run_keys::kReserve, "yes"},
      {run_keys::kTopology, "Package:1 Core:4 PU:8"},
      {run_keys::kSamplerCpuNs, "30000000"},
      {run_keys::kDilationRemovedNs, "120000000"},
      {run_keys::kCpuMeasurement, "schedstat"},
  };
  run.modules = {{0, 0x555555554000, "/opt/bench/solver"},
                 {1, 0x7ffff7a00000, "/usr/lib/x86_64-linux-gnu/libm.so.6"}};
  ThreadInfo main_thread;
  main_thread.index = 0;
  main_thread.tid = 4242;
  main_thread.name = "main";
  main_thread.start_routine = 0;
  main_thread.handle = 0x7f0000001000;
  main_thread.created_ns = 0;
  main_thread.exited_ns = 0;
  main_thread.calls = 100;
  main_thread.cpu_ns = 2'000'000'000;
  main_thread.run_queue_ns = 1'000'000;
  main_thread.record = full_record(3, 4, 1);
  ThreadInfo worker;
  worker.index = 1;
  worker.parent = 0;
  worker.tid = 4243;
  worker.name = "worker";
  worker.start_routine = 0x555555555100;
  worker.created_ns = 1'000;
  worker.exited_ns = 2'400'000'000;
  worker.calls = 1'000'000;
  worker.stack_overflows = 2;
  worker.unmatched_exits = 1;
  worker.exact_blocked_ns = 5'000;
  worker.exact_spinning_ns = 6'000;
  worker.cpu_ns = 2'300'000'000;
  worker.run_queue_ns = 7'000;
  worker.record = full_record(3, 4, 100);
  run.threads = {main_thread, worker};
  ObjectInfo lock;
  lock.address = 0x555555558040;
  lock.kind = kMutex;
  lock.name = "queue lock";
  lock.first_site = 0x555555555230;
  lock.acquisitions = 5000;
  lock.contended = 700;
  lock.posts = 0;
  lock.exact_wait_ns = 80'000;
  lock.wait_spinning_s = 0.01;
  lock.wait_blocked_s = 0.2;
  lock.hold_s = 0.3;
  lock.queue = {1.5, 0.5, 0.25};
  lock.record = full_record(3, 4, 200);
  ObjectInfo barrier;
  barrier.address = 0x555555558080;
  barrier.kind = kBarrier;
  barrier.record = full_record(3, 4, 300);  // no name, no queue
  run.objects = {lock, barrier};
  // An address with the top bit set: the store keeps addresses as signed 64-bit integers.
  run.procedures = {{0x555555555100, full_record(3, 4, 400)},
                    {0x555555555200, full_record(3, 4, 500)},
                    {0xffffffffff600000, full_record(3, 4, 600)}};
  run.add_context({0, kNoParent, 0x555555555100, kProcedure, {}}, context_record(3, 700));
  run.add_context({1, 0, 0x555555555200, kProcedure, {}}, context_record(3, 800));
  run.add_context({2, 1, 0x555555558040, kMutex, {}}, context_record(3, 900));
  run.edges = {{0, 0x555555555100, 1}, {0x555555555100, 0x555555555200, 1000}};
  run.program = full_record(3, 4, 1000);
  return run;
}

std::unordered_map<uint64_t, Symbol> sample_symbols() {
  return {
      {0x555555555100, {"solve(Grid&)", "/src/solver.cpp", 42, "/opt/bench/solver"}},
      {0x555555555200, {"relax(Row&, int)", "/src/relax.cpp", 7, "/opt/bench/solver"}},
      {0xffffffffff600000, {"", "", 0, "[vsyscall]"}},
  };
}

void expect_same_record(const FullRecord& expected, const FullRecord& actual) {
  EXPECT_EQ(expected.processor_self, actual.processor_self);
  EXPECT_EQ(expected.processor_behalf, actual.processor_behalf);
  EXPECT_EQ(expected.normalized_self, actual.normalized_self);
  EXPECT_EQ(expected.normalized_behalf, actual.normalized_behalf);
  EXPECT_EQ(expected.state_self, actual.state_self);
  EXPECT_EQ(expected.state_behalf, actual.state_behalf);
  EXPECT_EQ(expected.runnable, actual.runnable);
}

void expect_same_run(const Run& expected, const Run& actual) {
  EXPECT_EQ(expected.processors, actual.processors);
  EXPECT_EQ(expected.runnable_bins, actual.runnable_bins);
  EXPECT_EQ(expected.final, actual.final);
  EXPECT_EQ(expected.info, actual.info);
  ASSERT_EQ(expected.modules.size(), actual.modules.size());
  for (size_t i = 0; i < expected.modules.size(); ++i) {
    SCOPED_TRACE("module " + std::to_string(i));
    EXPECT_EQ(expected.modules[i].id, actual.modules[i].id);
    EXPECT_EQ(expected.modules[i].load_bias, actual.modules[i].load_bias);
    EXPECT_EQ(expected.modules[i].path, actual.modules[i].path);
  }
  ASSERT_EQ(expected.threads.size(), actual.threads.size());
  for (size_t i = 0; i < expected.threads.size(); ++i) {
    SCOPED_TRACE("thread " + std::to_string(i));
    const ThreadInfo& e = expected.threads[i];
    const ThreadInfo& a = actual.threads[i];
    EXPECT_EQ(e.index, a.index);
    EXPECT_EQ(e.parent, a.parent);
    EXPECT_EQ(e.tid, a.tid);
    EXPECT_EQ(e.name, a.name);
    EXPECT_EQ(e.start_routine, a.start_routine);
    EXPECT_EQ(e.created_ns, a.created_ns);
    EXPECT_EQ(e.exited_ns, a.exited_ns);
    EXPECT_EQ(e.handle, a.handle);
    EXPECT_EQ(e.calls, a.calls);
    EXPECT_EQ(e.stack_overflows, a.stack_overflows);
    EXPECT_EQ(e.unmatched_exits, a.unmatched_exits);
    EXPECT_EQ(e.exact_blocked_ns, a.exact_blocked_ns);
    EXPECT_EQ(e.exact_spinning_ns, a.exact_spinning_ns);
    EXPECT_EQ(e.cpu_ns, a.cpu_ns);
    EXPECT_EQ(e.run_queue_ns, a.run_queue_ns);
    expect_same_record(e.record, a.record);
  }
  ASSERT_EQ(expected.objects.size(), actual.objects.size());
  for (size_t i = 0; i < expected.objects.size(); ++i) {
    SCOPED_TRACE("object " + std::to_string(i));
    const ObjectInfo& e = expected.objects[i];
    const ObjectInfo& a = actual.objects[i];
    EXPECT_EQ(e.address, a.address);
    EXPECT_EQ(e.kind, a.kind);
    EXPECT_EQ(e.name, a.name);
    EXPECT_EQ(e.first_site, a.first_site);
    EXPECT_EQ(e.acquisitions, a.acquisitions);
    EXPECT_EQ(e.contended, a.contended);
    EXPECT_EQ(e.posts, a.posts);
    EXPECT_EQ(e.exact_wait_ns, a.exact_wait_ns);
    EXPECT_EQ(e.wait_spinning_s, a.wait_spinning_s);
    EXPECT_EQ(e.wait_blocked_s, a.wait_blocked_s);
    EXPECT_EQ(e.hold_s, a.hold_s);
    EXPECT_EQ(e.queue, a.queue);
    expect_same_record(e.record, a.record);
  }
  ASSERT_EQ(expected.procedures.size(), actual.procedures.size());
  for (size_t i = 0; i < expected.procedures.size(); ++i) {
    SCOPED_TRACE("procedure " + std::to_string(i));
    EXPECT_EQ(expected.procedures[i].address, actual.procedures[i].address);
    expect_same_record(expected.procedures[i].record, actual.procedures[i].record);
  }
  ASSERT_EQ(expected.contexts.size(), actual.contexts.size());
  for (size_t i = 0; i < expected.contexts.size(); ++i) {
    SCOPED_TRACE("context " + std::to_string(i));
    const ContextInfo& e = expected.contexts[i];
    const ContextInfo& a = actual.contexts[i];
    EXPECT_EQ(e.id, a.id);
    EXPECT_EQ(e.parent, a.parent);
    EXPECT_EQ(e.address, a.address);
    EXPECT_EQ(e.kind, a.kind);
    EXPECT_EQ(expected.record_of(i).processor, actual.record_of(i).processor);
    EXPECT_EQ(expected.record_of(i).normalized, actual.record_of(i).normalized);
    EXPECT_EQ(e.own.state, a.own.state);
    EXPECT_EQ(e.own.runnable_sum, a.own.runnable_sum);
  }
  ASSERT_EQ(expected.edges.size(), actual.edges.size());
  for (size_t i = 0; i < expected.edges.size(); ++i) {
    SCOPED_TRACE("edge " + std::to_string(i));
    EXPECT_EQ(expected.edges[i].caller, actual.edges[i].caller);
    EXPECT_EQ(expected.edges[i].callee, actual.edges[i].callee);
    EXPECT_EQ(expected.edges[i].calls, actual.edges[i].calls);
  }
  {
    SCOPED_TRACE("program");
    expect_same_record(expected.program, actual.program);
  }
  ASSERT_EQ(expected.symbols.size(), actual.symbols.size());
  for (const auto& [address, e] : expected.symbols) {
    SCOPED_TRACE("symbol " + std::to_string(address));
    auto it = actual.symbols.find(address);
    ASSERT_NE(it, actual.symbols.end());
    EXPECT_EQ(e.function, it->second.function);
    EXPECT_EQ(e.file, it->second.file);
    EXPECT_EQ(e.line, it->second.line);
    EXPECT_EQ(e.module, it->second.module);
  }
}

}  // namespace quartz::profile::test_support
