// A run opened or analysed again while the window stays drawn: the work runs on a thread of
// its own and, when it takes more than a second (a run of millions of contexts takes
// seconds), a dialog says the step under way and the time so far.
#pragma once

#include <QString>
#include <functional>
#include <memory>

#include "viewer/loading/run_data.h"

class QWidget;

namespace quartz::viewer {

using RunLoader = std::function<std::shared_ptr<const RunData>(const LoadProgress&)>;

// Runs `load` and returns what it returned, or throws what it threw. The event loop goes on
// meanwhile, without user input (nothing can be asked of a window whose run is changing).
// `title`: the dialog's ("Opening run.qcap").
std::shared_ptr<const RunData> load_with_progress(QWidget* parent, const QString& title,
                                                  const RunLoader& load);

}  // namespace quartz::viewer
