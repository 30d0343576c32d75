#include "viewer/widgets/selection.h"

#include <QObject>

#include "viewer/models/format.h"

namespace quartz::viewer {

namespace {

// A time that a wrapped line does not split from its unit.
QString unbroken(double s) {
  return format_seconds(s).replace(QLatin1Char(' '), QChar(0x00a0));
}

QString summary(const RunData& run, double normalized_s, std::optional<double> self_s,
                double processor_s) {
  const double elapsed = run.view.elapsed_s;
  QString text = QObject::tr("%1 normalized").arg(unbroken(normalized_s));
  if (elapsed > 0)
    text += QObject::tr(" (%1 of elapsed)").arg(format_percent(normalized_s / elapsed));
  if (self_s) text += QObject::tr(" · self %1").arg(unbroken(*self_s));
  text += QObject::tr(" · processor %1").arg(unbroken(processor_s));
  return text;
}

Selection of_totals(const RunData& run, const QString& name, const analysis::Totals& totals) {
  Selection s;
  s.name = name;
  s.summary = summary(run, totals.normalized_s, totals.normalized_self_s, totals.processor_s);
  s.histogram = {QObject::tr("Parallelism of %1").arg(name), totals.histogram_s,
                 totals.histogram_self_s};
  s.states = {QObject::tr("States of %1").arg(name), totals};
  return s;
}

const analysis::ProcedureRow* find_procedure(const RunData& run, uint64_t address) {
  for (const analysis::ProcedureRow& p : run.view.procedures) {
    if (p.address == address) return &p;
  }
  return nullptr;
}

const analysis::LockRow* find_lock(const RunData& run, uint64_t address) {
  for (const analysis::LockRow& l : run.view.locks) {
    if (l.address == address) return &l;
  }
  return nullptr;
}

}  // namespace

Selection program_selection(const RunData& run) {
  const analysis::ProfileView& v = run.view;
  Selection s;
  const std::string& program = v.arguments.empty() ? v.program : v.arguments.front();
  s.name = QObject::tr("The whole program (%1)")
               .arg(QString::fromStdString(program.substr(program.rfind('/') + 1)));
  s.summary =
      QObject::tr("elapsed %1 on %2 processors · ").arg(unbroken(v.elapsed_s)).arg(v.processors) +
      summary(run, v.program_totals.normalized_s, std::nullopt, v.program_totals.processor_s);
  // The program's record is all "self": one part, the run's parallelism.
  s.histogram = {QObject::tr("Parallelism of the program"), v.parallelism_s, {}};
  s.states = {QObject::tr("States of the program's threads"), v.program_totals};
  return s;
}

Selection procedure_selection(const RunData& run, const analysis::ProcedureRow& procedure) {
  return of_totals(run, QString::fromStdString(procedure.name), procedure.totals);
}

Selection lock_selection(const RunData& run, const analysis::LockRow& lock) {
  return of_totals(run, QString::fromStdString(lock.name), lock.totals);
}

Selection thread_selection(const RunData& run, const analysis::ThreadRow& thread) {
  return of_totals(
      run, QObject::tr("thread #%1 %2").arg(thread.index).arg(QString::fromStdString(thread.label)),
      thread.totals);
}

Selection context_selection(const RunData& run, int context) {
  const analysis::ContextRow& c = run.view.contexts[size_t(context)];
  const QString name = QString::fromStdString(run.view.name_of(c));
  Selection s;
  if (c.kind == capture::kProcedure) {
    if (const analysis::ProcedureRow* p = find_procedure(run, c.address))
      s = procedure_selection(run, *p);
  } else if (const analysis::LockRow* l = find_lock(run, c.address)) {
    s = lock_selection(run, *l);
  }
  s.name = QObject::tr("%1 in this calling context").arg(name);
  s.summary = summary(run, c.normalized_s, c.normalized_self_s, c.processor_s);
  const auto histogram = run.view.histogram_of(c), self = run.view.histogram_self_of(c);
  s.histogram = {QObject::tr("Parallelism of %1 in this context").arg(name),
                 {histogram.begin(), histogram.end()},
                 {self.begin(), self.end()}};
  s.states.title = QObject::tr("States of %1 (all its contexts)").arg(name);
  return s;
}

}  // namespace quartz::viewer
