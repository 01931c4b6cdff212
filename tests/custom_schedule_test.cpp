// SPDX-License-Identifier: BSD-3-Clause
// A schedule written outside the library, following the documented concept
// (docs/schedules.md): a pipelined chain broadcast. It is proved by the
// symbolic verifier, run under MPI against MPI_Bcast, and plugged into a
// library composite (reduce_bcast) as the broadcast phase of an allreduce.
#include "support/collective_test.hpp"

#include <hpcoll/analysis/verify.hpp>

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <string>
#include <vector>

namespace {

/// Pipelined chain: the root's buffer is cut into Segments pieces that flow
/// down the chain root → root+1 → … → root−1; in round t virtual rank v
/// receives piece t − v + 1 from v − 1 and forwards piece t − v to v + 1.
template <int Segments>
struct chain {
  static std::string name() { return "chain<" + std::to_string(Segments) + ">"; }

  struct plan_type {
    hpcoll::bcast_shape s;
    hpcoll::block_layout pieces{s.count, Segments};

    int rounds() const { return s.size > 1 ? s.size - 2 + Segments : 0; }
    std::size_t scratch_elems() const { return 0; }
    template <class Emit>
    void round(int t, Emit&& emit) const {
      const int v = (s.rank - s.root + s.size) % s.size;
      const int piece_in = t - v + 1;
      const int piece_out = t - v;
      if (v > 0 && piece_in >= 0 && piece_in < Segments)
        emit(hpcoll::step::recv((s.rank - 1 + s.size) % s.size, pieces.blocks(hpcoll::buffer::output, 0, piece_in, piece_in + 1)));
      if (v < s.size - 1 && piece_out >= 0 && piece_out < Segments)
        emit(hpcoll::step::send((s.rank + 1) % s.size, pieces.blocks(hpcoll::buffer::output, 0, piece_out, piece_out + 1)));
    }
  };
  static plan_type plan(const hpcoll::bcast_shape& s) { return {s}; }
};

static_assert(hpcoll::plan<chain<4>::plan_type>);
static_assert(hpcoll::serves<chain<4>, hpcoll::bcast_shape>);
static_assert(!hpcoll::serves<chain<4>, hpcoll::allgather_shape>);

std::vector<int> sizes_to_verify() {
  std::vector<int> sizes(32);
  std::iota(sizes.begin(), sizes.end(), 1);
  sizes.insert(sizes.end(), {48, 64});
  return sizes;
}

}  // namespace

TEST_CASE("custom_schedule.verified") {
  if (hpcoll_test::world_rank() != 0) return;  // in-process, no MPI: once is enough
  int failures = 0;
  // Every size to 32, then two larger ones: the sweep grows as p^4 (every root, O(p^2) steps a run).
  for (int p : sizes_to_verify())
    for (std::size_t n : {std::size_t{0}, std::size_t{3}, static_cast<std::size_t>(p) + 5}) {
      for (int root = 0; root < p; ++root) {
        const auto one = hpcoll::verify::bcast<chain<4>>(p, root, n);
        if (!one && failures++ == 0) FAIL_CHECK(one.failure);
      }
      // Allreduce has no root: once per size and count.
      const auto two = hpcoll::verify::allreduce<hpcoll::schedule::reduce_bcast<hpcoll::schedule::binomial, chain<3>>>(
          p, n, /*commutative=*/false);
      if (!two && failures++ == 0) FAIL_CHECK(two.failure);
    }
  CHECK(failures == 0);
}

TEST_CASE("custom_schedule.bcast_matches_native") {
  hpcoll::communicator c(MPI_COMM_WORLD);
  for (std::size_t n : hpcoll_test::test_counts(c.size(), true))
    for (int root = 0; root < c.size(); ++root) {
      auto mine = hpcoll_test::random_vector<double>(n, root);
      auto native = mine;
      hpcoll::Bcast<chain<5>>{}(c, mine, root);
      MPI_Bcast(native.data(), static_cast<int>(n), MPI_DOUBLE, root, MPI_COMM_WORLD);
      CAPTURE(n);
      CAPTURE(root);
      CHECK(hpcoll_test::first_difference<double>(mine, native) == -1);
    }
}

TEST_CASE("custom_schedule.inside_a_library_composite") {
  // The user's chain is the bcast phase of an order-preserving allreduce.
  hpcoll::communicator c(MPI_COMM_WORLD);
  using allreduce = hpcoll::Allreduce<hpcoll::schedule::reduce_bcast<hpcoll::schedule::binomial, chain<3>>>;
  for (std::size_t n : hpcoll_test::test_counts(c.size(), false)) {
    const auto in = hpcoll_test::random_vector<hpcoll_test::matrix2>(n, 11);
    std::vector<hpcoll_test::matrix2> out(n), native(n);
    allreduce{}(c, in, out, hpcoll_test::matrix_product());
    MPI_Allreduce(in.data(), native.data(), static_cast<int>(n), hpcoll::datatype_of<hpcoll_test::matrix2>(),
                  hpcoll_test::native_user_op<hpcoll_test::matrix2, hpcoll_test::matrix_multiply>(false), MPI_COMM_WORLD);
    CAPTURE(n);
    CHECK(out == native);
  }
}
