// Counts and displacements of the v-collectives, as std::size_t.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <ranges>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "../communicator.hpp"
#include "collective.hpp"
#include "mpi.hpp"

namespace hpcoll::detail {

/// Views a range of std::size_t as is; copies any other integer type into
/// std::size_t, noting the first negative value as an argument problem.
class counts_view {
public:
  template <input_range R>
  counts_view(const R& r, const char* what) {
    using I = std::ranges::range_value_t<R>;
    static_assert(std::is_integral_v<I>, "hpcoll: counts and displacements must be integers");
    if constexpr (std::same_as<I, std::size_t>) {
      view_ = input_span(r);
    } else {
      owned_.reserve(std::ranges::size(r));
      for (const I v : r) {
        if (v < 0 && problem_.empty())
          problem_ = std::string(what) + "[" + std::to_string(owned_.size()) + "] is negative (" + std::to_string(v) + ")";
        owned_.push_back(v < 0 ? 0 : static_cast<std::size_t>(v));
      }
      view_ = owned_;
    }
  }
  counts_view(const counts_view&) = delete;
  counts_view& operator=(const counts_view&) = delete;

  std::span<const std::size_t> span() const { return view_; }
  const std::string& problem() const { return problem_; }

private:
  std::vector<std::size_t> owned_;
  std::span<const std::size_t> view_;
  std::string problem_;
};

/// Block i (counts[i] elements at displs[i]) must lie inside `extent`
/// elements; `what` names the buffer.
inline void check_blocks(argument_check& args, std::span<const std::size_t> counts, std::span<const std::size_t> displs,
                         std::size_t extent, int size, const char* what) {
  const auto p = static_cast<std::size_t>(size);
  args.require(counts.size() == p, what, " counts have ", counts.size(), " entries, the communicator has ", size, " ranks");
  args.require(displs.size() == p, what, " displacements have ", displs.size(), " entries, the communicator has ", size,
               " ranks");
  if (!args.problem().empty()) return;
  for (std::size_t i = 0; i < p; ++i) {
    const bool fits = displs[i] <= extent && counts[i] <= extent - displs[i];
    args.require(fits, what, " block ", i, " (", counts[i], " elements at ", displs[i], ") does not fit in ", extent,
                 " elements");
  }
}

/// Displacements of blocks packed one after the other.
inline std::vector<std::size_t> packed_displacements(std::span<const std::size_t> counts) {
  std::vector<std::size_t> displs(counts.size());
  std::size_t at = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    displs[i] = at;
    at += counts[i];
  }
  return displs;
}

/// Checked mode, gatherv: the root's counts[q] must equal rank q's send
/// count. Returns this rank's problem, if any.
inline std::string gatherv_count_problem(const communicator& c, int root, std::span<const std::size_t> root_counts,
                                         std::size_t send_count) {
  const auto p = static_cast<std::size_t>(c.size());
  std::vector<std::uint64_t> all(c.rank() == root ? p : 0);
  for (std::size_t i = 0; i < all.size() && i < root_counts.size(); ++i) all[i] = root_counts[i];
  std::uint64_t expected = 0;
  HPCOLL_MPI(MPI_Scatter, all.data(), 1, MPI_UINT64_T, &expected, 1, MPI_UINT64_T, root, c.native());
  argument_check args;
  args.require(expected == send_count, "rank ", c.rank(), " sends ", send_count, " elements, the root expects ",
               expected);
  return args.problem();
}

/// Checked mode, alltoallv: what rank i sends to j must be what j receives
/// from i. Returns this rank's problem, if any.
inline std::string alltoallv_count_problem(const communicator& c, std::span<const std::size_t> send_counts,
                                           std::span<const std::size_t> recv_counts) {
  const auto p = static_cast<std::size_t>(c.size());
  std::vector<std::uint64_t> sent(p, 0), announced(p, 0);
  for (std::size_t i = 0; i < p && i < send_counts.size(); ++i) sent[i] = send_counts[i];
  HPCOLL_MPI(MPI_Alltoall, sent.data(), 1, MPI_UINT64_T, announced.data(), 1, MPI_UINT64_T, c.native());
  argument_check args;
  for (std::size_t i = 0; i < p && i < recv_counts.size(); ++i)
    args.require(announced[i] == recv_counts[i], "rank ", i, " sends ", announced[i], " elements to rank ", c.rank(),
                 ", which expects ", recv_counts[i]);
  return args.problem();
}

}  // namespace hpcoll::detail
