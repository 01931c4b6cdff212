// SPDX-License-Identifier: BSD-3-Clause
#include "forces.hpp"

#include <algorithm>
#include <cmath>

namespace hpcoll_barnes_hut {

std::uint64_t leaf_forces(const octree& tree, std::uint32_t leaf, double theta, double eps, interaction_list& list,
                          force* out) {
  const cell& group = tree.cells[leaf];
  const point_mass* bodies = tree.sorted.data() + group.first;
  double low[3] = {bodies[0].x, bodies[0].y, bodies[0].z}, high[3] = {low[0], low[1], low[2]};
  for (std::uint32_t k = 1; k < group.count; ++k) {
    const double c[3] = {bodies[k].x, bodies[k].y, bodies[k].z};
    for (int d = 0; d < 3; ++d) low[d] = std::min(low[d], c[d]), high[d] = std::max(high[d], c[d]);
  }
  const double centre[3] = {(low[0] + high[0]) / 2, (low[1] + high[1]) / 2, (low[2] + high[2]) / 2};
  const double half[3] = {(high[0] - low[0]) / 2, (high[1] - low[1]) / 2, (high[2] - low[2]) / 2};
  const double theta2 = theta * theta;

  list.clear();
  const auto cells = static_cast<std::uint32_t>(tree.cells.size());
  for (std::uint32_t i = 0; i < cells;) {
    const cell& c = tree.cells[i];
    const double gap[3] = {std::max(0.0, std::abs(c.x - centre[0]) - half[0]),
                           std::max(0.0, std::abs(c.y - centre[1]) - half[1]),
                           std::max(0.0, std::abs(c.z - centre[2]) - half[2])};
    const double distance2 = gap[0] * gap[0] + gap[1] * gap[1] + gap[2] * gap[2];
    if (c.size * c.size < theta2 * distance2) {
      list.add(c.x, c.y, c.z, c.m);
      i = c.next;
    } else if (c.leaf) {
      for (std::uint32_t k = c.first; k < c.first + c.count; ++k) {
        const point_mass& p = tree.sorted[k];
        list.add(p.x, p.y, p.z, p.m);
      }
      i = c.next;
    } else {
      ++i;
    }
  }

  const double eps2 = eps * eps;
  const double* lx = list.x.data();
  const double* ly = list.y.data();
  const double* lz = list.z.data();
  const double* lm = list.m.data();
  const std::size_t length = list.x.size();
  for (std::uint32_t k = 0; k < group.count; ++k) {
    const double x = bodies[k].x, y = bodies[k].y, z = bodies[k].z;
    double ax = 0, ay = 0, az = 0, potential = 0;
    // omp simd: the four sums may be split over the vector lanes; the split depends on the list's
    // length alone, so the result is still the same wherever the leaf is computed.
#pragma omp simd reduction(+ : ax, ay, az, potential)
    for (std::size_t j = 0; j < length; ++j) {
      const double dx = lx[j] - x, dy = ly[j] - y, dz = lz[j] - z;
      const double r2 = dx * dx + dy * dy + dz * dz;
      // Computed for every entry, then dropped for the body itself (r2 == 0): a select, which
      // vectorises, where a branch around the square root would not.
      const double computed = 1 / std::sqrt(r2 + eps2);
      const double inverse = r2 > 0 ? computed : 0;
      const double mass_inverse = lm[j] * inverse;
      const double mass_inverse3 = mass_inverse * inverse * inverse;
      ax += dx * mass_inverse3, ay += dy * mass_inverse3, az += dz * mass_inverse3;
      potential -= mass_inverse;
    }
    out[k] = {ax, ay, az, potential};
  }
  // The body itself is in its own leaf's list, not an interaction.
  return static_cast<std::uint64_t>(group.count) * (length - 1);
}

force direct_force(const std::vector<point_mass>& points, std::size_t i, double eps) {
  const double eps2 = eps * eps;
  force f{0, 0, 0, 0};
  for (std::size_t j = 0; j < points.size(); ++j) {
    if (j == i) continue;
    const double dx = points[j].x - points[i].x, dy = points[j].y - points[i].y, dz = points[j].z - points[i].z;
    const double inverse = 1 / std::sqrt(dx * dx + dy * dy + dz * dz + eps2);
    const double mass_inverse3 = points[j].m * inverse * inverse * inverse;
    f.ax += dx * mass_inverse3, f.ay += dy * mass_inverse3, f.az += dz * mass_inverse3;
    f.potential -= points[j].m * inverse;
  }
  return f;
}

force_error compare_forces(const std::vector<force>& approximate, const std::vector<force>& reference) {
  force_error e;
  double difference2 = 0, reference2 = 0;
  for (std::size_t i = 0; i < reference.size(); ++i) {
    const force& a = approximate[i];
    const force& r = reference[i];
    const double d2 = (a.ax - r.ax) * (a.ax - r.ax) + (a.ay - r.ay) * (a.ay - r.ay) + (a.az - r.az) * (a.az - r.az);
    const double r2 = r.ax * r.ax + r.ay * r.ay + r.az * r.az;
    difference2 += d2, reference2 += r2;
    if (r2 > 0) e.max = std::max(e.max, std::sqrt(d2 / r2));
  }
  e.rms = reference2 > 0 ? std::sqrt(difference2 / reference2) : 0;
  return e;
}

}  // namespace hpcoll_barnes_hut
