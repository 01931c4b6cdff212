// SPDX-License-Identifier: BSD-3-Clause
// hpcoll_barnes_hut's physics without MPI: the Plummer generator (statistics, determinism), the
// octree (the same tree from one thread or many, every body in one leaf, masses), the forces
// (against direct summation at several opening angles).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "bodies.hpp"
#include "forces.hpp"
#include "octree.hpp"

namespace {

using namespace hpcoll_barnes_hut;

/// Kinetic energy over the magnitude of the potential energy (unsoftened, by direct summation).
double virial_ratio(const bodies& b) {
  double kinetic = 0, potential = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    const vec3& v = b.velocities[i];
    kinetic += 0.5 * b.points[i].m * (v.x * v.x + v.y * v.y + v.z * v.z);
    for (std::size_t j = i + 1; j < b.size(); ++j) {
      const double dx = b.points[i].x - b.points[j].x, dy = b.points[i].y - b.points[j].y,
                   dz = b.points[i].z - b.points[j].z;
      potential -= b.points[i].m * b.points[j].m / std::sqrt(dx * dx + dy * dy + dz * dz);
    }
  }
  return kinetic / std::abs(potential);
}

bool same_bytes(const auto& a, const auto& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(a[0])) == 0;
}

/// Forces on every body from leaf_forces, in body order.
std::vector<force> tree_forces(const octree& tree, double theta, double eps) {
  std::vector<force> sorted(tree.sorted.size()), forces(tree.sorted.size());
  interaction_list list;
  for (const std::uint32_t leaf : tree.leaves)
    leaf_forces(tree, leaf, theta, eps, list, sorted.data() + tree.cells[leaf].first);
  for (std::size_t k = 0; k < sorted.size(); ++k) forces[tree.body[k]] = sorted[k];
  return forces;
}

force_error error_against_direct(const bodies& b, double theta, double eps) {
  const std::vector<force> approximate = tree_forces(build_octree(b.points, 1), theta, eps);
  std::vector<force> reference;
  for (std::size_t i = 0; i < b.size(); ++i) reference.push_back(direct_force(b.points, i, eps));
  return compare_forces(approximate, reference);
}

}  // namespace

TEST_CASE("barnes_hut.plummer_statistics") {
  // 4000 bodies of these seeds measured 0.497 to 0.500 (finite-N fluctuations are of order
  // 1/sqrt(N)): within 0.02 of 0.5.
  for (const std::uint64_t seed : {1u, 2u, 3u}) {
    CAPTURE(seed);
    const bodies b = plummer(4000, seed);
    const double ratio = virial_ratio(b);
    MESSAGE("virial ratio T/|W| of seed ", seed, ": ", ratio);
    CHECK(std::abs(ratio - 0.5) < 0.02);
    double mass = 0;
    vec3 centre{0, 0, 0}, momentum{0, 0, 0};
    for (std::size_t i = 0; i < b.size(); ++i) {
      mass += b.points[i].m;
      centre.x += b.points[i].m * b.points[i].x, centre.y += b.points[i].m * b.points[i].y,
          centre.z += b.points[i].m * b.points[i].z;
      momentum.x += b.points[i].m * b.velocities[i].x, momentum.y += b.points[i].m * b.velocities[i].y,
          momentum.z += b.points[i].m * b.velocities[i].z;
    }
    CHECK(mass == doctest::Approx(1.0).epsilon(1e-12));
    for (const double c : {centre.x, centre.y, centre.z, momentum.x, momentum.y, momentum.z})
      CHECK(std::abs(c) < 1e-12);
  }
}

TEST_CASE("barnes_hut.plummer_determinism") {
  const bodies a = plummer(3000, 7), again = plummer(3000, 7), other = plummer(3000, 8);
  CHECK(same_bytes(a.points, again.points));
  CHECK(same_bytes(a.velocities, again.velocities));
  CHECK(positions_hash(a) == positions_hash(again));
  CHECK_FALSE(same_bytes(a.points, other.points));
  CHECK(positions_hash(a) != positions_hash(other));
}

TEST_CASE("barnes_hut.octree_threads") {
  const bodies b = plummer(20000, 5);
  const octree one = build_octree(b.points, 1);
  for (const int threads : {2, 3, 4}) {
    CAPTURE(threads);
    const octree many = build_octree(b.points, threads);
    CHECK(same_bytes(one.cells, many.cells));
    CHECK(same_bytes(one.sorted, many.sorted));
    CHECK(same_bytes(one.body, many.body));
    CHECK(one.leaves == many.leaves);
  }
  // Every body in exactly one leaf, the leaves in body order; the root holds all the mass.
  std::vector<int> seen(b.size(), 0);
  std::uint32_t next_first = 0;
  for (const std::uint32_t leaf : one.leaves) {
    const cell& c = one.cells[leaf];
    CHECK(c.first == next_first);
    next_first = c.first + c.count;
    for (std::uint32_t k = c.first; k < c.first + c.count; ++k) ++seen[one.body[k]];
  }
  CHECK(next_first == b.size());
  CHECK(std::count(seen.begin(), seen.end(), 1) == static_cast<long>(b.size()));
  CHECK(one.cells[0].m == doctest::Approx(1.0).epsilon(1e-12));
  CHECK(one.cells[0].next == one.cells.size());
}

TEST_CASE("barnes_hut.octree_few_bodies") {
  // One body, and bodies at one point (all in one finest cell): a tree all the same.
  const bodies single = plummer(1, 1);
  const octree t = build_octree(single.points, 1);
  CHECK(t.cells.size() == 1);
  CHECK(t.leaves.size() == 1);
  std::vector<point_mass> together(40, point_mass{0.5, 0.5, 0.5, 1.0 / 40});
  const octree same_place = build_octree(together, 2);
  CHECK(same_place.cells[0].m == doctest::Approx(1.0));
  const std::vector<force> f = tree_forces(same_place, 0.5, 0.1);
  for (const force& one : f) CHECK((one.ax == 0 && one.ay == 0 && one.az == 0));
}

TEST_CASE("barnes_hut.force_error") {
  const bodies b = plummer(3000, 11);
  const double eps = 0.01;
  const force_error coarse = error_against_direct(b, 0.8, eps), standard = error_against_direct(b, 0.5, eps),
                    fine = error_against_direct(b, 0.3, eps), exact = error_against_direct(b, 1e-3, eps);
  MESSAGE("rms force error at theta 0.8, 0.5, 0.3: ", coarse.rms, ", ", standard.rms, ", ", fine.rms);
  CHECK(standard.rms < 0.01);
  CHECK(coarse.rms > standard.rms);
  CHECK(standard.rms > fine.rms);
  CHECK(coarse.max > fine.max);
  // Every cell opened: direct summation, up to the order of the sums.
  CHECK(exact.max < 1e-12);
}
