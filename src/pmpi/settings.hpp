// SPDX-License-Identifier: BSD-3-Clause
// The values of HPCOLL_PMPI, HPCOLL_PMPI_COLLECTIVES and HPCOLL_PMPI_THREAD,
// read from their text (interception.cpp and interpose.cpp read the
// environment; tests/fuzz feeds any text).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include <hpcoll/error.hpp>

namespace hpcoll::pmpi {

/// The collectives' names, in the order of enum class collective (interception.hpp).
inline constexpr std::array<std::string_view, 11> collective_names{
    "bcast",     "reduce",     "allreduce", "gather",   "gatherv",  "scatter",
    "allgather", "allgatherv", "reduce_scatter_block", "alltoall", "alltoallv"};

/// Which collectives are intercepted, from HPCOLL_PMPI (`switched`: "", "on"
/// or "off") and HPCOLL_PMPI_COLLECTIVES (`list`: a comma-separated list of
/// collective names; "": all of them). Anything else is an hpcoll::error
/// naming the variable and its value.
inline std::array<bool, collective_names.size()> intercepted_collectives(std::string_view switched,
                                                                         std::string_view list) {
  std::array<bool, collective_names.size()> on{};
  if (switched == "off") return on;
  if (!switched.empty() && switched != "on")
    throw error("", "", detail::concat({"HPCOLL_PMPI is '", switched, "'; it must be on or off"}));
  if (list.empty()) {
    on.fill(true);
    return on;
  }
  while (true) {
    const std::size_t comma = list.find(',');
    const std::string_view word = list.substr(0, comma);
    const auto* named = std::find(collective_names.begin(), collective_names.end(), word);
    if (named == collective_names.end()) {
      std::string known;
      for (std::string_view n : collective_names) known += (known.empty() ? "" : ", ") + std::string(n);
      throw error("", "", detail::concat({"HPCOLL_PMPI_COLLECTIVES names '", word, "', which is not one of ", known}));
    }
    on[static_cast<std::size_t>(named - collective_names.begin())] = true;
    if (comma == std::string_view::npos) return on;
    list.remove_prefix(comma + 1);
  }
}

/// Whether MPI_Init and MPI_Init_thread ask MPI for MPI_THREAD_MULTIPLE,
/// under which the nonblocking forms are served, from HPCOLL_PMPI_THREAD
/// (`value`): "multiple" yes, "" (unset) the level the program asks for.
/// Anything else is an hpcoll::error naming the variable and its value.
inline bool asks_thread_multiple(std::string_view value) {
  if (value.empty()) return false;
  if (value == "multiple") return true;
  throw error("", "",
              detail::concat({"HPCOLL_PMPI_THREAD is '", value, "'; it must be multiple, or unset for the program's own"}));
}

}  // namespace hpcoll::pmpi
