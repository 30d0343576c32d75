// The grouping syntax, "0,1|2,worker*|*": one definition for `quartz run --placement`
// (QUARTZ_PLACEMENT, parsed in the program's process by runtime/placement.cpp), its check
// in the CLI, and the groupings of `quartz predict --group` (analysis/grouping.cpp).
// Header-only and dependency-free: it never allocates or throws, so the runtime can use it.
//
// The rules:
// - Groups are separated by '|', members of a group by ','. Group i is the i-th group
//   written, counted from 0.
// - Spaces around a member are ignored; spaces inside it are part of it.
// - A member is a thread index (decimal digits only, below 2^32), "*" (every thread no
//   other group names), a name prefix ("worker*": a trailing '*' matches any ending; a '*'
//   elsewhere is an ordinary character) or a thread name (anything else).
// - Errors: an empty member (so also an empty group, or an empty spec), a member longer
//   than kPlacementMemberBytes, more than kPlacementMaxMembers members, an index of 2^32 or
//   more, "*" written twice.
// - A thread is in the group of the first member that names it, "*" last. What depends on
//   the threads is not syntax and is checked where they are known: offline, a thread named
//   by two groups, a member that names no thread and a thread in no group are errors; at
//   run time, where threads come and go, the first group that names a thread wins and
//   threads no group names are left alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace quartz::format {

// A thread's comm name is at most 15 bytes; longer members could never name one.
inline constexpr size_t kPlacementMemberBytes = 31;
inline constexpr size_t kPlacementMaxMembers = 256;

enum class PlacementMemberKind : uint8_t { index, name, prefix, rest };

struct PlacementMember {
  PlacementMemberKind kind = PlacementMemberKind::name;
  std::string_view text;  // as written, spaces around it removed (a prefix keeps its '*')
  uint32_t index = 0;     // kind == index
  uint32_t group = 0;
};

enum class PlacementSyntaxError : uint8_t {
  none,
  empty_member,
  member_too_long,
  too_many_members,
  index_too_large,
  rest_twice,
};

static_assert(kPlacementMemberBytes == 31 && kPlacementMaxMembers == 256, "describe() quotes them");

constexpr const char* describe(PlacementSyntaxError error) {
  switch (error) {
    case PlacementSyntaxError::none:
      return "no error";
    case PlacementSyntaxError::empty_member:
      return "an empty group or member";
    case PlacementSyntaxError::member_too_long:
      return "a member longer than 31 characters";
    case PlacementSyntaxError::too_many_members:
      return "more than 256 members";
    case PlacementSyntaxError::index_too_large:
      return "a thread index of 2^32 or more";
    case PlacementSyntaxError::rest_twice:
      return "'*' written twice";
  }
  return "an unknown error";
}

struct PlacementSyntax {
  PlacementSyntaxError error = PlacementSyntaxError::none;
  std::string_view where;  // the member at fault (empty for an empty one)
  uint32_t groups = 0;     // when valid
  uint32_t members = 0;
};

namespace placement_detail {

// Only data(), size() and operator[] of string_view: its checked members call libstdc++'s
// out-of-line throw functions, which the runtime does not link.
constexpr std::string_view trimmed(const char* begin, const char* end) {
  while (begin < end && *begin == ' ') ++begin;
  while (end > begin && end[-1] == ' ') --end;
  return std::string_view(begin, static_cast<size_t>(end - begin));
}

constexpr PlacementSyntaxError classify(std::string_view text, PlacementMember& member) {
  if (text.size() == 0) return PlacementSyntaxError::empty_member;
  if (text.size() > kPlacementMemberBytes) return PlacementSyntaxError::member_too_long;
  member.text = text;
  if (text.size() == 1 && text[0] == '*') {
    member.kind = PlacementMemberKind::rest;
    return PlacementSyntaxError::none;
  }
  bool digits = true;
  uint64_t index = 0;
  for (size_t i = 0; i < text.size() && digits; ++i) {
    digits = text[i] >= '0' && text[i] <= '9';
    if (digits) index = index * 10 + static_cast<uint64_t>(text[i] - '0');
    if (index > UINT32_MAX) return PlacementSyntaxError::index_too_large;
  }
  if (digits) {
    member.kind = PlacementMemberKind::index;
    member.index = static_cast<uint32_t>(index);
  } else {
    member.kind =
        text[text.size() - 1] == '*' ? PlacementMemberKind::prefix : PlacementMemberKind::name;
  }
  return PlacementSyntaxError::none;
}

template <class OnMember>
constexpr PlacementSyntax scan(std::string_view spec, OnMember& on_member) {
  PlacementSyntax result;
  uint32_t group = 0;
  bool rest_seen = false;
  const char* const end = spec.data() + spec.size();
  const char* begin = spec.data();
  for (const char* c = begin;; ++c) {
    if (c != end && *c != ',' && *c != '|') continue;
    PlacementMember member;
    member.group = group;
    const std::string_view text = trimmed(begin, c);
    PlacementSyntaxError error = classify(text, member);
    if (error == PlacementSyntaxError::none && result.members == kPlacementMaxMembers) {
      error = PlacementSyntaxError::too_many_members;
    }
    if (error == PlacementSyntaxError::none && member.kind == PlacementMemberKind::rest) {
      if (rest_seen) error = PlacementSyntaxError::rest_twice;
      rest_seen = true;
    }
    if (error != PlacementSyntaxError::none) {
      result.error = error;
      result.where = text;
      return result;
    }
    on_member(static_cast<const PlacementMember&>(member));
    ++result.members;
    if (c == end) break;
    if (*c == '|') ++group;
    begin = c + 1;
  }
  result.groups = group + 1;
  return result;
}

}  // namespace placement_detail

// Checks `spec` and, only when it is valid, calls on_member(const PlacementMember&) for
// each member in the order written. The members' text points into `spec`.
template <class OnMember>
constexpr PlacementSyntax parse_placement(std::string_view spec, OnMember&& on_member) {
  auto ignore = [](const PlacementMember&) {};
  PlacementSyntax result = placement_detail::scan(spec, ignore);
  if (result.error == PlacementSyntaxError::none) placement_detail::scan(spec, on_member);
  return result;
}

constexpr PlacementSyntax check_placement(std::string_view spec) {
  return parse_placement(spec, [](const PlacementMember&) {});
}

// Whether `member` names the thread with this index and name ("*" names none here: it
// takes the threads no other member names). `name` may be empty (not known yet).
constexpr bool names_thread(const PlacementMember& member, uint32_t index, std::string_view name) {
  switch (member.kind) {
    case PlacementMemberKind::index:
      return member.index == index;
    case PlacementMemberKind::rest:
      return false;
    case PlacementMemberKind::name:
    case PlacementMemberKind::prefix: {
      const size_t length =
          member.text.size() - (member.kind == PlacementMemberKind::prefix ? 1 : 0);
      if (member.kind == PlacementMemberKind::name ? name.size() != length : name.size() < length) {
        return false;
      }
      for (size_t i = 0; i < length; ++i) {
        if (name[i] != member.text[i]) return false;
      }
      return true;
    }
  }
  return false;
}

}  // namespace quartz::format
