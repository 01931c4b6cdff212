// SPDX-License-Identifier: BSD-3-Clause
// The blocking hot path allocates nothing: once a call has been made, the
// same call again (a recorded plan replayed, a cached decision) makes no
// heap allocation of its own, for every collective, the dispatcher's choice
// and a named schedule, counts and displacements given as size_t or as int.
// Counted: the C++ allocation functions this program replaces below (hpcoll
// and the standard library use them; the MPI library allocates with malloc,
// and its allocations are its own business).
#include "support/collective_test.hpp"

#include <cstddef>
#include <cstdlib>
#include <new>
#include <numeric>
#include <vector>

namespace {

thread_local std::size_t allocations = 0;

void* counted_allocation(std::size_t bytes, std::size_t alignment) {
  ++allocations;
  if (bytes == 0) bytes = 1;
  void* p = alignment <= alignof(std::max_align_t)
                ? std::malloc(bytes)
                : std::aligned_alloc(alignment, (bytes + alignment - 1) / alignment * alignment);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

}  // namespace

// Not inlined: GCC would otherwise see free() meet a pointer from `new`
// (-Wmismatched-new-delete), which these replacements make right.
[[gnu::noinline]] void* operator new(std::size_t bytes) { return counted_allocation(bytes, alignof(std::max_align_t)); }
[[gnu::noinline]] void* operator new(std::size_t bytes, std::align_val_t a) {
  return counted_allocation(bytes, static_cast<std::size_t>(a));
}
[[gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

namespace {

namespace sched = hpcoll::schedule;

/// The allocations of ten repetitions of `call`, after three that may set up
/// what the later ones reuse (the recorded plan, the decision, the pools).
template <class Call>
std::size_t allocations_repeating(Call&& call) {
  for (int i = 0; i < 3; ++i) call();
  const std::size_t before = allocations;
  for (int i = 0; i < 10; ++i) call();
  return allocations - before;
}

/// Checks that `call`, repeated, allocates nothing on any rank.
#define CHECK_NO_ALLOCATION(what, call)                                                  \
  do {                                                                                   \
    const std::size_t made = allocations_repeating([&] { call; });                       \
    INFO(what, " at ", n, " elements per block: ", made, " allocations in 10 calls");     \
    CHECK(made == 0);                                                                    \
  } while (false)

/// Block sizes: one element, a few, more than a rank count, a few kilobytes.
const std::size_t block_sizes[] = {1, 3, 9, 1000};

}  // namespace

TEST_CASE("allocation.rooted") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  const auto p = static_cast<std::size_t>(c.size());
  const int root = c.size() - 1;
  for (const std::size_t n : block_sizes) {
    std::vector<int> block(n, c.rank()), all(n * p, 1), result(n);
    CHECK_NO_ALLOCATION("bcast", hpcoll::bcast(c, block, root));
    CHECK_NO_ALLOCATION("Bcast<binomial>", hpcoll::Bcast<sched::binomial>{}(c, block, root));
    CHECK_NO_ALLOCATION("reduce", hpcoll::reduce(c, block, result, hpcoll::op::sum{}, root));
    CHECK_NO_ALLOCATION("Reduce<binomial>", hpcoll::Reduce<sched::binomial>{}(c, block, result, hpcoll::op::sum{}, root));
    CHECK_NO_ALLOCATION("gather", hpcoll::gather(c, block, all, root));
    CHECK_NO_ALLOCATION("Gather<linear>", hpcoll::Gather<sched::linear>{}(c, block, all, root));
    CHECK_NO_ALLOCATION("scatter", hpcoll::scatter(c, all, block, root));
    CHECK_NO_ALLOCATION("Scatter<binomial>", hpcoll::Scatter<sched::binomial>{}(c, all, block, root));

    const std::vector<std::size_t> counts(p, n);
    std::vector<std::size_t> displs(p);
    std::exclusive_scan(counts.begin(), counts.end(), displs.begin(), std::size_t{0});
    const std::vector<int> int_counts(counts.begin(), counts.end()), int_displs(displs.begin(), displs.end());
    CHECK_NO_ALLOCATION("gatherv", hpcoll::gatherv(c, block, all, counts, displs, root));
    CHECK_NO_ALLOCATION("gatherv, int counts", hpcoll::gatherv(c, block, all, int_counts, int_displs, root));
    CHECK_NO_ALLOCATION("gatherv, packed", hpcoll::gatherv(c, block, all, counts, root));
  }
}

TEST_CASE("allocation.all_ranks") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  const auto p = static_cast<std::size_t>(c.size());
  for (const std::size_t n : block_sizes) {
    std::vector<int> block(n, c.rank()), result(n), all(n * p, 1), all_out(n * p);
    CHECK_NO_ALLOCATION("allreduce", hpcoll::allreduce(c, block, result, hpcoll::op::sum{}));
    CHECK_NO_ALLOCATION("Allreduce<recursive_doubling>",
                        hpcoll::Allreduce<sched::recursive_doubling>{}(c, block, result, hpcoll::op::sum{}));
    CHECK_NO_ALLOCATION("Allreduce<ring>", hpcoll::Allreduce<sched::ring>{}(c, all, all_out, hpcoll::op::sum{}));
    CHECK_NO_ALLOCATION("allgather", hpcoll::allgather(c, block, all));
    CHECK_NO_ALLOCATION("Allgather<ring>", hpcoll::Allgather<sched::ring>{}(c, block, all));
    CHECK_NO_ALLOCATION("reduce_scatter_block", hpcoll::reduce_scatter_block(c, all, block, hpcoll::op::sum{}));
    CHECK_NO_ALLOCATION("alltoall", hpcoll::alltoall(c, all, all_out));
    CHECK_NO_ALLOCATION("Alltoall<pairwise>", hpcoll::Alltoall<sched::pairwise>{}(c, all, all_out));

    const std::vector<std::size_t> counts(p, n);
    std::vector<std::size_t> displs(p);
    std::exclusive_scan(counts.begin(), counts.end(), displs.begin(), std::size_t{0});
    const std::vector<int> int_counts(counts.begin(), counts.end()), int_displs(displs.begin(), displs.end());
    CHECK_NO_ALLOCATION("allgatherv", hpcoll::allgatherv(c, block, all, counts, displs));
    CHECK_NO_ALLOCATION("allgatherv, int counts", hpcoll::allgatherv(c, block, all, int_counts, int_displs));
    CHECK_NO_ALLOCATION("allgatherv, packed", hpcoll::allgatherv(c, block, all, counts));
    CHECK_NO_ALLOCATION("alltoallv", hpcoll::alltoallv(c, all, counts, displs, all_out, counts, displs));
    CHECK_NO_ALLOCATION("alltoallv, int counts",
                        hpcoll::alltoallv(c, all, int_counts, int_displs, all_out, int_counts, int_displs));
    CHECK_NO_ALLOCATION("Alltoallv<linear>",
                        hpcoll::Alltoallv<sched::linear>{}(c, all, counts, displs, all_out, counts, displs));
  }
}
