// Item data roles shared by the viewer's models. DisplayRole is text for people;
// NumberRole is the value the analysis library computed (seconds, counts, fractions, or the
// name for text columns), used for sorting, CSV exports and the tests that compare the
// viewer with `quartz report --json`.
#pragma once

#include <Qt>

namespace quartz::viewer {

enum Role : int {
  NumberRole = Qt::UserRole + 1,
  KeyRole,   // what a row stands for: an address, a thread index, or a context index
  KindRole,  // capture::Kind of a procedure or object row
};

}  // namespace quartz::viewer
