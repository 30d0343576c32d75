#include "profile/capture_amendments.h"

#include "format/capture_format.h"
#include "profile/capture_items.h"
#include "profile/capture_sections.h"

namespace quartz::profile {

using capture::SectionType;

namespace {

// The layout of an amendment whose full records have R1' bins, its first field.
ItemLayout amended_layout(Cursor& c) {
  const size_t at = c.position();
  const uint32_t bins = c.u32();
  if (bins < 1 || bins > 64) c.fail_at(at, "runnable-thread bins out of range");
  return {true, bins};
}

}  // namespace

Amendments::Amendments(Run& run) : run_(run) {
  run_.info[capture::run_keys::kCountsElapsedNs] = run_.text(capture::run_keys::kElapsedNs);
}

template <typename Key>
template <typename Item>
Item& Amendments::Index<Key>::find_or_add(std::vector<Item>& items, Key key, Key Item::*field) {
  if (!built_) {
    for (size_t i = 0; i < items.size(); ++i) at_.emplace(items[i].*field, i);
    built_ = true;
  }
  auto [at, added] = at_.emplace(key, items.size());
  if (added) items.emplace_back().*field = key;
  return items[at->second];
}

void Amendments::apply(Cursor& c, uint32_t type) {
  switch (static_cast<SectionType>(type)) {
    case SectionType::amended_run:
      read_run_keys(c, run_);
      break;
    case SectionType::amended_threads: {
      const ItemLayout layout = amended_layout(c);
      const uint32_t n = c.count(64);
      for (uint32_t i = 0; i < n; ++i) {
        const uint32_t index = c.u32();
        read_thread(c, run_, layout, threads_.find_or_add(run_.threads, index, &ThreadInfo::index));
      }
      break;
    }
    case SectionType::amended_thread_routines:
      read_thread_routines(c, run_);
      break;
    case SectionType::amended_objects: {
      const ItemLayout layout = amended_layout(c);
      const uint32_t n = c.count(60);
      for (uint32_t i = 0; i < n; ++i) {
        const uint64_t address = c.u64();
        ObjectInfo& o = objects_.find_or_add(run_.objects, address, &ObjectInfo::address);
        // Added (the capture's objects have ids from 1): the next in the order of use.
        if (o.id == 0) o.id = static_cast<uint32_t>(run_.objects.size());
        read_object(c, run_, layout, o);
      }
      break;
    }
    case SectionType::amended_procedures: {
      const ItemLayout layout = amended_layout(c);
      const uint32_t n = c.count(8);
      for (uint32_t i = 0; i < n; ++i) {
        const uint64_t address = c.u64();
        read_procedure(c, run_, layout,
                       procedures_.find_or_add(run_.procedures, address, &ProcedureInfo::address));
      }
      break;
    }
    case SectionType::amended_contexts: {
      const ItemLayout layout{true, run_.runnable_bins};
      const uint32_t n =
          c.count(capture::context_record_size(run_.processors) * sizeof(double) + 36);
      for (uint32_t i = 0; i < n; ++i) read_context(c, run_, layout);
      break;
    }
    case SectionType::amended_program:
      run_.program = read_record(c, run_, amended_layout(c).runnable_bins);
      break;
    default:
      return;  // capture_sections.h
  }
  c.expect_end();
}

}  // namespace quartz::profile
