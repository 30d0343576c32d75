// How long quartz-view takes to open a large run and how smoothly its hierarchy scrolls.
// Writes a capture with N calling contexts (default 100,000; synthetic_run.h's large run),
// then times, each over several repetitions (median, and the worst):
//   load   read the capture, symbolize, analyze (profile::open_run + analysis::analyze),
//          and apart: reading alone, analyzing alone
//   window build the models and the window, show it, first paint
//   and in the shown window: expanding the whole tree, one scroll step (a repaint of the
//   tree at a new position, 200 steps top to bottom), a name search, a sort by Self; and the
//   callers and callees of the heaviest procedure (the call graph's models, each summed
//   from the view's rows as it is shown: analysis::call_graph).
// Usage: viewer_open_bench [CONTEXTS]   (runs offscreen unless QT_QPA_PLATFORM is set)
#include <QApplication>
#include <QElapsedTimer>
#include <QScrollBar>
#include <QSettings>
#include <QTemporaryDir>
#include <QTreeView>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "profile/capture.h"
#include "tests/testing/capture_file_fixture.h"
#include "tests/testing/synthetic_run.h"
#include "viewer/main_window.h"
#include "viewer/models/call_graph_model.h"
#include "viewer/models/filter_proxy.h"
#include "viewer/widgets/hierarchy_view.h"

using namespace quartz;
using namespace quartz::viewer;

namespace {

struct Figures {
  std::vector<double> ms;
  void add(const QElapsedTimer& t) { ms.push_back(double(t.nsecsElapsed()) / 1e6); }
  double median() {
    std::sort(ms.begin(), ms.end());
    return ms.empty() ? 0 : ms[ms.size() / 2];
  }
  double worst() const { return ms.empty() ? 0 : *std::max_element(ms.begin(), ms.end()); }
};

void print(const char* what, Figures& f) {
  std::printf("  %-34s median %9.2f ms   worst %9.2f ms   (%zu runs)\n", what, f.median(),
              f.worst(), f.ms.size());
}

}  // namespace

int main(int argc, char** argv) {
  const size_t contexts = argc > 1 ? std::stoul(argv[1]) : 100000;
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  QTemporaryDir dir;
  const std::string capture = dir.filePath("large.qcap").toStdString();
  {
    const std::vector<unsigned char> bytes =
        profile::test_support::CaptureFile::of(test::large_run(contexts)).bytes();
    std::ofstream(capture, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    std::printf("quartz-view with a run of %zu calling contexts (capture %.1f MB)\n", contexts,
                double(bytes.size()) / 1e6);
  }
  QSettings settings(dir.filePath("bench.ini"), QSettings::IniFormat);

  const int kRepetitions =
      qEnvironmentVariableIntValue("REPS") ? qEnvironmentVariableIntValue("REPS") : 5;
  Figures read, analyze, load, window, open, expand, step, search, search_collapsed, sort, callers,
      callees;
  for (int rep = 0; rep < kRepetitions; ++rep) {
    QElapsedTimer total, t;
    t.start();
    const profile::Run parts = profile::read_capture(capture);
    read.add(t);
    t.start();
    analysis::analyze(parts);
    analyze.add(t);
    total.start();
    t.start();
    std::shared_ptr<const RunData> run = load_run(capture, "");
    load.add(t);
    t.start();
    MainWindow w(settings, /*remember_layout=*/false);
    w.resize(1440, 900);
    w.set_run(run);
    w.show();
    w.repaint();
    QApplication::processEvents();
    window.add(t);
    open.add(total);

    QTreeView* tree = w.hierarchy()->tree();
    t.start();
    w.hierarchy()->search("0x5001");
    QApplication::processEvents();
    search_collapsed.add(t);
    w.hierarchy()->search({});
    QApplication::processEvents();
    t.start();
    tree->expandAll();
    QApplication::processEvents();
    expand.add(t);
    QScrollBar* bar = tree->verticalScrollBar();
    for (int i = 0; i <= 200; ++i) {
      t.start();
      bar->setValue(int(int64_t(bar->maximum()) * i / 200));
      tree->viewport()->repaint();
      step.add(t);
    }
    t.start();
    w.hierarchy()->search("0x5001");
    QApplication::processEvents();
    search.add(t);
    w.hierarchy()->search({});
    tree->expandAll();
    QApplication::processEvents();
    t.start();
    tree->sortByColumn(ContextTreeModel::kSelf, Qt::DescendingOrder);
    tree->viewport()->repaint();
    sort.add(t);
    CallGraphModel graph(run, CallGraphModel::kCallers);
    t.start();
    graph.show(run->view.procedures.front().address, false);
    callers.add(t);
    CallGraphModel children(run, CallGraphModel::kCallees);
    t.start();
    children.show(run->view.procedures.front().address, false);
    callees.add(t);
  }
  print("  read the capture", read);
  print("  analyze (analysis::analyze)", analyze);
  print("open: load (read, analyze)", load);
  print("open: window (models, first paint)", window);
  print("open: total", open);
  print("expand all contexts", expand);
  print("scroll step (repaint)", step);
  print("search a name, path open", search_collapsed);
  print("search a name, all expanded", search);
  print("sort by Self", sort);
  print("callers of the heaviest procedure", callers);
  print("callees of the heaviest procedure", callees);
  return 0;
}
