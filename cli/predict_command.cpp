// `quartz predict`: what-if predictions from a traced run, stored with it.
#include <iostream>
#include <sstream>

#include "analysis/prediction.h"
#include "analysis/prediction_json.h"
#include "analysis/prediction_report.h"
#include "analysis/text_format.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "profile/open_run.h"
#include "profile/store.h"
#include "profile/trace_reader.h"

namespace quartz::cli {

int predict_command(const std::vector<std::string>& args) {
  Arguments a(args, "predict");
  std::string store_path = default_store();
  analysis::PredictionRequest request;
  bool json = false;
  bool save = true;
  std::string which, question;
  while (!a.done()) {
    std::string text;
    uint64_t n = 0;
    const std::string flag = a.peek();
    if (a.value("--store", &store_path)) continue;
    if (a.flag("--json")) {
      json = true;
      continue;
    }
    if (a.flag("--no-save")) {
      save = false;
      continue;
    }
    if (a.flag("--allow-drops")) {
      request.allow_drops = true;
      continue;
    }
    if (a.value("--models", &text)) {
      try {
        request.models = analysis::scheduler_models_named(text);
      } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("predict: --models: ") + e.what());
      }
      continue;
    }
    if (a.number("--best", 1, 1000, &n)) {
      request.best = n;
      continue;
    }
    if (a.value("--group", &text)) {
      request.groupings.push_back(text);
    } else if (a.number("--cores", 1, 1024, &n)) {
      request.search_cores.push_back(static_cast<uint32_t>(n));
      text = std::to_string(n);
    } else if (a.value("--zero", &text)) {
      request.zero.push_back(text);
    } else if (a.value("--migrate", &text)) {
      request.migrate.push_back(text);
    } else if (a.value("--speedup", &text)) {
      const auto equals = text.rfind('=');
      double percent = 0;
      try {
        size_t used = 0;
        if (equals == std::string::npos) throw std::invalid_argument(text);
        percent = std::stod(text.substr(equals + 1), &used);
        if (used != text.size() - equals - 1) throw std::invalid_argument(text);
      } catch (const std::exception&) {
        throw UsageError("predict: --speedup wants PROC=PCT (e.g. solve=30), not '" + text + "'");
      }
      request.speedup.emplace_back(text.substr(0, equals), percent);
    } else {
      if (a.peek().rfind("-", 0) == 0) a.unknown();
      if (!which.empty()) throw UsageError("predict: more than one run given");
      which = a.next();
      continue;
    }
    question += (question.empty() ? "" : " ") + flag.substr(0, flag.find('=')) + " " + text;
  }

  profile::OpenedRun opened = find_named_run("predict", which, store_path);
  analysis::TraceOpener open;
  try {
    open = profile::trace_opener(opened, store_path);
  } catch (const profile::OpenRunError& e) {
    throw UsageError(std::string("predict: ") + e.what());
  }
  // The wake-up latency is read from the trace while the run is (a third of a second for
  // 100,000 objects' records, that the replays waited for).
  const analysis::WakeLatencyPass wake(open);
  load_named_run("predict", opened, store_path);
  analysis::Predictions predictions;
  try {
    predictions = analysis::predict(opened.run, open, request, wake);
  } catch (const analysis::PredictionError& e) {
    throw UsageError(std::string("predict: ") + e.what());
  }
  const std::string text = analysis::predictions_json(predictions);
  if (save && opened.id) {
    try {
      profile::Store(store_path)
          .add_prediction(*opened.id, question.empty() ? "(critical path)" : question, text);
    } catch (const profile::ReadOnlyStoreError& e) {
      // What was asked is answered; only the keeping of it failed.
      std::cerr << "quartz: predict: not stored with the run: " << e.what() << "\n";
    }
  }
  if (json) {
    std::cout << text << "\n";
  } else {
    std::ostringstream printed;  // within kColumns at the end
    analysis::print_predictions(printed, predictions, opened.label);
    std::cout << analysis::text::wrap_lines(printed.str());
  }
  keep_until_exit(std::move(opened));
  return 0;
}

}  // namespace quartz::cli
