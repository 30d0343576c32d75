// End-to-end: locks a person can tell apart (issue 9 item 4). The program takes two
// std::mutex of its own in two functions and an array of four at one site, through
// std::lock_guard and std::unique_lock left out of line (-O0), and prints the function and
// line of each acquisition: the truth for the names. Every object gets an id, and report,
// predict and the store give it the same name.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "harness.h"

namespace quartz::test {
namespace {

using nlohmann::json;
const std::string kLockNames = std::string(QUARTZ_E2E_DIR) + "/lock_names";

// "lock=accounts function=post_to_accounts line=24": where the program took each lock.
std::map<std::string, std::string> printed_sites(const std::string& out) {
  std::map<std::string, std::string> sites;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    char lock[32] = {}, function[64] = {};
    int at = 0;
    if (std::sscanf(line.c_str(), "lock=%31s function=%63s line=%d", lock, function, &at) == 3) {
      sites[lock] = std::string("@") + function + " (lock_names.cpp:" + std::to_string(at) + ")";
    }
  }
  return sites;
}

class LockNames : public ScratchTest {
 protected:
  void SetUp() override {
    ScratchTest::SetUp();
    const CommandResult r =
        run_command({kQuartz, "run", "-q", "--trace", "--store", store, "--", kLockNames});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    sites = printed_sites(r.out);
    ASSERT_EQ(sites.size(), 3u) << r.out;
  }
  json quartz_json(std::vector<std::string> args) {
    args.insert(args.begin(), kQuartz);
    args.insert(args.end(), {"--json", "--store", store});
    const CommandResult r = run_command(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  }
  // The report's mutexes named "mutex" and the site the program printed for a lock, then
  // their id where several share the site ("mutex@fill_shards (lock_names.cpp:41) #5").
  static std::vector<json> mutexes_at(const json& report, const std::string& site) {
    std::vector<json> rows;
    for (const json& l : report["locks"]) {
      if (l["kind"] == "mutex" && l["name"].get<std::string>().rfind("mutex" + site, 0) == 0) {
        rows.push_back(l);
      }
    }
    return rows;
  }
  std::map<std::string, std::string> sites;
};

// Each mutex is named by the program's function and line that first took it, not by
// std::mutex::lock or std::lock_guard in the system's headers; the four of one array get
// four names, told apart by their ids.
TEST_F(LockNames, EachMutexIsNamedByTheProgramsOwnLineAndItsId) {
  const json report = quartz_json({"report"});
  ASSERT_TRUE(report.is_object());
  for (const std::string lock : {"accounts", "audit"}) {
    const std::vector<json> rows = mutexes_at(report, sites[lock]);
    ASSERT_EQ(rows.size(), 1u) << lock << " in " << report["locks"].dump(1);
    EXPECT_EQ(rows[0]["name"], "mutex" + sites[lock]);
  }
  const std::vector<json> shards = mutexes_at(report, sites["shards"]);
  EXPECT_EQ(shards.size(), 4u) << report["locks"].dump(1);
  for (const json& shard : shards) {
    EXPECT_EQ(shard["name"],
              "mutex" + sites["shards"] + " #" + std::to_string(shard["id"].get<int>()));
  }
  std::set<std::string> names;
  std::set<uint32_t> ids;
  for (const json& l : report["locks"]) {
    const std::string name = l["name"];
    EXPECT_GT(l["id"].get<uint32_t>(), 0u);
    EXPECT_EQ(name.find(".h:"), std::string::npos) << name << ": a system header's line";
    names.insert(name);
    ids.insert(l["id"].get<uint32_t>());
  }
  EXPECT_EQ(names.size(), report["locks"].size());
  EXPECT_EQ(ids.size(), report["locks"].size());
}

// The critical path of a prediction names locks and threads as the report does, and the
// store keeps each lock's id beside its name.
TEST_F(LockNames, PredictAndTheStoreUseTheReportsNames) {
  const json report = quartz_json({"report"});
  std::set<std::string> lock_names, thread_names;
  std::map<std::string, int64_t> id_of;
  for (const json& l : report["locks"]) {
    lock_names.insert(l["name"].get<std::string>());
    id_of[l["name"]] = l["id"];
  }
  for (const json& t : report["threads"]) {
    thread_names.insert(std::to_string(t["index"].get<int>()) + " " + t["name"].get<std::string>());
  }
  const json predicted = quartz_json({"predict"});
  ASSERT_TRUE(predicted.is_object());
  const json& path = predicted["critical_path"];
  ASSERT_FALSE(path["locks"].empty()) << path.dump(1);
  const std::string accounts = mutexes_at(report, sites["accounts"]).at(0)["name"];
  bool accounts_on_path = false;
  for (const json& l : path["locks"]) {
    EXPECT_TRUE(lock_names.count(l["name"])) << l["name"] << " is not a name of the report";
    accounts_on_path |= l["name"] == accounts;
  }
  EXPECT_TRUE(accounts_on_path) << "the accounts lock, held 200,000-step rounds by two threads";
  for (const json& t : path["threads"]) {
    EXPECT_TRUE(thread_names.count(t["name"])) << t["name"] << " is not a thread of the report";
  }

  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(store.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* rows = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT name, object_id FROM locks", -1, &rows, nullptr),
            SQLITE_OK);
  size_t stored = 0;
  while (sqlite3_step(rows) == SQLITE_ROW) {
    const std::string name = reinterpret_cast<const char*>(sqlite3_column_text(rows, 0));
    ASSERT_TRUE(id_of.count(name)) << name << " is not a name of the report";
    EXPECT_EQ(sqlite3_column_int64(rows, 1), id_of[name]) << name;
    ++stored;
  }
  sqlite3_finalize(rows);
  sqlite3_close(db);
  EXPECT_EQ(stored, id_of.size());
}

}  // namespace
}  // namespace quartz::test
