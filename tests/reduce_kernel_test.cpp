// SPDX-License-Identifier: BSD-3-Clause
// The combine kernel (exec/reduce_kernel.hpp) against each element's op taken
// one at a time: every arithmetic type and built-in op, lengths across the
// vector widths and the wide-path threshold, unaligned starts, and the output
// on either operand. Built at -O3 (tests/CMakeLists.txt) so that the loops
// are the vectorised ones the collectives run.
#include <doctest/doctest.h>

#include <hpcoll/exec/reduce_kernel.hpp>
#include <hpcoll/op.hpp>

#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace {

/// n elements (not std::vector, which packs bool).
template <class T>
struct block {
  explicit block(std::size_t n) : elems(new T[n]()) {}
  T* data() { return elems.get(); }
  const T* data() const { return elems.get(); }
  std::unique_ptr<T[]> elems;
};

/// The values a type's operands are drawn from: small enough that no
/// product of two overflows a signed type; NaN, infinities and signed zeros
/// for floating types (min and max must treat them as one element at a time
/// does).
template <class T>
block<T> operands(std::size_t n, std::mt19937& rng) {
  block<T> v(n);
  T* x = v.data();
  if constexpr (std::is_same_v<T, bool>) {
    for (std::size_t i = 0; i < n; ++i) x[i] = (rng() & 1) != 0;
  } else if constexpr (std::is_floating_point_v<T>) {
    std::uniform_real_distribution<T> d(-100, 100);
    for (std::size_t i = 0; i < n; ++i) x[i] = d(rng);
    const T special[] = {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(),
                         -std::numeric_limits<T>::infinity(), T(0), -T(0)};
    for (std::size_t i = 0; i < n; i += 7) x[i] = special[(i / 7) % 5];
  } else {
    std::uniform_int_distribution<int> d(std::is_signed_v<T> ? -100 : 0, 100);
    for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<T>(d(rng));
  }
  return v;
}

/// op(left[i], right[i]) one element at a time: the volatile reads keep the
/// compiler from vectorising this loop.
template <class T, class Op>
block<T> one_at_a_time(const T* left, const T* right, std::size_t n, const Op& op) {
  block<T> result(n);
  T* out = result.data();
  for (std::size_t i = 0; i < n; ++i) {
    const T a = static_cast<const volatile T&>(left[i]);
    const T b = static_cast<const volatile T&>(right[i]);
    out[i] = op(a, b);
  }
  return result;
}

template <class T>
bool same_bits(const T* a, const T* b, std::size_t n) {
  if constexpr (std::is_same_v<T, bool>) {
    for (std::size_t i = 0; i < n; ++i)
      if (a[i] != b[i]) return false;
    return true;
  } else {
    return n == 0 || std::memcmp(a, b, n * sizeof(T)) == 0;
  }
}

enum class output { separate, on_left, on_right };

template <class T, class Op>
void check_op(const char* type, const Op& op, std::mt19937& rng) {
  const std::size_t wide = hpcoll::detail::wide_combine_bytes / sizeof(T);
  std::vector<std::size_t> lengths;
  for (std::size_t n = 0; n <= 80; ++n) lengths.push_back(n);
  for (std::size_t n : {wide - 1, wide, wide + 1, wide + 7, 3 * wide + 5, std::size_t{4099}}) lengths.push_back(n);
  for (std::size_t n : lengths)
    for (std::size_t offset = 0; offset < 3; ++offset)
      for (output where : {output::separate, output::on_left, output::on_right}) {
        block<T> left = operands<T>(n + offset, rng), right = operands<T>(n + offset, rng);
        const block<T> expected = one_at_a_time(left.data() + offset, right.data() + offset, n, op);
        block<T> separate(n + offset);
        T* dst = where == output::on_left    ? left.data() + offset
                 : where == output::on_right ? right.data() + offset
                                             : separate.data() + offset;
        hpcoll::detail::combine(dst, left.data() + offset, right.data() + offset, n, op);
        INFO(type, " ", Op::name, " n=", n, " offset=", offset, " output=", static_cast<int>(where));
        CHECK(same_bits(dst, expected.data(), n));
      }
}

/// The ops of every arithmetic type; integers also take the bitwise and logical ones.
template <class T>
void check_arithmetic_ops(const char* type, std::mt19937& rng) {
  namespace op = hpcoll::op;
  check_op<T>(type, op::sum{}, rng);
  check_op<T>(type, op::prod{}, rng);
  check_op<T>(type, op::min{}, rng);
  check_op<T>(type, op::max{}, rng);
  if constexpr (std::is_integral_v<T>) {
    check_op<T>(type, op::band{}, rng);
    check_op<T>(type, op::bor{}, rng);
    check_op<T>(type, op::bxor{}, rng);
    check_op<T>(type, op::land{}, rng);
    check_op<T>(type, op::lor{}, rng);
  }
}

}  // namespace

TEST_CASE("reduce_kernel.matches_one_element_at_a_time") {
  const std::string instruction_set = hpcoll::detail::combine_instruction_set();
  MESSAGE("long combines use: ", instruction_set);
  std::mt19937 rng(20261202);
  check_arithmetic_ops<std::int8_t>("int8", rng);
  check_arithmetic_ops<std::uint8_t>("uint8", rng);
  check_arithmetic_ops<std::int16_t>("int16", rng);
  check_arithmetic_ops<std::uint16_t>("uint16", rng);
  check_arithmetic_ops<std::int32_t>("int32", rng);
  check_arithmetic_ops<std::uint32_t>("uint32", rng);
  check_arithmetic_ops<std::int64_t>("int64", rng);
  check_arithmetic_ops<std::uint64_t>("uint64", rng);
  check_arithmetic_ops<float>("float", rng);
  check_arithmetic_ops<double>("double", rng);
  namespace op = hpcoll::op;
  check_op<bool>("bool", op::land{}, rng);
  check_op<bool>("bool", op::lor{}, rng);
  check_op<bool>("bool", op::bxor{}, rng);
}

TEST_CASE("reduce_kernel.non_arithmetic_elements") {
  // Pairs (minloc) are not arithmetic: they take the baseline loop at any length.
  using pair = std::pair<double, int>;
  std::vector<pair> a(300), b(300), out(300);
  for (int i = 0; i < 300; ++i) {
    a[static_cast<std::size_t>(i)] = {static_cast<double>(i % 5), i};
    b[static_cast<std::size_t>(i)] = {static_cast<double>((i * 3) % 5), 300 - i};
  }
  hpcoll::detail::combine(out.data(), a.data(), b.data(), out.size(), hpcoll::op::minloc{});
  for (std::size_t i = 0; i < out.size(); ++i) {
    const pair& x = a[i];
    const pair& y = b[i];
    const pair expected = x.first < y.first   ? x
                          : y.first < x.first ? y
                                              : pair{x.first, x.second < y.second ? x.second : y.second};
    CHECK(out[i] == expected);
  }
}
