// SPDX-License-Identifier: BSD-3-Clause
// Every (collective, schedule) pair of the data-movement collectives against
// the native MPI collective on MPI_COMM_WORLD: bcast, gather, gatherv,
// scatter, allgather, allgatherv, alltoall, alltoallv, each in its ordinary
// and in-place forms, on random data, compared bit for bit (moving data must
// be exact).
//
// Every rank runs the same loops, so every rank makes the same sequence of
// collective calls whatever the checks find; checks are CHECKs, never
// rank-local REQUIREs. Output buffers start out as random "canvas" data, the
// same for hpcoll and the native call, so comparing whole buffers also
// proves that elements no block covers (gatherv/allgatherv/alltoallv gaps,
// the rest of a root's in-place buffer) stay untouched.
//
// movement.split_messages moves ~1 MB per call; run it with
// HPCOLL_MAX_MESSAGE_BYTES=4096 to exercise the executor's message splitting.
#include "support/collective_test.hpp"

#include <boost/hana/for_each.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/type.hpp>

#include <algorithm>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace {

namespace hana = boost::hana;
namespace sched = hpcoll::schedule;
using hpcoll::in_place;
using hpcoll_test::native_type;
using hpcoll_test::particle;
using hpcoll_test::random_vector;
using hpcoll_test::world_rank;
using hpcoll_test::world_size;

// ---- What is tested ------------------------------------------------------------

template <class... T>
constexpr auto types = hana::tuple_t<T...>;

constexpr auto element_types = types<int, double, float, std::int64_t, std::complex<double>, particle>;

constexpr auto bcast_schedules =
    types<sched::linear, sched::binomial, sched::scatter_ring_allgather, sched::scatter_recursive_doubling_allgather,
          sched::scatter_allgather<sched::binomial, sched::bruck>, sched::scatter_allgather<sched::linear, sched::linear>,
          sched::pipeline<1024>, sched::pipeline<>, sched::segmented_binary<4096>, sched::segmented_binomial<2048>,
          sched::knomial<3>, sched::knomial<4>, sched::automatic>;
constexpr auto gather_schedules = types<sched::linear, sched::linear_sync<2>, sched::binomial, sched::automatic>;
constexpr auto gatherv_schedules = types<sched::linear, sched::linear_sync<2>, sched::automatic>;
constexpr auto scatter_schedules = types<sched::linear, sched::linear_sync<3>, sched::binomial, sched::automatic>;
constexpr auto allgather_schedules =
    types<sched::linear, sched::ring, sched::recursive_doubling, sched::bruck, sched::automatic>;
/// Allgatherv runs the allgather schedules; two element types (a built-in and
/// a derived datatype) keep the instantiations few.
constexpr auto allgatherv_schedules = allgather_schedules;
constexpr auto allgatherv_types = types<double, particle>;
constexpr auto alltoall_schedules =
    types<sched::linear, sched::linear_sync<2>, sched::pairwise, sched::bruck, sched::automatic>;
constexpr auto alltoallv_schedules = types<sched::linear, sched::linear_sync<3>, sched::pairwise, sched::automatic>;

/// The large count (~2^17) is tried for these element types only.
template <class T>
constexpr bool large_type = std::is_same_v<T, int> || std::is_same_v<T, double>;

template <class T>
const char* type_name() {
  if constexpr (std::is_same_v<T, int>) return "int";
  else if constexpr (std::is_same_v<T, double>) return "double";
  else if constexpr (std::is_same_v<T, float>) return "float";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
  else if constexpr (std::is_same_v<T, std::complex<double>>) return "complex<double>";
  else if constexpr (std::is_same_v<T, particle>) return "particle";
  else return "?";
}

/// Calls f(hana::type_c<T>, count, root) for every element type, every count
/// of test_counts and, for rooted collectives, every root (only the first and
/// last with the large count); root is -1 for the unrooted ones.
template <class F>
void for_each_case(bool rooted, F&& f) {
  const int p = world_size();
  hana::for_each(element_types, [&](auto type) {
    using T = typename decltype(type)::type;
    for (const std::size_t n : hpcoll_test::test_counts(p, large_type<T>)) {
      if (!rooted) {
        f(type, n, -1);
        continue;
      }
      const bool large = n > 1000;
      for (int root = 0; root < p; ++root)
        if (!large || root == 0 || root == p - 1) f(type, n, root);
    }
  });
}

// ---- Helpers -------------------------------------------------------------------

int as_int(std::size_t n) { return static_cast<int>(n); }

std::vector<std::size_t> as_sizes(const std::vector<int>& v) { return {v.begin(), v.end()}; }

/// "gatherv<linear_sync<2>> in-place, type double, count 7, root 2, np 4, rank 1".
template <class S, class T>
std::string describe(const char* collective, const char* form, std::size_t count, int root) {
  std::ostringstream o;
  o << collective << "<" << hpcoll::schedule_name<S>() << ">";
  if (*form != '\0') o << " " << form;
  o << ", type " << type_name<T>() << ", count " << count;
  if (root >= 0) o << ", root " << root;
  o << ", np " << world_size() << ", rank " << world_rank();
  return o.str();
}

/// Index of the first element whose bytes differ, or -1 (0 if the sizes differ).
template <class T>
long bitwise_difference(const std::vector<T>& got, const std::vector<T>& want) {
  if (got.size() != want.size()) return 0;
  if (got.empty() || std::memcmp(got.data(), want.data(), got.size() * sizeof(T)) == 0) return -1;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (std::memcmp(&got[i], &want[i], sizeof(T)) != 0) return static_cast<long>(i);
  return -1;
}

template <class T>
void expect_same(const std::vector<T>& got, const std::vector<T>& want, const std::string& where,
                 const std::string& what) {
  const long at = bitwise_difference(got, want);
  CHECK_MESSAGE(at < 0, where, ": ", what, " differs from native MPI at element ", at, " (", got.size(), " vs ",
                want.size(), " elements)");
}

/// hpcoll never writes a non-in-place input.
template <class T>
void expect_input_kept(const std::vector<T>& input, const std::vector<T>& original, const std::string& where) {
  const long at = bitwise_difference(input, original);
  CHECK_MESSAGE(at < 0, where, ": the input was modified at element ", at);
}

/// `v` with `block` copied in at element `at`.
template <class T>
std::vector<T> with_block(std::vector<T> v, const std::vector<T>& block, std::size_t at) {
  std::copy(block.begin(), block.end(), v.begin() + static_cast<std::ptrdiff_t>(at));
  return v;
}

/// Blocks of the given sizes laid out with `gap` unused elements before,
/// between and after them, in rank order or in reverse rank order.
struct placement {
  std::vector<int> displs;
  std::size_t extent = 0;
};
placement place_blocks(const std::vector<int>& counts, int gap, bool reverse) {
  const std::size_t p = counts.size();
  placement out{std::vector<int>(p), static_cast<std::size_t>(gap)};
  for (std::size_t k = 0; k < p; ++k) {
    const std::size_t q = reverse ? p - 1 - k : k;
    out.displs[q] = as_int(out.extent);
    out.extent += static_cast<std::size_t>(counts[q] + gap);
  }
  return out;
}

/// An irregular element count around `base` for a pair (a, b), zero for
/// about a quarter of the pairs (never for a == b), 0 throughout if base is 0.
int irregular_count(int a, int b, std::size_t base, int ka, int kb) {
  const int h = (a * ka + b * kb + 1) % 4;
  return base == 0 || h == 0 ? 0 : as_int(base) + h - 1;
}
/// Gatherv: what rank q sends.
int gatherv_count(int q, std::size_t base) { return irregular_count(q, 0, base, 3, 0); }
/// Allgatherv: what rank q contributes.
int allgatherv_count(int q, std::size_t base) { return irregular_count(q, 0, base, 5, 0); }
/// Alltoallv: what rank `from` sends to rank `to`.
int pair_count(int from, int to, std::size_t base) { return irregular_count(from, to, base, 5, 3); }
/// In-place alltoallv: symmetric, as MPI requires.
int symmetric_pair_count(int i, int j, std::size_t base) {
  return irregular_count(std::min(i, j), std::max(i, j), base, 3, 5);
}

// ---- One case per collective: native reference, then every schedule ----------

template <class T, class Schedules>
void check_bcast(const hpcoll::communicator& c, std::size_t n, int root, Schedules schedules) {
  const auto initial = random_vector<T>(n, 11);  // the root's data; garbage to overwrite elsewhere
  auto want = initial;
  MPI_Bcast(want.data(), as_int(n), native_type<T>(), root, MPI_COMM_WORLD);
  hana::for_each(schedules, [&](auto s) {
    using S = typename decltype(s)::type;
    auto buf = initial;
    hpcoll::Bcast<S>{}(c, buf, root);
    expect_same(buf, want, describe<S, T>("bcast", "", n, root), "the buffer");
  });
}

template <class T>
void check_gather(const hpcoll::communicator& c, std::size_t n, int root) {
  const bool at_root = c.rank() == root;
  const std::size_t all = static_cast<std::size_t>(c.size()) * n;
  const MPI_Datatype type = native_type<T>();
  const auto in = random_vector<T>(n, 21);
  const auto canvas = random_vector<T>(at_root ? all : 0, 22);
  auto want = canvas;
  MPI_Gather(in.data(), as_int(n), type, want.data(), as_int(n), type, root, MPI_COMM_WORLD);
  const auto canvas_ip = at_root ? with_block(canvas, in, static_cast<std::size_t>(root) * n) : canvas;
  auto want_ip = canvas_ip;
  MPI_Gather(at_root ? MPI_IN_PLACE : in.data(), as_int(n), type, want_ip.data(), as_int(n), type, root,
             MPI_COMM_WORLD);
  const auto original = in;
  hana::for_each(gather_schedules, [&](auto s) {
    using S = typename decltype(s)::type;
    auto out = canvas;
    hpcoll::Gather<S>{}(c, in, out, root);
    const auto where = describe<S, T>("gather", "", n, root);
    expect_same(out, want, where, "the output");
    expect_input_kept(in, original, where);

    auto buf = canvas_ip;
    if (at_root)
      hpcoll::Gather<S>{}(c, in_place, buf, root);
    else
      hpcoll::Gather<S>{}(c, in, buf, root);
    expect_same(buf, want_ip, describe<S, T>("gather", "in-place at the root", n, root), "the output");
  });
}

/// Three forms: explicit displacements (reverse rank order with gaps; counts
/// and displacements as int, empty off the root), packed (std::size_t counts
/// on every rank) and in place at the root.
template <class T>
void check_gatherv(const hpcoll::communicator& c, std::size_t n, int root) {
  const int p = c.size();
  const bool at_root = c.rank() == root;
  const MPI_Datatype type = native_type<T>();
  std::vector<int> counts(static_cast<std::size_t>(p));
  for (int q = 0; q < p; ++q) counts[static_cast<std::size_t>(q)] = gatherv_count(q, n);
  const auto counts_z = as_sizes(counts);
  const placement place = place_blocks(counts, 2, true);
  const placement packed = place_blocks(counts, 0, false);
  const std::size_t mine = counts_z[static_cast<std::size_t>(c.rank())];
  const auto own_at = static_cast<std::size_t>(place.displs[static_cast<std::size_t>(root)]);

  const auto in = random_vector<T>(mine, 31);
  const auto canvas = random_vector<T>(at_root ? place.extent : 0, 32);
  const auto canvas_packed = random_vector<T>(at_root ? packed.extent : 0, 33);
  const auto canvas_ip = at_root ? with_block(canvas, in, own_at) : canvas;
  auto want = canvas, want_packed = canvas_packed, want_ip = canvas_ip;
  MPI_Gatherv(in.data(), as_int(mine), type, want.data(), counts.data(), place.displs.data(), type, root,
              MPI_COMM_WORLD);
  MPI_Gatherv(in.data(), as_int(mine), type, want_packed.data(), counts.data(), packed.displs.data(), type, root,
              MPI_COMM_WORLD);
  MPI_Gatherv(at_root ? MPI_IN_PLACE : in.data(), as_int(mine), type, want_ip.data(), counts.data(),
              place.displs.data(), type, root, MPI_COMM_WORLD);

  const std::vector<int> none;
  const auto& root_counts = at_root ? counts : none;
  const auto& root_displs = at_root ? place.displs : none;
  const auto original = in;
  hana::for_each(gatherv_schedules, [&](auto s) {
    using S = typename decltype(s)::type;
    auto out = canvas;
    hpcoll::Gatherv<S>{}(c, in, out, root_counts, root_displs, root);
    const auto where = describe<S, T>("gatherv", "displacements", n, root);
    expect_same(out, want, where, "the output");
    expect_input_kept(in, original, where);

    auto out_packed = canvas_packed;
    hpcoll::Gatherv<S>{}(c, in, out_packed, counts_z, root);
    expect_same(out_packed, want_packed, describe<S, T>("gatherv", "packed", n, root), "the output");

    auto buf = canvas_ip;
    if (at_root)
      hpcoll::Gatherv<S>{}(c, in_place, buf, counts_z, place.displs, root);
    else
      hpcoll::Gatherv<S>{}(c, in, buf, root_counts, root_displs, root);
    expect_same(buf, want_ip, describe<S, T>("gatherv", "in-place at the root", n, root), "the output");
  });
}

template <class T>
void check_scatter(const hpcoll::communicator& c, std::size_t n, int root) {
  const bool at_root = c.rank() == root;
  const MPI_Datatype type = native_type<T>();
  const auto in = random_vector<T>(at_root ? static_cast<std::size_t>(c.size()) * n : 0, 41);
  const auto canvas = random_vector<T>(n, 42);
  auto want = canvas;
  MPI_Scatter(in.data(), as_int(n), type, want.data(), as_int(n), type, root, MPI_COMM_WORLD);
  // In place: the root keeps its whole buffer (its block stays where it is).
  auto want_ip = at_root ? in : canvas;
  MPI_Scatter(want_ip.data(), as_int(n), type, at_root ? MPI_IN_PLACE : want_ip.data(), as_int(n), type, root,
              MPI_COMM_WORLD);
  const auto original = in;
  hana::for_each(scatter_schedules, [&](auto s) {
    using S = typename decltype(s)::type;
    auto out = canvas;
    hpcoll::Scatter<S>{}(c, in, out, root);
    const auto where = describe<S, T>("scatter", "", n, root);
    expect_same(out, want, where, "the output");
    expect_input_kept(in, original, where);

    auto buf = at_root ? in : canvas;
    if (at_root)
      hpcoll::Scatter<S>{}(c, buf, in_place, root);
    else
      hpcoll::Scatter<S>{}(c, in, buf, root);
    expect_same(buf, want_ip, describe<S, T>("scatter", "in-place at the root", n, root),
                at_root ? "the root's buffer" : "the output");
  });
}

template <class T>
void check_allgather(const hpcoll::communicator& c, std::size_t n) {
  const MPI_Datatype type = native_type<T>();
  const auto in = random_vector<T>(n, 51);
  const auto canvas = random_vector<T>(static_cast<std::size_t>(c.size()) * n, 52);
  const auto canvas_ip = with_block(canvas, in, static_cast<std::size_t>(c.rank()) * n);
  auto want = canvas, want_ip = canvas_ip;
  MPI_Allgather(in.data(), as_int(n), type, want.data(), as_int(n), type, MPI_COMM_WORLD);
  MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, want_ip.data(), as_int(n), type, MPI_COMM_WORLD);
  const auto original = in;
  hana::for_each(allgather_schedules, [&](auto s) {
    using S = typename decltype(s)::type;
    auto out = canvas;
    hpcoll::Allgather<S>{}(c, in, out);
    const auto where = describe<S, T>("allgather", "", n, -1);
    expect_same(out, want, where, "the output");
    expect_input_kept(in, original, where);

    auto buf = canvas_ip;
    hpcoll::Allgather<S>{}(c, in_place, buf);
    expect_same(buf, want_ip, describe<S, T>("allgather", "in-place", n, -1), "the buffer");
  });
}

/// Four forms: explicit displacements, each rank's own (packed on ranks
/// 0, 3, 6, reverse rank order with gaps on 1, 4, 7, rank order with gaps on
/// the others; counts and displacements as int), packed (std::size_t
/// counts), in place with displacements (reverse order with gaps on even
/// ranks, rank order with gaps on odd ones; std::size_t counts, int
/// displacements) and in place packed.
template <class T>
void check_allgatherv(const hpcoll::communicator& c, std::size_t n) {
  const int p = c.size(), me = c.rank();
  const MPI_Datatype type = native_type<T>();
  std::vector<int> counts(static_cast<std::size_t>(p));
  for (int q = 0; q < p; ++q) counts[static_cast<std::size_t>(q)] = allgatherv_count(q, n);
  const auto counts_z = as_sizes(counts);
  const placement place = place_blocks(counts, me % 3 == 0 ? 0 : 3 - me % 3, me % 3 == 1);
  const placement packed = place_blocks(counts, 0, false);
  const placement inplace = place_blocks(counts, 1, me % 2 == 0);
  const std::size_t mine = counts_z[static_cast<std::size_t>(me)];

  const auto in = random_vector<T>(mine, 81);
  const auto canvas = random_vector<T>(place.extent, 82);
  const auto canvas_packed = random_vector<T>(packed.extent, 83);
  const auto canvas_ip = with_block(random_vector<T>(inplace.extent, 84), in,
                                    static_cast<std::size_t>(inplace.displs[static_cast<std::size_t>(me)]));
  const auto canvas_ip_packed = with_block(random_vector<T>(packed.extent, 85), in,
                                           static_cast<std::size_t>(packed.displs[static_cast<std::size_t>(me)]));
  auto want = canvas, want_packed = canvas_packed, want_ip = canvas_ip, want_ip_packed = canvas_ip_packed;
  MPI_Allgatherv(in.data(), as_int(mine), type, want.data(), counts.data(), place.displs.data(), type, MPI_COMM_WORLD);
  MPI_Allgatherv(in.data(), as_int(mine), type, want_packed.data(), counts.data(), packed.displs.data(), type,
                 MPI_COMM_WORLD);
  MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, want_ip.data(), counts.data(), inplace.displs.data(), type,
                 MPI_COMM_WORLD);
  MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, want_ip_packed.data(), counts.data(), packed.displs.data(), type,
                 MPI_COMM_WORLD);

  const auto original = in;
  hana::for_each(allgatherv_schedules, [&](auto s) {
    using S = typename decltype(s)::type;
    auto out = canvas;
    hpcoll::Allgatherv<S>{}(c, in, out, counts, place.displs);
    const auto where = describe<S, T>("allgatherv", "displacements", n, -1);
    expect_same(out, want, where, "the output");
    expect_input_kept(in, original, where);

    auto out_packed = canvas_packed;
    hpcoll::Allgatherv<S>{}(c, in, out_packed, counts_z);
    expect_same(out_packed, want_packed, describe<S, T>("allgatherv", "packed", n, -1), "the output");

    auto buf = canvas_ip;
    hpcoll::Allgatherv<S>{}(c, in_place, buf, counts_z, inplace.displs);
    expect_same(buf, want_ip, describe<S, T>("allgatherv", "in-place", n, -1), "the buffer");

    auto buf_packed = canvas_ip_packed;
    hpcoll::Allgatherv<S>{}(c, in_place, buf_packed, counts);
    expect_same(buf_packed, want_ip_packed, describe<S, T>("allgatherv", "in-place packed", n, -1), "the buffer");
  });
  // The free function: the dispatcher's choice, as Allgatherv<automatic>.
  auto out = canvas;
  hpcoll::allgatherv(c, in, out, counts, place.displs);
  expect_same(out, want, describe<sched::automatic, T>("hpcoll::allgatherv", "displacements", n, -1), "the output");
}

/// `block` elements per pair of ranks.
template <class T, class Schedules>
void check_alltoall(const hpcoll::communicator& c, std::size_t block, Schedules schedules) {
  const MPI_Datatype type = native_type<T>();
  const std::size_t all = static_cast<std::size_t>(c.size()) * block;
  const auto in = random_vector<T>(all, 61);
  const auto canvas = random_vector<T>(all, 62);
  auto want = canvas, want_ip = in;
  MPI_Alltoall(in.data(), as_int(block), type, want.data(), as_int(block), type, MPI_COMM_WORLD);
  MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, want_ip.data(), as_int(block), type, MPI_COMM_WORLD);
  const auto original = in;
  hana::for_each(schedules, [&](auto s) {
    using S = typename decltype(s)::type;
    auto out = canvas;
    hpcoll::Alltoall<S>{}(c, in, out);
    const auto where = describe<S, T>("alltoall", "", block, -1);
    expect_same(out, want, where, "the output");
    expect_input_kept(in, original, where);

    auto buf = in;
    hpcoll::Alltoall<S>{}(c, in_place, buf);
    expect_same(buf, want_ip, describe<S, T>("alltoall", "in-place", block, -1), "the buffer");
  });
}

/// Irregular counts around `base` per pair; send blocks in rank order and
/// receive blocks in reverse order, both with gaps. Counts and displacements
/// are passed as a mix of int and std::size_t.
template <class T>
void check_alltoallv(const hpcoll::communicator& c, std::size_t base) {
  const int p = c.size(), me = c.rank();
  const MPI_Datatype type = native_type<T>();
  std::vector<int> send_counts(static_cast<std::size_t>(p)), recv_counts(send_counts), counts_ip(send_counts);
  for (int q = 0; q < p; ++q) {
    const auto i = static_cast<std::size_t>(q);
    send_counts[i] = pair_count(me, q, base);
    recv_counts[i] = pair_count(q, me, base);
    counts_ip[i] = symmetric_pair_count(me, q, base);
  }
  const placement send = place_blocks(send_counts, 3, false);
  const placement recv = place_blocks(recv_counts, 1, true);
  const placement inplace = place_blocks(counts_ip, 2, true);
  const auto send_displs_z = as_sizes(send.displs);
  const auto recv_counts_z = as_sizes(recv_counts);

  const auto in = random_vector<T>(send.extent, 71);
  const auto canvas = random_vector<T>(recv.extent, 72);
  const auto canvas_ip = random_vector<T>(inplace.extent, 73);
  auto want = canvas, want_ip = canvas_ip;
  MPI_Alltoallv(in.data(), send_counts.data(), send.displs.data(), type, want.data(), recv_counts.data(),
                recv.displs.data(), type, MPI_COMM_WORLD);
  MPI_Alltoallv(MPI_IN_PLACE, nullptr, nullptr, MPI_DATATYPE_NULL, want_ip.data(), counts_ip.data(),
                inplace.displs.data(), type, MPI_COMM_WORLD);
  const auto inplace_displs_z = as_sizes(inplace.displs);
  const auto original = in;
  hana::for_each(alltoallv_schedules, [&](auto s) {
    using S = typename decltype(s)::type;
    auto out = canvas;
    hpcoll::Alltoallv<S>{}(c, in, send_counts, send_displs_z, out, recv_counts_z, recv.displs);
    const auto where = describe<S, T>("alltoallv", "", base, -1);
    expect_same(out, want, where, "the output");
    expect_input_kept(in, original, where);

    auto buf = canvas_ip;
    hpcoll::Alltoallv<S>{}(c, in_place, buf, counts_ip, inplace_displs_z);
    expect_same(buf, want_ip, describe<S, T>("alltoallv", "in-place", base, -1), "the buffer");
  });
}

/// ~2^17 elements in total per rank for the all-to-alls, not per block.
std::size_t per_pair(std::size_t n, int p) { return n > 1000 ? n / static_cast<std::size_t>(p) : n; }

}  // namespace

// ---- Test cases ------------------------------------------------------------------

TEST_CASE("movement.bcast") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  for_each_case(true, [&](auto type, std::size_t n, int root) {
    check_bcast<typename decltype(type)::type>(c, n, root, bcast_schedules);
  });
}

TEST_CASE("movement.gather") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  for_each_case(true, [&](auto type, std::size_t n, int root) { check_gather<typename decltype(type)::type>(c, n, root); });
}

TEST_CASE("movement.gatherv") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  for_each_case(true,
                [&](auto type, std::size_t n, int root) { check_gatherv<typename decltype(type)::type>(c, n, root); });
}

TEST_CASE("movement.scatter") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  for_each_case(true,
                [&](auto type, std::size_t n, int root) { check_scatter<typename decltype(type)::type>(c, n, root); });
}

TEST_CASE("movement.allgather") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  for_each_case(false, [&](auto type, std::size_t n, int) { check_allgather<typename decltype(type)::type>(c, n); });
}

TEST_CASE("movement.allgatherv") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  hana::for_each(allgatherv_types, [&](auto type) {
    using T = typename decltype(type)::type;
    for (const std::size_t n : hpcoll_test::test_counts(c.size(), large_type<T>)) check_allgatherv<T>(c, n);
  });
}

TEST_CASE("movement.alltoall") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  for_each_case(false, [&](auto type, std::size_t n, int) {
    check_alltoall<typename decltype(type)::type>(c, per_pair(n, c.size()), alltoall_schedules);
  });
}

TEST_CASE("movement.alltoallv") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  for_each_case(false,
                [&](auto type, std::size_t n, int) { check_alltoallv<typename decltype(type)::type>(c, per_pair(n, c.size())); });
}

// A repeated blocking call replays the plan its first call of that shape
// recorded; cycling through more shapes than a thread keeps per schedule
// records them again. Every call is checked, with new data each time.
TEST_CASE("movement.repeated_calls") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  const int p = c.size();
  const int rank = c.rank();
  for (int pass = 0; pass < 3; ++pass) {
    for (int k = 0; k < 6; ++k) {
      const int root = k % p;
      const std::size_t n = 1 + static_cast<std::size_t>(k);
      const std::string where = "pass " + std::to_string(pass) + ", " + std::to_string(n) + " elements, root " +
                                std::to_string(root);
      const auto value = [&](std::size_t i) { return 1000 * pass + 100 * k + static_cast<int>(i); };
      std::vector<int> want(n);
      for (std::size_t i = 0; i < n; ++i) want[i] = value(i);

      std::vector<int> named(n, -1), automatic(n, -1);
      if (rank == root) named = automatic = want;
      hpcoll::Bcast<sched::binomial>{}(c, named, root);
      hpcoll::bcast(c, automatic, root);
      expect_same(named, want, "Bcast<binomial>, " + where, "the buffer");
      expect_same(automatic, want, "bcast, " + where, "the buffer");

      // Reductions: recv_reduce steps, and scratch on the inner ranks of the tree.
      std::vector<int> mine(n), sum(n);
      for (std::size_t i = 0; i < n; ++i) mine[i] = value(i) * (rank + 1);
      std::vector<int> want_sum(n);
      for (std::size_t i = 0; i < n; ++i) want_sum[i] = value(i) * p * (p + 1) / 2;
      std::vector<int> reduced(n, -1);
      hpcoll::Reduce<sched::binomial>{}(c, mine, reduced, hpcoll::op::sum{}, root);
      if (rank == root) expect_same(reduced, want_sum, "Reduce<binomial>, " + where, "the result");
      hpcoll::Allreduce<sched::recursive_doubling>{}(c, mine, sum, hpcoll::op::sum{});
      expect_same(sum, want_sum, "Allreduce<recursive_doubling>, " + where, "the result");
    }
  }
}

// The v-collectives replay a recorded plan only for the same counts and
// displacements: here the same vectors, at the same addresses, change
// between calls (and come back), and every call must follow what they hold.
// Closed-form expectations: MPICH 4.0.2's MPI_Allgatherv on one process
// ignores the displacement.
TEST_CASE("movement.repeated_v_calls") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  const int p = c.size();
  const int rank = c.rank();
  const auto P = static_cast<std::size_t>(p);
  std::vector<std::size_t> counts(P), displs(P);
  for (int pass = 0; pass < 4; ++pass) {
    // Passes 0 and 2 alike (a recorded plan found again), 1 and 3 differ from them.
    const int shift = pass % 2 == 0 ? 0 : pass;
    std::size_t at = 0;
    for (std::size_t q = 0; q < P; ++q) {
      counts[q] = (q + static_cast<std::size_t>(shift)) % 3;
      displs[q] = at + static_cast<std::size_t>(shift % 2);  // pass 1 and 3: a gap before each block
      at = displs[q] + counts[q];
    }
    const std::size_t extent = at, mine = counts[static_cast<std::size_t>(rank)];
    const std::string where = "pass " + std::to_string(pass);
    const auto expect = [&](const std::vector<int>& got, const std::vector<int>& want, const std::string& call) {
      const long at = bitwise_difference(got, want);
      CHECK_MESSAGE(at < 0, call, ", ", where, ": the output differs from the expected blocks at element ", at);
    };
    // Element i of rank q's block, and what rank q sends to rank j at element e of block j.
    const auto element = [&](std::size_t q, std::size_t i) { return 1000 * pass + 10 * static_cast<int>(q + i); };
    const auto sent = [&](std::size_t q, std::size_t j, std::size_t e) {
      return 1000 * pass + 100 * static_cast<int>(q) + static_cast<int>(displs[j] + e);
    };
    std::vector<int> in(mine);
    for (std::size_t i = 0; i < mine; ++i) in[i] = element(static_cast<std::size_t>(rank), i);
    std::vector<int> want(extent, -1);
    for (std::size_t q = 0; q < P; ++q)
      for (std::size_t i = 0; i < counts[q]; ++i) want[displs[q] + i] = element(q, i);

    std::vector<int> got(extent, -1);
    hpcoll::Allgatherv<sched::ring>{}(c, in, got, counts, displs);
    expect(got, want, "Allgatherv<ring>");
    std::fill(got.begin(), got.end(), -1);
    hpcoll::Gatherv<sched::linear>{}(c, in, got, counts, displs, 0);
    if (rank == 0) expect(got, want, "Gatherv<linear>");

    // Alltoallv: rank q sends counts[j] elements to rank j, so each rank
    // receives counts[rank] from every rank.
    std::vector<std::size_t> recv_counts(P, mine), recv_displs(P);
    for (std::size_t q = 0; q < P; ++q) recv_displs[q] = q * mine;
    std::vector<int> send(extent, -1);
    for (std::size_t j = 0; j < P; ++j)
      for (std::size_t e = 0; e < counts[j]; ++e) send[displs[j] + e] = sent(static_cast<std::size_t>(rank), j, e);
    std::vector<int> received(P * mine, -1), expected(P * mine);
    for (std::size_t q = 0; q < P; ++q)
      for (std::size_t e = 0; e < mine; ++e) expected[q * mine + e] = sent(q, static_cast<std::size_t>(rank), e);
    hpcoll::Alltoallv<sched::pairwise>{}(c, send, counts, displs, received, recv_counts, recv_displs);
    expect(received, expected, "Alltoallv<pairwise>");
  }
}

// An empty block's displacement means nothing (MPI checks none): empty
// blocks placed far beyond the buffers, the others packed in rank order (so
// the allgatherv runs in place) or in reverse order with gaps.
TEST_CASE("movement.empty_blocks_anywhere") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  const int p = c.size();
  const int rank = c.rank();
  const auto P = static_cast<std::size_t>(p);
  const auto me = static_cast<std::size_t>(rank);
  constexpr std::size_t far = std::size_t{1} << 40;
  // Rank q's block for rank j has (q + j) % 3 elements; element e of it.
  const auto count = [](std::size_t q, std::size_t j) { return (q + j) % 3; };
  const auto element = [](std::size_t q, std::size_t j, std::size_t e) { return static_cast<int>(100 * q + 10 * j + e); };
  /// Displacements for blocks of `counts`: empty ones at `far`, the others
  /// packed in rank order or, `reversed`, from the last rank to the first
  /// with a one-element gap after each. Returns the extent.
  const auto place = [&](const std::vector<std::size_t>& counts, std::vector<std::size_t>& displs, bool reversed) {
    std::size_t at = 0;
    for (std::size_t k = 0; k < P; ++k) {
      const std::size_t q = reversed ? P - 1 - k : k;
      displs[q] = counts[q] == 0 ? far + q : at;
      if (counts[q] != 0) at += counts[q] + (reversed ? 1 : 0);
    }
    return at;
  };
  for (const bool reversed : {false, true}) {
    const std::string layout = reversed ? "reversed with gaps" : "packed";
    // Allgatherv and gatherv: rank q contributes count(q, 0) elements.
    std::vector<std::size_t> counts(P), displs(P);
    for (std::size_t q = 0; q < P; ++q) counts[q] = count(q, 0);
    const std::size_t extent = place(counts, displs, reversed);
    std::vector<int> in(counts[me]);
    for (std::size_t e = 0; e < in.size(); ++e) in[e] = element(me, 0, e);
    std::vector<int> want(extent, -1);
    for (std::size_t q = 0; q < P; ++q)
      for (std::size_t e = 0; e < counts[q]; ++e) want[displs[q] + e] = element(q, 0, e);
    std::vector<int> got(extent, -1);
    hpcoll::allgatherv(c, in, got, counts, displs);
    CHECK_MESSAGE(got == want, "allgatherv, ", layout);
    std::fill(got.begin(), got.end(), -1);
    hpcoll::Allgatherv<sched::ring>{}(c, in, got, counts, displs);
    CHECK_MESSAGE(got == want, "Allgatherv<ring>, ", layout);
    for (int root = 0; root < p; ++root) {
      std::fill(got.begin(), got.end(), -1);
      hpcoll::gatherv(c, in, got, counts, displs, root);
      if (rank == root) CHECK_MESSAGE(got == want, "gatherv to ", root, ", ", layout);
    }
    // Alltoallv: rank `rank` sends count(rank, j) elements to rank j.
    std::vector<std::size_t> send_counts(P), send_displs(P), recv_counts(P), recv_displs(P);
    for (std::size_t j = 0; j < P; ++j) {
      send_counts[j] = count(me, j);
      recv_counts[j] = count(j, me);
    }
    std::vector<int> send(place(send_counts, send_displs, reversed), -1);
    std::vector<int> received(place(recv_counts, recv_displs, reversed), -1), expected(received.size(), -1);
    for (std::size_t j = 0; j < P; ++j) {
      for (std::size_t e = 0; e < send_counts[j]; ++e) send[send_displs[j] + e] = element(me, j, e);
      for (std::size_t e = 0; e < recv_counts[j]; ++e) expected[recv_displs[j] + e] = element(j, me, e);
    }
    hpcoll::alltoallv(c, send, send_counts, send_displs, received, recv_counts, recv_displs);
    CHECK_MESSAGE(received == expected, "alltoallv, ", layout);
  }
}

// ~1 MB per call, counts not a multiple of any message limit. With
// HPCOLL_MAX_MESSAGE_BYTES=4096 every transfer travels as many messages.
TEST_CASE("movement.split_messages") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  const int p = c.size();
  constexpr std::size_t megabyte_of_doubles = (std::size_t{1} << 17) + 5;
  const auto split_bcasts = types<sched::linear, sched::binomial, sched::scatter_ring_allgather>;
  const auto split_alltoalls = types<sched::linear, sched::pairwise, sched::bruck>;
  check_bcast<double>(c, megabyte_of_doubles, p - 1, split_bcasts);
  check_bcast<particle>(c, megabyte_of_doubles / 2, 0, split_bcasts);
  check_alltoall<double>(c, megabyte_of_doubles / static_cast<std::size_t>(p), split_alltoalls);
  check_alltoall<particle>(c, megabyte_of_doubles / 2 / static_cast<std::size_t>(p), split_alltoalls);
  check_allgatherv<double>(c, megabyte_of_doubles / static_cast<std::size_t>(p));
}

// Alltoallv as a sparse exchange, as a graph code makes it: per call one rank
// sends to a few others and every other block is empty (some calls move
// nothing at all). The patterns change from call to call, more of them than
// the recorded plans kept, and come back; every call must deliver exactly
// what its counts say.
TEST_CASE("movement.sparse_alltoallv") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  const int p = c.size();
  const auto me = static_cast<std::size_t>(c.rank());
  const auto P = static_cast<std::size_t>(p);
  // Call k: rank k mod p (none when k mod (p + 2) is p + 1) sends 1 + k mod 3
  // elements to rank (k + 1) mod p and one to rank (k + 2) mod p.
  const auto count = [&](int k, std::size_t from, std::size_t to) -> std::size_t {
    if (k % (p + 2) == p + 1 || from != static_cast<std::size_t>(k % p)) return 0;
    std::size_t n = 0;
    if (to == static_cast<std::size_t>((k + 1) % p)) n += 1 + static_cast<std::size_t>(k % 3);
    if (to == static_cast<std::size_t>((k + 2) % p)) n += 1;
    return n;
  };
  const auto element = [](int k, std::size_t from, std::size_t to, std::size_t e) {
    return 100000 * k + 1000 * static_cast<int>(from) + 10 * static_cast<int>(to) + static_cast<int>(e);
  };
  std::vector<std::size_t> send_counts(P), send_displs(P), recv_counts(P), recv_displs(P);
  for (int k = 0; k < 6 * (p + 2); ++k) {
    std::size_t out = 0, in = 0;
    for (std::size_t j = 0; j < P; ++j) {
      send_counts[j] = count(k, me, j);
      send_displs[j] = out;
      out += send_counts[j];
      recv_counts[j] = count(k, j, me);
      recv_displs[j] = in;
      in += recv_counts[j];
    }
    std::vector<int> send(out), expected(in);
    for (std::size_t j = 0; j < P; ++j) {
      for (std::size_t e = 0; e < send_counts[j]; ++e) send[send_displs[j] + e] = element(k, me, j, e);
      for (std::size_t e = 0; e < recv_counts[j]; ++e) expected[recv_displs[j] + e] = element(k, j, me, e);
    }
    std::vector<int> automatic(in, -1), linear(in, -1);
    hpcoll::alltoallv(c, send, send_counts, send_displs, automatic, recv_counts, recv_displs);
    hpcoll::Alltoallv<sched::linear>{}(c, send, send_counts, send_displs, linear, recv_counts, recv_displs);
    CHECK_MESSAGE(automatic == expected, "alltoallv, call ", k);
    CHECK_MESSAGE(linear == expected, "Alltoallv<linear>, call ", k);
  }
}
