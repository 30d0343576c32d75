// The rules of the diagnosis's properties (diagnosis.h), each defined once, by family, and
// what they share. One file each:
//   diagnosis.cpp                  property names; diagnose(): runs the rules, ranks findings
//   diagnosis_trust.cpp            a finding's confidence; the profiler's intrusion
//   diagnosis_capacity.cpp         where the processors' time went: used, taken, starved, idle
//   diagnosis_teams.cpp            threads of one routine that lived at the same time
//   diagnosis_parallelism.cpp      serial bottleneck, load imbalance, starvation
//   diagnosis_synchronization.cpp  lock contention, spin waste, and the two merged
//   diagnosis_waiting.cpp          ready time (oversubscription, other processes), blocking
// Callers include diagnosis.h, not this.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "analysis/diagnosis.h"

namespace quartz::analysis::diagnosis {

inline double clamp01(double v) {
  return std::isfinite(v) ? std::clamp(v, 0.0, 1.0) : 0.0;
}

// How far to trust a finding whose evidence spans `evidence_s`, given the profiler's
// `intrusion` (below).
double confidence(const ProfileView& view, double evidence_s, double intrusion);
// The profiler's own share of the processors, 0..1.
double intrusion(const ProfileView& view);

// Processor time, in seconds of one processor, over the run's P × elapsed.
// Taken by other processes while the program's threads were ready for them.
double taken_capacity_s(const ProfileView& view);
// Left unused by the program: neither working, spinning nor taken.
double unused_capacity_s(const ProfileView& view);
// Of the unused, idle for want of threads at work (start-up and wind-down starvation).
double starved_capacity_s(const ProfileView& view);
// Of the unused, idle while the threads at work were blocked or ready.
double idle_capacity_s(const ProfileView& view);
// Of the blocked thread-time, the share in the kernel (I/O, sleep) rather than on objects.
double kernel_share_of_blocking(const ProfileView& view);
// Blocked thread-time in the kernel: the blocked time less the objects' blocked waits.
double blocked_in_kernel_s(const ProfileView& view);
// Blocked thread-time while fewer of the program's threads were runnable than processors
// (all of it in a capture without the runnable bins).
double blocked_while_idle_s(const ProfileView& view);
// Of the idle capacity, what blocking in the kernel explains: its share k of it, at most
// the thread-time blocked in the kernel while fewer threads were runnable than processors
// (a blocked thread leaves at most one processor idle, and only while one is).
double kernel_blocked_idle_s(const ProfileView& view);
// Ready thread-time while more of the program's threads were runnable than processors.
double oversubscribed_ready_s(const ProfileView& view);

// Threads of one routine and role (ThreadRow::role) that lived at the same time.
struct Team {
  // "N threads ROUTINE", with its role when the routine had several, and its start when
  // another team's would read the same.
  std::string name;
  std::vector<const ThreadRow*> threads;
};
std::vector<Team> teams_of(const ProfileView& view);

// Each rule appends its findings to `out`; `overhead` is intrusion(view). diagnose() calls
// them in this order.
void serial_bottlenecks(const ProfileView& view, double overhead, std::vector<Finding>& out);
void lock_contention(const ProfileView& view, double overhead, std::vector<Finding>& out);
void spin_waste(const ProfileView& view, double overhead, std::vector<Finding>& out);
void load_imbalance(const ProfileView& view, double overhead, std::vector<Finding>& out);
void starvation(const ProfileView& view, double overhead, std::vector<Finding>& out);
void ready_time(const ProfileView& view, double overhead, std::vector<Finding>& out);
void kernel_blocking(const ProfileView& view, double overhead, std::vector<Finding>& out);
void profiler_intrusion(const ProfileView& view, double overhead, std::vector<Finding>& out);
// Oversubscription explains idle processors at other moments than its own (a preempted
// holder stalls its waiters): of the idle capacity, it keeps what the serial bottlenecks and
// blocking in the kernel, which explain their own moments, left (each idle second is one
// property's).
void leave_oversubscription_the_rest(const ProfileView& view, std::vector<Finding>& all);
// Contention on the spin lock whose spinning is the spin waste: one finding, spin waste.
void merge_spinning_contention(const ProfileView& view, std::vector<Finding>& all);

}  // namespace quartz::analysis::diagnosis
