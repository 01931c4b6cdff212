// SPDX-License-Identifier: BSD-3-Clause
// hpcoll::rank_set — a set of ranks of a communicator of p ranks, as a bitmap
// of p bits (the member set of a dynamic multicast).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "../error.hpp"

namespace hpcoll {

class rank_set {
public:
  using word = std::uint64_t;
  static constexpr int word_bits = 64;

  rank_set() = default;
  /// The empty set of a communicator of `size` ranks.
  explicit rank_set(int size) : size_(check_size(size)) {
    if (words_for(size) > inline_words) heap_.assign(words_for(size), 0);
  }
  rank_set(int size, std::initializer_list<int> members) : rank_set(size) {
    for (int r : members) insert(r);
  }
  /// Rebuilds a set from the words of words(), e.g. after receiving them.
  rank_set(int size, std::span<const word> bits) { assign(size, bits); }

  /// Becomes the set of words() `bits` of a communicator of `size` ranks,
  /// reusing its storage (a receiver rebuilds one set per message).
  void assign(int size, std::span<const word> bits) {
    const std::size_t n = words_for(check_size(size));
    if (bits.size() != n)
      throw error("", "", "rank_set: " + std::to_string(bits.size()) + " words given, a set of " +
                              std::to_string(size) + " ranks has " + std::to_string(n));
    const int used = size % word_bits;  // bits of the last word that name ranks
    if (used != 0 && (bits.back() >> used) != 0)
      throw error("", "", "rank_set: bits set beyond rank " + std::to_string(size - 1));
    size_ = size;
    if (n > inline_words) {
      inline_ = {};
      heap_.assign(bits.begin(), bits.end());
    } else {
      std::array<word, inline_words> small{};
      std::copy(bits.begin(), bits.end(), small.begin());
      inline_ = small;
      heap_.clear();
    }
    count_ = 0;
    for (word w : bits) count_ += bits_in(w);
  }

  /// The communicator size the set belongs to.
  int size() const noexcept { return size_; }
  bool empty() const noexcept { return count_ == 0; }
  /// Number of members.
  int count() const noexcept { return count_; }

  void insert(int rank) {
    word& w = stored()[index_of(rank)];
    count_ += (w & bit_of(rank)) == 0;
    w |= bit_of(rank);
  }
  void erase(int rank) {
    word& w = stored()[index_of(rank)];
    count_ -= (w & bit_of(rank)) != 0;
    w &= ~bit_of(rank);
  }
  bool contains(int rank) const { return (stored()[index_of(rank)] & bit_of(rank)) != 0; }

  /// The lowest member, or -1 for the empty set.
  int lowest() const noexcept {
    const std::span<const word> bits = stored();
    for (std::size_t i = 0; i < bits.size(); ++i)
      if (bits[i]) return static_cast<int>(i) * word_bits + std::countr_zero(bits[i]);
    return -1;
  }
  /// Members below `rank`: a member's logical number among the members.
  int position(int rank) const {
    const std::span<const word> bits = stored();
    const std::size_t w = index_of(rank);
    int n = bits_in(bits[w] & (bit_of(rank) - 1));
    for (std::size_t i = 0; i < w; ++i) n += bits_in(bits[i]);
    return n;
  }
  /// The member whose logical number is `k` (0 <= k < count()).
  int member(int k) const {
    const std::span<const word> bits = stored();
    int left = k;  // members still to skip
    if (left >= 0)
      for (std::size_t i = 0; i < bits.size(); ++i) {
        const int here = bits_in(bits[i]);
        if (left < here) {
          word w = bits[i];
          for (int skip = 0; skip < left; ++skip) w &= w - 1;  // drop the lowest bits
          return static_cast<int>(i) * word_bits + std::countr_zero(w);
        }
        left -= here;
      }
    throw error("", "", "rank_set::member: no member with logical number " + std::to_string(k));
  }
  /// The members in increasing order.
  std::vector<int> members() const {
    const std::span<const word> bits = stored();
    std::vector<int> out;
    out.reserve(static_cast<std::size_t>(count()));
    for (std::size_t i = 0; i < bits.size(); ++i)
      for (word w = bits[i]; w; w &= w - 1) out.push_back(static_cast<int>(i) * word_bits + std::countr_zero(w));
    return out;
  }

  /// The bitmap, bit r of word r / 64 for rank r: what travels with a message.
  std::span<const word> words() const noexcept { return stored(); }

  friend bool operator==(const rank_set&, const rank_set&) = default;

private:
  /// std::popcount, inline: without a target flag for the instruction
  /// (-mpopcnt, -march=...) GCC calls a libgcc routine for it, and every
  /// multicast counts bits on each rank (position(), member()).
  static constexpr int bits_in(word w) noexcept {
#ifdef __POPCNT__
    return std::popcount(w);
#else
    w -= (w >> 1) & 0x5555555555555555u;
    w = (w & 0x3333333333333333u) + ((w >> 2) & 0x3333333333333333u);
    w = (w + (w >> 4)) & 0x0f0f0f0f0f0f0f0fu;
    return static_cast<int>((w * 0x0101010101010101u) >> 56);
#endif
  }
  static int check_size(int size) {
    if (size < 0) throw error("", "", "rank_set: negative communicator size " + std::to_string(size));
    return size;
  }
  static std::size_t words_for(int size) {
    return (static_cast<std::size_t>(size) + word_bits - 1) / word_bits;
  }
  std::size_t index_of(int rank) const {
    if (rank < 0 || rank >= size_)
      throw error("", "", "rank_set: rank " + std::to_string(rank) + " is not a rank of a communicator of size " +
                              std::to_string(size_));
    return static_cast<std::size_t>(rank) / word_bits;
  }
  static word bit_of(int rank) noexcept { return word{1} << (rank % word_bits); }

  /// Sets of up to 128 ranks keep their words inline: a member returns the
  /// set of every multicast it receives, which would cost an allocation each.
  static constexpr std::size_t inline_words = 2;
  std::span<const word> stored() const noexcept {
    if (words_for(size_) > inline_words) return heap_;
    return {inline_.data(), words_for(size_)};
  }
  std::span<word> stored() noexcept {
    const std::span<const word> bits = std::as_const(*this).stored();
    return {const_cast<word*>(bits.data()), bits.size()};
  }

  int size_ = 0;
  int count_ = 0;  ///< members, kept as the set changes: every multicast asks on every rank, more than once
  std::array<word, inline_words> inline_{};  ///< the words of a set of up to 128 ranks, the rest zero
  std::vector<word> heap_;                   ///< the words of a larger set
};

}  // namespace hpcoll
