// SPDX-License-Identifier: BSD-3-Clause
// hpcoll::rank_set: the member set of a dynamic multicast, against a plain
// std::vector<bool> model on random sets at sizes around the word boundaries.
#include <doctest/doctest.h>

#include <hpcoll/mcast/rank_set.hpp>

#include <algorithm>
#include <random>
#include <vector>

#include "support/error_checks.hpp"

using hpcoll_test::contains;
using hpcoll_test::error_of;

TEST_CASE("rank_set.model") {
  std::mt19937 rng(7);
  for (int p : {1, 2, 3, 7, 8, 63, 64, 65, 127, 128, 129, 1000}) {
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<bool> model(static_cast<std::size_t>(p));
      hpcoll::rank_set set(p);
      std::bernoulli_distribution pick(trial / 20.0);
      for (int r = 0; r < p; ++r)
        if (pick(rng)) {
          model[static_cast<std::size_t>(r)] = true;
          set.insert(r);
        }
      std::vector<int> expected;
      for (int r = 0; r < p; ++r)
        if (model[static_cast<std::size_t>(r)]) expected.push_back(r);
      CHECK(set.size() == p);
      CHECK(set.members() == expected);
      CHECK(set.count() == static_cast<int>(expected.size()));
      CHECK(set.empty() == expected.empty());
      CHECK(set.lowest() == (expected.empty() ? -1 : expected.front()));
      for (int r = 0; r < p; ++r) CHECK(set.contains(r) == model[static_cast<std::size_t>(r)]);
      for (std::size_t k = 0; k < expected.size(); ++k) {
        CHECK(set.position(expected[k]) == static_cast<int>(k));
        CHECK(set.member(static_cast<int>(k)) == expected[k]);
      }
      const hpcoll::rank_set copy(p, set.words());
      CHECK(copy == set);
      if (!expected.empty()) {
        set.erase(expected.back());
        CHECK(set.count() == static_cast<int>(expected.size()) - 1);
        CHECK(!set.contains(expected.back()));
      }
    }
  }
}

TEST_CASE("rank_set.inserts_and_erases") {
  // The set keeps its count as it changes: inserting a member again or
  // erasing a rank that is not one leaves it as it is.
  std::mt19937 rng(11);
  for (int p : {1, 5, 64, 65, 200}) {
    std::vector<bool> model(static_cast<std::size_t>(p));
    hpcoll::rank_set set(p);
    std::uniform_int_distribution<int> rank(0, p - 1);
    for (int op = 0; op < 4 * p; ++op) {
      const int r = rank(rng);
      if (op % 3 == 2) {
        set.erase(r);
        model[static_cast<std::size_t>(r)] = false;
      } else {
        set.insert(r);
        model[static_cast<std::size_t>(r)] = true;
      }
      const auto members = static_cast<int>(std::count(model.begin(), model.end(), true));
      REQUIRE(set.count() == members);
      CHECK(set.empty() == (members == 0));
    }
    CHECK(hpcoll::rank_set(p, set.words()) == set);  // a set rebuilt from its words counts the same
  }
  CHECK(hpcoll::rank_set(4, {1, 1, 3}).count() == 2);
}

TEST_CASE("rank_set.full_words") {
  // Every bit of a word set: the edge case of counting bits.
  for (int p : {64, 128, 129}) {
    hpcoll::rank_set set(p);
    for (int r = 0; r < p; ++r) set.insert(r);
    CHECK(set.count() == p);
    CHECK(set.position(p - 1) == p - 1);
    CHECK(set.member(p - 1) == p - 1);
  }
}

TEST_CASE("rank_set.errors") {
  hpcoll::rank_set set(5, {0, 2, 4});
  CHECK(contains(error_of([&] { set.insert(5); }), "rank 5 is not a rank of a communicator of size 5"));
  CHECK(contains(error_of([&] { (void)set.contains(-1); }), "rank -1 is not a rank"));
  CHECK(contains(error_of([&] { (void)set.member(3); }), "no member with logical number 3"));
  CHECK(contains(error_of([] { hpcoll::rank_set bad(-2); }), "negative communicator size -2"));
  const std::vector<hpcoll::rank_set::word> beyond = {1u << 5};
  CHECK(contains(error_of([&] { hpcoll::rank_set bad(5, beyond); }), "bits set beyond rank 4"));
  const std::vector<hpcoll::rank_set::word> two = {1, 0};
  CHECK(contains(error_of([&] { hpcoll::rank_set bad(5, two); }), "2 words given"));
}
