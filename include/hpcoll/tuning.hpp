// Measured tuning tables: (collective, comm-size range, message-size range) →
// schedule, written by `./hpcoll tune` and preferred by the dispatcher over
// the cost model wherever an entry covers the call.
#pragma once

#include <boost/hana/for_each.hpp>
#include <boost/hana/tuple.hpp>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "detail/json.hpp"
#include "error.hpp"
#include "schedule/candidates.hpp"
#include "shape.hpp"

namespace hpcoll {

namespace detail {
inline constexpr auto all_collective_shapes =
    boost::hana::tuple_t<bcast_shape, reduce_shape, allreduce_shape, gather_shape, gatherv_shape, scatter_shape,
                         allgather_shape, reduce_scatter_block_shape, alltoall_shape, alltoallv_shape>;

/// The v-collectives: no rank knows every rank's counts, so a choice by size
/// could differ between ranks; they are chosen per communicator size only.
template <class Shape>
inline constexpr bool sized_per_rank = std::same_as<Shape, gatherv_shape> || std::same_as<Shape, alltoallv_shape>;
}  // namespace detail

struct tuning_entry {
  std::string collective;
  int min_ranks = 1, max_ranks = std::numeric_limits<int>::max();
  std::uint64_t min_bytes = 0, max_bytes = std::numeric_limits<std::uint64_t>::max();
  std::string schedule;   ///< as written in the table
  std::size_t candidate;  ///< its index in schedule::candidates<Shape>
  std::size_t number;     ///< position in the file, from 1

  /// "entry 3 (allreduce, ranks 2-2, bytes 0-3071, schedule ring)".
  std::string describe() const {
    std::ostringstream o;
    o << "entry " << number << " (" << collective << ", ranks " << min_ranks << '-' << max_ranks << ", bytes "
      << min_bytes << '-' << max_bytes << ", schedule " << schedule << ')';
    return o.str();
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

[[noreturn]] inline void bad_table(const std::string& source, const std::string& problem) {
  throw error("", "", "tuning table " + source + ": " + problem);
}

/// Resolves `e.schedule` among the candidates of e.collective, or raises an
/// error naming the entry: an entry the dispatcher cannot honour is never
/// silently replaced by another schedule.
inline void resolve_entry(tuning_entry& e, const std::string& source) {
  bool known = false;
  boost::hana::for_each(all_collective_shapes, [&](auto t) {
    using Shape = typename decltype(t)::type;
    if (e.collective != collective_name<Shape>) return;
    known = true;
    e.candidate = schedule::find_candidate<Shape>(e.schedule);
    if (e.candidate == schedule::candidate_count<Shape>)
      bad_table(source, e.describe() + ": no schedule of " + e.collective + " is called '" + e.schedule +
                            "' (candidates: " + schedule::candidate_list<Shape>() + ")");
    if (sized_per_rank<Shape> && (e.min_bytes != 0 || e.max_bytes != std::numeric_limits<std::uint64_t>::max()))
      bad_table(source, e.describe() + ": " + e.collective +
                            " is chosen per communicator size only (ranks do not know each other's counts); its "
                            "entries must cover all sizes (min_bytes 0, max_bytes 18446744073709551615)");
  });
  if (!known) bad_table(source, e.describe() + ": unknown collective '" + e.collective + "'");
  if (e.min_ranks < 1 || e.min_ranks > e.max_ranks) bad_table(source, e.describe() + ": empty or invalid rank range");
  if (e.min_bytes > e.max_bytes) bad_table(source, e.describe() + ": empty byte range");
}

}  // namespace detail

/// Parses and validates a table (`source` names it in errors).
inline tuning_table parse_tuning_table(std::string_view text, const std::string& source) {
  tuning_table table;
  table.source = source;
  detail::json::value root;
  try {
    root = detail::json::parse(text);
  } catch (const std::exception& e) {
    detail::bad_table(source, e.what());
  }
  const auto* format = root.is_object() ? root.find("format") : nullptr;
  if (!format || !format->is_string() || format->as_string() != "hpcoll-tuning-1")
    detail::bad_table(source, "not a tuning table (\"format\": \"hpcoll-tuning-1\" expected)");
  const auto* entries = root.find("entries");
  if (!entries || !entries->is_array()) detail::bad_table(source, "\"entries\" must be an array");
  std::size_t number = 0;
  for (const auto& item : entries->as_array()) {
    ++number;
    tuning_entry e;
    e.number = number;
    const auto field = [&](const char* key) -> const detail::json::value& {
      const auto* v = item.is_object() ? item.find(key) : nullptr;
      if (!v) detail::bad_table(source, "entry " + std::to_string(number) + ": missing \"" + key + "\"");
      return *v;
    };
    const auto whole = [&](const char* key, double lo, double hi) {
      const auto& v = field(key);
      const double x = v.is_number() ? v.as_number() : -1;
      if (!v.is_number() || x < lo || x > hi || std::floor(x) != x)
        detail::bad_table(source, "entry " + std::to_string(number) + ": \"" + key + "\" must be a whole number");
      return x;
    };
    const auto text_field = [&](const char* key) {
      const auto& v = field(key);
      if (!v.is_string()) detail::bad_table(source, "entry " + std::to_string(number) + ": \"" + key + "\" must be a string");
      return v.as_string();
    };
    e.collective = text_field("collective");
    e.schedule = text_field("schedule");
    e.min_ranks = static_cast<int>(whole("min_ranks", 1, std::numeric_limits<int>::max()));
    e.max_ranks = static_cast<int>(whole("max_ranks", 1, std::numeric_limits<int>::max()));
    e.min_bytes = static_cast<std::uint64_t>(whole("min_bytes", 0, 1.8446744073709552e19));
    // 2^64 − 1 is not exact in a double: the largest double stands for "no limit".
    const double hi = whole("max_bytes", 0, 1.8446744073709552e19);
    e.max_bytes = hi >= 1.8446744073709552e19 ? std::numeric_limits<std::uint64_t>::max() : static_cast<std::uint64_t>(hi);
    detail::resolve_entry(e, source);
    table.entries.push_back(std::move(e));
  }
  return table;
}

inline tuning_table load_tuning_table(const std::string& path) {
  std::ifstream file(path);
  if (!file) detail::bad_table(path, "cannot be read");
  std::ostringstream text;
  text << file.rdbuf();
  return parse_tuning_table(text.str(), path);
}

/// The table the dispatcher uses: $HPCOLL_TUNING when set (it must exist),
/// otherwise none. Loaded once per process; an invalid table raises
/// hpcoll::error at the first dispatched call.
inline const tuning_table* current_tuning_table() {
  static const std::optional<tuning_table> table = []() -> std::optional<tuning_table> {
    const char* path = std::getenv("HPCOLL_TUNING");
    if (!path || !*path) return std::nullopt;
    return load_tuning_table(path);
  }();
  return table ? &*table : nullptr;
}

}  // namespace hpcoll
