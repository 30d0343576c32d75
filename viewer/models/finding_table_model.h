// Findings (analysis::diagnose, as `quartz diagnose` prints them): the program's, most
// severe first, then the measurement's, each with its severity, confidence, subject,
// evidence and advice. The Comparison view lists the findings that appeared or went away
// with the same model.
#pragma once

#include <memory>
#include <vector>

#include "analysis/diagnosis.h"
#include "viewer/loading/run_data.h"
#include "viewer/models/column_model.h"

namespace quartz::viewer {

class FindingTableModel : public ColumnTableModel {
 public:
  enum ColumnId {
    kFinding,
    kSubject,
    kSeverity,
    kConfidence,
    kEvidence,
    kAdvice,
    kLocation,
    kColumnCount
  };

  // The run's findings of 1% or more, as `quartz diagnose` gives them by default.
  explicit FindingTableModel(std::shared_ptr<const RunData> run, QObject* parent = nullptr);
  // Findings given (those of a comparison).
  explicit FindingTableModel(std::vector<analysis::Finding> findings, QObject* parent = nullptr);

  // KeyRole: the row; KindRole: the analysis::Property.
  const std::vector<analysis::Finding>& findings() const { return findings_; }

 private:
  void set_up();

  std::vector<analysis::Finding> findings_;
};

}  // namespace quartz::viewer
