// Task pools: threads that wait on one condition variable for work another thread feeds
// it, woken one at a time (a std::thread pool on a queue, consumers of one buffer; not a
// phase all wait for, broadcast to, nor partners taking turns, which signal each other).
// Whichever of them is free takes the next item, so a pool's work follows its queue, not
// the thread that ran it in the recording. The replay keeps each step on its recorded
// thread: split over processors of unequal load, a pool's threads would each keep the
// tasks they ran, and the worker alone on its processor would idle while the others queue
// (tests/e2e/programs/thread_pool.cpp, 24-34% slow; pbzip2, zstd). A grouping that splits a
// pool is replayed with the pool's groups merged as well, its threads free on their
// processors together, as a pool balances itself.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/grouping.h"
#include "analysis/simulation.h"
#include "analysis/trace_steps.h"
#include "profile/run.h"

namespace quartz::analysis {

struct TaskPool {
  std::vector<uint32_t> threads;  // indices, in order
};

// The pools among `conditions` (ReplayPass::signalled_conditions): of each condition
// signalled more often than broadcast to, its waiters and the threads of their start routine
// that took its mutex (workers that always found work queued), when two or more and fed by
// a thread not among them; each pool once.
std::vector<TaskPool> task_pools(const profile::Run& run,
                                 std::span<const StepAssembler::ConditionUse> conditions);

// `grouping` with the groups that hold threads of one pool merged (their processors
// together, SimulationConfig::cores), or nothing when it splits no pool.
std::optional<SimulationConfig> pooled_grouping(const Grouping& grouping,
                                                std::span<const TaskPool> pools);

// The pools `grouping` splits, said as "pool_worker 1,2,3" (a name they share, then their
// indices), separated by "; ".
std::string split_pools(const Grouping& grouping, std::span<const TaskPool> pools,
                        const profile::Run& run);

}  // namespace quartz::analysis
