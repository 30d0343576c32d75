#include "viewer/models/what_if_details_model.h"

#include <QFont>

#include "analysis/profile_view.h"
#include "viewer/models/format.h"
#include "viewer/models/roles.h"
#include "viewer/models/what_if_text.h"

namespace quartz::viewer {

WhatIfDetailsModel::WhatIfDetailsModel(QObject* parent) : QAbstractItemModel(parent) {}

void WhatIfDetailsModel::set_predictions(const analysis::Predictions* p) {
  beginResetModel();
  nodes_.clear();
  top_.clear();
  if (p) build(*p);
  endResetModel();
}

int WhatIfDetailsModel::add(int parent, RowKind kind, QString name, QVariant value,
                            QString value_text, QString tooltip) {
  Node n;
  n.parent = parent;
  n.kind = kind;
  n.name = std::move(name);
  n.value = std::move(value);
  n.value_text = std::move(value_text);
  n.tooltip = std::move(tooltip);
  const int id = static_cast<int>(nodes_.size());
  std::vector<int>& siblings = parent < 0 ? top_ : nodes_[size_t(parent)].children;
  n.row = static_cast<int>(siblings.size());
  siblings.push_back(id);
  nodes_.push_back(std::move(n));
  return id;
}

void WhatIfDetailsModel::build(const analysis::Predictions& p) {
  auto seconds = [&](int parent, const QString& name, double s, const QString& tooltip = {}) {
    return add(parent, kFigure, name, s, format_seconds(s), tooltip);
  };
  auto count = [&](int parent, const QString& name, uint64_t n, const QString& tooltip = {}) {
    return add(parent, kFigure, name, static_cast<qulonglong>(n), format_count(n), tooltip);
  };

  const std::optional<double> error = change_of(p.recorded_s, p.observed_s);
  const int check = add(-1, kGroup, tr("Model check"), error ? QVariant(*error) : QVariant(),
                        signed_change(p.recorded_s, p.observed_s),
                        tr("The replay of the recorded configuration against the recorded "
                           "elapsed time: the model's error on what it saw"));
  if (p.profiled_s > 0) {
    seconds(check, tr("Recorded elapsed time"), p.observed_s,
            tr("The program's unprofiled run (quartz run --baseline): the replays answer for "
               "it"));
    seconds(check, tr("Profiled elapsed time"), p.profiled_s,
            tr("The recording's own elapsed time, with the profiler"));
  } else {
    seconds(check, tr("Recorded elapsed time"), p.observed_s,
            tr("The recording's elapsed time, to the program's end"));
  }
  count(check, tr("Processors"), p.processors, tr("Processors the recording ran on"));
  seconds(check, tr("Replayed as recorded"), p.recorded_s,
          tr("The replay of the recorded configuration under the most likely scheduler model, "
             "each processor less the sampler's and other processes' shares"));
  if (p.sampler_share > 0) {
    seconds(
        check, tr("Replayed alone"), p.base_s,
        tr("The same without the sampler's %1 and other processes' %2 of each processor: "
           "the reference of every change")
            .arg(format_percent(p.sampler_share), format_percent(analysis::quiet_other_share(p))));
  }
  if (p.models.size() > 1) {
    const int models = add(check, kGroup, tr("Scheduler models"),
                           static_cast<qulonglong>(p.models.size()), format_count(p.models.size()),
                           tr("Each scheduler model's replay of the recorded configuration"));
    for (size_t m = 0; m < p.models.size(); ++m) {
      const analysis::ModelCheck& c = p.models[m];
      QString name = QString::fromStdString(c.name);
      if (m == 0) name += tr(" (most likely)");
      QString tip =
          tr("%1 against the recorded time").arg(signed_change(c.recorded_s, p.observed_s));
      if (c.contradicted) {
        name += tr(" (ruled out by the recording)");
        tip += tr(": more than %1% off, so no range counts it").arg(100 * analysis::kContradicted);
      } else if (c.recorded_only) {
        name += tr(" (the recorded lock order)");
        tip +=
            tr(": the recording's own lock order, which holds only where its threads run as "
               "recorded, so only the recorded configuration's range counts it");
      }
      seconds(models, name, c.recorded_s, tip);
    }
  }

  const analysis::CriticalPath& cp = p.critical_path;
  const int path = seconds(-1, tr("Critical path"), cp.length_s,
                           tr("The replay with every thread on a processor of its own: the "
                              "time no placement can beat"));
  nodes_[size_t(path)].kind = kGroup;
  nodes_[size_t(path)].share = cp.share;
  nodes_[size_t(path)].share_text = format_percent(cp.share);
  seconds(path, tr("On a processor"), cp.cpu_s);
  seconds(path, tr("Off the processor (I/O, sleep)"), cp.delay_s);
  auto list = [&](const QString& name, RowKind kind, const std::vector<analysis::NamedTime>& items,
                  const QString& tooltip) {
    const int group = add(path, kGroup, name, static_cast<qulonglong>(items.size()),
                          items.empty() ? tr("none") : format_count(items.size()), tooltip);
    for (const analysis::NamedTime& item : items) {
      const int n = seconds(group, QString::fromStdString(item.name), item.seconds);
      Node& node = nodes_[size_t(n)];
      node.kind = kind;
      if (const std::optional<double> share = analysis::share(item.seconds, cp.length_s)) {
        node.share = *share;
        node.share_text = format_percent(*share);
      }
    }
  };
  list(tr("Threads"), kThread, cp.threads, tr("Time on the path in each thread"));
  list(tr("Procedures"), kProcedure, cp.procedures,
       tr("Time on the path in each procedure, with what it calls"));
  list(tr("Locks held"), kLock, cp.locks, tr("Time on the path holding each lock"));

  const analysis::TraceQuality& q = p.quality;
  const int trace = count(-1, tr("Trace"), q.events, tr("Synchronization events read"));
  nodes_[size_t(trace)].kind = kGroup;
  nodes_[size_t(trace)].value_text = tr("%1 events").arg(format_count(q.events));
  nodes_[size_t(trace)].open = false;
  count(trace, tr("Records"), q.records, tr("Events and processor-time readings replayed"));
  count(trace, tr("Samples"), q.samples, tr("The sampler's readings of the threads"));
  count(trace, tr("Events dropped"), q.dropped, tr("Lost when a thread's queue was full"));
  count(trace, tr("Bytes"), q.bytes);
  add(trace, kFigure, tr("Complete"), q.complete,
      q.complete ? tr("yes") : tr("no: the run did not finish writing it"));
  count(trace, tr("Waits replayed as delays"), q.unpaired_waits,
        tr("Timed-out waits and waits whose partner was not seen"));
  count(trace, tr("Forced waits"), q.forced_waits,
        tr("In the replay of the recorded configuration"));
  seconds(trace, tr("Overhead removed"), q.compensated_s,
          p.profiled_s > 0 ? tr("Processor time scaled by %1 to the program's unprofiled run "
                                "(quartz run --baseline)")
                                 .arg(q.cpu_scale, 0, 'f', 3)
                           : tr("The calibrated cost of the calls and trace events, taken out of "
                                "processor time (quartz run --baseline measures the real cost)"));
  count(trace, tr("Steps held at most"), q.peak_window, tr("The largest of all replays"));
  seconds(trace, tr("Predicted in"), q.seconds, tr("Time 'quartz predict' took"));
  add(trace, kFigure, tr("Records per second"), q.records_per_second,
      QString::asprintf("%.2f M", q.records_per_second / 1e6),
      tr("Records replayed per second, all replays of a pass"));
}

QModelIndex WhatIfDetailsModel::find(const QString& group, const QString& name) const {
  auto search = [&](const std::vector<int>& ids) -> QModelIndex {
    for (int id : ids) {
      if (nodes_[size_t(id)].name == name)
        return createIndex(nodes_[size_t(id)].row, 0, quintptr(id));
    }
    return {};
  };
  if (group.isEmpty()) return search(top_);
  for (const Node& n : nodes_) {
    if (n.kind == kGroup && n.name == group) {
      const QModelIndex found = search(n.children);
      if (found.isValid()) return found;
    }
  }
  return {};
}

QModelIndex WhatIfDetailsModel::find_on_path(const QString& name) const {
  for (size_t id = 0; id < nodes_.size(); ++id) {
    const Node& n = nodes_[id];
    const bool match = n.kind == kThread
                           ? n.name == name || n.name.section(' ', 1) == name
                           : (n.kind == kProcedure || n.kind == kLock) && n.name == name;
    if (match) return createIndex(n.row, 0, quintptr(id));
  }
  return {};
}

std::vector<QModelIndex> WhatIfDetailsModel::open_groups() const {
  std::vector<QModelIndex> open;
  for (size_t id = 0; id < nodes_.size(); ++id) {
    const Node& n = nodes_[id];
    if (n.kind == kGroup && n.open && !n.children.empty())
      open.push_back(createIndex(n.row, 0, quintptr(id)));
  }
  return open;
}

QModelIndex WhatIfDetailsModel::index(int row, int column, const QModelIndex& parent) const {
  if (row < 0 || column < 0 || column >= kColumnCount) return {};
  const std::vector<int>& ids =
      parent.isValid() ? nodes_[size_t(parent.internalId())].children : top_;
  if (parent.isValid() && parent.column() != 0) return {};
  if (row >= static_cast<int>(ids.size())) return {};
  return createIndex(row, column, quintptr(ids[size_t(row)]));
}

QModelIndex WhatIfDetailsModel::parent(const QModelIndex& child) const {
  if (!child.isValid()) return {};
  const int parent = nodes_[size_t(child.internalId())].parent;
  if (parent < 0) return {};
  return createIndex(nodes_[size_t(parent)].row, 0, quintptr(parent));
}

int WhatIfDetailsModel::rowCount(const QModelIndex& parent) const {
  if (!parent.isValid()) return static_cast<int>(top_.size());
  if (parent.column() != 0) return 0;
  return static_cast<int>(nodes_[size_t(parent.internalId())].children.size());
}

int WhatIfDetailsModel::columnCount(const QModelIndex&) const {
  return kColumnCount;
}

QVariant WhatIfDetailsModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
  const Node& n = nodes_[size_t(index.internalId())];
  const int column = index.column();
  switch (role) {
    case Qt::DisplayRole:
      return column == kName ? n.name : column == kValue ? n.value_text : n.share_text;
    case NumberRole:
      return column == kName ? QVariant(n.name) : column == kValue ? n.value : n.share;
    case KindRole:
      return int(n.kind);
    case Qt::ToolTipRole:
      return n.tooltip.isEmpty() ? QVariant() : QVariant(n.tooltip);
    case Qt::TextAlignmentRole:
      return column == kName ? QVariant(Qt::Alignment(Qt::AlignLeft | Qt::AlignVCenter))
                             : QVariant(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
    case Qt::FontRole:
      if (n.kind == kGroup && n.parent < 0) {
        QFont bold;
        bold.setBold(true);
        return bold;
      }
      return {};
    default:
      return {};
  }
}

QVariant WhatIfDetailsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || section < 0 || section >= kColumnCount) return {};
  static const char* const kHeaders[] = {"Check and critical path", "Value", "Share"};
  static const char* const kTips[] = {
      "", "The prediction's figure",
      "The critical path's share of the recorded elapsed time; an entry's share of the path"};
  if (role == Qt::DisplayRole) return tr(kHeaders[section]);
  if (role == Qt::ToolTipRole) return tr(kTips[section]);
  if (role == Qt::TextAlignmentRole) {
    return section == kName ? QVariant(Qt::Alignment(Qt::AlignLeft | Qt::AlignVCenter))
                            : QVariant(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
  }
  return {};
}

}  // namespace quartz::viewer
