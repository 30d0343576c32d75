#include "analysis/text_format.h"

#include <sstream>

#include "analysis/cxx_names.h"

namespace quartz::analysis::text {

size_t columns(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string name_at(const std::string& name, const std::string& location, size_t width) {
  if (location.empty()) return fit_name(name, width);
  const std::string where = "  [" + location + "]";
  constexpr size_t kNameAtLeast = 30;  // before the location gives way
  if (name.size() + where.size() <= width) return name + where;
  if (width >= kNameAtLeast + where.size()) return fit_name(name, width - where.size()) + where;
  const std::string fitted = fit_name(name, std::min(width, kNameAtLeast));
  if (fitted.size() + where.size() <= width) return fitted + where;
  return fitted;
}

std::string object_name_in(const std::string& name, size_t width) {
  if (name.size() <= width) return name;
  size_t tail = name.rfind(" (");
  if (tail == std::string::npos || tail == 0) tail = name.rfind(" #");
  constexpr size_t kHeadAtLeast = 8;
  if (tail == std::string::npos || tail == 0 || name.size() - tail + kHeadAtLeast > width) {
    return fit_name(name, width);
  }
  return fit_name(name.substr(0, tail), width - (name.size() - tail)) + name.substr(tail);
}

namespace {

bool continues_character(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// Where to break `line` so that what comes before fits in `width` columns: its last space
// after its first word's start that allows it, else (one word wider than that) inside the
// word. What comes before always holds some of the text: the line shortens every time.
size_t break_at(const std::string& line, size_t width) {
  const size_t text_at = line.find_first_not_of(' ');
  size_t cut = std::string::npos, seen = 0;
  for (size_t i = 0; i < line.size() && seen <= width; ++i) {
    if (continues_character(line[i])) continue;
    if (line[i] == ' ' && i > text_at) cut = i;
    ++seen;
  }
  if (cut != std::string::npos) return cut;
  cut = 0;
  for (size_t kept = 0; cut < line.size() && kept < width; ++cut) {
    kept += !continues_character(line[cut]);
  }
  while (cut < line.size() && continues_character(line[cut])) ++cut;
  return cut;
}

}  // namespace

std::string wrap_lines(const std::string& text, size_t width) {
  std::string out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const size_t text_at = line.find_first_not_of(' ');
    const size_t indent = text_at == std::string::npos ? 0 : std::min(text_at, width / 2);
    const std::string lead(indent + 4, ' ');
    bool rest_left = true;
    while (columns(line) > width) {
      const size_t cut = break_at(line, width);
      const size_t head_end = line.find_last_not_of(' ', cut == 0 ? 0 : cut - 1);
      out += line.substr(0, head_end == std::string::npos ? cut : head_end + 1) + "\n";
      const size_t rest = line.find_first_not_of(' ', cut);
      if (rest == std::string::npos) {
        rest_left = false;
        break;
      }
      line = lead + line.substr(rest);
    }
    if (rest_left) out += line + "\n";
  }
  if (!text.empty() && text.back() != '\n' && !out.empty()) out.pop_back();
  return out;
}

}  // namespace quartz::analysis::text
