// The search and filter line above each table: a name search and a threshold that hides
// rows below a share of the elapsed time.
#pragma once

#include <QWidget>

class QDoubleSpinBox;
class QLineEdit;
class QTimer;

namespace quartz::viewer {

class FilterBar : public QWidget {
  Q_OBJECT

 public:
  explicit FilterBar(QWidget* parent = nullptr);

  QLineEdit* search_field() const { return search_; }
  QDoubleSpinBox* minimum_field() const { return minimum_; }
  void focus_search();
  void clear();  // no search, no threshold

 signals:
  void search_changed(const QString& text);
  void minimum_changed(double fraction_of_elapsed);
  void done();  // Escape or Enter in the search field: back to the table

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  QLineEdit* search_;
  QDoubleSpinBox* minimum_;
  QTimer* debounce_;  // a tree of 100,000 contexts is not filtered at every keystroke
};

}  // namespace quartz::viewer
