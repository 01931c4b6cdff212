// SPDX-License-Identifier: BSD-3-Clause
// What every fuzz target checks: a parser either returns a value or throws
// its documented error type with a message; anything else (another exception,
// an empty message) stops the fuzzer with the input that caused it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string_view>

namespace hpcoll_fuzz {

/// Aborts (libFuzzer keeps the input) with `why`.
[[noreturn]] inline void fail(const char* why, const char* detail = "") {
  std::fprintf(stderr, "fuzz target: %s%s%s\n", why, *detail ? ": " : "", detail);
  std::abort();
}

inline void require(bool condition, const char* why) {
  if (!condition) fail(why);
}

/// Runs `parse`; an exception must be an `Expected` with a non-empty message.
template <class Expected, class Parse>
void returns_or_throws(Parse&& parse) {
  try {
    parse();
  } catch (const Expected& e) {
    if (std::string_view(e.what()).empty()) fail("the error has no message");
  } catch (const std::exception& e) {
    fail("an undocumented exception", e.what());
  }
}

inline std::string_view text_of(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace hpcoll_fuzz
