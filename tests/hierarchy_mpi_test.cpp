// SPDX-License-Identifier: BSD-3-Clause
// The hierarchical schedules under MPI against the native collectives, on the
// node layout the communicator learns (one node on this machine) or the one
// HPCOLL_NODE_SIZE / HPCOLL_NODE_LAYOUT imposes (ctest runs this program under
// several): allreduce, bcast, reduce, allgather, alltoall, blocking and
// nonblocking, every root, a non-commutative op; and
// the errors for bad values of those variables.
#include "support/collective_test.hpp"

#include <boost/hana/for_each.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/type.hpp>

#include <hpcoll/schedule/hierarchical.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace hana = boost::hana;
namespace S = hpcoll::schedule;
using hpcoll_test::matrix2;
using hpcoll_test::world_rank;
using hpcoll_test::world_size;

namespace {

constexpr auto allreduce_schedules =
    hana::tuple_t<S::hierarchical<S::binomial, S::recursive_doubling>, S::hierarchical<S::binomial, S::rabenseifner>,
                  S::multi_leader<S::binomial, S::recursive_doubling>, S::multi_leader<S::binomial, S::ring>>;
constexpr auto rooted_schedules =
    hana::tuple_t<S::hierarchical<S::binomial, S::binomial>, S::hierarchical<S::linear, S::binomial>>;

std::vector<std::size_t> counts() {
  const auto p = static_cast<std::size_t>(world_size());
  return {0, 1, p + 1, 1000};
}

/// The native allreduce (reduce at `root` >= 0) of `in` with the test op of T.
template <class T, class Op>
std::vector<T> native_reduce(const std::vector<T>& in, int root = -1) {
  std::vector<T> out(in.size());
  const int n = static_cast<int>(in.size());
  const MPI_Datatype type = hpcoll_test::native_type<T>();
  if (root < 0)
    MPI_Allreduce(in.data(), out.data(), n, type, hpcoll_test::native_op<T, Op>(), MPI_COMM_WORLD);
  else
    MPI_Reduce(in.data(), out.data(), n, type, hpcoll_test::native_op<T, Op>(), root, MPI_COMM_WORLD);
  return out;
}

/// Every rank's MPI processor name, by rank.
std::vector<std::string> host_names() {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  std::vector<char> all(static_cast<std::size_t>(world_size()) * MPI_MAX_PROCESSOR_NAME);
  MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, MPI_COMM_WORLD);
  std::vector<std::string> hosts;
  for (int r = 0; r < world_size(); ++r) hosts.emplace_back(all.data() + static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME);
  return hosts;
}

/// Calls with a non-commutative op are refused unless every node's ranks are consecutive.
bool keeps_order(const hpcoll::communicator& c) { return hpcoll::node_layout_of(c).ranks_consecutive(); }

}  // namespace

TEST_CASE("hierarchy_mpi.layout") {
  hpcoll::communicator c(MPI_COMM_WORLD);
  const hpcoll::node_layout& nodes = hpcoll::node_layout_of(c);
  CHECK(nodes.size() == world_size());
  if (const char* k = std::getenv("HPCOLL_NODE_SIZE")) {
    const int per_node = std::atoi(k);
    for (int r = 0; r < world_size(); ++r) {
      CHECK(nodes.node_of(r) == r / per_node);
      CHECK(nodes.local_rank(r) == r % per_node);
    }
  } else if (!std::getenv("HPCOLL_NODE_LAYOUT")) {
    // Discovered: ranks share a node exactly when they share a host name (one
    // machine, or the emulated cluster's hosts, each with its own name).
    const auto hosts = host_names();
    for (int a = 0; a < world_size(); ++a)
      for (int b = 0; b < world_size(); ++b) CHECK((nodes.node_of(a) == nodes.node_of(b)) == (hosts[a] == hosts[b]));
  }
  CHECK(&hpcoll::node_layout_of(c) == &nodes);  // learnt once, kept
}

TEST_CASE("hierarchy_mpi.allreduce") {
  hpcoll::communicator c(MPI_COMM_WORLD);
  hana::for_each(allreduce_schedules, [&](auto s) {
    using Schedule = typename decltype(s)::type;
    hpcoll::Allreduce<Schedule> allreduce;
    for (std::size_t n : counts()) {
      CAPTURE(n);
      const auto in = hpcoll_test::random_vector<std::int64_t>(n, 1);
      const auto expected = native_reduce<std::int64_t, hpcoll::op::sum>(in);
      std::vector<std::int64_t> out(n);
      allreduce(c, in, out, hpcoll::op::sum{});
      CHECK(out == expected);
      std::vector<std::int64_t> in_place = in;
      allreduce(c, hpcoll::in_place, in_place, hpcoll::op::sum{});
      CHECK(in_place == expected);
      std::vector<std::int64_t> started(n);
      allreduce.start(c, in, started, hpcoll::op::sum{}).wait();
      CHECK(started == expected);
    }
  });
}

TEST_CASE("hierarchy_mpi.allreduce_non_commutative") {
  hpcoll::communicator c(MPI_COMM_WORLD);
  constexpr auto ordered = hana::tuple_t<S::hierarchical<S::binomial, S::recursive_doubling>,
                                         S::multi_leader<S::binomial, S::recursive_doubling>>;
  hana::for_each(ordered, [&](auto s) {
    hpcoll::Allreduce<typename decltype(s)::type> allreduce;
    for (std::size_t n : counts()) {
      const auto in = hpcoll_test::random_vector<matrix2>(n, 2);
      std::vector<matrix2> out(n);
      if (!keeps_order(c)) {
        CHECK_THROWS_WITH_AS(allreduce(c, in, out, hpcoll_test::matrix_product()),
                             doctest::Contains("non-commutative op only when ranks are numbered node by node"),
                             hpcoll::error);
        continue;
      }
      const auto expected = native_reduce<matrix2, decltype(hpcoll_test::matrix_product())>(in);
      allreduce(c, in, out, hpcoll_test::matrix_product());
      CHECK(out == expected);
    }
  });
}

TEST_CASE("hierarchy_mpi.bcast") {
  hpcoll::communicator c(MPI_COMM_WORLD);
  hana::for_each(rooted_schedules, [&](auto s) {
    using Schedule = typename decltype(s)::type;
    hpcoll::Bcast<Schedule> bcast;
    for (int root = 0; root < world_size(); ++root)
      for (std::size_t n : counts()) {
        CAPTURE(root);
        CAPTURE(n);
        auto expected = hpcoll_test::random_vector<std::int64_t>(n, 3);
        MPI_Bcast(expected.data(), static_cast<int>(n), MPI_INT64_T, root, MPI_COMM_WORLD);
        std::vector<std::int64_t> data = world_rank() == root ? expected : std::vector<std::int64_t>(n);
        bcast(c, data, root);
        CHECK(data == expected);
        std::vector<std::int64_t> started = world_rank() == root ? expected : std::vector<std::int64_t>(n);
        bcast.start(c, started, root).wait();
        CHECK(started == expected);
      }
  });
}

TEST_CASE("hierarchy_mpi.allgather") {
  hpcoll::communicator c(MPI_COMM_WORLD);
  constexpr auto schedules =
      hana::tuple_t<S::hierarchical<S::binomial, S::recursive_doubling>, S::hierarchical<S::binomial, S::ring>,
                    S::multi_leader<S::binomial, S::recursive_doubling>, S::multi_leader<S::binomial, S::ring>>;
  hana::for_each(schedules, [&](auto s) {
    hpcoll::Allgather<typename decltype(s)::type> allgather;
    for (std::size_t n : counts()) {
      CAPTURE(n);
      const auto p = static_cast<std::size_t>(world_size());
      const auto in = hpcoll_test::random_vector<std::int64_t>(n, 6);
      std::vector<std::int64_t> expected(n * p);
      MPI_Allgather(in.data(), static_cast<int>(n), MPI_INT64_T, expected.data(), static_cast<int>(n), MPI_INT64_T,
                    MPI_COMM_WORLD);
      std::vector<std::int64_t> out(n * p);
      allgather(c, in, out);
      CHECK(out == expected);
      std::vector<std::int64_t> in_place(n * p);
      std::copy(in.begin(), in.end(), in_place.begin() + static_cast<std::ptrdiff_t>(n) * world_rank());
      allgather(c, hpcoll::in_place, in_place);
      CHECK(in_place == expected);
      std::vector<std::int64_t> started(n * p);
      allgather.start(c, in, started).wait();
      CHECK(started == expected);
    }
  });
}

TEST_CASE("hierarchy_mpi.alltoall") {
  hpcoll::communicator c(MPI_COMM_WORLD);
  hpcoll::Alltoall<S::hierarchical<S::binomial, S::pairwise>> alltoall;
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{5}}) {
    CAPTURE(n);
    const auto p = static_cast<std::size_t>(world_size());
    const auto in = hpcoll_test::random_vector<std::int64_t>(n * p, 7);
    std::vector<std::int64_t> expected(n * p);
    MPI_Alltoall(in.data(), static_cast<int>(n), MPI_INT64_T, expected.data(), static_cast<int>(n), MPI_INT64_T,
                 MPI_COMM_WORLD);
    std::vector<std::int64_t> out(n * p);
    alltoall(c, in, out);
    CHECK(out == expected);
    std::vector<std::int64_t> in_place = in;
    alltoall(c, hpcoll::in_place, in_place);
    CHECK(in_place == expected);
    std::vector<std::int64_t> started(n * p);
    alltoall.start(c, in, started).wait();
    CHECK(started == expected);
  }
}

TEST_CASE("hierarchy_mpi.reduce") {
  hpcoll::communicator c(MPI_COMM_WORLD);
  hana::for_each(rooted_schedules, [&](auto s) {
    using Schedule = typename decltype(s)::type;
    hpcoll::Reduce<Schedule> reduce;
    for (int root = 0; root < world_size(); ++root)
      for (std::size_t n : counts()) {
        CAPTURE(root);
        CAPTURE(n);
        const bool is_root = world_rank() == root;
        const auto in = hpcoll_test::random_vector<std::int64_t>(n, 4);
        const auto expected = native_reduce<std::int64_t, hpcoll::op::sum>(in, root);
        std::vector<std::int64_t> out(is_root ? n : 0);
        reduce(c, in, out, hpcoll::op::sum{}, root);
        if (is_root) CHECK(out == expected);
        std::vector<std::int64_t> started(is_root ? n : 0);
        reduce.start(c, in, started, hpcoll::op::sum{}, root).wait();
        if (is_root) CHECK(started == expected);

        const auto matrices = hpcoll_test::random_vector<matrix2>(n, 5);
        std::vector<matrix2> product(is_root ? n : 0);
        if (!keeps_order(c)) {
          CHECK_THROWS_AS(reduce(c, matrices, product, hpcoll_test::matrix_product(), root), hpcoll::error);
          continue;
        }
        const auto in_order = native_reduce<matrix2, decltype(hpcoll_test::matrix_product())>(matrices, root);
        reduce(c, matrices, product, hpcoll_test::matrix_product(), root);
        if (is_root) CHECK(product == in_order);
      }
  });
}

TEST_CASE("hierarchy_mpi.bad_environment") {
  // Each value is read when a communicator first needs its layout, on every
  // rank, before any message; the communicator is usable afterwards.
  struct bad {
    const char* variable;
    std::string value;
    std::string expected;
  };
  const std::string too_short(world_size() > 1 ? "0" : "0,0");
  const std::vector<bad> cases{
      {"HPCOLL_NODE_SIZE", "0", "HPCOLL_NODE_SIZE is '0'; it must be a positive number of ranks per node"},
      {"HPCOLL_NODE_SIZE", "two", "HPCOLL_NODE_SIZE is 'two'; it must be a positive number of ranks per node"},
      {"HPCOLL_NODE_LAYOUT", too_short, "HPCOLL_NODE_LAYOUT is '" + too_short + "'; it must list the node of each"},
      {"HPCOLL_NODE_LAYOUT", "0,x", "HPCOLL_NODE_LAYOUT is '0,x'; it must list the node of each"},
  };
  const char* kept_size = std::getenv("HPCOLL_NODE_SIZE");
  const char* kept_layout = std::getenv("HPCOLL_NODE_LAYOUT");
  const std::string saved_size = kept_size ? kept_size : "", saved_layout = kept_layout ? kept_layout : "";
  for (const bad& b : cases) {
    CAPTURE(b.value);
    unsetenv("HPCOLL_NODE_SIZE");
    unsetenv("HPCOLL_NODE_LAYOUT");
    setenv(b.variable, b.value.c_str(), 1);
    hpcoll::communicator c(MPI_COMM_WORLD);
    std::vector<std::int64_t> in(3, 1), out(3);
    const hpcoll::Allreduce<S::hierarchical<S::binomial, S::recursive_doubling>> hierarchical;
    const std::string message = "hpcoll::allreduce<hierarchical<binomial, recursive_doubling>>: " + b.expected;
    CHECK_THROWS_WITH_AS(hierarchical(c, in, out, hpcoll::op::sum{}), doctest::Contains(message.c_str()),
                         hpcoll::error);
    // Flat schedules never read the variables.
    hpcoll::Allreduce<S::recursive_doubling>{}(c, in, out, hpcoll::op::sum{});
    CHECK(out[0] == world_size());
  }
  unsetenv("HPCOLL_NODE_SIZE");
  unsetenv("HPCOLL_NODE_LAYOUT");
  if (kept_size) setenv("HPCOLL_NODE_SIZE", saved_size.c_str(), 1);
  if (kept_layout) setenv("HPCOLL_NODE_LAYOUT", saved_layout.c_str(), 1);
}
