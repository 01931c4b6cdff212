// SPDX-License-Identifier: BSD-3-Clause
// The size strings and values of the benchmark programs and the applications
// (benchmarks/options.hpp: 80kB, 16M, MIN:MAX[:FACTOR], lists; apps/dijkstra's
// --generate PRESET|N): a value, or std::invalid_argument naming the text;
// the sizes a range steps through stay within it.
// The first byte picks the parser, the rest is the option's value.
#include "generator.hpp"
#include "options.hpp"

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hpcoll_fuzz;
  if (size == 0) return 0;
  const std::string value(text_of(data + 1, size - 1));
  returns_or_throws<std::invalid_argument>([&] {
    switch (data[0] % 7) {
      case 0: hpcoll_bench::parse_bytes(value); break;
      case 1: {
        const hpcoll_bench::size_range r = hpcoll_bench::parse_size_range(value, true);
        require(r.min <= r.max && r.factor >= 2, "an invalid range");
        const std::vector<std::size_t> steps = hpcoll_bench::range_sizes(r, r.min);
        for (std::size_t i = 0; i < steps.size(); ++i)
          require(steps[i] <= r.max && (i == 0 || steps[i] == steps[i - 1] * r.factor), "a wrong step");
        break;
      }
      case 2: {
        const std::vector<std::size_t> sizes = hpcoll_bench::parse_sizes(value, 1);
        require(!sizes.empty(), "no sizes");
        break;
      }
      case 3: hpcoll_bench::parse_sizes(value, 8); break;
      case 4: hpcoll_bench::parse_integer(value, 1, 1024); break;
      case 5: hpcoll_bench::parse_names(value, {"allreduce", "alltoall", "bcast"}); break;
      default: hpcoll_dijkstra::parse_generate(value); break;
    }
  });
  return 0;
}
