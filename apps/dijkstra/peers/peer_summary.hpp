// What the peer programs (Boost.Graph's and the Parallel BGL's shortest
// paths on hpcoll_dijkstra's graphs) print and write: the graph, the load and
// solve times and the distance checksum, as hpcoll_dijkstra's summary and
// --json name them, so that benchmarks/dijkstra_experiment.py reads all three
// programs alike.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "checksum.hpp"
#include "graph_input.hpp"
#include "json_out.hpp"
#include "run_info.hpp"

namespace hpcoll_dijkstra {

struct peer_summary {
  std::string program, command, algorithm;  ///< algorithm: "Boost.Graph dijkstra_shortest_paths", ...
  const graph_input* input = nullptr;
  std::uint64_t vertices = 0, arcs = 0;
  int np = 1;
  std::uint64_t delta = 0;        ///< the Parallel BGL's bucket width; 0: none
  bool default_delta = false;     ///< delta is the Parallel BGL's own choice
  double load_seconds = 0;        ///< reading or generating, and building the program's graph (max over ranks)
  double solve_seconds = 0;       ///< max over ranks
  distance_checksum sums;
};

inline void print(const peer_summary& s) {
  std::printf("graph        %s: %llu nodes, %llu arcs\n", s.input->name().c_str(),
              static_cast<unsigned long long>(s.vertices), static_cast<unsigned long long>(s.arcs));
  std::string run = "np " + std::to_string(s.np) + ", " + s.algorithm;
  if (s.delta != 0) run += " (delta " + std::to_string(s.delta) + (s.default_delta ? ", its default)" : ")");
  std::printf("run          %s, source %llu\n", run.c_str(), static_cast<unsigned long long>(s.input->source));
  std::printf("time (s)     load %.6f, solve %.6f (max over ranks)\n", s.load_seconds, s.solve_seconds);
  std::printf("%s\n", checksum_line(s.sums).c_str());
  std::fflush(stdout);
}

/// hpcoll_dijkstra's JSON members where they mean the same: seconds.load.max, seconds.solve.max, checksum.
inline hpcoll_bench::json::value to_json(const peer_summary& s) {
  namespace json = hpcoll_bench::json;
  json::object doc{{"program", s.program},
                   {"command", s.command},
                   {"date", hpcoll_bench::utc_now()},
                   {"graph", json::object{{"name", s.input->name()}, {"nodes", s.vertices}, {"arcs", s.arcs}}},
                   {"np", s.np},
                   {"solver", s.algorithm},
                   {"source", s.input->source}};
  if (s.delta != 0) {
    doc.set("delta", s.delta);
    doc.set("default_delta", s.default_delta);
  }
  doc.set("seconds", json::object{{"load", json::object{{"max", s.load_seconds}}},
                                  {"solve", json::object{{"max", s.solve_seconds}}}});
  doc.set("checksum", json::object{{"reachable", s.sums.reachable}, {"sum", s.sums.sum}, {"max", s.sums.max}});
  return doc;
}

}  // namespace hpcoll_dijkstra
