// SPDX-License-Identifier: BSD-3-Clause
// Flat (single-hop) patterns shared by the linear, linear_sync and pairwise
// schedules: they differ only in how many peers one round serves and, for
// all-to-all, in who pairs with whom.
#pragma once

#include <algorithm>
#include <bit>
#include <concepts>
#include <cstddef>
#include <utility>

#include "../plan/plan.hpp"
#include "../plan/shape.hpp"
#include "properties.hpp"

namespace hpcoll::schedule::flat {

/// Rounds needed to serve `peers` peers, `window` per round (at least one
/// round, so a lone rank still makes its local copy).
constexpr int windows(int peers, int window) { return peers <= 0 ? 1 : (peers + window - 1) / window; }

/// For the cost walk (cost_hint_sink): the rounds from window round r on that
/// cost what r does — those after the first (which also places the own block)
/// up to the last full window — or 0 outside them.
constexpr int alike_windows_from(int r, int peers, int window) {
  const int last_full = peers / window - 1;
  return r >= 1 && r <= last_full ? last_full - r + 1 : 0;
}

/// Many-to-one and one-to-many around a root: non-root q is the root's
/// ((q - root - 1) mod size)-th peer and is served in round index / window.
struct rooted_rounds {
  int rank, size, root, window;
  constexpr int rounds() const { return windows(size - 1, window); }
  constexpr bool my_round(int r) const { return ((rank - root - 1 + size) % size) / window == r; }
  /// Peers served in round r.
  constexpr int peer_count(int r) const { return std::min(size - 1, (r + 1) * window) - r * window; }
  template <class F>
  constexpr void peers(int r, F&& f) const {
    const int last = std::min(size - 1, (r + 1) * window);
    for (int i = r * window; i < last; ++i) f((root + 1 + i) % size);
  }
};

/// What a rank contributes to a gather, and where rank q's block lands at
/// the root: uniform blocks, or the counts and displacements of a gatherv.
inline constexpr std::size_t own_count(const gather_shape& s) { return s.count; }
inline constexpr std::size_t own_count(const gatherv_shape& s) { return s.send_count; }
inline constexpr region root_block(const gather_shape& s, int q) { return out(static_cast<std::size_t>(q) * s.count, s.count); }
inline constexpr region root_block(const gatherv_shape& s, int q) {
  const auto i = static_cast<std::size_t>(q);
  return out(s.counts[i] ? s.displs[i] : 0, s.counts[i]);  // an empty block's displacement means nothing
}

/// Gather and gatherv by single hops into the root's output.
template <class Shape>
struct gather_plan {
  Shape s;
  rooted_rounds g;
  constexpr int rounds() const { return g.rounds(); }
  constexpr std::size_t scratch_elems() const { return 0; }
  template <class Emit>
  constexpr void round(int r, Emit&& emit) const {
    // The root is the busiest rank: its full windows cost alike.
    if constexpr (cost_hint_sink<Emit>) emit.repeat(1, alike_windows_from(r, s.size - 1, g.window));
    const region mine = in(0, own_count(s));
    if (s.rank != s.root) {
      if (g.my_round(r)) emit(step::send(s.root, mine));
      return;
    }
    if (r == 0 && !s.in_place) emit(step::copy(mine, root_block(s, s.root)));
    if constexpr (cost_hint_sink<Emit>) {
      emit.load(round_load::receiving(g.peer_count(r), own_count(s)));  // the blocks are alike
      return;
    }
    g.peers(r, [&](int q) { emit(step::recv(q, root_block(s, q))); });
  }
};

/// Scatter by single hops from the root's input.
struct scatter_plan {
  scatter_shape s;
  rooted_rounds g;
  constexpr int rounds() const { return g.rounds(); }
  constexpr std::size_t scratch_elems() const { return 0; }
  template <class Emit>
  constexpr void round(int r, Emit&& emit) const {
    const std::size_t n = s.count;
    const auto block = [&](int q) { return in(static_cast<std::size_t>(q) * n, n); };
    if constexpr (cost_hint_sink<Emit>) emit.repeat(1, alike_windows_from(r, s.size - 1, g.window));  // as in gather
    if (s.rank != s.root) {
      if (g.my_round(r)) emit(step::recv(s.root, out(0, n)));
      return;
    }
    if (r == 0 && !s.in_place) emit(step::copy(block(s.root), out(0, n)));
    if constexpr (cost_hint_sink<Emit>) {
      emit.load(round_load::sending(g.peer_count(r), n));
      return;
    }
    g.peers(r, [&](int q) { emit(step::send(q, block(q))); });
  }
};

/// The flat plan of a rooted collective with `window` peers per round.
template <class Shape>
constexpr auto rooted(const Shape& s, int window) {
  const rooted_rounds g{s.rank, s.size, s.root, std::max(1, window)};
  if constexpr (std::same_as<Shape, scatter_shape>)
    return scatter_plan{s, g};
  else
    return gather_plan<Shape>{s, g};
}

/// Where block j of an all-to-all lives: uniform blocks of `count`, or the
/// counts and displacements of an alltoallv.
inline constexpr std::pair<std::size_t, std::size_t> send_block(const alltoall_shape& s, int j) {
  return {static_cast<std::size_t>(j) * s.count, s.count};
}
inline constexpr std::pair<std::size_t, std::size_t> recv_block(const alltoall_shape& s, int j) { return send_block(s, j); }
inline constexpr std::pair<std::size_t, std::size_t> send_block(const alltoallv_shape& s, int j) {
  const auto i = static_cast<std::size_t>(j);
  return {s.send_counts[i] ? s.send_displs[i] : 0, s.send_counts[i]};  // an empty block's displacement means nothing
}
inline constexpr std::pair<std::size_t, std::size_t> recv_block(const alltoallv_shape& s, int j) {
  const auto i = static_cast<std::size_t>(j);
  return {s.recv_counts[i] ? s.recv_displs[i] : 0, s.recv_counts[i]};
}
inline constexpr std::size_t output_extent(const alltoall_shape& s) { return static_cast<std::size_t>(s.size) * s.count; }
inline constexpr std::size_t output_extent(const alltoallv_shape& s) {
  std::size_t e = 0;
  for (int j = 0; j < s.size; ++j) {
    const auto [offset, count] = recv_block(s, j);
    e = std::max(e, offset + count);
  }
  return e;
}

/// How the all-to-all rounds pair ranks up.
enum class pairing {
  shifted,  ///< round d: send to rank + d, receive from rank − d
  exclusive_or  ///< round d: exchange with rank ^ d (size a power of two)
};

/// All-to-all by single hops, `window` distances per round. A block that is
/// received in the round its own position is sent cannot be in place, so in
/// place the plan first copies the whole output to scratch (a round of its
/// own, because receives are posted before local steps run) and sends from
/// there.
template <class Shape>
struct exchange_plan {
  /// Every rank exchanges with the same offsets, or partners by exclusive or
  /// (round_nodes_alike; a node size dividing a power of two is one too).
  static constexpr bool nodes_alike = true;
  Shape s;
  int window;
  pairing pairs;

  constexpr int prep_rounds() const { return s.in_place ? 1 : 0; }
  constexpr int rounds() const { return windows(s.size - 1, window) + prep_rounds(); }
  constexpr std::size_t scratch_elems() const { return s.in_place ? output_extent(s) : 0; }

  constexpr region source(int j) const {
    const auto [offset, count] = send_block(s, j);
    return s.in_place ? tmp(offset, count) : in(offset, count);
  }
  constexpr region target(int j) const {
    const auto [offset, count] = recv_block(s, j);
    return out(offset, count);
  }

  template <class Emit>
  constexpr void round(int r, Emit&& emit) const {
    if (r < prep_rounds()) {
      const std::size_t extent = output_extent(s);
      if (extent) emit(step::copy(out(0, extent), tmp(0, extent)));
      return;
    }
    r -= prep_rounds();
    if (r == 0) emit(step::copy(source(s.rank), target(s.rank)));
    const int last = std::min(s.size - 1, (r + 1) * window);
    if constexpr (cost_hint_sink<Emit>) {
      // Every rank does alike, and so does every full window after the first.
      emit.repeat(1, alike_windows_from(r, s.size - 1, window));
      const int peers = last - r * window;
      emit.load(round_load::receiving(peers, target(s.rank).count));  // the blocks are alike
      emit.load(round_load::sending(peers, source(s.rank).count));
      return;
    }
    for (int d = r * window + 1; d <= last; ++d) {
      const int from = pairs == pairing::exclusive_or ? s.rank ^ d : (s.rank - d + s.size) % s.size;
      const int to = pairs == pairing::exclusive_or ? s.rank ^ d : (s.rank + d) % s.size;
      emit(step::recv(from, target(from)));
      emit(step::send(to, source(to)));
    }
  }
};

template <class Shape>
constexpr exchange_plan<Shape> exchange(const Shape& s, int window, pairing pairs = pairing::shifted) {
  return {s, std::max(1, window), pairs};
}

/// pairing::exclusive_or when the size allows it.
constexpr pairing best_pairing(int size) {
  return std::has_single_bit(static_cast<unsigned>(size)) ? pairing::exclusive_or : pairing::shifted;
}

}  // namespace hpcoll::schedule::flat
