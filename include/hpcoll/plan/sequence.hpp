// SPDX-License-Identifier: BSD-3-Clause
// Plans made of other plans: phases run one after the other.
#pragma once

#include <algorithm>
#include <cstddef>
#include <tuple>
#include <utility>

#include "plan.hpp"

namespace hpcoll {

/// Whether a plan type declares that it needs a commutative op (a static
/// member `commutative_only`, false when absent).
template <class P>
inline constexpr bool plan_requires_commutative = [] {
  if constexpr (requires { P::commutative_only; }) return static_cast<bool>(P::commutative_only);
  else return false;
}();

/// Runs phase plans back to back: the rounds of the first, then of the second,
/// and so on. Phases place their scratch where their shapes tell them, so the
/// sequence needs the largest extent any of them reaches.
template <plan... Phases>
class sequence_plan {
public:
  static constexpr bool commutative_only = (plan_requires_commutative<Phases> || ...);

  constexpr explicit sequence_plan(Phases... phases) : phases_(std::move(phases)...) {}

  constexpr int rounds() const {
    return std::apply([](const auto&... p) { return (0 + ... + p.rounds()); }, phases_);
  }
  constexpr std::size_t scratch_elems() const {
    return std::apply([](const auto&... p) { return std::max({std::size_t{0}, std::size_t(p.scratch_elems())...}); },
                      phases_);
  }
  template <class Emit>
  constexpr void round(int r, Emit&& emit) const {
    std::apply([&](const auto&... p) { (void)(route(p, r, emit) || ...); }, phases_);
  }

  /// round_nodes_alike of the phase round r falls in.
  constexpr bool nodes_alike_in(int r) const {
    bool alike = false;
    std::apply([&](const auto&... p) { (void)(alike_route(p, r, alike) || ...); }, phases_);
    return alike;
  }

private:
  template <class P>
  static constexpr bool alike_route(const P& p, int& r, bool& alike) {
    if (r < p.rounds()) {
      alike = round_nodes_alike(p, r);
      return true;
    }
    r -= p.rounds();
    return false;
  }

  /// Emits round r if it falls in phase p, otherwise moves r past p.
  template <class P, class Emit>
  static constexpr bool route(const P& p, int& r, Emit& emit) {
    if (r < p.rounds()) {
      p.round(r, emit);
      return true;
    }
    r -= p.rounds();
    return false;
  }

  std::tuple<Phases...> phases_;
};

template <plan... Phases>
constexpr sequence_plan<Phases...> sequence(Phases... phases) {
  return sequence_plan<Phases...>(std::move(phases)...);
}

/// No rounds, only a claim on scratch: lets a composite keep data of its own
/// in scratch below the part its phases use.
class reserve_scratch_plan {
public:
  constexpr explicit reserve_scratch_plan(std::size_t elems) : elems_(elems) {}
  constexpr int rounds() const { return 0; }
  constexpr std::size_t scratch_elems() const { return elems_; }
  template <class Emit>
  constexpr void round(int, Emit&&) const {}

private:
  std::size_t elems_;
};

/// One round of local copies, such as placing a rank's own block before an
/// allgather phase. Empty regions and copies onto themselves cost nothing.
class local_copy_plan {
public:
  constexpr local_copy_plan(region source, region dst) : source_(source), dst_(dst) {}
  constexpr int rounds() const { return 1; }
  constexpr std::size_t scratch_elems() const { return std::max(extent(source_), extent(dst_)); }
  template <class Emit>
  constexpr void round(int, Emit&& emit) const {
    if (!dst_.empty() && !(source_ == dst_)) emit(step::copy(source_, dst_));
  }

private:
  static constexpr std::size_t extent(const region& r) { return r.buf == buffer::scratch ? r.offset + r.count : 0; }
  region source_, dst_;
};

}  // namespace hpcoll
