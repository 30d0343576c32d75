// The grouping syntax (format/placement_syntax.h) and its two offline users: the groupings
// of `quartz predict --group` (parse_grouping) and, through the same parser, what
// `quartz run --placement` accepts. The cases marked "disagreed" were parsed differently by
// the three parsers that came before this one.
#include "format/placement_syntax.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/grouping.h"

namespace quartz::format {
namespace {

using Kind = PlacementMemberKind;

// The members' text points into `spec`: pass literals.
std::vector<PlacementMember> members_of(std::string_view spec) {
  std::vector<PlacementMember> out;
  const PlacementSyntax syntax =
      parse_placement(spec, [&](const PlacementMember& m) { out.push_back(m); });
  EXPECT_EQ(syntax.error, PlacementSyntaxError::none) << spec;
  return out;
}

PlacementSyntaxError error_of(const std::string& spec) {
  return check_placement(spec).error;
}

// Usable at compile time, hence without allocation or exceptions (the runtime's needs).
static_assert(check_placement("0,1|2,worker*|*").groups == 3);
static_assert(check_placement("0,1|2,worker*|*").members == 5);
static_assert(check_placement("0||1").error == PlacementSyntaxError::empty_member);

TEST(PlacementSyntax, MembersInTheOrderWritten) {
  const auto m = members_of("0,main| worker* ,*|4294967295");
  ASSERT_EQ(m.size(), 5u);
  EXPECT_EQ(m[0].kind, Kind::index);
  EXPECT_EQ(m[0].index, 0u);
  EXPECT_EQ(m[0].group, 0u);
  EXPECT_EQ(m[1].kind, Kind::name);
  EXPECT_EQ(m[1].text, "main");
  EXPECT_EQ(m[2].kind, Kind::prefix);
  EXPECT_EQ(m[2].text, "worker*");
  EXPECT_EQ(m[2].group, 1u);
  EXPECT_EQ(m[3].kind, Kind::rest);
  EXPECT_EQ(m[4].kind, Kind::index);
  EXPECT_EQ(m[4].index, 4294967295u);
  EXPECT_EQ(m[4].group, 2u);
}

TEST(PlacementSyntax, EmptyMembersAndGroupsAreErrors) {
  for (const char* spec : {"", " ", "0,", ",0", "0||1", "0|", "|0", "0, ,1", "0| |1"}) {
    EXPECT_EQ(error_of(spec), PlacementSyntaxError::empty_member) << "'" << spec << "'";
  }
}

// Disagreed: the runtime dropped every space ("wor ker" named "worker"), the other two
// only those around a member.
TEST(PlacementSyntax, SpacesInsideAMemberArePartOfIt) {
  const auto m = members_of(" 0 , wor ker |1");
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].kind, Kind::index);
  EXPECT_EQ(m[1].kind, Kind::name);
  EXPECT_EQ(m[1].text, "wor ker");
  EXPECT_TRUE(names_thread(m[1], 7, "wor ker"));
  EXPECT_FALSE(names_thread(m[1], 7, "worker"));
}

// Disagreed: the CLI counted the spaces around a member, the runtime none at all, the
// predictor had no limit.
TEST(PlacementSyntax, MemberLengthIsCountedWithoutTheSpacesAroundIt) {
  const std::string longest(kPlacementMemberBytes, 'a');
  EXPECT_EQ(error_of("   " + longest + "   |0"), PlacementSyntaxError::none);
  const std::string spec = "0|" + longest + "b";
  const PlacementSyntax too_long = check_placement(spec);
  EXPECT_EQ(too_long.error, PlacementSyntaxError::member_too_long);
  EXPECT_EQ(too_long.where, longest + "b");
}

// Disagreed: only the runtime had a limit.
TEST(PlacementSyntax, AtMostMaxMembers) {
  std::string spec = "0";
  for (size_t i = 1; i < kPlacementMaxMembers; ++i) spec += "," + std::to_string(i);
  EXPECT_EQ(check_placement(spec).members, kPlacementMaxMembers);
  EXPECT_EQ(error_of(spec + "|x"), PlacementSyntaxError::too_many_members);
}

// Disagreed: the runtime wrapped around, the predictor threw std::out_of_range.
TEST(PlacementSyntax, IndexBeyond32BitsIsAnError) {
  EXPECT_EQ(error_of("4294967296"), PlacementSyntaxError::index_too_large);
  EXPECT_EQ(error_of("0|99999999999999999999999"), PlacementSyntaxError::index_too_large);
}

// Disagreed: the runtime took the first '*', the CLI accepted both, the predictor refused.
TEST(PlacementSyntax, RestWrittenTwiceIsAnError) {
  EXPECT_EQ(error_of("*|*"), PlacementSyntaxError::rest_twice);
  EXPECT_EQ(error_of("0,*,*"), PlacementSyntaxError::rest_twice);
}

TEST(PlacementSyntax, WhatAMemberNames) {
  const auto m = members_of("3|client*|main|*|a*b|12*");
  EXPECT_TRUE(names_thread(m[0], 3, "anything"));
  EXPECT_FALSE(names_thread(m[0], 4, "3"));
  EXPECT_TRUE(names_thread(m[1], 0, "client"));
  EXPECT_TRUE(names_thread(m[1], 0, "client_12"));
  EXPECT_FALSE(names_thread(m[1], 0, "clien"));
  EXPECT_TRUE(names_thread(m[2], 9, "main"));
  EXPECT_FALSE(names_thread(m[2], 0, "main2"));
  EXPECT_FALSE(names_thread(m[2], 0, ""));   // a thread not named yet
  EXPECT_FALSE(names_thread(m[3], 0, "x"));  // '*' takes what no other member names
  EXPECT_EQ(m[4].kind, Kind::name);          // a '*' inside a name is an ordinary character
  EXPECT_TRUE(names_thread(m[4], 0, "a*b"));
  EXPECT_FALSE(names_thread(m[4], 0, "axb"));
  EXPECT_EQ(m[5].kind, Kind::prefix);  // digits and a '*': a name prefix, not an index
  EXPECT_TRUE(names_thread(m[5], 0, "123"));
  EXPECT_FALSE(names_thread(m[5], 12, "x"));
}

}  // namespace
}  // namespace quartz::format

namespace quartz::analysis {
namespace {

profile::Run run_with(const std::vector<std::string>& names) {
  profile::Run run;
  for (uint32_t i = 0; i < names.size(); ++i) {
    profile::ThreadInfo t;
    t.index = i;
    t.name = names[i];
    run.threads.push_back(t);
  }
  return run;
}

std::string error_of(const std::string& spec, const profile::Run& run) {
  try {
    parse_grouping(spec, run);
  } catch (const GroupingError& e) {
    return e.what();
  }
  return "";
}

TEST(ParseGrouping, NamesIndicesPrefixesAndRest) {
  const profile::Run run = run_with({"main", "worker_0", "worker_1", "log"});
  const Grouping g = parse_grouping(" main , 3 | worker* ", run);
  EXPECT_EQ(g.groups, 2u);
  EXPECT_EQ(g.group_of, (std::vector<uint32_t>{0, 1, 1, 0}));
  EXPECT_EQ(parse_grouping("worker_1|*", run).group_of, (std::vector<uint32_t>{1, 1, 0, 1}));
  EXPECT_EQ(parse_grouping("main,0|*", run).group_of, (std::vector<uint32_t>{0, 1, 1, 1}));
}

TEST(ParseGrouping, WhatDependsOnTheThreadsIsCheckedHere) {
  const profile::Run run = run_with({"main", "worker_0", "worker_1"});
  EXPECT_NE(error_of("0,worker*|worker_1", run).find("is in two groups"), std::string::npos);
  EXPECT_NE(error_of("0,1,2|nobody", run).find("'nobody' names no thread"), std::string::npos);
  EXPECT_NE(error_of("0|1", run).find("are in no group"), std::string::npos);
}

TEST(ParseGrouping, SyntaxErrorsAreGroupingErrors) {
  const profile::Run run = run_with({"main"});
  EXPECT_NE(error_of("0||*", run).find("an empty group or member"), std::string::npos);
  EXPECT_NE(error_of("*|*", run).find("'*' written twice"), std::string::npos);
  EXPECT_NE(error_of("0|99999999999", run).find("2^32"), std::string::npos);  // not out_of_range
}

}  // namespace
}  // namespace quartz::analysis
