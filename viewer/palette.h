// The viewer's colours, shared by charts, table bars and the tests that look for them in
// screenshots.
#pragma once

#include <QColor>

namespace quartz::viewer::palette {

inline const QColor kSelf{0x1f, 0x5f, 0xa8};    // a record's own time
inline const QColor kBehalf{0x9c, 0xc3, 0xea};  // time on its behalf
inline const QColor kBusy{0x2e, 0x8b, 0x57};
inline const QColor kSpinning{0xe6, 0x9f, 0x00};
inline const QColor kBlocked{0xc0, 0x39, 0x2b};
inline const QColor kReady{0x7f, 0x6b, 0xb0};
inline const QColor kQueue{0x8c, 0x56, 0x4b};
inline const QColor kObject{0x9c, 0x2a, 0x1f};  // synchronization objects' names
// What-ifs: the replay of the recorded configuration, the critical path, and predictions
// faster, slower or no different (to 0.1%) than that replay.
inline const QColor kRecorded{0x5f, 0x63, 0x68};
inline const QColor kCriticalPath{0xb4, 0xb8, 0xbd};
inline const QColor kFaster{0x3a, 0x9d, 0x5d};
inline const QColor kSlower{0xd3, 0x6b, 0x4e};
inline const QColor kUnchanged{0x7d, 0x9c, 0xc4};
// The part of a bar between a prediction's lowest and highest figure under the plausible
// scheduler models (its range).
inline const QColor kRange{0xf2, 0xc1, 0x4e};

}  // namespace quartz::viewer::palette
