// Parts the views without a filter bar share (What-ifs, Findings, Scaling, Comparison): a
// label for sentences, and a plain table with one selected row.
#pragma once

class QLabel;
class QTableView;
class QWidget;

namespace quartz::viewer {

QLabel* sentence_label(QWidget* parent);  // wrapped, plain text, selectable
void style_table(QTableView* table);      // whole rows, one at a time, no row numbers

}  // namespace quartz::viewer
