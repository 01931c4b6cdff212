// SPDX-License-Identifier: BSD-3-Clause
// What a multicast puts on the wire: its header message, its tags, its acks.
//
// Every member receives exactly one header message, from its parent in the
// header tree (a binomial tree over the master and the members, rooted at the
// master), and forwards it to its children at once. Small multicasts carry
// the data in the header message itself, whatever their schedule ("fused":
// one message per hop, as a broadcast on a prepared communicator, where a
// schedule's plan would add a message to the header's; the limit, 8 KiB,
// measured against 16 KiB and 4,000 bytes in docs/mcast.md); the others send
// the header alone, then run their plan under the multicast's data tag.
// Acks go under the ack tag (data tag + 1): in groups of up to
// mcast_direct_ack_limit members every member acks the master directly once
// it has the data (one hop, where a tree would take its depth); in larger
// groups acks travel up the header tree, so the master's work stays
// logarithmic in the group. The master decides and says so in the header.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "../exec/copy_kernel.hpp"
#include "../plan/ranks.hpp"
#include "rank_set.hpp"

namespace hpcoll::detail {

/// Header messages use this tag; any source may send one at any time.
inline constexpr int mcast_header_tag = 0;
/// Multicasts of up to this many bytes send the data inside the header message.
inline constexpr std::size_t mcast_fused_limit = 8192;
/// Up to this many members, each acks the master directly (the default of
/// mcast_channel::direct_ack_limit).
inline constexpr int mcast_direct_ack_limit = 64;

/// The fixed part of a header message; the member bitmap follows (one word
/// per 64 ranks of the communicator), then the data when fused.
struct mcast_header {
  static constexpr std::uint32_t expected_magic = 0x68706d63;  // "hpmc"
  std::uint32_t magic = expected_magic;
  std::uint16_t schedule = 0;  ///< index in schedule::candidates<mcast_shape>
  std::uint8_t fused = 0;
  std::uint8_t acks_direct = 0;  ///< every member acks the master (else its parent in the header tree)
  std::int32_t master = 0;
  std::int32_t tag = 0;  ///< the multicast's data tag; its ack tag is tag + 1
  std::uint64_t bytes = 0;
};
static_assert(sizeof(mcast_header) == 24);

/// Bytes of a header message before the data, for a communicator of `size` ranks.
inline std::size_t mcast_prefix_bytes(int size) {
  return sizeof(mcast_header) + (static_cast<std::size_t>(size) + 63) / 64 * sizeof(rank_set::word);
}

/// The header message of a multicast: header, bitmap and, when fused, the data.
inline void pack_mcast_message(std::vector<std::byte>& out, const mcast_header& h, const rank_set& members,
                               const std::byte* data) {
  const std::size_t prefix = mcast_prefix_bytes(members.size());
  out.resize(prefix + (h.fused ? h.bytes : 0));
  std::memcpy(out.data(), &h, sizeof h);
  std::memcpy(out.data() + sizeof h, members.words().data(), members.words().size_bytes());
  if (h.fused && h.bytes) copy_bytes(out.data() + prefix, data, h.bytes);
}

/// What a member reports once it (in the tree: its subtree) has the data: the
/// lowest such rank whose receive buffer was too small, if any.
struct mcast_ack {
  std::int64_t failed_rank = -1;
  std::int64_t capacity = 0;  ///< that member's receive buffer, in bytes

  bool ok() const { return failed_rank < 0; }
  void merge(const mcast_ack& child) {
    if (!child.ok() && (ok() || child.failed_rank < failed_rank)) *this = child;
  }
};
inline constexpr int mcast_ack_words = 2;  // travels as two MPI_INT64_T

/// Calls f(rank) for the children of `rank` (the master or a member) in the
/// header tree, largest subtree first: the ranks it sends the header to (and
/// hears acks from, when acks travel up the tree). The header tree is the
/// binomial tree over logical numbers 0..r rooted at the master (0); member k
/// (0-based, ascending ranks) is k + 1, so a header travels as far as a
/// broadcast over {master} ∪ members would. Position v's children are
/// v + m for the powers of two m within its subtree (below v's lowest set
/// bit; the whole tree at 0): no division, as every multicast walks this on
/// every rank.
template <class F>
void for_each_mcast_child(const rank_set& members, int master, int rank, F&& f) {
  const int v = rank == master ? 0 : members.position(rank) + 1;
  const int tree_size = members.count() + 1;
  const int subtree = v == 0 ? tree_size : std::min(lowest_bit(v), tree_size - v);
  for (int m = subtree > 1 ? floor_pow2(subtree - 1) : 0; m >= 1; m /= 2) f(members.member(v + m - 1));
}

}  // namespace hpcoll::detail
