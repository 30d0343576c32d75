#include "viewer/widgets/filter_bar.h"

#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QTimer>

namespace quartz::viewer {

FilterBar::FilterBar(QWidget* parent)
    : QWidget(parent),
      search_(new QLineEdit(this)),
      minimum_(new QDoubleSpinBox(this)),
      debounce_(new QTimer(this)) {
  search_->setPlaceholderText(tr("Search names (Ctrl+F)"));
  search_->setClearButtonEnabled(true);
  search_->installEventFilter(this);
  minimum_->setRange(0, 100);
  minimum_->setDecimals(1);
  minimum_->setSingleStep(0.5);
  minimum_->setSuffix(tr(" % of elapsed"));
  minimum_->setToolTip(
      tr("Hide rows whose normalized time is below this share of the elapsed time"));
  auto* label = new QLabel(tr("Hide below"), this);
  label->setBuddy(minimum_);
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(search_, 1);
  layout->addWidget(label);
  layout->addWidget(minimum_);
  debounce_->setSingleShot(true);
  debounce_->setInterval(150);
  connect(search_, &QLineEdit::textChanged, debounce_, qOverload<>(&QTimer::start));
  connect(debounce_, &QTimer::timeout, this, [this] { emit search_changed(search_->text()); });
  connect(minimum_, &QDoubleSpinBox::valueChanged, this,
          [this](double percent) { emit minimum_changed(percent / 100); });
}

void FilterBar::focus_search() {
  search_->setFocus(Qt::ShortcutFocusReason);
  search_->selectAll();
}

void FilterBar::clear() {
  search_->clear();
  minimum_->setValue(0);
  debounce_->stop();
  emit search_changed(QString());
}

bool FilterBar::eventFilter(QObject* watched, QEvent* event) {
  if (watched == search_ && event->type() == QEvent::KeyPress) {
    const int key = static_cast<QKeyEvent*>(event)->key();
    if (key == Qt::Key_Escape || key == Qt::Key_Return || key == Qt::Key_Enter ||
        key == Qt::Key_Down) {
      if (key == Qt::Key_Escape) search_->clear();
      debounce_->stop();
      emit search_changed(search_->text());
      emit done();
      return true;
    }
  }
  return QWidget::eventFilter(watched, event);
}

}  // namespace quartz::viewer
