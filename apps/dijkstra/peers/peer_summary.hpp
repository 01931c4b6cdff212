// SPDX-License-Identifier: BSD-3-Clause
// What the peer programs (Boost.Graph's and the Parallel BGL's shortest
// paths on hpcoll_dijkstra's graphs) print and write: the graph, the load and
// solve times and the distance checksum, as hpcoll_dijkstra's summary and
// --json name them, so that benchmarks/dijkstra_experiment.py reads all three
// programs alike.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>

#include "checksum.hpp"
#include "graph_input.hpp"
#include "json_out.hpp"
#include "run_info.hpp"

namespace hpcoll_dijkstra {

/// A peer's command line: hpcoll_dijkstra's graph options (into `input`) and --json FILE.
inline void add_peer_options(hpcoll_bench::command_line& cl, graph_input& input, std::string& json_file) {
  add_graph_options(cl, input);
  cl.options.add_options()("json", hpcoll_bench::po::value(&json_file)->value_name("FILE"), "write the summary as JSON");
  cl.notes = "It prints 'checksum: reachable=R sum=S max=M' as hpcoll_dijkstra does.\n";
}

struct peer_summary {
  peer_summary(std::string program_name, int argc, char** argv, std::string algorithm_name, const graph_input& graph)
      : program(std::move(program_name)),
        command(hpcoll_bench::command_text(argc, argv)),
        algorithm(std::move(algorithm_name)),
        input(&graph) {}

  std::string program, command, algorithm;  ///< algorithm: "Boost.Graph dijkstra_shortest_paths", ...
  const graph_input* input;
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
  std::printf("time (s)     load %.6f, solve %.6f%s\n", s.load_seconds, s.solve_seconds,
              s.np > 1 ? " (max over ranks)" : "");
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
