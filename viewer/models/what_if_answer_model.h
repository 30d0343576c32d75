// The answers of one stored prediction, one row each, in the order `quartz predict` prints
// them: the groupings asked (--group), the best groupings of each search (--cores K) and
// all threads sharing its K processors, and the procedure changes (--zero, --speedup,
// --migrate). Each with its range under the plausible scheduler models and the range's
// width first, then the most likely model's elapsed time, its change against the replay of
// the recorded configuration, and for groupings the spec `quartz run --placement` takes
// and whether the ranges tell the best apart (analysis::best_grouping).
#pragma once

#include <QString>
#include <optional>
#include <vector>

#include "analysis/prediction.h"
#include "viewer/models/column_model.h"

namespace quartz::viewer {

struct Answer {
  enum Kind { kGrouping, kBest, kShared, kProcedure };
  Kind kind = kGrouping;
  QString question;        // "--group 0,1|2,3", "--cores 2 #1", "--cores 2 shared", "--zero solve"
  QString answer;          // the groups' thread names, or "solve taking no time"
  double predicted_s = 0;  // under the most likely model
  analysis::PredictionRange range;  // under the plausible models
  QString placement;                // the grouping as --placement takes it; empty for the others
  QString note;  // best or not told apart; how a search went; moved time that woke nobody
};

// The rows of the view, its chart and its CSV export: every answer of `p`.
std::vector<Answer> answers_of(const analysis::Predictions& p);

class WhatIfAnswerModel : public ColumnTableModel {
 public:
  // The range and its width first, as `quartz predict` prints them.
  enum ColumnId {
    kQuestion,
    kRange,
    kWidth,
    kPredicted,
    kChange,
    kAnswer,
    kPlacement,
    kNote,
    kColumnCount
  };

  explicit WhatIfAnswerModel(QObject* parent = nullptr);

  // Shows the answers of `p` (a copy is kept), or none.
  void set_predictions(const analysis::Predictions* p);
  const std::vector<Answer>& answers() const { return answers_; }

 private:
  std::vector<Answer> answers_;
  double base_s_ = 0;
};

}  // namespace quartz::viewer
