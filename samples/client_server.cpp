// client_server: the LBF paper's synthetic application — one server thread, three clients.
//
// Each of 3 clients repeats N times: client_think() for K microseconds of processor time,
// then a request through the shared queue "request_queue" (a std::mutex with the
// std::condition_variable "request_queue.ready"), then a wait for the reply in its own slot
// ("reply_<i>", condition "reply_<i>.done"). Every E-th request of a client is class B,
// the others class A. The server takes requests one at a time and computes A microseconds
// in serve_class_a or B microseconds in serve_class_b; a request costs it
// S = ((E - 1) A + B) / E on average (defaults: 0.4 ms). Truth, by construction, when
// K < 2 S (requests arrive faster than they are served) and K < (P - 1) S (the clients'
// thinking leaves the server a processor of its own):
//   - the server is the bottleneck: busy nearly all the time, and the elapsed time is
//     about 3 N S (defaults: 2400 * 0.4 ms = 0.96 s);
//   - the clients are mostly blocked, waiting for replies on their "reply_<i>.done"
//     (each waits about 3 N S - N K; defaults: 0.8 s);
//   - serve_class_b has the most server time: 3 N / E * B against 3 N (E - 1) / E * A
//     (defaults: 0.6 s against 0.36 s).
// Prints its measured truth: server_cpu_s (the server thread's CPU clock), class_a_cpu_s,
// class_b_cpu_s (its CPU time in serve_class_a, serve_class_b), class_a, class_b (requests
// served), client_<i>_wait_s (wall time client i waited for replies), elapsed_s.
//
// With --clients-serve-b 1, class B work moves to the clients: the server answers a class B
// request at once and the client then runs serve_class_b itself (the LBF paper's check of
// procedure migration: `quartz predict --migrate serve_class_b` predicts this variant).
//
//   client_server [--requests N] [--a-us A] [--b-us B] [--think-us K] [--b-every E]
//                 [--clients-serve-b 0|1]
//   defaults:      800           200      1000     200          4          0
#include <pthread.h>
#include <time.h>

#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <thread>

#include "quartz/quartz.h"
#include "sample_args.h"
#include "sample_work.h"

constexpr int kClients = 3;

static long requests = 800, a_us = 200, b_us = 1000, think_us = 200, b_every = 4,
            clients_serve_b = 0;

enum class RequestClass { kA, kB, kStop };

struct Request {
  int client;
  RequestClass kind;
};

// The server's inbox: every client's requests, first come first served.
class RequestQueue {
 public:
  RequestQueue() {
    quartz_name_object(mutex_.native_handle(), "request_queue");
    quartz_name_object(ready_.native_handle(), "request_queue.ready");
  }

  void push(Request request) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.push_back(request);
    }
    ready_.notify_one();
  }

  // Removes the oldest request, waiting while there is none.
  Request pop() {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [this] { return !queue_.empty(); });
    Request request = queue_.front();
    queue_.pop_front();
    return request;
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Request> queue_;
};

// Where the server leaves one client's reply; the client waits on `done`.
class ReplySlot {
 public:
  void name(int client) {
    snprintf(mutex_name_, sizeof mutex_name_, "reply_%d", client);
    snprintf(done_name_, sizeof done_name_, "reply_%d.done", client);
    quartz_name_object(mutex_.native_handle(), mutex_name_);
    quartz_name_object(done_.native_handle(), done_name_);
  }

  void post() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ready_ = true;
    }
    done_.notify_one();
  }

  // Waits for the reply and takes it. Returns the wall time waited, in s.
  double take() {
    double start = now_us();
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return ready_; });
    ready_ = false;
    return (now_us() - start) / 1e6;
  }

 private:
  std::mutex mutex_;
  std::condition_variable done_;
  bool ready_ = false;  // guarded by mutex_
  char mutex_name_[48], done_name_[48];
};

static RequestQueue* request_queue;
static ReplySlot reply_slots[kClients];
static double client_wait_s[kClients];
static double server_cpu_s, class_a_cpu_s, class_b_cpu_s;
static long class_a_served, class_b_served;

extern "C" {

SAMPLE_PROCEDURE void client_think(void) {
  compute(think_us);
}

SAMPLE_PROCEDURE void serve_class_a(void) {
  compute(a_us);
}

SAMPLE_PROCEDURE void serve_class_b(void) {
  compute(b_us);
}

// Sends one request of client `i` and waits for its reply.
SAMPLE_PROCEDURE void send_request(int i, RequestClass kind) {
  request_queue->push(Request{i, kind});
  client_wait_s[i] += reply_slots[i].take();
}

SAMPLE_PROCEDURE void client(int i) {
  char name[16];
  snprintf(name, sizeof name, "client_%d", i);
  pthread_setname_np(pthread_self(), name);
  for (long r = 1; r <= requests; r++) {
    client_think();
    const RequestClass kind = r % b_every == 0 ? RequestClass::kB : RequestClass::kA;
    send_request(i, kind);
    if (kind == RequestClass::kB && clients_serve_b) serve_class_b();
  }
}

SAMPLE_PROCEDURE void server(void) {
  pthread_setname_np(pthread_self(), "server");
  for (;;) {
    Request request = request_queue->pop();
    if (request.kind == RequestClass::kStop) break;
    double start_s = clock_s(CLOCK_THREAD_CPUTIME_ID);
    if (request.kind == RequestClass::kA) {
      serve_class_a();
      class_a_cpu_s += clock_s(CLOCK_THREAD_CPUTIME_ID) - start_s;
      class_a_served++;
    } else {
      if (!clients_serve_b) serve_class_b();
      class_b_cpu_s += clock_s(CLOCK_THREAD_CPUTIME_ID) - start_s;
      class_b_served++;
    }
    reply_slots[request.client].post();
  }
  server_cpu_s = clock_s(CLOCK_THREAD_CPUTIME_ID);
}

}  // extern "C"

int main(int argc, char** argv) {
  double start = now_us();
  struct sample_flag flags[] = {
      {"--requests", &requests, 0, 100000000}, {"--a-us", &a_us, 0, 10000000},
      {"--b-us", &b_us, 0, 10000000},          {"--think-us", &think_us, 0, 10000000},
      {"--b-every", &b_every, 1, 1000000},     {"--clients-serve-b", &clients_serve_b, 0, 1},
  };
  if (!parse_sample_flags(argc, argv, flags, sizeof flags / sizeof flags[0])) return 2;
  RequestQueue queue;
  request_queue = &queue;
  for (int i = 0; i < kClients; i++) reply_slots[i].name(i);

  std::thread server_thread(server);
  std::thread clients[kClients];
  for (int i = 0; i < kClients; i++) clients[i] = std::thread(client, i);
  for (auto& c : clients) c.join();
  queue.push(Request{-1, RequestClass::kStop});
  server_thread.join();

  printf("server_cpu_s=%.6f\n", server_cpu_s);
  printf("class_a_cpu_s=%.6f\n", class_a_cpu_s);
  printf("class_b_cpu_s=%.6f\n", class_b_cpu_s);
  printf("class_a=%ld\n", class_a_served);
  printf("class_b=%ld\n", class_b_served);
  for (int i = 0; i < kClients; i++) printf("client_%d_wait_s=%.6f\n", i, client_wait_s[i]);
  printf("elapsed_s=%.6f\n", (now_us() - start) / 1e6);
  return 0;
}
