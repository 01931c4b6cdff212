// SPDX-License-Identifier: BSD-3-Clause
// Shapes: what a schedule needs to know about one rank's part in one call
// (who, how many, which root) — never the buffers themselves. Each shape names
// its collective (`name`, as in errors, tables and HPCOLL_<COLLECTIVE>); the
// v-collectives' shapes also say how rank q's shape of the same call looks
// (for_rank) and which of their members point into the caller's memory
// (caller_spans).
#pragma once

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <span>
#include <string_view>

#include "plan.hpp"
#include "topology.hpp"

namespace hpcoll {

/// `total` elements cut into `parts` consecutive blocks whose sizes differ by
/// at most one (the first total % parts blocks are one larger). With total a
/// multiple of parts this is the uniform layout of the block collectives.
/// With `starts` (parts + 1 offsets, the last one total) block b is
/// [starts[b], starts[b + 1]): blocks of any sizes, as an allgatherv's.
struct block_layout {
  std::size_t total = 0;
  int parts = 1;
  std::span<const std::size_t> starts{};

  constexpr std::size_t offset(int block) const {
    if (!starts.empty()) return starts[static_cast<std::size_t>(block)];
    const std::size_t q = total / static_cast<std::size_t>(parts);
    const std::size_t rem = total % static_cast<std::size_t>(parts);
    const auto b = static_cast<std::size_t>(block);
    return b * q + std::min(b, rem);
  }
  constexpr std::size_t count(int block) const { return offset(block + 1) - offset(block); }
  /// Elements of blocks [first, last).
  constexpr std::size_t count(int first, int last) const { return offset(last) - offset(first); }
  /// Blocks [first, last) of a buffer whose block 0 starts at `base`.
  constexpr region blocks(buffer buf, std::size_t base, int first, int last) const {
    return {buf, base + offset(first), count(first, last)};
  }
};

// ---- Collective shapes: one per user-facing collective -------------------
// (Their comparisons are inlined: a repeated blocking call compares its shape
// with the last one's, exec/recorded_plan.hpp.)

struct bcast_shape {
  static constexpr std::string_view name = "bcast";
  int rank, size, root;
  std::size_t count;  ///< elements of the buffer (`output` on every rank)
  std::size_t elem_size = 1;  ///< bytes per element
  node_layout_ref nodes{};    ///< the communicator's node layout, for node-aware schedules (else empty)

  [[gnu::always_inline]] friend constexpr bool operator==(const bcast_shape&, const bcast_shape&) = default;
};
/// input: count; output: count at the root (empty elsewhere).
struct reduce_shape {
  static constexpr std::string_view name = "reduce";
  int rank, size, root;
  std::size_t count;
  bool commutative = true;
  bool in_place = false;  ///< root only: input aliases output
  std::size_t elem_size = 1;  ///< bytes per element
  node_layout_ref nodes{};    ///< the communicator's node layout, for node-aware schedules (else empty)

  [[gnu::always_inline]] friend constexpr bool operator==(const reduce_shape&, const reduce_shape&) = default;
};
/// input, output: count.
struct allreduce_shape {
  static constexpr std::string_view name = "allreduce";
  int rank, size;
  std::size_t count;
  bool commutative = true;
  bool in_place = false;      ///< input aliases output
  std::size_t elem_size = 1;  ///< bytes per element
  node_layout_ref nodes{};    ///< the communicator's node layout, for node-aware schedules (else empty)

  [[gnu::always_inline]] friend constexpr bool operator==(const allreduce_shape&, const allreduce_shape&) = default;
};
/// input: count; output: size*count at the root.
struct gather_shape {
  static constexpr std::string_view name = "gather";
  int rank, size, root;
  std::size_t count;
  bool in_place = false;  ///< root only: input aliases output block `root`
  std::size_t elem_size = 1;  ///< bytes per element

  [[gnu::always_inline]] friend constexpr bool operator==(const gather_shape&, const gather_shape&) = default;
};
/// input: send_count; output at the root: counts[i] elements at displs[i].
struct gatherv_shape {
  static constexpr std::string_view name = "gatherv";
  int rank, size, root;
  std::size_t send_count;
  std::span<const std::size_t> counts;  ///< significant at the root only
  std::span<const std::size_t> displs;  ///< significant at the root only
  bool in_place = false;                ///< root only: input aliases its own block
  std::size_t elem_size = 1;  ///< bytes per element
};
/// input: size*count at the root; output: count.
struct scatter_shape {
  static constexpr std::string_view name = "scatter";
  int rank, size, root;
  std::size_t count;
  bool in_place = false;  ///< root only: output aliases input block `root`
  std::size_t elem_size = 1;  ///< bytes per element

  [[gnu::always_inline]] friend constexpr bool operator==(const scatter_shape&, const scatter_shape&) = default;
};
/// input: count; output: size*count.
struct allgather_shape {
  static constexpr std::string_view name = "allgather";
  int rank, size;
  std::size_t count;
  bool in_place = false;  ///< input aliases output block `rank`
  std::size_t elem_size = 1;  ///< bytes per element

  node_layout_ref nodes{};    ///< the communicator's node layout, for node-aware schedules (else empty)
  [[gnu::always_inline]] friend constexpr bool operator==(const allgather_shape&, const allgather_shape&) = default;
};
/// input: send_count; output, on every rank: counts[q] elements of rank q at displs[q].
struct allgatherv_shape {
  static constexpr std::string_view name = "allgatherv";
  int rank, size;
  std::size_t send_count;
  std::span<const std::size_t> counts;  ///< the same on every rank
  std::span<const std::size_t> displs;  ///< this rank's layout of its output
  /// size + 1 offsets: the blocks packed in rank order (starts[q + 1] =
  /// starts[q] + counts[q]); the layout every rank shares, whatever its displs.
  std::span<const std::size_t> starts;
  bool in_place = false;  ///< input aliases output block `rank`
  std::size_t elem_size = 1;  ///< bytes per element
  bool packed = false;        ///< displs equal starts: the blocks lie packed in rank order in this rank's output

  /// Elements of all blocks together.
  constexpr std::size_t total() const { return starts.empty() ? 0 : starts.back(); }
};

/// Whether displacements are starts' first entries (an empty block's
/// anywhere): blocks packed in rank order.
constexpr bool packed_in_rank_order(std::span<const std::size_t> displs, std::span<const std::size_t> starts) {
  if (starts.size() != displs.size() + 1) return false;
  for (std::size_t q = 0; q < displs.size(); ++q)
    if (displs[q] != starts[q] && starts[q + 1] != starts[q]) return false;
  return true;
}
/// input: size*count; output: count (block `rank` of the reduction).
struct reduce_scatter_block_shape {
  static constexpr std::string_view name = "reduce_scatter_block";
  int rank, size;
  std::size_t count;
  bool commutative = true;
  bool in_place = false;      ///< input aliases output, which then holds size*count
  std::size_t elem_size = 1;  ///< bytes per element

  [[gnu::always_inline]] friend constexpr bool operator==(const reduce_scatter_block_shape&,
                                                         const reduce_scatter_block_shape&) = default;
};
/// input, output: size*count; block j of input goes to rank j.
struct alltoall_shape {
  static constexpr std::string_view name = "alltoall";
  int rank, size;
  std::size_t count;
  bool in_place = false;  ///< input aliases output
  std::size_t elem_size = 1;  ///< bytes per element
  node_layout_ref nodes{};    ///< the communicator's node layout, for node-aware schedules (else empty)

  [[gnu::always_inline]] friend constexpr bool operator==(const alltoall_shape&, const alltoall_shape&) = default;
};
/// Block j of input (send_counts[j] at send_displs[j]) goes to rank j; block i
/// of output (recv_counts[i] at recv_displs[i]) comes from rank i.
struct alltoallv_shape {
  static constexpr std::string_view name = "alltoallv";
  int rank, size;
  std::span<const std::size_t> send_counts, send_displs, recv_counts, recv_displs;
  bool in_place = false;  ///< input aliases output (send_* describe output too)
  std::size_t elem_size = 1;  ///< bytes per element
};

// ---- Phase shapes: the building blocks composite schedules are made of ----
// Ranks are taken relative to `root` (virtual rank v = (rank - root) mod size)
// and block v of `layout` belongs to virtual rank v.

/// Before: virtual rank v holds block v in `data` (at `base` + layout offset).
/// After: every rank holds every block there.
struct allgather_phase {
  static constexpr std::string_view name = "allgather_phase";
  int rank, size, root;
  block_layout layout;
  buffer data;
  std::size_t base;
  std::size_t scratch_base;  ///< first scratch element the phase may use
  /// Where this rank's own block may also be read, when it was just copied
  /// into `data` (empty: only in `data`). Sending a block straight from the
  /// user's input avoids the receiver pulling cache lines this core has just
  /// dirtied: at np = 2 and 32 KiB blocks that halves the allgather's time.
  region own{};

  /// The region to send this rank's block alone from.
  constexpr region own_block(int v) const { return own.empty() ? layout.blocks(data, base, v, v + 1) : own; }
};
/// Before: every rank holds all blocks of its contribution in `source`.
/// After: rank v holds block v of the reduction in `acc` (at `acc_base` +
/// layout offset). `acc` may be the same memory as `source` (source_aliases_acc).
struct reduce_scatter_phase {
  static constexpr std::string_view name = "reduce_scatter_phase";
  int rank, size;
  block_layout layout;
  buffer source;
  std::size_t source_base;
  buffer acc;
  std::size_t acc_base;
  std::size_t scratch_base;
  bool commutative = true;
  bool source_aliases_acc = false;
  std::size_t elem_size = 1;
};
/// Before: the root holds every block in `data`. After: virtual rank v holds
/// block v there.
struct scatter_phase {
  static constexpr std::string_view name = "scatter_phase";
  int rank, size, root;
  block_layout layout;
  buffer data;
  std::size_t base;
  std::size_t scratch_base;
};
/// Before: rank q holds block q in `data` (at `base` + layout offset). After:
/// the root holds every block there. Unlike the phases above, blocks belong
/// to real ranks: the phase follows a reduce-scatter phase, which has no root.
struct gather_phase {
  static constexpr std::string_view name = "gather_phase";
  int rank, size, root;
  block_layout layout;
  buffer data;
  std::size_t base;
};

// ---- Per-rank views ----------------------------------------------------------

/// Rank q's shape of the call that `s` (any rank's shape) describes. Only a
/// gatherv or allgatherv shape differs beyond its rank: it must carry every
/// rank's counts (a gatherv's root's), and rank q then sends counts[q]. An
/// allgatherv's displacements and an alltoallv shape are taken as the
/// pattern of every rank.
template <class Shape>
constexpr Shape for_rank(Shape s, int q) {
  s.rank = q;
  return s;
}
constexpr gatherv_shape for_rank(gatherv_shape s, int q) {
  s.rank = q;
  if (s.counts.size() == static_cast<std::size_t>(s.size)) s.send_count = s.counts[static_cast<std::size_t>(q)];
  return s;
}
constexpr allgatherv_shape for_rank(allgatherv_shape s, int q) {
  s.rank = q;
  if (s.counts.size() == static_cast<std::size_t>(s.size)) s.send_count = s.counts[static_cast<std::size_t>(q)];
  return s;
}

/// The members of a shape that point into the caller's memory (counts,
/// displacements, an allgatherv's starts): a request, which outlives the call
/// that made it, keeps copies of what they point to.
template <class Shape>
constexpr std::array<std::span<const std::size_t>*, 0> caller_spans(Shape&) {
  return {};
}
constexpr std::array<std::span<const std::size_t>*, 2> caller_spans(gatherv_shape& s) { return {&s.counts, &s.displs}; }
constexpr std::array<std::span<const std::size_t>*, 3> caller_spans(allgatherv_shape& s) {
  return {&s.counts, &s.displs, &s.starts};
}
constexpr std::array<std::span<const std::size_t>*, 4> caller_spans(alltoallv_shape& s) {
  return {&s.send_counts, &s.send_displs, &s.recv_counts, &s.recv_displs};
}

/// Whether two shapes describe the same call, counts and displacements
/// compared by value (a recorded plan is replayed only for the same call:
/// exec/recorded_plan.hpp). A member added to a v-collective's shape must be
/// compared here too.
template <class Shape>
  requires std::equality_comparable<Shape>
[[gnu::always_inline]] constexpr bool same_call(const Shape& a, const Shape& b) {
  return a == b;
}
namespace detail {
constexpr bool same_values(std::span<const std::size_t> a, std::span<const std::size_t> b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}
}  // namespace detail
constexpr bool same_call(const gatherv_shape& a, const gatherv_shape& b) {
  return a.rank == b.rank && a.size == b.size && a.root == b.root && a.send_count == b.send_count &&
         a.in_place == b.in_place && a.elem_size == b.elem_size && detail::same_values(a.counts, b.counts) &&
         detail::same_values(a.displs, b.displs);
}
constexpr bool same_call(const allgatherv_shape& a, const allgatherv_shape& b) {
  return a.rank == b.rank && a.size == b.size && a.send_count == b.send_count && a.in_place == b.in_place &&
         a.elem_size == b.elem_size && a.packed == b.packed && detail::same_values(a.counts, b.counts) &&
         detail::same_values(a.displs, b.displs) && detail::same_values(a.starts, b.starts);
}
constexpr bool same_call(const alltoallv_shape& a, const alltoallv_shape& b) {
  return a.rank == b.rank && a.size == b.size && a.in_place == b.in_place && a.elem_size == b.elem_size &&
         detail::same_values(a.send_counts, b.send_counts) && detail::same_values(a.send_displs, b.send_displs) &&
         detail::same_values(a.recv_counts, b.recv_counts) && detail::same_values(a.recv_displs, b.recv_displs);
}

}  // namespace hpcoll
