#include "viewer/widgets/profile_tab.h"

#include <QVBoxLayout>

#include "viewer/widgets/filter_bar.h"

namespace quartz::viewer {

ProfileTab::ProfileTab(QWidget* parent, bool filtered) : QWidget(parent) {
  if (!filtered) return;
  filter_ = new FilterBar(this);
  connect(filter_, &FilterBar::search_changed, this,
          [this](const QString& text) { filter_search(text); });
  connect(filter_, &FilterBar::minimum_changed, this,
          [this](double fraction) { filter_minimum(run_ ? fraction * run_->view.elapsed_s : 0); });
  connect(filter_, &FilterBar::done, this,
          [this] { main_widget()->setFocus(Qt::OtherFocusReason); });
}

void ProfileTab::set_body(QWidget* body) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  if (filter_) layout->addWidget(filter_);
  layout->addWidget(body, 1);
}

void ProfileTab::focus_search() {
  if (filter_) filter_->focus_search();
}

}  // namespace quartz::viewer
