// SPDX-License-Identifier: BSD-3-Clause
// Reduction operations, run locally in C++ (never through MPI_Reduce_local).
#pragma once

#include <type_traits>
#include <utility>

#include <boost/hana/at_key.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/keys.hpp>
#include <boost/hana/concept/struct.hpp>

namespace hpcoll {

namespace detail {
/// Applies Elementwise to each member of a struct reflected with
/// BOOST_HANA_DEFINE_STRUCT, and directly to any other type.
template <class Elementwise, class T>
constexpr T memberwise(const T& a, const T& b, Elementwise f) {
  if constexpr (boost::hana::Struct<T>::value) {
    T result = a;
    boost::hana::for_each(boost::hana::keys(a), [&](auto key) {
      boost::hana::at_key(result, key) =
          memberwise(boost::hana::at_key(a, key), boost::hana::at_key(b, key), f);
    });
    return result;
  } else {
    return f(a, b);
  }
}

/// x * y in T's own arithmetic, as MPI_PROD computes it. C++ promotes an
/// unsigned type narrower than int to int, where 65535 * 65535 overflows
/// (undefined behaviour); the product is taken in unsigned int, which wraps.
template <class T>
constexpr auto product(const T& x, const T& y) {
  if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T> && sizeof(T) < sizeof(unsigned))
    return static_cast<unsigned>(x) * static_cast<unsigned>(y);
  else
    return x * y;
}
}  // namespace detail

namespace op {

#define HPCOLL_DEFINE_OP(NAME, EXPR)                                              \
  struct NAME {                                                                   \
    static constexpr const char* name = #NAME;                                    \
    template <class T>                                                            \
    constexpr T operator()(const T& a, const T& b) const {                        \
      return detail::memberwise(a, b, [](const auto& x, const auto& y) {          \
        return static_cast<std::remove_cvref_t<decltype(x)>>(EXPR);               \
      });                                                                         \
    }                                                                             \
  };

HPCOLL_DEFINE_OP(sum, x + y)
HPCOLL_DEFINE_OP(prod, detail::product(x, y))
HPCOLL_DEFINE_OP(min, y < x ? y : x)
HPCOLL_DEFINE_OP(max, x < y ? y : x)
HPCOLL_DEFINE_OP(land, x && y)
HPCOLL_DEFINE_OP(lor, x || y)
HPCOLL_DEFINE_OP(band, x & y)
HPCOLL_DEFINE_OP(bor, x | y)
HPCOLL_DEFINE_OP(bxor, x ^ y)
#undef HPCOLL_DEFINE_OP

/// MPI_MINLOC on (value, index) pairs: the smaller value, and on a tie the
/// smaller index.
struct minloc {
  static constexpr const char* name = "minloc";
  template <class V, class I>
  constexpr std::pair<V, I> operator()(const std::pair<V, I>& a, const std::pair<V, I>& b) const {
    if (a.first < b.first) return a;
    if (b.first < a.first) return b;
    return {a.first, a.second < b.second ? a.second : b.second};
  }
};

/// MPI_MAXLOC on (value, index) pairs: the larger value, and on a tie the
/// smaller index.
struct maxloc {
  static constexpr const char* name = "maxloc";
  template <class V, class I>
  constexpr std::pair<V, I> operator()(const std::pair<V, I>& a, const std::pair<V, I>& b) const {
    if (b.first < a.first) return a;
    if (a.first < b.first) return b;
    return {a.first, a.second < b.second ? a.second : b.second};
  }
};

/// A user operation declared non-commutative: schedules that reorder operands
/// refuse it at compile time; the others combine in rank order.
template <class F>
struct non_commutative_op {
  static constexpr const char* name = "non_commutative";
  F f;
  template <class T>
  constexpr T operator()(const T& a, const T& b) const { return f(a, b); }
};

/// A user operation declared commutative (the default for plain callables;
/// the wrapper documents the intent at the call site).
template <class F>
struct commutative_op {
  static constexpr const char* name = "commutative";
  F f;
  template <class T>
  constexpr T operator()(const T& a, const T& b) const { return f(a, b); }
};

template <class F>
constexpr non_commutative_op<std::decay_t<F>> non_commutative(F&& f) {
  return {std::forward<F>(f)};
}
template <class F>
constexpr commutative_op<std::decay_t<F>> commutative(F&& f) {
  return {std::forward<F>(f)};
}

}  // namespace op

/// Whether Op may combine operands in any order. Built-in ops and plain user
/// callables are commutative; wrap a callable with op::non_commutative(f), or
/// specialise this trait, to state otherwise. Every op must be associative.
template <class Op>
struct is_commutative : std::true_type {};
template <class F>
struct is_commutative<op::non_commutative_op<F>> : std::false_type {};

template <class Op>
inline constexpr bool is_commutative_v = is_commutative<std::remove_cvref_t<Op>>::value;

/// Whether Op can reduce elements of type T.
template <class Op, class T>
concept reduction_for = std::is_invocable_r_v<T, const Op&, const T&, const T&>;

}  // namespace hpcoll
