// SPDX-License-Identifier: BSD-3-Clause
// Forces: the Barnes–Hut monopole approximation over the octree, leaf by leaf, and direct
// summation (the reference of --check and of the tests).
#pragma once

#include <cstdint>
#include <vector>

#include "bodies.hpp"
#include "octree.hpp"

namespace hpcoll_barnes_hut {

/// The acceleration and the potential at a body.
struct force {
  double ax, ay, az, potential;
};

/// The sources a leaf's bodies interact with, as arrays (so that the kernel's loop vectorises).
struct interaction_list {
  std::vector<double> x, y, z, m;

  void clear() { x.clear(), y.clear(), z.clear(), m.clear(); }
  void add(double px, double py, double pz, double pm) {
    x.push_back(px), y.push_back(py), z.push_back(pz), m.push_back(pm);
  }
};

/// The forces on the bodies of leaf `leaf` (a cell index): out[k] for each of its sorted bodies k.
/// One interaction list serves the whole leaf: a cell is taken as its centre of mass when its size
/// is below theta times its distance from the leaf's bounding box, else opened; bodies of opened
/// leaves (the leaf's own included; a body skips itself) are taken one by one. Plummer softening
/// eps. The list and the order of its sums depend on the tree alone, so the result does not depend
/// on who computes it. Returns the body–cell and body–body interactions computed.
std::uint64_t leaf_forces(const octree& tree, std::uint32_t leaf, double theta, double eps, interaction_list& list,
                          force* out);

/// The force on points[i] by direct summation over all the others (softening eps).
force direct_force(const std::vector<point_mass>& points, std::size_t i, double eps);

/// Relative force errors over a sample: sqrt(sum |a - a_ref|^2 / sum |a_ref|^2) and the largest
/// |a - a_ref| / |a_ref| of one body.
struct force_error {
  double rms = 0, max = 0;
};
force_error compare_forces(const std::vector<force>& approximate, const std::vector<force>& reference);

}  // namespace hpcoll_barnes_hut
