// SPDX-License-Identifier: BSD-3-Clause
// The library's own files (machine files, tuning tables) read and written
// with json-c: owning handles, errors with line and column, exact 64-bit
// integers, the few accessors the readers need, and reading a file whole.
//
// json-c is a C library with a small header, so the translation units of
// schedule::automatic do not pay for a header-only JSON library's templates
// (docs/architecture.md, "Light headers"). Strict mode: no comments, no
// trailing commas, no single quotes, one value per document. json-c accepts
// NaN and Infinity and keeps the last of repeated keys; the readers check
// what they take.
#pragma once

#include <json-c/json_object.h>
#include <json-c/json_object_iterator.h>
#include <json-c/json_tokener.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "../error.hpp"

namespace hpcoll::detail {

struct json_release {
  void operator()(json_object* v) const noexcept { json_object_put(v); }
};
/// An owned json-c value (JSON null is a null pointer).
using json_value = std::unique_ptr<json_object, json_release>;

/// A malformed document: where and why ("line 3, column 7: unexpected character").
struct json_syntax_error {
  std::size_t line = 1, column = 1;
  std::string problem;
  std::string where() const {
    return concat({"line ", std::to_string(line), ", column ", std::to_string(column), ": ", problem});
  }
};

/// Parses one JSON document; throws json_syntax_error.
inline json_value parse_json(std::string_view text) {
  const std::string owned(text);  // json-c needs the terminating NUL to end a document
  const std::unique_ptr<json_tokener, decltype(&json_tokener_free)> tokener(json_tokener_new(), &json_tokener_free);
  if (!tokener) throw json_syntax_error{1, 1, "out of memory"};
  json_tokener_set_flags(tokener.get(), JSON_TOKENER_STRICT);
  json_value value(json_tokener_parse_ex(tokener.get(), owned.c_str(), static_cast<int>(owned.size() + 1)));
  const json_tokener_error status = json_tokener_get_error(tokener.get());
  if (status == json_tokener_success) return value;
  json_syntax_error e;
  const std::size_t end = std::min(json_tokener_get_parse_end(tokener.get()), owned.size());
  for (std::size_t i = 0; i < end; ++i) {
    if (owned[i] == '\n') {
      ++e.line;
      e.column = 1;
    } else if ((static_cast<unsigned char>(owned[i]) & 0xC0) != 0x80) {  // columns count characters
      ++e.column;
    }
  }
  e.problem = status == json_tokener_error_parse_eof ? "the document ends early" : json_tokener_error_desc(status);
  if (owned.find_first_not_of(" \t\r\n") == std::string::npos) e.problem = "the document is empty";
  throw e;
}

/// "null", "boolean", "number", "string", "array" or "object".
inline std::string_view json_kind(const json_object* v) {
  switch (v ? json_object_get_type(v) : json_type_null) {
    case json_type_null: return "null";
    case json_type_boolean: return "boolean";
    case json_type_double:
    case json_type_int: return "number";
    case json_type_string: return "string";
    case json_type_array: return "array";
    case json_type_object: return "object";
  }
  return "?";
}

inline bool json_is_object(const json_object* v) { return v && json_object_get_type(v) == json_type_object; }
inline bool json_is_array(const json_object* v) { return v && json_object_get_type(v) == json_type_array; }
inline bool json_is_string(const json_object* v) { return v && json_object_get_type(v) == json_type_string; }
inline bool json_is_number(const json_object* v) {
  return v && (json_object_get_type(v) == json_type_int || json_object_get_type(v) == json_type_double);
}

/// The member `key` of an object: nullopt when absent, a null pointer for JSON null.
inline std::optional<json_object*> json_member(json_object* object, const char* key) {
  json_object* found = nullptr;
  if (!json_object_object_get_ex(object, key, &found)) return std::nullopt;
  return found;
}

/// Calls f(key, value) for the members of an object, in document order.
template <class F>
void json_for_each_member(json_object* object, F&& f) {
  const json_object_iterator end = json_object_iter_end(object);
  for (json_object_iterator it = json_object_iter_begin(object); !json_object_iter_equal(&it, &end);
       json_object_iter_next(&it))
    f(std::string_view(json_object_iter_peek_name(&it)), json_object_iter_peek_value(&it));
}

/// A whole number >= 0 as written (integers up to 2^64 − 1 are exact; json-c
/// reads larger ones as 2^64 − 1), nullopt for anything else.
inline std::optional<std::uint64_t> json_whole_number(json_object* v) {
  if (!v || json_object_get_type(v) != json_type_int || json_object_get_int64(v) < 0) return std::nullopt;
  return json_object_get_uint64(v);
}

/// The value as compact JSON text (for error messages).
inline std::string json_text(json_object* v) {
  return v ? json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE) : "null";
}

/// A JSON number written with the shortest text that reads back as the same
/// double (json-c's own format prints 17 digits).
inline json_value json_number(double d) {
  char text[32];
  const auto [end, ec] = std::to_chars(text, text + sizeof text - 1, d);
  *end = '\0';
  return json_value(json_object_new_double_s(d, text));
}

inline json_value json_string(std::string_view s) {
  return json_value(json_object_new_string_len(s.data(), static_cast<int>(s.size())));
}

/// Adds `value` to `object` under `key` (the object takes it over).
inline void json_set(json_object* object, const char* key, json_value value) {
  json_object_object_add(object, key, value.release());
}

/// The document as indented text (two spaces, "key": value).
inline std::string json_pretty(json_object* v) {
  return json_object_to_json_string_ext(v, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
                                               JSON_C_TO_STRING_NOSLASHESCAPE);
}

/// A file read whole: its text, or that it does not exist, or why it cannot be read.
struct file_text {
  bool exists = false;
  std::string text;
  std::string problem;  ///< "cannot open the file: Permission denied", "is a directory, not a file"
};

inline file_text read_file(const std::string& path) {
  file_text f;
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) {
    f.exists = errno != ENOENT;
    f.problem = concat({"cannot open the file: ", std::strerror(errno)});
    return f;
  }
  f.exists = true;
  char chunk[4096];
  std::size_t n = 0;
  while ((n = std::fread(chunk, 1, sizeof chunk, file)) > 0) f.text.append(chunk, n);
  const int code = errno;
  if (std::ferror(file))
    f.problem = code == EISDIR ? "is a directory, not a file" : concat({"cannot read the file: ", std::strerror(code)});
  std::fclose(file);
  return f;
}

}  // namespace hpcoll::detail
