// SPDX-License-Identifier: BSD-3-Clause
// The HPCOLL_* values: the switches (HPCOLL_CHECK, HPCOLL_VERBOSE), the byte
// counts (HPCOLL_MAX_MESSAGE_BYTES), HPCOLL_<COLLECTIVE>=<schedule> as the
// dispatcher reads it, and libhpcoll_mpi's HPCOLL_PMPI,
// HPCOLL_PMPI_COLLECTIVES and HPCOLL_PMPI_THREAD. The first byte picks the variable, the rest is its
// value; each gives a value or an hpcoll::error naming the variable.
#include <hpcoll/environment.hpp>
#include <hpcoll/select/dispatch.hpp>

#include "../../src/pmpi/settings.hpp"
#include "fuzz_support.hpp"

#include <string>

namespace {

using namespace hpcoll_fuzz;

void switch_variable(std::string_view value) {
  returns_or_throws<hpcoll::error>([&] {
    const bool on = hpcoll::detail::switch_value("HPCOLL_CHECK", value);
    require(on == (value == "1"), "a switch other than 1 is on");
  });
}

void bytes_variable(std::string_view value) {
  returns_or_throws<hpcoll::error>([&] {
    const std::size_t bytes = hpcoll::detail::bytes_value("HPCOLL_MAX_MESSAGE_BYTES", value, 7);
    require(bytes > 0, "a byte count of 0");
    require(!value.empty() || bytes == 7, "an empty value is not the default");
    require(value.find_first_not_of("0123456789") == std::string_view::npos, "a byte count with more than digits");
  });
}

/// HPCOLL_ALLREDUCE=value as the dispatcher decides with it, and the value
/// looked up among every collective's candidates.
void schedule_variable(std::string_view value) {
  const std::string text(value);  // the dispatcher gets a C string: up to the first NUL
  returns_or_throws<hpcoll::error>([&] {
    const hpcoll::machine m;
    const hpcoll::decision d =
        hpcoll::decide(hpcoll::allreduce_shape{0, 4, 1000, true, false, 8}, m, nullptr, text.c_str());
    require(d.choice < d.candidates.size(), "a decision for no candidate");
  });
  for (const hpcoll::collective_entry& c : hpcoll::collective_table()) {
    const std::size_t i = hpcoll::schedule::find_candidate(c.candidates, value);
    // Spaces, aliases and names without template arguments are accepted (find_candidate); what
    // a value finds, its own full name finds too.
    require(i == c.candidates.size() || hpcoll::schedule::find_candidate(c.candidates, c.candidates[i]) == i,
            "a schedule its own name does not find");
  }
}

void pmpi_variables(std::string_view value) {
  const std::size_t nul = value.find('\0');
  const std::string_view switched = value.substr(0, nul);
  const std::string_view list = nul == std::string_view::npos ? "" : value.substr(nul + 1);
  returns_or_throws<hpcoll::error>([&] {
    const auto on = hpcoll::pmpi::intercepted_collectives(switched, list);
    if (switched == "off")
      for (bool b : on) require(!b, "HPCOLL_PMPI=off intercepts");
  });
  returns_or_throws<hpcoll::error>([&] {
    require(hpcoll::pmpi::asks_thread_multiple(switched) == (switched == "multiple"),
            "HPCOLL_PMPI_THREAD other than multiple asks for MPI_THREAD_MULTIPLE");
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view value = text_of(data + 1, size - 1);
  switch (data[0] % 4) {
    case 0: switch_variable(value); break;
    case 1: bytes_variable(value); break;
    case 2: schedule_variable(value); break;
    default: pmpi_variables(value); break;
  }
  return 0;
}
