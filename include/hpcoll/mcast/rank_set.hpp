// SPDX-License-Identifier: BSD-3-Clause
// hpcoll::rank_set — a set of ranks of a communicator of p ranks, as a bitmap
// of p bits (the member set of a dynamic multicast).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "../error.hpp"

namespace hpcoll {

class rank_set {
public:
  using word = std::uint64_t;
  static constexpr int word_bits = 64;

  rank_set() = default;
  /// The empty set of a communicator of `size` ranks.
  explicit rank_set(int size) : size_(check_size(size)), words_(words_for(size), 0) {}
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
    words_.assign(bits.begin(), bits.end());
  }

  /// The communicator size the set belongs to.
  int size() const noexcept { return size_; }
  bool empty() const noexcept {
    for (word w : words_)
      if (w) return false;
    return true;
  }
  /// Number of members.
  int count() const noexcept {
    int n = 0;
    for (word w : words_) n += bits_in(w);
    return n;
  }

  void insert(int rank) { words_[index_of(rank)] |= bit_of(rank); }
  void erase(int rank) { words_[index_of(rank)] &= ~bit_of(rank); }
  bool contains(int rank) const { return (words_[index_of(rank)] & bit_of(rank)) != 0; }

  /// The lowest member, or -1 for the empty set.
  int lowest() const noexcept {
    for (std::size_t i = 0; i < words_.size(); ++i)
      if (words_[i]) return static_cast<int>(i) * word_bits + std::countr_zero(words_[i]);
    return -1;
  }
  /// Members below `rank`: a member's logical number among the members.
  int position(int rank) const {
    const std::size_t w = index_of(rank);
    int n = bits_in(words_[w] & (bit_of(rank) - 1));
    for (std::size_t i = 0; i < w; ++i) n += bits_in(words_[i]);
    return n;
  }
  /// The member whose logical number is `k` (0 <= k < count()).
  int member(int k) const {
    int left = k;  // members still to skip
    if (left >= 0)
      for (std::size_t i = 0; i < words_.size(); ++i) {
        const int here = bits_in(words_[i]);
        if (left < here) {
          word w = words_[i];
          for (int skip = 0; skip < left; ++skip) w &= w - 1;  // drop the lowest bits
          return static_cast<int>(i) * word_bits + std::countr_zero(w);
        }
        left -= here;
      }
    throw error("", "", "rank_set::member: no member with logical number " + std::to_string(k));
  }
  /// The members in increasing order.
  std::vector<int> members() const {
    std::vector<int> out;
    out.reserve(static_cast<std::size_t>(count()));
    for (std::size_t i = 0; i < words_.size(); ++i)
      for (word w = words_[i]; w; w &= w - 1) out.push_back(static_cast<int>(i) * word_bits + std::countr_zero(w));
    return out;
  }

  /// The bitmap, bit r of word r / 64 for rank r: what travels with a message.
  std::span<const word> words() const noexcept { return words_; }

  friend bool operator==(const rank_set&, const rank_set&) = default;

private:
  /// std::popcount, inline: without a target flag for the instruction
  /// (-mpopcnt, -march=...) GCC calls a libgcc routine for it, and every
  /// multicast counts bits several times on each rank.
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

  int size_ = 0;
  std::vector<word> words_;
};

}  // namespace hpcoll
