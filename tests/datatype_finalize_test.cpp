// SPDX-License-Identifier: BSD-3-Clause
// The derived datatypes hpcoll caches are freed when MPI_Finalize begins, so an
// MPI that reports leaked handles at exit (MPICH) reports none. MPI_Type_free
// is intercepted through MPI's profiling interface to see which types are freed.
#include <mpi.h>

#include <boost/hana/define_struct.hpp>

#include <hpcoll/datatype.hpp>

#include <array>
#include <cstdint>
#include <cstdio>
#include <utility>

namespace {

struct reflected {
  BOOST_HANA_DEFINE_STRUCT(reflected, (double, mass), (std::int32_t, id));
};
struct plain {  // trivially copyable, not reflected: a contiguous run of bytes
  short a;
  double b;
};

constexpr const char* names[] = {"reflected struct", "plain struct", "std::pair<double, int>", "std::array<float, 3>"};
std::array<MPI_Datatype, 4> cached{};
std::array<bool, 4> freed{};

}  // namespace

extern "C" int MPI_Type_free(MPI_Datatype* type) {
  for (std::size_t i = 0; i < cached.size(); ++i)
    if (*type == cached[i]) freed[i] = true;
  return PMPI_Type_free(type);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  cached = {hpcoll::datatype_of<reflected>(), hpcoll::datatype_of<plain>(),
            hpcoll::datatype_of<std::pair<double, int>>(), hpcoll::datatype_of<std::array<float, 3>>()};
  // Asked again: the cached type, not a new one.
  const bool same = cached[0] == hpcoll::datatype_of<reflected>() && cached[3] == hpcoll::datatype_of<std::array<float, 3>>();
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  freed = {};
  MPI_Finalize();

  int failures = same ? 0 : 1;
  if (!same) std::fprintf(stderr, "rank %d: datatype_of returned a new type for a type asked before\n", rank);
  for (std::size_t i = 0; i < cached.size(); ++i)
    if (!freed[i]) {
      std::fprintf(stderr, "rank %d: the cached datatype of the %s was not freed by MPI_Finalize\n", rank, names[i]);
      ++failures;
    }
  if (failures == 0 && rank == 0) std::printf("every cached datatype freed at MPI_Finalize\n");
  return failures == 0 ? 0 : 1;
}
