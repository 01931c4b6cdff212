// SPDX-License-Identifier: BSD-3-Clause
// The node layout of a communicator, learnt once and kept with it: which
// ranks share a node (MPI_Comm_split_type with MPI_COMM_TYPE_SHARED, then an
// allgather of node ids), or the structure the environment imposes for
// experiments on one machine:
//   HPCOLL_NODE_SIZE=k         k ranks per node, numbered node by node (the
//                              last node holds what is left);
//   HPCOLL_NODE_LAYOUT=a,b,... the node of each rank, one id per rank (ranks
//                              with equal ids share a node).
// A bad value is an hpcoll::error naming the variable and the value, raised
// on every rank before any message.
#pragma once

#include <mpi.h>

#include <charconv>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "../communicator.hpp"
#include "../error.hpp"
#include "../mpi_call.hpp"
#include "../plan/topology.hpp"

namespace hpcoll {

namespace detail {

/// The node of each of `size` ranks as the environment imposes it, or nothing when it does not.
inline std::optional<std::vector<int>> imposed_node_ids(int size) {
  const char* per_node = std::getenv("HPCOLL_NODE_SIZE");
  const char* listed = std::getenv("HPCOLL_NODE_LAYOUT");
  const bool has_size = per_node && *per_node, has_list = listed && *listed;
  if (has_size && has_list)
    throw error("", "", concat({"HPCOLL_NODE_SIZE is '", per_node, "' and HPCOLL_NODE_LAYOUT is '", listed,
                                "'; set at most one of them"}));
  const auto number = [](std::string_view text, int& value) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return ec == std::errc{} && end == text.data() + text.size();
  };
  if (has_size) {
    int k = 0;
    if (!number(per_node, k) || k < 1)
      throw error("", "", concat({"HPCOLL_NODE_SIZE is '", per_node, "'; it must be a positive number of ranks per node"}));
    std::vector<int> ids(static_cast<std::size_t>(size));
    for (int r = 0; r < size; ++r) ids[static_cast<std::size_t>(r)] = r / k;
    return ids;
  }
  if (has_list) {
    std::vector<int> ids;
    std::string_view rest(listed);
    bool ok = true;
    while (ok) {
      const std::size_t comma = rest.find(',');
      int id = 0;
      ok = number(rest.substr(0, comma), id) && id >= 0;
      ids.push_back(id);
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
    if (!ok || ids.size() != static_cast<std::size_t>(size))
      throw error("", "", concat({"HPCOLL_NODE_LAYOUT is '", listed, "'; it must list the node of each of the ",
                                  std::to_string(size), " ranks as numbers 0 or more, separated by commas"}));
    return ids;
  }
  return std::nullopt;
}

/// Each rank's node, discovered: ranks sharing memory get the same id (the
/// lowest rank of `comm` among them).
inline std::vector<int> discovered_node_ids(MPI_Comm comm, int rank, int size) {
  MPI_Comm node;
  HPCOLL_MPI(MPI_Comm_split_type, comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int id = rank;
  HPCOLL_MPI(MPI_Allreduce, MPI_IN_PLACE, &id, 1, MPI_INT, MPI_MIN, node);
  HPCOLL_MPI(MPI_Comm_free, &node);
  std::vector<int> ids(static_cast<std::size_t>(size));
  HPCOLL_MPI(MPI_Allgather, &id, 1, MPI_INT, ids.data(), 1, MPI_INT, comm);
  return ids;
}

/// The communicator service that holds the layout (see node_layout_of).
class node_topology final : public communicator_service {
public:
  explicit node_topology(const communicator_facts& f) : layout_(ids(f)) {}
  const node_layout& layout() const noexcept { return layout_; }

private:
  static std::vector<int> ids(const communicator_facts& f) {
    if (auto imposed = imposed_node_ids(f.size)) return *std::move(imposed);
    return discovered_node_ids(f.comm, f.rank, f.size);
  }
  node_layout layout_;
};

}  // namespace detail

/// The communicator's node layout. The first call on a communicator learns it
/// (a collective operation: every rank must make it, as every collective
/// with a node-aware schedule does on first use); later calls return the kept
/// layout, which lives as long as the communicator.
inline const node_layout& node_layout_of(const communicator& c) {
  return c.service<detail::node_topology>().layout();
}

}  // namespace hpcoll
