// SPDX-License-Identifier: BSD-3-Clause
// What the applications (apps/) report of a run besides their own results: the first members of
// their JSON record, which schedule each hpcoll collective ran (as text and as JSON), and the
// check that their output files can be written.
#pragma once

#include <hpcoll/exec/counters.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "json_out.hpp"
#include "run_info.hpp"

namespace hpcoll_bench {

/// The first members of a run's JSON record: program, command, date (UTC), MPI library.
inline json::object run_json(const char* program, const std::string& command) {
  return json::object{{"program", program},
                      {"command", command},
                      {"date", utc_now()},
                      {"mpi", mpi_library_version()}};
}

/// "bcast binomial x16; gatherv linear x4 (named)": per collective, the schedule that ran and how
/// often ("(named)": forced, not the dispatcher's choice).
inline std::string schedules_text(const std::vector<hpcoll::schedule_count>& counts) {
  std::string text;
  for (const hpcoll::schedule_count& c : counts)
    text += (text.empty() ? "" : "; ") + std::string(c.collective) + " " + c.schedule + " x" +
            std::to_string(c.calls) + (c.dispatched ? "" : " (named)");
  return text;
}

/// The same as JSON: [{"collective", "schedule", "dispatched", "calls"}, ...].
inline json::array schedules_json(const std::vector<hpcoll::schedule_count>& counts) {
  json::array out;
  for (const hpcoll::schedule_count& c : counts)
    out.push_back(json::object{{"collective", std::string(c.collective)},
                               {"schedule", c.schedule},
                               {"dispatched", c.dispatched},
                               {"calls", c.calls}});
  return out;
}

/// Creates (empties) the file `path` unless it is empty: an application does so before its work, so
/// that an output path that cannot be written fails at once rather than after the run.
inline void check_writable(const std::string& path) {
  if (path.empty()) return;
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (!file || std::fclose(file) != 0) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
}

}  // namespace hpcoll_bench
