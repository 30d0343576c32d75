// Test helper: how many pixels of a rendered window or chart have exactly one colour (the
// viewer's palette colours are drawn flat, so a chart's bars can be counted).
#pragma once

#include <QColor>
#include <QImage>

namespace quartz::viewer::test {

inline int count_color(const QImage& image, const QColor& color) {
  int n = 0;
  for (int y = 0; y < image.height(); ++y) {
    for (int x = 0; x < image.width(); ++x) n += image.pixelColor(x, y) == color;
  }
  return n;
}

}  // namespace quartz::viewer::test
