// SPDX-License-Identifier: BSD-3-Clause
// The HPCOLL_* values read from their text, without MPI: the switches, the
// byte counts and libhpcoll_mpi's HPCOLL_PMPI / HPCOLL_PMPI_COLLECTIVES
// (the functions the fuzz target tests/fuzz/environment_fuzz.cpp calls).
#include <doctest/doctest.h>

#include <hpcoll/environment.hpp>

#include "../src/pmpi/settings.hpp"

#include <algorithm>

TEST_CASE("environment.switch") {
  using hpcoll::detail::switch_value;
  CHECK_FALSE(switch_value("HPCOLL_CHECK", ""));
  CHECK_FALSE(switch_value("HPCOLL_CHECK", "0"));
  CHECK(switch_value("HPCOLL_CHECK", "1"));
  CHECK_THROWS_WITH_AS(switch_value("HPCOLL_CHECK", "yes"), "hpcoll: HPCOLL_CHECK is 'yes'; it must be 0 or 1",
                       hpcoll::error);
  CHECK_THROWS_AS(switch_value("HPCOLL_CHECK", std::string_view("1\0", 2)), hpcoll::error);
}

TEST_CASE("environment.bytes") {
  using hpcoll::detail::bytes_value;
  CHECK(bytes_value("HPCOLL_MAX_MESSAGE_BYTES", "", 7) == 7);
  CHECK(bytes_value("HPCOLL_MAX_MESSAGE_BYTES", "4096", 7) == 4096);
  CHECK(bytes_value("HPCOLL_MAX_MESSAGE_BYTES", "04096", 7) == 4096);
  for (const char* bad : {"0", "-1", "+1", "4k", " 4", "99999999999999999999"})
    CHECK_THROWS_WITH_AS(bytes_value("HPCOLL_MAX_MESSAGE_BYTES", bad, 7),
                         doctest::Contains("it must be a positive number of bytes"), hpcoll::error);
}

TEST_CASE("environment.pmpi") {
  using hpcoll::pmpi::intercepted_collectives;
  const auto all = intercepted_collectives("", "");
  CHECK(std::count(all.begin(), all.end(), true) == 11);  // bcast ... allgather, allgatherv, ... alltoallv
  const auto none = intercepted_collectives("off", "bcast");
  CHECK(std::count(none.begin(), none.end(), true) == 0);
  const auto two = intercepted_collectives("on", "allreduce,bcast");
  CHECK(two[0]);
  CHECK(two[2]);
  CHECK(std::count(two.begin(), two.end(), true) == 2);
  const auto v_form = intercepted_collectives("on", "allgatherv");
  CHECK(v_form[7]);
  CHECK(std::count(v_form.begin(), v_form.end(), true) == 1);
  CHECK_THROWS_WITH_AS(intercepted_collectives("yes", ""), "hpcoll: HPCOLL_PMPI is 'yes'; it must be on or off",
                       hpcoll::error);
  for (const char* bad : {"bcast,", ",bcast", "bcast,,reduce", "Bcast", "bcast "})
    CHECK_THROWS_WITH_AS(intercepted_collectives("", bad), doctest::Contains("HPCOLL_PMPI_COLLECTIVES names '"),
                         hpcoll::error);

  using hpcoll::pmpi::asks_thread_multiple;
  CHECK_FALSE(asks_thread_multiple(""));
  CHECK(asks_thread_multiple("multiple"));
  for (const char* bad : {"MULTIPLE", "multiple ", "single", "1", "on"})
    CHECK_THROWS_WITH_AS(asks_thread_multiple(bad), doctest::Contains("HPCOLL_PMPI_THREAD is '"), hpcoll::error);
}
