// SPDX-License-Identifier: BSD-3-Clause
#include "interception.hpp"
#include "settings.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include <hpcoll/environment.hpp>

namespace hpcoll::pmpi {

thread_local bool inside_hpcoll = false;

stage& thread_stage() {
  thread_local stage staged;
  return staged;
}

namespace {

static_assert(collective_names.size() == collective_count);
constexpr std::array<std::string_view, outcome_count> outcome_names{
    "served",  "switched off", "hpcoll's own", "intercommunicator", "user op", "op not defined on the type",
    "datatype", "arguments", "nonblocking form without MPI_THREAD_MULTIPLE"};

std::atomic<bool> state_made{false};

/// The attribute value of an intercommunicator: forwarded, nothing to free.
char intercommunicator_mark;

/// Bumped whenever a communicator's attribute goes: a handle the thread
/// looked up before may since name another communicator.
std::atomic<std::uint64_t> attributes_deleted{0};

/// The thread's latest lookup, which spares MPI's attribute lookup when a
/// program calls collectives on one communicator in a row.
struct last_lookup {
  MPI_Comm comm = MPI_COMM_NULL;
  std::uint64_t generation = 0;
  void* value = nullptr;
};
thread_local last_lookup last;

int delete_communicator(MPI_Comm, int, void* value, void*) {
  attributes_deleted.fetch_add(1, std::memory_order_acq_rel);
  if (value != &intercommunicator_mark) {
    await_collectives_on(static_cast<const communicator*>(value));
    const hpcoll_scope scope;  // its duplicates are freed, and HPCOLL_VERBOSE prints its counters
    delete static_cast<communicator*>(value);
  }
  return MPI_SUCCESS;
}

/// Every rank prints the problem, then the job ends: a setting that cannot
/// be read must not be guessed.
[[noreturn]] void refuse(const std::string& problem) {
  std::fprintf(stderr, "hpcoll: %s\n", problem.c_str());
  std::fflush(stderr);
  PMPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

/// intercepted_collectives() of HPCOLL_PMPI and HPCOLL_PMPI_COLLECTIVES (unset: "").
std::array<bool, collective_count> intercepted_from_environment() {
  const char* switched = std::getenv("HPCOLL_PMPI");
  const char* list = std::getenv("HPCOLL_PMPI_COLLECTIVES");
  try {
    return intercepted_collectives(switched ? switched : "", list ? list : "");
  } catch (const error& e) {
    refuse(detail::problem_of(e));
  }
}

}  // namespace

interception& interception::get() {
  static interception state;
  return state;
}

bool interception::made() noexcept { return state_made.load(std::memory_order_acquire); }

interception::interception() : intercepted_(intercepted_from_environment()) {
  try {
    verbose_ = detail::verbose();
  } catch (const error& e) {
    refuse(detail::problem_of(e));
  }
  int provided = MPI_THREAD_SINGLE;
  PMPI_Query_thread(&provided);
  serves_nonblocking_ = provided == MPI_THREAD_MULTIPLE;
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_communicator, &keyval_, nullptr);
  state_made.store(true, std::memory_order_release);
}

const communicator* interception::communicator_of(MPI_Comm comm) {
  const std::uint64_t generation = attributes_deleted.load(std::memory_order_acquire);
  if (last.comm == comm && last.generation == generation) [[likely]]
    return last.value == &intercommunicator_mark ? nullptr : static_cast<const communicator*>(last.value);
  void* value = nullptr;
  int found = 0;
  PMPI_Comm_get_attr(comm, keyval_, &value, &found);
  if (!found) [[unlikely]] {
    int inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter) {
      value = &intercommunicator_mark;
    } else {
      const hpcoll_scope scope;  // the constructor's own collectives go to PMPI
      value = new communicator(comm);
    }
    PMPI_Comm_set_attr(comm, keyval_, value);
  }
  last = {comm, generation, value};
  return value == &intercommunicator_mark ? nullptr : static_cast<const communicator*>(value);
}

int interception::error_code(const char* what, int mpi_code) {
  // One code per error class, made on first use, whose string is the latest message.
  static std::mutex making;
  static std::map<int, int> code_of_class;
  int error_class = MPI_ERR_OTHER;
  if (mpi_code != MPI_SUCCESS) PMPI_Error_class(mpi_code, &error_class);
  int code = MPI_ERR_OTHER;
  {
    const std::lock_guard lock(making);
    auto known = code_of_class.find(error_class);
    if (known == code_of_class.end()) {
      int made = MPI_ERR_OTHER;
      if (PMPI_Add_error_code(error_class, &made) != MPI_SUCCESS) made = error_class;
      known = code_of_class.emplace(error_class, made).first;
    }
    code = known->second;
    std::string text(what);
    text.resize(std::min<std::size_t>(text.size(), MPI_MAX_ERROR_STRING - 1));
    if (code != error_class) PMPI_Add_error_string(code, text.c_str());
  }
  return code;
}

int interception::fail(MPI_Comm comm, const char* what, int mpi_code) {
  const int code = error_code(what, mpi_code);
  PMPI_Comm_call_errhandler(comm, code);
  return code;
}

void interception::finish() {
  stop_progress();
  if (verbose_) {
    std::array<std::uint64_t, collective_count * outcome_count> mine{}, all{};
    for (std::size_t c = 0; c < collective_count; ++c)
      for (std::size_t o = 0; o < outcome_count; ++o)
        mine[c * outcome_count + o] = counts_[c][o].load(std::memory_order_relaxed);
    PMPI_Reduce(mine.data(), all.data(), static_cast<int>(all.size()), MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    int rank = 0, size = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
      std::string report = "hpcoll: collective calls of " + std::to_string(size) + " ranks (libhpcoll_mpi)\n";
      for (std::size_t c = 0; c < collective_count; ++c) {
        const std::uint64_t* row = &all[c * outcome_count];
        std::uint64_t forwarded = 0;
        std::string reasons;
        for (std::size_t o = 1; o < outcome_count; ++o) {
          forwarded += row[o];
          if (row[o] != 0)
            reasons += (reasons.empty() ? ": " : ", ") + std::to_string(row[o]) + " " + std::string(outcome_names[o]);
        }
        report += "  " + std::string(collective_names[c]) + ": " + std::to_string(row[0]) + " served, " +
                  std::to_string(forwarded) + " forwarded" + reasons + "\n";
      }
      std::fputs(report.c_str(), stderr);
      std::fflush(stderr);
    }
  }
  for (MPI_Comm predefined : {MPI_COMM_WORLD, MPI_COMM_SELF}) {
    void* value = nullptr;
    int found = 0;
    PMPI_Comm_get_attr(predefined, keyval_, &value, &found);
    if (found) PMPI_Comm_delete_attr(predefined, keyval_);
  }
  PMPI_Comm_free_keyval(&keyval_);
}

}  // namespace hpcoll::pmpi
