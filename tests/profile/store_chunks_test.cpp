// A blob stored in chunks comes back byte for byte, from memory or streamed from a file,
// whatever the number of chunks, and a new blob of the same kind replaces the old one.
#include "profile/store_chunks.h"

#include <gtest/gtest.h>

#include <numeric>
#include <sstream>

#include "profile/sqlite.h"
#include "profile/store.h"
#include "tests/testing/store_fixture.h"

namespace quartz::profile {
namespace {

using store_test::StoreTest;

std::vector<unsigned char> pattern(size_t n) {
  std::vector<unsigned char> bytes(n);
  for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<unsigned char>(i * 7 + i / 251);
  return bytes;
}

TEST_F(StoreTest, ChunksComeBackWhole) {
  { Store store(path_); }  // creates the tables
  auto connection = sqlite::open(path_, db::Access::read_write, [](db::Connection&) {});
  db::Connection& db = *connection;
  db.exec("PRAGMA foreign_keys = OFF", "test");  // chunks of runs 7 and 8, never stored
  const std::vector<unsigned char> bytes = pattern(10'500);
  for (uint64_t chunk : {1'000u, 10'500u, 64'000u}) {
    SCOPED_TRACE(chunk);
    chunks::write(db, 7, chunks::kCapture, bytes, "test", chunk);
    EXPECT_EQ(chunks::ids(db, 7, chunks::kCapture, "test").size(),
              (bytes.size() + chunk - 1) / chunk);
    EXPECT_EQ(chunks::read_all(db, 7, chunks::kCapture, "test"), bytes);
    std::istringstream in(std::string(bytes.begin(), bytes.end()));
    chunks::write(db, 7, chunks::kTrace, in, bytes.size(), "test", chunk);
    EXPECT_EQ(chunks::read_all(db, 7, chunks::kTrace, "test"), bytes);
  }
  EXPECT_TRUE(chunks::read_all(db, 8, chunks::kCapture, "test").empty());
}

}  // namespace
}  // namespace quartz::profile
