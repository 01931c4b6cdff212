// SPDX-License-Identifier: BSD-3-Clause
// The byte copy every executor uses: memcpy, around one slow case of it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace hpcoll::detail {

/// Copies of fewer bytes than this never take the slow case below (glibc's
/// x86 memcpy copies up to 2,112 bytes with vector moves; `rep movsb` from there).
inline constexpr std::size_t aliased_copy_min_bytes = 2048;

/// Whether a copy of `bytes` from `from` to `to` is one that glibc's memcpy
/// makes slow on AMD CPUs: the destination 1 to 31 bytes past the source
/// modulo a 4 KiB page. glibc (2.36 in Debian 12) copies 2 KiB and more with
/// `rep movsb` on CPUs that announce fast short rep movsb (FSRM), and AMD
/// Zen 3 and 4 run that 15–30 times slower at such a distance (glibc bug
/// 30994; measured in docs/performance.md, "memcpy at a page-aliased
/// distance"). It is common: two heap vectors of a multiple of 4 KiB
/// allocated one after the other lie 4 KiB · k + 16 bytes apart.
constexpr bool page_aliased_copy(std::uintptr_t to, std::uintptr_t from, std::size_t bytes) {
  const std::uintptr_t distance = (to - from) % 4096;
  return bytes >= aliased_copy_min_bytes && distance != 0 && distance < 32;
}

/// Whether this CPU is one that stalls on page-aliased copies (an AMD one).
/// Read once at start-up; before its initialisation has run (a collective
/// called from another static initialiser) it is false: plain memcpy.
inline const bool cpu_stalls_on_aliased_copies = [] {
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
  __builtin_cpu_init();
  return __builtin_cpu_is("amd") != 0;
#else
  return false;
#endif
}();

/// memcpy(to, from, bytes) in blocks of 256 bytes, each copied with vector
/// moves (inlined by the compiler, or by memcpy itself at that size): about as
/// fast as memcpy at any distance, with no `rep movsb` to stall.
inline void copy_in_blocks(void* to, const void* from, std::size_t bytes) noexcept {
  constexpr std::size_t block = 256;
  auto* d = static_cast<std::byte*>(to);
  const auto* s = static_cast<const std::byte*>(from);
  std::size_t i = 0;
  for (; i + block <= bytes; i += block) __builtin_memcpy(d + i, s + i, block);
  std::memcpy(d + i, s + i, bytes - i);
}

/// memcpy(to, from, bytes), in blocks where it would stall.
inline void copy_bytes(void* to, const void* from, std::size_t bytes) noexcept {
  if (cpu_stalls_on_aliased_copies &&
      page_aliased_copy(reinterpret_cast<std::uintptr_t>(to), reinterpret_cast<std::uintptr_t>(from), bytes))
    return copy_in_blocks(to, from, bytes);
  std::memcpy(to, from, bytes);
}

}  // namespace hpcoll::detail
