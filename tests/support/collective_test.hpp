// SPDX-License-Identifier: BSD-3-Clause
// Shared pieces of the tests that compare hpcoll with the native MPI
// collectives: element types, random data, native ops, comparisons.
#pragma once

#include "support/mpi_test.hpp"

#include <boost/hana/define_struct.hpp>

#include <hpcoll/hpcoll.hpp>

#include <array>
#include <complex>
#include <cstdint>
#include <cstring>
#include <random>
#include <span>
#include <type_traits>
#include <vector>

namespace hpcoll_test {

/// A struct reflected with Boost.Hana: hpcoll derives its MPI datatype and
/// member-wise built-in ops from the reflection.
struct particle {
  BOOST_HANA_DEFINE_STRUCT(particle, (double, mass), (std::int32_t, id), (float, charge));
};
inline bool operator==(const particle& a, const particle& b) {
  return a.mass == b.mass && a.id == b.id && a.charge == b.charge;
}

/// A 2×2 integer matrix; the product mod a prime is associative but not
/// commutative, the non-commutative op of the tests.
struct matrix2 {
  std::array<std::int64_t, 4> m;
  friend bool operator==(const matrix2&, const matrix2&) = default;
};
inline constexpr std::int64_t matrix_modulus = 1'000'000'007;
inline matrix2 multiply(const matrix2& a, const matrix2& b) {
  auto mul = [](std::int64_t x, std::int64_t y) { return (x * y) % matrix_modulus; };
  return {{(mul(a.m[0], b.m[0]) + mul(a.m[1], b.m[2])) % matrix_modulus,
           (mul(a.m[0], b.m[1]) + mul(a.m[1], b.m[3])) % matrix_modulus,
           (mul(a.m[2], b.m[0]) + mul(a.m[3], b.m[2])) % matrix_modulus,
           (mul(a.m[2], b.m[1]) + mul(a.m[3], b.m[3])) % matrix_modulus}};
}
/// The op handed to hpcoll: declared non-commutative.
inline auto matrix_product() {
  return hpcoll::op::non_commutative([](const matrix2& a, const matrix2& b) { return multiply(a, b); });
}

/// Random data, different on every rank and call (seeded by rank and salt).
template <class T>
std::vector<T> random_vector(std::size_t n, int salt) {
  std::mt19937_64 gen(static_cast<std::uint64_t>(world_rank()) * 1000003u + static_cast<std::uint64_t>(salt) * 7919u + n);
  std::vector<T> v(n);
  for (auto& x : v) {
    if constexpr (std::is_same_v<T, particle>) {
      x = particle{static_cast<double>(gen() % 1000) / 8.0, static_cast<std::int32_t>(gen() % 1000),
                   static_cast<float>(gen() % 100) / 4.0f};
    } else if constexpr (std::is_same_v<T, matrix2>) {
      for (auto& e : x.m) e = static_cast<std::int64_t>(gen() % 1000);
    } else if constexpr (std::is_same_v<T, std::complex<double>>) {
      x = {static_cast<double>(gen() % 2001) - 1000.0, static_cast<double>(gen() % 2001) - 1000.0};
    } else if constexpr (std::is_floating_point_v<T>) {
      x = static_cast<T>(static_cast<double>(gen() % 20001) / 16.0 - 625.0);
    } else if constexpr (std::is_integral_v<T>) {
      // Small magnitudes: sums and products over 8 ranks must not overflow.
      x = static_cast<T>(static_cast<std::int64_t>(gen() % 201) - 100);
    } else {
      static_assert(std::is_trivially_copyable_v<T>, "random_vector: unsupported type");
    }
  }
  return v;
}

// ---- Native reference ops -----------------------------------------------------

/// MPI_Op for a user function on T, created once (MPI_Op_create).
template <class T, class F>
MPI_Op native_user_op(bool commutative) {
  static MPI_Op op = [&] {
    MPI_Op created;
    MPI_Op_create(
        [](void* in, void* inout, int* len, MPI_Datatype*) {
          auto* a = static_cast<const T*>(in);
          auto* b = static_cast<T*>(inout);
          for (int i = 0; i < *len; ++i) b[i] = F{}(a[i], b[i]);  // MPI: inout = in ⊕ inout
        },
        commutative ? 1 : 0, &created);
    return created;
  }();
  return op;
}

struct particle_sum {
  particle operator()(const particle& a, const particle& b) const { return hpcoll::op::sum{}(a, b); }
};
struct matrix_multiply {
  matrix2 operator()(const matrix2& a, const matrix2& b) const { return multiply(a, b); }
};

/// The native MPI_Op matching an hpcoll op for element type T.
template <class T, class Op>
MPI_Op native_op() {
  if constexpr (std::is_same_v<T, particle>) {
    static_assert(std::is_same_v<Op, hpcoll::op::sum>, "particles are tested with op::sum");
    return native_user_op<particle, particle_sum>(true);
  } else if constexpr (std::is_same_v<T, matrix2>) {
    return native_user_op<matrix2, matrix_multiply>(false);
  } else if constexpr (std::is_same_v<Op, hpcoll::op::sum>) {
    return MPI_SUM;
  } else if constexpr (std::is_same_v<Op, hpcoll::op::prod>) {
    return MPI_PROD;
  } else if constexpr (std::is_same_v<Op, hpcoll::op::min>) {
    return MPI_MIN;
  } else if constexpr (std::is_same_v<Op, hpcoll::op::max>) {
    return MPI_MAX;
  } else if constexpr (std::is_same_v<Op, hpcoll::op::land>) {
    return MPI_LAND;
  } else if constexpr (std::is_same_v<Op, hpcoll::op::lor>) {
    return MPI_LOR;
  } else if constexpr (std::is_same_v<Op, hpcoll::op::band>) {
    return MPI_BAND;
  } else if constexpr (std::is_same_v<Op, hpcoll::op::bor>) {
    return MPI_BOR;
  } else if constexpr (std::is_same_v<Op, hpcoll::op::bxor>) {
    return MPI_BXOR;
  } else if constexpr (std::is_same_v<Op, hpcoll::op::minloc>) {
    return MPI_MINLOC;
  } else if constexpr (std::is_same_v<Op, hpcoll::op::maxloc>) {
    return MPI_MAXLOC;
  } else {
    static_assert(sizeof(Op) == 0, "native_op: no native counterpart");
  }
}

/// The datatype native MPI calls use for T (the MINLOC/MAXLOC pair types
/// must be MPI's own pair types for MPI_MINLOC to accept them).
template <class T>
MPI_Datatype native_type() {
  if constexpr (std::is_same_v<T, std::pair<double, int>>) return MPI_DOUBLE_INT;
  else if constexpr (std::is_same_v<T, std::pair<float, int>>) return MPI_FLOAT_INT;
  else if constexpr (std::is_same_v<T, std::pair<int, int>>) return MPI_2INT;
  else return hpcoll::datatype_of<T>();
}

// ---- Comparisons ---------------------------------------------------------------

/// Exact for integers and structs; a relative tolerance for floating point,
/// whose native result may combine in another order.
template <class T>
bool close(const T& a, const T& b) {
  if constexpr (std::is_floating_point_v<T>) {
    const double scale = std::max({1.0, std::abs(static_cast<double>(a)), std::abs(static_cast<double>(b))});
    return std::abs(static_cast<double>(a) - static_cast<double>(b)) <= 1e-4 * scale;
  } else if constexpr (std::is_same_v<T, std::complex<double>>) {
    return close(a.real(), b.real()) && close(a.imag(), b.imag());
  } else if constexpr (std::is_same_v<T, particle>) {
    return close(a.mass, b.mass) && a.id == b.id && close(a.charge, b.charge);
  } else {
    return a == b;
  }
}

/// Index of the first element where the two vectors differ, or -1.
template <class T>
long first_difference(std::span<const T> got, std::span<const T> want) {
  if (got.size() != want.size()) return 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!close(got[i], want[i])) return static_cast<long>(i);
  return -1;
}

/// True on every rank iff `bytes` is bitwise the same on every rank (for the
/// bit-identical floating-point allreduce guarantee).
inline bool identical_on_all_ranks(std::span<const std::byte> bytes, MPI_Comm comm = MPI_COMM_WORLD) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::byte b : bytes) h = (h ^ static_cast<std::uint64_t>(b)) * 1099511628211ull;
  std::uint64_t lo = 0, hi = 0;
  MPI_Allreduce(&h, &lo, 1, MPI_UINT64_T, MPI_MIN, comm);
  MPI_Allreduce(&h, &hi, 1, MPI_UINT64_T, MPI_MAX, comm);
  return lo == hi;
}

/// Element counts every collective is tried with at size p: 0, 1, p−1, p+1,
/// 1000 (and, where `large`, about 2^17).
inline std::vector<std::size_t> test_counts(int p, bool large) {
  std::vector<std::size_t> counts = {0, 1, static_cast<std::size_t>(p > 1 ? p - 1 : 2), static_cast<std::size_t>(p + 1),
                                     1000};
  if (large) counts.push_back((std::size_t{1} << 17) + 3);
  return counts;
}

}  // namespace hpcoll_test
