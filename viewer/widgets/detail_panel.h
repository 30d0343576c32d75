// The panel beside every view: the selected row's name and figures, its parallelism
// histogram, its state breakdown and the distribution of runnable threads in each state.
#pragma once

#include <QWidget>

#include "viewer/widgets/selection.h"

class QLabel;
class QSplitter;

namespace quartz::viewer {

class HistogramChart;
class RunnableChart;
class StateChart;

class DetailPanel : public QWidget {
  Q_OBJECT

 public:
  explicit DetailPanel(QWidget* parent = nullptr);

  void set_processors(uint32_t processors) { processors_ = processors; }
  void show_selection(const Selection& selection);
  void clear();

  HistogramChart* histogram() const { return histogram_; }
  StateChart* states() const { return states_; }
  RunnableChart* runnable() const { return runnable_; }
  QSplitter* splitter() const { return splitter_; }

 private:
  QLabel* name_;
  QLabel* summary_;
  QSplitter* splitter_;
  HistogramChart* histogram_;
  StateChart* states_;
  RunnableChart* runnable_;
  uint32_t processors_ = 1;
};

}  // namespace quartz::viewer
