// SPDX-License-Identifier: BSD-3-Clause
// The octree of the Barnes–Hut force computation, built deterministically from the bodies in
// Morton (Z-order) order: the same bodies give the same tree, cell for cell and bit for bit,
// whether one thread builds it or many, on one rank or on every rank.
#pragma once

#include <cstdint>
#include <vector>

#include "bodies.hpp"

namespace hpcoll_barnes_hut {

/// A cell of the octree, in depth-first preorder: a cell's children follow it, in octant order,
/// and `next` skips its subtree, so a traversal needs no stack.
struct cell {
  double x, y, z, m;       ///< centre of mass, total mass
  double size;             ///< edge length of the cell's cube
  std::uint32_t first;     ///< its bodies are sorted[first, first + count)
  std::uint32_t count;
  std::uint32_t next;      ///< the cell after this one's subtree (cells.size() at the end)
  std::uint32_t leaf;      ///< 1: no children; its bodies are interacted with one by one
};

/// The tree and the bodies in tree order: what the force computation needs, and what is broadcast
/// when one rank builds the tree.
struct octree {
  std::vector<cell> cells;          ///< cells[0] is the root
  std::vector<point_mass> sorted;   ///< the bodies in Morton order
  std::vector<std::uint32_t> body;  ///< sorted[k] is body body[k]
  /// Leaves in preorder (= Morton order of their bodies): the units of the force computation.
  std::vector<std::uint32_t> leaves;

  /// Restores `leaves` from `cells` (after the cells arrive by broadcast).
  void index_leaves();
};

/// Bodies per leaf at most (unless they share one finest-level cell): the group that shares one
/// interaction list.
constexpr std::uint32_t leaf_capacity = 16;

/// The tree of `points` (at most 2^32 - 1 bodies). With threads > 1 (OpenMP) the Morton keys,
/// the sort and the subtrees are computed in parallel; the result does not depend on threads.
octree build_octree(const std::vector<point_mass>& points, int threads);

}  // namespace hpcoll_barnes_hut
