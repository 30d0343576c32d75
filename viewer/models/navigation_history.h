// Back and forward over the jumps between views (Enter on a row opens it in another view),
// as a browser's history: a jump forgets the places ahead.
#pragma once

#include <QVariant>
#include <optional>
#include <vector>

namespace quartz::viewer {

// A view (MainWindow::View) and its selected row's key (ProfileTab::current_key).
struct Place {
  int view = 0;
  QVariant key;
};

class NavigationHistory {
 public:
  void clear();
  void jump_from(const Place& here);  // a jump is leaving `here`
  // The place to go to from `here`, which the other direction then leads back to; none at
  // the end of the history.
  std::optional<Place> back(const Place& here);
  std::optional<Place> forward(const Place& here);

 private:
  std::vector<Place> back_, forward_;
};

}  // namespace quartz::viewer
