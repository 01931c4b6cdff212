// SPDX-License-Identifier: BSD-3-Clause
#include "bodies.hpp"

#include <cmath>
#include <cstring>
#include <numbers>
#include <random>

namespace hpcoll_barnes_hut {

namespace {

/// Uniform in [0, 1) from the top 53 bits of a 64-bit draw: the same numbers on every standard
/// library (std::uniform_real_distribution's algorithm is the library's own).
double uniform(std::mt19937_64& random) { return static_cast<double>(random() >> 11) * 0x1.0p-53; }

/// A vector of length `length` in a uniformly random direction.
vec3 isotropic(double length, std::mt19937_64& random) {
  const double z = (1 - 2 * uniform(random)) * length;
  const double phi = 2 * std::numbers::pi * uniform(random);
  const double rho = std::sqrt(std::max(0.0, length * length - z * z));
  return {rho * std::cos(phi), rho * std::sin(phi), z};
}

}  // namespace

bodies plummer(std::uint64_t n, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  bodies b;
  b.points.resize(n);
  b.velocities.resize(n);
  // Structural units (scale radius 1) first; N-body units below.
  constexpr double largest_mass_fraction = 0.999;  // the outermost 0.1 % of the mass redrawn (as AHW do)
  for (std::uint64_t i = 0; i < n; ++i) {
    double mass_fraction = 0;
    do mass_fraction = uniform(random);
    while (mass_fraction == 0 || mass_fraction > largest_mass_fraction);
    const double r = 1 / std::sqrt(std::pow(mass_fraction, -2.0 / 3.0) - 1);
    const vec3 position = isotropic(r, random);
    // Speed: q times the escape speed, q from g(q) = q^2 (1 - q^2)^(7/2) by rejection (max of g < 0.1).
    double q = 0;
    for (;;) {
      q = uniform(random);
      if (0.1 * uniform(random) < q * q * std::pow(1 - q * q, 3.5)) break;
    }
    const double escape = std::numbers::sqrt2 * std::pow(1 + r * r, -0.25);
    b.points[i] = {position.x, position.y, position.z, 1.0 / static_cast<double>(n)};
    b.velocities[i] = isotropic(q * escape, random);
  }
  // To N-body units (E = -1/4): lengths x 3 pi / 16, speeds / sqrt(3 pi / 16); then the centre of
  // mass to the origin, at rest.
  const double length_scale = 3 * std::numbers::pi / 16, speed_scale = 1 / std::sqrt(length_scale);
  vec3 centre{0, 0, 0}, drift{0, 0, 0};
  for (std::uint64_t i = 0; i < n; ++i) {
    point_mass& p = b.points[i];
    vec3& v = b.velocities[i];
    p.x *= length_scale, p.y *= length_scale, p.z *= length_scale;
    v.x *= speed_scale, v.y *= speed_scale, v.z *= speed_scale;
    centre.x += p.m * p.x, centre.y += p.m * p.y, centre.z += p.m * p.z;
    drift.x += p.m * v.x, drift.y += p.m * v.y, drift.z += p.m * v.z;
  }
  for (std::uint64_t i = 0; i < n; ++i) {
    b.points[i].x -= centre.x, b.points[i].y -= centre.y, b.points[i].z -= centre.z;
    b.velocities[i].x -= drift.x, b.velocities[i].y -= drift.y, b.velocities[i].z -= drift.z;
  }
  return b;
}

std::uint64_t positions_hash(const bodies& b) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (const point_mass& p : b.points) {
    unsigned char bytes[3 * sizeof(double)];
    std::memcpy(bytes, &p.x, sizeof(double));
    std::memcpy(bytes + sizeof(double), &p.y, sizeof(double));
    std::memcpy(bytes + 2 * sizeof(double), &p.z, sizeof(double));
    for (const unsigned char byte : bytes) hash = (hash ^ byte) * 0x100000001b3ull;
  }
  return hash;
}

}  // namespace hpcoll_barnes_hut
