// SPDX-License-Identifier: BSD-3-Clause
// The copy kernel (exec/copy_kernel.hpp): which copies count as page-aliased,
// and that copy_bytes copies every byte, and nothing else, at every distance
// between source and destination modulo a page and at lengths around the
// block size and the aliasing threshold. Built at -O3 (tests/CMakeLists.txt),
// as the executors run it.
#include <doctest/doctest.h>

#include <hpcoll/exec/copy_kernel.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>

namespace {

using hpcoll::detail::aliased_copy_min_bytes;
using hpcoll::detail::copy_bytes;
using hpcoll::detail::copy_in_blocks;
using hpcoll::detail::page_aliased_copy;

struct pages {
  explicit pages(std::size_t bytes)
      : mem(static_cast<std::byte*>(std::aligned_alloc(4096, bytes)), std::free), size(bytes) {}
  std::unique_ptr<std::byte, decltype(&std::free)> mem;
  std::size_t size;
  std::byte* at(std::size_t offset) { return mem.get() + offset; }
};

std::byte pattern(std::size_t i) { return static_cast<std::byte>((i * 131 + 7) & 0xff); }

}  // namespace

// Page-aliased: the destination 1 to 31 bytes past the source modulo 4 KiB.
TEST_CASE("copy_kernel.page_aliased_distances") {
  constexpr std::size_t n = aliased_copy_min_bytes;
  CHECK(page_aliased_copy(4096 + 16, 0, n));       // two heap vectors of 4 KiB · k, one after the other
  CHECK(page_aliased_copy(3 * 4096 + 1, 4096, n));
  CHECK(page_aliased_copy(8192 + 31, 0, n));
  CHECK(page_aliased_copy(100 + 5, 100, n));
  CHECK_FALSE(page_aliased_copy(4096, 0, n));      // the same offset in the page: no stall
  CHECK_FALSE(page_aliased_copy(32, 0, n));
  CHECK_FALSE(page_aliased_copy(48, 0, n));
  CHECK_FALSE(page_aliased_copy(0, 16, n));        // the destination before the source
  CHECK_FALSE(page_aliased_copy(16, 0, n - 1));    // short copies never take rep movsb
}

/// How many of `copy`'s copies, at every distance modulo a page and lengths
/// around the block and the threshold, differ from the source or touch a byte
/// next to the destination.
template <class Copy>
int wrong_copies(Copy copy) {
  pages src(3 * 4096), dst(6 * 4096);
  for (std::size_t i = 0; i < src.size; ++i) *src.at(i) = pattern(i);
  const std::size_t lengths[] = {0, 1, 255, 256, 257, aliased_copy_min_bytes - 1, aliased_copy_min_bytes,
                                 aliased_copy_min_bytes + 1, 4096 + 13, 2 * 4096};
  int wrong = 0;
  for (std::size_t source_offset : {std::size_t{0}, std::size_t{24}}) {
    for (std::size_t distance = 0; distance < 4096; ++distance) {
      for (std::size_t n : lengths) {
        std::byte* to = dst.at(4096 + source_offset + distance);
        std::fill(to - 1, to + n + 1, std::byte{0xee});
        copy(to, src.at(source_offset), n);
        bool right = to[-1] == std::byte{0xee} && to[n] == std::byte{0xee};
        for (std::size_t i = 0; i < n; ++i) right = right && to[i] == pattern(source_offset + i);
        if (!right && wrong++ == 0) MESSAGE("first wrong copy: distance ", distance, ", ", n, " bytes, source offset ", source_offset);
      }
    }
  }
  return wrong;
}

TEST_CASE("copy_kernel.copies_exactly_at_every_distance") {
  CHECK(wrong_copies(copy_bytes) == 0);  // on an AMD CPU through copy_in_blocks where page-aliased
  CHECK(wrong_copies(copy_in_blocks) == 0);
}
