// SPDX-License-Identifier: BSD-3-Clause
// Composite schedules: built from phase schedules given as template
// arguments, never rewritten. Any schedule that provides the phase serves.
#pragma once

#include <cstddef>
#include <string>

#include "../plan/sequence.hpp"
#include "../plan/shape.hpp"
#include "properties.hpp"

namespace hpcoll::schedule {

/// Allreduce as a reduce-scatter followed by an allgather (Rabenseifner's
/// algorithm for <recursive_halving, recursive_doubling>; the ring allreduce
/// for <ring, ring>). The count is cut into `size` blocks differing by at most
/// one element; the reduce-scatter leaves block r reduced in rank r's output,
/// the allgather spreads the blocks.
template <class ReduceScatter, class Allgather>
struct reduce_scatter_allgather {
  static std::string name() { return composite_name<ReduceScatter, Allgather>("reduce_scatter_allgather"); }
  static constexpr bool sampled_cost = samples_ranks<ReduceScatter> && samples_ranks<Allgather>;
  static constexpr bool cost_hints = gives_cost_hints<ReduceScatter> || gives_cost_hints<Allgather>;
  static constexpr auto plan(const allreduce_shape& s) {
    const block_layout layout{s.count, s.size};
    const reduce_scatter_phase rs{.rank = s.rank,
                                  .size = s.size,
                                  .layout = layout,
                                  .source = s.in_place ? buffer::output : buffer::input,
                                  .source_base = 0,
                                  .acc = buffer::output,
                                  .acc_base = 0,
                                  .scratch_base = 0,
                                  .commutative = s.commutative,
                                  .source_aliases_acc = s.in_place,
                                  .elem_size = s.elem_size};
    const allgather_phase ag{.rank = s.rank, .size = s.size, .root = 0, .layout = layout,
                             .data = buffer::output, .base = 0, .scratch_base = 0};
    return sequence(ReduceScatter::plan(rs), Allgather::plan(ag));
  }
};

/// Broadcast as a scatter followed by an allgather (van de Geijn): the root's
/// buffer is cut into `size` blocks, scattered, then gathered by everyone.
/// MPICH's scatter_ring_allgather is <binomial, ring>, its
/// scatter_recursive_doubling_allgather <binomial, recursive_doubling>.
template <class Scatter, class Allgather>
struct scatter_allgather {
  static std::string name() { return composite_name<Scatter, Allgather>("scatter_allgather"); }
  static constexpr bool sampled_cost = samples_ranks<Scatter> && samples_ranks<Allgather>;
  static constexpr bool cost_hints = gives_cost_hints<Scatter> || gives_cost_hints<Allgather>;
  static constexpr auto plan(const bcast_shape& s) {
    const block_layout layout{s.count, s.size};
    const scatter_phase sc{.rank = s.rank, .size = s.size, .root = s.root, .layout = layout,
                           .data = buffer::output, .base = 0, .scratch_base = 0};
    const allgather_phase ag{.rank = s.rank, .size = s.size, .root = s.root, .layout = layout,
                             .data = buffer::output, .base = 0, .scratch_base = 0};
    return sequence(Scatter::plan(sc), Allgather::plan(ag));
  }
};

/// Allreduce as a reduce to rank 0 followed by a broadcast from it. The
/// reduce's order is kept, so the pair serves non-commutative ops whenever
/// the reduce does.
template <class Reduce, class Bcast>
struct reduce_bcast {
  static std::string name() { return composite_name<Reduce, Bcast>("reduce_bcast"); }
  static constexpr bool sampled_cost = samples_ranks<Reduce> && samples_ranks<Bcast>;
  static constexpr bool cost_hints = gives_cost_hints<Reduce> || gives_cost_hints<Bcast>;
  static constexpr auto plan(const allreduce_shape& s) {
    const reduce_shape r{s.rank, s.size, 0, s.count, s.commutative, s.in_place && s.rank == 0, s.elem_size};
    const bcast_shape b{s.rank, s.size, 0, s.count, s.elem_size};
    return sequence(Reduce::plan(r), Bcast::plan(b));
  }
};

}  // namespace hpcoll::schedule
