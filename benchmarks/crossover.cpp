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
#include <hpcoll/machine.hpp>
#include <hpcoll/schedules.hpp>
#include <hpcoll/simulate.hpp>

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

struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

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
  std::size_t min_bytes = 8, max_bytes = std::size_t{64} << 20, factor = 4;
  std::size_t elem = 4;
  double budget = 3;
  bool refine = true;
  std::vector<std::string> outs;
  std::string command;
};

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (true) {
    const std::size_t next = s.find(sep, at);
    out.emplace_back(s.substr(at, next - at));
    if (next == std::string_view::npos) return out;
    at = next + 1;
  }
}

double parse_double(const std::string& flag, const std::string& text) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !(v >= 0)) throw usage_error(flag + ": '" + text + "' is not a number >= 0");
  return v;
}

/// 8, 64Ki, 1Mi, 2Gi (binary suffixes), or plain bytes.
std::size_t parse_bytes(const std::string& flag, const std::string& text) {
  std::size_t used = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  const std::string suffix = used ? text.substr(used) : "";
  const std::map<std::string, int> shifts{{"", 0}, {"Ki", 10}, {"Mi", 20}, {"Gi", 30}, {"K", 10}, {"M", 20}, {"G", 30}};
  const auto s = shifts.find(suffix);
  if (used == 0 || s == shifts.end()) throw usage_error(flag + ": '" + text + "' is not a byte count (8, 64Ki, 1Mi)");
  return static_cast<std::size_t>(v) << s->second;
}

options parse(int argc, char** argv) {
  options o;
  o.command = "hpcoll_crossover";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    o.command += " " + a;
    const auto eq = a.find('=');
    const std::string flag = a.substr(0, eq);
    const std::string val = eq == std::string::npos ? "" : a.substr(eq + 1);
    if (flag == "--help" || flag == "-h") throw usage_error("");
    else if (flag == "--alpha") o.m.alpha = parse_double(flag, val);
    else if (flag == "--beta") o.m.beta = parse_double(flag, val);
    else if (flag == "--gamma") o.m.gamma = parse_double(flag, val);
    else if (flag == "--gap") o.m.gap = parse_double(flag, val);
    else if (flag == "--overhead") o.m.overhead = parse_double(flag, val);
    else if (flag == "--copy") o.m.copy = parse_double(flag, val);
    else if (flag == "--budget") o.budget = parse_double(flag, val);
    else if (flag == "--no-refine") o.refine = false;
    else if (flag == "--out" && !val.empty()) o.outs.push_back(val);
    else if (flag == "--elem") {
      o.elem = parse_bytes(flag, val);
      if (o.elem == 0) throw usage_error("--elem must be at least 1");
    } else if (flag == "--collectives") {
      o.collectives = split(val, ',');
    } else if (flag == "--p") {
      o.ps.clear();
      for (const auto& t : split(val, ',')) {
        const double p = parse_double(flag, t);
        if (p < 1 || p > 1 << 30 || p != std::floor(p)) throw usage_error("--p: '" + t + "' is not a rank count");
        o.ps.push_back(static_cast<int>(p));
      }
    } else if (flag == "--sizes") {
      const auto parts = split(val, ':');
      if (parts.size() < 2 || parts.size() > 3) throw usage_error("--sizes needs MIN:MAX or MIN:MAX:FACTOR");
      o.min_bytes = parse_bytes(flag, parts[0]);
      o.max_bytes = parse_bytes(flag, parts[1]);
      if (parts.size() == 3) o.factor = parse_bytes(flag, parts[2]);
      if (o.min_bytes == 0 || o.max_bytes < o.min_bytes || o.factor < 2)
        throw usage_error("--sizes: need 0 < MIN <= MAX and FACTOR >= 2");
    } else {
      throw usage_error("unknown argument '" + a + "'");
    }
  }
  for (const auto& c : o.collectives)
    if (c != "allreduce" && c != "bcast" && c != "allgather" && c != "alltoall")
      throw usage_error("--collectives: '" + c + "' is not one of allreduce, bcast, allgather, alltoall");
  return o;
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

/// 8 B, 64 KiB, 9.22 MiB: the largest binary unit, three digits.
std::string human_bytes(std::size_t b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  double v = static_cast<double>(b);
  while (v >= 1024 && u < 4) v /= 1024, ++u;
  char text[32];
  std::snprintf(text, sizeof text, v == std::floor(v) ? "%.0f %s" : "%.3g %s", v, units[u]);
  return text;
}

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
  for (std::size_t b = o.min_bytes; b <= o.max_bytes; b *= o.factor) {
    r.sizes.push_back(b);
    if (b > o.max_bytes / o.factor && b != o.max_bytes) r.sizes.push_back(o.max_bytes);
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
      while (o.refine && hi - lo > std::max<std::size_t>(1, lo / 64)) {
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

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "\"";
}

std::string json_number(double v) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

void write_json(const std::vector<result>& results, const options& o, const std::string& path) {
  std::ofstream f(path);
  if (!f) throw std::runtime_error("cannot write " + path);
  f << "{\n  \"command\": " << json_string(o.command) << ",\n";
  f << "  \"machine\": {\"alpha\": " << json_number(o.m.alpha) << ", \"beta\": " << json_number(o.m.beta)
    << ", \"gamma\": " << json_number(o.m.gamma) << ", \"gap\": " << json_number(o.m.gap)
    << ", \"overhead\": " << json_number(o.m.overhead) << ", \"copy\": " << json_number(o.m.copy) << "},\n";
  f << "  \"elem_bytes\": " << o.elem << ",\n  \"collectives\": [";
  for (std::size_t ci = 0; ci < results.size(); ++ci) {
    const result& res = results[ci];
    f << (ci ? ",\n" : "\n") << "    {\"collective\": " << json_string(res.c->name)
      << ", \"size\": " << json_string(res.c->size_rule) << ", \"candidates\": [";
    for (std::size_t k = 0; k < res.c->candidates.size(); ++k)
      f << (k ? ", " : "") << json_string(res.c->candidates[k].name);
    f << "],\n     \"rows\": [";
    for (std::size_t ri = 0; ri < res.rows.size(); ++ri) {
      const row& r = res.rows[ri];
      f << (ri ? ",\n" : "\n") << "       {\"p\": " << r.p << ", \"bytes\": [";
      for (std::size_t i = 0; i < r.sizes.size(); ++i) f << (i ? ", " : "") << r.sizes[i];
      f << "], \"fastest\": [";
      for (std::size_t i = 0; i < r.winner.size(); ++i) f << (i ? ", " : "") << json_string(r.winner[i]);
      f << "],\n        \"seconds\": {";
      bool first = true;
      for (const auto& [name, v] : r.seconds) {
        f << (first ? "" : ", ") << json_string(name) << ": [";
        for (std::size_t i = 0; i < v.size(); ++i) f << (i ? ", " : "") << json_number(v[i]);
        f << "]";
        first = false;
      }
      f << "},\n        \"crossovers\": [";
      for (std::size_t i = 0; i < r.crossovers.size(); ++i)
        f << (i ? ", " : "") << "{\"bytes\": " << r.crossovers[i].bytes << ", \"from\": " << json_string(r.crossovers[i].from)
          << ", \"to\": " << json_string(r.crossovers[i].to) << "}";
      f << "], \"skipped\": {";
      first = true;
      for (const auto& [name, why] : r.skipped) {
        f << (first ? "" : ", ") << json_string(name) << ": " << json_string(why);
        first = false;
      }
      f << "}, \"simulation_seconds\": {";
      first = true;
      for (const auto& [name, w] : r.wall) {
        f << (first ? "" : ", ") << json_string(name) << ": " << json_number(w);
        first = false;
      }
      f << "}}";
    }
    f << "\n     ]}";
  }
  f << "\n  ]\n}\n";
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
  try {
    o = parse(argc, argv);
  } catch (const usage_error& e) {
    if (*e.what()) std::fprintf(stderr, "hpcoll_crossover: %s\n", e.what());
    std::fprintf(stderr,
                 "usage: hpcoll_crossover [--alpha=S] [--beta=S] [--gamma=S] [--gap=S] [--overhead=S] [--copy=S]\n"
                 "                        [--collectives=allreduce,bcast,allgather,alltoall] [--p=2,3,4,...]\n"
                 "                        [--sizes=MIN:MAX[:FACTOR]] [--elem=BYTES] [--budget=SECONDS]\n"
                 "                        [--no-refine] [--out=FILE.json] [--out=FILE.md]\n");
    return *e.what() ? 2 : 0;
  }
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
      else if (path.ends_with(".md")) write_markdown(results, o, path);
      else throw std::runtime_error("--out: '" + path + "' should end in .json or .md");
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hpcoll_crossover: %s\n", e.what());
    return 1;
  }
  return 0;
}
