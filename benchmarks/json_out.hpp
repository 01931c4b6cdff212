// SPDX-License-Identifier: BSD-3-Clause
// The JSON the benchmark programs write (results, machine files' "measured"
// record, decisions): documents built in C++ and serialised by json-c, the
// JSON library the dispatcher reads machine files and tuning tables with.
//
//   json::value row = json::object{{"bytes", 4096}, {"median_s", 1.5e-6}};
//   row.set("schedule", "ring");
//   json::array rows;
//   rows.push_back(row);
//   std::string text = json::dump(rows);
#pragma once

#include <hpcoll/select/json_io.hpp>

#include <cerrno>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace hpcoll_bench::json {

using hpcoll::detail::json_value;

/// One JSON value; copies are deep. Objects keep their keys in insertion order.
class value {
public:
  value() = default;  // null
  value(std::nullptr_t) {}
  value(bool b) : v_(json_object_new_boolean(b)) {}
  template <std::integral I>
    requires(!std::same_as<I, bool>)
  value(I i) : v_(std::is_signed_v<I> ? json_object_new_int64(static_cast<std::int64_t>(i))
                                      : json_object_new_uint64(static_cast<std::uint64_t>(i))) {}
  value(double d) {
    if (!std::isfinite(d)) throw std::invalid_argument("json: a non-finite number cannot be written");
    v_ = hpcoll::detail::json_number(d);
  }
  value(std::string_view s) : v_(hpcoll::detail::json_string(s)) {}
  value(const char* s) : value(std::string_view(s)) {}
  value(const std::string& s) : value(std::string_view(s)) {}

  value(const value& other) { copy(other); }
  value& operator=(const value& other) {
    if (this != &other) copy(other);
    return *this;
  }
  value(value&&) noexcept = default;
  value& operator=(value&&) noexcept = default;

  /// Sets member `key` (a null value becomes an object).
  void set(std::string_view key, value v) {
    if (!v_) v_.reset(json_object_new_object());
    json_object_object_add(v_.get(), std::string(key).c_str(), v.v_.release());
  }
  /// Appends an element (a null value becomes an array).
  void push_back(value v) {
    if (!v_) v_.reset(json_object_new_array());
    json_object_array_add(v_.get(), v.v_.release());
  }

  json_object* get() const noexcept { return v_.get(); }

protected:
  explicit value(json_object* made) : v_(made) {}

private:
  void copy(const value& other) {
    json_object* duplicate = nullptr;
    if (other.v_ && json_object_deep_copy(other.v_.get(), &duplicate, nullptr) != 0)
      throw std::runtime_error("json: cannot copy a value");
    v_.reset(duplicate);
  }

  json_value v_;
};

/// An array, empty or of the values of a range.
struct array : value {
  array() : value(json_object_new_array()) {}
  array(std::initializer_list<value> items) : array() {
    for (const value& v : items) push_back(v);
  }
  template <class It>
  array(It first, It last) : array() {
    for (; first != last; ++first) push_back(value(*first));
  }
};

/// An object, empty or of the given members in order.
struct object : value {
  object() : value(json_object_new_object()) {}
  object(std::initializer_list<std::pair<std::string_view, value>> members) : object() {
    for (const auto& [key, v] : members) set(key, v);
  }
};

/// The value as indented text (two spaces).
inline std::string dump(const value& v) { return v.get() ? hpcoll::detail::json_pretty(v.get()) : "null"; }

/// Writes dump(v) and a newline to the file `path`; std::runtime_error ("cannot write PATH: why")
/// where that fails.
inline void write_file(const std::string& path, const value& v) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
  const std::string text = dump(v) + "\n";
  const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !written) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
}

}  // namespace hpcoll_bench::json
