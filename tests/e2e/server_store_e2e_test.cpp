// End-to-end: the store on a PostgreSQL server (issue 40), a real one that
// scripts/pg-server.sh starts. The truth is the same runs in an SQLite file, which every
// command printed before servers were: from either store they print the same text, but for
// the store's name; and what the server's own roles and state allow.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "harness.h"

namespace quartz::test {
namespace {

using nlohmann::json;
const std::string kPgServer = std::string(QUARTZ_SCRIPTS_DIR) + "/pg-server.sh";

// The words of `text`, with every `name` replaced by "STORE" (a heading wraps where a longer
// name pushes it: line breaks and widths are not the store's), and without the predictor's
// own timing ("predicted in 34.50 ms ..."), which no two predictions share.
std::string unnamed(const std::string& text, const std::string& name) {
  std::string words;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("predicted in ") != std::string::npos) continue;
    for (size_t at = 0; (at = line.find(name, at)) != std::string::npos;) {
      line.replace(at, name.size(), "STORE");
    }
    std::istringstream line_words(line);
    for (std::string word; line_words >> word;) words += word + " ";
  }
  return words;
}

size_t lines(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

class ServerStore : public ScratchTest {
 protected:
  void SetUp() override {
    ScratchTest::SetUp();
    server = server_database();
  }
  CommandResult quartz(std::vector<std::string> args) {
    args.insert(args.begin(), kQuartz);
    return run_command(args);
  }
  // `quartz run -q` of a sample into `store_location`, its capture kept at dir/NAME.qcap.
  CommandResult run(const std::string& store_location, const std::string& name,
                    std::vector<std::string> program, bool trace = false) {
    std::vector<std::string> args{"run", "-q", "--store", store_location, "-o", capture(name)};
    if (trace) args.push_back("--trace");
    args.push_back("--");
    args.insert(args.end(), program.begin(), program.end());
    return quartz(args);
  }
  std::string capture(const std::string& name) const { return (dir / (name + ".qcap")).string(); }

  ServerDatabase server;
};

TEST_F(ServerStore, FourRunsAtOnceAreAllStoredAndListed) {
  std::vector<CommandResult> results(4);
  std::vector<std::thread> runs;
  for (int i = 0; i < 4; ++i) {
    runs.emplace_back([&, i] {
      results[i] =
          run(server.writer, "run" + std::to_string(i),
              {sample("imbalance"), "--threads", "2", "--unit-ms", std::to_string(10 + i)});
    });
  }
  for (std::thread& t : runs) t.join();
  for (const CommandResult& r : results) EXPECT_EQ(r.exit_code, 0) << r.err;

  const CommandResult list = quartz({"list", "--store", server.writer});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_EQ(lines(list.out), 5u) << list.out;  // a heading and four runs
  // Each run whole, under an id of its own: its arguments are one program's.
  std::set<std::string> unit_ms;
  std::istringstream rows(list.out);
  std::string row;
  std::getline(rows, row);
  while (std::getline(rows, row)) {
    std::string id;
    std::istringstream(row) >> id;
    const CommandResult report = quartz({"report", "--json", "--store", server.writer, id});
    ASSERT_EQ(report.exit_code, 0) << report.err;
    const json r = json::parse(report.out, nullptr, false);
    ASSERT_FALSE(r.is_discarded());
    unit_ms.insert(r["arguments"].back().get<std::string>());
    EXPECT_GT(r["elapsed_s"].get<double>(), 0);
  }
  EXPECT_EQ(unit_ms, (std::set<std::string>{"10", "11", "12", "13"}));
}

TEST_F(ServerStore, EveryCommandPrintsWhatItPrintsFromAFile) {
  const std::string file = store;
  ASSERT_EQ(run(file, "a", {sample("lock_contention")}).exit_code, 0);
  ASSERT_EQ(run(file, "b", {sample("pairs")}, /*trace=*/true).exit_code, 0);
  for (const char* name : {"a", "b"}) {  // the trace comes with b's capture
    const CommandResult imported = quartz({"import", "--store", server.writer, capture(name)});
    ASSERT_EQ(imported.exit_code, 0) << imported.err;
  }
  const std::vector<std::vector<std::string>> commands = {
      {"list"},
      {"report", "1"},
      {"report", "--json", "2"},
      {"diagnose", "1"},
      {"compare", "1", "2"},
      {"predict", "2", "--cores", "1"},  // read from the trace
      {"check", "2"},
  };
  for (const std::vector<std::string>& command : commands) {
    SCOPED_TRACE(command[0] + " " + command.back());
    std::vector<std::string> from_file = command, from_server = command;
    from_file.insert(from_file.begin() + 1, {"--store", file});
    from_server.insert(from_server.begin() + 1, {"--store", server.writer});
    const CommandResult a = quartz(from_file), b = quartz(from_server);
    EXPECT_EQ(a.exit_code, b.exit_code) << b.err;
    EXPECT_FALSE(a.out.empty()) << a.err;
    EXPECT_EQ(unnamed(a.out, file), unnamed(b.out, server.writer));
    EXPECT_EQ(unnamed(a.err, file), unnamed(b.err, server.writer));
  }
  // The prediction stored with its run, as it was made.
  const CommandResult report = quartz({"report", "--json", "--store", server.writer, "2"});
  const json what_ifs = json::parse(report.out, nullptr, false)["what_ifs"];
  ASSERT_EQ(what_ifs.size(), 1u) << report.out;
  EXPECT_EQ(what_ifs[0]["question"], "--cores 1");
}

TEST_F(ServerStore, ARoleThatMayOnlyReadReadsAndIsRefusedWrites) {
  ASSERT_EQ(run(server.writer, "a", {sample("lock_contention")}).exit_code, 0);
  const CommandResult as_writer = quartz({"report", "--store", server.writer, "1"});
  const CommandResult as_reader = quartz({"report", "--store", server.reader, "1"});
  ASSERT_EQ(as_reader.exit_code, 0) << as_reader.err;
  EXPECT_EQ(unnamed(as_reader.out, server.reader), unnamed(as_writer.out, server.writer));

  for (const std::vector<std::string>& write :
       {std::vector<std::string>{"import", "--store", server.reader, capture("a")},
        std::vector<std::string>{"run", "-q", "--store", server.reader, "--",
                                 sample("lock_contention")}}) {
    SCOPED_TRACE(write[0]);
    const CommandResult refused = quartz(write);
    EXPECT_NE(refused.exit_code, 0);
    EXPECT_EQ(lines(refused.err), 1u) << refused.err;
    EXPECT_NE(refused.err.find("read-only (role reader may not write)"), std::string::npos)
        << refused.err;
  }
  const CommandResult list = quartz({"list", "--store", server.writer});
  EXPECT_EQ(lines(list.out), 2u) << list.out;  // the writer's run alone
}

TEST_F(ServerStore, APasswordIsNeitherPrintedNorStored) {
  const std::string secret = "Secret-Quartz-7";
  std::string with_password = server.writer;
  with_password.insert(with_password.find("writer") + 6, ":" + secret);
  const CommandResult r = quartz(
      {"run", "--store", with_password, "-o", capture("a"), "--", sample("lock_contention")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("stored in " + server.writer), std::string::npos) << r.err;
  std::string everything = r.out + r.err;
  for (const std::vector<std::string>& read :
       {std::vector<std::string>{"list"}, {"report", "--json", "1"}, {"diagnose", "1"}}) {
    std::vector<std::string> args = read;
    args.insert(args.begin() + 1, {"--store", with_password});
    const CommandResult out = quartz(args);
    EXPECT_EQ(out.exit_code, 0) << out.err;
    everything += out.out + out.err;
  }
  // Nor when the server refuses: a database that is not there.
  std::string missing = with_password;
  missing.replace(missing.rfind('/') + 1, std::string::npos, "nowhere");
  const CommandResult refused = quartz({"report", "--store", missing});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_EQ(lines(refused.err), 1u) << refused.err;
  everything += refused.err;
  EXPECT_EQ(everything.find(secret), std::string::npos) << everything;
}

// Through a connection pooler (PgBouncer in session mode, which hands one server connection
// to client after client, reset between them): runs are written at once and every command
// prints what it prints straight from the server.
TEST_F(ServerStore, APoolerInFrontServesEveryCommandAsTheServerDoes) {
  ASSERT_FALSE(server.pooled.empty());
  std::vector<CommandResult> written(2);
  std::vector<std::thread> runs;
  for (int i = 0; i < 2; ++i) {
    runs.emplace_back([&, i] {
      written[i] = run(server.pooled, "run" + std::to_string(i), {sample("lock_contention")},
                       /*trace=*/i == 1);
    });
  }
  for (std::thread& t : runs) t.join();
  for (const CommandResult& r : written) ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::vector<std::string>> commands = {
      {"list"},          {"report", "1"},       {"report", "--json", "2"},
      {"diagnose", "1"}, {"compare", "1", "2"},
  };
  for (int round = 0; round < 2; ++round) {  // the second on server connections used before
    for (const std::vector<std::string>& command : commands) {
      SCOPED_TRACE(command[0] + " " + command.back());
      std::vector<std::string> direct = command, pooled = command;
      direct.insert(direct.begin() + 1, {"--store", server.writer});
      pooled.insert(pooled.begin() + 1, {"--store", server.pooled});
      const CommandResult a = quartz(direct), b = quartz(pooled);
      EXPECT_EQ(b.exit_code, 0) << b.err;
      EXPECT_FALSE(a.out.empty()) << a.err;
      EXPECT_EQ(unnamed(a.out, server.writer), unnamed(b.out, server.pooled));
    }
  }
}

// The server stopped while the program runs: the capture is kept, `quartz run` says how to
// store it, and it is stored once the server is back.
TEST_F(ServerStore, AServerStoppedMidRunLosesNothing) {
  const std::string own = (dir / "server").string();
  const CommandResult started = run_command({kPgServer, "start", own});
  ASSERT_EQ(started.exit_code, 0) << started.err;
  const std::string uri = started.out.substr(0, started.out.find('\n'));

  // 1.6 s of work; the server stopped once quartz has checked it and started the program.
  Launch l = command({kQuartz, "run", "--store", uri, "-o", capture("a"), "--", sample("imbalance"),
                      "--threads", "2", "--unit-ms", "800"});
  l.while_running = [&](pid_t) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    run_command({kPgServer, "stop", own});
  };
  const CommandResult r = launch(l);
  EXPECT_NE(r.err.find("was kept but not stored"), std::string::npos) << r.err;
  const std::string hint = "quartz import --store " + uri + " " + capture("a");
  EXPECT_NE(r.err.find(hint), std::string::npos) << r.err;

  ASSERT_EQ(run_command({kPgServer, "start", own}).exit_code, 0);
  const CommandResult stored = quartz({"import", "--store", uri, capture("a")});
  EXPECT_EQ(stored.exit_code, 0) << stored.err;
  const CommandResult report = quartz({"report", "--store", uri, "1"});
  EXPECT_EQ(report.exit_code, 0) << report.err;
  run_command({kPgServer, "stop", own});
}

// A server out of reach from the start: the program is profiled all the same, and its
// capture kept to be stored later.
TEST_F(ServerStore, AServerOutOfReachIsSaidOnceAndTheRunKept) {
  const std::string nowhere =
      "postgresql://writer@" + std::string("%2Ftmp%2Fquartz-no-server") + "/quartz";
  const CommandResult r = run(nowhere, "a", {sample("lock_contention")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find(nowhere + ": cannot open: connection to server on socket"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("quartz import --store " + nowhere + " " + capture("a")), std::string::npos)
      << r.err;
  EXPECT_TRUE(std::filesystem::exists(capture("a")));
  const CommandResult report = quartz({"report", "--store", nowhere, "1"});
  EXPECT_EQ(report.exit_code, 2);
  EXPECT_EQ(lines(report.err), 1u) << report.err;
}

// `quartz push` copies runs whole, once: to the server and back, every report is the same.
TEST_F(ServerStore, PushedRunsAreWholeAndStoredOnce) {
  const std::string file = store;
  ASSERT_EQ(run(file, "a", {sample("lock_contention")}).exit_code, 0);
  ASSERT_EQ(run(file, "b", {sample("pairs")}, /*trace=*/true).exit_code, 0);
  ASSERT_EQ(quartz({"predict", "--store", file, "2", "--cores", "1"}).exit_code, 0);
  // Runs 3 and 4, linked: a shell that counts (and is sampled) before it execs the sample.
  ASSERT_EQ(quartz({"run", "-q", "--store", file, "--label", "branch=main", "--follow-exec", "-o",
                    capture("c"), "--", "/bin/sh", "-c",
                    "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done; exec " +
                        sample("lock_contention") + " --hold-us 50"})
                .exit_code,
            0);
  ASSERT_NE(quartz({"report", "--store", file, "4"}).out.find("started by run 3 (--follow-exec)"),
            std::string::npos);
  const CommandResult pushed = quartz({"push", "--store", file, "--to", server.writer});
  ASSERT_EQ(pushed.exit_code, 0) << pushed.err;
  EXPECT_EQ(lines(pushed.out), 4u) << pushed.out;
  const CommandResult again = quartz({"push", "--store", file, "--to", server.writer});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(std::count(again.out.begin(), again.out.end(), 'y'), 4) << again.out;  // "already"
  EXPECT_EQ(lines(quartz({"list", "--store", server.writer}).out), 5u);

  const std::string back = (dir / "back.db").string();
  ASSERT_EQ(quartz({"push", "--store", back, "--from", server.writer}).exit_code, 0);
  for (const std::string id : {"1", "2", "3", "4"}) {
    for (const std::vector<std::string>& command :
         {std::vector<std::string>{"report", id}, {"report", "--json", id}}) {
      std::vector<std::string> a = command, b = command, c = command;
      a.insert(a.begin() + 1, {"--store", file});
      b.insert(b.begin() + 1, {"--store", server.writer});
      c.insert(c.begin() + 1, {"--store", back});
      const std::string original = unnamed(quartz(a).out, file);
      EXPECT_FALSE(original.empty());
      EXPECT_EQ(unnamed(quartz(b).out, server.writer), original) << id;
      EXPECT_EQ(unnamed(quartz(c).out, back), original) << id;
    }
  }
  // The link came along; and the trace: predictions are asked of the copy.
  EXPECT_NE(quartz({"report", "--store", server.writer, "4"})
                .out.find("started by run 3 (--follow-exec)"),
            std::string::npos);
  EXPECT_EQ(quartz({"predict", "--store", server.writer, "2", "--zero", "ping_work"}).exit_code, 0);
}

// Labels and hosts find runs; each run knows its program's build as readelf reads it.
TEST_F(ServerStore, RunsAreFoundByLabelHostAndBuild) {
  ASSERT_EQ(quartz({"run", "-q", "--store", server.writer, "--label", "branch=main", "--label",
                    "ci=17", "--", sample("lock_contention")})
                .exit_code,
            0);
  ASSERT_EQ(quartz({"run", "-q", "--store", server.writer, "--label", "branch=dev", "--",
                    sample("lock_contention")})
                .exit_code,
            0);
  const CommandResult dev = quartz({"list", "--store", server.writer, "--label", "branch=dev"});
  ASSERT_EQ(lines(dev.out), 2u) << dev.out;
  EXPECT_NE(dev.out.find("    2 "), std::string::npos) << dev.out;
  EXPECT_NE(dev.out.find("branch=dev"), std::string::npos) << dev.out;
  const CommandResult both =
      quartz({"list", "--store", server.writer, "--label", "ci=17", "--label", "branch=main"});
  EXPECT_EQ(lines(both.out), 2u) << both.out;
  EXPECT_EQ(lines(quartz({"list", "--store", server.writer, "--host", "elsewhere"}).out), 1u);
  const CommandResult bad = quartz({"list", "--store", server.writer, "--label", "branch"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(lines(bad.err), 1u) << bad.err;
  // The latest run of a branch, wherever a run is named: main's against dev's.
  const CommandResult against = quartz({"compare", "--store", server.writer, "--json",
                                        "latest@branch=main", "latest@branch=dev@ci=17"});
  EXPECT_EQ(against.exit_code, 2) << "no run of dev has ci=17: " << against.out;
  EXPECT_EQ(lines(against.err), 1u) << against.err;
  const CommandResult compared =
      quartz({"compare", "--store", server.writer, "--json", "latest@branch=main@ci=17", "latest"});
  ASSERT_EQ(compared.exit_code, 0) << compared.err;
  const json c = json::parse(compared.out, nullptr, false);
  EXPECT_NE(c["a"].get<std::string>().find("run 1 ("), std::string::npos) << compared.out;
  EXPECT_NE(c["b"].get<std::string>().find("run 2 ("), std::string::npos) << compared.out;

  // The build id of the sample, by readelf; in the server's own table.
  const CommandResult notes = run_command({"/usr/bin/readelf", "-n", sample("lock_contention")});
  const size_t at = notes.out.find("Build ID: ");
  ASSERT_NE(at, std::string::npos) << notes.out;
  const std::string build_id = notes.out.substr(at + 10, notes.out.find('\n', at) - at - 10);
  const CommandResult psql = run_command({"/usr/bin/psql", "-At", "-d", server.writer, "-c",
                                          "SELECT build_id, compiler FROM run_builds"});
  ASSERT_EQ(psql.exit_code, 0) << psql.err;
  EXPECT_EQ(psql.out.substr(0, psql.out.find('|')), build_id) << psql.out;
  // Its compiler, one of the strings of its .comment section (gcc's or clang's build).
  const std::string compiler =
      psql.out.substr(psql.out.find('|') + 1, psql.out.find('\n') - psql.out.find('|') - 1);
  const CommandResult comments =
      run_command({"/usr/bin/readelf", "-p", ".comment", sample("lock_contention")});
  EXPECT_FALSE(compiler.empty()) << psql.out;
  EXPECT_NE(comments.out.find(compiler), std::string::npos) << compiler << "\n" << comments.out;
}

// Runs on other processors are compared, and the comparison says so.
TEST_F(ServerStore, ACompareAcrossMachinesSaysTheirProcessorsDiffer) {
  // On one processor: quartz and the program it starts (taskset execs quartz).
  const CommandResult one =
      run_command({"/usr/bin/taskset", "-c", "0", kQuartz, "run", "-q", "--store", server.writer,
                   "--", sample("lock_contention")});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  ASSERT_EQ(run(server.writer, "b", {sample("lock_contention")}).exit_code, 0);
  const CommandResult c = quartz({"compare", "--store", server.writer, "1", "2"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_NE(c.out.find(" (1 processor), B on "), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("(2 processors): their processors differ"), std::string::npos) << c.out;
}

}  // namespace
}  // namespace quartz::test
