#include "profile/capture_cursor.h"

#include <iterator>
#include <sstream>

#include "format/capture_format.h"

namespace quartz::profile {

const char* section_name(uint32_t type) {
  static const char* const kNames[] = {"unknown",
                                       "run",
                                       "modules",
                                       "threads",
                                       "objects",
                                       "procedures",
                                       "contexts",
                                       "edges",
                                       "program",
                                       "thread routines",
                                       "object frames",
                                       "thread starvation",
                                       "context starvation",
                                       "context taken",
                                       "unseen objects",
                                       "amended run",
                                       "amended threads",
                                       "amended objects",
                                       "amended procedures",
                                       "amended contexts",
                                       "amended program",
                                       "amended thread routines",
                                       "context waited"};
  static_assert(std::size(kNames) == capture::kSectionTypeCount + 1);
  return type <= capture::kSectionTypeCount ? kNames[type] : "unknown";
}

void Cursor::fail_at(size_t at, const std::string& what) const {
  std::ostringstream message;
  message << name_ << ": offset " << base_ + at << ": " << what << " (in the " << section_
          << " section)";
  throw CaptureError(message.str());
}

}  // namespace quartz::profile
