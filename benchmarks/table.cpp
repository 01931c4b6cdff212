// SPDX-License-Identifier: BSD-3-Clause
// hpcoll_table: hpcoll's free functions (the dispatcher's choice, as an
// application calls them) against the MPI library's own collective, the two
// alternating in one run: the cells of ./hpcoll bench --table
// (benchmarks/performance_table.py; docs/benchmarks.md, "The table").
//
//   mpiexec -n P hpcoll_table [--collectives a,b] [--sizes MIN:MAX:FACTOR] [--trials N] [--trial-bytes B]
//                             [--min-calls N] [--max-calls N] [--max-trial-time S] [--out FILE]
//
// Elements are int (op sum, root 0). S is the vector of bcast, reduce and
// allreduce and each rank's block of allgather (what it contributes) and
// alltoall (what it sends to each rank), so that every size exists at every
// process count. Per cell (collective, S): a check that hpcoll's result
// equals the MPI library's, a warm-up of both methods, the calls per trial
// (--trial-bytes / S within [--min-calls, --max-calls]: 2000 at the small
// sizes, 20 at 2 MiB; fewer where a trial would last longer than
// --max-trial-time), then --trials trials. Each trial times that many calls
// of one method, then of the other (the slowest rank's mean per call), the
// order flipping every trial, so that the machine's drift falls on both
// alike. Rank 0 writes every trial's times, their medians, the ratio of the
// medians and the dispatcher's choice for the cell (hpcoll::explain) to --out
// (JSON, "format": "hpcoll-table-1") and a line per cell to stdout.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <hpcoll/hpcoll.hpp>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "json_out.hpp"
#include "options.hpp"
#include "run_info.hpp"

namespace {

namespace po = hpcoll_bench::po;
namespace json = hpcoll_bench::json;

using elem = int;
constexpr std::size_t elem_bytes = sizeof(elem);
constexpr int root = 0;

struct options {
  std::vector<std::string> collectives;
  hpcoll_bench::size_range sizes{8, std::size_t{2} << 20, 8};
  int trials = 31;
  std::size_t trial_bytes = std::size_t{4} << 20;  // S times the calls of one method's trial
  double max_trial_time = 0.02;                    // seconds
  int min_calls = 20;
  int max_calls = 2000;
  std::string out;
};

/// One cell's buffers: `in` and `out` hold in_blocks resp. out_blocks times n elements.
struct cell {
  const hpcoll::communicator* comm = nullptr;
  int rank = 0;
  int p = 1;
  std::size_t n = 0;  // elements of the vector or of a block
  std::vector<elem> in, out;

  std::span<const elem> input() const { return in; }
  std::span<elem> output() { return out; }
};

/// A collective of the table: its buffers, both calls and the dispatcher's view of a call.
struct collective {
  std::string_view name;
  int in_blocks = 1, out_blocks = 1;  // 0 stands for p blocks
  bool message_in_output = false;     // bcast: the root's output buffer is the message
  bool result_at_root_only = false;   // reduce
  std::function<void(cell&)> native, hpcoll;
  std::function<hpcoll::decision(const cell&)> explain;
};

const std::vector<collective>& table_collectives() {
  using hpcoll::op::sum;
  static const std::vector<collective> all{
      {"bcast", 1, 1, true, false,
       [](cell& c) { MPI_Bcast(c.out.data(), static_cast<int>(c.n), MPI_INT, root, MPI_COMM_WORLD); },
       [](cell& c) { hpcoll::bcast(*c.comm, c.output(), root); },
       [](const cell& c) { return hpcoll::explain<void, elem>(*c.comm, hpcoll::bcast_shape{c.rank, c.p, root, c.n}); }},
      {"reduce", 1, 1, false, true,
       [](cell& c) {
         MPI_Reduce(c.in.data(), c.out.data(), static_cast<int>(c.n), MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
       },
       [](cell& c) { hpcoll::reduce(*c.comm, c.input(), c.output(), sum{}, root); },
       [](const cell& c) { return hpcoll::explain<sum, elem>(*c.comm, hpcoll::reduce_shape{c.rank, c.p, root, c.n}); }},
      {"allreduce", 1, 1, false, false,
       [](cell& c) {
         MPI_Allreduce(c.in.data(), c.out.data(), static_cast<int>(c.n), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
       },
       [](cell& c) { hpcoll::allreduce(*c.comm, c.input(), c.output(), sum{}); },
       [](const cell& c) { return hpcoll::explain<sum, elem>(*c.comm, hpcoll::allreduce_shape{c.rank, c.p, c.n}); }},
      {"allgather", 1, 0, false, false,
       [](cell& c) {
         const int count = static_cast<int>(c.n);
         MPI_Allgather(c.in.data(), count, MPI_INT, c.out.data(), count, MPI_INT, MPI_COMM_WORLD);
       },
       [](cell& c) { hpcoll::allgather(*c.comm, c.input(), c.output()); },
       [](const cell& c) { return hpcoll::explain<void, elem>(*c.comm, hpcoll::allgather_shape{c.rank, c.p, c.n}); }},
      {"alltoall", 0, 0, false, false,
       [](cell& c) {
         const int count = static_cast<int>(c.n);
         MPI_Alltoall(c.in.data(), count, MPI_INT, c.out.data(), count, MPI_INT, MPI_COMM_WORLD);
       },
       [](cell& c) { hpcoll::alltoall(*c.comm, c.input(), c.output()); },
       [](const cell& c) { return hpcoll::explain<void, elem>(*c.comm, hpcoll::alltoall_shape{c.rank, c.p, c.n}); }},
  };
  return all;
}

/// --sizes: MIN:MAX:FACTOR (FACTOR 4 unless given), MIN a positive multiple of the element size.
hpcoll_bench::size_range parse_sizes(const std::string& text) {
  const hpcoll_bench::size_range r = hpcoll_bench::parse_size_range(text, true);
  if (r.min == 0 || r.min % elem_bytes != 0) throw std::invalid_argument("MIN must be a positive multiple of 4");
  return r;
}

/// MIN, FACTOR MIN, FACTOR^2 MIN, ... up to MAX.
std::vector<std::size_t> sizes(const options& o) {
  return hpcoll_bench::range_sizes(o.sizes, o.sizes.min);
}

std::vector<std::string> collective_names() {
  std::vector<std::string> names;
  for (const collective& c : table_collectives()) names.emplace_back(c.name);
  return names;
}

/// --collectives: names of table_collectives().
std::vector<std::string> parse_collectives(const std::string& text) {
  return hpcoll_bench::parse_names(text, collective_names());
}

/// A rank's input element i (small: sums over ranks do not overflow).
elem input_value(int rank, std::size_t i) { return static_cast<elem>((rank + 1) * 1000 + i % 997); }

/// The buffers before a checked call: the inputs, and outputs that no result looks like.
void reset(const collective& coll, cell& c) {
  for (std::size_t i = 0; i < c.in.size(); ++i) c.in[i] = input_value(c.rank, i);
  for (std::size_t i = 0; i < c.out.size(); ++i)
    c.out[i] = coll.message_in_output && c.rank == root ? input_value(root, i) : -1;
}

/// True on every rank when hpcoll's result equals the MPI library's on every rank.
bool same_result(const collective& coll, cell& c) {
  reset(coll, c);
  coll.native(c);
  const std::vector<elem> expected = c.out;
  reset(coll, c);
  coll.hpcoll(c);
  int same = !coll.result_at_root_only || c.rank == root ? c.out == expected : 1;
  MPI_Allreduce(MPI_IN_PLACE, &same, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return same != 0;
}

/// The slowest rank's mean time of `calls` calls, in seconds (the same on every rank).
double trial(const std::function<void(cell&)>& call, cell& c, int calls) {
  MPI_Barrier(MPI_COMM_WORLD);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) call(c);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / calls;
  MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return seconds;
}

/// Calls per trial, after a warm-up of both methods: --trial-bytes / S within
/// [--min-calls, --max-calls], a rule of the size alone, so that runs time a cell alike;
/// fewer (not below --min-calls) where the warm-up says a trial of the slower method would
/// last longer than --max-trial-time (oversubscribed ranks take ms per call). The warm-up
/// runs a tenth of the calls, so that one hiccup of a busy machine does not set the count.
int calls_per_trial(const options& o, const collective& coll, cell& c) {
  const double by_size = std::clamp(static_cast<double>(o.trial_bytes / (c.n * elem_bytes)),
                                    static_cast<double>(o.min_calls), static_cast<double>(o.max_calls));
  const int warm_up = static_cast<int>(by_size) / 10 + 1;
  const double slower = std::max(trial(coll.hpcoll, c, warm_up), trial(coll.native, c, warm_up));
  const double fits = std::floor(o.max_trial_time / slower);
  return static_cast<int>(std::clamp(fits, static_cast<double>(o.min_calls), by_size));
}

/// One cell: the row of the JSON (rank 0's values; every rank measures).
json::value measure(const options& o, const collective& coll, const hpcoll::communicator& comm, std::size_t bytes) {
  cell c;
  c.comm = &comm;
  c.rank = comm.rank();
  c.p = comm.size();
  c.n = bytes / elem_bytes;
  const auto blocks = [&](int b) { return c.n * static_cast<std::size_t>(b == 0 ? c.p : b); };
  c.in.assign(blocks(coll.in_blocks), 0);
  c.out.assign(blocks(coll.out_blocks), 0);
  const hpcoll::decision decision = coll.explain(c);
  const bool verified = same_result(coll, c);
  const int calls = calls_per_trial(o, coll, c);
  std::vector<double> hpcoll_s, native_s;
  const auto time_hpcoll = [&] { hpcoll_s.push_back(trial(coll.hpcoll, c, calls)); };
  const auto time_native = [&] { native_s.push_back(trial(coll.native, c, calls)); };
  for (int t = 0; t < o.trials; ++t) {
    if (t % 2 == 0) {
      time_hpcoll();
      time_native();
    } else {
      time_native();
      time_hpcoll();
    }
  }
  const double hpcoll_median = hpcoll_bench::median(hpcoll_s), native_median = hpcoll_bench::median(native_s);
  if (c.rank == 0)
    std::printf("%-10s %9zu B  %-40s %6d calls  hpcoll %10.2f us  native %10.2f us  ratio %5.2f%s\n",
                std::string(coll.name).c_str(), bytes, decision.schedule().c_str(), calls, hpcoll_median * 1e6,
                native_median * 1e6, hpcoll_median / native_median, verified ? "" : "  WRONG RESULT");
  std::fflush(stdout);
  return json::object{{"collective", coll.name},
                      {"bytes", bytes},
                      {"schedule", decision.schedule()},
                      {"reason", decision.reason},
                      {"calls", calls},
                      {"hpcoll_s", json::array(hpcoll_s.begin(), hpcoll_s.end())},
                      {"native_s", json::array(native_s.begin(), native_s.end())},
                      {"hpcoll_median_s", hpcoll_median},
                      {"native_median_s", native_median},
                      {"ratio", hpcoll_median / native_median},
                      {"verified", verified}};
}

int run(int argc, char** argv) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  options o;
  hpcoll_bench::command_line cl{"hpcoll_table", "usage: mpiexec -n P hpcoll_table [options]"};
  cl.options.add_options()
      ("collectives", hpcoll_bench::value_of(&o.collectives, "a,b", parse_collectives),
       "only these of bcast, reduce, allreduce, allgather, alltoall (default all)")
      ("sizes", hpcoll_bench::value_of(&o.sizes, "MIN:MAX:FACTOR", parse_sizes),
       "S in bytes from MIN to MAX by FACTOR, MIN a multiple of 4 (default 8:2M:8)")
      ("trials", po::value(&o.trials)->value_name("N"), "trials per method and cell; the median counts (default 31)")
      ("trial-bytes", hpcoll_bench::value_of(&o.trial_bytes, "BYTES", hpcoll_bench::parse_bytes),
       "calls per trial: BYTES / S, within --min-calls and --max-calls (default 4M)")
      ("max-trial-time", po::value(&o.max_trial_time)->value_name("S"),
       "fewer calls (not below --min-calls) where a trial would last longer (default 0.02)")
      ("min-calls", po::value(&o.min_calls)->value_name("N"), "fewest calls per trial (default 20)")
      ("max-calls", po::value(&o.max_calls)->value_name("N"), "most calls per trial (default 2000)")
      ("out", po::value(&o.out)->value_name("FILE"), "write the cells as JSON (rank 0)");
  const auto parsed = hpcoll_bench::parse_command_line(argc, argv, cl, rank == 0, [&] {
    if (o.trials < 1 || o.min_calls < 1 || o.max_calls < o.min_calls || !(o.max_trial_time > 0))
      throw std::invalid_argument(
          "--trials and --min-calls must be >= 1, --max-calls >= --min-calls, --max-trial-time > 0");
    if (o.collectives.empty()) o.collectives = collective_names();
  });
  if (parsed.exit) return *parsed.exit;

  const hpcoll::communicator comm(MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("hpcoll_table: np %d; %d trials per cell and method, the methods alternating; calls per trial "
                "%zu B / S, %d to %d, fewer beyond %g s\n",
                size, o.trials, o.trial_bytes, o.min_calls, o.max_calls, o.max_trial_time);
  json::array rows;
  for (const collective& coll : table_collectives()) {
    if (std::ranges::find(o.collectives, coll.name) == o.collectives.end()) continue;
    for (std::size_t bytes : sizes(o)) rows.push_back(measure(o, coll, comm, bytes));
  }
  const hpcoll::tuning_table* table = hpcoll::current_tuning_table();
  if (rank == 0 && !o.out.empty()) {
    const std::vector<std::size_t> measured = sizes(o);
    const json::value doc = json::object{
        {"format", "hpcoll-table-1"},
        {"date", hpcoll_bench::utc_now()},
        {"command", hpcoll_bench::command_text(argc, argv)},
        {"np", size},
        {"cores", static_cast<int>(std::thread::hardware_concurrency())},
        {"mpi_library", hpcoll_bench::mpi_library_version()},
        {"machine_source", hpcoll::current_machine_profile().source},
        {"tuning_source", table ? json::value(table->source) : json::value()},
        {"settings", json::object{{"trials", o.trials},
                                  {"trial_bytes", o.trial_bytes},
                                  {"max_trial_time_s", o.max_trial_time},
                                  {"min_calls", o.min_calls},
                                  {"max_calls", o.max_calls},
                                  {"sizes", json::array(measured.begin(), measured.end())}}},
        {"rows", std::move(rows)}};
    json::write_file(o.out, doc);
  }
  return hpcoll_bench::rank0_status(0);
}

}  // namespace

int main(int argc, char** argv) { return hpcoll_bench::run_main(argc, argv, "hpcoll_table", run); }
