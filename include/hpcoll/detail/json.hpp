// A small, strict JSON reader and writer (RFC 8259) for hpcoll's own files:
// the machine file (machine_file.hpp) and tuning tables. No dependency beyond
// the standard library.
//
//   json::value v = json::parse(text);          // throws json::parse_error (line, column)
//   double a = v.at("alpha").as_number();        // throws hpcoll::error on a missing key / wrong type
//   if (const json::value* g = v.find("gamma")) ...
//   json::object o;  o.push_back({"alpha", 2e-6});
//   std::string text = json::dump(json::value(std::move(o)));
//
// Strict: no comments, no trailing commas, no leading zeros, no NaN/Infinity,
// no control characters inside strings, no duplicate keys in one object, one
// value per document (whitespace around it; a UTF-8 byte order mark is
// skipped). \uXXXX escapes (surrogate pairs included) become UTF-8; other
// bytes are kept as they are. Numbers are doubles; a number outside double's
// range is an error. Objects keep their keys in document order. Nesting
// deeper than json::max_depth is refused.
#pragma once

#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "../error.hpp"

namespace hpcoll::detail::json {

// (kind is declared before the array and object aliases: GCC's -Wshadow
// takes the enumerators for redeclarations of them otherwise.)
enum class kind { null, boolean, number, string, array, object };

class value;
struct member;

using array = std::vector<value>;
/// Members in document order (keys are unique in parsed documents).
using object = std::vector<member>;

/// "null", "boolean", "number", "string", "array" or "object".
constexpr std::string_view kind_name(kind k) {
  switch (k) {
    case kind::null: return "null";
    case kind::boolean: return "boolean";
    case kind::number: return "number";
    case kind::string: return "string";
    case kind::array: return "array";
    case kind::object: return "object";
  }
  return "?";
}

/// A malformed document. what() is "hpcoll::json: line L, column C: problem";
/// line and column count from 1, columns in characters (UTF-8 code points).
class parse_error : public hpcoll::error {
public:
  parse_error(std::size_t line, std::size_t column, std::size_t offset, const std::string& problem)
      : hpcoll::error("json", "", position(line, column) + ": " + problem),
        line_(line), column_(column), offset_(offset), problem_(problem) {}

  std::size_t line() const noexcept { return line_; }
  std::size_t column() const noexcept { return column_; }
  /// Byte offset into the text.
  std::size_t offset() const noexcept { return offset_; }
  /// The problem without the position ("expected ':' after an object key").
  const std::string& problem() const noexcept { return problem_; }
  /// "line L, column C: problem" — for wrapping into another message.
  std::string detail() const { return position(line_, column_) + ": " + problem_; }

private:
  static std::string position(std::size_t line, std::size_t column) {
    return "line " + std::to_string(line) + ", column " + std::to_string(column);
  }
  std::size_t line_, column_, offset_;
  std::string problem_;
};

/// One JSON value: null, boolean, number (double), string, array or object.
/// The as_* accessors and at() throw hpcoll::error ("hpcoll::json: expected a
/// number, found a string") on a kind mismatch or a missing key.
class value {
public:
  // The constructors are defined below json::member, which must be complete
  // before the variant's special members are instantiated (clang does so at
  // the first in-class use).
  inline value() noexcept;  // null
  inline value(std::nullptr_t) noexcept;
  inline value(bool b) noexcept;
  template <class N>
    requires(std::is_arithmetic_v<N> && !std::is_same_v<N, bool>)
  value(N n) noexcept;
  inline value(const char* s);
  inline value(std::string_view s);
  inline value(std::string s) noexcept;
  inline value(json::array a) noexcept;
  inline value(json::object o) noexcept;

  json::kind kind() const noexcept { return static_cast<json::kind>(v_.index()); }
  bool is_null() const noexcept { return kind() == json::kind::null; }
  bool is_bool() const noexcept { return kind() == json::kind::boolean; }
  bool is_number() const noexcept { return kind() == json::kind::number; }
  bool is_string() const noexcept { return kind() == json::kind::string; }
  bool is_array() const noexcept { return kind() == json::kind::array; }
  bool is_object() const noexcept { return kind() == json::kind::object; }

  bool as_bool() const { return get<bool>(json::kind::boolean); }
  double as_number() const { return get<double>(json::kind::number); }
  const std::string& as_string() const { return get<std::string>(json::kind::string); }
  const json::array& as_array() const { return get<json::array>(json::kind::array); }
  json::array& as_array() { return get<json::array>(json::kind::array); }
  const json::object& as_object() const { return get<json::object>(json::kind::object); }
  json::object& as_object() { return get<json::object>(json::kind::object); }

  /// The member named `key` of an object, nullptr when there is none; throws
  /// when this is not an object.
  inline const value* find(std::string_view key) const;
  inline value* find(std::string_view key);
  /// The member named `key` of an object; throws when absent.
  inline const value& at(std::string_view key) const;
  /// Element i of an array; throws when out of range.
  inline const value& at(std::size_t i) const;
  /// Sets (replaces or appends) the member `key` of an object; a null value
  /// becomes an empty object first.
  inline value& set(std::string_view key, value v);
  /// Elements of an array or members of an object; 0 for scalars.
  inline std::size_t size() const noexcept;

  friend inline bool operator==(const value& a, const value& b);

private:
  template <class T>
  const T& get(json::kind want) const {
    if (const T* p = std::get_if<T>(&v_)) return *p;
    mismatch(want);
  }
  template <class T>
  T& get(json::kind want) {
    if (T* p = std::get_if<T>(&v_)) return *p;
    mismatch(want);
  }
  [[noreturn]] void mismatch(json::kind want) const {
    throw hpcoll::error("json", "", "expected " + article(want) + ", found " + article(kind()));
  }
  static std::string article(json::kind k) {
    const std::string_view n = kind_name(k);
    return (n[0] == 'a' || n[0] == 'o' ? "an " : "a ") + std::string(n);
  }

  // Alternatives in the order of json::kind; constructed by index (no converting
  // constructor: json::member is incomplete here).
  std::variant<std::nullptr_t, bool, double, std::string, json::array, json::object> v_;
};

struct member {
  std::string key;
  json::value value;
  friend bool operator==(const member&, const member&) = default;
};

inline value::value() noexcept = default;
inline value::value(std::nullptr_t) noexcept {}
inline value::value(bool b) noexcept : v_(std::in_place_index<1>, b) {}
template <class N>
  requires(std::is_arithmetic_v<N> && !std::is_same_v<N, bool>)
value::value(N n) noexcept : v_(std::in_place_index<2>, static_cast<double>(n)) {}
inline value::value(const char* s) : v_(std::in_place_index<3>, s) {}
inline value::value(std::string_view s) : v_(std::in_place_index<3>, s) {}
inline value::value(std::string s) noexcept : v_(std::in_place_index<3>, std::move(s)) {}
inline value::value(json::array a) noexcept : v_(std::in_place_index<4>, std::move(a)) {}
inline value::value(json::object o) noexcept : v_(std::in_place_index<5>, std::move(o)) {}

inline const value* value::find(std::string_view key) const {
  for (const member& m : as_object())
    if (m.key == key) return &m.value;
  return nullptr;
}
inline value* value::find(std::string_view key) {
  for (member& m : as_object())
    if (m.key == key) return &m.value;
  return nullptr;
}
inline const value& value::at(std::string_view key) const {
  if (const value* v = find(key)) return *v;
  throw hpcoll::error("json", "", "no member \"" + std::string(key) + "\"");
}
inline const value& value::at(std::size_t i) const {
  const json::array& a = as_array();
  if (i >= a.size())
    throw hpcoll::error("json", "", "index " + std::to_string(i) + " out of range (size " + std::to_string(a.size()) + ")");
  return a[i];
}
inline value& value::set(std::string_view key, value v) {
  if (is_null()) v_ = json::object{};
  if (value* old = find(key)) return *old = std::move(v);
  json::object& o = as_object();
  o.push_back({std::string(key), std::move(v)});
  return o.back().value;
}
inline std::size_t value::size() const noexcept {
  if (const auto* a = std::get_if<json::array>(&v_)) return a->size();
  if (const auto* o = std::get_if<json::object>(&v_)) return o->size();
  return 0;
}
inline bool operator==(const value& a, const value& b) { return a.v_ == b.v_; }

inline constexpr int max_depth = 256;

namespace parsing {

class parser {
public:
  explicit parser(std::string_view text) : s_(text) {
    if (s_.substr(0, 3) == "\xEF\xBB\xBF") i_ = 3;
  }

  value document() {
    skip_ws();
    if (i_ == s_.size()) fail("empty document: expected a JSON value");
    value v = parse_value(0);
    skip_ws();
    if (i_ != s_.size()) fail("unexpected " + describe_here() + " after the JSON value");
    return v;
  }

private:
  [[noreturn]] void fail_at(std::size_t at, const std::string& problem) const {
    std::size_t line = 1, column = 1;
    for (std::size_t k = 0; k < at && k < s_.size(); ++k) {
      const auto c = static_cast<unsigned char>(s_[k]);
      if (c == '\n') {
        ++line, column = 1;
      } else if ((c & 0xC0) != 0x80 && !(k < 3 && s_.substr(0, 3) == "\xEF\xBB\xBF")) {
        ++column;  // count code points, not UTF-8 continuation bytes
      }
    }
    throw parse_error(line, column, at, problem);
  }
  [[noreturn]] void fail(const std::string& problem) const { fail_at(i_, problem); }

  std::string describe_here() const {
    if (i_ >= s_.size()) return "end of input";
    const auto c = static_cast<unsigned char>(s_[i_]);
    if (c < 0x20 || c >= 0x7F) {
      static constexpr char hex[] = "0123456789abcdef";
      return std::string("byte 0x") + hex[c >> 4] + hex[c & 15];
    }
    return std::string("'") + static_cast<char>(c) + "'";
  }

  void skip_ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }

  bool literal(std::string_view word) {
    if (s_.substr(i_, word.size()) != word) return false;
    i_ += word.size();
    return true;
  }

  value parse_value(int depth) {
    if (i_ >= s_.size()) fail("unexpected end of input: expected a JSON value");
    switch (s_[i_]) {
      case '{': return parse_object(depth + 1);
      case '[': return parse_array(depth + 1);
      case '"': return value(parse_string());
      case 't':
        if (literal("true")) return value(true);
        break;
      case 'f':
        if (literal("false")) return value(false);
        break;
      case 'n':
        if (literal("null")) return value(nullptr);
        break;
      default:
        if (s_[i_] == '-' || (s_[i_] >= '0' && s_[i_] <= '9')) return value(parse_number());
    }
    fail("unexpected " + describe_here() + ": expected a JSON value");
  }

  void enter(int depth) const {
    if (depth > max_depth) fail("nesting deeper than " + std::to_string(max_depth) + " levels");
  }

  value parse_object(int depth) {
    enter(depth);
    ++i_;  // '{'
    json::object members;
    skip_ws();
    if (i_ < s_.size() && s_[i_] == '}') {
      ++i_;
      return value(std::move(members));
    }
    for (;;) {
      skip_ws();
      if (i_ >= s_.size() || s_[i_] != '"')
        fail("unexpected " + describe_here() + ": expected a string as object key");
      const std::size_t key_at = i_;
      std::string key = parse_string();
      for (const member& m : members)
        if (m.key == key) fail_at(key_at, "duplicate key \"" + key + "\"");
      skip_ws();
      if (i_ >= s_.size() || s_[i_] != ':') fail("unexpected " + describe_here() + ": expected ':' after an object key");
      ++i_;
      skip_ws();
      value v = parse_value(depth);
      members.push_back({std::move(key), std::move(v)});
      skip_ws();
      if (i_ < s_.size() && s_[i_] == ',') {
        ++i_;
        continue;
      }
      if (i_ < s_.size() && s_[i_] == '}') {
        ++i_;
        return value(std::move(members));
      }
      fail("unexpected " + describe_here() + ": expected ',' or '}' in an object");
    }
  }

  value parse_array(int depth) {
    enter(depth);
    ++i_;  // '['
    json::array elements;
    skip_ws();
    if (i_ < s_.size() && s_[i_] == ']') {
      ++i_;
      return value(std::move(elements));
    }
    for (;;) {
      skip_ws();
      elements.push_back(parse_value(depth));
      skip_ws();
      if (i_ < s_.size() && s_[i_] == ',') {
        ++i_;
        continue;
      }
      if (i_ < s_.size() && s_[i_] == ']') {
        ++i_;
        return value(std::move(elements));
      }
      fail("unexpected " + describe_here() + ": expected ',' or ']' in an array");
    }
  }

  unsigned hex4() {
    if (s_.size() - i_ < 4) fail("incomplete \\u escape: expected 4 hex digits");
    unsigned u = 0;
    for (int k = 0; k < 4; ++k, ++i_) {
      const char c = s_[i_];
      u <<= 4;
      if (c >= '0' && c <= '9') u |= static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f') u |= static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') u |= static_cast<unsigned>(c - 'A' + 10);
      else fail("unexpected " + describe_here() + " in a \\u escape: expected a hex digit");
    }
    return u;
  }

  static void put_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  std::string parse_string() {
    const std::size_t open = i_;
    ++i_;  // '"'
    std::string out;
    for (;;) {
      if (i_ >= s_.size()) fail_at(open, "unterminated string");
      const char c = s_[i_];
      if (c == '"') {
        ++i_;
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20)
        fail("unescaped control character (" + describe_here() + ") in a string");
      if (c != '\\') {
        out += c;
        ++i_;
        continue;
      }
      const std::size_t escape_at = i_;
      ++i_;
      if (i_ >= s_.size()) fail_at(open, "unterminated string");
      switch (s_[i_++]) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          std::uint32_t cp = hex4();
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (s_.substr(i_, 2) != "\\u") fail_at(escape_at, "high surrogate \\u escape without a low surrogate");
            i_ += 2;
            const std::uint32_t low = hex4();
            if (low < 0xDC00 || low > 0xDFFF) fail_at(escape_at, "high surrogate \\u escape without a low surrogate");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            fail_at(escape_at, "low surrogate \\u escape without a high surrogate");
          }
          put_utf8(out, cp);
          break;
        }
        default:
          --i_;
          fail("invalid escape '\\" + std::string(1, s_[i_]) + "' in a string");
      }
    }
  }

  double parse_number() {
    const std::size_t start = i_;
    const auto digit = [&] { return i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9'; };
    if (s_[i_] == '-') ++i_;
    if (!digit()) fail("unexpected " + describe_here() + " in a number: expected a digit");
    if (s_[i_] == '0') {
      ++i_;
      if (digit()) fail_at(start, "number with a leading zero");
    } else {
      while (digit()) ++i_;
    }
    if (i_ < s_.size() && s_[i_] == '.') {
      ++i_;
      if (!digit()) fail("unexpected " + describe_here() + " in a number: expected a digit after '.'");
      while (digit()) ++i_;
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      if (!digit()) fail("unexpected " + describe_here() + " in a number: expected a digit in the exponent");
      while (digit()) ++i_;
    }
    double d = 0;
    const char* first = s_.data() + start;
    const char* last = s_.data() + i_;
    const auto [end, ec] = std::from_chars(first, last, d);
    if (ec == std::errc::result_out_of_range) {
      // Underflow to zero is harmless (1e-400 is 0); overflow is not.
      bool zero_mantissa = true, negative_exponent = false;
      for (const char* p = first; p != last && *p != 'e' && *p != 'E'; ++p)
        if (*p >= '1' && *p <= '9') zero_mantissa = false;
      for (const char* p = first; p != last; ++p)
        if ((*p == 'e' || *p == 'E') && p + 1 != last && p[1] == '-') negative_exponent = true;
      if (zero_mantissa || negative_exponent) return *first == '-' ? -0.0 : 0.0;
      fail_at(start, "number " + std::string(first, last) + " is out of range");
    }
    if (ec != std::errc{} || end != last) fail_at(start, "malformed number");
    return d;
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

}  // namespace parsing

/// Parses one JSON document; throws json::parse_error with line and column.
inline value parse(std::string_view text) { return parsing::parser(text).document(); }

// --- writing ------------------------------------------------------------------

/// `s` as a JSON string literal, quotes included ("a\"b\n" → "\"a\\\"b\\n\"").
/// Bytes >= 0x80 are copied (UTF-8 passes through).
inline std::string quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          static constexpr char hex[] = "0123456789abcdef";
          out += "\\u00";
          out += hex[static_cast<unsigned char>(c) >> 4];
          out += hex[static_cast<unsigned char>(c) & 15];
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

/// The shortest text that reads back as exactly `d` ("2e-06", "0.5", "3").
/// JSON has no NaN or infinity: those throw hpcoll::error.
inline std::string number(double d) {
  if (!std::isfinite(d)) throw hpcoll::error("json", "", "cannot write a non-finite number");
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
  if (ec != std::errc{}) throw hpcoll::error("json", "", "cannot format a number");
  return std::string(buf, end);
}

namespace writing {
inline void dump(std::string& out, const value& v, int indent, int level) {
  const auto newline = [&](int l) {
    if (indent < 0) return;
    out += '\n';
    out.append(static_cast<std::size_t>(indent * l), ' ');
  };
  switch (v.kind()) {
    case kind::null: out += "null"; return;
    case kind::boolean: out += v.as_bool() ? "true" : "false"; return;
    case kind::number: out += number(v.as_number()); return;
    case kind::string: out += quote(v.as_string()); return;
    case kind::array: {
      const array& a = v.as_array();
      // Arrays of scalars stay on one line.
      bool flat = true;
      for (const value& e : a) flat = flat && !e.is_array() && !e.is_object();
      out += '[';
      for (std::size_t k = 0; k < a.size(); ++k) {
        if (k) out += flat && indent >= 0 ? ", " : ",";
        if (!flat) newline(level + 1);
        dump(out, a[k], indent, level + 1);
      }
      if (!flat && !a.empty()) newline(level);
      out += ']';
      return;
    }
    case kind::object: {
      const object& o = v.as_object();
      out += '{';
      for (std::size_t k = 0; k < o.size(); ++k) {
        if (k) out += ',';
        newline(level + 1);
        out += quote(o[k].key);
        out += indent >= 0 ? ": " : ":";
        dump(out, o[k].value, indent, level + 1);
      }
      if (!o.empty()) newline(level);
      out += '}';
      return;
    }
  }
}
}  // namespace writing

/// `v` as JSON text: indented by `indent` spaces per level (arrays of scalars
/// on one line), or compact on one line with indent < 0. parse(dump(v)) == v.
inline std::string dump(const value& v, int indent = 2) {
  std::string out;
  writing::dump(out, v, indent, 0);
  return out;
}

}  // namespace hpcoll::detail::json
