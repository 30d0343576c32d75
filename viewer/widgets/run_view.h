// The run's details: command, machine topology, P, sampling period, samples, torn rate,
// dilation removed. The detail panel shows the program's parallelism beside it.
#pragma once

#include <QTableView>
#include <memory>

#include "viewer/models/run_details_model.h"
#include "viewer/widgets/profile_tab.h"

namespace quartz::viewer {

class RunView : public ProfileTab {
  Q_OBJECT

 public:
  explicit RunView(QWidget* parent = nullptr);

  void set_run(std::shared_ptr<const RunData> run) override;
  std::optional<Selection> selection() const override;
  QVariant current_key() const override { return {}; }
  bool select_key(const QVariant&) override { return true; }
  const QAbstractItemModel* export_model() const override { return model_.get(); }
  QWidget* main_widget() const override;
  void save_state(QSettings& settings) const override;
  void restore_state(const QSettings& settings) override;

 private:
  std::unique_ptr<RunDetailsModel> model_;
  QTableView* table_;
};

}  // namespace quartz::viewer
