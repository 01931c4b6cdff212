// What the benchmark programs record about a run (when, and with which MPI), and what
// they share around it: their option splitting and their main().
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <stdexcept>
#include <cstdio>
#include <ctime>
#include <exception>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace hpcoll_bench {

/// The current time in UTC, ISO 8601 ("2026-11-21T21:33:09Z").
inline std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

/// The first line of MPI_Get_library_version ("Open MPI v4.1.4, package: ...").
inline std::string mpi_library_version() {
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(version, &length);
  std::string v(version, static_cast<std::size_t>(length));
  if (const auto end = v.find_first_of("\r\n"); end != std::string::npos) v.resize(end);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\0')) v.pop_back();
  return v;
}

/// One command-line argument split into an option name and its value.
struct option_arg {
  std::string name;
  std::string value;
};

/// Splits argv[i]: "--name=value", or "--name value" (the next argument, i is advanced past it)
/// unless the name is one of `flags`, the options that take no value (then, and for a last
/// argument or one not starting with "--", the value is empty and the name is argv[i] whole).
inline option_arg next_option(int argc, char** argv, int& i, std::initializer_list<std::string_view> flags) {
  option_arg o{argv[i], {}};
  if (o.name.rfind("--", 0) == 0) {
    if (const auto eq = o.name.find('='); eq != std::string::npos) {
      o.value = o.name.substr(eq + 1);
      o.name.resize(eq);
    } else if (std::find(flags.begin(), flags.end(), o.name) == flags.end() && i + 1 < argc) {
      o.value = argv[++i];
    }
  }
  return o;
}

/// The non-empty pieces of s between separators.
inline std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t end = std::min(s.find(sep, start), s.size());
    if (end > start) out.emplace_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

/// "8", "8B"; "80kB" and "8MB" in powers of ten (the multicast issue's sizes); "4K", "4KiB",
/// "16M", "16MiB" (any case, also "kb", "mb") in powers of two.
inline std::size_t parse_bytes(const std::string& text) {
  std::size_t pos = 0;
  const unsigned long long v = std::stoull(text, &pos);
  std::string unit = text.substr(pos);
  std::size_t factor = 1;
  if (unit == "kB") factor = 1000;
  else if (unit == "MB") factor = 1000 * 1000;
  else {
    std::transform(unit.begin(), unit.end(), unit.begin(), [](unsigned char c) { return std::tolower(c); });
    if (unit == "" || unit == "b") factor = 1;
    else if (unit == "k" || unit == "kib" || unit == "kb") factor = 1024;
    else if (unit == "m" || unit == "mib" || unit == "mb") factor = 1024 * 1024;
    else throw std::invalid_argument("unknown size unit in '" + text + "' (B, kB, MB, K/KiB, M/MiB)");
  }
  return static_cast<std::size_t>(v) * factor;
}

/// A comma list of sizes, or MIN:MAX in x4 steps from max(MIN, smallest) (./hpcoll bench's convention).
inline std::vector<std::size_t> parse_sizes(const std::string& text, std::size_t smallest) {
  std::vector<std::size_t> out;
  if (const auto colon = text.find(':'); colon != std::string::npos) {
    const std::size_t lo = parse_bytes(text.substr(0, colon)), hi = parse_bytes(text.substr(colon + 1));
    for (std::size_t s = std::max(lo, smallest); s <= hi; s *= 4) out.push_back(s);
  } else {
    for (const std::string& part : split(text, ',')) out.push_back(parse_bytes(part));
  }
  if (out.empty()) throw std::invalid_argument("no sizes in '" + text + "'");
  return out;
}

namespace detail {

/// run(), then MPI_Finalize; an exception out of run() is printed as "program: what" and aborts
/// MPI_COMM_WORLD.
template <class Run>
int finish_run(const char* program, Run&& run) {
  int rc = 0;
  try {
    rc = run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", program, e.what());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return rc;
}

}  // namespace detail

/// main() of a benchmark program: MPI_Init, rc = run(argc, argv), MPI_Finalize, return rc; an
/// exception out of run() prints "program: what" and aborts.
inline int run_main(int argc, char** argv, const char* program, int (*run)(int, char**)) {
  MPI_Init(&argc, &argv);
  return detail::finish_run(program, [&] { return run(argc, argv); });
}

/// The same with MPI_Init_thread at `required`; run gets the level provided.
inline int run_main(int argc, char** argv, const char* program, int required, int (*run)(int, char**, int)) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, required, &provided);
  return detail::finish_run(program, [&] { return run(argc, argv, provided); });
}

}  // namespace hpcoll_bench
