// SPDX-License-Identifier: BSD-3-Clause
// hpcoll_dijkstra: single-source shortest paths on road networks, the
// collectives of the parallel solvers by hpcoll (or by the MPI library).
// Rank 0 reads a DIMACS file or generates a road network, hands every rank
// its block of vertices, the chosen solver runs, rank 0 prints a summary and
// every run prints "checksum: reachable=R sum=S max=M". docs/dijkstra.md.
//
//   mpiexec -n P hpcoll_dijkstra (--graph FILE | --generate PRESET|N [--seed K]) [--write FILE]
//       [--source V] [--solver dijkstra|delta|sequential|none] [--delta D]
//       [--collectives hpcoll|native] [--allreduce S] [--alltoall S] [--alltoallv S]
//       [--check] [--json FILE] [--distances FILE]
//
// Bad options and bad input are reported on every rank, which all exit
// non-zero: option errors with status 2, input and check failures with 1.
#include <mpi.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <hpcoll/plan/shape.hpp>
#include <hpcoll/select/dispatch.hpp>

#include "app_report.hpp"
#include "checksum.hpp"
#include "graph.hpp"
#include "graph_input.hpp"
#include "json_out.hpp"
#include "options.hpp"
#include "partition.hpp"
#include "run_info.hpp"
#include "solvers.hpp"

namespace {

using namespace hpcoll_dijkstra;
namespace po = hpcoll_bench::po;
namespace json = hpcoll_bench::json;
using hpcoll_bench::parse_choice;
using hpcoll_bench::integer_in;

constexpr const char* program = "hpcoll_dijkstra";

enum class solver_kind { dijkstra, delta, sequential, none };

struct options {
  graph_input input;
  std::string write;
  solver_kind solver = solver_kind::dijkstra;
  std::optional<std::uint64_t> delta;
  collective_library library = collective_library::hpcoll;
  /// Schedules named on the command line (empty: the dispatcher chooses), by collective.
  std::string allreduce_schedule, alltoall_schedule, alltoallv_schedule;
  bool check = false;
  std::string json;
  std::string distances;
};

const std::vector<std::string> solver_names = {"dijkstra", "delta", "sequential", "none"};
const std::vector<std::string> library_names = {"hpcoll", "native"};

std::string name_of(solver_kind s) { return solver_names[static_cast<std::size_t>(s)]; }
std::string name_of(collective_library c) { return library_names[static_cast<std::size_t>(c)]; }

/// `text` if it names a schedule the dispatcher offers for Shape's collective (a full name, an alias
/// or a name without template arguments, as HPCOLL_<COLLECTIVE> accepts); else an error listing them.
template <class Shape>
std::string parse_schedule(const std::string& text) {
  if (hpcoll::schedule::find_candidate<Shape>(text) == hpcoll::schedule::candidate_count<Shape>)
    throw std::invalid_argument("'" + text + "' is not a schedule of " + std::string(Shape::name) + " (candidates: " +
                                hpcoll::schedule::candidate_list(hpcoll::schedule::candidate_names<Shape>()) + ")");
  return text;
}

/// The schedules named on the command line become the dispatcher's overrides, HPCOLL_<COLLECTIVE>=NAME:
/// the library has no per-call or per-communicator way to name a schedule at run time (a named
/// schedule is a template argument), and the dispatcher reads these variables when it first decides
/// a call class. Set on every rank alike before any hpcoll collective; they replace values from the
/// environment.
void override_schedules(const options& o) {
  const std::pair<const std::string*, std::string> overrides[] = {
      {&o.allreduce_schedule, hpcoll::detail::override_variable<hpcoll::allreduce_shape>()},
      {&o.alltoall_schedule, hpcoll::detail::override_variable<hpcoll::alltoall_shape>()},
      {&o.alltoallv_schedule, hpcoll::detail::override_variable<hpcoll::alltoallv_shape>()}};
  for (const auto& [schedule, variable] : overrides)
    if (!schedule->empty() && setenv(variable.c_str(), schedule->c_str(), 1) != 0)
      throw std::runtime_error("cannot set " + variable + ": " + std::strerror(errno));
}

/// The Open MPI coll_tuned algorithm forced for `collective` by mpiexec's
/// --mca coll_tuned_<collective>_algorithm N (which Open MPI passes to every process as
/// OMPI_MCA_coll_tuned_<collective>_algorithm), 0 where none is: Open MPI's own choice. Open MPI
/// ignores the algorithm without --mca coll_tuned_use_dynamic_rules 1, and so does this.
int forced_native_algorithm(const std::string& collective) {
  const char* dynamic = std::getenv("OMPI_MCA_coll_tuned_use_dynamic_rules");
  if (!dynamic || std::strcmp(dynamic, "1") != 0) return 0;
  const char* value = std::getenv(("OMPI_MCA_coll_tuned_" + collective + "_algorithm").c_str());
  int algorithm = 0;
  if (!value || std::from_chars(value, value + std::strlen(value), algorithm).ec != std::errc()) return 0;
  return algorithm;
}

void write_distances(const std::string& path, const std::vector<distance_t>& distances) {
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (!file) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
  std::string text;
  bool written = true;
  for (std::size_t v = 0; v < distances.size(); ++v) {
    text += distances[v] == unreachable ? "inf" : std::to_string(distances[v]);
    text += '\n';
    if (text.size() >= (1 << 20) || v + 1 == distances.size()) {
      written = written && std::fwrite(text.data(), 1, text.size(), file) == text.size();
      text.clear();
    }
  }
  if (std::fclose(file) != 0 || !written) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
}

/// The first difference of `got` from the sequential solver's `expected`, as a problem text (empty: none).
std::string compare_with_sequential(const std::vector<distance_t>& got, const std::vector<distance_t>& expected,
                                    const std::string& solver) {
  const auto text = [](distance_t d) { return d == unreachable ? std::string("inf") : std::to_string(d); };
  std::uint64_t differing = 0, first = 0;
  for (std::uint64_t v = got.size(); v-- > 0;)
    if (got[v] != expected[v]) ++differing, first = v;
  if (differing == 0) return {};
  return "check FAILED: " + std::to_string(differing) + " of " + std::to_string(got.size()) + " distances of " +
         solver + " differ from the sequential solver's; the first at vertex " + std::to_string(first + 1) + ": " +
         text(got[first]) + " instead of " + text(expected[first]);
}

/// The times of a summary, per rank: load runs from the start until every rank has its block,
/// solve is the solver's, made of compute and its collectives, other is the rest.
enum timing { load, solve, compute, allreduce_time, alltoall_time, alltoallv_time, other, total, timings };
const char* const timing_names[timings] = {"load",     "solve",     "compute", "allreduce",
                                           "alltoall", "alltoallv", "other",   "total"};
constexpr int first_collective = allreduce_time, collective_count = 3;

/// What rank 0 reports of a run.
struct summary {
  const options* o = nullptr;
  std::string command, graph_name;
  graph_summary graph;
  int np = 1;
  distance_t delta = 0;
  solve_stats stats;
  std::uint64_t relaxations = 0;  ///< all ranks'
  std::vector<hpcoll::schedule_count> schedules;
  collective_usage collectives[collective_count];  ///< rank 0's calls, the bytes of all ranks
  double max_seconds[timings] = {}, mean_seconds[timings] = {};
  double read_seconds = 0, distribute_seconds = 0, write_seconds = 0;  ///< rank 0's
  std::string check_result;
  distance_checksum sums;
  /// Native runs: the Open MPI coll_tuned algorithm forced per collective (0: none).
  std::vector<std::pair<std::string, int>> native_algorithms;

  bool parallel() const { return o->solver == solver_kind::dijkstra || o->solver == solver_kind::delta; }
  bool native() const { return o->library == collective_library::native; }
};

void print(const summary& s) {
  const options& o = *s.o;
  std::printf("graph        %s: %llu nodes, %llu arcs\n", s.graph_name.c_str(),
              static_cast<unsigned long long>(s.graph.vertices), static_cast<unsigned long long>(s.graph.arcs));
  std::string run = "np " + std::to_string(s.np) + ", solver " + name_of(o.solver);
  if (o.solver == solver_kind::delta) run += " (delta " + std::to_string(s.delta) + ")";
  if (s.parallel()) run += ", collectives " + name_of(o.library);
  std::printf("run          %s, source %llu\n", run.c_str(), static_cast<unsigned long long>(o.input.source));
  if (o.solver == solver_kind::dijkstra)
    std::printf("steps        %llu (one per reachable vertex); %llu arcs relaxed\n",
                static_cast<unsigned long long>(s.stats.settled), static_cast<unsigned long long>(s.relaxations));
  if (o.solver == solver_kind::delta)
    std::printf("steps        %llu buckets, %llu light phases; %llu arcs relaxed\n",
                static_cast<unsigned long long>(s.stats.buckets), static_cast<unsigned long long>(s.stats.phases),
                static_cast<unsigned long long>(s.relaxations));
  if (s.parallel()) {
    const std::string schedules = hpcoll_bench::schedules_text(s.schedules);
    std::string native = "the MPI library's own collectives";
    std::string forced;
    for (const auto& [collective, algorithm] : s.native_algorithms)
      if (algorithm != 0) forced += (forced.empty() ? "" : ", ") + collective + " " + std::to_string(algorithm);
    if (!forced.empty()) native += " (Open MPI coll_tuned algorithm forced: " + forced + ")";
    std::printf("schedules    %s\n", s.native() ? native.c_str() : schedules.c_str());
  }
  std::printf("load         %s %.3f s, distribute %.3f s (rank 0)", o.input.generate ? "generate" : "read", s.read_seconds,
              s.distribute_seconds);
  if (!o.write.empty()) std::printf("; write %.3f s (in other)", s.write_seconds);
  std::printf("\ntime (s)      max over ranks       mean        calls   bytes, all ranks\n");
  for (int t = 0; t < timings; ++t) {
    const bool collective_row = t >= first_collective && t < first_collective + collective_count;
    if (collective_row && !s.parallel()) continue;
    const bool part_of_solve = t > solve && t < other;
    std::printf("%-14s %13.6f %10.6f", ((part_of_solve ? "    " : "  ") + std::string(timing_names[t])).c_str(),
                s.max_seconds[t], s.mean_seconds[t]);
    if (collective_row) {
      const collective_usage& c = s.collectives[t - first_collective];
      std::printf(" %12llu %18llu", static_cast<unsigned long long>(c.calls), static_cast<unsigned long long>(c.bytes));
    }
    std::printf("\n");
  }
  if (!s.check_result.empty()) std::printf("check        %s\n", s.check_result.c_str());
  if (o.solver != solver_kind::none)
    std::printf("%s\n", checksum_line(s.sums).c_str());
  std::fflush(stdout);
}

json::value to_json(const summary& s) {
  const options& o = *s.o;
  json::object doc = hpcoll_bench::run_json(program, s.command);
  doc.set("graph", json::object{{"name", s.graph_name}, {"nodes", s.graph.vertices}, {"arcs", s.graph.arcs}});
  doc.set("np", s.np);
  doc.set("solver", name_of(o.solver));
  doc.set("source", o.input.source);
  if (o.solver == solver_kind::delta) doc.set("delta", s.delta);
  if (o.solver == solver_kind::dijkstra)
    doc.set("steps", json::object{{"settled", s.stats.settled}, {"relaxations", s.relaxations}});
  if (o.solver == solver_kind::delta)
    doc.set("steps", json::object{
                         {"buckets", s.stats.buckets}, {"phases", s.stats.phases}, {"relaxations", s.relaxations}});
  if (s.parallel()) {
    doc.set("collectives", name_of(o.library));
    doc.set("schedules", hpcoll_bench::schedules_json(s.schedules));
    if (s.native()) {
      json::object forced;
      for (const auto& [collective, algorithm] : s.native_algorithms) forced.set(collective, algorithm);
      doc.set("native_algorithms", forced);
    }
    json::object calls;
    for (int c = 0; c < collective_count; ++c)
      calls.set(timing_names[first_collective + c], json::object{{"calls", s.collectives[c].calls},
                                                                 {"bytes", s.collectives[c].bytes}});
    doc.set("collective_calls", calls);
  }
  doc.set("load", json::object{{o.input.generate ? "generate_s" : "read_s", s.read_seconds},
                               {"distribute_s", s.distribute_seconds}});
  if (!o.write.empty()) doc.set("write_s", s.write_seconds);
  json::object seconds;
  for (int t = 0; t < timings; ++t)
    seconds.set(timing_names[t], json::object{{"max", s.max_seconds[t]}, {"mean", s.mean_seconds[t]}});
  doc.set("seconds", seconds);
  if (o.check) doc.set("check", "passed");
  if (o.solver != solver_kind::none)
    doc.set("checksum", json::object{{"reachable", s.sums.reachable}, {"sum", s.sums.sum}, {"max", s.sums.max}});
  return doc;
}

int run(int argc, char** argv) {
  const double start = MPI_Wtime();
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  options o;
  hpcoll_bench::command_line cl{program,
                                "usage: mpiexec -n P hpcoll_dijkstra (--graph FILE | --generate PRESET|N) [options]\n"
                                "Single-source shortest paths on a road network; docs/dijkstra.md."};
  add_graph_options(cl, o.input);
  cl.options.add_options()
      ("write", po::value(&o.write)->value_name("FILE"),
       "write the graph as a DIMACS file (gzip-compressed if FILE ends in .gz)")
      ("solver", hpcoll_bench::value_of(&o.solver, "NAME", [](const std::string& t) {
         return parse_choice<solver_kind>(t, solver_names);
       }), "dijkstra (default: one vertex per step), delta (delta-stepping), sequential (rank 0 alone) or none (load only)")
      ("delta", hpcoll_bench::value_of(&o.delta, "D", integer_in(1, UINT64_MAX)),
       "delta-stepping's bucket width (default: 4 x the mean arc weight)")
      ("collectives", hpcoll_bench::value_of(&o.library, "LIB", [](const std::string& t) {
         return parse_choice<collective_library>(t, library_names);
       }), "hpcoll (default: hpcoll's allreduce, alltoall, alltoallv) or native (the MPI library's)")
      ("allreduce", hpcoll_bench::value_of(&o.allreduce_schedule, "NAME", parse_schedule<hpcoll::allreduce_shape>),
       "run this schedule for every allreduce instead of the dispatcher's choice (as HPCOLL_ALLREDUCE=NAME)")
      ("alltoall", hpcoll_bench::value_of(&o.alltoall_schedule, "NAME", parse_schedule<hpcoll::alltoall_shape>),
       "the same for alltoall (HPCOLL_ALLTOALL)")
      ("alltoallv", hpcoll_bench::value_of(&o.alltoallv_schedule, "NAME", parse_schedule<hpcoll::alltoallv_shape>),
       "the same for alltoallv (HPCOLL_ALLTOALLV)")
      ("check", po::bool_switch(&o.check), "also run the sequential solver on rank 0 and compare every distance")
      ("json", po::value(&o.json)->value_name("FILE"), "write the summary as JSON")
      ("distances", po::value(&o.distances)->value_name("FILE"),
       "write the distances, one per line in vertex order ('inf': unreachable)");
  cl.notes = "Every run with a solver prints 'checksum: reachable=R sum=S max=M': R vertices with a path from the\n"
             "source, S the sum of their distances (modulo 2^64), M the largest.\n";
  // Errors on every rank (each exits with them); --help once.
  const bool report = rank == 0 || !hpcoll_bench::asks_for_help(argc, argv);
  const auto parsed = hpcoll_bench::parse_command_line(argc, argv, cl, report, [&] {
    check_graph_options(o.input);
    if (!o.write.empty() && o.write == o.input.graph) throw std::invalid_argument("--write would overwrite --graph");
    if (o.delta && o.solver != solver_kind::delta) throw std::invalid_argument("--delta is for --solver delta");
    if (o.check && (o.solver == solver_kind::sequential || o.solver == solver_kind::none))
      throw std::invalid_argument("--check compares a parallel solver (dijkstra, delta) with the sequential one");
    if (!o.distances.empty() && o.solver == solver_kind::none) throw std::invalid_argument("--distances needs a solver");
    const bool schedule_named =
        !o.allreduce_schedule.empty() || !o.alltoall_schedule.empty() || !o.alltoallv_schedule.empty();
    if (schedule_named && (o.solver == solver_kind::sequential || o.solver == solver_kind::none))
      throw std::invalid_argument("--allreduce, --alltoall and --alltoallv are for the parallel solvers (dijkstra, delta)");
    if (schedule_named && o.library == collective_library::native)
      throw std::invalid_argument("--allreduce, --alltoall and --alltoallv name hpcoll's schedules: not with "
                                  "--collectives native (force Open MPI's with mpiexec --mca coll_tuned_...)");
  });
  if (parsed.exit) return *parsed.exit;
  override_schedules(o);

  summary s;
  s.o = &o;
  s.np = size;
  s.command = hpcoll_bench::command_text(argc, argv);
  s.graph_name = o.input.name();

  // ---- load: rank 0 reads or generates, every rank gets its block ----------------------------
  csr_graph whole;
  std::string problem = hpcoll_bench::on_rank0(rank, [&] {
    for (const std::string* path : {&o.write, &o.json, &o.distances}) hpcoll_bench::check_writable(*path);
    const double t = MPI_Wtime();
    whole = load_graph(o.input);
    s.read_seconds = MPI_Wtime() - t;
    if (s.parallel() && s.native() && whole.vertex_count() > static_cast<std::uint64_t>(INT_MAX))
      throw std::invalid_argument("--collectives native: MPI_LONG_INT holds vertex ids up to 2^31 - 1; the graph has " +
                                  std::to_string(whole.vertex_count()) + " nodes");
  });
  if (hpcoll_bench::failed_on_rank0(program, problem)) return 1;
  local_graph local;
  const double distribute_start = MPI_Wtime();
  if (s.parallel()) {
    local = distribute(MPI_COMM_WORLD, whole);
  } else {
    if (rank == 0) local.whole = summarize(whole);
    MPI_Bcast(&local.whole, sizeof local.whole, MPI_BYTE, 0, MPI_COMM_WORLD);
  }
  double seconds[timings] = {};
  seconds[load] = MPI_Wtime() - start;
  s.distribute_seconds = MPI_Wtime() - distribute_start;
  s.graph = local.whole;

  problem = hpcoll_bench::on_rank0(rank, [&] {
    if (o.write.empty()) return;
    const double t = MPI_Wtime();
    // The same graph gives the same file, whatever the file's name and the run's other options.
    const std::vector<std::string> comments = {"written by hpcoll_dijkstra: " + s.graph_name};
    write_dimacs(o.write, whole, comments);
    s.write_seconds = MPI_Wtime() - t;
  });
  if (hpcoll_bench::failed_on_rank0(program, problem)) return 1;
  const bool keep_whole = o.check || o.solver == solver_kind::sequential;
  if (!keep_whole) whole = {};

  // ---- solve -------------------------------------------------------------------------------
  if (o.solver == solver_kind::delta) s.delta = o.delta.value_or(default_delta(s.graph));
  exchange ex(MPI_COMM_WORLD, o.library);
  solve_result result;
  const auto source = static_cast<vertex_t>(o.input.source - 1);
  MPI_Barrier(MPI_COMM_WORLD);
  switch (o.solver) {
    case solver_kind::dijkstra: result = parallel_dijkstra(local, source, ex); break;
    case solver_kind::delta: result = delta_stepping(local, source, s.delta, ex); break;
    case solver_kind::sequential:
      if (rank == 0) {
        const double t = MPI_Wtime();
        result.distances.values = sequential_dijkstra(whole, source);
        result.stats.seconds = MPI_Wtime() - t;
      }
      break;
    case solver_kind::none: break;
  }
  s.stats = result.stats;
  if (o.solver != solver_kind::none) s.sums = global_checksum(MPI_COMM_WORLD, result.distances.values);

  // ---- check, distances ------------------------------------------------------------------------
  if (o.check || !o.distances.empty()) {
    const std::vector<distance_t> all = gather_distances(MPI_COMM_WORLD, result.distances, s.graph.vertices);
    problem = hpcoll_bench::on_rank0(rank, [&] {
      if (!o.distances.empty()) write_distances(o.distances, all);
      if (!o.check) return;
      const double t = MPI_Wtime();
      const std::string difference = compare_with_sequential(all, sequential_dijkstra(whole, source), name_of(o.solver));
      if (!difference.empty()) throw std::runtime_error(difference);
      char text[160];
      std::snprintf(text, sizeof text, "passed: all %zu distances equal the sequential solver's (%.3f s)", all.size(),
                    MPI_Wtime() - t);
      s.check_result = text;
    });
    if (hpcoll_bench::failed_on_rank0(program, problem)) return 1;
  }

  // ---- summary: rank 0 prints it and writes the JSON -----------------------------------------
  const collective_usage* usages[collective_count] = {&ex.allreduce(), &ex.alltoall(), &ex.alltoallv()};
  for (int c = 0; c < collective_count; ++c) seconds[first_collective + c] = usages[c]->seconds;
  seconds[solve] = result.stats.seconds;
  seconds[compute] = result.stats.seconds - ex.collective_seconds();
  seconds[total] = MPI_Wtime() - start;
  seconds[other] = seconds[total] - seconds[load] - result.stats.seconds;
  double sum_seconds[timings];
  MPI_Reduce(seconds, s.max_seconds, timings, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(seconds, sum_seconds, timings, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  for (int t = 0; t < timings; ++t) s.mean_seconds[t] = sum_seconds[t] / size;
  std::uint64_t counts[collective_count + 1], all_counts[collective_count + 1];  // bytes per collective, relaxations
  for (int c = 0; c < collective_count; ++c) counts[c] = usages[c]->bytes;
  counts[collective_count] = result.stats.relaxations;
  MPI_Reduce(counts, all_counts, collective_count + 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  for (int c = 0; c < collective_count; ++c) s.collectives[c] = {usages[c]->calls, all_counts[c], 0};
  s.relaxations = all_counts[collective_count];
  s.schedules = ex.schedules();
  if (s.native())
    for (const char* collective : {"allreduce", "alltoall", "alltoallv"})
      s.native_algorithms.emplace_back(collective, forced_native_algorithm(collective));
  problem = hpcoll_bench::on_rank0(rank, [&] {
    print(s);
    if (!o.json.empty()) json::write_file(o.json, to_json(s));
  });
  return hpcoll_bench::failed_on_rank0(program, problem) ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) { return hpcoll_bench::run_main(argc, argv, program, run); }
