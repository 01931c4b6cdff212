// SPDX-License-Identifier: BSD-3-Clause
// The benchmark programs' option values (options.hpp) without MPI: sizes,
// size ranges and the sizes a range steps through, up to the largest values
// a size can have (inputs the fuzz target tests/fuzz/sizes_fuzz.cpp found).
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "options.hpp"

namespace {

using hpcoll_bench::parse_bytes;
using hpcoll_bench::parse_size_range;
using hpcoll_bench::parse_sizes;
using hpcoll_bench::range_sizes;
using hpcoll_bench::size_range;

constexpr std::size_t largest = std::numeric_limits<std::size_t>::max();

}  // namespace

TEST_CASE("bench_options.bytes") {
  CHECK(parse_bytes("80kB") == 80000);
  CHECK(parse_bytes("16Mi") == std::size_t{16} << 20);
  CHECK(parse_bytes("18446744073709551615") == largest);
  CHECK(parse_bytes("17179869183G") == std::size_t{17179869183} << 30);
  CHECK_THROWS_WITH_AS(parse_bytes("17179869184G"), "'17179869184G' is too large a size", std::invalid_argument);
  CHECK_THROWS_AS(parse_bytes("8 kB"), std::invalid_argument);
}

TEST_CASE("bench_options.range_sizes") {
  CHECK(range_sizes(size_range{8, 128, 4}, 8) == std::vector<std::size_t>{8, 32, 128});
  CHECK(range_sizes(size_range{8, 100, 4}, 8) == std::vector<std::size_t>{8, 32});
  CHECK(range_sizes(size_range{8, 8, 2}, 8) == std::vector<std::size_t>{8});
  CHECK(range_sizes(size_range{0, 64, 4}, 0).empty());
  CHECK(range_sizes(size_range{8, 64, 4}, 128).empty());
  // A MAX near 2^64: the steps stop at the last size below it instead of wrapping to 0 and
  // repeating forever.
  const std::vector<std::size_t> to_max = range_sizes(size_range{1, largest, 4}, 1);
  REQUIRE(to_max.size() == 32);
  CHECK(to_max.back() == std::size_t{1} << 62);
  const std::vector<std::size_t> by_3 = range_sizes(size_range{1, largest, 3}, 1);
  CHECK(by_3.size() == 41);  // 3^40 < 2^64 <= 3^41
  CHECK(range_sizes(size_range{largest, largest, 2}, largest) == std::vector<std::size_t>{largest});
}

TEST_CASE("bench_options.sizes") {
  CHECK(parse_sizes("8:128", 1) == std::vector<std::size_t>{8, 32, 128});
  CHECK(parse_sizes("0:64", 8) == std::vector<std::size_t>{8, 32});
  CHECK(parse_sizes("8,64,4K", 1) == std::vector<std::size_t>{8, 64, 4096});
  CHECK(parse_sizes("1:18446744073709551615", 1).size() == 32);
  CHECK(parse_sizes("0:17179869183G", 8).size() == 31);
  CHECK_THROWS_WITH_AS(parse_sizes(",", 1), "no sizes in ','", std::invalid_argument);
  const size_range r = parse_size_range("8:1M:2", true);
  CHECK(r.min == 8);
  CHECK(r.max == std::size_t{1} << 20);
  CHECK(r.factor == 2);
  CHECK_THROWS_AS(parse_size_range("8:1M:1", true), std::invalid_argument);
  CHECK_THROWS_AS(parse_size_range("8:1M:2"), std::invalid_argument);
}
