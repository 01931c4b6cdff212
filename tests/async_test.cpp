// SPDX-License-Identifier: BSD-3-Clause
// Nonblocking and persistent collectives (hpcoll::request, persistent_request,
// the progress policies) on random data at every process count:
//
// * every nonblocking entry point (i<collective><P>(c, ...), i<collective>(P{},
//   c, ...), Coll<S, Check, P>{}.start(c, ...), Coll<S>{}.start(P{}, c, ...))
//   of all eleven collectives, in every form (in place, gatherv and allgatherv
//   packed), every
//   root, counts 0, 1, p−1, p+1 and a large one, under each progress policy,
//   against the blocking form of the same collective and against a local
//   oracle (every rank can compute every rank's input, so every expected
//   result is computed without MPI);
// * explicit schedules and the non-commutative matrix product;
// * dozens of requests of mixed collectives and policies in flight at once,
//   completed in a different order on every rank, between blocking calls;
// * wait_any / wait_all, persistent replay, requests destroyed, overwritten or
//   moved in flight (also past their communicator object), a failure inside a
//   run raised by the call that completes it, argument errors at the call.
//
// Every rank issues the same collectives in the same order whatever its checks
// find (checks are CHECKs, never rank-local REQUIREs), so a failure cannot
// leave a rank waiting in a later collective.
//
// Two cases run in their own processes (skipped here, run by their own ctest
// cases, see tests/CMakeLists.txt): async.no_thread_multiple (MPI initialised
// below MPI_THREAD_MULTIPLE through HPCOLL_TEST_THREAD_LEVEL) and
// async.configure_before_use (the progress thread and offload worker are
// process-wide and can be configured only before their first use).
#include "support/collective_test.hpp"
#include "support/error_checks.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include <unistd.h>

namespace {

namespace S = hpcoll::schedule;
namespace progress = hpcoll::progress;
using hpcoll::in_place;
using hpcoll_test::contains;
using hpcoll_test::error_of;
using hpcoll_test::matrix2;
using hpcoll_test::world_rank;
using hpcoll_test::world_size;

#define FWD(x) std::forward<decltype(x)>(x)

// ---- Data: every rank can compute every rank's input ----------------------------------

std::uint64_t mix(std::uint64_t x) {  // splitmix64
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// Element `index` of rank `rank`'s data for the call with `salt`. Integers
/// and doubles are small multiples of 1/8, so sums are exact in any order and
/// results can be compared bit for bit with the oracle.
template <class T>
T value(int rank, std::uint64_t index, int salt) {
  const std::uint64_t h =
      mix(mix(static_cast<std::uint64_t>(rank) * 0x100000001B3ull + static_cast<std::uint64_t>(salt)) ^ index);
  if constexpr (std::is_same_v<T, matrix2>) {
    return matrix2{{static_cast<std::int64_t>(h % 1000), static_cast<std::int64_t>((h >> 16) % 1000),
                    static_cast<std::int64_t>((h >> 32) % 1000), static_cast<std::int64_t>((h >> 48) % 1000)}};
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(static_cast<double>(static_cast<std::int64_t>(h % 20001) - 10000) / 8.0);
  } else {
    return static_cast<T>(static_cast<std::int64_t>(h % 201) - 100);
  }
}

/// A different salt for every call's data (the same on every rank).
int next_salt() {
  static int salt = 0;
  return ++salt;
}

enum class form { plain, in_place, packed };

const char* form_name(form f) {
  switch (f) {
    case form::plain: return "plain";
    case form::in_place: return "in place";
    case form::packed: return "packed";
  }
  return "?";
}

/// One call: count parameter, root (ignored by unrooted collectives), form.
struct params {
  std::size_t n = 0;
  int root = 0;
  form f = form::plain;
};

/// What every case shares: its parameters, the data's salt, and the oracle's data.
template <class T>
struct case_base {
  explicit case_base(params p) : prm(p) {}
  params prm;
  int salt = 0;
  int me = world_rank();
  int p = world_size();
  std::size_t P = static_cast<std::size_t>(world_size());

  bool is_root() const { return me == prm.root; }
  bool in_place_form() const { return prm.f == form::in_place; }
  /// Rank `rank`'s input element `i`.
  T input(int rank, std::uint64_t i) const { return value<T>(rank, i, salt); }
  /// What this rank's output buffers hold before the call.
  T canvas(std::uint64_t i) const { return value<T>(me, i, -1 - salt); }
  void paint(std::vector<T>& v) const {
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = canvas(i);
  }
  std::vector<T> painted(std::size_t size) const {
    std::vector<T> v(size);
    paint(v);
    return v;
  }
};

/// Folds rank 0's to rank p−1's value in rank order (a non-commutative op keeps it).
template <class T, class Op, class Get>
T fold(const Op& op, int p, Get get) {
  T acc = get(0);
  for (int q = 1; q < p; ++q) acc = op(acc, get(q));
  return acc;
}

// The entry points of one collective: the object with its schedule, check and
// progress policy, and the two forms of the free i<collective> function.
#define HPCOLL_ASYNC_ENTRIES(Coll, ifunction)                            \
  template <class Sch = S::automatic, class P = progress::manual>        \
  using coll = hpcoll::Coll<Sch, hpcoll::check::from_env, P>;            \
  template <class P, class... A>                                         \
  static hpcoll::request ifn(const hpcoll::communicator& c, A&&... a) {  \
    return hpcoll::ifunction<P>(c, std::forward<A>(a)...);               \
  }                                                                      \
  template <class P, class... A>                                         \
  static hpcoll::request ifn_arg(const hpcoll::communicator& c, A&&... a) { \
    return hpcoll::ifunction(P{}, c, std::forward<A>(a)...);             \
  }

// ---- The eleven collectives: buffers, arguments, oracle ---------------------------------
//
// Each case owns its buffers (constructed once: a persistent request keeps the
// addresses), fill(salt) writes the inputs and the output canvas for one run,
// apply(f) calls f with the collective's arguments (after the communicator),
// expected() is the oracle's view of result().

template <class T>
struct bcast_case : case_base<T> {
  static constexpr const char* name = "bcast";
  static constexpr bool rooted = true;
  static constexpr std::array forms{form::plain};
  static constexpr std::size_t large = 100003;
  HPCOLL_ASYNC_ENTRIES(Bcast, ibcast)

  std::vector<T> buf;
  explicit bcast_case(params p) : case_base<T>(p), buf(p.n) {}
  void fill(int salt) {
    this->salt = salt;
    for (std::size_t i = 0; i < buf.size(); ++i) buf[i] = this->is_root() ? this->input(this->prm.root, i) : this->canvas(i);
  }
  template <class F>
  decltype(auto) apply(F&& f) {
    return f(buf, this->prm.root);
  }
  std::vector<T> expected() const {
    std::vector<T> v(this->prm.n);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = this->input(this->prm.root, i);
    return v;
  }
  std::span<const T> result() const { return buf; }
};

template <class T, class Op = hpcoll::op::sum>
struct reduce_case : case_base<T> {
  static constexpr const char* name = "reduce";
  static constexpr bool rooted = true;
  static constexpr std::array forms{form::plain, form::in_place};
  static constexpr std::size_t large = 100003;
  HPCOLL_ASYNC_ENTRIES(Reduce, ireduce)

  Op op{};
  std::vector<T> in, out;
  // Plain form: every rank has an output buffer (the others' must stay
  // untouched). In place: the root's buffer holds its input; the other ranks
  // call the plain form with an empty output.
  explicit reduce_case(params p)
      : case_base<T>(p), in(p.n), out(p.f == form::in_place && world_rank() != p.root ? 0 : p.n) {}
  void fill(int salt) {
    this->salt = salt;
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = this->input(this->me, i);
    if (this->in_place_form() && this->is_root())
      std::copy(in.begin(), in.end(), out.begin());
    else
      this->paint(out);
  }
  template <class F>
  decltype(auto) apply(F&& f) {
    if (this->in_place_form()) {
      if (this->is_root()) return f(in_place, out, op, this->prm.root);
      return f(in, std::span<T>{}, op, this->prm.root);  // a temporary view is fine
    }
    return f(in, out, op, this->prm.root);
  }
  std::vector<T> expected() const {
    if (!this->is_root()) return this->painted(out.size());
    std::vector<T> v(this->prm.n);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = fold<T>(op, this->p, [&](int q) { return this->input(q, i); });
    return v;
  }
  std::span<const T> result() const { return out; }
};

template <class T, class Op = hpcoll::op::sum>
struct allreduce_case : case_base<T> {
  static constexpr const char* name = "allreduce";
  static constexpr bool rooted = false;
  static constexpr std::array forms{form::plain, form::in_place};
  static constexpr std::size_t large = 100003;
  HPCOLL_ASYNC_ENTRIES(Allreduce, iallreduce)

  Op op{};
  std::vector<T> in, out;
  explicit allreduce_case(params p) : case_base<T>(p), in(p.n), out(p.n) {}
  void fill(int salt) {
    this->salt = salt;
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = this->input(this->me, i);
    if (this->in_place_form())
      std::copy(in.begin(), in.end(), out.begin());
    else
      this->paint(out);
  }
  template <class F>
  decltype(auto) apply(F&& f) {
    if (this->in_place_form()) return f(in_place, out, op);
    return f(in, out, op);
  }
  std::vector<T> expected() const {
    std::vector<T> v(this->prm.n);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = fold<T>(op, this->p, [&](int q) { return this->input(q, i); });
    return v;
  }
  std::span<const T> result() const { return out; }
};

template <class T>
struct gather_case : case_base<T> {
  static constexpr const char* name = "gather";
  static constexpr bool rooted = true;
  static constexpr std::array forms{form::plain, form::in_place};
  static constexpr std::size_t large = 12007;
  HPCOLL_ASYNC_ENTRIES(Gather, igather)

  std::vector<T> in, out;
  explicit gather_case(params p) : case_base<T>(p), in(p.n), out(world_rank() == p.root ? p.n * world_size() : 0) {}
  void fill(int salt) {
    this->salt = salt;
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = this->input(this->me, i);
    this->paint(out);
    if (this->in_place_form() && this->is_root())
      std::copy(in.begin(), in.end(), out.begin() + static_cast<std::ptrdiff_t>(this->prm.root * in.size()));
  }
  template <class F>
  decltype(auto) apply(F&& f) {
    if (this->in_place_form() && this->is_root()) return f(in_place, out, this->prm.root);
    return f(in, out, this->prm.root);
  }
  std::vector<T> expected() const {
    std::vector<T> v(out.size());
    for (int q = 0; q < this->p && this->is_root(); ++q)
      for (std::size_t i = 0; i < this->prm.n; ++i) v[static_cast<std::size_t>(q) * this->prm.n + i] = this->input(q, i);
    return v;
  }
  std::span<const T> result() const { return out; }
};

template <class T>
struct gatherv_case : case_base<T> {
  static constexpr const char* name = "gatherv";
  static constexpr bool rooted = true;
  static constexpr std::array forms{form::plain, form::in_place, form::packed};
  static constexpr std::size_t large = 12007;
  HPCOLL_ASYNC_ENTRIES(Gatherv, igatherv)

  // Rank q sends cnt(q) elements (some send none); at the root the blocks lie
  // in reverse rank order with a one-element gap after each (plain, in place)
  // or packed in rank order (packed form, counts as std::size_t).
  std::vector<int> counts, displs;
  std::vector<std::size_t> packed_counts;
  std::vector<T> in, out;
  std::size_t cnt(int q) const { return this->prm.n == 0 || q % 3 == 1 ? 0 : this->prm.n + static_cast<std::size_t>(q % 2); }
  explicit gatherv_case(params p) : case_base<T>(p) {
    counts.resize(this->P);
    displs.resize(this->P);
    packed_counts.resize(this->P);
    std::size_t at = 0, total = 0;
    for (int q = this->p - 1; q >= 0; --q) {
      const auto uq = static_cast<std::size_t>(q);
      counts[uq] = static_cast<int>(cnt(q));
      packed_counts[uq] = cnt(q);
      displs[uq] = static_cast<int>(at);
      at += cnt(q) + 1;
      total += cnt(q);
    }
    in.resize(cnt(this->me));
    if (this->is_root()) out.resize(p.f == form::packed ? total : at + 1);
  }
  std::size_t packed_displ(int q) const {
    std::size_t d = 0;
    for (int r = 0; r < q; ++r) d += cnt(r);
    return d;
  }
  std::size_t displ(int q) const {
    return this->prm.f == form::packed ? packed_displ(q) : static_cast<std::size_t>(displs[static_cast<std::size_t>(q)]);
  }
  void fill(int salt) {
    this->salt = salt;
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = this->input(this->me, i);
    this->paint(out);
    if (this->in_place_form() && this->is_root())
      std::copy(in.begin(), in.end(), out.begin() + static_cast<std::ptrdiff_t>(displ(this->me)));
  }
  template <class F>
  decltype(auto) apply(F&& f) {
    const int root = this->prm.root;
    if (this->prm.f == form::packed) return f(in, out, packed_counts, root);
    if (this->in_place_form()) {
      if (this->is_root()) return f(in_place, out, counts, displs, root);
      return f(in, out, std::span<const int>{}, std::span<const int>{}, root);  // ignored off the root
    }
    return f(in, out, counts, displs, root);
  }
  std::vector<T> expected() const {
    std::vector<T> v = this->painted(out.size());
    for (int q = 0; q < this->p && this->is_root(); ++q)
      for (std::size_t i = 0; i < cnt(q); ++i) v[displ(q) + i] = this->input(q, i);
    return v;
  }
  std::span<const T> result() const { return out; }
};

template <class T>
struct scatter_case : case_base<T> {
  static constexpr const char* name = "scatter";
  static constexpr bool rooted = true;
  static constexpr std::array forms{form::plain, form::in_place};
  static constexpr std::size_t large = 12007;
  HPCOLL_ASYNC_ENTRIES(Scatter, iscatter)

  std::vector<T> in, out;
  // In place, the root keeps its block in `in` and has no output.
  explicit scatter_case(params p)
      : case_base<T>(p),
        in(world_rank() == p.root ? p.n * world_size() : 0),
        out(p.f == form::in_place && world_rank() == p.root ? 0 : p.n) {}
  void fill(int salt) {
    this->salt = salt;
    for (std::size_t j = 0; j < in.size(); ++j) in[j] = this->input(this->me, j);
    this->paint(out);
  }
  template <class F>
  decltype(auto) apply(F&& f) {
    if (this->in_place_form() && this->is_root()) return f(in, in_place, this->prm.root);
    return f(in, out, this->prm.root);
  }
  std::vector<T> expected() const {
    std::vector<T> v(this->in_place_form() && this->is_root() ? in.size() : this->prm.n);
    const std::size_t first = this->in_place_form() && this->is_root() ? 0 : static_cast<std::size_t>(this->me) * this->prm.n;
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = this->input(this->prm.root, first + i);
    return v;
  }
  std::span<const T> result() const { return this->in_place_form() && this->is_root() ? std::span<const T>(in) : out; }
};

template <class T>
struct allgather_case : case_base<T> {
  static constexpr const char* name = "allgather";
  static constexpr bool rooted = false;
  static constexpr std::array forms{form::plain, form::in_place};
  static constexpr std::size_t large = 12007;
  HPCOLL_ASYNC_ENTRIES(Allgather, iallgather)

  std::vector<T> in, out;
  explicit allgather_case(params p) : case_base<T>(p), in(p.n), out(p.n * world_size()) {}
  void fill(int salt) {
    this->salt = salt;
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = this->input(this->me, i);
    this->paint(out);
    if (this->in_place_form())
      std::copy(in.begin(), in.end(), out.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(this->me) * in.size()));
  }
  template <class F>
  decltype(auto) apply(F&& f) {
    if (this->in_place_form()) return f(in_place, out);
    return f(in, out);
  }
  std::vector<T> expected() const {
    std::vector<T> v(out.size());
    for (int q = 0; q < this->p; ++q)
      for (std::size_t i = 0; i < this->prm.n; ++i) v[static_cast<std::size_t>(q) * this->prm.n + i] = this->input(q, i);
    return v;
  }
  std::span<const T> result() const { return out; }
};

template <class T>
struct allgatherv_case : case_base<T> {
  static constexpr const char* name = "allgatherv";
  static constexpr bool rooted = false;
  static constexpr std::array forms{form::plain, form::in_place, form::packed};
  static constexpr std::size_t large = 12007;
  HPCOLL_ASYNC_ENTRIES(Allgatherv, iallgatherv)

  // Rank q contributes cnt(q) elements (some none). Plain and in place, each
  // rank lays the blocks out its own way: in reverse rank order with a
  // one-element gap after each on even ranks, in rank order with a gap before
  // each on odd ranks (counts as int, displacements as std::size_t). Packed:
  // rank order, no gaps (counts as std::size_t).
  std::vector<int> counts;
  std::vector<std::size_t> displs, packed_counts;
  std::vector<T> in, out;
  std::size_t cnt(int q) const { return this->prm.n == 0 || q % 3 == 2 ? 0 : this->prm.n + static_cast<std::size_t>(q % 2); }
  explicit allgatherv_case(params p) : case_base<T>(p), counts(this->P), displs(this->P), packed_counts(this->P) {
    const bool packed = p.f == form::packed, reversed = !packed && this->me % 2 == 0;
    const std::size_t gap = packed ? 0 : 1;
    std::size_t at = 0;
    for (int k = 0; k < this->p; ++k) {
      const int q = reversed ? this->p - 1 - k : k;
      const auto uq = static_cast<std::size_t>(q);
      counts[uq] = static_cast<int>(cnt(q));
      packed_counts[uq] = cnt(q);
      if (!reversed) at += gap;
      displs[uq] = at;
      at += cnt(q) + (reversed ? gap : 0);
    }
    in.resize(cnt(this->me));
    out.resize(at);
  }
  void fill(int salt) {
    this->salt = salt;
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = this->input(this->me, i);
    this->paint(out);
    if (this->in_place_form())
      std::copy(in.begin(), in.end(), out.begin() + static_cast<std::ptrdiff_t>(displs[static_cast<std::size_t>(this->me)]));
  }
  template <class F>
  decltype(auto) apply(F&& f) {
    if (this->prm.f == form::packed) return f(in, out, packed_counts);
    if (this->in_place_form()) return f(in_place, out, counts, displs);
    return f(in, out, counts, displs);
  }
  std::vector<T> expected() const {
    std::vector<T> v = this->painted(out.size());
    for (int q = 0; q < this->p; ++q)
      for (std::size_t i = 0; i < cnt(q); ++i) v[displs[static_cast<std::size_t>(q)] + i] = this->input(q, i);
    return v;
  }
  std::span<const T> result() const { return out; }
};

template <class T, class Op = hpcoll::op::sum>
struct reduce_scatter_block_case : case_base<T> {
  static constexpr const char* name = "reduce_scatter_block";
  static constexpr bool rooted = false;
  static constexpr std::array forms{form::plain, form::in_place};
  static constexpr std::size_t large = 12007;
  HPCOLL_ASYNC_ENTRIES(ReduceScatterBlock, ireduce_scatter_block)

  Op op{};
  std::vector<T> in, out;  // in place: `in` is the buffer, its first n elements the result
  explicit reduce_scatter_block_case(params p) : case_base<T>(p), in(p.n * world_size()), out(p.n) {}
  void fill(int salt) {
    this->salt = salt;
    for (std::size_t j = 0; j < in.size(); ++j) in[j] = this->input(this->me, j);
    this->paint(out);
  }
  template <class F>
  decltype(auto) apply(F&& f) {
    if (this->in_place_form()) return f(in_place, in, op);
    return f(in, out, op);
  }
  std::vector<T> expected() const {
    std::vector<T> v(this->prm.n);
    const std::size_t first = static_cast<std::size_t>(this->me) * this->prm.n;
    for (std::size_t i = 0; i < v.size(); ++i)
      v[i] = fold<T>(op, this->p, [&](int q) { return this->input(q, first + i); });
    return v;
  }
  std::span<const T> result() const {
    return this->in_place_form() ? std::span<const T>(in).first(this->prm.n) : std::span<const T>(out);
  }
};

template <class T>
struct alltoall_case : case_base<T> {
  static constexpr const char* name = "alltoall";
  static constexpr bool rooted = false;
  static constexpr std::array forms{form::plain, form::in_place};
  static constexpr std::size_t large = 12007;
  HPCOLL_ASYNC_ENTRIES(Alltoall, ialltoall)

  std::vector<T> in, out;  // in place: `out` is the buffer
  explicit alltoall_case(params p) : case_base<T>(p), in(p.n * world_size()), out(p.n * world_size()) {}
  void fill(int salt) {
    this->salt = salt;
    for (std::size_t j = 0; j < in.size(); ++j) in[j] = this->input(this->me, j);
    if (this->in_place_form())
      std::copy(in.begin(), in.end(), out.begin());
    else
      this->paint(out);
  }
  template <class F>
  decltype(auto) apply(F&& f) {
    if (this->in_place_form()) return f(in_place, out);
    return f(in, out);
  }
  std::vector<T> expected() const {
    std::vector<T> v(out.size());
    const std::size_t n = this->prm.n, mine = static_cast<std::size_t>(this->me) * n;
    for (int q = 0; q < this->p; ++q)
      for (std::size_t i = 0; i < n; ++i) v[static_cast<std::size_t>(q) * n + i] = this->input(q, mine + i);
    return v;
  }
  std::span<const T> result() const { return out; }
};

template <class T>
struct alltoallv_case : case_base<T> {
  static constexpr const char* name = "alltoallv";
  static constexpr bool rooted = false;
  static constexpr std::array forms{form::plain, form::in_place};
  static constexpr std::size_t large = 12007;
  HPCOLL_ASYNC_ENTRIES(Alltoallv, ialltoallv)

  // Rank a sends cnt(a, b) elements to rank b: element i of that block is
  // input(a, b·M + i). Send blocks are packed; receive blocks lie in reverse
  // rank order with one-element gaps. In place the counts must be symmetric.
  static constexpr std::uint64_t M = std::uint64_t{1} << 24;
  std::vector<std::size_t> sc, rc;
  std::vector<int> sd;
  std::vector<std::size_t> rd;
  std::vector<T> in, out;
  std::size_t cnt(int a, int b) const {
    if (this->prm.n == 0) return 0;
    const int k = this->in_place_form() ? a + b : 2 * a + b;
    return static_cast<std::size_t>(k % 3) + this->prm.n - 1;
  }
  explicit alltoallv_case(params p) : case_base<T>(p), sc(this->P), rc(this->P), sd(this->P), rd(this->P) {
    std::size_t s = 0, r = 0;
    for (int q = 0; q < this->p; ++q) {
      const auto uq = static_cast<std::size_t>(q);
      sc[uq] = cnt(this->me, q);
      sd[uq] = static_cast<int>(s);
      s += sc[uq];
    }
    for (int q = this->p - 1; q >= 0; --q) {
      const auto uq = static_cast<std::size_t>(q);
      rc[uq] = cnt(q, this->me);
      rd[uq] = r;
      r += rc[uq] + 1;
    }
    in.resize(s);
    out.resize(r + 1);
  }
  void fill(int salt) {
    this->salt = salt;
    this->paint(out);
    for (int q = 0; q < this->p; ++q) {
      const auto uq = static_cast<std::size_t>(q);
      for (std::size_t i = 0; i < sc[uq]; ++i) {
        const T x = this->input(this->me, static_cast<std::uint64_t>(q) * M + i);
        in[static_cast<std::size_t>(sd[uq]) + i] = x;
        if (this->in_place_form()) out[rd[uq] + i] = x;  // symmetric: sc == rc
      }
    }
  }
  template <class F>
  decltype(auto) apply(F&& f) {
    if (this->in_place_form()) return f(in_place, out, rc, rd);
    return f(in, sc, sd, out, rc, rd);
  }
  std::vector<T> expected() const {
    std::vector<T> v = this->painted(out.size());
    for (int q = 0; q < this->p; ++q) {
      const auto uq = static_cast<std::size_t>(q);
      for (std::size_t i = 0; i < rc[uq]; ++i)
        v[rd[uq] + i] = this->input(q, static_cast<std::uint64_t>(this->me) * M + i);
    }
    return v;
  }
  std::span<const T> result() const { return out; }
};

// ---- Issuing and completing ---------------------------------------------------------------

/// How a request is made.
enum class entry { free_template, free_argument, object_template, object_argument };
/// How it is completed.
enum class completion { wait, test_loop, wait_all, wait_any };

const char* entry_name(entry e) {
  switch (e) {
    case entry::free_template: return "i<coll><P>(c, ...)";
    case entry::free_argument: return "i<coll>(P{}, c, ...)";
    case entry::object_template: return "Coll<S, Check, P>{}.start(c, ...)";
    case entry::object_argument: return "Coll<S>{}.start(P{}, c, ...)";
  }
  return "?";
}
const char* completion_name(completion k) {
  switch (k) {
    case completion::wait: return "wait";
    case completion::test_loop: return "test loop";
    case completion::wait_all: return "wait_all";
    case completion::wait_any: return "wait_any";
  }
  return "?";
}
template <class P>
const char* policy_name() {
  if constexpr (std::is_same_v<P, progress::manual>) return "manual";
  else if constexpr (std::is_same_v<P, progress::thread>) return "thread";
  else return "offload";
}

/// Calls f.template operator()<P>() for each progress policy.
template <class F>
void for_each_policy(F&& f) {
  f.template operator()<progress::manual>();
  f.template operator()<progress::thread>();
  f.template operator()<progress::offload>();
}

template <class Case, class Sch, class P>
hpcoll::request issue(Case& x, const hpcoll::communicator& c, entry e) {
  if constexpr (std::is_same_v<Sch, S::automatic>) {
    if (e == entry::free_template)
      return x.apply([&](auto&&... a) { return Case::template ifn<P>(c, FWD(a)...); });
    if (e == entry::free_argument)
      return x.apply([&](auto&&... a) { return Case::template ifn_arg<P>(c, FWD(a)...); });
  }
  if (e == entry::object_argument) {
    using C = typename Case::template coll<Sch>;
    return x.apply([&](auto&&... a) { return C{}.start(P{}, c, FWD(a)...); });
  }
  using C = typename Case::template coll<Sch, P>;
  return x.apply([&](auto&&... a) { return C{}.start(c, FWD(a)...); });
}

template <class Case, class Sch>
void run_blocking(Case& x, const hpcoll::communicator& c) {
  using C = typename Case::template coll<Sch>;
  x.apply([&](auto&&... a) { C{}(c, FWD(a)...); });
}

/// Completes r in the way k says, checking the request's states on the way.
template <class Request>
void complete(Request& r, completion k) {
  switch (k) {
    case completion::wait:
      r.wait();
      break;
    case completion::test_loop:
      while (!r.test()) std::this_thread::yield();
      CHECK(r.test());  // complete: test() stays true
      break;
    case completion::wait_all:
      hpcoll::wait_all(std::span<Request>(&r, 1));
      break;
    case completion::wait_any: {
      const auto first = hpcoll::wait_any(std::span<Request>(&r, 1));
      CHECK((first.has_value() && *first == 0));
      CHECK(!hpcoll::wait_any(std::span<Request>(&r, 1)).has_value());
      break;
    }
  }
  CHECK(!r.active());
  CHECK(r.ready());
}

std::string describe(const char* collective, const std::string& schedule, const params& prm, bool rooted) {
  std::ostringstream o;
  o << collective << '<' << schedule << "> " << form_name(prm.f) << ", count " << prm.n;
  if (rooted) o << ", root " << prm.root;
  o << ", np " << world_size() << ", rank " << world_rank();
  return o.str();
}

/// CHECKs x.result() against the oracle; `what` says which call it was.
template <class Case>
bool check_result(const Case& x, const std::string& what) {
  const auto want = x.expected();
  const auto got = x.result();
  std::size_t at = 0;
  while (at < got.size() && at < want.size() && got[at] == want[at]) ++at;
  const bool ok = got.size() == want.size() && at == got.size();
  CHECK_MESSAGE(ok, what << ": " << got.size() << " elements (expected " << want.size()
                         << "), first difference at index " << at);
  return ok;
}

/// Counts 0, 1, p−1, p+1 and, where `with_large`, Case::large.
template <class Case>
std::vector<std::size_t> counts_for(bool with_large) {
  const auto p = static_cast<std::size_t>(world_size());
  std::vector<std::size_t> n = {0, 1, p > 1 ? p - 1 : 2, p + 1};
  if (with_large) n.push_back(Case::large);
  return n;
}

/// Roots to try at count n: every root, only the first and last with a large count.
template <class Case>
std::vector<int> roots_for(std::size_t n) {
  if (!Case::rooted) return {0};
  const int p = world_size();
  if (n >= 1000) return p > 1 ? std::vector<int>{0, p - 1} : std::vector<int>{0};
  std::vector<int> r(static_cast<std::size_t>(p));
  std::iota(r.begin(), r.end(), 0);
  return r;
}

/// What check_against_blocking says of a nonblocking call.
[[gnu::noinline]] std::string describe_nonblocking(const std::string& call, const char* policy, entry e,
                                                   completion k) {
  return call + ", policy " + policy + ", " + entry_name(e) + ", " + completion_name(k);
}

/// Completes the nonblocking call `r` on x in the way k says and checks its
/// result against the oracle and, bit for bit, against the blocking call's on
/// `ref`. Out of line: one copy per Case, not one per schedule and policy.
template <class Case>
[[gnu::noinline]] void check_nonblocking(hpcoll::request& r, completion k, const Case& x, const Case& ref,
                                         const std::string& what) {
  CHECK_MESSAGE(r.active(), what);
  complete(r, k);
  if (check_result(x, what))
    CHECK_MESSAGE(std::ranges::equal(x.result(), ref.result()), what << ": differs from the blocking result");
}

/// Every form, count and root of Case with schedule Sch: the blocking call
/// against the oracle, then each policy's nonblocking call (the entry point
/// and completion rotating) against the oracle and, bit for bit, the blocking
/// result.
template <class Case, class Sch = S::automatic>
void check_against_blocking(const hpcoll::communicator& c, std::vector<std::size_t> counts) {
  constexpr bool dispatched = std::is_same_v<Sch, S::automatic>;
  int turn = 0;
  for (const form f : Case::forms) {
    for (const std::size_t n : counts) {
      for (const int root : roots_for<Case>(n)) {
        const params prm{n, root, f};
        const int salt = next_salt();
        const std::string call = describe(Case::name, hpcoll::schedule_name<Sch>(), prm, Case::rooted);
        Case ref(prm);
        ref.fill(salt);
        run_blocking<Case, Sch>(ref, c);
        check_result(ref, "blocking " + call);
        for_each_policy([&]<class P>() {
          ++turn;
          const entry e = dispatched ? static_cast<entry>(turn % 4) : static_cast<entry>(2 + turn % 2);
          const auto k = static_cast<completion>((turn / 4 + turn) % 4);
          const std::string what = describe_nonblocking(call, policy_name<P>(), e, k);
          Case x(prm);
          x.fill(salt);
          hpcoll::request r = issue<Case, Sch, P>(x, c, e);
          check_nonblocking(r, k, x, ref, what);
        });
      }
    }
  }
}

template <class Case, class... Sch>
void check_schedules(const hpcoll::communicator& c, std::vector<std::size_t> counts) {
  (check_against_blocking<Case, Sch>(c, counts), ...);
}

using I64 = std::int64_t;
using matrix_op = decltype(hpcoll_test::matrix_product());

/// After errors, blocking and nonblocking calls still work on c: no message
/// was sent, every rank's tag sequence is still aligned.
void still_works(const hpcoll::communicator& c) {
  std::vector<long> in(5, c.rank() + 1), out(5, 0), out2(5, 0);
  hpcoll::Allreduce<S::ring>{}(c, in, out, hpcoll::op::sum{});
  hpcoll::request r = hpcoll::iallreduce(c, in, out2, hpcoll::op::sum{});
  r.wait();
  const long expected = static_cast<long>(c.size()) * (c.size() + 1) / 2;
  CHECK(out == std::vector<long>(5, expected));
  CHECK(out2 == std::vector<long>(5, expected));
}

}  // namespace

// ---- 1. Every nonblocking form against the blocking form ---------------------------------------

TEST_CASE("async.bcast") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  check_against_blocking<bcast_case<I64>>(c, counts_for<bcast_case<I64>>(true));
}

TEST_CASE("async.reduce") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  check_against_blocking<reduce_case<I64>>(c, counts_for<reduce_case<I64>>(true));
}

TEST_CASE("async.allreduce") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  check_against_blocking<allreduce_case<I64>>(c, counts_for<allreduce_case<I64>>(true));
  check_against_blocking<allreduce_case<double>>(c, counts_for<allreduce_case<double>>(true));
}

TEST_CASE("async.gather") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  check_against_blocking<gather_case<I64>>(c, counts_for<gather_case<I64>>(true));
}

TEST_CASE("async.gatherv") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  check_against_blocking<gatherv_case<I64>>(c, counts_for<gatherv_case<I64>>(true));
}

TEST_CASE("async.scatter") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  check_against_blocking<scatter_case<I64>>(c, counts_for<scatter_case<I64>>(true));
}

TEST_CASE("async.allgather") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  check_against_blocking<allgather_case<I64>>(c, counts_for<allgather_case<I64>>(true));
}

TEST_CASE("async.allgatherv") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  check_against_blocking<allgatherv_case<I64>>(c, counts_for<allgatherv_case<I64>>(true));
}

TEST_CASE("async.reduce_scatter_block") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  check_against_blocking<reduce_scatter_block_case<I64>>(c, counts_for<reduce_scatter_block_case<I64>>(true));
}

TEST_CASE("async.alltoall") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  check_against_blocking<alltoall_case<I64>>(c, counts_for<alltoall_case<I64>>(true));
  check_against_blocking<alltoall_case<double>>(c, counts_for<alltoall_case<double>>(false));
}

TEST_CASE("async.alltoallv") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  check_against_blocking<alltoallv_case<I64>>(c, counts_for<alltoallv_case<I64>>(true));
}

TEST_CASE("async.explicit_schedules") {
  // Named schedules never reach the dispatcher; Coll<S, Check, P>{}.start and
  // Coll<S>{}.start(P{}, ...) against Coll<S>{}(...).
  const hpcoll::communicator c(MPI_COMM_WORLD);
  const auto p = static_cast<std::size_t>(c.size());
  const std::vector<std::size_t> counts = {1, p + 1, 3001};
  check_schedules<bcast_case<I64>, S::linear, S::binomial, S::scatter_ring_allgather>(c, counts);
  check_schedules<reduce_case<I64>, S::linear, S::binomial>(c, counts);
  check_schedules<allreduce_case<I64>, S::ring, S::segmented_ring<4096>, S::recursive_doubling, S::rabenseifner,
                  S::reduce_bcast<S::binomial, S::binomial>>(c, counts);
  check_schedules<gather_case<I64>, S::linear_sync<2>, S::binomial>(c, counts);
  check_schedules<gatherv_case<I64>, S::linear, S::linear_sync<2>>(c, counts);
  check_schedules<scatter_case<I64>, S::linear_sync<3>, S::binomial>(c, counts);
  check_schedules<allgather_case<I64>, S::ring, S::recursive_doubling, S::bruck>(c, counts);
  check_schedules<allgatherv_case<I64>, S::linear, S::ring, S::recursive_doubling, S::bruck>(c, counts);
  check_schedules<reduce_scatter_block_case<I64>, S::ring, S::recursive_halving>(c, counts);
  check_schedules<alltoall_case<I64>, S::linear_sync<2>, S::bruck, S::pairwise>(c, counts);
  check_schedules<alltoallv_case<I64>, S::linear, S::pairwise>(c, counts);
}

TEST_CASE("async.noncommutative") {
  // The 2×2 matrix product mod a prime: the oracle folds in rank order, so a
  // schedule that reorders operands, or rounds completed out of order, shows.
  const hpcoll::communicator c(MPI_COMM_WORLD);
  const auto p = static_cast<std::size_t>(c.size());
  const std::vector<std::size_t> counts = {1, p + 1, 1000};
  check_schedules<allreduce_case<matrix2, matrix_op>, S::automatic, S::recursive_doubling, S::linear,
                  S::reduce_bcast<S::binomial, S::binomial>, S::reduce_scatter_allgather<S::linear, S::recursive_doubling>>(
      c, counts);
  check_schedules<reduce_case<matrix2, matrix_op>, S::automatic, S::binomial, S::linear>(c, counts);
  check_schedules<reduce_scatter_block_case<matrix2, matrix_op>, S::automatic, S::linear>(c, counts);
}

// ---- 2. Many requests in flight at once -------------------------------------------------

namespace {

/// One request of the mixed test with the buffers it uses.
struct job {
  virtual ~job() = default;
  virtual hpcoll::request issue(const hpcoll::communicator& c) = 0;
  virtual bool check() const = 0;
  std::string what;
};

template <class Case, class P>
struct job_of final : job {
  Case x;
  job_of(params prm, int salt, int index) : x(prm) {
    x.fill(salt);
    what = "request " + std::to_string(index) + ": " +
           describe(Case::name, "automatic", prm, Case::rooted) + ", policy " + policy_name<P>();
  }
  hpcoll::request issue(const hpcoll::communicator& c) override {
    return ::issue<Case, S::automatic, P>(x, c, static_cast<entry>(x.salt % 4));
  }
  bool check() const override { return check_result(x, what); }
};

template <class Case>
std::unique_ptr<job> make_job_with(int policy, params prm, int salt, int index) {
  if (policy == 0) return std::make_unique<job_of<Case, progress::manual>>(prm, salt, index);
  if (policy == 1) return std::make_unique<job_of<Case, progress::thread>>(prm, salt, index);
  return std::make_unique<job_of<Case, progress::offload>>(prm, salt, index);
}

/// Job i: collective i mod 10 (allgather or allgatherv for 6), a policy, count
/// and root that vary with i; the same on every rank.
std::unique_ptr<job> make_job(int i, int salt) {
  const int p = world_size();
  const auto up = static_cast<std::size_t>(p);
  const std::array<std::size_t, 6> counts = {0, 1, up + 1, 7, up > 1 ? up - 1 : 2, 2000};
  const int policy = (i + i / 10) % 3;
  params prm{counts[static_cast<std::size_t>(i * 7 + i / 10) % counts.size()], (i * 5 + 1) % p,
             (i / 10) % 2 == 1 ? form::in_place : form::plain};
  switch (i % 10) {
    case 0: return make_job_with<bcast_case<I64>>(policy, prm, salt, i);
    case 1: return make_job_with<reduce_case<I64>>(policy, prm, salt, i);
    case 2: return make_job_with<allreduce_case<double>>(policy, prm, salt, i);
    case 3: return make_job_with<gather_case<I64>>(policy, prm, salt, i);
    case 4:
      if (i % 3 == 2) prm.f = form::packed;
      return make_job_with<gatherv_case<I64>>(policy, prm, salt, i);
    case 5: return make_job_with<scatter_case<I64>>(policy, prm, salt, i);
    case 6:
      if (i % 20 == 6) return make_job_with<allgather_case<I64>>(policy, prm, salt, i);
      if (i % 40 == 36) prm.f = form::packed;
      return make_job_with<allgatherv_case<I64>>(policy, prm, salt, i);
    case 7: return make_job_with<reduce_scatter_block_case<I64>>(policy, prm, salt, i);
    case 8: return make_job_with<alltoall_case<I64>>(policy, prm, salt, i);
    default: return make_job_with<alltoallv_case<I64>>(policy, prm, salt, i);
  }
}

/// A blocking hpcoll collective and a native one in the middle of the traffic.
void interleaved_blocking(const hpcoll::communicator& c, int salt) {
  allreduce_case<I64> x({257, 0, form::plain});
  x.fill(salt);
  run_blocking<allreduce_case<I64>, S::automatic>(x, c);
  check_result(x, "interleaved blocking allreduce");
  int mine = c.rank() + salt, sum = 0;
  MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(sum == c.size() * (c.size() - 1) / 2 + c.size() * salt);
}

/// This rank's completion order: forwards, backwards on odd ranks, shuffled on others.
std::vector<std::size_t> completion_order(std::size_t n, int round) {
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  const int r = world_rank();
  if (r % 2 == 1) {
    std::reverse(order.begin(), order.end());
  } else if (r % 4 == 2 || round % 2 == 1) {
    std::mt19937 gen(static_cast<unsigned>(r * 131 + round));
    std::shuffle(order.begin(), order.end(), gen);
  }
  return order;
}

}  // namespace

TEST_CASE("async.concurrent_mixed") {
  // 40 requests of all eleven collectives, three policies, several counts, forms
  // and roots in flight together on one communicator, with blocking calls
  // between the starts; completed by wait in a different order on every rank,
  // by wait_any, by polling test() and by wait_all.
  const hpcoll::communicator c(MPI_COMM_WORLD);
  constexpr int n_requests = 40;
  for (int round = 0; round < 8; ++round) {
    CAPTURE(round);
    std::vector<std::unique_ptr<job>> jobs;
    std::vector<hpcoll::request> requests;
    // Rounds 4 to 7 take the collectives in another order.
    for (int i = 0; i < n_requests; ++i) jobs.push_back(make_job(round < 4 ? i : (i * 13 + round) % n_requests, next_salt()));
    for (int i = 0; i < n_requests; ++i) {
      requests.push_back(jobs[static_cast<std::size_t>(i)]->issue(c));
      if (i == 13 || i == 27) interleaved_blocking(c, next_salt());
    }
    std::size_t completed = 0;
    switch (round % 4) {
      case 0:
      case 1:  // wait(), in this rank's order
        for (const std::size_t i : completion_order(requests.size(), round)) {
          requests[i].wait();
          CHECK(!requests[i].active());
          jobs[i]->check();
          ++completed;
        }
        break;
      case 2: {  // wait_any until nothing is active
        std::set<std::size_t> seen;
        while (const auto i = hpcoll::wait_any(requests)) {
          CHECK(*i < requests.size());
          CHECK(seen.insert(*i).second);
          CHECK(!requests[*i].active());
          jobs[*i]->check();
          ++completed;
        }
        CHECK(seen.size() == requests.size());
        break;
      }
      default: {  // test() on every request in this rank's order until all have completed
        std::vector<bool> done(requests.size(), false);
        const auto order = completion_order(requests.size(), round);
        while (completed < requests.size()) {
          for (const std::size_t i : order) {
            if (done[i] || !requests[i].test()) continue;
            done[i] = true;
            jobs[i]->check();
            ++completed;
          }
          std::this_thread::yield();
        }
        // and wait_all on requests already complete is a no-op
        hpcoll::wait_all(requests);
        break;
      }
    }
    CHECK(completed == requests.size());
    for (const auto& r : requests) CHECK(!r.active());
  }
  // wait_all on a fresh batch.
  std::vector<std::unique_ptr<job>> jobs;
  std::vector<hpcoll::request> requests;
  for (int i = 0; i < n_requests; ++i) jobs.push_back(make_job(n_requests - 1 - i, next_salt()));
  for (auto& j : jobs) requests.push_back(j->issue(c));
  hpcoll::wait_all(requests);
  for (std::size_t i = 0; i < requests.size(); ++i) {
    CHECK(!requests[i].active());
    jobs[i]->check();
  }
}

TEST_CASE("async.two_communicators") {
  // Requests on two communicators interleaved; progress::poll(c) advances c's
  // manual requests (ready() itself makes no progress, so the loops end only
  // through poll); then wait completes them in a different order on even and
  // odd ranks (wait advances every manual request of the process).
  const hpcoll::communicator a(MPI_COMM_WORLD), b(MPI_COMM_WORLD);
  const int salt = next_salt();
  std::vector<allreduce_case<I64>> xa, xb;
  for (int i = 0; i < 6; ++i) {
    xa.emplace_back(params{static_cast<std::size_t>(100 + i), 0, form::plain});
    xb.emplace_back(params{static_cast<std::size_t>(200 + i), 0, form::in_place});
    xa.back().fill(salt + i);
    xb.back().fill(salt - i);
  }
  auto issue_all = [&] {
    std::vector<hpcoll::request> ra, rb;
    for (std::size_t i = 0; i < 6; ++i) {
      ra.push_back(issue<allreduce_case<I64>, S::automatic, progress::manual>(xa[i], a, entry::free_template));
      rb.push_back(issue<allreduce_case<I64>, S::recursive_doubling, progress::manual>(xb[i], b, entry::object_template));
    }
    return std::pair{std::move(ra), std::move(rb)};
  };
  auto check_all = [&](const char* how) {
    for (std::size_t i = 0; i < 6; ++i) {
      check_result(xa[i], std::string(how) + ", communicator a, request " + std::to_string(i));
      check_result(xb[i], std::string(how) + ", communicator b, request " + std::to_string(i));
    }
  };

  {  // poll(c), then poll()
    auto [ra, rb] = issue_all();
    for (auto& r : ra)
      while (!r.ready()) {
        hpcoll::progress::poll(a);
        std::this_thread::yield();
      }
    for (auto& r : rb)
      while (!r.ready()) {
        hpcoll::progress::poll();
        std::this_thread::yield();
      }
    for (auto& r : ra) CHECK(r.active());  // ended, but complete only once test or wait saw it
    hpcoll::wait_all(ra);
    hpcoll::wait_all(rb);
    check_all("poll");
  }
  for (std::size_t i = 0; i < 6; ++i) {
    xa[i].fill(salt + 10 + static_cast<int>(i));
    xb[i].fill(salt + 20 + static_cast<int>(i));
  }
  {  // wait in a different order on even and odd ranks
    auto [ra, rb] = issue_all();
    if (world_rank() % 2 == 0) {
      hpcoll::wait_all(ra);
      hpcoll::wait_all(rb);
    } else {
      for (std::size_t i = 6; i-- > 0;) rb[i].wait();
      for (std::size_t i = 6; i-- > 0;) ra[i].wait();
    }
    check_all("wait");
  }
}

// ---- 3. wait_any and wait_all --------------------------------------------------------------

TEST_CASE("async.wait_any_wait_all") {
  const hpcoll::communicator c(MPI_COMM_WORLD);

  // Nothing to wait for: an empty range, and default-constructed (inactive) requests.
  std::vector<hpcoll::request> none;
  CHECK(!hpcoll::wait_any(none).has_value());
  hpcoll::wait_all(none);
  std::vector<hpcoll::request> inactive(3);
  CHECK(!hpcoll::wait_any(inactive).has_value());
  hpcoll::wait_all(inactive);
  for (auto& r : inactive) {
    CHECK(!r.active());
    CHECK(r.ready());
    CHECK(r.test());
  }

  // Eight slots, two of them empty: wait_any returns each active index once,
  // completed, then nullopt.
  const std::set<std::size_t> active_slots = {0, 2, 3, 4, 6, 7};
  for (int round = 0; round < 3; ++round) {
    CAPTURE(round);
    std::vector<std::unique_ptr<job>> jobs(8);
    std::vector<hpcoll::request> requests(8);
    for (const std::size_t i : active_slots) {
      jobs[i] = make_job(static_cast<int>(i) + 8 * round, next_salt());
      requests[i] = jobs[i]->issue(c);
    }
    for (const std::size_t i : active_slots) CHECK(requests[i].active());
    if (round < 2) {
      std::set<std::size_t> seen;
      while (const auto i = hpcoll::wait_any(requests)) {
        CHECK(active_slots.count(*i) == 1);
        CHECK(seen.insert(*i).second);
        CHECK(!requests[*i].active());
        CHECK(requests[*i].ready());
        jobs[*i]->check();
      }
      CHECK(seen == active_slots);
      CHECK(!hpcoll::wait_any(requests).has_value());
    } else {
      // One by wait_any, the rest by wait_all.
      const auto first = hpcoll::wait_any(requests);
      CHECK((first.has_value() && active_slots.count(*first) == 1));
      hpcoll::wait_all(requests);
      for (const std::size_t i : active_slots) {
        CHECK(!requests[i].active());
        jobs[i]->check();
      }
      CHECK(!hpcoll::wait_any(requests).has_value());
    }
  }

  // Persistent requests in a range, started twice.
  std::vector<allgather_case<I64>> xs;
  for (int i = 0; i < 4; ++i) xs.emplace_back(params{static_cast<std::size_t>(3 + i), 0, form::plain});
  std::vector<hpcoll::persistent_request> prs;
  for (auto& x : xs) {
    x.fill(next_salt());
    prs.push_back(x.apply([&](auto&&... a) { return hpcoll::Allgather<>::persistent(c, FWD(a)...); }));
  }
  CHECK(!hpcoll::wait_any(prs).has_value());  // built, not started
  for (int run = 0; run < 2; ++run) {
    for (std::size_t i = 0; i < xs.size(); ++i) {
      xs[i].fill(next_salt());
      prs[i].start();
    }
    if (run == 0) {
      std::set<std::size_t> seen;
      while (const auto i = hpcoll::wait_any(prs)) CHECK(seen.insert(*i).second);
      CHECK(seen.size() == prs.size());
    } else {
      hpcoll::wait_all(prs);
    }
    for (std::size_t i = 0; i < xs.size(); ++i) {
      CHECK(!prs[i].active());
      check_result(xs[i], "persistent allgather " + std::to_string(i) + ", run " + std::to_string(run));
    }
  }
}

TEST_CASE("async.background_progress") {
  // Thread and offload requests end with no help from the caller: ready()
  // makes no progress, so these loops end only through the progress thread
  // or the offload worker.
  const hpcoll::communicator c(MPI_COMM_WORLD);
  auto run = [&]<class P>() {
    allreduce_case<I64> x({50001, 0, form::plain});
    alltoall_case<I64> y({3001, 0, form::in_place});
    bcast_case<I64> z({20001, c.size() - 1, form::plain});
    x.fill(next_salt());
    y.fill(next_salt());
    z.fill(next_salt());
    std::vector<hpcoll::request> rs;
    rs.push_back(issue<allreduce_case<I64>, S::automatic, P>(x, c, entry::free_template));
    rs.push_back(issue<alltoall_case<I64>, S::bruck, P>(y, c, entry::object_argument));
    rs.push_back(issue<bcast_case<I64>, S::binomial, P>(z, c, entry::object_template));
    for (auto& r : rs)
      while (!r.ready()) std::this_thread::yield();
    for (auto& r : rs) CHECK(r.active());  // ended; complete once test or wait sees it
    for (auto& r : rs) CHECK(r.test());
    for (auto& r : rs) CHECK(!r.active());
    const std::string what = std::string("policy ") + policy_name<P>();
    check_result(x, what + ", allreduce");
    check_result(y, what + ", alltoall in place");
    check_result(z, what + ", bcast");
  };
  run.operator()<progress::thread>();
  run.operator()<progress::offload>();
}

// ---- 4. Persistent requests ----------------------------------------------------------------

namespace {

/// What check_persistent checks of the persistent request pr on x, built and
/// not started, over `runs` runs. Out of line: one copy per Case, not one per
/// schedule and policy.
template <class Case>
[[gnu::noinline]] void run_persistent(hpcoll::persistent_request& pr, Case& x, int runs, const std::string& what) {
  // Built, not started: inactive; test and wait return at once.
  CHECK_MESSAGE(!pr.active(), what);
  CHECK(pr.ready());
  CHECK(pr.test());
  pr.wait();
  for (int run = 0; run < runs; ++run) {
    x.fill(next_salt());
    pr.start();
    CHECK_MESSAGE(pr.active(), what);
    if (run == 1) {
      // Refused before anything is sent: the tag sequence stays aligned.
      CHECK_MESSAGE(contains(error_of([&] { pr.start(); }), "the previous run is still active"), what);
      CHECK(pr.active());
    }
    complete(pr, static_cast<completion>(run % 4));
    check_result(x, what + ", run " + std::to_string(run));
  }
}

/// Builds Case's persistent request once (policy P as template argument or as
/// argument), then starts it `runs` times with new data in the same buffers,
/// completing it each time another way; start on an active request must fail.
template <class Case, class Sch, class P>
void check_persistent(const hpcoll::communicator& c, params prm, int runs, bool policy_as_argument) {
  const std::string what = "persistent " + describe(Case::name, hpcoll::schedule_name<Sch>(), prm, Case::rooted) +
                           ", policy " + policy_name<P>();
  Case x(prm);
  x.fill(next_salt());
  hpcoll::persistent_request pr;
  CHECK(!pr.active());
  if (policy_as_argument) {
    using C = typename Case::template coll<Sch>;
    pr = x.apply([&](auto&&... a) { return C::persistent(P{}, c, FWD(a)...); });
  } else {
    using C = typename Case::template coll<Sch, P>;
    pr = x.apply([&](auto&&... a) { return C::persistent(c, FWD(a)...); });
  }
  run_persistent(pr, x, runs, what);
}

template <class Case, class Sch = S::automatic>
void check_persistent_all(const hpcoll::communicator& c, std::size_t n, int runs) {
  int turn = 0;
  for (const form f : Case::forms) {
    const params prm{n, (c.size() - 1 + turn) % c.size(), f};
    for_each_policy([&]<class P>() { check_persistent<Case, Sch, P>(c, prm, runs, ++turn % 2 == 0); });
  }
}

}  // namespace

TEST_CASE("async.persistent") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  const std::size_t n = static_cast<std::size_t>(c.size()) + 1;
  constexpr int runs = 10;
  check_persistent_all<bcast_case<I64>>(c, n, runs);
  check_persistent_all<reduce_case<I64>>(c, n, runs);
  check_persistent_all<allreduce_case<double>>(c, n, runs);
  check_persistent_all<gather_case<I64>>(c, n, runs);
  check_persistent_all<gatherv_case<I64>>(c, n, runs);
  check_persistent_all<scatter_case<I64>>(c, n, runs);
  check_persistent_all<allgather_case<I64>>(c, n, runs);
  check_persistent_all<allgatherv_case<I64>>(c, n, runs);
  check_persistent_all<reduce_scatter_block_case<I64>>(c, n, runs);
  check_persistent_all<alltoall_case<I64>>(c, n, runs);
  check_persistent_all<alltoallv_case<I64>>(c, n, runs);
  // Larger messages, named schedules, the non-commutative op.
  check_persistent_all<allreduce_case<I64>, S::ring>(c, 30011, 4);
  check_persistent_all<alltoall_case<I64>, S::bruck>(c, 1001, 4);
  check_persistent_all<gatherv_case<I64>, S::linear_sync<2>>(c, 2001, 4);
  check_persistent_all<allgatherv_case<I64>, S::bruck>(c, 2001, 4);
  check_persistent_all<allreduce_case<matrix2, matrix_op>, S::recursive_doubling>(c, 301, 4);
  check_persistent_all<reduce_case<matrix2, matrix_op>, S::binomial>(c, 301, 4);
}

TEST_CASE("async.persistent_interleaved") {
  // Two persistent requests and a one-shot request in flight together, each
  // round started in the same order everywhere and completed in a different
  // order on every rank; a blocking call between rounds.
  const hpcoll::communicator c(MPI_COMM_WORLD);
  allreduce_case<I64> a({1001, 0, form::in_place});
  bcast_case<I64> b({517, c.size() / 2, form::plain});
  alltoallv_case<I64> v({5, 0, form::plain});
  a.fill(next_salt());
  b.fill(next_salt());
  auto pa = a.apply([&](auto&&... x) { return hpcoll::Allreduce<S::automatic, hpcoll::check::from_env,
                                                                progress::thread>::persistent(c, FWD(x)...); });
  auto pb = b.apply([&](auto&&... x) { return hpcoll::Bcast<>::persistent(c, FWD(x)...); });
  for (int round = 0; round < 8; ++round) {
    CAPTURE(round);
    a.fill(next_salt());
    b.fill(next_salt());
    v.fill(next_salt());
    pa.start();
    hpcoll::request rv =
        round % 2 == 0 ? issue<alltoallv_case<I64>, S::automatic, progress::offload>(v, c, entry::free_argument)
                       : issue<alltoallv_case<I64>, S::automatic, progress::manual>(v, c, entry::free_template);
    pb.start();
    switch ((world_rank() + round) % 3) {
      case 0:
        pa.wait();
        pb.wait();
        rv.wait();
        break;
      case 1:
        rv.wait();
        pb.wait();
        pa.wait();
        break;
      default:
        pb.wait();
        pa.wait();
        rv.wait();
        break;
    }
    check_result(a, "persistent allreduce (thread)");
    check_result(b, "persistent bcast (manual)");
    check_result(v, "alltoallv");
    interleaved_blocking(c, next_salt());
  }
}

TEST_CASE("async.persistent_misuse") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  hpcoll::persistent_request empty;
  CHECK(contains(error_of([&] { empty.start(); }), "persistent_request::start: the request is empty"));
  CHECK(!empty.active());
  CHECK(empty.ready());
  CHECK(empty.test());
  empty.wait();

  std::vector<int> in(6, c.rank()), out(6);
  auto a = hpcoll::Allreduce<S::recursive_doubling>::persistent(c, in, out, hpcoll::op::max{});
  auto b = std::move(a);  // a is now empty
  CHECK(contains(error_of([&] { a.start(); }), "the request is empty"));
  b.start();
  CHECK(contains(error_of([&] { b.start(); }), "still active"));
  while (!b.test()) std::this_thread::yield();
  CHECK(out == std::vector<int>(6, c.size() - 1));
  // Move-assigning over an idle persistent request, then restarting it.
  std::vector<int> out2(6);
  b = hpcoll::Allreduce<S::linear>::persistent(progress::offload{}, c, in, out2, hpcoll::op::min{});
  for (int run = 0; run < 3; ++run) {
    std::fill(out2.begin(), out2.end(), -7);
    b.start();
    b.wait();
    CHECK(out2 == std::vector<int>(6, 0));
  }
  // Move-assigning over an active persistent request waits for its run.
  std::vector<int> out3(6);
  std::fill(out2.begin(), out2.end(), -7);
  b.start();
  b = hpcoll::Allreduce<>::persistent(progress::thread{}, c, in, out3, hpcoll::op::sum{});
  CHECK(out2 == std::vector<int>(6, 0));
  CHECK(!b.active());
  b.start();
  b.wait();
  CHECK(out3 == std::vector<int>(6, c.size() * (c.size() - 1) / 2));
  still_works(c);
}

// ---- 5. Requests destroyed or overwritten in flight --------------------------------------------

TEST_CASE("async.destruction_in_flight") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  for_each_policy([&]<class P>() {
    const std::string policy = std::string("policy ") + policy_name<P>();
    CAPTURE(policy);

    {  // going out of scope waits
      allreduce_case<I64> x({60001, 0, form::plain});
      alltoallv_case<I64> y({41, 0, form::in_place});
      x.fill(next_salt());
      y.fill(next_salt());
      {
        hpcoll::request r = issue<allreduce_case<I64>, S::automatic, P>(x, c, entry::free_template);
        hpcoll::request s = issue<alltoallv_case<I64>, S::pairwise, P>(y, c, entry::object_template);
      }
      check_result(x, policy + ", allreduce destroyed in flight");
      check_result(y, policy + ", alltoallv destroyed in flight");
    }

    {  // assigning over a request in flight waits for it
      bcast_case<I64> x({30011, 0, form::plain});
      allgather_case<I64> y({2003, 0, form::plain});
      x.fill(next_salt());
      y.fill(next_salt());
      hpcoll::request r = issue<bcast_case<I64>, S::automatic, P>(x, c, entry::free_argument);
      r = issue<allgather_case<I64>, S::ring, P>(y, c, entry::object_argument);
      check_result(x, policy + ", bcast overwritten in flight");  // before r's wait
      CHECK(r.active());
      r = hpcoll::request{};  // an empty request over the allgather in flight
      CHECK(!r.active());
      check_result(y, policy + ", allgather overwritten by an empty request");
    }

    {  // moving in-flight requests: a moved-from request is empty
      reduce_case<I64> x({20011, c.size() - 1, form::plain});
      x.fill(next_salt());
      hpcoll::request r1 = issue<reduce_case<I64>, S::binomial, P>(x, c, entry::object_template);
      hpcoll::request r2 = std::move(r1);
      CHECK(!r1.active());
      CHECK(r1.ready());
      CHECK(r1.test());
      r1.wait();
      CHECK(r2.active());
      hpcoll::request r3;
      r3 = std::move(r2);
      CHECK(!r2.active());
      r3.wait();
      check_result(x, policy + ", moved reduce");
    }

    {  // a growing vector moves in-flight requests; then the vector is destroyed in flight
      std::vector<std::unique_ptr<job>> jobs;
      for (int i = 0; i < 20; ++i) jobs.push_back(make_job(i, next_salt()));
      {
        std::vector<hpcoll::request> requests;  // no reserve: reallocations move requests in flight
        for (auto& j : jobs) requests.push_back(j->issue(c));
      }
      for (auto& j : jobs) j->check();
    }

    {  // requests keep their communicator's duplicate alive after the hpcoll::communicator is gone
      allreduce_case<I64> x({3001, 0, form::in_place});
      alltoall_case<I64> y({13, 0, form::plain});
      x.fill(next_salt());
      y.fill(next_salt());
      hpcoll::request r;
      hpcoll::persistent_request pr;
      {
        const hpcoll::communicator own(MPI_COMM_WORLD);
        r = issue<allreduce_case<I64>, S::automatic, P>(x, own, entry::free_argument);
        pr = y.apply([&](auto&&... a) { return hpcoll::Alltoall<S::bruck>::persistent(P{}, own, FWD(a)...); });
      }
      r.wait();
      check_result(x, policy + ", allreduce on a communicator destroyed in flight");
      for (int run = 0; run < 2; ++run) {
        y.fill(next_salt());
        pr.start();
        pr.wait();
        check_result(y, policy + ", persistent alltoall on a destroyed communicator");
      }
    }

    {  // a persistent request destroyed while a run is active
      alltoall_case<I64> x({1009, 0, form::plain});
      x.fill(next_salt());
      {
        auto pr = x.apply([&](auto&&... a) { return alltoall_case<I64>::coll<S::pairwise, P>::persistent(c, FWD(a)...); });
        pr.start();
        pr.wait();
        x.fill(next_salt());
        pr.start();
      }
      check_result(x, policy + ", persistent alltoall destroyed while active");
    }
  });
  still_works(c);
}

// ---- 6. Errors ----------------------------------------------------------------------------------

TEST_CASE("async.errors") {
  // A bad argument raises hpcoll::error at the call, naming collective and
  // schedule, before any message; no request is made.
  const hpcoll::communicator c(MPI_COMM_WORLD);
  const int p = c.size();
  std::vector<int> in(4, 1), short_out(3), buf(8);
  for_each_policy([&]<class P>() {
    const std::string policy = std::string("policy ") + policy_name<P>();
    CAPTURE(policy);
    const std::string expected = "hpcoll::allreduce<ring>: output has 3 elements, input has 4";
    CHECK(error_of([&] { auto r = hpcoll::Allreduce<S::ring>{}.start(P{}, c, in, short_out, hpcoll::op::sum{}); }) ==
          expected);
    CHECK(error_of([&] {
            auto r = hpcoll::Allreduce<S::ring, hpcoll::check::from_env, P>{}.start(c, in, short_out, hpcoll::op::sum{});
          }) == expected);
    CHECK(error_of([&] { auto r = hpcoll::Allreduce<S::ring>::persistent(P{}, c, in, short_out, hpcoll::op::sum{}); }) ==
          expected);
    const auto dispatched = error_of([&] { auto r = hpcoll::iallreduce<P>(c, in, short_out, hpcoll::op::sum{}); });
    CHECK(contains(dispatched, "hpcoll::allreduce<"));
    CHECK(contains(dispatched, ">: output has 3 elements, input has 4"));

    for (const int bad : {-1, p}) {
      CHECK(error_of([&] { auto r = hpcoll::Bcast<S::binomial, hpcoll::check::from_env, P>{}.start(c, buf, bad); }) ==
            "hpcoll::bcast<binomial>: root " + std::to_string(bad) + " is not a rank of a communicator of size " +
                std::to_string(p));
      CHECK(contains(error_of([&] { auto r = hpcoll::ireduce(P{}, c, buf, buf, hpcoll::op::max{}, bad); }),
                     "hpcoll::reduce<"));
    }

    // Only the root sees its short output; checked mode tells every rank.
    const int root = p - 1;
    std::vector<int> gin(3, c.rank()), gout(c.rank() == root ? 3 * static_cast<std::size_t>(p) - 1 : 0);
    const auto e = error_of(
        [&] { auto r = hpcoll::Gather<S::binomial, hpcoll::check::always, P>{}.start(c, gin, gout, root); });
    if (c.rank() == root)
      CHECK(contains(e, "hpcoll::gather<binomial>: the root's output has"));
    else
      CHECK(e == "hpcoll::gather<binomial>: rank " + std::to_string(root) + " was called with invalid arguments");
  });
  still_works(c);
}

namespace {

/// A commutative sum that, while `armed` is set on this rank, throws a
/// std::runtime_error (1) or an hpcoll::error (2) instead.
struct throwing_sum {
  static inline std::atomic<int> armed{0};
  int operator()(const int& a, const int& b) const {
    if (armed.load() == 1) throw std::runtime_error("throwing_sum: boom");
    if (armed.load() == 2) throw hpcoll::error("", "", "throwing_sum: boom");
    return a + b;
  }
};

/// Runs f with this process's stderr (file descriptor 2) sent to a temporary
/// file; returns what was written there.
template <class F>
std::string stderr_of(F&& f) {
  std::fflush(stderr);
  std::FILE* tmp = std::tmpfile();
  REQUIRE(tmp != nullptr);
  const int saved = ::dup(2);
  ::dup2(::fileno(tmp), 2);
  f();
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  std::string text;
  std::rewind(tmp);
  for (int ch; (ch = std::fgetc(tmp)) != EOF;) text.push_back(static_cast<char>(ch));
  std::fclose(tmp);
  return text;
}

}  // namespace

TEST_CASE("async.failure_in_flight") {
  // An op that throws while the request runs: the test/wait/wait_all/wait_any
  // that completes the request raises it (an hpcoll::error renamed after
  // collective and schedule, anything else as it is, like the blocking form);
  // the request is complete afterwards, a persistent one can run again.
  // Reduce<linear> with root 0: only the root combines, one message a round;
  // after the op throws its rounds go on without reducing, so every message
  // is received and the other ranks finish normally.
  const hpcoll::communicator c(MPI_COMM_WORLD);
  const int root = 0;
  const bool fails = c.rank() == root && c.size() > 1;
  const std::string plain = fails ? "throwing_sum: boom" : "";
  const std::string named = fails ? "hpcoll::reduce<linear>: throwing_sum: boom" : "";
  const int sum = c.size() * (c.size() + 1) / 2;
  std::vector<int> in(4, c.rank() + 1), out(4);
  auto arm = [&](int how) { throwing_sum::armed = c.rank() == root ? how : 0; };

  arm(1);
  CHECK(error_of<std::exception>([&] { hpcoll::Reduce<S::linear>{}(c, in, out, throwing_sum{}, root); }) == plain);
  arm(2);
  CHECK(error_of([&] { hpcoll::Reduce<S::linear>{}(c, in, out, throwing_sum{}, root); }) == named);
  // No message of the failed calls is left unreceived, to meet a later call
  // (the second barrier: no rank sends for the next call before all have looked).
  MPI_Barrier(c.native());
  int left = 0;
  MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, c.native(), &left, MPI_STATUS_IGNORE);
  CHECK(left == 0);
  MPI_Barrier(c.native());

  for_each_policy([&]<class P>() {
    const std::string policy = std::string("policy ") + policy_name<P>();
    CAPTURE(policy);
    using failing = hpcoll::Reduce<S::linear, hpcoll::check::from_env, P>;

    arm(1);  // wait raises what the op threw
    hpcoll::request r = failing{}.start(c, in, out, throwing_sum{}, root);
    CHECK(error_of<std::exception>([&] { r.wait(); }) == plain);
    CHECK(!r.active());
    r.wait();  // complete: nothing more to raise

    arm(2);  // test raises it, renamed
    r = failing{}.start(c, in, out, throwing_sum{}, root);
    CHECK(error_of([&] {
            while (!r.test()) std::this_thread::yield();
          }) == named);
    CHECK(!r.active());

    // wait_all waits for every request, then raises the first failure.
    std::vector<long> a_in(50, 1), a_out(50);
    std::vector<double> b(33, c.rank() == 1 % c.size() ? 2.5 : 0.0);
    std::vector<hpcoll::request> rs;
    rs.push_back(hpcoll::iallreduce<P>(c, a_in, a_out, hpcoll::op::sum{}));
    rs.push_back(failing{}.start(c, in, out, throwing_sum{}, root));
    rs.push_back(hpcoll::ibcast<P>(c, b, 1 % c.size()));
    CHECK(error_of([&] { hpcoll::wait_all(rs); }) == named);
    for (const auto& x : rs) CHECK(!x.active());
    CHECK(a_out == std::vector<long>(50, c.size()));
    CHECK(b == std::vector<double>(33, 2.5));

    // wait_any raises the failed one when it completes it, and goes on afterwards.
    std::fill(a_out.begin(), a_out.end(), 0);
    rs.clear();
    rs.push_back(failing{}.start(c, in, out, throwing_sum{}, root));
    rs.push_back(hpcoll::iallreduce<P>(c, a_in, a_out, hpcoll::op::sum{}));
    std::size_t completed = 0, failed = 0;
    while (true) {
      std::optional<std::size_t> i;
      const auto e = error_of([&] { i = hpcoll::wait_any(rs); });
      if (!e.empty()) {
        CHECK(e == named);
        ++failed;
        ++completed;
        continue;
      }
      if (!i) break;
      ++completed;
    }
    CHECK(completed == 2);
    CHECK(failed == (fails ? 1u : 0u));
    CHECK(a_out == std::vector<long>(50, c.size()));

    // A persistent request runs again after a failed run.
    auto pr = failing::persistent(c, in, out, throwing_sum{}, root);
    for (int run = 0; run < 4; ++run) {
      arm(run % 2 == 0 ? 2 : 0);
      std::fill(out.begin(), out.end(), -1);
      pr.start();
      const auto e = error_of([&] { pr.wait(); });
      if (run % 2 == 0) {
        CHECK(e == named);
      } else {
        CHECK(e.empty());
        if (c.rank() == root) CHECK(out == std::vector<int>(4, sum));
      }
    }

    // Destroyed in flight, the failure has nobody to go to: stderr.
    arm(1);
    const std::string reported =
        stderr_of([&] { hpcoll::request lost = failing{}.start(c, in, out, throwing_sum{}, root); });
    if (fails)
      CHECK(contains(reported, "hpcoll: a request destroyed before completion failed: throwing_sum: boom"));
    else
      CHECK(reported.empty());
  });
  throwing_sum::armed = 0;
  still_works(c);
}

TEST_CASE("async.configure_after_first_use") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  std::vector<int> in(3, 1), out(3), out2(3);
  hpcoll::request r = hpcoll::iallreduce<progress::thread>(c, in, out, hpcoll::op::sum{});
  hpcoll::request s = hpcoll::iallreduce(progress::offload{}, c, in, out2, hpcoll::op::sum{});
  r.wait();
  s.wait();
  CHECK(out == std::vector<int>(3, c.size()));
  CHECK(out2 == std::vector<int>(3, c.size()));
  CHECK(contains(error_of([] { progress::configure(progress::thread_settings{}); }),
                 "progress::configure: the progress thread is already running"));
  CHECK(contains(error_of([] { progress::configure(progress::offload_settings{}); }),
                 "progress::configure: the offload worker is already running"));
}

// ---- Cases run in their own processes (tests/CMakeLists.txt) --------------------------------------

namespace {

const char* thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    default: return "MPI_THREAD_MULTIPLE";
  }
}

/// A CPU this process may run on (the first of its affinity mask).
int allowed_cpu() {
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0)
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
      if (CPU_ISSET(cpu, &set)) return cpu;
#endif
  return 0;
}

}  // namespace

// Run with HPCOLL_TEST_THREAD_LEVEL=single|funneled|serialized: the thread and
// offload policies refuse to run, at the call, before any message and before
// their thread starts; the manual policy and blocking calls still work.
TEST_CASE("async.no_thread_multiple" * doctest::skip()) {
  int provided = MPI_THREAD_MULTIPLE;
  MPI_Query_thread(&provided);
  HPCOLL_REQUIRE_ALL_RANKS(provided < MPI_THREAD_MULTIPLE);
  const std::string level = thread_level_name(provided);
  const hpcoll::communicator c(MPI_COMM_WORLD);
  std::vector<int> in(4, 1), out(4), buf(5), blocks(2 * static_cast<std::size_t>(c.size()));
  auto check_refused = [&]<class P>(const std::string& policy) {
    CAPTURE(policy);
    const std::string problem = "progress::" + policy +
                                " calls MPI from a background thread and needs MPI_THREAD_MULTIPLE, but MPI provides " +
                                level + "; initialise MPI with MPI_Init_thread(..., MPI_THREAD_MULTIPLE, ...)";
    CHECK(error_of([&] { auto r = hpcoll::Allreduce<S::ring>{}.start(P{}, c, in, out, hpcoll::op::sum{}); }) ==
          "hpcoll::allreduce<ring>: " + problem);
    CHECK(error_of([&] { auto r = hpcoll::Bcast<S::binomial, hpcoll::check::from_env, P>::persistent(c, buf, 0); }) ==
          "hpcoll::bcast<binomial>: " + problem);
    const auto dispatched = error_of([&] { auto r = hpcoll::iallreduce<P>(c, in, out, hpcoll::op::sum{}); });
    CHECK(contains(dispatched, "hpcoll::allreduce<"));
    CHECK(contains(dispatched, problem));
    CHECK(contains(error_of([&] { auto r = hpcoll::ialltoall(P{}, c, in_place, blocks); }), problem));
  };
  check_refused.operator()<progress::thread>("thread");
  check_refused.operator()<progress::offload>("offload");
  // No thread was started: they can still be configured.
  CHECK(error_of([] { progress::configure(progress::thread_settings{}); }).empty());
  CHECK(error_of([] { progress::configure(progress::offload_settings{}); }).empty());
  // The manual policy needs no thread support.
  still_works(c);
  allreduce_case<I64> x({1001, 0, form::plain});
  alltoall_case<I64> y({7, 0, form::in_place});
  x.fill(next_salt());
  y.fill(next_salt());
  auto pr = y.apply([&](auto&&... a) { return hpcoll::Alltoall<S::bruck>::persistent(c, FWD(a)...); });
  hpcoll::request r = issue<allreduce_case<I64>, S::automatic, progress::manual>(x, c, entry::free_template);
  pr.start();
  if (world_rank() % 2 == 0) {
    r.wait();
    pr.wait();
  } else {
    pr.wait();
    r.wait();
  }
  check_result(x, "manual allreduce without MPI_THREAD_MULTIPLE");
  check_result(y, "manual persistent alltoall without MPI_THREAD_MULTIPLE");
}

// The progress thread and offload worker are configured before their first
// use: a capacity of 0 and an impossible CPU are refused; then a pinned
// progress thread with a poll interval and a pinned offload worker with a
// queue of 2 (so starts wait for free slots) run many requests.
TEST_CASE("async.configure_before_use" * doctest::skip()) {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  CHECK(contains(error_of([] { progress::configure(progress::offload_settings{-1, 0}); }),
                 "the offload queue needs a capacity of at least 1"));

  // A CPU beyond any CPU set: the first request raises; the thread is not left running.
  progress::configure(progress::thread_settings{100000, std::chrono::microseconds(0)});
  std::vector<int> in(4, 1), out(4);
  const auto pin = error_of([&] { auto r = hpcoll::iallreduce<progress::thread>(c, in, out, hpcoll::op::sum{}); });
  CHECK(contains(pin, "cannot pin the thread to CPU 100000"));
  MESSAGE("pinning failure reads: " << pin);

  const int cpu = allowed_cpu();
  CHECK(error_of([&] { progress::configure(progress::thread_settings{cpu, std::chrono::microseconds(20)}); }).empty());
  CHECK(error_of([&] { progress::configure(progress::offload_settings{cpu, 2}); }).empty());

  std::vector<std::unique_ptr<job>> jobs;
  std::vector<hpcoll::request> requests;
  for (int i = 0; i < 30; ++i) {
    const int salt = next_salt();
    switch (i % 3) {
      case 0: jobs.push_back(make_job_with<allreduce_case<I64>>(2, {static_cast<std::size_t>(500 + i), 0, form::plain}, salt, i)); break;
      case 1: jobs.push_back(make_job_with<alltoall_case<I64>>(2, {static_cast<std::size_t>(i), 0, form::in_place}, salt, i)); break;
      default: jobs.push_back(make_job_with<bcast_case<I64>>(1, {static_cast<std::size_t>(900 + i), i % c.size(), form::plain}, salt, i)); break;
    }
    requests.push_back(jobs.back()->issue(c));
  }
  for (const std::size_t i : completion_order(requests.size(), 1)) requests[i].wait();
  for (auto& j : jobs) j->check();
  CHECK(contains(error_of([] { progress::configure(progress::offload_settings{}); }), "already running"));
  still_works(c);
}
