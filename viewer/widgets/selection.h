// What the detail panel shows for the row selected in any view: its parallelism histogram
// and its state breakdown. Built from the analysis rows; nothing is computed here.
#pragma once

#include <QString>
#include <optional>

#include "viewer/charts/histogram_chart.h"
#include "viewer/charts/state_chart.h"
#include "viewer/loading/run_data.h"

namespace quartz::viewer {

struct Selection {
  QString name;
  QString summary;  // normalized time, share of elapsed, self, processor
  Histogram histogram;
  StateBreakdown states;
};

Selection program_selection(const RunData& run);
Selection procedure_selection(const RunData& run, const analysis::ProcedureRow& procedure);
Selection lock_selection(const RunData& run, const analysis::LockRow& lock);
Selection thread_selection(const RunData& run, const analysis::ThreadRow& thread);
// A calling context: its own histogram; the states of its procedure or object,
// over all of its contexts (the capture keeps states per procedure, not per context).
Selection context_selection(const RunData& run, int context);

}  // namespace quartz::viewer
