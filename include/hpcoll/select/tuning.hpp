// SPDX-License-Identifier: BSD-3-Clause
// Measured tuning tables: (collective, comm-size range, message-size range) →
// schedule, written by `./hpcoll tune` and preferred by the dispatcher over
// the cost model wherever an entry covers the call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../error.hpp"
#include "json_io.hpp"
#include "traits.hpp"

namespace hpcoll {

struct tuning_entry {
  std::string collective;
  int min_ranks = 1, max_ranks = std::numeric_limits<int>::max();
  std::uint64_t min_bytes = 0, max_bytes = std::numeric_limits<std::uint64_t>::max();
  std::string schedule;   ///< as written in the table
  std::size_t candidate;  ///< its index in schedule::candidates<Shape>
  std::size_t number;     ///< position in the file, from 1

  /// "entry 3 (allreduce, ranks 2-2, bytes 0-3071, schedule ring)".
  std::string describe() const {
    return detail::concat({"entry ", std::to_string(number), " (", collective, ", ranks ", std::to_string(min_ranks),
                           "-", std::to_string(max_ranks), ", bytes ", std::to_string(min_bytes), "-",
                           std::to_string(max_bytes), ", schedule ", schedule, ")"});
  }
};

struct tuning_table {
  std::vector<tuning_entry> entries;
  std::string source;  ///< the file it came from

  /// The first entry covering the call, or nullptr.
  const tuning_entry* find(std::string_view collective, int ranks, std::uint64_t bytes) const {
    for (const tuning_entry& e : entries)
      if (e.collective == collective && e.min_ranks <= ranks && ranks <= e.max_ranks && e.min_bytes <= bytes &&
          bytes <= e.max_bytes)
        return &e;
    return nullptr;
  }
};

namespace detail {

[[noreturn]] inline void bad_table(std::string_view source, std::string_view problem) {
  throw error("", "", concat({"tuning table ", source, ": ", problem}));
}

/// Resolves `e.schedule` among the candidates of e.collective, or raises an
/// error naming the entry: an entry the dispatcher cannot honour is never
/// silently replaced by another schedule.
inline void resolve_entry(tuning_entry& e, const std::string& source) {
  const collective_entry* collective = nullptr;
  for (const collective_entry& c : collective_table())
    if (c.name == e.collective) collective = &c;
  if (!collective) bad_table(source, concat({e.describe(), ": unknown collective '", e.collective, "'"}));
  e.candidate = schedule::find_candidate(collective->candidates, e.schedule);
  if (e.candidate == collective->candidates.size())
    bad_table(source, concat({e.describe(), ": no schedule of ", e.collective, " is called '", e.schedule,
                              "' (candidates: ", schedule::candidate_list(collective->candidates), ")"}));
  if (collective->per_rank && (e.min_bytes != 0 || e.max_bytes != std::numeric_limits<std::uint64_t>::max()))
    bad_table(source, concat({e.describe(), ": ", e.collective,
                              " is chosen per communicator size only (ranks do not know each other's counts); its "
                              "entries must cover all sizes (min_bytes 0, max_bytes 18446744073709551615)"}));
  if (e.min_ranks < 1 || e.min_ranks > e.max_ranks)
    bad_table(source, concat({e.describe(), ": empty or invalid rank range"}));
  if (e.min_bytes > e.max_bytes) bad_table(source, concat({e.describe(), ": empty byte range"}));
}

}  // namespace detail

/// Parses and validates a table (`source` names it in errors).
inline tuning_table parse_tuning_table(std::string_view text, const std::string& source) {
  using namespace detail;
  tuning_table table;
  table.source = source;
  json_value root;
  try {
    root = parse_json(text);
  } catch (const json_syntax_error& e) {
    bad_table(source, e.where());
  }
  const auto format = json_is_object(root.get()) ? json_member(root.get(), "format") : std::nullopt;
  if (!format || !json_is_string(*format) || json_object_get_string(*format) != std::string_view("hpcoll-tuning-1"))
    bad_table(source, "not a tuning table (\"format\": \"hpcoll-tuning-1\" expected)");
  const auto entries = json_member(root.get(), "entries");
  if (!entries || !json_is_array(*entries)) bad_table(source, "\"entries\" must be an array");
  const std::size_t count = json_object_array_length(*entries);
  for (std::size_t number = 1; number <= count; ++number) {
    json_object* item = json_object_array_get_idx(*entries, number - 1);
    tuning_entry e;
    e.number = number;
    const std::string entry = "entry " + std::to_string(number);
    const auto field = [&](const char* key) -> json_object* {
      const auto v = json_is_object(item) ? json_member(item, key) : std::nullopt;
      if (!v) bad_table(source, concat({entry, ": missing \"", key, "\""}));
      return *v;
    };
    const auto whole = [&](const char* key, std::uint64_t lo, std::uint64_t hi) {
      const std::optional<std::uint64_t> x = json_whole_number(field(key));
      if (!x || *x < lo || *x > hi)
        bad_table(source, concat({entry, ": \"", key, "\" must be a whole number from ", std::to_string(lo), " to ",
                                  std::to_string(hi)}));
      return *x;
    };
    const auto text_field = [&](const char* key) {
      json_object* v = field(key);
      if (!json_is_string(v)) bad_table(source, concat({entry, ": \"", key, "\" must be a string"}));
      return std::string(json_object_get_string(v));
    };
    constexpr std::uint64_t max_int = std::numeric_limits<int>::max();
    constexpr std::uint64_t no_limit = std::numeric_limits<std::uint64_t>::max();
    e.collective = text_field("collective");
    e.schedule = text_field("schedule");
    e.min_ranks = static_cast<int>(whole("min_ranks", 1, max_int));
    e.max_ranks = static_cast<int>(whole("max_ranks", 1, max_int));
    e.min_bytes = whole("min_bytes", 0, no_limit);
    e.max_bytes = whole("max_bytes", 0, no_limit);
    resolve_entry(e, source);
    table.entries.push_back(std::move(e));
  }
  return table;
}

inline tuning_table load_tuning_table(const std::string& path) {
  const detail::file_text file = detail::read_file(path);
  if (!file.problem.empty()) detail::bad_table(path, detail::concat({"cannot be read (", file.problem, ")"}));
  return parse_tuning_table(file.text, path);
}

namespace detail {

/// current_tuning_table()'s table. A template only so that hpcoll::decisions
/// can compile it, and the file reading behind it, once (instantiated extern
/// with HPCOLL_COMPILED_DECISIONS: select/dispatch.hpp).
template <class = void>
const tuning_table* process_tuning_table() {
  static const std::optional<tuning_table> table = []() -> std::optional<tuning_table> {
    const char* path = std::getenv("HPCOLL_TUNING");
    if (!path || !*path) return std::nullopt;
    return load_tuning_table(path);
  }();
  return table ? &*table : nullptr;
}

}  // namespace detail

/// The table the dispatcher uses: $HPCOLL_TUNING when set (it must exist),
/// otherwise none. Loaded once per process; an invalid table raises
/// hpcoll::error at the first dispatched call.
inline const tuning_table* current_tuning_table() { return detail::process_tuning_table(); }

}  // namespace hpcoll
