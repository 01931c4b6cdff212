// SPDX-License-Identifier: BSD-3-Clause
// Reduce as a reduce-scatter followed by a gather to the root: every rank
// reduces and sends (p−1)/p of the vector instead of the whole vector lg p
// times, so large vectors pay about 2·(p−1)/p·nβ + (p−1)/p·nγ.
#pragma once

#include <string>

#include "../plan/sequence.hpp"
#include "../plan/shape.hpp"
#include "binomial.hpp"
#include "properties.hpp"
#include "recursive_halving.hpp"

namespace hpcoll::schedule {

/// Reduce as a reduce-scatter phase, which leaves block r of the reduction
/// at rank r, then a gather phase that brings the blocks to the root. The
/// root reduces in its output; the other ranks in scratch.
template <class ReduceScatter, class Gather>
struct reduce_scatter_gather {
  static std::string name() { return composite_name<ReduceScatter, Gather>("reduce_scatter_gather"); }
  static constexpr bool sampled_cost = samples_ranks<ReduceScatter> && samples_ranks<Gather>;
  static constexpr auto plan(const reduce_shape& s) {
    const bool root = s.rank == s.root;
    const block_layout layout{s.count, s.size};
    const buffer acc = root ? buffer::output : buffer::scratch;
    const reduce_scatter_phase rs{.rank = s.rank,
                                  .size = s.size,
                                  .layout = layout,
                                  .source = s.in_place ? buffer::output : buffer::input,
                                  .source_base = 0,
                                  .acc = acc,
                                  .acc_base = 0,
                                  .scratch_base = root ? 0 : s.count,
                                  .commutative = s.commutative,
                                  .source_aliases_acc = s.in_place,
                                  .elem_size = s.elem_size};
    const gather_phase gather{.rank = s.rank, .size = s.size, .root = s.root, .layout = layout, .data = acc, .base = 0};
    return sequence(ReduceScatter::plan(rs), Gather::plan(gather));
  }
};

/// Rabenseifner's reduce: recursive-halving reduce-scatter, then binomial gather.
using rabenseifner_reduce = reduce_scatter_gather<recursive_halving, binomial>;

}  // namespace hpcoll::schedule
