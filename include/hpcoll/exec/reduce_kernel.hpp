// SPDX-License-Identifier: BSD-3-Clause
// The element-wise combine loop every executor uses.
#pragma once

#include <cstddef>
#include <type_traits>

// A build for the baseline x86-64 vectorises with 16-byte SSE2 vectors only,
// while MPI libraries choose wider ones at run time (Open MPI's op/avx): on an
// AVX2 machine a long combine then takes twice the instructions MPI_Reduce
// does. The loop is compiled a second time for AVX2 and chosen when the CPU
// has it, unless the whole build already targets AVX2.
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__) && !defined(__AVX2__)
#define HPCOLL_COMBINE_AVX2 1
#else
#define HPCOLL_COMBINE_AVX2 0
#endif

namespace hpcoll::detail {

template <class T, class Op>
[[gnu::always_inline]] inline void combine_loop(T* dst, const T* left, const T* right, std::size_t n, const Op& op) {
  for (std::size_t i = 0; i < n; ++i) dst[i] = op(left[i], right[i]);
}

#if HPCOLL_COMBINE_AVX2
/// combine_loop compiled for AVX2 (it and the op, compiled for the baseline,
/// are inlined into it); only called where cpu_has_avx2.
template <class T, class Op>
[[gnu::target("avx2")]] void combine_loop_avx2(T* dst, const T* left, const T* right, std::size_t n, const Op& op) {
  combine_loop(dst, left, right, n, op);
}

/// Read once at start-up. Before its initialisation has run (a collective
/// called from another static initialiser) it is false: the baseline loop.
inline const bool cpu_has_avx2 = [] {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") != 0;
}();
#endif

/// The fewest bytes of arithmetic elements for which combine() takes the AVX2
/// loop: below this a loop of a few vectors gains less than the call costs.
inline constexpr std::size_t wide_combine_bytes = 256;

/// The instruction set combine() uses for long vectors of arithmetic types on
/// this machine, as a name (for tests and reports).
inline const char* combine_instruction_set() {
#if HPCOLL_COMBINE_AVX2
  if (cpu_has_avx2) return "avx2 (chosen at run time)";
  return "baseline (this CPU has no AVX2)";
#else
  return "as compiled";
#endif
}

/// dst[i] = op(left[i], right[i]). dst may be left or right (the same
/// elements, never a shifted overlap); with an inlined op on arithmetic types
/// the compiler vectorises the loop behind a runtime alias check, in AVX2
/// from wide_combine_bytes where cpu_has_avx2. Up to 4 such elements are
/// combined one by one: a tiny reduction (a counter or two) spent more in the
/// loop's alias checks and set-up than in its elements.
template <class T, class Op>
inline void combine(T* dst, const T* left, const T* right, std::size_t n, const Op& op) {
  if constexpr (std::is_arithmetic_v<T>) {
    switch (n) {  // each element on its own: dst may be left or right
      case 4: dst[3] = op(left[3], right[3]); [[fallthrough]];
      case 3: dst[2] = op(left[2], right[2]); [[fallthrough]];
      case 2: dst[1] = op(left[1], right[1]); [[fallthrough]];
      case 1: dst[0] = op(left[0], right[0]); [[fallthrough]];
      case 0: return;
      default: break;
    }
#if HPCOLL_COMBINE_AVX2
    if (n * sizeof(T) >= wide_combine_bytes && cpu_has_avx2) return combine_loop_avx2(dst, left, right, n, op);
#endif
  }
  combine_loop(dst, left, right, n, op);
}

}  // namespace hpcoll::detail
