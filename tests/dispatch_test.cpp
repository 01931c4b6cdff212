// SPDX-License-Identifier: BSD-3-Clause
// The runtime dispatcher: its model choice against hand-computed costs on a
// synthetic machine file, the overrides (template argument, HPCOLL_<COLL>,
// tuning table), errors for choices that cannot serve a call, the per-
// communicator cache and counters, and explain().
#include "support/collective_test.hpp"
#include "support/error_checks.hpp"

#include <hpcoll/exec/counters.hpp>
#include <hpcoll/select/dispatch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <numeric>
#include <string>
#include <vector>

namespace S = hpcoll::schedule;
using hpcoll_test::world_rank;
using hpcoll_test::world_size;
using hpcoll_test::contains;
using hpcoll_test::error_of;
using hpcoll_test::scoped_env;

namespace {

/// A machine file with round numbers, and a γ for sum/float64 that differs
/// from the default one, so the test sees which γ priced the call.
/// Hockney's model: no protocol step, no in-cache rates (a file turns them off).
constexpr const char* synthetic_machine = R"({
  "format": "hpcoll-machine-1",
  "alpha": 1e-5, "beta": 1e-9, "gap": 1e-5, "overhead": 0, "copy": 0,
  "eager_bytes": 18446744073709551615, "cache_bytes": 0,
  "gamma": {"default": 1.0, "sum/float64": 5e-10}
})";

/// The predicted time of the candidate named `name`.
double predicted(const hpcoll::decision& d, const std::string& name) {
  for (const auto& c : d.candidates)
    if (c.schedule == name) return c.predicted_seconds;
  FAIL("no candidate ", name);
  return 0;
}

/// The calls counted for (collective, schedule) on c.
std::uint64_t calls(const hpcoll::communicator& c, std::string_view collective, const std::string& schedule,
                    bool dispatched = true) {
  for (const auto& n : hpcoll::schedule_counts(c))
    if (n.collective == collective && n.schedule == schedule && n.dispatched == dispatched) return n.calls;
  return 0;
}

bool node_aware(const hpcoll::candidate_estimate& e) {
  return e.schedule.starts_with("hierarchical<") || e.schedule.starts_with("multi_leader<");
}

/// allreduce with op::sum on doubles, checked against MPI_Allreduce.
void check_allreduce(const hpcoll::communicator& c, std::size_t n) {
  const auto in = hpcoll_test::random_vector<double>(n, 17);
  std::vector<double> out(n), expected(n);
  hpcoll::allreduce(c, in, out, hpcoll::op::sum{});
  MPI_Allreduce(in.data(), expected.data(), static_cast<int>(n), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  for (std::size_t i = 0; i < n; ++i) REQUIRE(out[i] == doctest::Approx(expected[i]));
}

}  // namespace

TEST_CASE("dispatch.model_matches_hand_computed_costs") {
  const hpcoll::machine_profile profile = hpcoll::parse_machine_profile(synthetic_machine, "synthetic");
  const hpcoll::machine m = profile.for_reduction<hpcoll::op::sum, double>();
  const double a = 1e-5, b = 1e-9, g = 5e-10;
  CHECK(m.gamma == g);
  const int p = 8;
  // Hand-computed costs (Thakur, Rabenseifner & Gropp 2005) on p = 8.
  for (const std::size_t count : {std::size_t{8}, std::size_t{1} << 20}) {
    const double n = static_cast<double>(count * sizeof(double));
    const double rd = 3 * (a + n * b + n * g);
    const double ring = 14 * a + 2 * 7.0 / 8 * n * b + 7.0 / 8 * n * g;
    const double rabenseifner = 6 * a + 2 * 7.0 / 8 * n * b + 7.0 / 8 * n * g;
    const double reduce_bcast = 3 * (a + n * b + n * g) + 3 * (a + n * b);
    const hpcoll::decision d =
        hpcoll::decide(hpcoll::allreduce_shape{0, p, count, true, false, sizeof(double)}, m, nullptr, nullptr);
    INFO(d.to_string());
    CHECK(predicted(d, "recursive_doubling") == doctest::Approx(rd));
    CHECK(predicted(d, "ring") == doctest::Approx(ring));
    CHECK(predicted(d, "reduce_scatter_allgather<recursive_halving, recursive_doubling>") ==
          doctest::Approx(rabenseifner));
    CHECK(predicted(d, "reduce_bcast<binomial, binomial>") == doctest::Approx(reduce_bcast));
    // 64 B: latency decides (3α against 6α); 8 MiB: bandwidth (3nβ against 1.75nβ).
    CHECK(d.schedule() == (count == 8 ? "recursive_doubling" : "reduce_scatter_allgather<recursive_halving, recursive_doubling>"));
    CHECK(d.reason == "model");
  }
  // A non-commutative op removes the candidates that need commutativity.
  const hpcoll::decision nc = hpcoll::decide(hpcoll::allreduce_shape{0, p, 1 << 20, false, false, 8}, m, nullptr, nullptr);
  CHECK(nc.schedule() == "recursive_doubling");
  for (const auto& c : nc.candidates)
    if (c.schedule == "ring") CHECK_FALSE(c.valid);
  // Broadcast: binomial ⌈lg p⌉(α + nβ) against scatter + allgather, whose
  // recursive-doubling allgather needs lg p rounds where the ring needs p − 1.
  const double n = 16777216.0;
  const hpcoll::decision bc = hpcoll::decide(hpcoll::bcast_shape{0, 8, 0, 1 << 24, 1}, m, nullptr, nullptr);
  CHECK(predicted(bc, "binomial") == doctest::Approx(3 * (a + n * b)));
  CHECK(predicted(bc, "scatter_allgather<binomial, ring>") == doctest::Approx(10 * a + 2 * 7.0 / 8 * n * b));
  CHECK(predicted(bc, "scatter_allgather<binomial, recursive_doubling>") == doctest::Approx(6 * a + 2 * 7.0 / 8 * n * b));
  CHECK(bc.schedule() == "scatter_allgather<binomial, recursive_doubling>");
}

TEST_CASE("dispatch.tuning_table_rules") {
  const hpcoll::machine m{};
  const auto table = hpcoll::parse_tuning_table(R"({"format": "hpcoll-tuning-1", "entries": [
      {"collective": "allreduce", "min_ranks": 4, "max_ranks": 4, "min_bytes": 0, "max_bytes": 100, "schedule": "ring"},
      {"collective": "allreduce", "min_ranks": 4, "max_ranks": 8, "min_bytes": 0, "max_bytes": 18446744073709551615, "schedule": "rabenseifner"},
      {"collective": "alltoallv", "min_ranks": 1, "max_ranks": 9, "min_bytes": 0, "max_bytes": 18446744073709551615, "schedule": "pairwise"}]})",
                                                "inline");
  const auto small = hpcoll::decide(hpcoll::allreduce_shape{0, 4, 8, true, false, 8}, m, &table, nullptr);
  CHECK(small.schedule() == "ring");
  CHECK(contains(small.reason, "tuning table inline, entry 1 (allreduce, ranks 4-4, bytes 0-100, schedule ring)"));
  CHECK(small.model_choice != small.choice);
  const auto large = hpcoll::decide(hpcoll::allreduce_shape{0, 4, 1000, true, false, 8}, m, &table, nullptr);
  CHECK(large.schedule() == "reduce_scatter_allgather<recursive_halving, recursive_doubling>");
  // Not covered: the model decides.
  const auto uncovered = hpcoll::decide(hpcoll::allreduce_shape{0, 3, 1000, true, false, 8}, m, &table, nullptr);
  CHECK(uncovered.reason == "model");
  // The environment overrules the table.
  const auto env = hpcoll::decide(hpcoll::allreduce_shape{0, 4, 8, true, false, 8}, m, &table, "linear");
  CHECK(env.schedule() == "linear");
  CHECK(env.reason == "HPCOLL_ALLREDUCE=linear");
  // An entry that cannot serve the call is an error naming it, not a fallback.
  const auto refused =
      error_of([&] { hpcoll::decide(hpcoll::allreduce_shape{0, 4, 8, false, false, 8}, m, &table, nullptr); });
  CHECK(contains(refused, "hpcoll::allreduce<automatic>: tuning table inline, entry 1"));
  CHECK(contains(refused, "chooses ring, which needs a commutative op"));
  // Invalid tables are refused when read, naming the entry.
  const auto bad_schedule = error_of([] {
    hpcoll::parse_tuning_table(R"({"format": "hpcoll-tuning-1", "entries": [
      {"collective": "bcast", "min_ranks": 1, "max_ranks": 8, "min_bytes": 0, "max_bytes": 10, "schedule": "binomial"},
      {"collective": "bcast", "min_ranks": 1, "max_ranks": 8, "min_bytes": 0, "max_bytes": 10, "schedule": "ring"}]})",
                               "t.json");
  });
  CHECK(contains(bad_schedule, "tuning table t.json: entry 2 (bcast, ranks 1-8, bytes 0-10, schedule ring): no schedule "
                               "of bcast is called 'ring' (candidates: binomial, linear,"));
  const auto sized_v = error_of([] {
    hpcoll::parse_tuning_table(R"({"format": "hpcoll-tuning-1", "entries": [
      {"collective": "gatherv", "min_ranks": 1, "max_ranks": 8, "min_bytes": 0, "max_bytes": 10, "schedule": "linear"}]})",
                               "t.json");
  });
  CHECK(contains(sized_v, "entry 1 (gatherv, ranks 1-8, bytes 0-10, schedule linear): gatherv is chosen per "
                          "communicator size only"));
  CHECK(contains(error_of([] {
                   hpcoll::parse_tuning_table(R"({"format": "hpcoll-tuning-1", "entries": [
      {"collective": "allsum", "min_ranks": 1, "max_ranks": 8, "min_bytes": 0, "max_bytes": 10, "schedule": "ring"}]})",
                                              "t.json");
                 }),
                 "unknown collective 'allsum'"));
  CHECK(contains(error_of([] {
                   hpcoll::parse_tuning_table(R"({"format": "hpcoll-tuning-1", "entries": [
      {"collective": "allreduce", "min_ranks": 5, "max_ranks": 4, "min_bytes": 0, "max_bytes": 10, "schedule": "ring"}]})",
                                              "t.json");
                 }),
                 "empty or invalid rank range"));
  CHECK(contains(error_of([] { hpcoll::parse_tuning_table(R"({"entries": []})", "t.json"); }),
                 "tuning table t.json: not a tuning table"));
  CHECK(contains(error_of([] { hpcoll::parse_tuning_table("{\"format\": ", "t.json"); }), "tuning table t.json: "));
  CHECK(contains(error_of([] { hpcoll::load_tuning_table("/nonexistent/tuning.json"); }),
                 "tuning table /nonexistent/tuning.json: cannot be read"));
}

TEST_CASE("dispatch.free_functions_run_the_choice") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  check_allreduce(c, 3);
  check_allreduce(c, 5);  // 40 bytes: another size class
  check_allreduce(c, 3);  // 24 bytes again: the decision is remembered
  const std::string chosen = hpcoll::explain<hpcoll::op::sum, double>(c, hpcoll::allreduce_shape{c.rank(), c.size(), 3}).schedule();
  CHECK(calls(c, "allreduce", chosen) >= 2);
  std::uint64_t total = 0;
  for (const auto& n : hpcoll::schedule_counts(c)) total += n.calls;
  CHECK(total == 3);
  // A named schedule bypasses the dispatcher and is counted as such.
  std::vector<int> in(4, 1), out(4);
  hpcoll::Allreduce<S::ring>{}(c, in, out, hpcoll::op::sum{});
  CHECK(calls(c, "allreduce", "ring", false) == 1);
}

TEST_CASE("dispatch.environment_override") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  {
    const scoped_env env("HPCOLL_ALLREDUCE", "ring");
    check_allreduce(c, 100);
  }
  CHECK(calls(c, "allreduce", "ring") == 1);
  {
    const scoped_env env("HPCOLL_ALLTOALL", "linear_sync");  // unique name without template arguments
    std::vector<int> in(static_cast<std::size_t>(c.size()) * 3, c.rank()), out(in.size());
    hpcoll::alltoall(c, in, out);
    for (int q = 0; q < c.size(); ++q) CHECK(out[static_cast<std::size_t>(q) * 3] == q);
  }
  CHECK(calls(c, "alltoall", "linear_sync<8>") == 1);
  // Bad values: an error on every rank before any message, naming the variable.
  {
    const scoped_env env("HPCOLL_ALLREDUCE", "fastest");
    std::vector<double> v(1000, 1.0), w(1000);
    const auto e = error_of([&] { hpcoll::allreduce(c, v, w, hpcoll::op::sum{}); });
    CHECK(contains(e, "hpcoll::allreduce<automatic>: HPCOLL_ALLREDUCE=fastest names no schedule of allreduce "
                      "(candidates: recursive_doubling, ring,"));
  }
  {
    const scoped_env env("HPCOLL_ALLREDUCE", "ring");
    std::vector<hpcoll_test::matrix2> v(3, hpcoll_test::matrix2{{1, 2, 3, 4}}), w(3);
    const auto e = error_of([&] { hpcoll::allreduce(c, v, w, hpcoll_test::matrix_product()); });
    CHECK(e == "hpcoll::allreduce<automatic>: HPCOLL_ALLREDUCE=ring chooses ring, which needs a commutative op");
  }
  // In checked mode the ranks agree first, then all raise the same error.
  {
    const scoped_env env("HPCOLL_BCAST", "ring");
    std::vector<int> v(10);
    const auto e = error_of([&] { hpcoll::Bcast<S::automatic, hpcoll::check::always>{}(c, v, 0); });
    CHECK(contains(e, "HPCOLL_BCAST=ring names no schedule of bcast"));
  }
  check_allreduce(c, 7);  // still aligned
}

// The node-aware candidates: weighed by the two-level model when the call's
// layout spans nodes, left out of the model's choice within one node (but
// open to HPCOLL_<COLL>), unusable without a layout or for a non-commutative
// op on ranks not numbered node by node.
TEST_CASE("dispatch.node_aware_candidates") {
  const hpcoll::machine_profile profile = hpcoll::parse_machine_profile(synthetic_machine, "synthetic");
  hpcoll::machine m = profile.for_reduction<hpcoll::op::sum, double>();
  m.inter_alpha = 1e-4;
  m.inter_beta = 1e-8;
  m.port_beta = 2e-8;
  const double a = 1e-5, b = 1e-9, g = 5e-10;
  const std::size_t count = std::size_t{1} << 17;
  const double n = static_cast<double>(count * sizeof(double));
  hpcoll::allreduce_shape call{0, 8, count, true, false, sizeof(double)};

  // No layout: the node-aware candidates cannot serve, and naming one is an error.
  const hpcoll::decision bare = hpcoll::decide(call, m, nullptr, nullptr);
  int aware = 0;
  for (const auto& e : bare.candidates) {
    CHECK(e.valid != node_aware(e));
    if (node_aware(e)) {
      ++aware;
      CHECK(e.unusable == "needs the communicator's node layout");
    }
  }
  CHECK(aware == 4);
  CHECK(contains(error_of([&] { (void)hpcoll::decide(call, m, nullptr, "multi_leader<binomial,recursive_doubling>"); }),
                 "chooses multi_leader<binomial, recursive_doubling>, which needs the communicator's node layout"));

  const hpcoll::node_layout seven = hpcoll::node_layout::regular(1, 7);
  call.nodes = seven;
  CHECK(error_of([&] { (void)hpcoll::decide(call, m, nullptr, nullptr); }) ==
        "hpcoll::allreduce<automatic>: the call's node layout has 7 ranks, its communicator 8");

  // One node: priced as without a layout; node-aware ones not weighed, but named they run.
  const hpcoll::node_layout one_node = hpcoll::node_layout::regular(1, 8);
  call.nodes = one_node;
  const hpcoll::decision within = hpcoll::decide(call, m, nullptr, nullptr);
  CHECK(within.schedule() == bare.schedule());
  for (std::size_t i = 0; i < within.candidates.size(); ++i) {
    const auto& e = within.candidates[i];
    CHECK(e.valid);
    CHECK(e.weighed != node_aware(e));
    if (e.weighed) CHECK(e.predicted_seconds == bare.candidates[i].predicted_seconds);
  }
  CHECK(contains(within.to_string(), "multi_leader<binomial, recursive_doubling>"));
  CHECK(contains(within.to_string(), "(node-aware: weighed across nodes)"));
  const hpcoll::decision named = hpcoll::decide(call, m, nullptr, "multi_leader<binomial,recursive_doubling>");
  CHECK(named.schedule() == "multi_leader<binomial, recursive_doubling>");
  CHECK(named.reason == "HPCOLL_ALLREDUCE=multi_leader<binomial,recursive_doubling>");

  // Two nodes of four: every candidate on the two-level model. Recursive
  // doubling crosses once, all four ranks of a node through its port
  // (4n·port_β); the hierarchical form reduces to the leader (2 rounds),
  // exchanges n between the leaders, broadcasts (2 rounds).
  const hpcoll::node_layout two_nodes = hpcoll::node_layout::regular(2, 4);
  call.nodes = two_nodes;
  const hpcoll::decision across = hpcoll::decide(call, m, nullptr, nullptr);
  INFO(across.to_string());
  for (const auto& e : across.candidates) CHECK((e.valid && e.weighed && e.predicted_seconds > 0));
  CHECK(predicted(across, "recursive_doubling") ==
        doctest::Approx(2 * (a + n * b + n * g) + m.inter_alpha + 4 * n * m.port_beta + n * g));
  CHECK(predicted(across, "hierarchical<binomial, recursive_doubling>") ==
        doctest::Approx(2 * (a + n * b + n * g) + m.inter_alpha + n * m.port_beta + n * g + 2 * (a + n * b)));
  CHECK(node_aware(across.candidates[across.choice]));
  CHECK(across.reason == "model");

  // The dispatcher walks every candidate through the executor's variant plan:
  // the figures of each schedule's own two-level walk, full (8 ranks) and
  // sampled (128 ranks on 16 nodes).
  const hpcoll::node_layout sixteen_nodes = hpcoll::node_layout::regular(16, 8);
  hpcoll::allreduce_shape large{0, 128, count, true, false, sizeof(double)};
  large.nodes = sixteen_nodes;
  const hpcoll::decision across_many = hpcoll::decide(large, m, nullptr, nullptr);
  S::for_each_candidate<hpcoll::allreduce_shape>([&](auto type, std::size_t i) {
    using Sch = typename decltype(type)::type;
    CHECK(across.candidates[i].predicted_seconds == hpcoll::predict_on_nodes_sampled<Sch>(call, m, two_nodes).seconds);
    CHECK(across_many.candidates[i].predicted_seconds ==
          hpcoll::predict_on_nodes_sampled<Sch>(large, m, sixteen_nodes).seconds);
  });

  // A non-commutative op: node-aware forms reduce in rank order only on ranks
  // numbered node by node, and never through a commutative-only phase.
  call.commutative = false;
  const hpcoll::decision in_order = hpcoll::decide(call, m, nullptr, nullptr);
  for (const auto& e : in_order.candidates)
    if (e.schedule == "hierarchical<binomial, recursive_doubling>") CHECK(e.valid);
    else if (e.schedule == "hierarchical<binomial, reduce_scatter_allgather<recursive_halving, recursive_doubling>>")
      CHECK(e.unusable == "needs a commutative op");
  const hpcoll::node_layout dealt = hpcoll::node_layout::regular(2, 4, hpcoll::node_numbering::round_robin);
  call.nodes = dealt;
  for (const auto& e : hpcoll::decide(call, m, nullptr, nullptr).candidates)
    if (node_aware(e) && e.unusable != "needs a commutative op")
      CHECK(e.unusable == "reduces with a non-commutative op only when ranks are numbered node by node");
}

// The free functions give the dispatcher the communicator's node layout: with
// HPCOLL_NODE_SIZE imposing nodes, a named node-aware candidate runs and
// explain() (given the layout) weighs the node-aware candidates.
TEST_CASE("dispatch.free_functions_across_nodes") {
  const int per_node = std::max(1, world_size() / 2);
  const scoped_env nodes("HPCOLL_NODE_SIZE", std::to_string(per_node).c_str());
  const hpcoll::communicator c(MPI_COMM_WORLD);
  {
    const scoped_env env("HPCOLL_ALLREDUCE", "multi_leader<binomial,recursive_doubling>");
    check_allreduce(c, 1000);
  }
  CHECK(calls(c, "allreduce", "multi_leader<binomial, recursive_doubling>") == 1);
  hpcoll::allreduce_shape call{c.rank(), c.size(), 1000, true, false, sizeof(double)};
  call.nodes = hpcoll::node_layout_of(c);
  CHECK(call.nodes->nodes() == (world_size() + per_node - 1) / per_node);
  const hpcoll::decision d = hpcoll::explain<hpcoll::op::sum, double>(c, call);
  for (const auto& e : d.candidates) CHECK(e.weighed == (call.nodes->nodes() > 1 || !node_aware(e)));
  // A bad imposed layout: every rank raises it before any message.
  const scoped_env bad("HPCOLL_NODE_SIZE", "none");
  const hpcoll::communicator later(MPI_COMM_WORLD);
  std::vector<double> v(4, 1.0), w(4);
  CHECK(contains(error_of([&] { hpcoll::allreduce(later, v, w, hpcoll::op::sum{}); }),
                 "hpcoll::allreduce<automatic>: HPCOLL_NODE_SIZE is 'none'; it must be a positive number of ranks per node"));
  check_allreduce(c, 5);  // still aligned
}

// Decisions are remembered per communicator: two communicators that decided
// the same call differently keep their own choice when calls alternate
// between them, and each counts its own runs.
TEST_CASE("dispatch.decisions_per_communicator") {
  const hpcoll::communicator first(MPI_COMM_WORLD), second(MPI_COMM_WORLD);
  {
    const scoped_env env("HPCOLL_ALLREDUCE", "ring");
    check_allreduce(first, 9);
  }
  {
    const scoped_env env("HPCOLL_ALLREDUCE", "linear");
    check_allreduce(second, 9);
  }
  for (int i = 0; i < 3; ++i) {
    check_allreduce(first, 9);
    check_allreduce(second, 9);
  }
  CHECK(calls(first, "allreduce", "ring") == 4);
  CHECK(calls(first, "allreduce", "linear") == 0);
  CHECK(calls(second, "allreduce", "linear") == 4);
  CHECK(calls(second, "allreduce", "ring") == 0);
  // Communicators made one after another (often at the same address) start
  // with no decisions and no counts: the model decides, one call is counted.
  const std::string model =
      hpcoll::explain<hpcoll::op::sum, double>(first, hpcoll::allreduce_shape{first.rank(), first.size(), 9}).schedule();
  for (int i = 0; i < 2; ++i) {
    const hpcoll::communicator later(MPI_COMM_WORLD);
    check_allreduce(later, 9);
    CHECK(calls(later, "allreduce", model) == 1);
  }
}

// Run by the ctest case dispatch.tuning_file with HPCOLL_TUNING=tests/data/tuning_small.json.
TEST_CASE("dispatch.tuning_file" * doctest::skip()) {
  REQUIRE(std::getenv("HPCOLL_TUNING"));
  const hpcoll::communicator c(MPI_COMM_WORLD);
  check_allreduce(c, 16);  // 128 bytes: entry 1 says linear
  CHECK(calls(c, "allreduce", "linear") == 1);
  const auto d = hpcoll::explain<hpcoll::op::sum, double>(c, hpcoll::allreduce_shape{c.rank(), c.size(), 16});
  CHECK(contains(d.reason, "tuning_small.json, entry 1 (allreduce"));
  check_allreduce(c, 1 << 12);  // 32 KiB: no entry, the model
  CHECK(calls(c, "allreduce", "linear") == 1);
  std::vector<int> in(static_cast<std::size_t>(c.size()) * 5, c.rank()), out(in.size());
  hpcoll::alltoall(c, in, out);
  CHECK(calls(c, "alltoall", "pairwise") == 1);
}

// Run by the ctest case dispatch.verbose with HPCOLL_VERBOSE=1: rank 0 explains
// each decision once and prints the counters when the communicator goes.
TEST_CASE("dispatch.verbose" * doctest::skip()) {
  REQUIRE(hpcoll::detail::verbose());
  const std::string path = "dispatch_verbose." + std::to_string(world_rank()) + ".txt";
  std::fflush(stderr);
  const int saved = dup(STDERR_FILENO);
  const int file = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  REQUIRE(file >= 0);
  dup2(file, STDERR_FILENO);
  std::string chosen;
  {
    const hpcoll::communicator c(MPI_COMM_WORLD);
    check_allreduce(c, 1 << 12);
    check_allreduce(c, 1 << 12);
    chosen = hpcoll::explain<hpcoll::op::sum, double>(c, hpcoll::allreduce_shape{c.rank(), c.size(), 1 << 12}).schedule();
  }
  std::fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(file);
  close(saved);
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::remove(path.c_str());
  INFO(text);
  INFO("chosen: ", chosen);
  if (world_rank() == 0) {
    CHECK(contains(text, "hpcoll: allreduce, " + std::to_string(world_size()) + " ranks, 32768 bytes (sum/float64)"));
    CHECK(contains(text, "  -> " + chosen + ": model"));
    CHECK(text.find("-> ") == text.rfind("-> "));  // once per decision
    CHECK(contains(text, "schedules run on a communicator of " + std::to_string(world_size()) + " ranks:"));
    CHECK(contains(text, "2 calls (dispatched)"));
  } else {
    CHECK(text.empty());
  }
}

// A blocking call sends messages of up to shared_message_bytes() within a
// node through the node's mailboxes: the model prices such a message at the
// machine's mailbox rates, and with HPCOLL_SHARED_MEMORY=0 as an MPI message
// (here above the built-in eager size, 4,040 B: with the rendezvous
// handshake). A broadcast of 6,000 bytes; at np 2 one message, one round.
// A blocking call's small messages take the node's mailboxes, a nonblocking
// call's all take MPI: each kind runs the decision priced its way (the
// blocking one explain(c, shape) gives, the other explain(c, shape) with the
// mailboxes off), remembered apart.
TEST_CASE("dispatch.nonblocking_decided_apart") {
  const hpcoll::communicator world(MPI_COMM_WORLD);
  if (world.size() < 2) {
    MESSAGE("dispatch.nonblocking_decided_apart needs two ranks on a node: not run at np 1");
    return;
  }
  scoped_env shared("HPCOLL_SHARED_MEMORY", "1");
  for (const std::size_t n : {std::size_t{16}, std::size_t{1000}, std::size_t{2048}, std::size_t{8192}}) {
    CAPTURE(n);
    const hpcoll::allreduce_shape shape{world.rank(), world.size(), n};
    const std::string blocking = hpcoll::explain<hpcoll::op::sum, double>(world, shape).schedule();
    shared.set("0");
    const std::string nonblocking = hpcoll::explain<hpcoll::op::sum, double>(world, shape).schedule();
    shared.set("1");
    const hpcoll::communicator c(MPI_COMM_WORLD);
    const auto in = hpcoll_test::random_vector<double>(n, 29);
    std::vector<double> out(n), started(n), expected(n);
    for (int i = 0; i < 2; ++i) {
      hpcoll::allreduce(c, in, out, hpcoll::op::sum{});
      hpcoll::iallreduce(c, in, started, hpcoll::op::sum{}).wait();
    }
    MPI_Allreduce(in.data(), expected.data(), static_cast<int>(n), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (std::size_t i = 0; i < n; ++i) {
      REQUIRE(out[i] == doctest::Approx(expected[i]));
      REQUIRE(started[i] == doctest::Approx(expected[i]));
    }
    if (blocking == nonblocking) {
      CHECK(calls(c, "allreduce", blocking) == 4);
    } else {
      CHECK(calls(c, "allreduce", blocking) == 2);
      CHECK(calls(c, "allreduce", nonblocking) == 2);
    }
  }
}

TEST_CASE("dispatch.mailbox_messages_priced") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  const int p = c.size();
  if (p < 2) {
    MESSAGE("dispatch.mailbox_messages_priced needs two ranks on a node: not run at np 1");
    return;
  }
  CHECK(c.node_ranks() == p);  // the tests run on one machine
  CHECK(hpcoll::detail::shared_message_bytes(p) == 8192);
  const hpcoll::bcast_shape shape{c.rank(), p, 0, 6000};
  scoped_env shared("HPCOLL_SHARED_MEMORY", "1");
  const hpcoll::decision on = hpcoll::explain<void, std::byte>(c, shape);
  shared.set("0");
  CHECK(hpcoll::detail::shared_message_bytes(p) == 0);
  const hpcoll::decision off = hpcoll::explain<void, std::byte>(c, shape);
  hpcoll::machine m = hpcoll::current_machine_profile().base;
  m.ranks_per_core = c.ranks_per_core();
  CHECK(predicted(off, "binomial") == doctest::Approx(hpcoll::predict<S::binomial>(shape, m).seconds));
  m.mailbox_bytes = 8192;
  CHECK(predicted(on, "binomial") == doctest::Approx(hpcoll::predict<S::binomial>(shape, m).seconds));
  if (p == 2 && c.ranks_per_core() <= 1) {
    CHECK(predicted(on, "binomial") == doctest::Approx(m.mailbox_alpha + 6000 * m.mailbox_beta));
    const double mpi = 6000 > m.eager_bytes ? m.alpha + m.handshake() + 6000 * m.beta
                                            : m.alpha + 6000 * (m.beta + m.eager_copy);
    CHECK(predicted(off, "binomial") == doctest::Approx(mpi));
  }
}
