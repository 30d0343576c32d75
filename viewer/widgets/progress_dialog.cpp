#include "viewer/widgets/progress_dialog.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QProgressDialog>
#include <QTimer>
#include <chrono>
#include <climits>
#include <future>
#include <mutex>
#include <string>

namespace quartz::viewer {

namespace {

constexpr int kShownAfterMs = 1000;  // as the command line's (cli/progress.h)
constexpr int kTickMs = 100;

// The step the loading thread last told, read by the window's thread.
struct Step {
  std::mutex mutex;
  std::string text;
};

bool ready(const std::future<std::shared_ptr<const RunData>>& loaded) {
  return loaded.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

}  // namespace

std::shared_ptr<const RunData> load_with_progress(QWidget* parent, const QString& title,
                                                  const RunLoader& load) {
  auto step = std::make_shared<Step>();
  std::future<std::shared_ptr<const RunData>> loaded = std::async(std::launch::async, [load, step] {
    return load([step](const std::string& text) {
      const std::lock_guard<std::mutex> lock(step->mutex);
      step->text = text;
    });
  });
  if (!ready(loaded)) {
    QProgressDialog dialog(parent);
    dialog.setWindowTitle(title);
    dialog.setRange(0, 0);  // a busy bar: the steps' lengths are not known ahead
    dialog.setCancelButton(nullptr);
    dialog.setMinimumDuration(INT_MAX);  // shown by the tick below, not by its own timer
    dialog.setWindowModality(Qt::ApplicationModal);
    dialog.reset();
    QElapsedTimer clock;
    clock.start();
    QEventLoop loop;
    QTimer tick;
    QObject::connect(&tick, &QTimer::timeout, &loop, [&] {
      if (ready(loaded)) {
        loop.quit();
        return;
      }
      if (clock.elapsed() < kShownAfterMs) return;
      QString text;
      {
        const std::lock_guard<std::mutex> lock(step->mutex);
        text = QString::fromStdString(step->text);
      }
      dialog.setLabelText(QStringLiteral("%1, %2 s").arg(text).arg(clock.elapsed() / 1000));
      if (!dialog.isVisible()) dialog.show();
    });
    tick.start(kTickMs);
    loop.exec(QEventLoop::ExcludeUserInputEvents);
  }
  return loaded.get();
}

}  // namespace quartz::viewer
