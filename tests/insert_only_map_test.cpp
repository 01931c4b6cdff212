// SPDX-License-Identifier: BSD-3-Clause
// detail::insert_only_map, the lock-free lookup behind the per-communicator
// decisions and schedule counters: keys in the table and beyond it, values
// that stay put, and threads adding and counting the same keys at once.
#include <doctest/doctest.h>

#include <hpcoll/insert_only_map.hpp>

#include <atomic>
#include <cstdint>
#include <map>
#include <thread>
#include <vector>

using counts = hpcoll::detail::insert_only_map<int, std::atomic<std::uint64_t>, 8>;
using values = hpcoll::detail::insert_only_map<int, int, 8>;

// A poor hash on purpose: keys collide and probe past each other.
std::size_t bucket(int key) { return static_cast<std::size_t>(key % 3); }

TEST_CASE("insert_only_map.table_and_beyond") {
  values map;
  for (int key = 0; key < 20; ++key) CHECK(map.find(key, bucket(key)) == nullptr);
  std::vector<int*> where;
  for (int key = 0; key < 20; ++key) where.push_back(&map.add(key, bucket(key), 100 + key));  // 8 in the table, 12 beyond
  for (int key = 0; key < 20; ++key) {
    int* found = map.find(key, bucket(key));
    REQUIRE(found != nullptr);
    CHECK(*found == 100 + key);
    CHECK(found == where[static_cast<std::size_t>(key)]);      // values stay where they are
    CHECK(&map.add(key, bucket(key), -1) == found);              // adding again keeps the first value
  }
  CHECK(map.find(20, bucket(20)) == nullptr);
  std::map<int, int> seen;
  map.for_each([&](int key, int value) { seen[key] = value; });
  CHECK(seen.size() == 20);
  CHECK(seen[19] == 119);
}

TEST_CASE("insert_only_map.threads_count_alike") {
  counts map;
  constexpr int threads = 4, keys = 12, rounds = 2400;  // more keys than the table holds
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&map, t] {
      for (int i = 0; i < rounds; ++i) {
        const int key = (i + t) % keys;
        map.add(key, bucket(key), 0).fetch_add(1, std::memory_order_relaxed);
      }
    });
  for (std::thread& th : pool) th.join();
  std::map<int, std::uint64_t> seen;
  map.for_each([&](int key, const std::atomic<std::uint64_t>& n) { seen[key] += n.load(); });
  REQUIRE(seen.size() == keys);  // each key once, whichever thread added it
  std::uint64_t total = 0;
  for (const auto& [key, n] : seen) {
    CHECK(n == threads * rounds / keys);
    total += n;
  }
  CHECK(total == threads * rounds);
}
