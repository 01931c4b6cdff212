// SPDX-License-Identifier: BSD-3-Clause
// Recursive halving reduce-scatter: lg p rounds; in each, partners at
// distance p/2, p/4, … swap the half of their current window the other keeps,
// so every rank sends and reduces (p−1)/p of the data in total. With
// recursive doubling for the allgather this is Rabenseifner's allreduce.
#pragma once

#include <cstddef>

#include "../plan/ranks.hpp"
#include "../plan/plan.hpp"
#include "../plan/shape.hpp"
#include "compose.hpp"
#include "recursive_doubling.hpp"

namespace hpcoll::schedule {

struct recursive_halving {
  static constexpr const char* name = "recursive_halving";
  /// The cost model may walk a sample of ranks (select/cost.hpp): each round's busiest rank is among them.
  static constexpr bool sampled_cost = true;

  /// Partners at distance d combine groups that are not adjacent in rank order,
  /// so the op must be commutative. Extras (see power_of_two_fold) send their whole
  /// contribution to their partner first and receive their block at the end.
  struct reduce_scatter_plan {
    static constexpr bool commutative_only = true;
    reduce_scatter_phase s;
    power_of_two_fold f{s.size};
    constexpr int folds() const { return f.rem > 0 ? 1 : 0; }
    constexpr int rounds() const { return s.size == 1 ? 1 : f.rounds() + 2 * folds(); }
    constexpr std::size_t scratch_elems() const { return s.size > 1 ? s.scratch_base + s.layout.total : 0; }

    /// Blocks of virtual ranks [first, last), in `buf`.
    constexpr region vblocks(buffer buf, std::size_t base, int first, int last) const {
      return s.layout.blocks(buf, base, f.first(first), f.first(last));
    }
    constexpr region source(int first, int last) const { return vblocks(s.source, s.source_base, first, last); }
    constexpr region acc(int first, int last) const { return vblocks(s.acc, s.acc_base, first, last); }
    /// Whether this rank's running value lives in acc (else still in source).
    constexpr bool value_in_acc(int r) const {
      if (s.source_aliases_acc) return true;
      if (f.has_extra(s.rank)) return r > 0;
      return r > folds();
    }

    template <class Emit>
    constexpr void round(int r, Emit&& emit) const {
      const int p = s.size;
      if (p == 1) {
        emit(step::copy(s.layout.blocks(s.source, s.source_base, 0, 1), s.layout.blocks(s.acc, s.acc_base, 0, 1)));
        return;
      }
      const bool in_acc = value_in_acc(r);
      if (folds() && r == 0) {
        const region all_source = s.layout.blocks(s.source, s.source_base, 0, p);
        const region all_acc = s.layout.blocks(s.acc, s.acc_base, 0, p);
        if (f.is_extra(s.rank)) emit(step::send(s.rank + 1, all_source));
        if (f.has_extra(s.rank)) {
          const region land = in_acc ? tmp(s.scratch_base, s.layout.total) : all_acc;
          emit(step::recv_reduce(s.rank - 1, land, in_acc ? all_acc : all_source, all_acc, true));
        }
        return;
      }
      if (folds() && r == rounds() - 1) {
        const int extra_block = s.rank - 1;
        if (f.is_extra(s.rank))
          emit(step::recv(s.rank + 1, s.layout.blocks(s.acc, s.acc_base, s.rank, s.rank + 1)));
        if (f.has_extra(s.rank))
          emit(step::send(s.rank - 1, s.layout.blocks(s.acc, s.acc_base, extra_block, extra_block + 1)));
        return;
      }
      if (f.is_extra(s.rank)) return;
      const int i = r - folds();
      const int v = f.virt(s.rank);
      const int d = f.pof2 >> (i + 1);
      const int w = v ^ d;
      const int lo = v & ~(2 * d - 1);  // this round's window is [lo, lo + 2d)
      const int keep = v < w ? lo : lo + d;
      const int give = v < w ? lo + d : lo;
      const region kept = acc(keep, keep + d);
      const region value = in_acc ? kept : source(keep, keep + d);
      const region land = in_acc ? tmp(s.scratch_base, kept.count) : kept;
      emit(step::recv_reduce(f.real(w), land, value, kept, w < v));
      emit(step::send(f.real(w), in_acc ? acc(give, give + d) : source(give, give + d)));
    }
  };

  static constexpr reduce_scatter_plan plan(const reduce_scatter_phase& s) { return {s}; }
};

/// Rabenseifner's allreduce: recursive-halving reduce-scatter, then
/// recursive-doubling allgather.
using rabenseifner = reduce_scatter_allgather<recursive_halving, recursive_doubling>;

}  // namespace hpcoll::schedule
