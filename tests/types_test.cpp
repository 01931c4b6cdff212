// SPDX-License-Identifier: BSD-3-Clause
// Element types, ops and the communicator (Boost.MPI interoperation: boost_mpi_test.cpp).
#include "support/collective_test.hpp"

#include <array>
#include <complex>
#include <utility>
#include <vector>

using hpcoll_test::particle;

namespace {

struct plain {  // trivially copyable, not reflected: travels as bytes
  short a;
  double b;
  bool operator==(const plain&) const = default;
};

int type_size(MPI_Datatype t) {
  int size = 0;
  MPI_Type_size(t, &size);
  return size;
}
MPI_Aint type_extent(MPI_Datatype t) {
  MPI_Aint lb = 0, extent = 0;
  MPI_Type_get_extent(t, &lb, &extent);
  return extent;
}

}  // namespace

TEST_CASE("types.datatypes") {
  CHECK(hpcoll::datatype_of<int>() == MPI_INT);
  CHECK(hpcoll::datatype_of<const double>() == MPI_DOUBLE);
  CHECK(hpcoll::datatype_of<std::complex<double>>() == MPI_CXX_DOUBLE_COMPLEX);
  // Hana reflection: the members' sizes, the struct's extent (padding skipped).
  const MPI_Datatype p = hpcoll::datatype_of<particle>();
  CHECK(type_size(p) == static_cast<int>(sizeof(double) + sizeof(std::int32_t) + sizeof(float)));
  CHECK(type_extent(p) == static_cast<MPI_Aint>(sizeof(particle)));
  CHECK(hpcoll::datatype_of<particle>() == p);  // created once, cached
  const MPI_Datatype pair = hpcoll::datatype_of<std::pair<double, int>>();
  CHECK(type_size(pair) == static_cast<int>(sizeof(double) + sizeof(int)));
  CHECK(type_extent(pair) == static_cast<MPI_Aint>(sizeof(std::pair<double, int>)));
  CHECK(type_size(hpcoll::datatype_of<std::array<float, 3>>()) == static_cast<int>(3 * sizeof(float)));
  CHECK(type_size(hpcoll::datatype_of<plain>()) == static_cast<int>(sizeof(plain)));
}

TEST_CASE("types.ops") {
  CHECK(hpcoll::op::sum{}(particle{1.5, 2, 0.5f}, particle{2.0, 3, 1.0f}) == particle{3.5, 5, 1.5f});
  CHECK(hpcoll::op::max{}(particle{1.5, 7, 0.5f}, particle{2.0, 3, -1.0f}) == particle{2.0, 7, 0.5f});
  CHECK(hpcoll::op::minloc{}(std::pair{2.0, 5}, std::pair{2.0, 3}) == std::pair{2.0, 3});
  CHECK(hpcoll::op::maxloc{}(std::pair{1.0, 1}, std::pair{4.0, 9}) == std::pair{4.0, 9});
  CHECK(hpcoll::op::bxor{}(6, 3) == 5);
  CHECK(hpcoll::op::land{}(2, 0) == 0);
  static_assert(hpcoll::is_commutative_v<hpcoll::op::sum>);
  static_assert(hpcoll::is_commutative_v<decltype([](int a, int b) { return a + b; })>);
  static_assert(!hpcoll::is_commutative_v<decltype(hpcoll_test::matrix_product())>);
  static_assert(hpcoll::transmittable<std::pair<double, int>>);
  static_assert(!hpcoll::transmittable<std::vector<int>>);
}

TEST_CASE("types.struct_collectives") {
  // Reflected and plain structs through a reduction and a data movement.
  hpcoll::communicator c(MPI_COMM_WORLD);
  const std::vector<particle> mine(3, particle{1.0 + c.rank(), c.rank(), 0.25f});
  std::vector<particle> total(3);
  hpcoll::Allreduce<hpcoll::schedule::rabenseifner>{}(c, mine, total, hpcoll::op::sum{});
  const int p = c.size();
  CHECK(total[2] == particle{p + p * (p - 1) / 2.0, p * (p - 1) / 2, 0.25f * static_cast<float>(p)});

  std::vector<plain> all(static_cast<std::size_t>(p));
  const std::vector<plain> one{plain{static_cast<short>(c.rank()), 0.5 * c.rank()}};
  hpcoll::Allgather<hpcoll::schedule::bruck>{}(c, one, all);
  for (int q = 0; q < p; ++q) CHECK(all[static_cast<std::size_t>(q)] == plain{static_cast<short>(q), 0.5 * q});
}

TEST_CASE("types.communicator") {
  hpcoll::communicator c(MPI_COMM_WORLD);
  int result = MPI_UNEQUAL;
  MPI_Comm_compare(c.native(), MPI_COMM_WORLD, &result);
  CHECK(result == MPI_CONGRUENT);  // a private duplicate, not the user's communicator
  CHECK(c.rank() == hpcoll_test::world_rank());
  CHECK(c.size() == hpcoll_test::world_size());
  const hpcoll::communicator copy = c;  // copies share the duplicate
  CHECK(copy.native() == c.native());
}
