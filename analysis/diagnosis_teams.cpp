// Teams: the threads of a routine by creation, a team ending where the next thread starts
// after all of them ended. A program that makes a team per phase (minimap2's kt_for) has
// several; their imbalance is each team's, never one phase's threads against another's,
// nor a worker's against the I/O thread its routine also started (another role).
#include <cctype>
#include <map>

#include "analysis/diagnosis_properties.h"
#include "analysis/text_format.h"

namespace quartz::analysis {

std::string routine_of(const std::string& thread_name) {
  std::string name = thread_name;
  while (!name.empty() &&
         (std::isdigit(static_cast<unsigned char>(name.back())) || name.back() == '_' ||
          name.back() == '-' || name.back() == '#' || name.back() == ' ')) {
    name.pop_back();
  }
  return name.empty() ? thread_name : name;
}

namespace diagnosis {
namespace {

// `threads` (one routine and role) split into teams, appended to `teams`.
void add_teams(const std::string& routine, std::vector<const ThreadRow*>& threads,
               std::vector<Team>& teams) {
  std::stable_sort(threads.begin(), threads.end(),
                   [](const ThreadRow* a, const ThreadRow* b) { return a->start_s < b->start_s; });
  const size_t first = teams.size();
  double end_s = 0;
  for (const ThreadRow* t : threads) {
    if (teams.size() == first || t->start_s >= end_s) teams.push_back(Team{routine, {}});
    teams.back().threads.push_back(t);
    end_s = std::max(end_s, t->start_s + t->lifetime_s);
  }
  for (size_t i = first; i < teams.size(); ++i) {
    teams[i].name = std::to_string(teams[i].threads.size()) + " threads " + routine;
  }
}

}  // namespace

std::vector<Team> teams_of(const ProfileView& view) {
  std::map<std::string, std::map<uint64_t, std::vector<const ThreadRow*>>> routines;
  for (const ThreadRow& t : view.threads) {
    if (t.index != 0) routines[routine_of(t.name)][t.role_address].push_back(&t);
  }
  std::vector<Team> teams;
  for (auto& [routine_name, roles] : routines) {
    for (auto& [role, threads] : roles) {
      const std::string routine = roles.size() > 1 && !threads[0]->role.empty()
                                      ? routine_name + " (" + threads[0]->role + ")"
                                      : routine_name;
      add_teams(routine, threads, teams);
    }
  }
  // Teams that would read alike (one routine's per phase; two static functions of one
  // name) say when they started.
  std::map<std::string, int> named;
  for (const Team& team : teams) ++named[team.name];
  for (Team& team : teams) {
    if (named[team.name] > 1) team.name += " from " + text::seconds(team.threads[0]->start_s);
  }
  return teams;
}

}  // namespace diagnosis
}  // namespace quartz::analysis
