// SPDX-License-Identifier: BSD-3-Clause
// Recursive doubling: lg p rounds of pairwise exchanges at distances
// 1, 2, 4, …; sizes that are not powers of two fold their extra ranks in
// before and out after (see power_of_two_fold).
#pragma once

#include <cstddef>

#include "../plan/ranks.hpp"
#include "../plan/plan.hpp"
#include "../plan/shape.hpp"

namespace hpcoll::schedule {

struct recursive_doubling {
  static constexpr const char* name = "recursive_doubling";
  /// The cost model may walk a sample of ranks (select/cost.hpp): each round's busiest rank is among them.
  static constexpr bool sampled_cost = true;

  /// Allreduce: partners exchange their whole partial results; the lower
  /// group's value is always the left operand, so every rank evaluates the same
  /// expression tree (bit-identical results) and non-commutative ops work.
  struct allreduce_plan {
    allreduce_shape s;
    power_of_two_fold f{s.size};
    constexpr int folds() const { return f.rem > 0 ? 1 : 0; }
    constexpr int rounds() const { return s.size == 1 ? 1 : f.rounds() + 2 * folds(); }
    constexpr std::size_t scratch_elems() const { return s.size > 1 ? s.count : 0; }

    /// Before any data arrives, the rank's value is its input; afterwards (and
    /// always when in place) it is the output.
    constexpr bool value_in_output(int r) const {
      if (s.in_place) return true;
      if (f.has_extra(s.rank)) return r > 0;
      return r > folds();
    }
    template <class Emit>
    constexpr void round(int r, Emit&& emit) const {
      const std::size_t n = s.count;
      if (s.size == 1) {
        emit(step::copy(in(0, n), out(0, n)));
        return;
      }
      const region value = value_in_output(r) ? out(0, n) : in(0, n);
      // The first contribution lands straight in the output unless that is
      // where this rank's own value already is.
      const region land = value_in_output(r) ? tmp(0, n) : out(0, n);
      const bool extra = f.is_extra(s.rank);
      if (folds() && r == 0) {
        if (extra) emit(step::send(f.partner_of_extra(s.rank), in(0, n)));
        if (f.has_extra(s.rank)) emit(step::recv_reduce(s.rank - 1, land, value, out(0, n), true));
        return;
      }
      if (folds() && r == rounds() - 1) {
        if (extra) emit(step::recv(f.partner_of_extra(s.rank), out(0, n)));
        if (f.has_extra(s.rank)) emit(step::send(s.rank - 1, out(0, n)));
        return;
      }
      if (extra) return;
      const int v = f.virt(s.rank);
      const int w = v ^ (1 << (r - folds()));
      const int peer = f.real(w);
      emit(step::send(peer, value));
      emit(step::recv_reduce(peer, land, value, out(0, n), w < v));
    }
  };

  /// Allgather phase: partners exchange the blocks of their whole group, which
  /// doubles each round. Extras hand in their block first and get everything
  /// else back at the end.
  struct allgather_plan {
    allgather_phase s;
    power_of_two_fold f{s.size};
    constexpr int folds() const { return f.rem > 0 ? 1 : 0; }
    constexpr int rounds() const { return s.size == 1 ? 0 : f.rounds() + 2 * folds(); }
    constexpr std::size_t scratch_elems() const { return 0; }
    constexpr int real(int u) const { return real_rank(u, s.root, s.size); }
    constexpr region blocks(int first, int last) const { return s.layout.blocks(s.data, s.base, first, last); }
    /// The blocks of virtual group [g, g + width).
    constexpr region group(int g, int width) const { return blocks(f.first(g), f.first(g + width)); }

    template <class Emit>
    constexpr void round(int r, Emit&& emit) const {
      const int u = virtual_rank(s.rank, s.root, s.size);
      if (folds() && r == 0) {
        if (f.is_extra(u)) emit(step::send(real(u + 1), s.own_block(u)));
        if (f.has_extra(u)) emit(step::recv(real(u - 1), blocks(u - 1, u)));
        return;
      }
      if (folds() && r == rounds() - 1) {
        if (f.is_extra(u)) {
          emit(step::recv(real(u + 1), blocks(0, u)));
          emit(step::recv(real(u + 1), blocks(u + 1, s.size)));
        }
        if (f.has_extra(u)) {
          emit(step::send(real(u - 1), blocks(0, u - 1)));
          emit(step::send(real(u - 1), blocks(u, s.size)));
        }
        return;
      }
      if (f.is_extra(u)) return;
      const int width = 1 << (r - folds());
      const int v = f.virt(u);
      const int w = v ^ width;
      const int mine = v & ~(width - 1);
      const int theirs = w & ~(width - 1);
      emit(step::recv(real(f.real(w)), group(theirs, width)));
      // A virtual rank standing for one real rank sends its own block alone first.
      const bool alone = width == 1 && f.first(mine) + 1 == f.first(mine + 1);
      emit(step::send(real(f.real(w)), alone ? s.own_block(u) : group(mine, width)));
    }
  };

  static constexpr allreduce_plan plan(const allreduce_shape& s) { return {s}; }
  static constexpr allgather_plan plan(const allgather_phase& s) { return {s}; }
};

}  // namespace hpcoll::schedule
