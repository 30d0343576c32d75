#include "viewer/models/what_if_answer_model.h"

#include "analysis/text_format.h"
#include "viewer/models/format.h"
#include "viewer/models/what_if_text.h"

namespace quartz::viewer {

namespace {

QString text(const std::string& s) {
  return QString::fromStdString(s);
}

QString search_note(const analysis::GroupingSearch& s) {
  return s.exhaustive ? QObject::tr("all %1 tried").arg(format_count(s.candidates))
                      : QObject::tr("local search: %1 tried in %2 rounds")
                            .arg(format_count(s.candidates))
                            .arg(s.rounds);
}

// What the ranges say of each of several groupings (analysis::best_grouping).
std::vector<QString> verdicts(const std::vector<analysis::GroupingPrediction>& groupings) {
  std::vector<QString> out(groupings.size());
  if (groupings.size() < 2) return out;
  const analysis::BestGrouping b = analysis::best_grouping(groupings);
  out[b.best] = b.tied.empty()
                    ? QObject::tr("best: its range lies below the others'")
                    : QObject::tr("fastest most likely, not told apart from %1").arg(b.tied.size());
  for (size_t i : b.tied) out[i] = QObject::tr("not told apart from the fastest");
  return out;
}

QString joined(const QString& a, const QString& b) {
  return a.isEmpty() ? b : b.isEmpty() ? a : a + "; " + b;
}

// A range too wide to decide: the models at its ends and the parts they differ in, and
// the changed procedure's sampled time, as `quartz predict` says it (analysis::wide_reason).
QString wide_note(const analysis::Predictions& p, double likely_s,
                  const analysis::PredictionRange& r) {
  const std::string why = analysis::wide_reason(likely_s, r, p.models);
  if (why.empty()) return {};
  return QObject::tr("wide: %1").arg(text(why));
}

}  // namespace

std::vector<Answer> answers_of(const analysis::Predictions& p) {
  std::vector<Answer> out;
  const std::vector<QString> asked = verdicts(p.groupings);
  for (size_t i = 0; i < p.groupings.size(); ++i) {
    const analysis::GroupingPrediction& g = p.groupings[i];
    out.push_back({Answer::kGrouping, "--group " + text(g.spec), text(g.names), g.predicted_s,
                   g.range, text(g.spec), joined(asked[i], text(analysis::pool_note(g)))});
  }
  for (const analysis::GroupingSearch& s : p.searches) {
    const QString cores = QString::number(s.cores);
    const std::vector<QString> found = verdicts(s.best);
    for (size_t i = 0; i < s.best.size(); ++i) {
      const analysis::GroupingPrediction& g = s.best[i];
      out.push_back({Answer::kBest,
                     QStringLiteral("--cores %1 #%2").arg(cores, QString::number(i + 1)),
                     text(g.names), g.predicted_s, g.range, text(g.spec),
                     joined(joined(found[i], text(analysis::pool_note(g))), search_note(s))});
    }
    out.push_back({Answer::kShared, QStringLiteral("--cores %1 shared").arg(cores),
                   QObject::tr("all threads sharing the %1 processor%2")
                       .arg(cores, QString(s.cores == 1 ? "" : "s")),
                   s.shared_s, s.shared_range, QString(),
                   QObject::tr("as the OS would schedule them")});
  }
  for (const analysis::ProcedurePrediction& c : p.procedures) {
    const QString procedure = text(c.procedure);
    Answer a{Answer::kProcedure, {}, {}, c.predicted_s, c.range, QString(), QString()};
    if (c.change == "zero") {
      a.question = "--zero " + procedure;
      a.answer = QObject::tr("%1 taking no time").arg(procedure);
    } else if (c.change == "speedup") {
      a.question = QStringLiteral("--speedup %1=%2").arg(procedure, QString::number(c.percent));
      a.answer = QObject::tr("%1 %2% faster").arg(procedure, QString::number(c.percent));
    } else if (c.change == "migrate") {
      a.question = "--migrate " + procedure;
      a.answer = QObject::tr("%1 moved to the thread it wakes").arg(procedure);
      if (c.unreceived_s > 0)
        a.note = QObject::tr("%1 of it woke nobody").arg(format_seconds(c.unreceived_s));
    } else {  // a change this viewer does not know: shown as stored
      a.question = "--" + text(c.change) + " " + procedure;
      a.answer = procedure;
    }
    out.push_back(std::move(a));
  }
  for (Answer& a : out) a.note = joined(a.note, wide_note(p, a.predicted_s, a.range));
  return out;
}

WhatIfAnswerModel::WhatIfAnswerModel(QObject* parent) : ColumnTableModel(parent) {
  auto a = [this](int row) -> const Answer& { return answers_[size_t(row)]; };
  set_columns({
      {"Question", "The question as 'quartz predict' takes it (#n: the n-th best grouping)",
       Format::Text, [=](int row) { return a(row).question; }},
      {"Range",
       "Predicted elapsed time under the plausible scheduler models, lowest to highest (sorted "
       "by the lowest)",
       Format::Seconds, [=](int row) { return a(row).range.low_s; },
       [=](int row) {
         return QString::fromStdString(
             analysis::text::seconds_range(a(row).range.low_s, a(row).range.high_s));
       }},
      {"Width", "How far apart the models are: the range's width over the most likely figure",
       Format::Percent,
       [=](int row) { return analysis::relative_width(a(row).predicted_s, a(row).range); }},
      {"Most likely", "Predicted elapsed time under the most likely scheduler model",
       Format::Seconds, [=](int row) { return a(row).predicted_s; }},
      {"vs recorded",
       "Change against the recorded configuration replayed alone, without the sampler and "
       "other processes (the model's own reference)",
       Format::Percent,
       [=, this](int row) -> QVariant {
         const std::optional<double> change = change_of(a(row).predicted_s, base_s_);
         return change ? QVariant(*change) : QVariant();
       },
       [=, this](int row) { return signed_change(a(row).predicted_s, base_s_); }},
      {"Answer", "The groups of threads (each group shares one processor), or the change",
       Format::Text, [=](int row) { return a(row).answer; }},
      {"--placement",
       "The grouping as 'quartz run --placement' takes it (Ctrl+C copies the option)", Format::Text,
       [=](int row) { return a(row).placement; }},
      {"Note",
       "Whether the ranges tell the best grouping apart; how a search went; moved time that "
       "woke nobody",
       Format::Text, [=](int row) { return a(row).note; }},
  });
  set_key([](int row) { return row; });
  // The note whole under the answer: a wide range's reason does not fit its column.
  set_row_role([=](int row, int role) -> QVariant {
    if (role != Qt::ToolTipRole) return {};
    const Answer& answer = a(row);
    return answer.note.isEmpty() ? answer.answer : answer.answer + "\n" + answer.note;
  });
}

void WhatIfAnswerModel::set_predictions(const analysis::Predictions* p) {
  std::vector<Answer> answers = p ? answers_of(*p) : std::vector<Answer>();
  reset_rows(static_cast<int>(answers.size()), [&] {
    answers_ = std::move(answers);
    base_s_ = p ? p->base_s : 0;
  });
}

}  // namespace quartz::viewer
