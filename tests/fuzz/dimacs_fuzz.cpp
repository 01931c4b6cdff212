// SPDX-License-Identifier: BSD-3-Clause
// apps/dijkstra's input reader: DIMACS shortest-path text (parse_dimacs,
// then to_csr) and gzip-compressed files (read_file through zlib). Any bytes
// give a graph or an input_error "NAME:LINE: what". The first byte picks
// plain text or a file read through zlib.
#include "graph.hpp"

#include "fuzz_support.hpp"

#include <unistd.h>

#include <string>

namespace {

/// A file holding the input, for read_file (zlib reads from a descriptor).
std::string written(std::string_view bytes) {
  static const std::string path = "/tmp/hpcoll_dimacs_fuzz." + std::to_string(getpid()) + ".gr.gz";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size() || std::fclose(f) != 0)
    hpcoll_fuzz::fail("cannot write the input file", path.c_str());
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hpcoll_fuzz;
  if (size == 0) return 0;
  const std::string_view bytes = text_of(data + 1, size - 1);
  returns_or_throws<hpcoll_dijkstra::input_error>([&] {
    std::string text;
    if (data[0] & 1) {
      const std::string path = written(bytes);
      text = hpcoll_dijkstra::read_file(path);
      std::remove(path.c_str());
    } else {
      text = bytes;
    }
    hpcoll_dijkstra::arc_list arcs = hpcoll_dijkstra::parse_dimacs(text, "fuzz.gr");
    const std::uint64_t n = arcs.vertex_count;
    // A problem line may rightly announce up to 2^32 - 1 nodes, whose CSR offsets (8 bytes a
    // node) exceed the fuzzer's memory and time per input: the CSR is built for small graphs.
    if (arcs.vertex_count > (1u << 20)) return;
    const std::size_t m = arcs.heads.size();
    const hpcoll_dijkstra::csr_graph g = hpcoll_dijkstra::to_csr(std::move(arcs));
    require(g.arc_count() == m && g.vertex_count() == n, "the graph lost arcs or nodes");
  });
  return 0;
}
