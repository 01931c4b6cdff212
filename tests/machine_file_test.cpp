// The JSON reader/writer (detail/json.hpp) and the machine file
// (machine_file.hpp): parsing with error positions, writing, the profile round
// trip, the lookup through the environment, errors naming the file, γ per
// reduction. No MPI; no timing.
#include <doctest/doctest.h>

#include "support/error_checks.hpp"

#include <hpcoll/machine_file.hpp>

#include <unistd.h>

#include <complex>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace json = hpcoll::detail::json;
namespace fs = std::filesystem;
using hpcoll_test::contains;
using hpcoll_test::error_of;
using hpcoll_test::scoped_env;

namespace {

/// A fresh directory under the system temp directory, removed at scope exit.
struct temp_dir {
  fs::path path;
  explicit temp_dir(const std::string& tag) {
    path = fs::temp_directory_path() / ("hpcoll_machine_file_test_" + tag + "_" + std::to_string(::getpid()));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~temp_dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string file(const std::string& name, const std::string& text) const {
    const fs::path p = path / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
};

const std::string valid_file = R"({
  "format": "hpcoll-machine-1",
  "alpha": 1.5e-6, "beta": 2e-10, "gap": 4e-7, "overhead": 1e-7, "copy": 9e-11,
  "gamma": {"default": 3e-10, "sum/int32": 1e-10, "sum/float64": 2.5e-10, "prod/float32": 4e-10},
  "measured": {"host": "example", "np": 2, "samples": [1, 2, 3]}
})";

}  // namespace

TEST_CASE("machine_file.json_parse") {
  const json::value v = json::parse(
      "\xEF\xBB\xBF { \"a\" : [1, -0, 2.5e-3, 1E+2, true, false, null, \"x\"],\r\n"
      "\t\"b\": {\"nested\": {}}, \"c\": [], \"s\": \"q\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\" } ");
  REQUIRE(v.is_object());
  REQUIRE(v.size() == 4);
  // Members keep document order.
  CHECK(v.as_object()[0].key == "a");
  CHECK(v.as_object()[3].key == "s");
  const json::value& a = v.at("a");
  REQUIRE(a.is_array());
  REQUIRE(a.size() == 8);
  CHECK(a.at(std::size_t{0}).as_number() == 1);
  CHECK(a.at(std::size_t{1}).as_number() == 0);
  CHECK(a.at(std::size_t{2}).as_number() == 2.5e-3);
  CHECK(a.at(std::size_t{3}).as_number() == 100);
  CHECK(a.at(std::size_t{4}).as_bool() == true);
  CHECK(a.at(std::size_t{5}).as_bool() == false);
  CHECK(a.at(std::size_t{6}).is_null());
  CHECK(a.at(std::size_t{7}).as_string() == "x");
  CHECK(v.at("b").at("nested").is_object());
  CHECK(v.at("b").at("nested").size() == 0);
  CHECK(v.at("c").as_array().empty());
  CHECK(v.at("s").as_string() == "q\"\\/\b\f\n\r\t\xC3\xA9\xF0\x9F\x98\x80");
  CHECK(v.find("missing") == nullptr);
  CHECK(v.find("a") == &a);

  CHECK(json::parse("0").as_number() == 0);
  CHECK(json::parse(" \"\" ").as_string().empty());
  CHECK(json::parse("1e-400").as_number() == 0);  // underflow is zero, not an error
  CHECK(json::parse("123456789012345678").as_number() == 123456789012345678.0);

  // Kind mismatches and missing members are hpcoll::errors naming the problem.
  CHECK(contains(error_of([&] { (void)v.at("a").as_number(); }), "expected a number, found an array"));
  CHECK(contains(error_of([&] { (void)v.at("s").as_object(); }), "expected an object, found a string"));
  CHECK(contains(error_of([&] { (void)v.at("nope"); }), "no member \"nope\""));
  CHECK(contains(error_of([&] { (void)a.at(std::size_t{8}); }), "index 8 out of range"));
  CHECK(contains(error_of([&] { (void)a.find("x"); }), "expected an object"));
}

TEST_CASE("machine_file.json_errors") {
  struct bad {
    std::string text;
    std::size_t line, column;
    std::string problem;
  };
  const std::vector<bad> cases = {
      {"", 1, 1, "empty document"},
      {"   \n  ", 2, 3, "empty document"},
      {"{\"a\": 1,}", 1, 9, "expected a string as object key"},
      {"[1, 2,]", 1, 7, "expected a JSON value"},
      {"[1 2]", 1, 4, "expected ',' or ']'"},
      {"{\"a\" 1}", 1, 6, "expected ':'"},
      {"{\"a\": 1 \"b\": 2}", 1, 9, "expected ',' or '}'"},
      {"{\"a\": 1", 1, 8, "expected ',' or '}'"},
      {"01", 1, 1, "leading zero"},
      {"-", 1, 2, "expected a digit"},
      {"1.", 1, 3, "expected a digit after '.'"},
      {"1e", 1, 3, "expected a digit in the exponent"},
      {".5", 1, 1, "expected a JSON value"},
      {"+1", 1, 1, "expected a JSON value"},
      {"1e400", 1, 1, "out of range"},
      {"NaN", 1, 1, "expected a JSON value"},
      {"tru", 1, 1, "expected a JSON value"},
      {"nul", 1, 1, "expected a JSON value"},
      {"'a'", 1, 1, "expected a JSON value"},
      {"// comment\n{}", 1, 1, "expected a JSON value"},
      {"\"abc", 1, 1, "unterminated string"},
      {"[\"a\\qb\"]", 1, 5, "invalid escape '\\q'"},
      {"\"a\tb\"", 1, 3, "unescaped control character"},
      {"\"\\u12g4\"", 1, 6, "expected a hex digit"},
      {"\"\\ud800\"", 1, 2, "high surrogate"},
      {"\"\\udc00\"", 1, 2, "low surrogate"},
      {"{\"a\": 1,\n  \"a\": 2}", 2, 3, "duplicate key \"a\""},
      {"[1]\n x", 2, 2, "after the JSON value"},
      {"{} {}", 1, 4, "after the JSON value"},
      {"\"\xC3\xA9\" x", 1, 5, "after the JSON value"},  // columns count characters, not bytes
      {std::string(300, '['), 1, 257, "nesting deeper than 256"},
  };
  for (const bad& b : cases) {
    CAPTURE(b.text);
    try {
      (void)json::parse(b.text);
      FAIL_CHECK("accepted");
    } catch (const json::parse_error& e) {
      CHECK(e.line() == b.line);
      CHECK(e.column() == b.column);
      CHECK(contains(e.problem(), b.problem));
      const std::string position = "line " + std::to_string(b.line) + ", column " + std::to_string(b.column) + ": ";
      CHECK(std::string(e.what()) == "hpcoll::json: " + position + e.problem());
      CHECK(e.detail() == position + e.problem());
    }
  }
  // A parse_error is an hpcoll::error like every other library error.
  CHECK(contains(error_of([] { (void)json::parse("[1,"); }), "line 1, column 4"));
}

TEST_CASE("machine_file.json_write") {
  CHECK(json::quote("plain") == "\"plain\"");
  CHECK(json::quote("a\"b\\c\n\t\x01/\xC3\xA9") == "\"a\\\"b\\\\c\\n\\t\\u0001/\xC3\xA9\"");
  CHECK(json::number(2) == "2");
  CHECK(json::number(0.5) == "0.5");
  CHECK(json::number(-1.25e-10) == "-1.25e-10");
  for (double d : {1.0 / 3, 2e-6, 6.02214076e23, 5e-324, 1.7976931348623157e308, 0.1 + 0.2})
    CHECK(json::parse(json::number(d)).as_number() == d);  // shortest text, exact round trip
  CHECK(contains(error_of([] { (void)json::number(1.0 / 0.0); }), "non-finite"));

  json::value doc;
  doc.set("name", "x\"y");
  doc.set("n", 3);
  doc.set("list", json::array{1.5, "two", nullptr, true, json::array{}});
  json::value inner;
  inner.set("k", -1e-9);
  doc.set("inner", inner);
  doc.set("empty", json::object{});
  doc.set("n", 4);  // replaces, keeps the position
  CHECK(doc.as_object()[1].key == "n");
  CHECK(doc.at("n").as_number() == 4);
  for (int indent : {-1, 0, 2, 4}) {
    const std::string text = json::dump(doc, indent);
    CAPTURE(text);
    CHECK(json::parse(text) == doc);
  }
  CHECK(json::dump(doc, -1) ==
        R"({"name":"x\"y","n":4,"list":[1.5,"two",null,true,[]],"inner":{"k":-1e-09},"empty":{}})");
  CHECK(json::dump(json::array{1, 2}) == "[1, 2]");
  CHECK_FALSE(json::parse("[1, 2]") == json::parse("[2, 1]"));
  CHECK_FALSE(json::parse("{\"a\": 1, \"b\": 2}") == json::parse("{\"b\": 2, \"a\": 1}"));  // order matters
}

TEST_CASE("machine_file.round_trip") {
  temp_dir dir("round_trip");
  hpcoll::machine_profile p;
  p.base = {1.25e-6, 1.1e-10, 3.3e-10, 4.5e-7, 1.2e-7, 8.75e-11};
  p.gammas = {{"sum", "int32", 1.1e-10}, {"sum", "float64", 2.2e-10}, {"max", "uint8", 0.0}};
  p.measured.set("host", "node \"1\"");
  p.measured.set("np", 2);
  p.measured.set("pingpong", json::array{json::object{{"bytes", 0}, {"seconds", 1.3e-6}}});

  const std::string path = (dir.path / "nested" / "dir" / "machine.json").string();  // directories created
  hpcoll::save_machine_profile(p, path);
  CHECK_FALSE(fs::exists(path + ".tmp"));
  const hpcoll::machine_profile q = hpcoll::load_machine_profile(path);
  CHECK(q.base == p.base);
  CHECK(q.gammas == p.gammas);
  CHECK(q.measured == p.measured);
  CHECK(q.source == path);

  // The file is readable JSON in the documented layout.
  const json::value doc = json::parse(json::dump(hpcoll::machine_profile_json(p)));
  CHECK(doc.as_object()[0].key == "format");
  CHECK(doc.at("format").as_string() == hpcoll::machine_file_format);
  CHECK(doc.at("gamma").as_object()[0].key == "default");
  CHECK(doc.at("gamma").at("sum/float64").as_number() == 2.2e-10);

  // Overwriting replaces the file.
  p.base.alpha = 7e-6;
  p.measured = json::value{};
  hpcoll::save_machine_profile(p, path);
  const hpcoll::machine_profile r = hpcoll::load_machine_profile(path);
  CHECK(r.base.alpha == 7e-6);
  CHECK(r.measured.is_null());

  // A file written by hand with the documented example values.
  const hpcoll::machine_profile h = hpcoll::load_machine_profile(dir.file("hand.json", valid_file));
  CHECK(h.base == hpcoll::machine{1.5e-6, 2e-10, 3e-10, 4e-7, 1e-7, 9e-11});
  CHECK(h.gammas.size() == 3);
  CHECK(h.measured.at("samples").size() == 3);
}

TEST_CASE("machine_file.missing_file") {
  temp_dir dir("missing");
  const std::string path = (dir.path / "no-such-machine.json").string();
  scoped_env env("HPCOLL_MACHINE", path);
  CHECK(hpcoll::default_machine_path() == path);
  const std::string message = error_of([] { (void)hpcoll::load_default_machine_profile(); });
  CHECK(contains(message, "HPCOLL_MACHINE"));
  CHECK(contains(message, path));
  CHECK(contains(message, "does not exist"));
  // current_machine_profile does not fall back either, and does not cache the failure.
  CHECK(contains(error_of([] { (void)hpcoll::current_machine_profile(); }), path));
  CHECK(contains(error_of([] { (void)hpcoll::current_machine_profile(); }), path));
  // load_machine_profile on a missing file names it.
  CHECK(contains(error_of([&] { (void)hpcoll::load_machine_profile(path); }),
                 "hpcoll::load_machine_profile: " + path + ": cannot open the file"));
}

TEST_CASE("machine_file.defaults") {
  temp_dir dir("defaults");
  fs::create_directories(dir.path / "home");
  fs::create_directories(dir.path / "xdg");
  scoped_env machine("HPCOLL_MACHINE", std::nullopt);
  scoped_env home("HOME", (dir.path / "home").string());
  scoped_env xdg("XDG_CONFIG_HOME", std::nullopt);

  // The lookup order: $HPCOLL_MACHINE, $XDG_CONFIG_HOME (absolute), $HOME.
  CHECK(hpcoll::default_machine_path() == (dir.path / "home").string() + "/.config/hpcoll/machine.json");
  {
    scoped_env rel("XDG_CONFIG_HOME", "relative/dir");
    CHECK(hpcoll::default_machine_path() == (dir.path / "home").string() + "/.config/hpcoll/machine.json");
  }
  xdg.set((dir.path / "xdg").string());
  CHECK(hpcoll::default_machine_path() == (dir.path / "xdg").string() + "/hpcoll/machine.json");
  {
    scoped_env empty("HPCOLL_MACHINE", "");  // empty counts as unset
    CHECK(hpcoll::default_machine_path() == (dir.path / "xdg").string() + "/hpcoll/machine.json");
    scoped_env set("HPCOLL_MACHINE", "/some/where.json");
    CHECK(hpcoll::default_machine_path() == "/some/where.json");
  }

  // No file anywhere: the documented defaults.
  const hpcoll::machine_profile d = hpcoll::load_default_machine_profile();
  CHECK(d.source == "built-in defaults");
  CHECK(d.base == hpcoll::machine{});
  CHECK(d.gammas.empty());
  CHECK(d.measured.is_null());
  CHECK(d.for_reduction("sum", "int32") == hpcoll::machine{});
  {
    scoped_env none("HOME", std::nullopt);
    scoped_env no_xdg("XDG_CONFIG_HOME", std::nullopt);
    CHECK(hpcoll::default_machine_path().empty());
    CHECK(hpcoll::load_default_machine_profile().source == "built-in defaults");
  }

  // current_machine_profile: read once, then the same object.
  const hpcoll::machine_profile& c = hpcoll::current_machine_profile();
  CHECK(c.source == "built-in defaults");
  CHECK(&hpcoll::current_machine_profile() == &c);

  // A file at the XDG location is found without HPCOLL_MACHINE.
  fs::create_directories(dir.path / "xdg" / "hpcoll");
  const std::string found = dir.file("xdg/hpcoll/machine.json", valid_file);
  const hpcoll::machine_profile f = hpcoll::load_default_machine_profile();
  CHECK(f.source == found);
  CHECK(f.base.alpha == 1.5e-6);
  // ... and a broken one there is an error, not a fallback.
  dir.file("xdg/hpcoll/machine.json", "{");
  CHECK(contains(error_of([] { (void)hpcoll::load_default_machine_profile(); }), found));
}

TEST_CASE("machine_file.malformed_file") {
  temp_dir dir("malformed");
  const auto replaced = [](std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
  };
  struct bad {
    std::string name, text, problem;
  };
  const std::vector<bad> cases = {
      {"syntax.json", replaced(valid_file, "\"beta\": 2e-10,", "\"beta\": 2e-10,,"), "line 3, column 34: "},
      {"empty.json", "", "line 1, column 1: empty document"},
      {"array.json", "[]", "expected a JSON object, found array"},
      {"no_format.json", replaced(valid_file, "\"format\": \"hpcoll-machine-1\",", ""), "missing \"format\""},
      {"format.json", replaced(valid_file, "hpcoll-machine-1", "hpcoll-machine-2"),
       "\"format\" is \"hpcoll-machine-2\", expected \"hpcoll-machine-1\""},
      {"no_alpha.json", replaced(valid_file, "\"alpha\": 1.5e-6,", ""), "missing \"alpha\""},
      {"no_copy.json", replaced(valid_file, ", \"copy\": 9e-11", ""), "missing \"copy\""},
      {"negative.json", replaced(valid_file, "\"beta\": 2e-10", "\"beta\": -2e-10"), "\"beta\" is negative (-2e-10)"},
      {"string.json", replaced(valid_file, "\"gap\": 4e-7", "\"gap\": \"4e-7\""), "\"gap\" must be a number"},
      {"null.json", replaced(valid_file, "\"overhead\": 1e-7", "\"overhead\": null"),
       "\"overhead\" must be a number (seconds or seconds per byte), found null"},
      {"typo.json", replaced(valid_file, "\"alpha\"", "\"alpha\": 1, \"alpah\""), "unknown key \"alpah\""},
      {"unknown.json", replaced(valid_file, "\"measured\"", "\"gamma2\""), "unknown key \"gamma2\""},
      {"unknown2.json", replaced(valid_file, "\"gamma\": {", "\"gamma\": 1, \"x\": {"), "unknown key \"x\""},
      {"gamma_default.json", replaced(valid_file, "\"default\": 3e-10, ", ""), "missing \"gamma\".\"default\""},
      {"gamma_key.json", replaced(valid_file, "sum/int32", "sum/int"), "\"gamma\".\"sum/int\" is not \"default\" or"},
      {"gamma_op.json", replaced(valid_file, "sum/int32", "add/int32"), "\"gamma\".\"add/int32\" is not"},
      {"gamma_slash.json", replaced(valid_file, "sum/int32", "sum"), "\"gamma\".\"sum\" is not"},
      {"gamma_negative.json", replaced(valid_file, "\"sum/float64\": 2.5e-10", "\"sum/float64\": -1"),
       "\"gamma\".\"sum/float64\" is negative"},
      {"gamma_value.json", replaced(valid_file, "\"default\": 3e-10", "\"default\": [3e-10]"),
       "\"gamma\".\"default\" must be a number"},
      {"measured.json", replaced(valid_file, "\"measured\": {\"host\": \"example\", \"np\": 2, \"samples\": [1, 2, 3]}",
                                 "\"measured\": 5"),
       "\"measured\" must be an object, found number"},
      {"duplicate.json", replaced(valid_file, "\"gap\"", "\"alpha\""), "line 3, column 35: duplicate key \"alpha\""},
  };
  for (const bad& b : cases) {
    CAPTURE(b.name);
    const std::string path = dir.file(b.name, b.text);
    const std::string message = error_of([&] { (void)hpcoll::load_machine_profile(path); });
    CHECK(contains(message, "hpcoll::load_machine_profile: " + path + ": "));
    CHECK(contains(message, b.problem));
  }
  // A missing gamma object and a gamma that is not an object.
  {
    std::string text = valid_file;
    text = replaced(text, ",\n  \"gamma\": {\"default\": 3e-10, \"sum/int32\": 1e-10, \"sum/float64\": 2.5e-10, \"prod/float32\": 4e-10}", "");
    CHECK(contains(error_of([&] { (void)hpcoll::load_machine_profile(dir.file("g1.json", text)); }), "missing \"gamma\""));
    text = replaced(valid_file, "\"gamma\": {\"default\": 3e-10, \"sum/int32\": 1e-10, \"sum/float64\": 2.5e-10, \"prod/float32\": 4e-10}",
                    "\"gamma\": 3e-10");
    CHECK(contains(error_of([&] { (void)hpcoll::load_machine_profile(dir.file("g2.json", text)); }),
                   "\"gamma\" must be an object, found number"));
  }
  // A directory where the file should be.
  fs::create_directories(dir.path / "adir");
  CHECK(contains(error_of([&] { (void)hpcoll::load_machine_profile((dir.path / "adir").string()); }), "is a directory"));
  // parse_machine_profile names its source.
  CHECK(contains(error_of([] { (void)hpcoll::parse_machine_profile("{}", "<text>"); }),
                 "hpcoll::load_machine_profile: <text>: missing \"format\""));
  // The valid file itself loads.
  CHECK(hpcoll::load_machine_profile(dir.file("valid.json", valid_file)).gammas.size() == 3);
}

TEST_CASE("machine_file.for_reduction") {
  using hpcoll::detail::reduction_op_key;
  using hpcoll::detail::reduction_type_key;
  namespace op = hpcoll::op;
  static_assert(reduction_op_key<op::sum>() == "sum");
  static_assert(reduction_op_key<const op::prod&>() == "prod");
  static_assert(reduction_op_key<op::min>() == "min");
  static_assert(reduction_op_key<op::max>() == "max");
  static_assert(reduction_op_key<op::land>() == "land");
  static_assert(reduction_op_key<op::lor>() == "lor");
  static_assert(reduction_op_key<op::band>() == "band");
  static_assert(reduction_op_key<op::bor>() == "bor");
  static_assert(reduction_op_key<op::bxor>() == "bxor");
  static_assert(reduction_op_key<op::minloc>() == "minloc");
  static_assert(reduction_op_key<op::maxloc>() == "maxloc");
  const auto lambda = [](int a, int b) { return a + b; };
  static_assert(reduction_op_key<decltype(lambda)>().empty());
  static_assert(reduction_op_key<op::non_commutative_op<decltype(lambda)>>().empty());

  static_assert(reduction_type_key<std::int8_t>() == "int8");
  static_assert(reduction_type_key<std::int16_t>() == "int16");
  static_assert(reduction_type_key<int>() == "int32");
  static_assert(reduction_type_key<const long long>() == "int64");
  static_assert(reduction_type_key<std::uint8_t>() == "uint8");
  static_assert(reduction_type_key<unsigned short>() == "uint16");
  static_assert(reduction_type_key<std::uint32_t>() == "uint32");
  static_assert(reduction_type_key<std::uint64_t>() == "uint64");
  static_assert(reduction_type_key<float>() == "float32");
  static_assert(reduction_type_key<double>() == "float64");
  static_assert(reduction_type_key<bool>().empty());
  static_assert(reduction_type_key<long double>().empty());
  static_assert(reduction_type_key<std::complex<double>>().empty());
  static_assert(reduction_type_key<std::pair<double, int>>().empty());
  CHECK(hpcoll::detail::reduction_key<op::sum, float>() == "sum/float32");
  CHECK(hpcoll::detail::reduction_key<op::minloc, std::pair<double, int>>().empty());

  hpcoll::machine_profile p;
  p.base = {1e-6, 1e-10, 5e-10, 1e-6, 0, 1e-10};
  p.gammas = {{"sum", "int32", 1e-11}, {"sum", "float64", 2e-11}, {"prod", "float32", 3e-11}};
  const auto gamma = [&](std::string_view o, std::string_view t) { return p.for_reduction(o, t).gamma; };
  CHECK(gamma("sum", "int32") == 1e-11);
  CHECK(gamma("sum", "float64") == 2e-11);
  CHECK(gamma("prod", "float32") == 3e-11);
  CHECK(gamma("sum", "float32") == 5e-10);  // no entry: base γ
  CHECK(gamma("max", "int32") == 5e-10);
  CHECK(gamma("", "") == 5e-10);
  CHECK(gamma("sum", "") == 5e-10);
  CHECK((p.for_reduction<op::sum, int>().gamma == 1e-11));
  CHECK((p.for_reduction<op::sum, double>().gamma == 2e-11));
  CHECK((p.for_reduction<op::prod, float>().gamma == 3e-11));
  CHECK((p.for_reduction<op::prod, double>().gamma == 5e-10));
  CHECK((p.for_reduction<decltype(lambda), int>().gamma == 5e-10));
  // Everything but γ is the base machine.
  hpcoll::machine expected = p.base;
  expected.gamma = 1e-11;
  CHECK((p.for_reduction<op::sum, int>() == expected));
  CHECK(p.find_gamma("sum", "int32") == &p.gammas[0]);
  CHECK(p.find_gamma("sum", "int64") == nullptr);
}

// Run by the ctest case calibrate.load after calibrate.quick (see
// benchmarks/CMakeLists.txt) with HPCOLL_MACHINE set to the file the
// calibration program just wrote: it loads, and its values are positive.
TEST_CASE("machine_file.calibrated" * doctest::skip()) {
  const char* path = std::getenv("HPCOLL_MACHINE");
  REQUIRE(path != nullptr);
  const hpcoll::machine_profile p = hpcoll::load_default_machine_profile();
  CHECK(p.source == path);
  CHECK(p.base.alpha > 0);
  CHECK(p.base.beta > 0);
  CHECK(p.base.gamma > 0);
  CHECK(p.base.gap > 0);
  CHECK(p.base.overhead > 0);
  CHECK(p.base.copy > 0);
  for (const char* o : {"sum", "prod", "min", "max"})
    for (const char* t : {"int32", "int64", "float32", "float64"}) {
      CAPTURE(o);
      CAPTURE(t);
      const hpcoll::reduction_gamma* g = p.find_gamma(o, t);
      REQUIRE(g != nullptr);
      CHECK(g->gamma > 0);
    }
  REQUIRE(p.measured.is_object());
  CHECK(p.measured.at("np").as_number() >= 2);
  CHECK(p.measured.at("pingpong").size() > 2);
  CHECK(p.measured.at("fit").at("rms_relative_residual").as_number() >= 0);
}
