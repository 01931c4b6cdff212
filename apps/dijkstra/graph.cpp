// SPDX-License-Identifier: BSD-3-Clause
#include "graph.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <memory>
#include <utility>

namespace hpcoll_dijkstra {

csr_graph to_csr(arc_list&& arcs) {
  const arc_list list = std::move(arcs);
  const std::uint64_t n = list.vertex_count;
  csr_graph g;
  g.offsets.assign(n + 1, 0);
  for (const vertex_t tail : list.tails) ++g.offsets[tail + 1];
  for (std::uint64_t u = 0; u < n; ++u) g.offsets[u + 1] += g.offsets[u];
  g.heads.resize(list.heads.size());
  g.weights.resize(list.heads.size());
  // offsets[u] serves as u's insertion point, ending at u's end = (u+1)'s start;
  // shifting by one entry afterwards restores the starts.
  for (std::size_t i = 0; i < list.tails.size(); ++i) {
    const std::uint64_t at = g.offsets[list.tails[i]]++;
    g.heads[at] = list.heads[i];
    g.weights[at] = list.weights[i];
  }
  for (std::uint64_t u = n; u > 0; --u) g.offsets[u] = g.offsets[u - 1];
  g.offsets[0] = 0;
  return g;
}

// ---------------------------------------------------------------------------
// Reading

namespace {

struct gz_closer {
  void operator()(gzFile_s* f) const { gzclose(f); }
};
using gz_file = std::unique_ptr<gzFile_s, gz_closer>;

/// zlib's message without the "<fd:N>: " it puts in front.
std::string zlib_message(const char* message) {
  const std::string text = message ? message : "";
  const std::size_t colon = text.rfind(": ");
  return colon == std::string::npos ? text : text.substr(colon + 2);
}

}  // namespace

std::string read_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw input_error(path + ": cannot open: " + std::strerror(errno));
  struct stat status {};
  if (::fstat(fd, &status) != 0 || S_ISDIR(status.st_mode)) {
    const std::string why = S_ISDIR(status.st_mode) ? "is a directory" : std::strerror(errno);
    ::close(fd);
    throw input_error(path + ": cannot read: " + why);
  }
  gz_file file(gzdopen(fd, "rb"));
  if (!file) {
    ::close(fd);
    throw input_error(path + ": cannot read: out of memory");
  }
  gzbuffer(file.get(), 1 << 20);
  // A plain file fills the buffer exactly (one byte more lets the end be seen
  // without growing it); a gzip file's text is several times its size.
  std::string text(std::max<std::size_t>(static_cast<std::size_t>(status.st_size) + 1, 1 << 16), '\0');
  std::size_t size = 0;
  for (;;) {
    if (size == text.size()) text.resize(2 * text.size());
    const auto chunk = static_cast<unsigned>(std::min<std::size_t>(text.size() - size, std::size_t{1} << 30));
    const int got = gzread(file.get(), text.data() + size, chunk);
    if (got <= 0) break;
    size += static_cast<std::size_t>(got);
  }
  int error = Z_OK;
  const char* message = gzerror(file.get(), &error);
  if (error == Z_BUF_ERROR) throw input_error(path + ": truncated gzip stream (unexpected end of file)");
  if (error == Z_ERRNO) throw input_error(path + ": cannot read: " + std::strerror(errno));
  if (error != Z_OK) throw input_error(path + ": corrupt gzip stream (" + zlib_message(message) + ")");
  text.resize(size);
  return text;
}

namespace {

[[noreturn]] void fail(const std::string& name, std::uint64_t line, const std::string& what) {
  throw input_error(name + ":" + std::to_string(line) + ": " + what);
}

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/// The blank-separated fields of one line, left to right.
class line_fields {
public:
  line_fields(const char* begin, const char* end) : at_(begin), end_(end) {}
  /// The next field; empty at the end of the line.
  std::string_view next() {
    while (at_ < end_ && is_blank(*at_)) ++at_;
    const char* start = at_;
    while (at_ < end_ && !is_blank(*at_)) ++at_;
    return {start, static_cast<std::size_t>(at_ - start)};
  }

private:
  const char* at_;
  const char* end_;
};

/// What a field holds where an unsigned integer up to some maximum is expected.
enum class number { ok, missing, negative, not_a_number, too_large };

number parse_unsigned(std::string_view field, std::uint64_t max, std::uint64_t& value) {
  if (field.empty()) return number::missing;
  const bool minus = field.front() == '-';
  const char* first = field.data() + (minus ? 1 : 0);
  const char* last = field.data() + field.size();
  if (first == last || !std::all_of(first, last, [](char c) { return c >= '0' && c <= '9'; }))
    return number::not_a_number;
  if (minus) return std::all_of(first, last, [](char c) { return c == '0'; }) ? (value = 0, number::ok)
                                                                              : number::negative;
  const auto [end, status] = std::from_chars(first, last, value);
  if (status == std::errc::result_out_of_range || value > max) return number::too_large;
  return end == last ? number::ok : number::not_a_number;
}

/// A short quotation of a field or line for an error message.
std::string quoted(std::string_view text) {
  constexpr std::size_t longest = 40;
  std::string out = "'";
  out.append(text.substr(0, longest));
  out += text.size() > longest ? "...'" : "'";
  return out;
}

}  // namespace

arc_list parse_dimacs(std::string_view text, const std::string& name) {
  arc_list arcs;
  std::uint64_t line = 0, problem_line = 0, announced_arcs = 0;
  const char* at = text.data();
  const char* const end = text.data() + text.size();

  // A node id 1..N in the field `role` ("tail", "head") of an arc line, as a 0-based vertex.
  const auto node_id = [&](std::string_view field, const char* role) -> vertex_t {
    std::uint64_t id = 0;
    switch (parse_unsigned(field, max_vertices, id)) {
      case number::missing: fail(name, line, std::string("arc line without a ") + role + " (expected 'a U V W')");
      case number::not_a_number: fail(name, line, std::string(role) + " " + quoted(field) + " is not a node id");
      case number::negative:
      case number::too_large:
      case number::ok: break;
    }
    if (field.front() == '-' || id == 0 || id > arcs.vertex_count)
      fail(name, line, std::string(role) + " " + std::string(field) + " is outside the node ids 1.." +
                           std::to_string(arcs.vertex_count));
    return static_cast<vertex_t>(id - 1);
  };

  while (at < end) {
    ++line;
    const char* line_end = static_cast<const char*>(std::memchr(at, '\n', static_cast<std::size_t>(end - at)));
    if (!line_end) line_end = end;
    line_fields fields(at, line_end);
    const std::string_view kind = fields.next();
    if (kind == "a") {
      if (problem_line == 0) fail(name, line, "arc before the problem line 'p sp N M'");
      if (arcs.heads.size() == announced_arcs)
        fail(name, line, "more arcs than the " + std::to_string(announced_arcs) + " of the problem line (line " +
                             std::to_string(problem_line) + ")");
      const vertex_t tail = node_id(fields.next(), "tail");
      const vertex_t head = node_id(fields.next(), "head");
      const std::string_view weight_field = fields.next();
      std::uint64_t weight = 0;
      switch (parse_unsigned(weight_field, std::numeric_limits<weight_t>::max(), weight)) {
        case number::ok: break;
        case number::missing: fail(name, line, "arc line without a weight (expected 'a U V W')");
        case number::negative: fail(name, line, "negative weight " + std::string(weight_field));
        case number::not_a_number:
          fail(name, line, "weight " + quoted(weight_field) + " is not a non-negative integer");
        case number::too_large:
          fail(name, line, "weight " + std::string(weight_field) + " is above " +
                               std::to_string(std::numeric_limits<weight_t>::max()));
      }
      if (const std::string_view extra = fields.next(); !extra.empty())
        fail(name, line, "unexpected " + quoted(extra) + " after the weight (expected 'a U V W')");
      arcs.add(tail, head, static_cast<weight_t>(weight));
    } else if (kind == "p") {
      if (problem_line != 0)
        fail(name, line, "a second problem line (the first is line " + std::to_string(problem_line) + ")");
      if (const std::string_view format = fields.next(); format != "sp")
        fail(name, line, "problem line of format " + quoted(format) + ", expected 'p sp N M'");
      const std::string_view nodes = fields.next(), arc_count = fields.next();
      std::uint64_t n = 0;
      if (parse_unsigned(nodes, max_vertices, n) != number::ok || n == 0)
        fail(name, line, "node count " + quoted(nodes) + " is not a number 1.." + std::to_string(max_vertices) +
                             " (expected 'p sp N M')");
      if (parse_unsigned(arc_count, std::numeric_limits<std::uint64_t>::max(), announced_arcs) != number::ok)
        fail(name, line, "arc count " + quoted(arc_count) + " is not a non-negative integer (expected 'p sp N M')");
      if (const std::string_view extra = fields.next(); !extra.empty())
        fail(name, line, "unexpected " + quoted(extra) + " after the arc count (expected 'p sp N M')");
      problem_line = line;
      arcs.vertex_count = n;
      // Every arc line takes at least 8 bytes ("a 1 1 0\n"): a wrong M cannot reserve more than the text allows.
      const std::uint64_t room = std::min<std::uint64_t>(announced_arcs, text.size() / 8 + 1);
      arcs.tails.reserve(room);
      arcs.heads.reserve(room);
      arcs.weights.reserve(room);
    } else if (!kind.empty() && kind.front() != 'c') {
      fail(name, line, "unknown line " + quoted(std::string_view(at, static_cast<std::size_t>(line_end - at))) +
                           " (a line is a comment 'c ...', the problem 'p sp N M' or an arc 'a U V W')");
    }
    at = line_end + 1;
  }
  if (problem_line == 0) throw input_error(name + ": no problem line 'p sp N M'");
  if (arcs.heads.size() != announced_arcs)
    fail(name, problem_line, "the problem line announces " + std::to_string(announced_arcs) +
                                 " arcs, the file has " + std::to_string(arcs.heads.size()));
  return arcs;
}

csr_graph read_dimacs(const std::string& path) {
  arc_list arcs;
  {
    const std::string text = read_file(path);
    arcs = parse_dimacs(text, path);
  }  // the text is freed before the CSR arrays are made
  return to_csr(std::move(arcs));
}

// ---------------------------------------------------------------------------
// Writing

namespace {

/// A file written through zlib (gzip-compressed) or stdio (plain).
class output_file {
public:
  explicit output_file(const std::string& path) : path_(path) {
    const bool compressed = path.size() >= 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
    // Level 1: generated graphs are large, and the fastest level already shrinks them about 4 times.
    if (compressed) gz_ = gzopen(path.c_str(), "wb1");
    else plain_ = std::fopen(path.c_str(), "wb");
    if (!gz_ && !plain_) fail(errno ? std::strerror(errno) : "out of memory");
  }
  output_file(const output_file&) = delete;
  output_file& operator=(const output_file&) = delete;
  ~output_file() {
    if (gz_) gzclose_w(gz_);
    if (plain_) std::fclose(plain_);
  }

  void write(std::string_view data) {
    while (!data.empty()) {
      const std::size_t chunk = std::min<std::size_t>(data.size(), std::size_t{1} << 30);
      const bool written = gz_ ? gzwrite(gz_, data.data(), static_cast<unsigned>(chunk)) == static_cast<int>(chunk)
                               : std::fwrite(data.data(), 1, chunk, plain_) == chunk;
      if (!written) fail(error_text());
      data.remove_prefix(chunk);
    }
  }

  void close() {
    int status = 0;
    if (gz_) status = gzclose_w(std::exchange(gz_, nullptr)) == Z_OK ? 0 : -1;
    if (plain_) status = std::fclose(std::exchange(plain_, nullptr));
    if (status != 0) fail(std::strerror(errno));
  }

private:
  std::string error_text() const {
    if (!gz_) return std::strerror(errno);
    int error = Z_OK;
    const char* message = gzerror(gz_, &error);
    return error == Z_ERRNO ? std::strerror(errno) : zlib_message(message);
  }
  [[noreturn]] void fail(const std::string& why) const {
    throw std::runtime_error("cannot write " + path_ + ": " + why);
  }

  std::string path_;
  gzFile gz_ = nullptr;
  std::FILE* plain_ = nullptr;
};

/// Appends the decimal digits of v.
void append_number(std::string& out, std::uint64_t v) {
  char digits[24];
  const auto [end, status] = std::to_chars(digits, digits + sizeof digits, v);
  out.append(digits, end);
}

}  // namespace

void write_dimacs(const std::string& path, const csr_graph& g, std::span<const std::string> comments) {
  output_file file(path);
  std::string buffer;
  constexpr std::size_t flush_at = std::size_t{8} << 20;
  buffer.reserve(flush_at + 256);
  for (const std::string& comment : comments) buffer += (comment.empty() ? "c" : "c " + comment) + "\n";
  buffer += "p sp ";
  append_number(buffer, g.vertex_count());
  buffer += ' ';
  append_number(buffer, g.arc_count());
  buffer += '\n';
  for (std::uint64_t u = 0; u < g.vertex_count(); ++u) {
    for (std::uint64_t i = g.offsets[u]; i < g.offsets[u + 1]; ++i) {
      buffer += "a ";
      append_number(buffer, u + 1);
      buffer += ' ';
      append_number(buffer, std::uint64_t{g.heads[i]} + 1);
      buffer += ' ';
      append_number(buffer, g.weights[i]);
      buffer += '\n';
    }
    if (buffer.size() >= flush_at) {
      file.write(buffer);
      buffer.clear();
    }
  }
  file.write(buffer);
  file.close();
}

}  // namespace hpcoll_dijkstra
