// SPDX-License-Identifier: BSD-3-Clause
// hpcoll_crossover: which schedule wins where, by the network simulator
// (hpcoll/simulate.hpp) — no MPI, one process, any communicator size.
//
//   hpcoll_crossover [--alpha=S] [--beta=S] [--gamma=S] [--gap=S] [--overhead=S] [--copy=S]
//                    [--collectives=allreduce,bcast,allgather,alltoall] [--p=2,3,4,...]
//                    [--sizes=MIN:MAX[:FACTOR]] [--elem=BYTES] [--budget=SECONDS]
//                    [--no-refine] [--out=FILE.json] [--out=FILE.md]
//
// Machine parameters default to hpcoll::machine{} (seconds, seconds per byte).
// For every collective, communicator size p and message size it simulates
// each candidate schedule and prints the fastest; where the fastest changes
// between two neighbouring sizes it bisects the element count to find the
// crossover (to 1/64 of the size, unless --no-refine). Sizes follow MPI's
// count convention: the vector for bcast and allreduce, the block each rank
// contributes for allgather, the block per destination for alltoall; elements
// are --elem bytes (default 4). A candidate whose simulation at p is
// estimated to take longer than --budget seconds (default 3) is skipped and
// said so: O(p²)-message schedules (ring, pairwise, linear allgather and
// alltoall) stop at a few thousand ranks. --out writes the results as JSON
// (.json) or as markdown tables (.md); both may be given.
#include <hpcoll/analysis/simulate.hpp>
#include <hpcoll/plan/machine.hpp>
#include <hpcoll/schedule/all.hpp>

#include "json_out.hpp"
#include "options.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace S = hpcoll::schedule;
namespace json = hpcoll_bench::json;
using hpcoll_bench::human_bytes;

// ---- candidates ----------------------------------------------------------

/// How the simulation of a candidate grows with p (for skipping).
struct work {
  double messages = 0;     ///< messages simulated
  double steps = 0;        ///< local steps emitted (copies of Bruck's alltoall)
  double in_flight = 0;    ///< messages queued at once (memory)
};

struct candidate {
  std::string name;   ///< hpcoll's schedule name
  std::string label;  ///< short name for tables
  std::function<hpcoll::simulation(int p, std::size_t count, std::size_t elem, const hpcoll::machine&)> run;
  std::function<work(double p)> estimate;
};

struct collective {
  std::string name;
  std::string size_rule;
  std::vector<candidate> candidates;
};

double lg(double p) { return std::max(1.0, std::ceil(std::log2(p))); }

template <class Sch, class Make>
candidate make(std::string label, Make shape, std::function<work(double)> estimate) {
  return {hpcoll::schedule_name<Sch>(), std::move(label),
          [shape](int p, std::size_t count, std::size_t elem, const hpcoll::machine& m) {
            return hpcoll::simulate<Sch>(shape(p, count, elem), m);
          },
          std::move(estimate)};
}

std::vector<collective> all_collectives() {
  const auto bcast = [](int p, std::size_t n, std::size_t e) { return hpcoll::bcast_shape{0, p, 0, n, e}; };
  const auto allreduce = [](int p, std::size_t n, std::size_t e) {
    return hpcoll::allreduce_shape{0, p, n, true, false, e};
  };
  const auto allgather = [](int p, std::size_t n, std::size_t e) { return hpcoll::allgather_shape{0, p, n, false, e}; };
  const auto alltoall = [](int p, std::size_t n, std::size_t e) { return hpcoll::alltoall_shape{0, p, n, false, e}; };
  const auto linear_in_p = [](double k) { return [k](double p) { return work{k * p, 0, k * p}; }; };
  const auto p_log_p = [](double k) { return [k](double p) { return work{k * p * lg(p), 0, k * p}; }; };
  const auto quadratic = [](double k) { return [k](double p) { return work{k * p * p, 0, 2 * p}; }; };
  const auto all_at_once = [](double p) { return work{p * p, 0, p * p}; };
  return {
      {"allreduce",
       "vector bytes",
       {make<S::recursive_doubling>("rd", allreduce, p_log_p(1)), make<S::ring>("ring", allreduce, quadratic(2)),
        make<S::rabenseifner>("rab", allreduce, p_log_p(2)),
        make<S::reduce_bcast<S::binomial, S::binomial>>("red+bc", allreduce, linear_in_p(2))}},
      {"bcast",
       "vector bytes",
       {make<S::binomial>("bin", bcast, linear_in_p(1)), make<S::linear>("lin", bcast, linear_in_p(1)),
        make<S::scatter_ring_allgather>("sc+ring", bcast, quadratic(1)),
        make<S::scatter_recursive_doubling_allgather>("sc+rd", bcast, p_log_p(1))}},
      {"allgather",
       "block bytes per rank",
       {make<S::ring>("ring", allgather, quadratic(1)), make<S::recursive_doubling>("rd", allgather, p_log_p(1)),
        make<S::bruck>("bruck", allgather, p_log_p(1)), make<S::linear>("lin", allgather, all_at_once)}},
      {"alltoall",
       "block bytes per destination",
       {make<S::linear>("lin", alltoall, all_at_once), make<S::pairwise>("pair", alltoall, quadratic(1)),
        make<S::bruck>("bruck", alltoall, [](double p) { return work{p * lg(p), 2 * p * p, p}; })}},
  };
}

/// Estimated seconds of one simulation on this kind of machine (measured on
/// the development machine: about 250 ns per message, 6 ns per local step,
/// slower when every message of the call is queued at once).
double estimated_seconds(const work& w) {
  const double per_message = w.in_flight > 1e6 ? 400e-9 : 250e-9;
  return w.messages * per_message + w.steps * 6e-9;
}

// ---- options -------------------------------------------------------------

struct options {
  hpcoll::machine m{};
  std::vector<std::string> collectives{"allreduce", "bcast", "allgather", "alltoall"};
  std::vector<int> ps{2,   3,    4,    6,    8,    12,   16,   17,   32,    64,    100,   128,   256,  512,
                      1000, 1024, 2048, 4096, 8192, 10000, 16384, 32768, 65535, 65536};
  hpcoll_bench::size_range sizes{8, std::size_t{64} << 20, 4};
  std::size_t elem = 4;
  double budget = 3;
  bool no_refine = false;
  std::vector<std::string> outs;
  std::string command;
};

std::vector<std::string> parse_collectives(const std::string& text) {
  return hpcoll_bench::parse_names(text, {"allreduce", "bcast", "allgather", "alltoall"});
}

/// --sizes: MIN:MAX[:FACTOR], MIN at least 1.
hpcoll_bench::size_range parse_grid(const std::string& text) {
  const hpcoll_bench::size_range r = hpcoll_bench::parse_size_range(text, true);
  if (r.min == 0) throw std::invalid_argument("'" + text + "': MIN must be at least 1");
  return r;
}

/// --elem: at least one byte.
std::size_t parse_elem(const std::string& text) {
  const std::size_t e = hpcoll_bench::parse_bytes(text);
  if (e == 0) throw std::invalid_argument("must be at least 1");
  return e;
}

/// The command line, its values stored in o.
hpcoll_bench::command_line command_line_for(options& o) {
  namespace po = hpcoll_bench::po;
  hpcoll_bench::command_line cl{"hpcoll_crossover", "usage: hpcoll_crossover [options]   (no MPI: the simulator)"};
  const auto seconds = [](double* store, const char* name) {
    return hpcoll_bench::value_of(store, name, hpcoll_bench::parse_nonnegative);
  };
  cl.options.add_options()
      ("alpha", seconds(&o.m.alpha, "S"), "latency, seconds (default hpcoll::machine{}; likewise below)")
      ("beta", seconds(&o.m.beta, "S"), "seconds per byte sent")
      ("gamma", seconds(&o.m.gamma, "S"), "seconds per byte reduced")
      ("gap", seconds(&o.m.gap, "S"), "seconds between two messages' injections")
      ("overhead", seconds(&o.m.overhead, "S"), "CPU seconds per message at each end")
      ("copy", seconds(&o.m.copy, "S"), "seconds per byte copied locally")
      ("collectives", hpcoll_bench::value_of(&o.collectives, "a,b", parse_collectives),
       "any of allreduce, bcast, allgather, alltoall (default all)")
      ("p", hpcoll_bench::value_of(&o.ps, "2,3,4,...", hpcoll_bench::parse_rank_counts),
       "communicator sizes (default 2 .. 65536, 24 of them)")
      ("sizes", hpcoll_bench::value_of(&o.sizes, "MIN:MAX[:FACTOR]", parse_grid),
       "message sizes in bytes from MIN by FACTOR (default 4) up to MAX, MAX always included; e.g. 1Ki:16Mi:2 "
       "(default 8:64Mi)")
      ("elem", hpcoll_bench::value_of(&o.elem, "BYTES", parse_elem), "bytes per element (default 4)")
      ("budget", seconds(&o.budget, "SECONDS"),
       "a candidate whose simulation is estimated to take longer is skipped (default 3)")
      ("no-refine", po::bool_switch(&o.no_refine), "no bisection of the crossovers (grid sizes only)")
      ("out", po::value(&o.outs)->composing()->value_name("FILE.json|FILE.md"),
       "write the results as JSON (.json) or markdown tables (.md); repeatable");
  return cl;
}

// ---- the sweep -----------------------------------------------------------

/// Candidates within this relative distance of the fastest tie with it.
constexpr double tie = 1e-9;

struct crossover {
  std::size_t bytes;  ///< the first size at which `to` wins
  std::string from, to;  ///< fastest candidates, ties joined by " = "
};

/// One (collective, p) row.
struct row {
  int p = 0;
  std::vector<std::size_t> sizes;                     ///< bytes
  std::vector<std::string> winner;                    ///< per size, the fastest candidate (ties joined by " = ")
  std::map<std::string, std::vector<double>> seconds;  ///< per candidate, per size
  std::map<std::string, std::string> skipped;         ///< candidate → reason
  std::map<std::string, double> wall;                 ///< candidate → slowest simulation, seconds
  std::vector<crossover> crossovers;
};

struct result {
  const collective* c;
  std::vector<row> rows;
};

std::string human_seconds(double s) {
  char text[32];
  if (s < 1e-3) std::snprintf(text, sizeof text, "%.3g us", s * 1e6);
  else if (s < 1) std::snprintf(text, sizeof text, "%.3g ms", s * 1e3);
  else std::snprintf(text, sizeof text, "%.3g s", s);
  return text;
}

row sweep(const collective& c, int p, const options& o) {
  row r;
  r.p = p;
  for (const std::size_t b : hpcoll_bench::range_sizes(o.sizes, o.sizes.min)) {
    r.sizes.push_back(b);
    if (b > o.sizes.max / o.sizes.factor && b != o.sizes.max) r.sizes.push_back(o.sizes.max);
  }
  std::vector<const candidate*> live;
  for (const candidate& k : c.candidates) {
    const work w = k.estimate(p);
    const double est = estimated_seconds(w);
    if (est > o.budget) {
      r.skipped[k.name] = "estimated " + human_seconds(est) + " per simulation (" +
                          std::to_string(static_cast<long long>(w.messages + w.steps)) + " messages and steps) > --budget";
      continue;
    }
    live.push_back(&k);
  }
  // The time of candidate k at `count` elements, timing the simulation.
  const auto time_of = [&](const candidate& k, std::size_t count) {
    const auto t0 = std::chrono::steady_clock::now();
    const double s = k.run(p, count, o.elem, o.m).seconds;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.wall[k.name] = std::max(r.wall[k.name], wall);
    return s;
  };
  // The fastest candidates at `count` elements (ties joined by " = ").
  const auto fastest = [&](std::size_t count, bool record) {
    std::vector<double> secs;
    for (const candidate* k : live) {
      secs.push_back(time_of(*k, count));
      if (record) r.seconds[k->name].push_back(secs.back());
    }
    const double best = secs.empty() ? 0 : *std::min_element(secs.begin(), secs.end());
    std::string names;
    for (std::size_t i = 0; i < live.size(); ++i)
      if (secs[i] <= best * (1 + tie)) names += (names.empty() ? "" : " = ") + live[i]->name;
    return names;
  };
  std::vector<std::size_t> counts;
  for (std::size_t b : r.sizes) counts.push_back(std::max<std::size_t>(1, b / o.elem));
  for (std::size_t i = 0; i < r.sizes.size(); ++i) r.winner.push_back(fastest(counts[i], true));
  // Between two grid sizes with different winners, bisect for the first
  // count where `from` stops winning; repeat from there while the winner
  // found is not yet the grid's next one (a third candidate, or a tie).
  for (std::size_t i = 0; i + 1 < r.sizes.size(); ++i) {
    std::size_t lo = counts[i];
    std::string from = r.winner[i];
    while (from != r.winner[i + 1]) {
      std::size_t hi = counts[i + 1];  // fastest(lo) = from, fastest(hi) = to
      std::string to = r.winner[i + 1];
      while (!o.no_refine && hi - lo > std::max<std::size_t>(1, lo / 64)) {
        const std::size_t mid = lo + (hi - lo) / 2;
        const std::string w = fastest(mid, false);
        if (w == from) lo = mid;
        else hi = mid, to = w;
      }
      r.crossovers.push_back({hi * o.elem, from, to});
      lo = hi;
      from = to;
    }
  }
  return r;
}

// ---- output --------------------------------------------------------------

/// Short labels of candidate names (ties "a = b" become "a=b").
std::string label_of(const collective& c, const std::string& names) {
  if (names.empty()) return "-";  // nothing simulated
  std::string out;
  std::size_t at = 0;
  while (at <= names.size()) {
    std::size_t next = names.find(" = ", at);
    if (next == std::string::npos) next = names.size();
    const std::string name = names.substr(at, next - at);
    std::string label = name;
    for (const candidate& k : c.candidates)
      if (k.name == name) label = k.label;
    out += (out.empty() ? "" : "=") + label;
    at = next + 3;
  }
  return out;
}

/// "rd, rab from 10.7 KiB, ring from 9.22 MiB".
std::string ranges(const collective& c, const row& r) {
  if (r.winner.empty()) return "-";
  std::string s = label_of(c, r.winner.front());
  for (const crossover& x : r.crossovers) s += ", " + label_of(c, x.to) + " from " + human_bytes(x.bytes);
  return s;
}

void print_text(const std::vector<result>& results, const options& o) {
  std::printf("hpcoll_crossover: machine alpha=%g beta=%g gamma=%g gap=%g overhead=%g copy=%g; elements of %zu B\n",
              o.m.alpha, o.m.beta, o.m.gamma, o.m.gap, o.m.overhead, o.m.copy, o.elem);
  for (const result& res : results) {
    const collective& c = *res.c;
    std::printf("\n== %s (size = %s) ==\n", c.name.c_str(), c.size_rule.c_str());
    std::printf("candidates:");
    for (const candidate& k : c.candidates) std::printf(" %s = %s;", k.label.c_str(), k.name.c_str());
    std::printf("\n%8s", "p");
    if (!res.rows.empty())
      for (std::size_t b : res.rows.front().sizes) std::printf(" %8s", human_bytes(b).c_str());
    std::printf("\n");
    for (const row& r : res.rows) {
      std::printf("%8d", r.p);
      for (const std::string& w : r.winner) std::printf(" %8s", label_of(c, w).c_str());
      std::printf("\n");
    }
    std::printf("crossovers (the fastest schedule, from the smallest size up):\n");
    for (const row& r : res.rows) {
      std::printf("%8d  %s\n", r.p, ranges(c, r).c_str());
      for (const auto& [name, why] : r.skipped) std::printf("          skipped %s: %s\n", name.c_str(), why.c_str());
    }
    std::printf("slowest simulation per candidate:\n");
    for (const row& r : res.rows) {
      std::printf("%8d", r.p);
      for (const candidate& k : c.candidates) {
        const auto w = r.wall.find(k.name);
        std::printf("  %s %s", k.label.c_str(), w == r.wall.end() ? "skipped" : human_seconds(w->second).c_str());
      }
      std::printf("\n");
    }
  }
}

/// A map's entries as a JSON object, in key order.
template <class Map, class Value>
json::value object_of(const Map& map, Value value) {
  json::object out;
  for (const auto& [key, v] : map) out.set(key, value(v));
  return out;
}

void write_json(const std::vector<result>& results, const options& o, const std::string& path) {
  json::array collectives;
  for (const result& res : results) {
    json::array candidates;
    for (const candidate& k : res.c->candidates) candidates.push_back(k.name);
    json::array rows;
    for (const row& r : res.rows) {
      json::array crossovers;
      for (const crossover& x : r.crossovers)
        crossovers.push_back(json::object{{"bytes", x.bytes}, {"from", x.from}, {"to", x.to}});
      const auto numbers = [](const std::vector<double>& v) { return json::array(v.begin(), v.end()); };
      const auto same = [](const auto& v) { return json::value(v); };
      rows.push_back(json::object{{"p", r.p},
                                  {"bytes", json::array(r.sizes.begin(), r.sizes.end())},
                                  {"fastest", json::array(r.winner.begin(), r.winner.end())},
                                  {"seconds", object_of(r.seconds, numbers)},
                                  {"crossovers", std::move(crossovers)},
                                  {"skipped", object_of(r.skipped, same)},
                                  {"simulation_seconds", object_of(r.wall, same)}});
    }
    collectives.push_back(json::object{{"collective", res.c->name},
                                       {"size", res.c->size_rule},
                                       {"candidates", std::move(candidates)},
                                       {"rows", std::move(rows)}});
  }
  const json::value doc = json::object{
      {"command", o.command},
      {"machine", json::object{{"alpha", o.m.alpha}, {"beta", o.m.beta}, {"gamma", o.m.gamma}, {"gap", o.m.gap},
                               {"overhead", o.m.overhead}, {"copy", o.m.copy}}},
      {"elem_bytes", o.elem},
      {"collectives", std::move(collectives)}};
  json::write_file(path, doc);
}

void write_markdown(const std::vector<result>& results, const options& o, const std::string& path) {
  std::ofstream f(path);
  if (!f) throw std::runtime_error("cannot write " + path);
  f << "<!-- written by: " << o.command << " -->\n";
  f << "Machine: alpha = " << o.m.alpha << " s, beta = " << o.m.beta << " s/B, gamma = " << o.m.gamma
    << " s/B, gap = " << o.m.gap << " s, overhead = " << o.m.overhead << " s, copy = " << o.m.copy
    << " s/B; elements of " << o.elem << " B.\n";
  for (const result& res : results) {
    const collective& c = *res.c;
    f << "\n### " << c.name << " (size: " << c.size_rule << ")\n\n";
    for (const candidate& k : c.candidates) f << "`" << k.label << "` = `" << k.name << "`; ";
    f << "\n\n| p |";
    const auto& sizes = res.rows.empty() ? std::vector<std::size_t>{} : res.rows.front().sizes;
    for (std::size_t b : sizes) f << " " << human_bytes(b) << " |";
    f << " crossovers |\n| ---: |";
    for (std::size_t i = 0; i < sizes.size(); ++i) f << " --- |";
    f << " --- |\n";
    for (const row& r : res.rows) {
      f << "| " << r.p << (r.skipped.empty() ? "" : "*") << " |";
      for (const std::string& w : r.winner) f << " " << label_of(c, w) << " |";
      f << " " << ranges(c, r);
      if (!r.skipped.empty()) {
        f << " (not simulated:";
        for (const auto& [name, why] : r.skipped) f << " " << label_of(c, name);
        f << ")";
      }
      f << " |\n";
    }
    f << "\n*: some candidates were not simulated at this p (estimated over --budget); the table is the fastest of the "
         "others.\n\nSlowest simulation of each candidate (wall time of one simulate() call, over the sizes above):\n\n| p |";
    for (const candidate& k : c.candidates) f << " " << k.label << " |";
    f << "\n| ---: |";
    for (std::size_t i = 0; i < c.candidates.size(); ++i) f << " ---: |";
    f << "\n";
    for (const row& r : res.rows) {
      f << "| " << r.p << " |";
      for (const candidate& k : c.candidates) {
        const auto w = r.wall.find(k.name);
        f << " " << (w == r.wall.end() ? std::string("—") : human_seconds(w->second)) << " |";
      }
      f << "\n";
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  const hpcoll_bench::command_line cl = command_line_for(o);
  const auto parsed = hpcoll_bench::parse_command_line(argc, argv, cl, true, [&] {
    for (const std::string& path : o.outs)
      if (!path.ends_with(".json") && !path.ends_with(".md"))
        throw std::invalid_argument("--out: '" + path + "' should end in .json or .md");
  });
  if (parsed.exit) return *parsed.exit;
  o.command = "hpcoll_crossover";
  if (argc > 1) o.command += " " + hpcoll_bench::command_text(argc - 1, argv + 1);
  try {
    const std::vector<collective> all = all_collectives();
    std::vector<result> results;
    for (const std::string& name : o.collectives) {
      const collective& c = *std::find_if(all.begin(), all.end(), [&](const collective& x) { return x.name == name; });
      result res{&c, {}};
      for (int p : o.ps) {
        res.rows.push_back(sweep(c, p, o));
        std::fprintf(stderr, "%s p=%d: %s\n", c.name.c_str(), p, ranges(c, res.rows.back()).c_str());
      }
      results.push_back(std::move(res));
    }
    print_text(results, o);
    for (const std::string& path : o.outs) {
      if (path.ends_with(".json")) write_json(results, o, path);
      else write_markdown(results, o, path);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hpcoll_crossover: %s\n", e.what());
    return 1;
  }
  return 0;
}
