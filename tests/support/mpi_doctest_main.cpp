// SPDX-License-Identifier: BSD-3-Clause
// MPI-aware main() for doctest test executables (hpcoll test harness).
//
// * MPI_Init_thread(MPI_THREAD_MULTIPLE), falling back to whatever is provided.
//   HPCOLL_TEST_THREAD_LEVEL=single|funneled|serialized|multiple requests
//   another level instead (for tests of code that needs MPI_THREAD_MULTIPLE
//   and must refuse to run without it).
// * Every rank runs the full doctest session with the same command line.
// * Rank 0 reports to stdout as usual; the other ranks' doctest output is
//   captured and only forwarded (prefixed "[rank K] ", in rank order) when that
//   rank had a failing test case.
// * A run whose filters (--test-case=...) select no test case fails: a ctest
//   case naming a test case that was renamed or removed must not pass.
// * Failures are combined across ranks: the exit code is nonzero on every rank
//   if any rank failed, and rank 0 prints a closing line
//       mpi: <N> ranks, all passed
//       mpi: <N> ranks, failed on ranks: 1 3
// * The post-session exchange runs on a private duplicate of MPI_COMM_WORLD, so
//   messages or collectives left unmatched by a failing/throwing test case
//   cannot be confused with the harness' own traffic.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <mpi.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct session_result {
  bool finished = false;  // test_run_end was reported
  unsigned test_cases_run = 0;  // passing the filters, not skipped
  unsigned test_cases_failed = 0;
  int asserts_failed = 0;
  bool no_exitcode = false;
};

session_result g_result;

// A doctest listener (always active, independent of --reporters) that records
// the per-rank run statistics.
struct mpi_stats_listener final : doctest::IReporter {
  explicit mpi_stats_listener(const doctest::ContextOptions& opts) {
    g_result.no_exitcode = opts.no_exitcode;
  }
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats& s) override {
    g_result.finished = true;
    g_result.test_cases_run = s.numTestCasesPassingFilters;
    g_result.test_cases_failed = s.numTestCasesFailed;
    g_result.asserts_failed = s.numAssertsFailed;
  }
  void test_case_start(const doctest::TestCaseData&) override {}
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};

// Keep forwarded reports bounded (a failing CHECK inside a big loop can
// produce megabytes): keep the head and the tail (doctest's summary).
std::string bounded(std::string s) {
  constexpr std::size_t head = 128 * 1024, tail = 16 * 1024;
  if (s.size() <= head + tail) return s;
  const std::size_t dropped = s.size() - head - tail;
  return s.substr(0, head) + "\n... (" + std::to_string(dropped) +
         " bytes of this rank's report omitted) ...\n" + s.substr(s.size() - tail);
}

void print_prefixed(std::ostream& os, int rank, const char* data, std::size_t n) {
  const std::string prefix = "[rank " + std::to_string(rank) + "] ";
  std::size_t pos = 0;
  while (pos < n) {
    std::size_t end = pos;
    while (end < n && data[end] != '\n') ++end;
    os << prefix;
    os.write(data + pos, static_cast<std::streamsize>(end - pos));
    os << '\n';
    pos = end + 1;
  }
}

const char* thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
    default: return "unknown";
  }
}

// The thread level to request: MPI_THREAD_MULTIPLE unless
// HPCOLL_TEST_THREAD_LEVEL names another; -1 for a name it does not know.
int requested_thread_level() {
  const char* env = std::getenv("HPCOLL_TEST_THREAD_LEVEL");
  if (env == nullptr || *env == '\0') return MPI_THREAD_MULTIPLE;
  const std::string level = env;
  if (level == "single") return MPI_THREAD_SINGLE;
  if (level == "funneled") return MPI_THREAD_FUNNELED;
  if (level == "serialized") return MPI_THREAD_SERIALIZED;
  if (level == "multiple") return MPI_THREAD_MULTIPLE;
  return -1;
}

}  // namespace

DOCTEST_REGISTER_LISTENER("hpcoll_mpi_stats", 0, mpi_stats_listener);

int main(int argc, char** argv) {
  const int requested = requested_thread_level();
  if (requested < 0) {
    std::fprintf(stderr, "mpi: HPCOLL_TEST_THREAD_LEVEL must be single, funneled, serialized or multiple\n");
    return 2;
  }
  int provided = MPI_THREAD_SINGLE;
  if (MPI_Init_thread(&argc, &argv, requested, &provided) != MPI_SUCCESS) {
    std::fprintf(stderr, "mpi: MPI_Init_thread failed\n");
    return 2;
  }

  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  MPI_Comm harness_comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &harness_comm);

  if (rank == 0 && provided < requested) {
    std::cout << "mpi: note: " << thread_level_name(requested) << " not available, running with "
              << thread_level_name(provided) << '\n';
  } else if (rank == 0 && requested != MPI_THREAD_MULTIPLE) {
    std::cout << "mpi: note: HPCOLL_TEST_THREAD_LEVEL: running with " << thread_level_name(provided) << '\n';
  }

  // ---- the doctest session, identical on every rank ----------------------
  std::ostringstream captured;
  int session_rc = 0;
  bool query_only = false;
  {
    doctest::Context context;
    // Open MPI gives every rank a pty for stdout, so doctest would always emit
    // ANSI colours (also into CI logs and forwarded reports). Default to none;
    // pass --no-colors=false to get them back.
    context.setOption("no-colors", true);
    context.applyCommandLine(argc, argv);
    if (rank != 0) context.setCout(&captured);
    session_rc = context.run();
    // --help, --version, --list-test-cases, ...: no tests were run.
    query_only = context.shouldExit() && !g_result.finished;
  }
  std::cout.flush();

  if (query_only) {
    MPI_Comm_free(&harness_comm);
    MPI_Finalize();
    return session_rc;
  }

  // ---- combine results across ranks ---------------------------------------
  if (rank == 0 && g_result.test_cases_run == 0)
    std::cout << "mpi: no test case passes the filters (--test-case, --no-skip): nothing was tested\n";
  const bool rank_failed = g_result.test_cases_failed > 0 || session_rc != 0 || g_result.test_cases_run == 0;
  int local_failed = rank_failed ? 1 : 0;

  int any_failed = 0;
  MPI_Allreduce(&local_failed, &any_failed, 1, MPI_INT, MPI_MAX, harness_comm);

  std::vector<int> failed_flags(rank == 0 ? size : 0);
  MPI_Gather(&local_failed, 1, MPI_INT, failed_flags.data(), 1, MPI_INT, 0, harness_comm);

  const std::string report = (rank != 0 && rank_failed) ? bounded(captured.str()) : std::string();
  int report_len = static_cast<int>(report.size());
  std::vector<int> lengths(rank == 0 ? size : 0);
  MPI_Gather(&report_len, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, harness_comm);

  std::vector<int> displs(rank == 0 ? size : 0);
  std::vector<char> reports;
  if (rank == 0) {
    long long total = 0;
    for (int r = 0; r < size; ++r) {
      displs[r] = static_cast<int>(total);
      total += lengths[r];
    }
    reports.resize(static_cast<std::size_t>(total) + 1);
  }
  MPI_Gatherv(report.data(), report_len, MPI_CHAR, reports.data(), lengths.data(), displs.data(),
              MPI_CHAR, 0, harness_comm);

  if (rank == 0) {
    for (int r = 1; r < size; ++r) {
      if (lengths[r] > 0) print_prefixed(std::cout, r, reports.data() + displs[r], lengths[r]);
    }
    std::cout << "mpi: " << size << " ranks, ";
    if (any_failed) {
      std::cout << "failed on ranks:";
      for (int r = 0; r < size; ++r)
        if (failed_flags[r]) std::cout << ' ' << r;
    } else {
      std::cout << "all passed";
    }
    std::cout << std::endl;
  }

  MPI_Comm_free(&harness_comm);
  MPI_Finalize();

  if (any_failed && !g_result.no_exitcode) return 1;
  return 0;
}
