// support/safe_file.h through direct calls: the kernel's own account (pending signals, a
// child's wait status, file sizes, errno) says whether a failed write touched the caller.
#include "support/safe_file.h"

#include <errno.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

namespace quartz::rt {
namespace {

namespace fs = std::filesystem;

class SafeFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("quartz-safe-file-" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

 private:
  fs::path dir_;
};

bool pending(int signal) {
  sigset_t set;
  sigpending(&set);
  return sigismember(&set, signal) == 1;
}

// Runs `body` in a child process; its exit status (0: every check held), or 128 + the
// signal that killed it.
template <typename Body>
int in_child(Body body) {
  const pid_t pid = fork();
  if (pid == 0) _exit(body());
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

TEST_F(SafeFile, AFailedWriteKeepsErrno) {
  errno = 4242;
  EXPECT_EQ(support::replace_file(path("missing/dir/capture.qcap").c_str(), "x", 1), ENOENT);
  EXPECT_EQ(errno, 4242);
  EXPECT_EQ(support::append_to_file(path("missing/dir/trace").c_str(), "h", 1, "x", 1), ENOENT);
  EXPECT_EQ(errno, 4242);
}

// Past RLIMIT_FSIZE the kernel would send SIGXFSZ (default: the process dies); nothing is
// written instead, and a file that grows by appends keeps its whole appends.
TEST_F(SafeFile, TheFileSizeLimitRaisesNoSignalAndLeavesNoPart) {
  const std::string capture = path("capture.qcap");
  const std::string trace = path("capture.qcap.trace");
  const int status = in_child([&] {
    const rlimit limit{4096, 4096};
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0) return 10;
    const std::vector<char> big(8192, 'c');
    if (support::replace_file(capture.c_str(), big.data(), big.size()) != EFBIG) return 11;
    if (fs::exists(capture) || fs::exists(capture + ".tmp")) return 12;
    if (support::create_file(trace.c_str()) != 0) return 13;
    const std::vector<char> chunk(3000, 't');
    if (support::append_to_file(trace.c_str(), "H", 1, chunk.data(), chunk.size()) != 0) return 14;
    if (support::append_to_file(trace.c_str(), "H", 1, chunk.data(), chunk.size()) != EFBIG)
      return 15;
    if (fs::file_size(trace) != 3001) return 16;
    return pending(SIGXFSZ) ? 17 : 0;
  });
  EXPECT_EQ(status, 0);
}

// A message to a stderr whose reader has gone raises no SIGPIPE; a SIGPIPE that was
// pending before (the program's) is left pending.
TEST_F(SafeFile, ABrokenPipeRaisesNoSignalAndKeepsAPendingOne) {
  const int status = in_child([] {
    int broken[2];
    if (pipe(broken) != 0) return 10;
    close(broken[0]);
    dup2(broken[1], STDERR_FILENO);
    support::write_message("quartz: nobody reads this\n");  // SIGPIPE's default would end us here
    if (pending(SIGPIPE)) return 11;
    sigset_t pipe_only;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_only, nullptr);
    raise(SIGPIPE);  // the program's own, blocked and pending
    support::write_message("quartz: nor this\n");
    return pending(SIGPIPE) ? 0 : 12;
  });
  EXPECT_EQ(status, 0);
}

// Opening a FIFO nobody reads for writing would block; it is refused at once.
TEST_F(SafeFile, AFifoIsRefusedNotWaitedFor) {
  const std::string fifo = path("capture.qcap.trace");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(support::create_file(fifo.c_str()), support::kNotRegularFile);
  EXPECT_EQ(support::append_to_file(fifo.c_str(), "h", 1, "x", 1), support::kNotRegularFile);
  EXPECT_EQ(support::replace_file(path("capture.qcap").c_str(), "x", 1), 0);  // beside it: fine
  struct stat st;
  ASSERT_EQ(stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the user's FIFO is left as it was";
}

}  // namespace
}  // namespace quartz::rt
