#include "viewer/models/finding_subject.h"

namespace quartz::viewer {

namespace {

FindingSubject procedure_named(const analysis::ProfileView& view, const std::string& name) {
  for (const analysis::ProcedureRow& p : view.procedures) {
    if (p.name == name) return {FindingSubject::kProcedure, p.address};
  }
  return {};
}

FindingSubject lock_named(const analysis::ProfileView& view, const std::string& name) {
  for (const analysis::LockRow& l : view.locks) {
    if (l.name == name) return {FindingSubject::kLock, l.address};
  }
  return {};
}

// "4 threads worker": the busiest thread of that routine (the main thread is none's).
FindingSubject busiest_thread_of(const analysis::ProfileView& view, const std::string& subject) {
  const size_t space = subject.find(" threads ");
  if (space == std::string::npos) return {};
  const std::string routine = subject.substr(space + 9);
  const analysis::ThreadRow* busiest = nullptr;
  for (const analysis::ThreadRow& t : view.threads) {
    if (t.index != 0 && analysis::routine_of(t.name) == routine &&
        (!busiest || t.busy_s > busiest->busy_s)) {
      busiest = &t;
    }
  }
  return busiest ? FindingSubject{FindingSubject::kThread, busiest->index} : FindingSubject{};
}

// Starvation's thread: the one that was running for most of it, among those of that name.
FindingSubject starved_thread_named(const analysis::ProfileView& view, const std::string& name) {
  const analysis::ThreadRow* ran = nullptr;
  auto charged = [](const analysis::ThreadRow& t) {
    return t.starved_startup_s + t.starved_later_s;
  };
  for (const analysis::ThreadRow& t : view.threads) {
    if (t.name == name && (!ran || charged(t) > charged(*ran))) ran = &t;
  }
  return ran ? FindingSubject{FindingSubject::kThread, ran->index} : FindingSubject{};
}

}  // namespace

FindingSubject subject_of(const analysis::ProfileView& view, const analysis::Finding& finding) {
  using analysis::Property;
  switch (finding.property) {
    case Property::serial_bottleneck:
    case Property::kernel_blocking:  // the procedure that waited longest, or the program
      return procedure_named(view, finding.subject);
    case Property::lock_contention:
    case Property::spin_waste:  // the lock spun on most, or the program
      return lock_named(view, finding.subject);
    case Property::load_imbalance:
      return busiest_thread_of(view, finding.subject);
    case Property::starvation:  // the thread running for most of it, or the program
      return starved_thread_named(view, finding.subject);
    default:
      return {};
  }
}

}  // namespace quartz::viewer
