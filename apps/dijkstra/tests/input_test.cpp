// SPDX-License-Identifier: BSD-3-Clause
// hpcoll_dijkstra's input without MPI: DIMACS text and every error it can
// have, plain and gzip-compressed files written and read back, truncated and
// corrupt gzip streams; the generator (determinism, presets, degrees,
// connectivity, symmetry); the block partition's arithmetic.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <queue>
#include <string>
#include <tuple>
#include <vector>

#include "generator.hpp"
#include "graph.hpp"
#include "partition.hpp"

namespace {

using namespace hpcoll_dijkstra;
namespace fs = std::filesystem;

/// A folder of its own under the system's temporary folder, removed with the object.
struct scratch_folder {
  fs::path path = fs::temp_directory_path() / ("hpcoll_dijkstra_test." + std::to_string(::getpid()));
  scratch_folder() { fs::create_directories(path); }
  ~scratch_folder() { fs::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_text(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

using arc_tuple = std::tuple<std::uint64_t, std::uint64_t, weight_t>;

/// The arcs of g, sorted.
std::vector<arc_tuple> sorted_arcs(const csr_graph& g) {
  std::vector<arc_tuple> arcs;
  for (std::uint64_t u = 0; u < g.vertex_count(); ++u)
    for (std::uint64_t i = g.offsets[u]; i < g.offsets[u + 1]; ++i) arcs.emplace_back(u, g.heads[i], g.weights[i]);
  std::sort(arcs.begin(), arcs.end());
  return arcs;
}

bool same_graph(const csr_graph& a, const csr_graph& b) {
  return a.offsets == b.offsets && a.heads == b.heads && a.weights == b.weights;
}

/// Every arc (u, v, w) has a twin (v, u, w), as many times as it occurs.
bool symmetric(const csr_graph& g) {
  std::vector<arc_tuple> arcs = sorted_arcs(g), reversed;
  for (const auto& [u, v, w] : arcs) reversed.emplace_back(v, u, w);
  std::sort(reversed.begin(), reversed.end());
  return arcs == reversed;
}

/// Every vertex reached from vertex 0 along the arcs.
bool connected(const csr_graph& g) {
  std::vector<bool> seen(g.vertex_count(), false);
  std::queue<std::uint64_t> queue;
  seen[0] = true;
  queue.push(0);
  std::uint64_t reached = 1;
  while (!queue.empty()) {
    const std::uint64_t u = queue.front();
    queue.pop();
    for (std::uint64_t i = g.offsets[u]; i < g.offsets[u + 1]; ++i)
      if (!seen[g.heads[i]]) {
        seen[g.heads[i]] = true;
        ++reached;
        queue.push(g.heads[i]);
      }
  }
  return reached == g.vertex_count();
}

csr_graph parse(const std::string& text) { return to_csr(parse_dimacs(text, "t.gr")); }

}  // namespace

TEST_CASE("dijkstra.input.parse") {
  // Comments, blank lines, CRLF line ends, tabs, parallel arcs and self-loops; no newline at the end.
  const csr_graph g = parse(
      "c a small graph\r\n"
      "\n"
      "p sp 4 6\r\n"
      "c comments may come anywhere\n"
      "a 2 1 7\n"
      "a\t1 2\t3 \n"
      "a 1 2 5\n"
      "   \n"
      "a 3 3 0\n"
      "a 1 4 4294967295\n"
      "a 3 1 -0");
  CHECK(g.vertex_count() == 4);
  CHECK(g.arc_count() == 6);
  CHECK(g.offsets == std::vector<std::uint64_t>{0, 3, 4, 6, 6});
  // Grouped by tail, in file order within a tail.
  CHECK(g.heads == std::vector<vertex_t>{1, 1, 3, 0, 2, 0});
  CHECK(g.weights == std::vector<weight_t>{3, 5, 4294967295u, 7, 0, 0});
  CHECK(parse("p sp 1 0\n").vertex_count() == 1);
}

TEST_CASE("dijkstra.input.errors") {
  const std::pair<const char*, const char*> cases[] = {
      {"", "t.gr: no problem line 'p sp N M'"},
      {"c only\nc comments\n", "t.gr: no problem line 'p sp N M'"},
      {"c\na 1 2 3\np sp 2 1\n", "t.gr:2: arc before the problem line 'p sp N M'"},
      {"p sp 2 1\np sp 2 1\n", "t.gr:2: a second problem line (the first is line 1)"},
      {"p max 2 1\n", "t.gr:1: problem line of format 'max', expected 'p sp N M'"},
      {"p sp 0 0\n", "t.gr:1: node count '0' is not a number 1..4294967295 (expected 'p sp N M')"},
      {"p sp 4294967296 0\n", "t.gr:1: node count '4294967296' is not a number 1..4294967295 (expected 'p sp N M')"},
      {"p sp x 1\n", "t.gr:1: node count 'x' is not a number 1..4294967295 (expected 'p sp N M')"},
      {"p sp 3\n", "t.gr:1: arc count '' is not a non-negative integer (expected 'p sp N M')"},
      {"p sp 3 -1\n", "t.gr:1: arc count '-1' is not a non-negative integer (expected 'p sp N M')"},
      {"p sp 3 1 9\n", "t.gr:1: unexpected '9' after the arc count (expected 'p sp N M')"},
      {"p sp 3 1\na 0 1 1\n", "t.gr:2: tail 0 is outside the node ids 1..3"},
      {"p sp 3 1\na 1 4 1\n", "t.gr:2: head 4 is outside the node ids 1..3"},
      {"p sp 3 1\na -2 1 1\n", "t.gr:2: tail -2 is outside the node ids 1..3"},
      {"p sp 3 1\na 1 99999999999999999999 1\n", "t.gr:2: head 99999999999999999999 is outside the node ids 1..3"},
      {"p sp 3 1\na one 2 1\n", "t.gr:2: tail 'one' is not a node id"},
      {"p sp 3 1\na 1\n", "t.gr:2: arc line without a head (expected 'a U V W')"},
      {"p sp 3 1\na 1 2\n", "t.gr:2: arc line without a weight (expected 'a U V W')"},
      {"p sp 3 1\na 1 2 -5\n", "t.gr:2: negative weight -5"},
      {"p sp 3 1\na 1 2 5.5\n", "t.gr:2: weight '5.5' is not a non-negative integer"},
      {"p sp 3 1\na 1 2 1e3\n", "t.gr:2: weight '1e3' is not a non-negative integer"},
      {"p sp 3 1\na 1 2 4294967296\n", "t.gr:2: weight 4294967296 is above 4294967295"},
      {"p sp 3 1\na 1 2 3 4\n", "t.gr:2: unexpected '4' after the weight (expected 'a U V W')"},
      {"p sp 3 1\na 1 2 3\na 2 3 4\n", "t.gr:3: more arcs than the 1 of the problem line (line 1)"},
      {"c\np sp 3 3\na 1 2 3\n", "t.gr:2: the problem line announces 3 arcs, the file has 1"},
      {"p sp 3 1\ne 1 2\n", "t.gr:2: unknown line 'e 1 2' (a line is a comment 'c ...', the problem 'p sp N M' or an arc "
                            "'a U V W')"},
  };
  // text and message are copies, not a structured binding: CHECK_THROWS_WITH_AS
  // wraps its arguments in a lambda, which captures those in C++20, Clang only from 16.
  for (const auto& test_case : cases) {
    const char* const text = test_case.first;
    const char* const message = test_case.second;
    INFO("text: ", text);
    CHECK_THROWS_WITH_AS(parse_dimacs(text, "t.gr"), message, input_error);
  }
}

TEST_CASE("dijkstra.input.files") {
  const scratch_folder folder;
  const csr_graph g = generate_road_network(500, default_arc_count(500), 3);
  const std::vector<std::string> comments = {"a comment", ""};

  SUBCASE("plain and gzip-compressed files read back as written") {
    write_dimacs(folder.file("g.gr"), g, comments);
    write_dimacs(folder.file("g.gr.gz"), g, comments);
    const std::string text = contents(folder.file("g.gr"));
    CHECK(text.rfind("c a comment\nc\np sp 500 " + std::to_string(g.arc_count()) + "\na 1 ", 0) == 0);
    CHECK(contents(folder.file("g.gr.gz")).substr(0, 2) == "\x1f\x8b");
    CHECK(read_file(folder.file("g.gr.gz")) == text);
    CHECK(same_graph(read_dimacs(folder.file("g.gr")), g));
    CHECK(same_graph(read_dimacs(folder.file("g.gr.gz")), g));
  }
  SUBCASE("a truncated gzip stream") {
    write_dimacs(folder.file("g.gr.gz"), g, comments);
    fs::resize_file(folder.file("g.gr.gz"), fs::file_size(folder.file("g.gr.gz")) / 2);
    CHECK_THROWS_WITH_AS(read_file(folder.file("g.gr.gz")),
                         (folder.file("g.gr.gz") + ": truncated gzip stream (unexpected end of file)").c_str(),
                         input_error);
  }
  SUBCASE("a corrupt gzip stream") {
    write_dimacs(folder.file("g.gr.gz"), g, comments);
    std::string bytes = contents(folder.file("g.gr.gz"));
    for (std::size_t i = bytes.size() / 3; i < bytes.size() / 3 + 64; ++i) bytes[i] = static_cast<char>(~bytes[i]);
    write_text(folder.file("g.gr.gz"), bytes);
    CHECK_THROWS_WITH_AS(read_file(folder.file("g.gr.gz")), doctest::Contains(": corrupt gzip stream ("), input_error);
  }
  SUBCASE("files that cannot be read or written") {
    CHECK_THROWS_WITH_AS(read_file(folder.file("none.gr")),
                         (folder.file("none.gr") + ": cannot open: No such file or directory").c_str(), input_error);
    CHECK_THROWS_WITH_AS(read_file(folder.path.string()), (folder.path.string() + ": cannot read: is a directory").c_str(),
                         input_error);
    CHECK_THROWS_WITH(write_dimacs(folder.file("no/such/folder.gr"), g, comments),
                      ("cannot write " + folder.file("no/such/folder.gr") + ": No such file or directory").c_str());
  }
  SUBCASE("errors name the file") {
    write_text(folder.file("bad.gr"), "p sp 2 1\na 1 3 1\n");
    CHECK_THROWS_WITH_AS(read_dimacs(folder.file("bad.gr")),
                         (folder.file("bad.gr") + ":2: head 3 is outside the node ids 1..2").c_str(), input_error);
  }
}

TEST_CASE("dijkstra.generator.determinism") {
  const csr_graph a = generate_road_network(3000, default_arc_count(3000), 42);
  CHECK(same_graph(generate_road_network(3000, default_arc_count(3000), 42), a));
  const csr_graph b = generate_road_network(3000, default_arc_count(3000), 43);
  CHECK(b.arc_count() == a.arc_count());
  CHECK_FALSE(same_graph(a, b));
  // A fixed seed's graph is fixed: any change of the generator or its random numbers shows here.
  std::uint64_t weight_sum = 0;
  for (const weight_t w : a.weights) weight_sum += w;
  CHECK(a.heads[0] == 1);
  CHECK(weight_sum == 7'788'390);
}

TEST_CASE("dijkstra.generator.structure") {
  for (const std::uint64_t n : {1, 2, 3, 10, 1000, 5000}) {
    INFO(n, " nodes");
    const csr_graph g = generate_road_network(n, default_arc_count(n), n);
    CHECK(g.vertex_count() == n);
    CHECK(connected(g));
    CHECK(symmetric(g));
    CHECK(g.arc_count() <= default_arc_count(n));
    for (std::uint64_t u = 0; u < n; ++u)
      for (std::uint64_t i = g.offsets[u]; i < g.offsets[u + 1]; ++i) {
        CHECK(g.heads[i] != u);  // no self-loops
        CHECK(g.weights[i] >= 400);  // neighbours 1000 m apart, each moved at most 300 m
        CHECK(g.weights[i] <= 24'000);  // the longest road: 16 cells diagonally
      }
    if (n >= 1000) {
      CHECK(g.arc_count() == default_arc_count(n));
      const double per_node = static_cast<double>(g.arc_count()) / static_cast<double>(n);
      CHECK(per_node > 2.43);
      CHECK(per_node < 2.45);
    }
  }
}

TEST_CASE("dijkstra.generator.presets") {
  const road_preset seto = parse_generate("seto");
  const csr_graph g = generate_road_network(seto.nodes, seto.arcs, 1);
  CHECK(g.vertex_count() == 58'168);
  CHECK(g.arc_count() == default_arc_count(58'168));
  CHECK(connected(g));
  CHECK(parse_generate("cal").nodes == 1'890'815);
  CHECK(parse_generate("cal").arcs == 4'657'742);
  CHECK(parse_generate("usa").nodes == 23'947'347);
  CHECK(parse_generate("usa").arcs == 58'333'344);
  CHECK(parse_generate("12345").nodes == 12'345);
  CHECK(parse_generate("12345").arcs == default_arc_count(12'345));
  for (const char* bad : {"", "0", "-5", "1e6", "4294967296", "Cal", "12 "})
    CHECK_THROWS_WITH_AS(parse_generate(bad),
                         (std::string("'") + bad + "' is neither a preset (seto, cal, usa) nor a node count 1..4294967295").c_str(),
                         std::invalid_argument);
}

TEST_CASE("dijkstra.partition.blocks") {
  for (const std::uint64_t n : {1, 2, 7, 100, 1001})
    for (const int parts : {1, 2, 3, 4, 5, 8, 13}) {
      const block_partition p{n, parts};
      CHECK(p.begin(0) == 0);
      CHECK(p.end(parts - 1) == n);
      for (int r = 0; r < parts; ++r) {
        const std::uint64_t size = p.end(r) - p.begin(r);
        CHECK((size == n / parts || size == n / parts + 1));
        for (std::uint64_t v = p.begin(r); v < p.end(r); ++v) CHECK(p.owner(v) == r);
      }
    }
}
