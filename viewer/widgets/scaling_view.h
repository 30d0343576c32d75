// The Scaling view, for a run of a `quartz scale` series: the series' speedup against the
// ideal one, the normalized time (or capacity lost) of the regions that lose the most, the
// points (elapsed, spread, speedup, efficiency) and every region's efficiency at each
// processor count, as `quartz scale --series RUN` reports them. The series is read when the
// view is first shown. For a run in no series it says how to make one.
#pragma once

#include <memory>
#include <optional>

#include "viewer/loading/series_data.h"
#include "viewer/models/region_scaling_model.h"
#include "viewer/models/scale_point_model.h"
#include "viewer/widgets/profile_tab.h"

class QComboBox;
class QLabel;
class QSplitter;
class QStackedWidget;
class QTableView;

namespace quartz::viewer {

class RegionScalingChart;
class SpeedupChart;

class ScalingView : public ProfileTab {
  Q_OBJECT

 public:
  explicit ScalingView(QWidget* parent = nullptr);
  ~ScalingView() override;

  void set_run(std::shared_ptr<const RunData> run) override;
  // The region selected, as this run has it; else the program.
  std::optional<Selection> selection() const override;
  QVariant current_key() const override;  // the region's row
  bool select_key(const QVariant& key) override;
  const QAbstractItemModel* export_model() const override;  // the regions
  QWidget* main_widget() const override;
  void save_state(QSettings& settings) const override;
  void restore_state(const QSettings& settings) override;

  // Reads the run's series, if not yet read (showing the view does).
  void ensure_loaded();
  bool select_region(const QString& name);
  void show_lost(bool lost);  // the regions' chart: capacity lost, or normalized time

  const std::shared_ptr<const SeriesData>& series() const { return series_; }
  QString message() const;  // instead of the series: why there is none, what to do
  QString summary() const;
  SpeedupChart* speedup_chart() const { return speedup_; }
  RegionScalingChart* region_chart() const { return regions_chart_; }
  const ScalePointModel* point_model() const { return point_model_.get(); }
  const RegionScalingModel* region_model() const { return region_model_.get(); }
  QTableView* regions() const { return regions_; }

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  void show_series();
  void open_region(const QModelIndex& index);
  const analysis::RegionScaling* current_region() const;

  bool loaded_ = false;
  std::shared_ptr<const SeriesData> series_;
  std::unique_ptr<ScalePointModel> point_model_;
  std::unique_ptr<RegionScalingModel> region_model_;

  QStackedWidget* pages_;  // the message, or the series
  QLabel* message_;
  QLabel* summary_;
  QSplitter* splitter_;  // the charts above the tables
  QSplitter* charts_;
  SpeedupChart* speedup_;
  QComboBox* region_measure_;
  RegionScalingChart* regions_chart_;
  QTableView* points_;
  QTableView* regions_;
};

}  // namespace quartz::viewer
