// A damaged store as `quartz list`, `report` and `predict` read it. One run of a real store
// file gets every column of its rows from the input, with any SQLite type (integer, real,
// text, blob, NULL): its summary columns, its capture and trace blobs, its symbols and its
// stored predictions; then the run is listed, loaded, analyzed and printed, and its trace
// read. A damaged row must give a one-line error, nothing else.
//
// Input: u32 n, n bytes of capture, u32 m, m bytes of trace (lengths little-endian, cut to
// what is there), then the choices (FuzzedDataProvider). With no choices left, the run is
// stored as `quartz import` stores it, so a seed is a real capture and trace behind lengths.
#include <fuzzer/FuzzedDataProvider.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/profile_view.h"
#include "analysis/report.h"
#include "fuzz/checksums.h"
#include "fuzz/one_line.h"
#include "profile/capture.h"
#include "profile/store.h"
#include "profile/trace_reader.h"

namespace {

using namespace quartz;

// The store, made once per fuzzing process, and a connection of our own that rewrites it.
struct Fixture {
  std::string directory, path;
  std::unique_ptr<profile::Store> store;
  sqlite3* db = nullptr;

  Fixture() {
    // A memory file system when there is one: every input commits a transaction.
    const std::string base = std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : "/tmp";
    std::string pattern = base + "/quartz-store-fuzz-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) std::abort();
    directory = pattern;
    path = directory + "/fuzz.db";
    store = std::make_unique<profile::Store>(path);
    if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) std::abort();
    exec("PRAGMA synchronous = OFF");
  }
  ~Fixture() {
    store.reset();
    sqlite3_close(db);
    std::error_code error;
    std::filesystem::remove_all(directory, error);
  }
  // Statements that break the schema's constraints are refused by SQLite: the input is not
  // a store SQLite would have written, which is fine (a damaged file could hold it).
  void exec(const char* sql) { sqlite3_exec(db, sql, nullptr, nullptr, nullptr); }
};

Fixture& fixture() {
  static Fixture* fixture = new Fixture;  // destroyed by atexit below, never by libFuzzer
  return *fixture;
}

// Binds parameter `i` to a value of a type the input chooses.
void bind_any(sqlite3_stmt* statement, int i, FuzzedDataProvider& input) {
  switch (input.ConsumeIntegralInRange(0, 4)) {
    case 0:
      sqlite3_bind_int64(statement, i, static_cast<int64_t>(input.ConsumeIntegral<uint64_t>()));
      break;
    case 1:
      sqlite3_bind_double(statement, i, input.ConsumeFloatingPoint<double>());
      break;
    case 2: {
      const std::string text = input.ConsumeRandomLengthString(64);
      sqlite3_bind_text(statement, i, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
      break;
    }
    case 3: {
      const std::string blob = input.ConsumeRandomLengthString(64);
      sqlite3_bind_blob(statement, i, blob.data(), static_cast<int>(blob.size()), SQLITE_TRANSIENT);
      break;
    }
    default:
      sqlite3_bind_null(statement, i);
      break;
  }
}

void bind_bytes(sqlite3_stmt* statement, int i, const std::vector<unsigned char>& bytes) {
  sqlite3_bind_blob(statement, i, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT);
}

// Runs `sql` once with parameters `bind` sets.
template <typename Bind>
void run(sqlite3* db, const char* sql, Bind bind) {
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &statement, nullptr) != SQLITE_OK) std::abort();
  bind(statement);
  sqlite3_step(statement);
  sqlite3_finalize(statement);
}

// One of the input's blobs: a u32 length, then that many bytes (fewer if the input ends).
std::vector<unsigned char> take_blob(const uint8_t*& data, size_t& size) {
  uint32_t length = 0;
  const size_t prefix = std::min(size, sizeof length);
  std::memcpy(&length, data, prefix);
  data += prefix;
  size -= prefix;
  const size_t n = std::min<size_t>(length, size);
  std::vector<unsigned char> bytes(data, data + n);
  data += n;
  size -= n;
  return bytes;
}

void rewrite_store(Fixture& f, std::vector<unsigned char> capture, std::vector<unsigned char> trace,
                   FuzzedDataProvider& input, int64_t id) {
  f.exec("BEGIN");
  f.exec("DELETE FROM runs");
  f.exec("DELETE FROM traces");
  f.exec("DELETE FROM symbols");
  f.exec("DELETE FROM predictions");
  if (!input.ConsumeBool()) fuzz::fix_capture_checksums(capture);
  if (!input.ConsumeBool()) fuzz::fix_trace_checksums(trace);
  run(f.db,
      "INSERT INTO runs (id, program, arguments, start_realtime_ns, host, topology, elapsed_s, "
      "period_s, torn_rate, dilation_removed_s, sampler_cpu_s, processors, samples, reserved_core, "
      "final, capture_path, options, capture) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      [&](sqlite3_stmt* s) {
        sqlite3_bind_int64(s, 1, id);
        for (int i = 2; i <= 17; ++i) bind_any(s, i, input);
        if (input.ConsumeBool()) {
          bind_any(s, 18, input);
        } else {
          bind_bytes(s, 18, capture);
        }
      });
  if (!input.ConsumeBool()) {
    run(f.db, "INSERT INTO traces (run_id, bytes) VALUES (?, ?)", [&](sqlite3_stmt* s) {
      sqlite3_bind_int64(s, 1, id);
      if (input.ConsumeBool()) {
        bind_any(s, 2, input);
      } else {
        bind_bytes(s, 2, trace);
      }
    });
  }
  for (int n = input.ConsumeIntegralInRange(0, 4); n > 0; --n) {
    run(f.db,
        "INSERT INTO symbols (run_id, address, function, file, line, module) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        [&](sqlite3_stmt* s) {
          sqlite3_bind_int64(s, 1, id);
          for (int i = 2; i <= 6; ++i) bind_any(s, i, input);
        });
  }
  for (int n = input.ConsumeIntegralInRange(0, 2); n > 0; --n) {
    run(f.db,
        "INSERT INTO predictions (run_id, made_realtime_ns, question, json) VALUES (?, ?, ?, ?)",
        [&](sqlite3_stmt* s) {
          sqlite3_bind_int64(s, 1, id);
          for (int i = 2; i <= 4; ++i) bind_any(s, i, input);
        });
  }
  f.exec("COMMIT");
}

// What the commands do with a stored run; every error is one line.
template <typename Read>
void expect_one_line_errors(Read read) {
  try {
    read();
  } catch (const profile::StoreError& error) {
    fuzz::check_one_line(error);
  } catch (const profile::CaptureError& error) {
    fuzz::check_one_line(error);
  } catch (const profile::TraceError& error) {
    fuzz::check_one_line(error);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fixture();
  std::atexit([] { delete &fixture(); });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Fixture& f = fixture();
  std::vector<unsigned char> capture = take_blob(data, size);
  std::vector<unsigned char> trace = take_blob(data, size);
  FuzzedDataProvider input(data, size);
  // Run 1 unless the input says otherwise, as in a new store.
  const auto id = static_cast<int64_t>(input.ConsumeIntegral<uint64_t>() + 1);
  rewrite_store(f, std::move(capture), std::move(trace), input, id);
  const profile::Store& store = *f.store;
  expect_one_line_errors([&] { store.list(); });
  expect_one_line_errors([&] {
    const auto latest = store.latest();
    if (latest) store.summary(*latest);
  });
  expect_one_line_errors([&] {
    const profile::Run run = store.load(id);
    std::ostringstream out;
    analysis::print_text_report(out, analysis::analyze(run), {});
  });
  expect_one_line_errors([&] {
    if (!store.has_trace(id)) return;
    profile::TraceReader reader(store.open_trace(id));
    std::vector<profile::TraceRecord> records;
    while (reader.next_chunk(records)) {
    }
  });
  expect_one_line_errors([&] { store.predictions(id); });
  return 0;
}
