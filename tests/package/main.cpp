// SPDX-License-Identifier: BSD-3-Clause
// Consumer of hpcoll (find_package, add_subdirectory, FetchContent:
// tests/package/CMakeLists.txt; pkg-config: tests/package/Makefile), through
// the umbrella and through a path of hpcoll 0.1 (a forwarding header): an
// allreduce with the dispatcher's choice, one with a named schedule, a bcast.
#include <hpcoll/bcast.hpp>
#include <hpcoll/hpcoll.hpp>

#include <mpi.h>

#include <cstdio>
#include <span>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int failures = 0;
  {
    hpcoll::communicator c(MPI_COMM_WORLD);
    const std::vector<int> in{1, 2, 3, 4};
    const auto expect_sums = [&](const char* what, const std::vector<int>& out) {
      for (std::size_t i = 0; i < in.size(); ++i) {
        if (out[i] != static_cast<int>(c.size()) * in[i]) {
          std::fprintf(stderr, "package test: %s: out[%zu] = %d, expected %d\n", what, i, out[i],
                       static_cast<int>(c.size()) * in[i]);
          ++failures;
        }
      }
    };
    std::vector<int> out(in.size(), 0);
    hpcoll::allreduce(c, std::span<const int>(in), std::span<int>(out), hpcoll::op::sum{});
    expect_sums("allreduce", out);
    std::vector<int> named(in.size(), 0);
    hpcoll::Allreduce<hpcoll::schedule::rabenseifner>{}(c, std::span<const int>(in), std::span<int>(named),
                                                        hpcoll::op::sum{});
    expect_sums("Allreduce<rabenseifner>", named);
    std::vector<int> data(3, c.rank() == 0 ? 7 : 0);
    hpcoll::bcast(c, data, 0);
    for (int v : data) failures += v != 7;
  }
  int any = 0;
  MPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    std::printf("package test (hpcoll %.*s): %s\n", static_cast<int>(hpcoll::version.size()),
                hpcoll::version.data(), any == 0 ? "OK" : "FAILED");
  }
  MPI_Finalize();
  return any == 0 ? 0 : 1;
}
