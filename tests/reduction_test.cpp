// SPDX-License-Identifier: BSD-3-Clause
// Every (collective, schedule) pair of the reduction collectives — Reduce,
// Allreduce, ReduceScatterBlock — against the native MPI collective on random
// data: every element type with a sum, the other built-in ops on a few
// schedules of each collective, a user lambda, the non-commutative matrix
// product, both call forms, every root.
#include "support/collective_test.hpp"

#include <boost/hana/all_of.hpp>
#include <boost/hana/concat.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/type.hpp>

#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iomanip>
#include <ostream>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace hana = boost::hana;
namespace S = hpcoll::schedule;
namespace op = hpcoll::op;
using hpcoll_test::matrix2;
using hpcoll_test::particle;
using hpcoll_test::world_rank;
using hpcoll_test::world_size;

namespace {

// ---- Schedules -------------------------------------------------------------------

/// Reduce schedules that keep rank order (any op) and those that need a commutative op. The
/// segments are small enough that the test sizes cut into several.
constexpr auto ordered_reduce_schedules =
    hana::tuple_t<S::linear, S::binomial, S::pipeline<1024>, S::pipeline<>, S::segmented_binary<4096>,
                  S::segmented_binomial<2048>, S::knomial<3>, S::knomial<4>, S::automatic>;
constexpr auto commutative_reduce_schedules =
    hana::tuple_t<S::rabenseifner_reduce, S::reduce_scatter_gather<S::ring, S::binomial>>;
/// Allreduce and reduce-scatter schedules that keep rank order (any op) and those that need a commutative op.
constexpr auto ordered_allreduce_schedules =
    hana::tuple_t<S::recursive_doubling, S::linear, S::reduce_bcast<S::binomial, S::binomial>,
                  S::reduce_bcast<S::binomial, S::scatter_ring_allgather>,
                  S::reduce_scatter_allgather<S::linear, S::recursive_doubling>, S::automatic>;
constexpr auto commutative_allreduce_schedules =
    hana::tuple_t<S::ring, S::segmented_ring<4096>, S::rabenseifner,
                  S::reduce_scatter_allgather<S::recursive_halving, S::ring>,
                  S::reduce_scatter_allgather<S::ring, S::bruck>>;
constexpr auto ordered_rsb_schedules = hana::tuple_t<S::linear, S::automatic>;
constexpr auto commutative_rsb_schedules = hana::tuple_t<S::ring, S::segmented_ring<4096>, S::recursive_halving>;
/// The schedules every built-in op runs on (the sum runs on all): one combining
/// in rank order, a tree or butterfly, one over reduce-scattered blocks, and
/// the dispatcher's. How a schedule moves and combines blocks does not depend
/// on the op, and each op's kernel compiled into every schedule costs minutes.
constexpr auto reduce_op_schedules = hana::tuple_t<S::linear, S::binomial, S::rabenseifner_reduce, S::automatic>;
constexpr auto allreduce_op_schedules = hana::tuple_t<S::linear, S::recursive_doubling, S::ring, S::automatic>;
constexpr auto rsb_op_schedules = hana::tuple_t<S::linear, S::ring, S::automatic>;

/// Whether every schedule of `list` needs a commutative op for Shape (or none does).
template <class Shape, bool Commutative, class List>
constexpr bool all_require_commutative(List list) {
  return hana::all_of(list, [](auto s) {
    return hana::bool_c<hpcoll::requires_commutative<typename decltype(s)::type, Shape> == Commutative>;
  });
}
// The split below is what decides which schedules meet the matrix product.
static_assert(all_require_commutative<hpcoll::reduce_shape, false>(ordered_reduce_schedules));
static_assert(all_require_commutative<hpcoll::reduce_shape, true>(commutative_reduce_schedules));
static_assert(all_require_commutative<hpcoll::allreduce_shape, false>(ordered_allreduce_schedules));
static_assert(all_require_commutative<hpcoll::allreduce_shape, true>(commutative_allreduce_schedules));
static_assert(all_require_commutative<hpcoll::reduce_scatter_block_shape, false>(ordered_rsb_schedules));
static_assert(all_require_commutative<hpcoll::reduce_scatter_block_shape, true>(commutative_rsb_schedules));

/// Calls f.template operator()<X>() for every hana::type<X> of `list`.
template <class List, class F>
void for_each_type(List list, F&& f) {
  hana::for_each(list, [&](auto t) { f.template operator()<typename decltype(t)::type>(); });
}

// ---- Element types, ops, data ------------------------------------------------------

using loc_pair = std::pair<double, int>;

constexpr auto element_types = hana::tuple_t<int, double, float, std::int64_t, std::complex<double>, particle>;
constexpr auto int_ops = hana::tuple_t<op::min, op::max, op::prod, op::band, op::bor, op::bxor, op::land, op::lor>;
constexpr auto loc_ops = hana::tuple_t<op::minloc, op::maxloc>;

// The built-in ops compute in the element's own type, as MPI's do: an unsigned
// type narrower than int wraps (C++ promotes it to int, where 65535 * 65535
// overflows: no constant expression).
static_assert(op::prod{}(std::uint16_t{65535}, std::uint16_t{65535}) == 1);
static_assert(op::prod{}(std::uint8_t{255}, std::uint8_t{255}) == 1);
static_assert(op::sum{}(std::uint16_t{65535}, std::uint16_t{1}) == 0);

/// The user op: a plain (so commutative) lambda, the element of larger
/// magnitude (the larger one on a tie, so it is commutative and associative).
constexpr auto max_abs = [](const auto& a, const auto& b) {
  const auto abs_a = a < 0 ? -a : a, abs_b = b < 0 ? -b : b;
  if (abs_a != abs_b) return abs_a < abs_b ? b : a;
  return a < b ? b : a;
};
using max_abs_op = std::remove_const_t<decltype(max_abs)>;

/// op::sum on data whose sum depends on the order of the additions (random
/// mantissas over a range of exponents): the bit-identical allreduce check.
struct order_sensitive_sum : op::sum {
  static constexpr const char* name = "sum (order-sensitive data)";
};

template <class T>
std::string type_name() {
  if constexpr (std::is_same_v<T, int>) return "int";
  else if constexpr (std::is_same_v<T, double>) return "double";
  else if constexpr (std::is_same_v<T, float>) return "float";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
  else if constexpr (std::is_same_v<T, std::complex<double>>) return "complex<double>";
  else if constexpr (std::is_same_v<T, particle>) return "particle";
  else if constexpr (std::is_same_v<T, matrix2>) return "matrix2";
  else if constexpr (std::is_same_v<T, loc_pair>) return "pair<double, int>";
  else static_assert(sizeof(T) == 0, "type_name: add the type");
}

template <class T>
std::string show(const T& x) {
  std::ostringstream o;
  o << std::setprecision(17);
  if constexpr (std::is_same_v<T, particle>)
    o << "{mass " << x.mass << ", id " << x.id << ", charge " << x.charge << '}';
  else if constexpr (std::is_same_v<T, matrix2>)
    o << '[' << x.m[0] << ' ' << x.m[1] << "; " << x.m[2] << ' ' << x.m[3] << ']';
  else if constexpr (std::is_same_v<T, loc_pair>)
    o << '(' << x.first << ", " << x.second << ')';
  else
    o << x;
  return o.str();
}

/// Results that must be bitwise the same on every rank of an allreduce.
template <class T>
constexpr bool floating_point_data = std::is_floating_point_v<T> || std::is_same_v<T, std::complex<double>> ||
                                     std::is_same_v<T, particle>;

/// A different salt for every call's data (the same on every rank).
int next_salt() {
  static int salt = 0;
  return ++salt;
}

/// This rank's contribution for op Op: random data, shaped where the op needs it.
template <class T, class Op>
std::vector<T> input_for(std::size_t n, int salt) {
  if constexpr (std::is_same_v<T, loc_pair>) {
    // Few distinct values, so ties exercise the index rule of MINLOC/MAXLOC.
    const auto values = hpcoll_test::random_vector<int>(n, salt);
    const auto indices = hpcoll_test::random_vector<int>(n, salt + 1);
    std::vector<T> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = {static_cast<double>(values[i] % 4) / 2.0, indices[i]};
    return v;
  } else if constexpr (std::is_same_v<Op, order_sensitive_sum>) {
    std::mt19937_64 gen(static_cast<std::uint64_t>(world_rank()) * 1000003u + static_cast<std::uint64_t>(salt));
    std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
    std::uniform_int_distribution<int> exponent(std::is_same_v<T, float> ? -4 : -10, std::is_same_v<T, float> ? 4 : 10);
    std::vector<T> v(n);
    for (auto& x : v) x = static_cast<T>(std::ldexp(mantissa(gen), exponent(gen)));
    return v;
  } else {
    auto v = hpcoll_test::random_vector<T>(n, salt);
    const int zero_one_in = 2 * world_size();
    for (auto& x : v) {
      if constexpr (std::is_same_v<Op, op::prod>) x = x % 3;  // |product| <= 2^p: no overflow
      // Zeros (land) or nonzeros (lor) in about one element in 2p, so both results occur.
      if constexpr (std::is_same_v<Op, op::land>) x = x % zero_one_in == 0 ? 0 : x;
      if constexpr (std::is_same_v<Op, op::lor>) x = x % zero_one_in == 0 ? x : 0;
    }
    return v;
  }
}

// ---- The collectives, each with its call forms and native counterpart ----------------

struct reduce_call {
  static constexpr const char* name = "reduce";
  static constexpr bool rooted = true;
  static constexpr bool same_result_everywhere = false;
  static constexpr auto schedules = hana::concat(ordered_reduce_schedules, commutative_reduce_schedules);
  static constexpr auto ordered_schedules = ordered_reduce_schedules;
  static constexpr auto op_schedules = reduce_op_schedules;
  static std::size_t input_count(std::size_t n) { return n; }
  static bool gets_result(int root) { return world_rank() == root; }
  template <class T>
  static void native(const std::vector<T>& in, std::vector<T>& out, std::size_t n, MPI_Op op, int root) {
    MPI_Reduce(in.data(), out.data(), static_cast<int>(n), hpcoll_test::native_type<T>(), op, root, MPI_COMM_WORLD);
  }
  template <class Schedule, class T, class Op>
  static void run(const hpcoll::communicator& c, const std::vector<T>& in, std::vector<T>& out, const Op& op,
                  int root) {
    hpcoll::Reduce<Schedule>{}(c, in, out, op, root);
  }
  /// In place at the root; the other ranks call the plain form with no output.
  template <class Schedule, class T, class Op>
  static void run_in_place(const hpcoll::communicator& c, const std::vector<T>& in, std::vector<T>& buf, const Op& op,
                           int root) {
    if (world_rank() == root)
      hpcoll::Reduce<Schedule>{}(c, hpcoll::in_place, buf, op, root);
    else
      hpcoll::Reduce<Schedule>{}(c, in, std::span<T>{}, op, root);
  }
};

struct allreduce_call {
  static constexpr const char* name = "allreduce";
  static constexpr bool rooted = false;
  static constexpr bool same_result_everywhere = true;
  static constexpr auto schedules = hana::concat(ordered_allreduce_schedules, commutative_allreduce_schedules);
  static constexpr auto ordered_schedules = ordered_allreduce_schedules;
  static constexpr auto op_schedules = allreduce_op_schedules;
  static std::size_t input_count(std::size_t n) { return n; }
  static bool gets_result(int) { return true; }
  template <class T>
  static void native(const std::vector<T>& in, std::vector<T>& out, std::size_t n, MPI_Op op, int) {
    MPI_Allreduce(in.data(), out.data(), static_cast<int>(n), hpcoll_test::native_type<T>(), op, MPI_COMM_WORLD);
  }
  template <class Schedule, class T, class Op>
  static void run(const hpcoll::communicator& c, const std::vector<T>& in, std::vector<T>& out, const Op& op, int) {
    hpcoll::Allreduce<Schedule>{}(c, in, out, op);
  }
  template <class Schedule, class T, class Op>
  static void run_in_place(const hpcoll::communicator& c, const std::vector<T>&, std::vector<T>& buf, const Op& op,
                           int) {
    hpcoll::Allreduce<Schedule>{}(c, hpcoll::in_place, buf, op);
  }
};

/// n is the block length: every rank contributes p·n elements.
struct reduce_scatter_block_call {
  static constexpr const char* name = "reduce_scatter_block";
  static constexpr bool rooted = false;
  static constexpr bool same_result_everywhere = false;
  static constexpr auto schedules = hana::concat(ordered_rsb_schedules, commutative_rsb_schedules);
  static constexpr auto ordered_schedules = ordered_rsb_schedules;
  static constexpr auto op_schedules = rsb_op_schedules;
  static std::size_t input_count(std::size_t n) { return n * static_cast<std::size_t>(world_size()); }
  static bool gets_result(int) { return true; }
  template <class T>
  static void native(const std::vector<T>& in, std::vector<T>& out, std::size_t n, MPI_Op op, int) {
    MPI_Reduce_scatter_block(in.data(), out.data(), static_cast<int>(n), hpcoll_test::native_type<T>(), op,
                             MPI_COMM_WORLD);
  }
  template <class Schedule, class T, class Op>
  static void run(const hpcoll::communicator& c, const std::vector<T>& in, std::vector<T>& out, const Op& op, int) {
    hpcoll::ReduceScatterBlock<Schedule>{}(c, in, out, op);
  }
  /// The buffer holds all p·n elements; the result is its first n.
  template <class Schedule, class T, class Op>
  static void run_in_place(const hpcoll::communicator& c, const std::vector<T>&, std::vector<T>& buf, const Op& op,
                           int) {
    hpcoll::ReduceScatterBlock<Schedule>{}(c, hpcoll::in_place, buf, op);
  }
};

constexpr auto collectives = hana::tuple_t<reduce_call, allreduce_call, reduce_scatter_block_call>;

// ---- The comparison --------------------------------------------------------------------

/// What a failure message says about the call.
struct call_info {
  std::string collective, schedule, type, op;
  std::size_t count;
  int root;
  bool in_place;
};
std::ostream& operator<<(std::ostream& o, const call_info& c) {
  o << "hpcoll::" << c.collective << '<' << c.schedule << ">, " << c.type << ", op " << c.op << ", count " << c.count;
  if (c.root >= 0) o << ", root " << c.root;
  return o << (c.in_place ? ", in place" : ", out of place") << ", rank " << world_rank() << " of " << world_size();
}

template <class T>
std::string difference(std::span<const T> got, std::span<const T> want, long at) {
  if (at < 0) return "none";
  if (got.size() != want.size())
    return "got " + std::to_string(got.size()) + " elements, native MPI " + std::to_string(want.size());
  const auto i = static_cast<std::size_t>(at);
  return "first difference at index " + std::to_string(at) + ": hpcoll " + show(got[i]) + ", native MPI " +
         show(want[i]);
}

/// What check_call checks of a call's output `out`, of which `got` is this
/// rank's result: it is native MPI's `want`; a rank without a result left its
/// buffer as it was (`untouched`, when given); a floating-point result is the
/// same bitwise on every rank (when `same_everywhere`, which every rank must
/// pass alike: that check is collective).
/// Out of line: one copy per element type, not one per collective and schedule.
template <class T>
[[gnu::noinline]] void check_result(std::span<const T> got, std::span<const T> want, const std::vector<T>& out,
                                    const std::vector<T>* untouched, bool same_everywhere) {
  const long at = hpcoll_test::first_difference(got, want);
  CHECK_MESSAGE(at < 0, difference(got, want, at));
  if (untouched) CHECK_MESSAGE(out == *untouched, "a non-root rank's output buffer was written");
  if (same_everywhere)
    CHECK_MESSAGE(hpcoll_test::identical_on_all_ranks(std::as_bytes(got)),
                  "the floating-point result differs bitwise between ranks");
}

/// One call of collective Coll with Schedule, in both forms, against the
/// native collective's result `native` computes on the same data. Not inlined,
/// nor is check_op: inlined, every test case would be one function of hundreds
/// of collective calls, which the optimizer takes minutes over.
template <class Coll, class Schedule, class T, class Op>
[[gnu::noinline]] void check_call(const hpcoll::communicator& c, const Op& op, MPI_Op native,
                                  const std::string& op_name, std::size_t n, int root) {
  const std::vector<T> in = input_for<T, Op>(Coll::input_count(n), next_salt());
  const bool mine = Coll::gets_result(root);
  std::vector<T> want(mine ? n : 0);
  Coll::native(in, want, n, native, root);
  // Output buffers start with data that is neither the input nor the result.
  const std::vector<T> untouched = input_for<T, Op>(n, next_salt());

  for (const bool in_place : {false, true}) {
    const call_info info{Coll::name, hpcoll::schedule_name<Schedule>(), type_name<T>(), op_name, n,
                         Coll::rooted ? root : -1, in_place};
    INFO(info);
    std::vector<T> out = in_place ? in : untouched;
    if (in_place)
      Coll::template run_in_place<Schedule>(c, in, out, op, root);
    else
      Coll::template run<Schedule>(c, in, out, op, root);
    check_result(std::span<const T>(out).first(mine ? n : 0), std::span<const T>(want), out,
                 !mine && !in_place ? &untouched : nullptr, Coll::same_result_everywhere && floating_point_data<T>);
  }
}

/// The counts to try at one root: test_counts, with the ~2^17 count only for
/// sums of int and double and only at roots 0 and p − 1; or, when `fixed` is
/// set, just that count.
template <class T, class Op>
std::vector<std::size_t> counts_at(int root, std::size_t fixed) {
  if (fixed > 0) return {fixed};
  constexpr bool large_type = std::is_same_v<Op, op::sum> && (std::is_same_v<T, int> || std::is_same_v<T, double>);
  const int p = world_size();
  return hpcoll_test::test_counts(p, large_type && (root == 0 || root == p - 1));
}

/// Every count (and, for Reduce, every root) with one op.
template <class Coll, class Schedule, class T, class Op>
[[gnu::noinline]] void check_op(const hpcoll::communicator& c, const Op& op, MPI_Op native,
                                const std::string& op_name, std::size_t fixed_count = 0) {
  for (int root = 0; root < (Coll::rooted ? world_size() : 1); ++root)
    for (std::size_t n : counts_at<T, Op>(root, fixed_count))
      check_call<Coll, Schedule, T>(c, op, native, op_name, n, root);
}

/// A built-in op, named and matched with its native MPI_Op.
template <class Coll, class Schedule, class T, class Op>
void check_builtin(const hpcoll::communicator& c, std::size_t fixed_count = 0) {
  check_op<Coll, Schedule, T>(c, Op{}, hpcoll_test::native_op<T, Op>(), Op::name, fixed_count);
}

/// Sum on every element type for every schedule of Coll; the integer ops on
/// int and MINLOC/MAXLOC on (double, int) pairs for Coll::op_schedules.
template <class Coll>
void check_builtin_ops() {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  for_each_type(Coll::schedules, [&]<class Schedule>() {
    for_each_type(element_types, [&]<class T>() { check_builtin<Coll, Schedule, T, op::sum>(c); });
  });
  for_each_type(Coll::op_schedules, [&]<class Schedule>() {
    for_each_type(int_ops, [&]<class Op>() { check_builtin<Coll, Schedule, int, Op>(c); });
    for_each_type(loc_ops, [&]<class Op>() { check_builtin<Coll, Schedule, loc_pair, Op>(c); });
  });
}

/// The non-commutative matrix product on every order-preserving schedule of Coll.
template <class Coll>
void check_matrix_product(const hpcoll::communicator& c, std::size_t fixed_count = 0) {
  const MPI_Op native = hpcoll_test::native_user_op<matrix2, hpcoll_test::matrix_multiply>(false);
  for_each_type(Coll::ordered_schedules, [&]<class Schedule>() {
    check_op<Coll, Schedule, matrix2>(c, hpcoll_test::matrix_product(), native, "matrix product (non-commutative)",
                                      fixed_count);
  });
}

/// A count whose messages exceed `limit` bytes even when cut into p blocks,
/// and is not a multiple of the elements per message.
template <class T>
std::size_t split_count(std::size_t limit) {
  return 5 * limit * static_cast<std::size_t>(world_size()) / (2 * sizeof(T)) + 3;
}

}  // namespace

TEST_CASE("reduction.reduce") { check_builtin_ops<reduce_call>(); }

TEST_CASE("reduction.allreduce") { check_builtin_ops<allreduce_call>(); }

TEST_CASE("reduction.reduce_scatter_block") { check_builtin_ops<reduce_scatter_block_call>(); }

TEST_CASE("reduction.user_op") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  for_each_type(collectives, [&]<class Coll>() {
    for_each_type(Coll::schedules, [&]<class Schedule>() {
      for_each_type(hana::tuple_t<int, double>, [&]<class T>() {
        const MPI_Op native = hpcoll_test::native_user_op<T, max_abs_op>(true);
        check_op<Coll, Schedule, T>(c, max_abs, native, "max_abs (user lambda)");
      });
    });
  });
}

TEST_CASE("reduction.noncommutative") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  for_each_type(collectives, [&]<class Coll>() { check_matrix_product<Coll>(c); });
}

TEST_CASE("reduction.bit_identical") {
  // check_call compares every floating-point allreduce result across ranks;
  // here on data whose sum changes with the order of the additions.
  const int p = world_size();
  if (p >= 3) {  // the data tells orders apart: summing the ranks' values forwards and backwards differs
    const std::size_t n = 1000;
    const auto mine = input_for<double, order_sensitive_sum>(n, next_salt());
    std::vector<double> all(n * static_cast<std::size_t>(p));
    MPI_Allgather(mine.data(), static_cast<int>(n), MPI_DOUBLE, all.data(), static_cast<int>(n), MPI_DOUBLE,
                  MPI_COMM_WORLD);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < n; ++i) {
      double forwards = 0, backwards = 0;
      for (int q = 0; q < p; ++q) forwards += all[static_cast<std::size_t>(q) * n + i];
      for (int q = p - 1; q >= 0; --q) backwards += all[static_cast<std::size_t>(q) * n + i];
      differ += forwards != backwards ? 1 : 0;
    }
    CHECK(differ > 0);
  }
  const hpcoll::communicator c(MPI_COMM_WORLD);
  for_each_type(allreduce_call::schedules, [&]<class Schedule>() {
    for_each_type(hana::tuple_t<double, float>, [&]<class T>() {
      check_op<allreduce_call, Schedule, T>(c, order_sensitive_sum{}, MPI_SUM, order_sensitive_sum::name);
    });
  });
}

// Run by the ctest cases reduction.split_messages.np* with
// HPCOLL_MAX_MESSAGE_BYTES=4096 (the executor reads it once per process):
// every message of every schedule travels as several MPI messages.
TEST_CASE("reduction.split_messages" * doctest::skip()) {
  const char* env = std::getenv("HPCOLL_MAX_MESSAGE_BYTES");
  HPCOLL_REQUIRE_ALL_RANKS(env != nullptr);
  const std::size_t limit = hpcoll::detail::max_message_bytes();
  HPCOLL_REQUIRE_ALL_RANKS(limit == static_cast<std::size_t>(std::atoll(env)));
  const hpcoll::communicator c(MPI_COMM_WORLD);
  for_each_type(collectives, [&]<class Coll>() {
    for_each_type(Coll::schedules, [&]<class Schedule>() {
      for_each_type(hana::tuple_t<int, double, particle>, [&]<class T>() {
        check_builtin<Coll, Schedule, T, op::sum>(c, split_count<T>(limit));
      });
    });
    check_matrix_product<Coll>(c, split_count<matrix2>(limit));
  });
}
