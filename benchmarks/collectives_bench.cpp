// SPDX-License-Identifier: BSD-3-Clause
// hpcoll_bench: Google Benchmark suite of every collective with every schedule
// that serves it, next to the free function ("default") and the native MPI call.
//
//   mpiexec -n P hpcoll_bench [--hpcoll_collectives=a,b] [--hpcoll_sizes=MIN:MAX]
//                             [--hpcoll_native_label=LABEL] [--hpcoll_only_native] [--hpcoll_node_aware]
//                             [--hpcoll_no_memcpy] [--hpcoll_rounds=R] [--hpcoll_fresh_input]
//                             [--hpcoll_decisions_out=FILE [--hpcoll_decisions_only]]
//                             [--benchmark_*...]
//
// Benchmark names are <collective>/<schedule>/<S>, S in bytes (elements are
// int, 4 bytes, op sum). S follows the NCCL convention: the vector for bcast,
// reduce and allreduce; the whole p-block buffer for the others, whose block
// is floor(S / 4p) elements — S is then reported as the actual p × block × 4
// bytes, and a size with an empty block is skipped. The memcpy/copy/<S> rows
// time one core's memory copy on rank 0 while the other ranks sleep. The
// schedules of a collective are the dispatcher's candidates
// (hpcoll::schedule::candidates): the flat ones, and with --hpcoll_node_aware
// the node-aware ones too; --hpcoll_decisions_out writes, per row, the
// dispatcher's choice for it and every candidate's predicted time (JSON), and
// --hpcoll_decisions_only stops there.
//
// Timing of a collective: one warm-up call per row, a barrier before each
// timed batch, per iteration the slowest rank's time (MPI_Allreduce MAX) as
// the manual iteration time, so every rank takes the same decisions. A size's
// rows run back to back (native, default, the schedules), --hpcoll_rounds
// times over: rows of one name, whose median the reports take. Only
// rank 0 reports and writes --benchmark_out.
#include <benchmark/benchmark.h>
#include <mpi.h>

#include <algorithm>
#include <boost/hana/concat.hpp>
#include <boost/hana/equal.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/transform.hpp>
#include <boost/hana/type.hpp>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <hpcoll/hpcoll.hpp>
#include <iostream>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <type_traits>
#include <vector>

#include "json_out.hpp"
#include "options.hpp"
#include "run_info.hpp"

namespace hana = boost::hana;
namespace S = hpcoll::schedule;
namespace json = hpcoll_bench::json;
namespace po = hpcoll_bench::po;

namespace {

using hpcoll_bench::mpi_library_version;

using elem = int;  // 4 bytes: every size from 4 B up is a whole number of elements
constexpr std::size_t elem_bytes = sizeof(elem);
constexpr int root = 0;

// ---------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------
struct options {
  std::vector<std::string> collectives;  // empty: all
  hpcoll_bench::size_range sizes{4, std::size_t{16} << 20};
  std::string native_label = "native";
  bool only_native = false;
  bool node_aware = false;
  bool no_memcpy = false;
  std::string decisions_out;    // --hpcoll_decisions_out=FILE
  bool decisions_only = false;  // --hpcoll_decisions_only: write them and run nothing
  std::uint64_t rounds = 1;     // --hpcoll_rounds: each cell's rows timed this many times in alternation
  bool fresh_input = false;     // --hpcoll_fresh_input: inputs rewritten before each timed call
};

/// The sizes MIN, 4 MIN, 16 MIN, ... up to MAX.
std::vector<std::size_t> sizes(const options& o) {
  return hpcoll_bench::range_sizes(o.sizes, o.sizes.min);
}

// ---------------------------------------------------------------------------
// One call's buffers and counts
// ---------------------------------------------------------------------------
struct call_args {
  const hpcoll::communicator* comm = nullptr;
  MPI_Comm world = MPI_COMM_WORLD;
  int rank = 0;
  std::size_t p = 1;
  std::size_t n = 0;  // vector elements (bcast, reduce, allreduce) or block elements (the others)
  elem* in = nullptr;
  elem* out = nullptr;
  std::vector<std::size_t> counts, displs;  // equal blocks, for gatherv, allgatherv and alltoallv
  std::vector<std::size_t> starts;          // allgatherv: the blocks' prefix sums
  std::vector<int> mpi_counts, mpi_displs;

  int count() const { return static_cast<int>(n); }
  bool is_root() const { return rank == root; }
  std::span<const elem> input(std::size_t elems) const { return {in, elems}; }
  std::span<elem> output(std::size_t elems) const { return {out, elems}; }
};

// ---------------------------------------------------------------------------
// The collectives: shape (for the dispatcher), bus-bandwidth factor, hpcoll and MPI calls.
// args(a) are the arguments after the communicator, shared by the free
// function and the collective object.
// ---------------------------------------------------------------------------
enum class sizing { vector, blocks };

struct bcast_bench {
  using shape = hpcoll::bcast_shape;
  static constexpr std::string_view name = shape::name;
  using reduction = void;  // the op the benchmark passes
  static shape shape_of(const call_args& a) { return {a.rank, static_cast<int>(a.p), root, a.n, elem_bytes}; }
  static constexpr sizing size_rule = sizing::vector;
  static double bus_factor(double) { return 1; }
  template <class Sch>
  using object = hpcoll::Bcast<Sch>;
  static void call_default(auto&&... a) { hpcoll::bcast(a...); }
  static auto args(const call_args& a) { return std::tuple(a.output(a.n), root); }
  static void native(const call_args& a) { MPI_Bcast(a.out, a.count(), MPI_INT, root, a.world); }
};

struct reduce_bench {
  using shape = hpcoll::reduce_shape;
  static constexpr std::string_view name = shape::name;
  using reduction = hpcoll::op::sum;  // the op the benchmark passes
  static shape shape_of(const call_args& a) { return {a.rank, static_cast<int>(a.p), root, a.n, true, false, elem_bytes}; }
  static constexpr sizing size_rule = sizing::vector;
  static double bus_factor(double) { return 1; }
  template <class Sch>
  using object = hpcoll::Reduce<Sch>;
  static void call_default(auto&&... a) { hpcoll::reduce(a...); }
  static auto args(const call_args& a) { return std::tuple(a.input(a.n), a.output(a.n), hpcoll::op::sum{}, root); }
  static void native(const call_args& a) { MPI_Reduce(a.in, a.out, a.count(), MPI_INT, MPI_SUM, root, a.world); }
};

struct allreduce_bench {
  using shape = hpcoll::allreduce_shape;
  static constexpr std::string_view name = shape::name;
  using reduction = hpcoll::op::sum;  // the op the benchmark passes
  static shape shape_of(const call_args& a) { return {a.rank, static_cast<int>(a.p), a.n, true, false, elem_bytes}; }
  static constexpr sizing size_rule = sizing::vector;
  static double bus_factor(double p) { return 2 * (p - 1) / p; }
  template <class Sch>
  using object = hpcoll::Allreduce<Sch>;
  static void call_default(auto&&... a) { hpcoll::allreduce(a...); }
  static auto args(const call_args& a) { return std::tuple(a.input(a.n), a.output(a.n), hpcoll::op::sum{}); }
  static void native(const call_args& a) { MPI_Allreduce(a.in, a.out, a.count(), MPI_INT, MPI_SUM, a.world); }
};

/// (p − 1)/p: the collectives whose S is the whole p-block buffer.
struct block_collective {
  static constexpr sizing size_rule = sizing::blocks;
  static double bus_factor(double p) { return (p - 1) / p; }
};

struct gather_bench : block_collective {
  using shape = hpcoll::gather_shape;
  static constexpr std::string_view name = shape::name;
  using reduction = void;  // the op the benchmark passes
  static shape shape_of(const call_args& a) { return {a.rank, static_cast<int>(a.p), root, a.n, false, elem_bytes}; }
  template <class Sch>
  using object = hpcoll::Gather<Sch>;
  static void call_default(auto&&... a) { hpcoll::gather(a...); }
  static auto args(const call_args& a) { return std::tuple(a.input(a.n), a.output(a.is_root() ? a.n * a.p : 0), root); }
  static void native(const call_args& a) {
    MPI_Gather(a.in, a.count(), MPI_INT, a.out, a.count(), MPI_INT, root, a.world);
  }
};

struct gatherv_bench : block_collective {
  using shape = hpcoll::gatherv_shape;
  static constexpr std::string_view name = shape::name;
  using reduction = void;  // the op the benchmark passes
  static shape shape_of(const call_args& a) { return {a.rank, static_cast<int>(a.p), root, a.n, a.counts, a.displs, false, elem_bytes}; }
  template <class Sch>
  using object = hpcoll::Gatherv<Sch>;
  static void call_default(auto&&... a) { hpcoll::gatherv(a...); }
  static auto args(const call_args& a) {
    return std::tuple(a.input(a.n), a.output(a.n * a.p), std::span(a.counts), std::span(a.displs), root);
  }
  static void native(const call_args& a) {
    MPI_Gatherv(a.in, a.count(), MPI_INT, a.out, a.mpi_counts.data(), a.mpi_displs.data(), MPI_INT, root, a.world);
  }
};

struct scatter_bench : block_collective {
  using shape = hpcoll::scatter_shape;
  static constexpr std::string_view name = shape::name;
  using reduction = void;  // the op the benchmark passes
  static shape shape_of(const call_args& a) { return {a.rank, static_cast<int>(a.p), root, a.n, false, elem_bytes}; }
  template <class Sch>
  using object = hpcoll::Scatter<Sch>;
  static void call_default(auto&&... a) { hpcoll::scatter(a...); }
  static auto args(const call_args& a) { return std::tuple(a.input(a.is_root() ? a.n * a.p : 0), a.output(a.n), root); }
  static void native(const call_args& a) {
    MPI_Scatter(a.in, a.count(), MPI_INT, a.out, a.count(), MPI_INT, root, a.world);
  }
};

struct allgather_bench : block_collective {
  using shape = hpcoll::allgather_shape;
  static constexpr std::string_view name = shape::name;
  using reduction = void;  // the op the benchmark passes
  static shape shape_of(const call_args& a) { return {a.rank, static_cast<int>(a.p), a.n, false, elem_bytes}; }
  template <class Sch>
  using object = hpcoll::Allgather<Sch>;
  static void call_default(auto&&... a) { hpcoll::allgather(a...); }
  static auto args(const call_args& a) { return std::tuple(a.input(a.n), a.output(a.n * a.p)); }
  static void native(const call_args& a) {
    MPI_Allgather(a.in, a.count(), MPI_INT, a.out, a.count(), MPI_INT, a.world);
  }
};

struct allgatherv_bench : block_collective {
  using shape = hpcoll::allgatherv_shape;
  static constexpr std::string_view name = shape::name;
  using reduction = void;  // the op the benchmark passes
  static shape shape_of(const call_args& a) {
    return {a.rank, static_cast<int>(a.p), a.n, a.counts, a.displs, a.starts, false, elem_bytes, true};
  }
  template <class Sch>
  using object = hpcoll::Allgatherv<Sch>;
  static void call_default(auto&&... a) { hpcoll::allgatherv(a...); }
  static auto args(const call_args& a) {
    return std::tuple(a.input(a.n), a.output(a.n * a.p), std::span(a.counts), std::span(a.displs));
  }
  static void native(const call_args& a) {
    MPI_Allgatherv(a.in, a.count(), MPI_INT, a.out, a.mpi_counts.data(), a.mpi_displs.data(), MPI_INT, a.world);
  }
};

struct reduce_scatter_block_bench : block_collective {
  using shape = hpcoll::reduce_scatter_block_shape;
  static constexpr std::string_view name = shape::name;
  using reduction = hpcoll::op::sum;  // the op the benchmark passes
  static shape shape_of(const call_args& a) { return {a.rank, static_cast<int>(a.p), a.n, true, false, elem_bytes}; }
  template <class Sch>
  using object = hpcoll::ReduceScatterBlock<Sch>;
  static void call_default(auto&&... a) { hpcoll::reduce_scatter_block(a...); }
  static auto args(const call_args& a) { return std::tuple(a.input(a.n * a.p), a.output(a.n), hpcoll::op::sum{}); }
  static void native(const call_args& a) {
    MPI_Reduce_scatter_block(a.in, a.out, a.count(), MPI_INT, MPI_SUM, a.world);
  }
};

struct alltoall_bench : block_collective {
  using shape = hpcoll::alltoall_shape;
  static constexpr std::string_view name = shape::name;
  using reduction = void;  // the op the benchmark passes
  static shape shape_of(const call_args& a) { return {a.rank, static_cast<int>(a.p), a.n, false, elem_bytes}; }
  template <class Sch>
  using object = hpcoll::Alltoall<Sch>;
  static void call_default(auto&&... a) { hpcoll::alltoall(a...); }
  static auto args(const call_args& a) { return std::tuple(a.input(a.n * a.p), a.output(a.n * a.p)); }
  static void native(const call_args& a) { MPI_Alltoall(a.in, a.count(), MPI_INT, a.out, a.count(), MPI_INT, a.world); }
};

struct alltoallv_bench : block_collective {
  using shape = hpcoll::alltoallv_shape;
  static constexpr std::string_view name = shape::name;
  using reduction = void;  // the op the benchmark passes
  static shape shape_of(const call_args& a) { return {a.rank, static_cast<int>(a.p), a.counts, a.displs, a.counts, a.displs, false, elem_bytes}; }
  template <class Sch>
  using object = hpcoll::Alltoallv<Sch>;
  static void call_default(auto&&... a) { hpcoll::alltoallv(a...); }
  static auto args(const call_args& a) {
    const std::span counts(a.counts), displs(a.displs);
    return std::tuple(a.input(a.n * a.p), counts, displs, a.output(a.n * a.p), counts, displs);
  }
  static void native(const call_args& a) {
    MPI_Alltoallv(a.in, a.mpi_counts.data(), a.mpi_displs.data(), MPI_INT, a.out, a.mpi_counts.data(),
                  a.mpi_displs.data(), MPI_INT, a.world);
  }
};

constexpr auto all_collectives =
    hana::tuple_t<bcast_bench, reduce_bench, allreduce_bench, gather_bench, gatherv_bench, scatter_bench,
                  allgather_bench, allgatherv_bench, reduce_scatter_block_bench, alltoall_bench, alltoallv_bench>;
// One benchmark per collective the dispatcher serves, in the library's order.
static_assert(hana::transform(all_collectives, [](auto d) { return hana::type_c<typename decltype(d)::type::shape>; }) ==
              hpcoll::collective_shapes);

/// The collectives as the reports read them (the library's traits): name,
/// how S is stated (message_size), the candidate schedules (the row labels).
json::value collective_list() {
  json::array list;
  hana::for_each(hpcoll::collective_shapes, [&](auto t) {
    using Shape = typename decltype(t)::type;
    constexpr hpcoll::message_size rule = hpcoll::size_rule<Shape>;
    json::array candidates;
    for (std::size_t i = 0; i < hpcoll::schedule::candidate_count<Shape>; ++i)
      candidates.push_back(hpcoll::schedule::candidate_names<Shape>()[i]);
    list.push_back(json::object{{"name", Shape::name},
                                {"message_size", rule == hpcoll::message_size::vector       ? "vector"
                                                 : rule == hpcoll::message_size::all_blocks ? "all_blocks"
                                                                                            : "per_rank"},
                                {"candidates", std::move(candidates)}});
  });
  return list;
}

/// Pseudo-schedules: the native MPI call and hpcoll's free function.
struct native_call {};
struct default_call {};

template <class D, class Sch>
void invoke(const call_args& a) {
  if constexpr (std::is_same_v<Sch, native_call>) {
    D::native(a);
  } else {
    std::apply(
        [&](const auto&... rest) {
          if constexpr (std::is_same_v<Sch, default_call>)
            D::call_default(*a.comm, rest...);
          else
            typename D::template object<Sch>{}(*a.comm, rest...);
        },
        D::args(a));
  }
}

// ---------------------------------------------------------------------------
// Timing and counters
// ---------------------------------------------------------------------------
struct row {
  double bytes = 0;  // S
  double np = 1;
  double bus_factor = 1;
  bool warmed_up = false;
};

void set_bandwidth_counters(benchmark::State& state, const row& r, double seconds_per_call) {
  const double algbw = seconds_per_call > 0 ? r.bytes / seconds_per_call / 1e9 : 0;
  state.counters["bytes"] = benchmark::Counter(r.bytes);
  state.counters["np"] = benchmark::Counter(r.np);
  state.counters["algbw_GBps"] = benchmark::Counter(algbw);
  state.counters["busbw_GBps"] = benchmark::Counter(algbw * r.bus_factor);
}

/// Runs `call` once per iteration; the iteration time is the slowest rank's. Before each call
/// every rank rewrites `fresh` (untimed; empty without --hpcoll_fresh_input), as an application
/// sends data it has just computed: otherwise a receiver that copies a message may still cache
/// the unchanged input from the last call.
template <class Call>
void time_collective(benchmark::State& state, row& r, MPI_Comm world, std::span<elem> fresh, Call&& call) {
  if (!r.warmed_up) {
    call();
    r.warmed_up = true;
  }
  MPI_Barrier(world);
  double total = 0;
  for (auto _ : state) {
    for (elem& x : fresh) x ^= 1;
    const double start = MPI_Wtime();
    call();
    const double local = MPI_Wtime() - start;
    double slowest = 0;
    MPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, world);
    state.SetIterationTime(slowest);
    total += slowest;
  }
  set_bandwidth_counters(state, r,
                         total / static_cast<double>(std::max<benchmark::IterationCount>(state.iterations(), 1)));
}

// ---------------------------------------------------------------------------
// Registration
// ---------------------------------------------------------------------------
struct buffers {
  std::vector<elem> in, out;
};

std::string schedule_label(const options& o, auto schedule_type) {
  using Sch = typename decltype(schedule_type)::type;
  if constexpr (std::is_same_v<Sch, native_call>)
    return o.native_label;
  else if constexpr (std::is_same_v<Sch, default_call>)
    return "default";
  else
    return hpcoll::schedule_name<Sch>();
}

/// Block elements (or vector elements) for a nominal size S; 0 = skip.
template <class D>
std::size_t elements_for(std::size_t bytes, std::size_t p) {
  if constexpr (D::size_rule == sizing::vector)
    return bytes / elem_bytes;
  else
    return bytes / (elem_bytes * p);
}

/// The arguments of one row: S = `nominal` bytes (nullopt: the size has an empty block).
template <class D>
std::optional<call_args> args_for(const hpcoll::communicator& comm, buffers& buf, std::size_t nominal) {
  const std::size_t p = static_cast<std::size_t>(comm.size());
  call_args a;
  a.comm = &comm;
  a.rank = comm.rank();
  a.p = p;
  a.n = elements_for<D>(nominal, p);
  if (a.n == 0) return std::nullopt;
  a.in = buf.in.data();
  a.out = buf.out.data();
  for (std::size_t q = 0; q < p; ++q) {
    a.counts.push_back(a.n);
    a.displs.push_back(q * a.n);
    a.mpi_counts.push_back(static_cast<int>(a.n));
    a.mpi_displs.push_back(static_cast<int>(q * a.n));
  }
  for (std::size_t q = 0; q <= p; ++q) a.starts.push_back(q * a.n);
  return a;
}

/// S of a row: the vector, or the whole p-block buffer.
template <class D>
std::size_t row_bytes(const call_args& a) {
  return a.n * elem_bytes * (D::size_rule == sizing::vector ? 1 : a.p);
}

/// What every rank rewrites before each call with --hpcoll_fresh_input: S bytes from the start
/// of the call's first buffer (its input; bcast's buffer), as much on every rank, so that no
/// rank's timed call waits for another's rewrite.
template <class D>
std::span<elem> rewritten_input(const call_args& a) {
  elem* first = const_cast<elem*>(std::get<0>(D::args(a)).data());  // the bench's own buffers
  return {first, row_bytes<D>(a) / elem_bytes};
}

/// A collective's rows, cell by cell: at each size S its native, default and candidate rows
/// back to back, `rounds` times over (each time for --benchmark_min_time, after a warm-up
/// call of its own). A cell's rows are timed in alternation, so a machine that changes speed
/// for a while (on an oversubscribed node the scheduler can keep a slow placement for tens of
/// milliseconds) slows all of them alike; the reports take the median over a row's rounds.
template <class D>
void register_collective(const options& o, const hpcoll::communicator& comm, buffers& buf) {
  const std::size_t p = static_cast<std::size_t>(comm.size());
  const auto rows =
      hana::concat(hana::tuple_t<native_call, default_call>, hpcoll::schedule::candidates<typename D::shape>);
  for (std::size_t nominal : sizes(o)) {
    std::optional<call_args> a = args_for<D>(comm, buf, nominal);
    if (!a) continue;
    const std::size_t bytes = row_bytes<D>(*a);
    const auto args = std::make_shared<const call_args>(std::move(*a));
    const std::span<elem> fresh = o.fresh_input ? rewritten_input<D>(*args) : std::span<elem>{};
    for (std::uint64_t round = 0; round < o.rounds; ++round) {
      hana::for_each(rows, [&](auto schedule_type) {
        using Sch = typename decltype(schedule_type)::type;
        if (o.only_native && !std::is_same_v<Sch, native_call>) return;
        if (!o.node_aware && hpcoll::uses_node_layout<Sch>) return;
        const std::string name =
            std::string(D::name) + "/" + schedule_label(o, schedule_type) + "/" + std::to_string(bytes);
        auto r = std::make_shared<row>(
            row{static_cast<double>(bytes), static_cast<double>(p), D::bus_factor(static_cast<double>(p)), false});
        const auto timed = [args, r, fresh](benchmark::State& state) {
          time_collective(state, *r, args->world, fresh, [&] { invoke<D, Sch>(*args); });
        };
        benchmark::RegisterBenchmark(name.c_str(), timed)->UseManualTime()->Unit(benchmark::kMicrosecond);
      });
    }
  }
}

/// Every rank's plan of schedule S for the call, hashed (FNV-1a): candidates
/// with the same fingerprint send the same messages in the same rounds, so
/// their measured times differ by noise only (./hpcoll tune --evaluate pools them).
template <class S, class Shape>
std::string plan_fingerprint(const Shape& shape) {
  std::uint64_t h = 14695981039346656037ull;
  const auto mix = [&](std::uint64_t v) {
    for (int b = 0; b < 8; ++b) h = (h ^ ((v >> (8 * b)) & 0xff)) * 1099511628211ull;
  };
  const auto mix_region = [&](const hpcoll::region& r) {
    mix(static_cast<std::uint64_t>(r.buf)), mix(r.offset), mix(r.count);
  };
  for (int q = 0; q < shape.size; ++q) {
    const auto plan = hpcoll::plan_for<S>(hpcoll::for_rank(shape, q));
    mix(static_cast<std::uint64_t>(q));
    for (int r = 0; r < plan.rounds(); ++r) {
      mix(~std::uint64_t{0});  // the round's boundary
      plan.round(r, [&](const hpcoll::step& st) {
        mix(static_cast<std::uint64_t>(st.kind)), mix(st.incoming_left), mix(static_cast<std::uint64_t>(st.peer));
        mix_region(st.a), mix_region(st.b), mix_region(st.dst);
      });
    }
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

/// --hpcoll_decisions_out: what the dispatcher (the "default" rows) chooses
/// for every row of the run, with each candidate's predicted time and plan fingerprint.
void write_decisions(const options& o, const hpcoll::communicator& comm, buffers& buf) {
  json::array rows;
  std::size_t row_count = 0;
  std::string machine_source;
  hana::for_each(all_collectives, [&](auto d) {
    using D = typename decltype(d)::type;
    if (!o.collectives.empty() && std::ranges::find(o.collectives, D::name) == o.collectives.end()) return;
    for (std::size_t nominal : sizes(o)) {
      const std::optional<call_args> a = args_for<D>(comm, buf, nominal);
      if (!a) continue;
      auto shape = D::shape_of(*a);
      if constexpr (requires { shape.nodes; }) shape.nodes = hpcoll::node_layout_of(comm);  // as the free functions do
      const hpcoll::decision decision = hpcoll::explain<typename D::reduction, elem>(comm, shape);
      machine_source = decision.machine_source;
      std::vector<std::string> fingerprints;
      hpcoll::schedule::for_each_candidate<typename D::shape>([&](auto type, std::size_t i) {
        fingerprints.push_back(decision.candidates[i].valid ? plan_fingerprint<typename decltype(type)::type>(shape) : "");
      });
      json::array candidates;
      for (std::size_t i = 0; i < decision.candidates.size(); ++i) {
        const auto& c = decision.candidates[i];
        if (c.valid && c.weighed)
          candidates.push_back(json::object{{"schedule", c.schedule}, {"predicted_s", c.predicted_seconds},
                                            {"plan", fingerprints[i]}});
      }
      ++row_count;
      rows.push_back(json::object{{"collective", D::name},
                                  {"bytes", row_bytes<D>(*a)},
                                  {"candidates", std::move(candidates)},
                                  {"model_choice", decision.candidates[decision.model_choice].schedule},
                                  {"choice", decision.schedule()},
                                  {"reason", decision.reason.starts_with("tuning table") ? "table"
                                             : decision.reason == "model"              ? "model"
                                                                                       : "environment"},
                                  {"explanation", decision.to_string()}});
    }
  });
  const hpcoll::tuning_table* table = hpcoll::current_tuning_table();
  const json::value out = json::object{{"np", comm.size()},
                                       {"machine_source", machine_source},
                                       {"tuning_source", table ? json::value(table->source) : json::value()},
                                       {"collectives", collective_list()},
                                       {"rows", std::move(rows)}};
  json::write_file(o.decisions_out, out);
  std::printf("hpcoll_bench: the dispatcher's decisions for %zu rows written to %s\n", row_count,
              o.decisions_out.c_str());
}

/// memcpy/copy/<S>: one core's copy bandwidth (registered on rank 0 only; it
/// sends no message, the other ranks wait for it in wait_for_rank0()).
void register_memcpy(const options& o, buffers& buf) {
  for (std::size_t bytes : sizes(o)) {
    const std::string name = "memcpy/copy/" + std::to_string(bytes);
    benchmark::RegisterBenchmark(
        name.c_str(),
        [bytes, src = buf.in.data(), dst = buf.out.data()](benchmark::State& state) {
          std::memcpy(dst, src, bytes);  // warm-up, not timed
          const auto start = std::chrono::steady_clock::now();
          for (auto _ : state) {
            std::memcpy(dst, src, bytes);
            benchmark::DoNotOptimize(dst);
            benchmark::ClobberMemory();
          }
          const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
          const double copied = static_cast<double>(bytes) * static_cast<double>(state.iterations());
          state.counters["bytes"] = benchmark::Counter(static_cast<double>(bytes));
          state.counters["np"] = benchmark::Counter(1);
          state.counters["GBps"] = benchmark::Counter(elapsed.count() > 0 ? copied / elapsed.count() / 1e9 : 0);
        })
        ->UseRealTime()
        ->Unit(benchmark::kMicrosecond);
  }
}

/// A barrier the waiting ranks sleep through, so they leave rank 0's core alone.
void sleeping_barrier(MPI_Comm comm) {
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ibarrier(comm, &request);
  for (int done = 0; MPI_Test(&request, &done, MPI_STATUS_IGNORE), !done;)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

// ---------------------------------------------------------------------------
// Reporting: rank 0 only
// ---------------------------------------------------------------------------
/// Forwards to another reporter with Google Benchmark's time type
/// ("/manual_time", "/real_time") dropped from every name, so that names read
/// <collective>/<schedule>/<S>.
class plain_names final : public benchmark::BenchmarkReporter {
 public:
  explicit plain_names(std::unique_ptr<benchmark::BenchmarkReporter> inner) : inner_(std::move(inner)) {}
  bool ReportContext(const Context& context) override {
    // The library sets the streams on this reporter (the output file for the
    // file reporter) before the first report.
    inner_->SetOutputStream(&GetOutputStream());
    inner_->SetErrorStream(&GetErrorStream());
    return inner_->ReportContext(context);
  }
  void ReportRuns(const std::vector<Run>& runs) override {
    std::vector<Run> renamed = runs;
    for (Run& run : renamed) run.run_name.time_type.clear();
    inner_->ReportRuns(renamed);
  }
  void Finalize() override { inner_->Finalize(); }

 private:
  std::unique_ptr<benchmark::BenchmarkReporter> inner_;
};

/// rank 0's console: forwards whole lines, without a trailing "/manual_time"
/// or "/real_time" (the names --benchmark_list_tests prints).
class plain_name_lines final : public std::streambuf {
 public:
  explicit plain_name_lines(std::ostream& out) : out_(out) {}
  ~plain_name_lines() override { out_ << line_ << std::flush; }

 protected:
  int overflow(int c) override {
    if (c == traits_type::eof()) return 0;
    if (c != '\n') {
      line_.push_back(static_cast<char>(c));
      return c;
    }
    for (std::string_view suffix : {"/manual_time", "/real_time"})
      if (std::string_view(line_).ends_with(suffix)) line_.resize(line_.size() - suffix.size());
    out_ << line_ << '\n' << std::flush;
    line_.clear();
    return c;
  }

 private:
  std::ostream& out_;
  std::string line_;
};

struct null_buffer : std::streambuf {
  int overflow(int c) override { return c; }
};

/// The other ranks' reporter: prints nothing, not even --benchmark_list_tests.
class null_reporter final : public benchmark::BenchmarkReporter {
 public:
  null_reporter() : sink_(&buffer_) {
    SetOutputStream(&sink_);
    SetErrorStream(&sink_);
  }
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}

 private:
  null_buffer buffer_;
  std::ostream sink_;
};

/// --benchmark_out and --benchmark_out_format as the library will read them
/// (the environment supplies the defaults).
struct output_file {
  std::string path;
  std::string format = "json";
};

std::unique_ptr<benchmark::BenchmarkReporter> file_reporter(const output_file& f) {
  if (f.path.empty()) return nullptr;
  if (f.format == "console")
    return std::make_unique<plain_names>(
        std::make_unique<benchmark::ConsoleReporter>(benchmark::ConsoleReporter::OO_None));
  return std::make_unique<plain_names>(std::make_unique<benchmark::JSONReporter>());
}

/// --hpcoll_collectives: names of all_collectives.
std::vector<std::string> parse_collectives(const std::string& text) {
  std::vector<std::string> names;
  hana::for_each(all_collectives, [&](auto d) { names.emplace_back(decltype(d)::type::name); });
  return hpcoll_bench::parse_names(text, names);
}

/// --hpcoll_sizes: MIN:MAX, MIN a positive multiple of the element size.
hpcoll_bench::size_range parse_size_range(const std::string& text) {
  const hpcoll_bench::size_range r = hpcoll_bench::parse_size_range(text);
  if (r.min == 0 || r.min % elem_bytes != 0) throw std::invalid_argument("MIN must be a positive multiple of 4");
  return r;
}

/// --hpcoll_native_label: a schedule name in the rows' <collective>/<schedule>/<S>.
std::string parse_label(const std::string& label) {
  if (label.empty() || label.find('/') != std::string::npos)
    throw std::invalid_argument("must be non-empty and contain no '/'");
  return label;
}

/// The command line: hpcoll_bench's own --hpcoll_* options into o; the Google Benchmark flags
/// it reads itself (the output file, random interleaving) into f and shuffle; the other
/// --benchmark_* flags are passed on.
hpcoll_bench::command_line command_line_for(options& o, output_file& f, std::string& shuffle) {
  hpcoll_bench::command_line cl{"hpcoll_bench",
                                "usage: mpiexec -n P hpcoll_bench [--hpcoll_* options] [--benchmark_* flags]"};
  cl.options.add_options()
      ("hpcoll_collectives", hpcoll_bench::value_of(&o.collectives, "a,b", parse_collectives),
       "only these collectives (default all)")
      ("hpcoll_sizes", hpcoll_bench::value_of(&o.sizes, "MIN:MAX", parse_size_range),
       "message sizes S in bytes, MIN, 4 MIN, 16 MIN, ... up to MAX (default 4:16M)")
      ("hpcoll_native_label", hpcoll_bench::value_of(&o.native_label, "LABEL", parse_label),
       "the schedule name of the native MPI rows (default native)")
      ("hpcoll_only_native", po::bool_switch(&o.only_native), "only the native MPI rows (no memcpy rows either)")
      ("hpcoll_node_aware", po::bool_switch(&o.node_aware),
       "also the node-aware schedules (hierarchical, multi_leader) of allreduce, bcast, reduce, allgather, alltoall")
      ("hpcoll_no_memcpy", po::bool_switch(&o.no_memcpy), "no memcpy/copy/<S> rows")
      ("hpcoll_fresh_input", po::bool_switch(&o.fresh_input),
       "every rank rewrites S bytes of its input before each timed call (untimed): the input comes from "
       "the sender's cache, as an application's freshly computed data")
      ("hpcoll_rounds", hpcoll_bench::value_of(&o.rounds, "R", hpcoll_bench::integer_in(1, 1000)),
       "time each size's rows R times in alternation, each for --benchmark_min_time "
       "(rows of one name: the reports take their median; default 1)")
      ("hpcoll_decisions_out", po::value(&o.decisions_out)->value_name("FILE"),
       "write the dispatcher's choice and every candidate's predicted time per row (JSON, rank 0)")
      ("hpcoll_decisions_only", po::bool_switch(&o.decisions_only),
       "with --hpcoll_decisions_out: write them, run nothing");
  cl.hidden.add_options()
      ("benchmark_out", po::value(&f.path))
      ("benchmark_out_format", po::value(&f.format))
      ("benchmark_enable_random_interleaving", po::value(&shuffle)->implicit_value("true"));
  cl.notes = "The other flags go to Google Benchmark (--benchmark_*=VALUE; rank 0 reports and writes "
             "--benchmark_out):\n";
  cl.pass_unknown = true;
  return cl;
}

int run(int argc, char** argv) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  options o;
  output_file out;
  if (const char* env = std::getenv("BENCHMARK_OUT")) out.path = env;
  if (const char* env = std::getenv("BENCHMARK_OUT_FORMAT")) out.format = env;
  std::string shuffle;
  const hpcoll_bench::command_line cl = command_line_for(o, out, shuffle);
  const auto parsed = hpcoll_bench::parse_command_line(argc, argv, cl, rank == 0, [&] {
    if (out.format != "json" && out.format != "console")
      throw std::invalid_argument("--benchmark_out_format=" + out.format + ": hpcoll_bench writes json or console");
    // Each rank would shuffle the benchmarks its own way: collectives would not match across ranks.
    if (!shuffle.empty() && shuffle != "false" && shuffle != "0")
      throw std::invalid_argument("--benchmark_enable_random_interleaving cannot be used with MPI");
    if (o.decisions_only && o.decisions_out.empty())
      throw std::invalid_argument("--hpcoll_decisions_only needs --hpcoll_decisions_out");
  });
  if (parsed.help && rank == 0) benchmark::PrintDefaultHelp();
  if (parsed.exit) return *parsed.exit;
  for (const std::string& arg : parsed.passed)
    if (arg.starts_with("--hpcoll"))
      return hpcoll_bench::usage_error(cl, rank == 0, "unrecognised option '" + arg + "'");

  // Google Benchmark's arguments: the ones passed on, the output file on rank 0 only (an empty
  // one elsewhere, overriding a BENCHMARK_OUT default), the interleaving as given.
  std::vector<std::string> bench_args{argv[0]};
  bench_args.insert(bench_args.end(), parsed.passed.begin(), parsed.passed.end());
  bench_args.push_back("--benchmark_out=" + (rank == 0 ? out.path : std::string()));
  if (rank == 0) bench_args.push_back("--benchmark_out_format=" + out.format);
  if (!shuffle.empty()) bench_args.push_back("--benchmark_enable_random_interleaving=" + shuffle);
  std::vector<char*> args;
  for (std::string& a : bench_args) args.push_back(a.data());
  args.push_back(nullptr);
  int bench_argc = static_cast<int>(args.size()) - 1;
  benchmark::Initialize(&bench_argc, args.data());
  // Every rank sees the same leftovers; rank 0 names them.
  if (rank == 0 ? benchmark::ReportUnrecognizedArguments(bench_argc, args.data()) : bench_argc > 1) return 2;

  benchmark::AddCustomContext("np", std::to_string(size));
  benchmark::AddCustomContext("mpi_library", mpi_library_version());
  benchmark::AddCustomContext("hpcoll_native_label", o.native_label);
  benchmark::AddCustomContext("cores", std::to_string(std::thread::hardware_concurrency()));
  benchmark::AddCustomContext("hpcoll_collectives", hpcoll::detail::json_text(collective_list().get()));

  const hpcoll::communicator comm(MPI_COMM_WORLD);
  const auto all_sizes = sizes(o);
  const std::size_t max_elems = all_sizes.empty() ? 0 : all_sizes.back() / elem_bytes;
  buffers buf{std::vector<elem>(max_elems, 1), std::vector<elem>(max_elems, 0)};
  if (!o.decisions_out.empty()) {
    (void)hpcoll::node_layout_of(comm);  // learnt collectively, before rank 0 alone asks for it below
    if (rank == 0) write_decisions(o, comm, buf);
  }
  if (o.decisions_only) return 0;

  hana::for_each(all_collectives, [&](auto d) {
    using D = typename decltype(d)::type;
    if (o.collectives.empty() || std::ranges::find(o.collectives, D::name) != o.collectives.end())
      register_collective<D>(o, comm, buf);
  });
  if (!o.no_memcpy && !o.only_native && rank == 0) register_memcpy(o, buf);

  if (rank == 0) {
    plain_name_lines lines(std::cout);
    std::ostream console(&lines);
    plain_names display{std::unique_ptr<benchmark::BenchmarkReporter>(benchmark::CreateDefaultDisplayReporter())};
    display.SetOutputStream(&console);
    const auto file = file_reporter(out);
    benchmark::RunSpecifiedBenchmarks(&display, file.get());
  } else {
    null_reporter quiet;
    benchmark::RunSpecifiedBenchmarks(&quiet);
  }
  sleeping_barrier(MPI_COMM_WORLD);  // rank 0 may still be timing memcpy
  benchmark::Shutdown();
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return hpcoll_bench::run_main(argc, argv, "hpcoll_bench", run); }
