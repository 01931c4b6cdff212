// SPDX-License-Identifier: BSD-3-Clause
// The tuning table (select/tuning.hpp): any text gives a table or an
// hpcoll::error; every entry of a table names a candidate of its collective
// and a non-empty range.
#include <hpcoll/select/tuning.hpp>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hpcoll_fuzz;
  returns_or_throws<hpcoll::error>([&] {
    const hpcoll::tuning_table t = hpcoll::parse_tuning_table(text_of(data, size), "fuzz.json");
    for (const hpcoll::tuning_entry& e : t.entries) {
      require(1 <= e.min_ranks && e.min_ranks <= e.max_ranks && e.min_bytes <= e.max_bytes, "an empty range");
      require(t.find(e.collective, e.min_ranks, e.min_bytes) != nullptr, "an entry that covers nothing");
    }
  });
  return 0;
}
