// Locks a person must tell apart (issue 9 item 4): two std::mutex of the program's own,
// taken by different functions, and an array of them first taken at one site. Built
// without optimisation, so that std::mutex::lock and std::lock_guard stay functions of
// their own between the program and pthread_mutex_lock. Each function prints the line
// where it takes its lock: the test's truth for the names the report gives.
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

namespace {

std::mutex accounts_lock;
std::mutex audit_lock;
std::mutex shards[4];
volatile unsigned long sink;

void work(int n) {
  for (int i = 0; i < n; i++) sink = sink + static_cast<unsigned long>(i);
}

void post_to_accounts(int rounds) {
  for (int i = 0; i < rounds; i++) {
    std::lock_guard<std::mutex> hold(accounts_lock);  // the line printed below
    if (i == 0) std::printf("lock=accounts function=post_to_accounts line=%d\n", __LINE__ - 1);
    // Long enough (~0.1 s in all) that no recording's noise, on a busy machine too, takes
    // the critical path elsewhere (at 20,000 steps a 23 ms run's 9 ms of ready time,
    // read as blocked, did).
    work(200000);
  }
}

void write_audit(int rounds) {
  for (int i = 0; i < rounds; i++) {
    std::unique_lock<std::mutex> hold(audit_lock);  // the line printed below
    if (i == 0) std::printf("lock=audit function=write_audit line=%d\n", __LINE__ - 1);
    work(2000);
  }
}

void fill_shards(int first, int rounds) {
  for (int i = 0; i < rounds; i++) {
    std::lock_guard<std::mutex> hold(shards[(first + i) % 4]);  // the line printed below
    if (i == 0) std::printf("lock=shards function=fill_shards line=%d\n", __LINE__ - 1);
    work(1000);
  }
}

}  // namespace

int main() {
  std::vector<std::thread> threads;
  for (int i = 0; i < 2; i++) threads.emplace_back(post_to_accounts, 300);
  threads.emplace_back(write_audit, 300);
  threads.emplace_back(fill_shards, 0, 400);
  for (std::thread& t : threads) t.join();
  return 0;
}
