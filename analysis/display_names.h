// The one name of each procedure, thread and object in every report, export and view, and
// the source location shown beside a procedure's.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "profile/run.h"

namespace quartz::analysis {

// A symbol's display name: the function, or the address in hex.
std::string display_name(const profile::Run& run, uint64_t address);
std::string kind_name(uint32_t kind);  // capture::kind_name, as a string
// "0x1f2e": an address without a name.
std::string hex_address(uint64_t address);
// "file.c:41", or the module's base name; "" for an address without a symbol.
std::string location_of(const profile::Run& run, uint64_t address);

// The program's own procedure a thread started in: its start routine, or for one a library
// started (std::thread's trampolines) the first of the program's procedures on its own
// stack. 0: not known.
uint64_t thread_routine(const profile::Run& run, const profile::ThreadInfo& t);

// A thread: the name the program gave it, else its routine's. An object: the program's
// name for it, else its kind and the program's own frame that first acquired it
// ("mutex@push_job (queue.cpp:41)"), or for a join the thread joined; objects that share a
// name (an array's, first taken at one site) add their ids ("... #7"). By address.
std::string thread_name(const profile::Run& run, const profile::ThreadInfo& t);
std::unordered_map<uint64_t, std::string> object_names(const profile::Run& run);

}  // namespace quartz::analysis
