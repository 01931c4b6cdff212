// SPDX-License-Identifier: BSD-3-Clause
// The graphs of hpcoll_dijkstra: a directed graph in compressed sparse row
// form, and its DIMACS shortest-path files (9th DIMACS Implementation
// Challenge, ".gr"), plain or gzip-compressed, read and written.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace hpcoll_dijkstra {

/// Vertices are 0-based inside the program, 1-based in files and on the command line.
using vertex_t = std::uint32_t;
using weight_t = std::uint32_t;
/// Distances: a path of fewer than 2^32 arcs of weight below 2^32 cannot overflow.
using distance_t = std::uint64_t;
inline constexpr distance_t unreachable = std::numeric_limits<distance_t>::max();
inline constexpr std::uint64_t max_vertices = std::numeric_limits<vertex_t>::max();

/// The out-arcs of u are heads[offsets[u] .. offsets[u + 1]) with their weights alongside.
struct csr_graph {
  std::vector<std::uint64_t> offsets{0};  ///< vertex_count() + 1 entries
  std::vector<vertex_t> heads;
  std::vector<weight_t> weights;

  std::uint64_t vertex_count() const { return offsets.size() - 1; }
  std::uint64_t arc_count() const { return heads.size(); }
};

/// Arcs in any order: arc i goes from tails[i] to heads[i] with weights[i].
struct arc_list {
  std::uint64_t vertex_count = 0;
  std::vector<vertex_t> tails, heads;
  std::vector<weight_t> weights;

  void add(vertex_t tail, vertex_t head, weight_t weight) {
    tails.push_back(tail);
    heads.push_back(head);
    weights.push_back(weight);
  }
};

/// The arcs grouped by tail (a counting sort: the arcs of one tail keep their order); frees `arcs`.
csr_graph to_csr(arc_list&& arcs);

/// A problem with an input file, as "FILE:LINE: what" or "FILE: what".
class input_error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// The whole content of the file `path`, gzip-compressed or not (zlib's gz*
/// functions read both); input_error when it cannot be opened or read, or
/// when a gzip stream is truncated or corrupt.
std::string read_file(const std::string& path);

/// The arcs of DIMACS shortest-path text: "c" comment lines, one "p sp N M"
/// line, M lines "a U V W" (ids 1..N, W a non-negative integer below 2^32);
/// blank lines are allowed. Parallel arcs and self-loops are kept. Anything
/// else is an input_error "NAME:LINE: what" (NAME: the file it came from).
arc_list parse_dimacs(std::string_view text, const std::string& name);

/// read_file, parse_dimacs, to_csr.
csr_graph read_dimacs(const std::string& path);

/// Writes g as a DIMACS file (gzip-compressed when path ends in ".gz"), the
/// `comments` first as "c" lines; std::runtime_error naming the file when
/// that fails.
void write_dimacs(const std::string& path, const csr_graph& g, std::span<const std::string> comments);

}  // namespace hpcoll_dijkstra
