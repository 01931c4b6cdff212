// SPDX-License-Identifier: BSD-3-Clause
// The reductions' element types and ops: an (element, op) pair as the C++
// types hpcoll's reductions are instantiated with, for the pairs on which
// MPI defines the op.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include <hpcoll/op.hpp>

#include "datatypes.hpp"

namespace hpcoll::pmpi {

/// MPI_LXOR, which hpcoll has no op for: true when exactly one operand is.
struct logical_xor {
  static constexpr const char* name = "lxor";
  template <class T>
  constexpr T operator()(const T& a, const T& b) const {
    return static_cast<T>(!a != !b);
  }
};

namespace detail {

template <class T, class Op, class Run>
bool run_with(Run& run, Op op, std::size_t per_element = 1) {
  run(std::type_identity<T>{}, op, per_element);
  return true;
}

/// Integers of any signedness as the unsigned type of their width: sums and
/// products wrap as MPI's do on two's complement machines (without signed
/// overflow), and the logical and bitwise ops do not depend on signedness.
template <class Op, class Run>
bool by_width(element e, Op op, Run& run) {
  switch (e) {
    case element::int8: case element::uint8: case element::boolean: case element::byte:
      return run_with<std::uint8_t>(run, op);
    case element::int16: case element::uint16: return run_with<std::uint16_t>(run, op);
    case element::int32: case element::uint32: return run_with<std::uint32_t>(run, op);
    case element::int64: case element::uint64: return run_with<std::uint64_t>(run, op);
    default: return false;
  }
}

/// Bitwise ops act on each byte alone: integers of every width (and MPI_BYTE)
/// as their bytes, so that one instantiation serves them all.
template <class Op, class Run>
bool as_bytes(element e, Op op, Run& run) {
  switch (e) {
    case element::int8: case element::uint8: case element::byte: return run_with<std::uint8_t>(run, op);
    case element::int16: case element::uint16: return run_with<std::uint8_t>(run, op, 2);
    case element::int32: case element::uint32: return run_with<std::uint8_t>(run, op, 4);
    case element::int64: case element::uint64: return run_with<std::uint8_t>(run, op, 8);
    default: return false;
  }
}

template <class Op, class Run>
bool integer_exactly(element e, Op op, Run& run) {
  switch (e) {
    case element::int8: return run_with<std::int8_t>(run, op);
    case element::int16: return run_with<std::int16_t>(run, op);
    case element::int32: return run_with<std::int32_t>(run, op);
    case element::int64: return run_with<std::int64_t>(run, op);
    case element::uint8: return run_with<std::uint8_t>(run, op);
    case element::uint16: return run_with<std::uint16_t>(run, op);
    case element::uint32: return run_with<std::uint32_t>(run, op);
    case element::uint64: return run_with<std::uint64_t>(run, op);
    default: return false;
  }
}

template <class Op, class Run>
bool floating(element e, Op op, Run& run) {
  switch (e) {
    case element::float32: return run_with<float>(run, op);
    case element::float64: return run_with<double>(run, op);
    case element::long_double: return run_with<long double>(run, op);
    default: return false;
  }
}

template <class Op, class Run>
bool complex(element e, Op op, Run& run) {
  switch (e) {
    case element::complex_float: return run_with<std::complex<float>>(run, op);
    case element::complex_double: return run_with<std::complex<double>>(run, op);
    case element::complex_long_double: return run_with<std::complex<long double>>(run, op);
    default: return false;
  }
}

template <class Op, class Run>
bool pair(element e, Op op, Run& run) {
  switch (e) {
    case element::float_int: return run_with<std::pair<float, int>>(run, op);
    case element::double_int: return run_with<std::pair<double, int>>(run, op);
    case element::long_int: return run_with<std::pair<long, int>>(run, op);
    case element::int_int: return run_with<std::pair<int, int>>(run, op);
    case element::short_int: return run_with<std::pair<short, int>>(run, op);
    case element::long_double_int: return run_with<std::pair<long double, int>>(run, op);
    default: return false;
  }
}

constexpr bool is_integer(element e) { return e >= element::int8 && e <= element::uint64; }

}  // namespace detail

/// Calls run(std::type_identity<T>{}, Op{}, per_element) with the element
/// type and op that compute `op` on `e` exactly as MPI defines it (MPI 4.0
/// §6.9.2: which op is defined on which group of types), an element of `e`
/// being `per_element` elements of T, and returns true; returns false,
/// without calling it, where MPI does not define the op on the type or the
/// library does not serve it.
template <class Run>
bool with_typed_reduction(element e, reduction_op op, Run&& run) {
  using namespace detail;
  switch (op) {
    case reduction_op::sum:
      return (is_integer(e) && by_width(e, hpcoll::op::sum{}, run)) || floating(e, hpcoll::op::sum{}, run) ||
             complex(e, hpcoll::op::sum{}, run);
    case reduction_op::prod:
      return (is_integer(e) && by_width(e, hpcoll::op::prod{}, run)) || floating(e, hpcoll::op::prod{}, run) ||
             complex(e, hpcoll::op::prod{}, run);
    case reduction_op::min:
      return integer_exactly(e, hpcoll::op::min{}, run) || floating(e, hpcoll::op::min{}, run);
    case reduction_op::max:
      return integer_exactly(e, hpcoll::op::max{}, run) || floating(e, hpcoll::op::max{}, run);
    case reduction_op::land:
      return (is_integer(e) || e == element::boolean) && by_width(e, hpcoll::op::land{}, run);
    case reduction_op::lor:
      return (is_integer(e) || e == element::boolean) && by_width(e, hpcoll::op::lor{}, run);
    case reduction_op::lxor:
      return (is_integer(e) || e == element::boolean) && by_width(e, logical_xor{}, run);
    case reduction_op::band:
      return (is_integer(e) || e == element::byte) && as_bytes(e, hpcoll::op::band{}, run);
    case reduction_op::bor:
      return (is_integer(e) || e == element::byte) && as_bytes(e, hpcoll::op::bor{}, run);
    case reduction_op::bxor:
      return (is_integer(e) || e == element::byte) && as_bytes(e, hpcoll::op::bxor{}, run);
    case reduction_op::minloc: return pair(e, hpcoll::op::minloc{}, run);
    case reduction_op::maxloc: return pair(e, hpcoll::op::maxloc{}, run);
    case reduction_op::other: return false;
  }
  return false;
}

}  // namespace hpcoll::pmpi
