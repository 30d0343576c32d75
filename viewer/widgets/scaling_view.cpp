#include "viewer/widgets/scaling_view.h"

#include <QApplication>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "analysis/scaling_report.h"
#include "viewer/charts/scaling_charts.h"
#include "viewer/widgets/view_parts.h"

namespace quartz::viewer {

namespace {

// "5..8" or "5, 7, 9": the series' run numbers.
QString run_list(const std::vector<int64_t>& runs) {
  bool consecutive = true;
  for (size_t i = 1; i < runs.size(); ++i) consecutive = consecutive && runs[i] == runs[i - 1] + 1;
  if (consecutive && runs.size() > 2)
    return QStringLiteral("%1..%2").arg(runs.front()).arg(runs.back());
  QStringList out;
  for (int64_t id : runs) out << QString::number(id);
  return out.join(QStringLiteral(", "));
}

}  // namespace

ScalingView::ScalingView(QWidget* parent)
    : ProfileTab(parent),
      pages_(new QStackedWidget(this)),
      message_(sentence_label(this)),
      summary_(sentence_label(this)),
      splitter_(new QSplitter(Qt::Vertical)),
      charts_(new QSplitter(Qt::Horizontal)),
      speedup_(new SpeedupChart),
      region_measure_(new QComboBox),
      regions_chart_(new RegionScalingChart),
      points_(new QTableView),
      regions_(new QTableView) {
  message_->setAlignment(Qt::AlignCenter);
  message_->setMargin(24);
  summary_->setContentsMargins(2, 4, 2, 4);
  region_measure_->addItem(tr("Regions' normalized time"));
  region_measure_->addItem(tr("Regions' capacity lost beyond the base"));
  region_measure_->setToolTip(
      tr("Normalized time per processor count, or the capacity (time × processors) taken "
         "beyond the base's: where the time lost with more processors goes"));
  connect(region_measure_, &QComboBox::currentIndexChanged, this,
          [this](int index) { show_lost(index == 1); });

  auto* region_part = new QWidget;
  auto* region_layout = new QVBoxLayout(region_part);
  region_layout->setContentsMargins(0, 0, 0, 0);
  region_layout->setSpacing(2);
  region_layout->addWidget(region_measure_, 0, Qt::AlignLeft);
  region_layout->addWidget(regions_chart_, 1);
  charts_->addWidget(speedup_);
  charts_->addWidget(region_part);
  charts_->setChildrenCollapsible(false);
  charts_->setSizes({420, 560});

  style_table(points_);
  style_table(regions_);
  regions_->setTextElideMode(Qt::ElideRight);
  regions_->setToolTip(tr("Enter opens the procedure, object or thread in its view (this run's)"));
  connect(regions_, &QAbstractItemView::activated, this, &ScalingView::open_region);
  points_->horizontalHeader()->setStretchLastSection(false);
  auto* tables = new QWidget;  // the points as high as their rows, the regions below
  auto* tables_layout = new QVBoxLayout(tables);
  tables_layout->setContentsMargins(0, 0, 0, 0);
  tables_layout->addWidget(points_);
  tables_layout->addWidget(regions_, 1);
  splitter_->addWidget(charts_);
  splitter_->addWidget(tables);
  splitter_->setChildrenCollapsible(false);
  splitter_->setStretchFactor(0, 1);
  splitter_->setStretchFactor(1, 1);

  auto* series = new QWidget;
  auto* layout = new QVBoxLayout(series);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(summary_);
  layout->addWidget(splitter_, 1);
  pages_->addWidget(message_);
  pages_->addWidget(series);
  set_body(pages_);
  set_run(nullptr);
}

ScalingView::~ScalingView() = default;

void ScalingView::set_run(std::shared_ptr<const RunData> run) {
  run_ = std::move(run);
  series_.reset();
  loaded_ = false;
  if (isVisible()) {
    ensure_loaded();
  } else {
    show_series();
  }
}

void ScalingView::showEvent(QShowEvent* event) {
  ProfileTab::showEvent(event);
  ensure_loaded();
}

void ScalingView::ensure_loaded() {
  if (loaded_) return;
  loaded_ = true;
  QString error;
  if (run_) {
    QApplication::setOverrideCursor(Qt::WaitCursor);
    try {
      if (std::optional<SeriesData> series = load_series(*run_))
        series_ = std::make_shared<const SeriesData>(std::move(*series));
    } catch (const LoadError& e) {
      error = QString::fromStdString(e.what());
    }
    QApplication::restoreOverrideCursor();
  }
  show_series();
  if (!error.isEmpty()) message_->setText(tr("The series could not be read: %1").arg(error));
}

void ScalingView::show_series() {
  auto points = std::make_unique<ScalePointModel>(series_);
  auto regions = std::make_unique<RegionScalingModel>(series_);
  points_->setModel(points.get());
  regions_->setModel(regions.get());
  point_model_ = std::move(points);  // the old models after the tables have let go of them
  region_model_ = std::move(regions);
  connect(regions_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          &ScalingView::selection_changed);
  if (!series_) {
    summary_->clear();
    speedup_->clear_chart(QString());
    regions_chart_->clear_chart(QString());
    const QString how =
        tr("'quartz scale -- PROGRAM [ARGS]' runs a program on 1, 2, … processors (its "
           "affinity), stores the runs as a series and reports how it scales; open any run of "
           "the series here to see it.");
    if (!run_) {
      message_->clear();
    } else if (!run_->id) {
      message_->setText(tr("A capture file is in no scaling series. %1").arg(how));
    } else {
      message_->setText(tr("This run is not part of a scaling series. %1").arg(how));
    }
    pages_->setCurrentIndex(0);
    return;
  }
  const analysis::Scaling& s = series_->scaling;
  QStringList processors;
  for (uint32_t p : s.processors) processors << QString::number(p);
  QString text =
      tr("Scaling of %1: runs %2 of %3, on %4 processors. Speedup and efficiency "
         "are against the runs on %5 (the base); each point is the median of its "
         "runs.")
          .arg(QString::fromStdString(series_->program), run_list(series_->runs),
               QString::fromStdString(run_->source), processors.join(", "), processors.first());
  if (s.non_scalability_known)
    text += tr(" Non-scalability (mean − minimum efficiency above the base): %1.")
                .arg(QString::asprintf("%.2f", s.non_scalability));
  for (const std::string& note : analysis::scaling_notes(s, series_->available))
    text += "\n" + tr("Note: %1.").arg(QString::fromStdString(note));
  summary_->setText(text);
  speedup_->show_series(s);
  regions_chart_->show_series(s, region_measure_->currentIndex() == 1);
  points_->resizeColumnsToContents();
  regions_->resizeColumnsToContents();
  regions_->setColumnWidth(RegionScalingModel::kName,
                           std::clamp(regions_->columnWidth(RegionScalingModel::kName), 160, 360));
  // The points' table as high as its rows.
  const int height = points_->horizontalHeader()->sizeHint().height() +
                     point_model_->rowCount() * points_->verticalHeader()->defaultSectionSize() +
                     2 * points_->frameWidth() + 2;
  points_->setFixedHeight(height);
  pages_->setCurrentIndex(1);
  if (region_model_->rowCount() > 0) regions_->setCurrentIndex(region_model_->index(0, 0));
}

void ScalingView::show_lost(bool lost) {
  if (region_measure_->currentIndex() != int(lost)) return region_measure_->setCurrentIndex(lost);
  if (series_) regions_chart_->show_series(series_->scaling, lost);
}

const analysis::RegionScaling* ScalingView::current_region() const {
  const QModelIndex current = regions_->currentIndex();
  if (!series_ || !current.isValid()) return nullptr;
  return &series_->scaling.regions[size_t(current.row())];
}

void ScalingView::open_region(const QModelIndex& index) {
  if (!run_ || !series_ || !index.isValid()) return;
  const analysis::RegionScaling& r = series_->scaling.regions[size_t(index.row())];
  const analysis::ProfileView& v = run_->view;
  if (r.kind == "procedure") {
    for (const analysis::ProcedureRow& p : v.procedures) {
      if (p.name == r.name) return emit open_procedure(p.address);
    }
  } else if (r.kind == "object") {
    for (const analysis::LockRow& l : v.locks) {
      if (l.name == r.name) return emit open_lock(l.address);
    }
  } else {
    for (const analysis::ThreadRow& t : v.threads) {
      if (t.name == r.name) return emit open_thread(t.index);
    }
  }
}

std::optional<Selection> ScalingView::selection() const {
  if (!run_) return std::nullopt;
  if (const analysis::RegionScaling* r = current_region()) {
    const analysis::ProfileView& v = run_->view;
    if (r->kind == "procedure") {
      for (const analysis::ProcedureRow& p : v.procedures) {
        if (p.name == r->name) return procedure_selection(*run_, p);
      }
    } else if (r->kind == "object") {
      for (const analysis::LockRow& l : v.locks) {
        if (l.name == r->name) return lock_selection(*run_, l);
      }
    } else {
      for (const analysis::ThreadRow& t : v.threads) {
        if (t.name == r->name) return thread_selection(*run_, t);
      }
    }
  }
  return program_selection(*run_);
}

bool ScalingView::select_region(const QString& name) {
  ensure_loaded();
  const int row = region_model_->row_of(name);
  if (row < 0) return false;
  regions_->setCurrentIndex(region_model_->index(row, 0));
  regions_->scrollTo(regions_->currentIndex());
  return true;
}

QVariant ScalingView::current_key() const {
  const QModelIndex current = regions_->currentIndex();
  return current.isValid() ? QVariant(current.row()) : QVariant();
}

bool ScalingView::select_key(const QVariant& key) {
  ensure_loaded();
  if (!key.isValid() || key.toInt() < 0 || key.toInt() >= region_model_->rowCount()) return false;
  regions_->setCurrentIndex(region_model_->index(key.toInt(), 0));
  return true;
}

const QAbstractItemModel* ScalingView::export_model() const {
  return region_model_.get();
}

QWidget* ScalingView::main_widget() const {
  return pages_->currentIndex() == 1 ? static_cast<QWidget*>(regions_) : message_;
}

QString ScalingView::message() const {
  return pages_->currentIndex() == 0 ? message_->text() : QString();
}

QString ScalingView::summary() const {
  return summary_->text();
}

void ScalingView::save_state(QSettings& settings) const {
  settings.setValue(QStringLiteral("splitter"), splitter_->saveState());
  settings.setValue(QStringLiteral("charts"), charts_->saveState());
  settings.setValue(QStringLiteral("lost"), region_measure_->currentIndex() == 1);
}

void ScalingView::restore_state(const QSettings& settings) {
  splitter_->restoreState(settings.value(QStringLiteral("splitter")).toByteArray());
  charts_->restoreState(settings.value(QStringLiteral("charts")).toByteArray());
  region_measure_->setCurrentIndex(settings.value(QStringLiteral("lost")).toBool() ? 1 : 0);
}

}  // namespace quartz::viewer
