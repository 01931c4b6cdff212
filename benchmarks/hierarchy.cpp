// SPDX-License-Identifier: BSD-3-Clause
// hpcoll_hierarchy: what the two-level cost model (hpcoll/select/node_cost.hpp)
// predicts for every candidate schedule on clusters of nodes — no MPI, one
// process, up to a million ranks — and how long each prediction takes.
//
//   hpcoll_hierarchy [--nodes=2,16,...] [--ppn=1,8,64] [--sizes=MIN:MAX[:FACTOR]] [--elem=BYTES]
//                    [--collectives=allreduce,bcast,reduce,allgather,alltoall] [--check]
//                    [--machine=FILE] [--alpha=S] [--beta=S] [--gamma=S] [--inter-alpha=S] [--inter-beta=S] [--port-beta=S]
//                    [--out=FILE.json]
//
// Ranks are numbered node by node. Sizes follow MPI's count convention (the
// vector of bcast and allreduce, the block per rank of allgather, the block
// per destination of alltoall). --check also walks every rank of every round
// (predict_on_nodes) where that takes at most 2^26 rank-rounds and reports
// the largest difference.
#include <hpcoll/hpcoll.hpp>
#include <hpcoll/select/dispatch.hpp>
#include <hpcoll/select/node_cost.hpp>

#include "json_out.hpp"
#include "options.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

namespace {

namespace S = hpcoll::schedule;
namespace json = hpcoll_bench::json;

struct options {
  hpcoll::machine m{};
  std::vector<std::string> collectives{"allreduce", "bcast", "reduce", "allgather", "alltoall"};
  std::vector<int> nodes{2, 4, 16, 64, 256, 1024, 4096, 16384};
  std::vector<int> ppn{1, 8, 64};
  hpcoll_bench::size_range sizes{8, std::size_t{16} << 20, 4};
  std::size_t elem = 8;
  bool check = false;
  std::string out;
  std::string command;
};

struct prediction_row {
  std::string collective, schedule;
  int nodes, ppn;
  std::size_t bytes;
  double seconds, walk_seconds, full_difference;
};

std::vector<int> parse_counts(const std::string& text) {
  std::vector<int> out;
  for (const std::string& t : hpcoll_bench::split(text, ','))
    out.push_back(static_cast<int>(hpcoll_bench::parse_integer(t, 1, 1 << 20)));
  if (out.empty()) throw std::invalid_argument("no counts in '" + text + "'");
  return out;
}

template <class Sch, class Shape>
void predict_one(const Shape& shape, std::size_t bytes, const hpcoll::node_layout& nodes, const options& o,
                 std::vector<prediction_row>& rows, const std::string& collective, int ppn) {
  const auto start = std::chrono::steady_clock::now();
  const hpcoll::prediction fast = hpcoll::predict_on_nodes_sampled<Sch>(shape, o.m, nodes);
  const double walk = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  double difference = -1;
  if (o.check && static_cast<long long>(fast.rounds) * shape.size <= hpcoll::detail::node_walk_budget &&
      static_cast<double>(shape.size) * shape.size <= 1e9) {
    const hpcoll::prediction full = hpcoll::predict_on_nodes<Sch>(shape, o.m, nodes);
    difference = std::abs(fast.seconds - full.seconds) / std::max(full.seconds, 1e-300);
  }
  rows.push_back({collective, hpcoll::schedule_name<Sch>(), nodes.nodes(), ppn, bytes, fast.seconds, walk, difference});
}

/// Predicts every candidate of Shape's collective (the dispatcher's, flat and
/// node-aware) for one layout and size.
template <class Shape>
void predict_all(const Shape& shape, std::size_t bytes, const hpcoll::node_layout& nodes, const options& o,
                 std::vector<prediction_row>& rows, const std::string& collective, int ppn) {
  const auto one = [&](auto type, auto...) {
    predict_one<typename decltype(type)::type>(shape, bytes, nodes, o, rows, collective, ppn);
  };
  S::for_each_candidate<Shape>(one);
}

void run(const options& o, std::vector<prediction_row>& rows) {
  for (const int ppn : o.ppn)
    for (const int n : o.nodes) {
      const int p = n * ppn;
      if (p < 2) continue;
      const hpcoll::node_layout nodes = hpcoll::node_layout::regular(n, ppn);
      for (std::size_t bytes = o.sizes.min;; bytes = std::min(o.sizes.max, bytes * o.sizes.factor)) {
        const std::size_t count = std::max<std::size_t>(1, bytes / o.elem);
        for (const std::string& c : o.collectives) {
          const std::size_t b = count * o.elem;
          if (c == "allreduce") predict_all(hpcoll::allreduce_shape{0, p, count, true, false, o.elem}, b, nodes, o, rows, c, ppn);
          if (c == "bcast") predict_all(hpcoll::bcast_shape{0, p, 0, count, o.elem}, b, nodes, o, rows, c, ppn);
          if (c == "reduce") predict_all(hpcoll::reduce_shape{0, p, 0, count, true, false, o.elem}, b, nodes, o, rows, c, ppn);
          if (c == "allgather") predict_all(hpcoll::allgather_shape{0, p, count, false, o.elem}, b, nodes, o, rows, c, ppn);
          if (c == "alltoall") predict_all(hpcoll::alltoall_shape{0, p, count, false, o.elem}, b, nodes, o, rows, c, ppn);
        }
        if (bytes >= o.sizes.max) break;
      }
    }
}

void print(const std::vector<prediction_row>& rows, const options& o) {
  std::printf("hpcoll_hierarchy: inside a node alpha=%g beta=%g; between nodes inter_alpha=%g inter_beta=%g "
              "port_beta=%g; elements of %zu B\n",
              o.m.alpha, o.m.beta, o.m.inter_alpha, o.m.inter_beta, o.m.port_beta, o.elem);
  std::printf("%-10s %6s %4s %8s %10s  %-60s %12s %10s %s\n", "collective", "nodes", "ppn", "p", "bytes", "schedule",
              "predicted", "walk", o.check ? "vs full" : "");
  for (const prediction_row& r : rows) {
    std::printf("%-10s %6d %4d %8d %10s  %-60s %10.3fus %9.3fs", r.collective.c_str(), r.nodes, r.ppn, r.nodes * r.ppn,
                hpcoll_bench::human_bytes(r.bytes).c_str(), r.schedule.c_str(), r.seconds * 1e6, r.walk_seconds);
    if (r.full_difference >= 0) std::printf(" %.2g", r.full_difference);
    std::printf("\n");
  }
}

void write_json(const std::vector<prediction_row>& rows, const options& o) {
  json::array out;
  for (const prediction_row& r : rows)
    out.push_back(json::object{{"collective", r.collective},
                               {"schedule", r.schedule},
                               {"nodes", r.nodes},
                               {"ppn", r.ppn},
                               {"bytes", r.bytes},
                               {"seconds", r.seconds},
                               {"walk_seconds", r.walk_seconds}});
  json::write_file(o.out, json::object{{"command", o.command},
                                       {"machine", json::object{{"alpha", o.m.alpha},
                                                                {"beta", o.m.beta},
                                                                {"gamma", o.m.gamma},
                                                                {"inter_alpha", o.m.inter_alpha},
                                                                {"inter_beta", o.m.inter_beta},
                                                                {"port_beta", o.m.port_beta}}},
                                       {"elem_bytes", o.elem},
                                       {"predictions", std::move(out)}});
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  o.command = hpcoll_bench::command_text(argc, argv);
  hpcoll_bench::command_line cl{"hpcoll_hierarchy", "usage: hpcoll_hierarchy [options]   (no MPI: the two-level cost model)"};
  // A parameter given on the command line overrides --machine's value, whatever their order.
  std::vector<std::pair<double*, double>> given;
  const auto seconds = [&given](double* store, const char* name) {
    return hpcoll_bench::value_of(store, name, [&given, store](const std::string& t) {
      const double v = hpcoll_bench::parse_nonnegative(t);
      given.emplace_back(store, v);
      return v;
    });
  };
  std::string machine_file;
  cl.options.add_options()
      ("nodes", hpcoll_bench::value_of(&o.nodes, "N,N,...", parse_counts), "node counts (default 2 .. 16384)")
      ("ppn", hpcoll_bench::value_of(&o.ppn, "K,K,...", parse_counts), "ranks per node (default 1,8,64)")
      ("sizes", hpcoll_bench::value_of(&o.sizes, "MIN:MAX[:FACTOR]",
                                       [](const std::string& t) { return hpcoll_bench::parse_size_range(t, true); }),
       "message sizes in bytes (default 8:16Mi:4)")
      ("elem", hpcoll_bench::value_of(&o.elem, "BYTES", [](const std::string& t) {
         const std::size_t e = hpcoll_bench::parse_bytes(t);
         if (e == 0) throw std::invalid_argument("must be at least 1");
         return e;
       }), "bytes per element (default 8)")
      ("collectives", hpcoll_bench::value_of(&o.collectives, "a,b", [](const std::string& t) {
         return hpcoll_bench::parse_names(t, {"allreduce", "bcast", "reduce", "allgather", "alltoall"});
       }), "any of allreduce, bcast, reduce, allgather, alltoall (default all)")
      ("check", hpcoll_bench::po::bool_switch(&o.check), "compare with the walk of every rank where it is affordable")
      ("machine", hpcoll_bench::value_of(&machine_file, "FILE", [](const std::string& t) { return t; }),
       "a machine file (./hpcoll calibrate's) instead of the built-in defaults; the options below override it")
      ("alpha", seconds(&o.m.alpha, "S"), "latency inside a node (default hpcoll::machine{}; likewise below)")
      ("beta", seconds(&o.m.beta, "S"), "seconds per byte inside a node")
      ("gamma", seconds(&o.m.gamma, "S"), "seconds per byte reduced")
      ("inter-alpha", seconds(&o.m.inter_alpha, "S"), "latency between nodes")
      ("inter-beta", seconds(&o.m.inter_beta, "S"), "seconds per byte of one rank's stream between nodes")
      ("port-beta", seconds(&o.m.port_beta, "S"), "seconds per byte of a node's network port")
      ("out", hpcoll_bench::value_of(&o.out, "FILE.json", [](const std::string& t) { return t; }),
       "write the predictions as JSON");
  const auto parsed = hpcoll_bench::parse_command_line(argc, argv, cl, true);
  if (parsed.exit) return *parsed.exit;
  try {
    if (!machine_file.empty()) {
      o.m = hpcoll::load_machine_profile(machine_file).base;
      for (const auto& [store, value] : given) *store = value;
    }
    std::vector<prediction_row> rows;
    run(o, rows);
    print(rows, o);
    if (!o.out.empty()) write_json(rows, o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hpcoll_hierarchy: %s\n", e.what());
    return 1;
  }
  return 0;
}
