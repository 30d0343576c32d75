// A capture's own sections (capture_format.h, run to unseen_objects), each read into the
// run as it comes: items added in order, and the later sections' figures put on the
// threads, objects and contexts listed before them. Internal to the capture reader.
#pragma once

#include <cstdint>

#include "profile/capture_cursor.h"
#include "profile/run.h"

namespace quartz::profile {

// Reads the section of `type` (not an amendment: nothing is read for those) whose payload
// `c` reads, to its end.
void read_section(Cursor& c, Run& run, uint32_t type);

// A thread_routines section (or its amendment): whether the program named each thread
// listed before, and its first procedures.
void read_thread_routines(Cursor& c, Run& run);

// A capture from before the thread_routines section: a thread that has its creator's name
// (the main thread's when its creator is unknown) kept the name it inherited.
void infer_named_threads(Run& run);

}  // namespace quartz::profile
