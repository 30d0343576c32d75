// The Findings view: the run's findings as `quartz diagnose` gives them (the program's by
// severity, then those about the measurement), and the selected one's evidence and advice
// in full below. Enter opens its subject: a procedure, an object, or the busiest thread of
// an imbalanced routine; the Details panel shows the subject.
#pragma once

#include <memory>

#include "viewer/models/finding_table_model.h"
#include "viewer/widgets/profile_tab.h"

class QLabel;
class QSplitter;
class QTableView;

namespace quartz::viewer {

class FindingsView : public ProfileTab {
  Q_OBJECT

 public:
  explicit FindingsView(QWidget* parent = nullptr);
  ~FindingsView() override;

  void set_run(std::shared_ptr<const RunData> run) override;
  std::optional<Selection> selection() const override;  // the subject, else the program
  QVariant current_key() const override;                // the finding's row
  bool select_key(const QVariant& key) override;
  const QAbstractItemModel* export_model() const override;
  QWidget* main_widget() const override;
  void save_state(QSettings& settings) const override;
  void restore_state(const QSettings& settings) override;

  // Selects the first finding whose subject is `name`. False when there is none.
  bool select_subject(const QString& name);
  // Opens the subject of the finding in `row`, as Enter does. False when it has no view.
  bool open_subject(int row);

  QTableView* table() const { return table_; }
  const FindingTableModel* model() const { return model_.get(); }
  QString summary() const;  // the sentence above the table
  QString detail() const;   // the selected finding in full

 private:
  void show_detail();

  std::unique_ptr<FindingTableModel> model_;
  QLabel* summary_;
  QSplitter* splitter_;
  QTableView* table_;
  QLabel* detail_;
};

}  // namespace quartz::viewer
