// SPDX-License-Identifier: BSD-3-Clause
// Bodies of the N-body simulation and their Plummer-model initial conditions.
#pragma once

#include <cstdint>
#include <vector>

namespace hpcoll_barnes_hut {

/// What the force computation needs of a body: its position and mass (broadcast as is).
struct point_mass {
  double x, y, z, m;
};

struct vec3 {
  double x, y, z;
};

/// Every body, in body order (the order of the generator; results and the hash use it).
struct bodies {
  std::vector<point_mass> points;
  std::vector<vec3> velocities;

  std::size_t size() const { return points.size(); }
};

/// n >= 1 bodies of a Plummer sphere by the recipe of Aarseth, Hénon and Wielen (1974) in N-body
/// units (G = 1, total mass 1, total energy -1/4, virial equilibrium), equal masses, centre of mass
/// at rest at the origin. The same seed gives the same bodies, bit for bit.
bodies plummer(std::uint64_t n, std::uint64_t seed);

/// The 64-bit FNV-1a hash of the positions' bytes (x, y, z of body 0, then body 1, ...).
std::uint64_t positions_hash(const bodies& b);

}  // namespace hpcoll_barnes_hut
