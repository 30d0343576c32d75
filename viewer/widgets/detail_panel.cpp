#include "viewer/widgets/detail_panel.h"

#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>

#include "viewer/charts/histogram_chart.h"
#include "viewer/charts/runnable_chart.h"
#include "viewer/charts/state_chart.h"

namespace quartz::viewer {

DetailPanel::DetailPanel(QWidget* parent)
    : QWidget(parent),
      name_(new QLabel(this)),
      summary_(new QLabel(this)),
      splitter_(new QSplitter(Qt::Vertical, this)),
      histogram_(new HistogramChart),
      states_(new StateChart),
      runnable_(new RunnableChart) {
  QFont bold = name_->font();
  bold.setBold(true);
  bold.setPointSizeF(bold.pointSizeF() * 1.15);
  name_->setFont(bold);
  name_->setTextFormat(Qt::PlainText);
  summary_->setTextFormat(Qt::PlainText);
  summary_->setWordWrap(true);
  for (QLabel* label : {name_, summary_}) label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  splitter_->setObjectName(QStringLiteral("details_splitter"));
  splitter_->setChildrenCollapsible(false);
  splitter_->addWidget(histogram_);
  splitter_->addWidget(states_);
  splitter_->addWidget(runnable_);
  // Heights at which each chart's axes and legend stay readable.
  histogram_->setMinimumHeight(220);
  states_->setMinimumHeight(170);
  runnable_->setMinimumHeight(200);
  splitter_->setStretchFactor(0, 3);
  splitter_->setStretchFactor(1, 2);
  splitter_->setStretchFactor(2, 2);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);
  layout->addWidget(name_);
  layout->addWidget(summary_);
  layout->addWidget(splitter_, 1);
  clear();
}

void DetailPanel::show_selection(const Selection& selection) {
  name_->setText(selection.name);
  summary_->setText(selection.summary);
  histogram_->show_histogram(selection.histogram);
  states_->show_states(selection.states);
  StateBreakdown runnable = selection.states;
  runnable.title = tr("Runnable threads while in each state");
  runnable_->show_runnable(runnable, processors_);
  for (QWidget* chart : {static_cast<QWidget*>(histogram_), static_cast<QWidget*>(states_),
                         static_cast<QWidget*>(runnable_)}) {
    chart->setVisible(true);
  }
}

void DetailPanel::clear() {
  name_->setText(tr("Nothing selected"));
  summary_->setText(tr("Open a run (Ctrl+O), then select a row in any view."));
  for (QWidget* chart : {static_cast<QWidget*>(histogram_), static_cast<QWidget*>(states_),
                         static_cast<QWidget*>(runnable_)}) {
    chart->setVisible(false);
  }
}

}  // namespace quartz::viewer
