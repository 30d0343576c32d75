// The Comparison view: this run (B) against another run of its store (A, chosen with the
// run picker), as `quartz compare A B` compares them: the elapsed time's change with its
// noise bound and what the bound is made of, the procedures and locks whose time changed
// beyond noise (in tables, and as bars of A and B), and the findings that appeared or went away.
// Enter on a procedure or lock opens it in its view (this run's); opening another run keeps
// comparing with A.
#pragma once

#include <memory>
#include <optional>

#include "viewer/loading/run_comparison.h"
#include "viewer/models/change_table_model.h"
#include "viewer/models/finding_table_model.h"
#include "viewer/widgets/profile_tab.h"

class QLabel;
class QPushButton;
class QSplitter;
class QStackedWidget;
class QTableView;

namespace quartz::viewer {

class ComparisonChart;

class ComparisonView : public ProfileTab {
  Q_OBJECT

 public:
  explicit ComparisonView(QWidget* parent = nullptr);
  ~ComparisonView() override;

  void set_run(std::shared_ptr<const RunData> run) override;
  // The procedure or lock selected (in this run), else the program.
  std::optional<Selection> selection() const override;
  QVariant current_key() const override;  // the run compared with
  bool select_key(const QVariant& key) override;
  const QAbstractItemModel* export_model() const override;  // the procedures' changes
  QWidget* main_widget() const override;
  void save_state(QSettings& settings) const override;
  void restore_state(const QSettings& settings) override;

  // Compares with run `id` of this run's store (as the picker does). False, with the reason
  // shown, when it cannot be read.
  bool compare_with(int64_t id);
  void compare_with(std::shared_ptr<const RunData> a);
  void choose_run();  // the run picker

  const std::optional<RunComparison>& comparison() const { return comparison_; }
  QString message() const;  // instead of the comparison: why there is none, what to do
  QString elapsed() const;
  QString noise() const;
  QTableView* procedures() const { return procedures_; }
  QTableView* locks() const { return locks_; }
  ComparisonChart* chart() const { return chart_; }
  const ChangeTableModel* procedure_model() const { return procedure_model_.get(); }
  const ChangeTableModel* lock_model() const { return lock_model_.get(); }
  const FindingTableModel* appeared_model() const { return appeared_model_.get(); }
  const FindingTableModel* went_away_model() const { return went_away_model_.get(); }

 private:
  void show_comparison();
  void show_message(const QString& text);
  void open_change(const ChangeTableModel* model, const QModelIndex& index, bool lock);

  std::shared_ptr<const RunData> a_;
  std::optional<RunComparison> comparison_;
  std::unique_ptr<ChangeTableModel> procedure_model_, lock_model_;
  std::unique_ptr<FindingTableModel> appeared_model_, went_away_model_;

  QLabel* runs_;
  QPushButton* choose_;
  QStackedWidget* pages_;  // the message, or the comparison
  QLabel* message_;
  QLabel* elapsed_;
  QLabel* noise_;
  QSplitter* beside_;    // the tables beside the chart
  QSplitter* splitter_;  // the tables, one above the other
  QLabel* procedures_title_;
  QTableView* procedures_;
  QLabel* locks_title_;
  QTableView* locks_;
  QLabel* appeared_title_;
  QTableView* appeared_;
  QLabel* went_away_title_;
  QTableView* went_away_;
  ComparisonChart* chart_;
};

}  // namespace quartz::viewer
