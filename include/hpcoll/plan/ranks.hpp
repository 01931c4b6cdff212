// SPDX-License-Identifier: BSD-3-Clause
// Rank arithmetic shared by the schedules (and available to schedules written
// outside the library).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>

namespace hpcoll {

/// Rank relative to a root, and back.
constexpr int virtual_rank(int rank, int root, int size) {
  const int v = rank - root;  // one wrap at most: no division on the per-call path
  return v < 0 ? v + size : v >= size ? v - size : v;
}
constexpr int real_rank(int vrank, int root, int size) {
  const int r = vrank + root;
  return r >= size ? r - size : r < 0 ? r + size : r;
}

/// a mod p in [0, p): the rank `a` steps around a ring of p ranks, for any a.
constexpr int wrap_rank(int a, int p) { return ((a % p) + p) % p; }

/// Number of rounds of a binomial tree over `size` ranks: ceil(log2(size)).
constexpr int ceil_log2(int size) {
  return size <= 1 ? 0 : std::bit_width(static_cast<unsigned>(size - 1));
}

/// Largest power of two not above `size`.
constexpr int floor_pow2(int size) { return static_cast<int>(std::bit_floor(static_cast<unsigned>(size))); }

/// Lowest set bit of v (v > 0).
constexpr int lowest_bit(int v) { return v & -v; }

/// The fold that lets recursive doubling and halving run on any size: with
/// pof2 = floor_pow2(size) and rem = size - pof2, the even ranks below 2*rem
/// ("extras") hand their data to the odd rank above them and sit the exchange
/// out; the remaining pof2 ranks take part as virtual ranks. Virtual rank v
/// stands for the real ranks [first(v), last(v)], always consecutive, so a run
/// of virtual ranks covers a run of real ranks (and of their blocks).
struct power_of_two_fold {
  int size;
  int pof2;
  int rem;

  constexpr explicit power_of_two_fold(int size_) : size(size_), pof2(floor_pow2(size_)), rem(size_ - floor_pow2(size_)) {}

  constexpr bool is_extra(int rank) const { return rank < 2 * rem && rank % 2 == 0; }
  /// The rank an extra hands its data to (and hears back from).
  constexpr int partner_of_extra(int rank) const { return rank + 1; }
  constexpr bool has_extra(int rank) const { return rank < 2 * rem && rank % 2 == 1; }
  /// Virtual rank of a participating real rank.
  constexpr int virt(int rank) const { return rank < 2 * rem ? rank / 2 : rank - rem; }
  /// The participating real rank of virtual rank v.
  constexpr int real(int v) const { return v < rem ? 2 * v + 1 : v + rem; }
  /// The real ranks virtual rank v stands for: [first(v), first(v + 1)).
  constexpr int first(int v) const { return v < rem ? 2 * v : v + rem; }
  constexpr int rounds() const { return ceil_log2(pof2); }
};

}  // namespace hpcoll
