// SPDX-License-Identifier: BSD-3-Clause
// hpcoll_barnes_hut: a gravitational N-body simulation (Barnes–Hut octree, monopole forces,
// leapfrog) of a Plummer sphere, its broadcasts and gathers by hpcoll (or by the MPI library).
// Every step: build the tree, broadcast what the force computation needs, compute the forces in
// tasks the ranks take at run time, bring the results together (gatherv, reduce or allgatherv),
// integrate. Rank 0 prints a line per step and a summary; every run ends with
// "positions-hash: H". docs/barnes_hut.md.
//
//   mpiexec -n P hpcoll_barnes_hut [--bodies N] [--steps S] [--seed K] [--theta T] [--eps E] [--dt DT]
//       [--gather gatherv|reduce|allgatherv] [--build root|parallel] [--balance dynamic|static]
//       [--workers W] [--collectives hpcoll|native] [--check] [--json FILE] [--snapshot FILE]
//
// Bad options are reported on every rank, which all exit with status 2, before any message.
#include <mpi.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "app_report.hpp"
#include "bodies.hpp"
#include "forces.hpp"
#include "json_out.hpp"
#include "options.hpp"
#include "parallel_forces.hpp"
#include "run_info.hpp"

namespace {

using namespace hpcoll_barnes_hut;
namespace po = hpcoll_bench::po;
namespace json = hpcoll_bench::json;
using hpcoll_bench::parse_choice;
using hpcoll_bench::integer_in;
using hpcoll_bench::parse_integer;

constexpr const char* program = "hpcoll_barnes_hut";

/// Bodies whose force --check compares with direct summation (all of them if fewer).
constexpr std::uint64_t check_sample = 1000;

struct options {
  std::uint64_t bodies = 100000;
  std::uint64_t steps = 8;
  std::uint64_t seed = 1;
  double dt = 0.01;
  parallel_config parallel;  ///< with theta and eps
  bool check = false;
  std::string json, snapshot;
  std::optional<std::uint64_t> snapshot_step;
};

const std::vector<std::string> gather_names = {"gatherv", "reduce", "allgatherv"};
const std::vector<std::string> build_names = {"root", "parallel"};
const std::vector<std::string> balance_names = {"dynamic", "static"};
const std::vector<std::string> library_names = {"hpcoll", "native"};

template <class Enum>
std::string name_of(Enum e, const std::vector<std::string>& names) {
  return names[static_cast<std::size_t>(e)];
}

/// A finite decimal number above 0 (or from 0 where `zero_allowed`).
double parse_real(const std::string& text, bool zero_allowed) {
  double v = 0;
  const auto [end, status] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || status != std::errc() || end != text.data() + text.size() || !std::isfinite(v) || v < 0 ||
      (v == 0 && !zero_allowed))
    throw std::invalid_argument("'" + text + "' is not a number " + (zero_allowed ? ">= 0" : "> 0"));
  return v;
}

void write_snapshot(const std::string& path, const bodies& b, std::uint64_t step, double time) {
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (!file) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
  bool written = std::fprintf(file, "# hpcoll_barnes_hut: %zu bodies after step %llu (t = %.17g): x y z m\n", b.size(),
                              static_cast<unsigned long long>(step), time) > 0;
  for (const point_mass& p : b.points)
    written = written && std::fprintf(file, "%.17g %.17g %.17g %.17g\n", p.x, p.y, p.z, p.m) > 0;
  if (std::fclose(file) != 0 || !written)
    throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
}

/// Total energy (kinetic plus half the bodies' potential energies) and momentum.
struct invariants {
  double energy = 0;
  vec3 momentum{0, 0, 0};
};

invariants measure(const bodies& b, const std::vector<force>& forces) {
  invariants s;
  for (std::size_t i = 0; i < b.size(); ++i) {
    const point_mass& p = b.points[i];
    const vec3& v = b.velocities[i];
    s.energy += 0.5 * p.m * (v.x * v.x + v.y * v.y + v.z * v.z) + 0.5 * p.m * forces[i].potential;
    s.momentum.x += p.m * v.x, s.momentum.y += p.m * v.y, s.momentum.z += p.m * v.z;
  }
  return s;
}

double length(const vec3& v) { return std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z); }

void kick(bodies& b, const std::vector<force>& forces, double dt) {
  for (std::size_t i = 0; i < b.size(); ++i) {
    b.velocities[i].x += forces[i].ax * dt, b.velocities[i].y += forces[i].ay * dt,
        b.velocities[i].z += forces[i].az * dt;
  }
}

void drift(bodies& b, double dt) {
  for (std::size_t i = 0; i < b.size(); ++i) {
    b.points[i].x += b.velocities[i].x * dt, b.points[i].y += b.velocities[i].y * dt,
        b.points[i].z += b.velocities[i].z * dt;
  }
}

/// The forces on a random sample of bodies against direct summation.
force_error check_forces(const bodies& b, const std::vector<force>& forces, double eps, std::uint64_t seed) {
  std::mt19937_64 random(seed ^ 0x9e3779b97f4a7c15ull);
  const std::uint64_t sample = std::min<std::uint64_t>(check_sample, b.size());
  std::vector<force> approximate, reference;
  for (std::uint64_t s = 0; s < sample; ++s) {
    const std::size_t i = sample == b.size() ? s : random() % b.size();
    approximate.push_back(forces[i]);
    reference.push_back(direct_force(b.points, i, eps));
  }
  return compare_forces(approximate, reference);
}

/// The phases of a step: those of the force computation, then the rest of the step.
enum phase { mktree, bcast_phase, fcalc, gather_phase, others, phases };
const char* const phase_names[phases] = {"mktree", "bcast", "fcalc", "gather", "others"};

/// What rank 0 knows of one step (step 0: the initial forces).
struct step_record {
  double max_seconds[phases] = {};  ///< over ranks
  double total_seconds = 0;         ///< the slowest rank's step
  std::vector<double> fcalc;        ///< per rank
  std::uint64_t interactions = 0;   ///< all ranks'
  invariants state;
};

/// Rank 0's view of the step: the phases' maxima, every rank's fcalc, the interactions.
step_record collect(MPI_Comm comm, const double (&seconds)[phases], double total, std::uint64_t interactions,
                    int rank, int size) {
  step_record r;
  double mine[phases + 1];
  std::copy(seconds, seconds + phases, mine);
  mine[phases] = total;
  double max[phases + 1];
  MPI_Reduce(mine, max, phases + 1, MPI_DOUBLE, MPI_MAX, 0, comm);
  r.fcalc.resize(rank == 0 ? size : 0);
  MPI_Gather(&seconds[fcalc], 1, MPI_DOUBLE, r.fcalc.data(), 1, MPI_DOUBLE, 0, comm);
  MPI_Reduce(&interactions, &r.interactions, 1, MPI_UINT64_T, MPI_SUM, 0, comm);
  if (rank == 0) {
    std::copy(max, max + phases, r.max_seconds);
    r.total_seconds = max[phases];
  }
  return r;
}

double mean(const std::vector<double>& v) {
  double sum = 0;
  for (const double x : v) sum += x;
  return v.empty() ? 0 : sum / static_cast<double>(v.size());
}

void print_step_header() {
  std::printf("step      mktree     bcast     fcalc    gather    others     total  fcalc max/mean  "
              "interactions/s  energy error  momentum |P|\n");
}

void print_step(const std::string& label, const step_record& r, double energy0) {
  std::printf("%-6s", label.c_str());
  for (int p = 0; p < phases; ++p) std::printf(" %9.4f", r.max_seconds[p]);
  const double fcalc_mean = mean(r.fcalc);
  std::printf(" %9.4f  %14.3f  %14.4g  %12.3e  %12.3e\n", r.total_seconds,
              fcalc_mean > 0 ? r.max_seconds[fcalc] / fcalc_mean : 1.0,
              r.max_seconds[fcalc] > 0 ? static_cast<double>(r.interactions) / r.max_seconds[fcalc] : 0.0,
              (r.state.energy - energy0) / std::abs(energy0), length(r.state.momentum));
  std::fflush(stdout);
}

/// What rank 0 reports of a run.
struct summary {
  const options* o = nullptr;
  std::string command;
  int np = 1;
  std::vector<step_record> steps;  ///< steps[0]: the initial forces
  double setup_seconds = 0;        ///< generation and (allgatherv) the first broadcast of all bodies
  double total_seconds = 0;
  std::vector<collective_usage> collectives;  ///< rank 0's calls, the bytes of all ranks
  std::vector<hpcoll::schedule_count> schedules;
  std::optional<force_error> check;
  std::uint64_t hash = 0;

  double phase_total(int p) const {
    double sum = 0;
    for (const step_record& r : steps) sum += r.max_seconds[p];
    return sum;
  }
  std::vector<double> fcalc_per_rank() const {
    std::vector<double> sum(static_cast<std::size_t>(np), 0.0);
    for (const step_record& r : steps)
      for (std::size_t q = 0; q < sum.size(); ++q) sum[q] += r.fcalc[q];
    return sum;
  }
  std::uint64_t interactions() const {
    std::uint64_t sum = 0;
    for (const step_record& r : steps) sum += r.interactions;
    return sum;
  }
  /// Interactions per second of one worker: all of them over the workers' fcalc time.
  double rate_per_worker() const {
    std::vector<double> per_rank = fcalc_per_rank();
    double seconds = 0;
    for (const double s : per_rank) seconds += s;
    return seconds > 0 ? static_cast<double>(interactions()) / (seconds * o->parallel.workers) : 0;
  }
  const invariants& first() const { return steps.front().state; }
  const invariants& last() const { return steps.back().state; }
  double energy_drift() const { return (last().energy - first().energy) / std::abs(first().energy); }
};

std::string hash_text(std::uint64_t hash) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

std::string schedules_text(const summary& s) {
  if (s.o->parallel.library == collective_library::native) return "the MPI library's own collectives";
  const std::string text = hpcoll_bench::schedules_text(s.schedules);
  return text.empty() ? "none (one rank)" : text;
}

void print(const summary& s) {
  const options& o = *s.o;
  std::printf("total ");
  for (int p = 0; p < phases; ++p) std::printf(" %9.4f", s.phase_total(p));
  std::printf(" %9.4f   (max over ranks, per step, summed; setup %.4f s; run %.4f s)\n",
              [&] {
                double sum = 0;
                for (const step_record& r : s.steps) sum += r.total_seconds;
                return sum;
              }(),
              s.setup_seconds, s.total_seconds);
  const std::vector<double> per_rank = s.fcalc_per_rank();
  std::string per_rank_text;
  for (std::size_t q = 0; q < per_rank.size(); ++q) {
    char text[48];
    std::snprintf(text, sizeof text, "%s%zu: %.4f", q ? ", " : "", q, per_rank[q]);
    per_rank_text += text;
  }
  const double fcalc_mean = mean(per_rank);
  std::printf("fcalc s/rank %s (max/mean %.3f)\n", per_rank_text.c_str(),
              fcalc_mean > 0 ? *std::max_element(per_rank.begin(), per_rank.end()) / fcalc_mean : 1.0);
  std::string collectives;
  for (const collective_usage& c : s.collectives)
    collectives += (collectives.empty() ? "" : "; ") + c.name + " " + std::to_string(c.calls) + " calls, " +
                   std::to_string(c.bytes) + " bytes";
  std::printf("collectives  %s (bytes: sent by all ranks)\n", collectives.c_str());
  std::printf("schedules    %s\n", schedules_text(s).c_str());
  std::printf("interactions %llu body-cell and body-body; %.4g per second of the slowest rank's fcalc, %.4g per "
              "second per worker\n",
              static_cast<unsigned long long>(s.interactions()),
              s.phase_total(fcalc) > 0 ? static_cast<double>(s.interactions()) / s.phase_total(fcalc) : 0.0,
              s.rate_per_worker());
  std::printf("energy       %.12f at the start, %.12f at the end: drift %.3e (relative)\n", s.first().energy,
              s.last().energy, s.energy_drift());
  std::printf("momentum     |P| %.3e at the start, %.3e at the end\n", length(s.first().momentum),
              length(s.last().momentum));
  if (s.check)
    std::printf("check        force error over %llu bodies against direct summation: rms %.4f %%, max %.4f %%\n",
                static_cast<unsigned long long>(std::min<std::uint64_t>(check_sample, o.bodies)), 100 * s.check->rms,
                100 * s.check->max);
  std::printf("positions-hash: %s\n", hash_text(s.hash).c_str());
  std::fflush(stdout);
}

json::value to_json(const summary& s) {
  const options& o = *s.o;
  json::object doc = hpcoll_bench::run_json(program, s.command);
  const std::pair<const char*, json::value> members[] = {
      {"np", s.np},
      {"bodies", o.bodies},
      {"steps", o.steps},
      {"seed", o.seed},
      {"theta", o.parallel.theta},
      {"eps", o.parallel.eps},
      {"dt", o.dt},
      {"gather", name_of(o.parallel.gather, gather_names)},
      {"build", name_of(o.parallel.build, build_names)},
      {"balance", name_of(o.parallel.balance, balance_names)},
      {"workers", o.parallel.workers},
      {"collectives", name_of(o.parallel.library, library_names)},
      {"schedules", hpcoll_bench::schedules_json(s.schedules)}};
  for (const auto& [key, value] : members) doc.set(key, value);
  json::object collectives;
  for (const collective_usage& c : s.collectives)
    collectives.set(c.name, json::object{{"calls", c.calls}, {"bytes", c.bytes}});
  doc.set("collective_calls", collectives);
  json::array steps;
  for (std::size_t k = 0; k < s.steps.size(); ++k) {
    const step_record& r = s.steps[k];
    json::object row{{"step", k}, {"total_s", r.total_seconds}, {"interactions", r.interactions},
                     {"energy", r.state.energy}, {"momentum", length(r.state.momentum)}};
    for (int p = 0; p < phases; ++p) row.set(std::string(phase_names[p]) + "_s", r.max_seconds[p]);
    row.set("fcalc_per_rank_s", json::array(r.fcalc.begin(), r.fcalc.end()));
    steps.push_back(row);
  }
  doc.set("per_step", steps);
  json::object totals;
  for (int p = 0; p < phases; ++p) totals.set(phase_names[p], s.phase_total(p));
  totals.set("setup", s.setup_seconds);
  totals.set("run", s.total_seconds);
  doc.set("seconds", totals);
  const std::vector<double> per_rank = s.fcalc_per_rank();
  doc.set("fcalc_per_rank_s", json::array(per_rank.begin(), per_rank.end()));
  doc.set("interactions", json::object{{"total", s.interactions()},
                                       {"per_second", s.phase_total(fcalc) > 0 ? static_cast<double>(s.interactions()) /
                                                                                     s.phase_total(fcalc)
                                                                               : 0.0},
                                       {"per_second_per_worker", s.rate_per_worker()}});
  doc.set("energy", json::object{{"start", s.first().energy}, {"end", s.last().energy}, {"drift", s.energy_drift()}});
  doc.set("momentum", json::object{{"start", length(s.first().momentum)}, {"end", length(s.last().momentum)}});
  if (s.check) doc.set("check", json::object{{"sample", std::min<std::uint64_t>(check_sample, o.bodies)},
                                             {"rms", s.check->rms},
                                             {"max", s.check->max}});
  doc.set("positions_hash", hash_text(s.hash));
  return doc;
}

int run(int argc, char** argv, int thread_level) {
  const double start = MPI_Wtime();
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  options o;
  hpcoll_bench::command_line cl{program,
                                "usage: mpiexec -n P hpcoll_barnes_hut [options]\n"
                                "A Barnes-Hut N-body simulation of a Plummer sphere; docs/barnes_hut.md."};
  const auto real = [](bool zero_allowed) {
    return [=](const std::string& text) { return parse_real(text, zero_allowed); };
  };
  const auto choice = [](const std::vector<std::string>& names, auto enumerator) {
    return [&names](const std::string& text) { return parse_choice<decltype(enumerator)>(text, names); };
  };
  parallel_config& p = o.parallel;
  cl.options.add_options()
      ("bodies", hpcoll_bench::value_of(&o.bodies, "N", integer_in(1, std::numeric_limits<std::uint32_t>::max() - 1)),
       "bodies of the Plummer sphere (default 100000)")
      ("steps", hpcoll_bench::value_of(&o.steps, "S", integer_in(0, 1000000000)), "leapfrog steps (default 8)")
      ("seed", hpcoll_bench::value_of(&o.seed, "K", integer_in(0, UINT64_MAX)),
       "the initial conditions' seed (default 1)")
      ("theta", hpcoll_bench::value_of(&p.theta, "T", real(false)), "opening angle (default 0.5)")
      ("eps", hpcoll_bench::value_of(&p.eps, "E", real(true)), "Plummer softening length (default 0.01)")
      ("dt", hpcoll_bench::value_of(&o.dt, "DT", real(false)), "time step (default 0.01)")
      ("gather", hpcoll_bench::value_of(&p.gather, "NAME", choice(gather_names, gather_kind{})),
       "gatherv (default: counts, then the records to rank 0), reduce (full arrays summed on rank 0) or "
       "allgatherv (every rank gets every force and integrates)")
      ("build", hpcoll_bench::value_of(&p.build, "NAME", choice(build_names, build_kind{})),
       "root (default: rank 0 builds the tree alone and broadcasts it) or parallel (every rank builds it with "
       "its workers)")
      ("balance", hpcoll_bench::value_of(&p.balance, "NAME", choice(balance_names, balance_kind{})),
       "dynamic (default: tasks from a shared counter) or static (equal blocks of bodies)")
      ("workers", hpcoll_bench::value_of(&p.workers, "W", [](const std::string& text) {
         return static_cast<int>(parse_integer(text, 1, 1024));
       }), "threads per rank (default 1)")
      ("collectives", hpcoll_bench::value_of(&p.library, "LIB", choice(library_names, collective_library{})),
       "hpcoll (default: hpcoll's bcast, gather, gatherv, reduce, allgather, allgatherv) or native (the MPI library's)")
      ("check", po::bool_switch(&o.check),
       "compare the initial forces of a sample of bodies with direct summation")
      ("json", po::value(&o.json)->value_name("FILE"), "write the summary as JSON")
      ("snapshot", po::value(&o.snapshot)->value_name("FILE"), "write the positions and masses after a step")
      ("snapshot-step", hpcoll_bench::value_of(&o.snapshot_step, "S", integer_in(0, 1000000000)),
       "the step --snapshot writes (default: the last; 0: the initial conditions)");
  cl.notes = "Every run ends with 'positions-hash: H', a 64-bit hash of the final positions, the same for every np,\n"
             "gather, build, balance and number of workers.\n";
  // Errors on every rank (each exits with them); --help once.
  const bool report = rank == 0 || !hpcoll_bench::asks_for_help(argc, argv);
  const auto parsed = hpcoll_bench::parse_command_line(argc, argv, cl, report, [&] {
    if (o.snapshot_step && o.snapshot.empty()) throw std::invalid_argument("--snapshot-step is for --snapshot");
    if (o.snapshot_step && *o.snapshot_step > o.steps)
      throw std::invalid_argument("--snapshot-step " + std::to_string(*o.snapshot_step) + " is after the last step, " +
                                  std::to_string(o.steps));
    // The workers of a rank take tasks from the shared counter one at a time (an OpenMP critical section).
    if (p.workers > 1 && p.balance == balance_kind::dynamic && thread_level < MPI_THREAD_SERIALIZED)
      throw std::invalid_argument("--workers above 1 with --balance dynamic needs MPI_THREAD_SERIALIZED, which this "
                                  "MPI library does not provide");
  });
  if (parsed.exit) return *parsed.exit;

  summary s;
  s.o = &o;
  s.np = size;
  s.command = hpcoll_bench::command_text(argc, argv);

  // ---- setup: rank 0 makes the bodies; with allgatherv every rank gets them --------------------
  parallel_forces engine(MPI_COMM_WORLD, p);
  bodies b;
  std::string problem = hpcoll_bench::on_rank0(rank, [&] {
    for (const std::string* path : {&o.json, &o.snapshot}) hpcoll_bench::check_writable(*path);
    b = plummer(o.bodies, o.seed);
  });
  if (hpcoll_bench::failed_on_rank0(program, problem)) return 1;
  b.points.resize(o.bodies);  // every rank: the broadcasts' buffers
  if (engine.integrates()) b.velocities.resize(o.bodies);
  if (p.gather == gather_kind::allgatherv) engine.share_bodies(b);
  std::vector<force> forces(engine.integrates() ? o.bodies : 0);
  const std::uint64_t snapshot_step = o.snapshot_step.value_or(o.steps);
  MPI_Barrier(MPI_COMM_WORLD);
  s.setup_seconds = MPI_Wtime() - start;
  if (rank == 0) {
    std::printf("bodies       %llu, Plummer sphere (seed %llu); theta %g, eps %g, dt %g, %llu steps\n",
                static_cast<unsigned long long>(o.bodies), static_cast<unsigned long long>(o.seed), p.theta, p.eps,
                o.dt, static_cast<unsigned long long>(o.steps));
    std::printf("run          np %d, workers %d, gather %s, build %s, balance %s, collectives %s\n", size, p.workers,
                name_of(p.gather, gather_names).c_str(), name_of(p.build, build_names).c_str(),
                name_of(p.balance, balance_names).c_str(), name_of(p.library, library_names).c_str());
  }

  // ---- steps: 0 computes the initial forces; then kick, drift, forces, kick ---------------------
  for (std::uint64_t step = 0; step <= o.steps; ++step) {
    const double step_start = MPI_Wtime();
    if (step > 0 && engine.integrates()) {
      kick(b, forces, o.dt / 2);
      drift(b, o.dt);
    }
    phase_seconds phase;
    const std::uint64_t interactions = engine.compute(b.points, forces, phase);
    invariants state;
    if (engine.integrates()) {
      if (step > 0) kick(b, forces, o.dt / 2);
      state = measure(b, forces);
    }
    const double total = MPI_Wtime() - step_start;
    if (step == 0 && o.check && rank == 0) s.check = check_forces(b, forces, p.eps, o.seed);  // not timed
    const double seconds[phases] = {phase.mktree, phase.bcast, phase.fcalc, phase.gather,
                                    total - phase.mktree - phase.bcast - phase.fcalc - phase.gather};
    step_record r = collect(MPI_COMM_WORLD, seconds, total, interactions, rank, size);
    if (rank == 0) {
      r.state = state;
      if (step == 0) print_step_header();
      print_step(step == 0 ? "init" : std::to_string(step), r, step == 0 ? state.energy : s.first().energy);
      s.steps.push_back(r);
    }
    if (!o.snapshot.empty() && step == snapshot_step) {
      problem = hpcoll_bench::on_rank0(rank, [&] { write_snapshot(o.snapshot, b, step, o.dt * step); });
      if (hpcoll_bench::failed_on_rank0(program, problem)) return 1;
    }
  }

  // ---- summary: rank 0 prints it and writes the JSON -------------------------------------------
  s.total_seconds = MPI_Wtime() - start;
  s.collectives = engine.collectives();
  std::vector<std::uint64_t> bytes, all_bytes(s.collectives.size());
  for (const collective_usage& c : s.collectives) bytes.push_back(c.bytes);
  MPI_Reduce(bytes.data(), all_bytes.data(), static_cast<int>(bytes.size()), MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  for (std::size_t c = 0; c < s.collectives.size(); ++c) s.collectives[c].bytes = all_bytes[c];
  s.schedules = engine.schedules();
  problem = hpcoll_bench::on_rank0(rank, [&] {
    s.hash = positions_hash(b);
    print(s);
    if (!o.json.empty()) json::write_file(o.json, to_json(s));
  });
  return hpcoll_bench::failed_on_rank0(program, problem) ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  return hpcoll_bench::run_main(argc, argv, program, MPI_THREAD_SERIALIZED, run);
}
