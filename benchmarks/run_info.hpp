// What the benchmark programs record about a run (when, and with which MPI), and what
// they share around it: their option splitting and their main().
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <exception>
#include <initializer_list>
#include <string>
#include <string_view>

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
