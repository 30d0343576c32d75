// The What-ifs view: the predictions stored with a run by `quartz predict`, newest first,
// and for the one selected its model check, critical path, answers (sortable, with the
// --placement of each grouping, Ctrl+C to copy it) and a chart of the predicted times
// against the recorded one. Everything shown is read from the stored predictions. Without
// any (a capture file, a run without a trace, none asked yet) it says what to do.
#pragma once

#include <memory>

#include "viewer/models/what_if_answer_model.h"
#include "viewer/models/what_if_details_model.h"
#include "viewer/models/what_if_list_model.h"
#include "viewer/widgets/profile_tab.h"

class QLabel;
class QSplitter;
class QStackedWidget;
class QTableView;
class QTreeView;

namespace quartz::viewer {

class ProfileFilterProxy;
class WhatIfChart;

class WhatIfView : public ProfileTab {
  Q_OBJECT

 public:
  explicit WhatIfView(QWidget* parent = nullptr);
  ~WhatIfView() override;

  void set_run(std::shared_ptr<const RunData> run) override;
  // A procedure, lock or thread selected on the critical path; else the program.
  std::optional<Selection> selection() const override;
  QVariant current_key() const override;  // the entry's index in RunData::what_ifs
  bool select_key(const QVariant& key) override;
  const QAbstractItemModel* export_model() const override;  // the answers, as shown
  QWidget* main_widget() const override;
  void save_state(QSettings& settings) const override;
  void restore_state(const QSettings& settings) override;

  // Selects, on the selected entry's critical path, the procedure, lock or thread (by name,
  // or "INDEX NAME" as the path lists threads) named `name`. False when there is none.
  bool select_on_path(const QString& name);

  // The option the selected answer's grouping gives `quartz run`, as Ctrl+C copies it:
  // --placement "0,1|2,3" (empty when the answer is not a grouping).
  QString placement_option() const;
  bool copy_placement();  // to the clipboard; false when there is none

  // What is shown: the sentence instead of everything (empty when entries are shown), the
  // sentence instead of the selected entry (its error), and the parts.
  QString message() const;
  QString entry_message() const;
  QString banner() const;
  QTableView* entries() const { return entries_; }
  QTableView* answers() const { return answers_; }
  QTreeView* details() const { return details_; }
  WhatIfChart* chart() const { return chart_; }
  const WhatIfListModel* list_model() const { return list_.get(); }
  const WhatIfAnswerModel* answer_model() const { return answer_model_; }
  const WhatIfDetailsModel* details_model() const { return details_model_; }
  // The entry shown, or -1.
  int current_entry() const { return shown_; }

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void show_entry(int entry);
  void answers_menu(const QPoint& position);

  std::unique_ptr<WhatIfListModel> list_;
  WhatIfAnswerModel* answer_model_;
  ProfileFilterProxy* answer_proxy_;
  WhatIfDetailsModel* details_model_;
  int shown_ = -1;
  bool columns_fitted_ = false;  // the answers' columns fitted to a first prediction

  QStackedWidget* pages_;  // the message, or the entries
  QLabel* message_;
  QSplitter* splitter_;  // entries above the selected one
  QTableView* entries_;
  QStackedWidget* entry_pages_;  // the entry's error, or its figures
  QLabel* entry_message_;
  QLabel* banner_;
  QLabel* warning_;
  QSplitter* parts_;              // the answers above the body
  QSplitter* body_;               // the chart beside the check and critical path
  QStackedWidget* answer_pages_;  // the answers, or why there are none
  QLabel* no_answers_;
  QTableView* answers_;
  WhatIfChart* chart_;
  QTreeView* details_;
};

}  // namespace quartz::viewer
