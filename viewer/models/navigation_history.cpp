#include "viewer/models/navigation_history.h"

namespace quartz::viewer {

namespace {

// The last place of `from`, taken out; `here` goes on `to`.
std::optional<Place> move_last(std::vector<Place>& from, std::vector<Place>& to,
                               const Place& here) {
  if (from.empty()) return std::nullopt;
  to.push_back(here);
  const Place place = from.back();
  from.pop_back();
  return place;
}

}  // namespace

void NavigationHistory::clear() {
  back_.clear();
  forward_.clear();
}

void NavigationHistory::jump_from(const Place& here) {
  back_.push_back(here);
  forward_.clear();
}

std::optional<Place> NavigationHistory::back(const Place& here) {
  return move_last(back_, forward_, here);
}

std::optional<Place> NavigationHistory::forward(const Place& here) {
  return move_last(forward_, back_, here);
}

}  // namespace quartz::viewer
