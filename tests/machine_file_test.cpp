// SPDX-License-Identifier: BSD-3-Clause
// The machine file (select/machine_file.hpp, select/machine_file_save.hpp):
// syntax errors with their position, the profile round trip, the lookup
// through the environment, errors naming the file, γ per reduction. No MPI;
// no timing.
#include <doctest/doctest.h>

#include "support/error_checks.hpp"

#include <hpcoll/op.hpp>
#include <hpcoll/select/machine_file.hpp>
#include <hpcoll/select/machine_file_save.hpp>

#include <unistd.h>

#include <cmath>
#include <complex>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

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

TEST_CASE("machine_file.syntax_errors") {
  // Malformed JSON is reported with its line and column (columns count
  // characters, not bytes), whatever the text around it.
  struct bad {
    std::string text;
    std::string where;
  };
  const std::vector<bad> cases = {
      {"", "line 1, column 1: the document is empty"},
      {"   \n  ", "line 2, column 3: the document is empty"},
      {"{\"format\": 1,}", "line 1, column 14: "},
      {"{\"format\" 1}", "line 1, column 11: "},
      {"{\"format\": 1", "line 1, column 13: the document ends early"},
      {"{\n  \"format\": 1\n} x", "line 3, column 3: "},
      {"{\"\xC3\xA9\xC3\xA9\": [1, 2,]}", "line 1, column 14: "},
      {"{\"a\": \"\xC3\xA9\", \"b\": nul}", "line 1, column 20: "},
      {"// comment\n{}", "line 1, column 1: "},
  };
  for (const bad& b : cases) {
    CAPTURE(b.text);
    const std::string message = error_of([&] { (void)hpcoll::parse_machine_profile(b.text, "<text>"); });
    CHECK(contains(message, "hpcoll::load_machine_profile: <text>: " + b.where));
  }
}

TEST_CASE("machine_file.round_trip") {
  temp_dir dir("round_trip");
  hpcoll::machine_profile p;
  p.base = {1.25e-6, 1.1e-10, 3.3e-10, 4.5e-7, 1.2e-7, 8.75e-11, 12288, 2.5e-6, false, 1 << 20, 4e-11, 3e-11, 7e-6};
  p.base.inter_alpha = 3.5e-6;
  p.base.inter_beta = 8e-9;
  p.base.port_beta = 8.5e-9;
  p.base.source_beta = 7.5e-11;
  p.base.eager_copy = 3.5e-10;
  p.base.mailbox_alpha = 2.25e-7;
  p.base.mailbox_beta = 2.75e-10;
  p.gammas = {{"sum", "int32", 1.1e-10}, {"sum", "float64", 2.2e-10}, {"max", "uint8", 0.0}};
  p.measured = R"({"host":"node \"1\"","np":2,"pingpong":[{"bytes":0,"seconds":1.3e-06}]})";

  const std::string path = (dir.path / "nested" / "dir" / "machine.json").string();  // directories created
  hpcoll::save_machine_profile(p, path);
  CHECK_FALSE(fs::exists(path + ".tmp"));
  const hpcoll::machine_profile q = hpcoll::load_machine_profile(path);
  CHECK(q.base == p.base);
  CHECK(q.gammas == p.gammas);
  CHECK(q.measured == p.measured);
  CHECK(q.source == path);

  // The file is JSON in the documented layout: format first, "default" first
  // in gamma, numbers in their shortest exact form.
  const std::string text = hpcoll::machine_profile_text(p);
  CHECK(text.starts_with("{\n  \"format\": \"hpcoll-machine-1\",\n  \"alpha\": 1.25e-06,"));
  CHECK(contains(text, "\"gamma\": {\n    \"default\": 3.3e-10,\n    \"sum/int32\": 1.1e-10,"));
  CHECK(contains(text, "\"sum/float64\": 2.2e-10"));
  CHECK(contains(text, "\"eager_bytes\": 12288,"));
  CHECK(contains(text, "\"cache_bytes\": 1048576,"));
  CHECK(contains(text, "\"switch_time\": 7e-06,"));
  CHECK(contains(text, "\"receiver_copies\": false,"));
  CHECK(contains(text, "\"inter_alpha\": 3.5e-06,\n  \"inter_beta\": 8e-09,\n  \"port_beta\": 8.5e-09,"));
  CHECK(contains(text, "\"eager_copy\": 3.5e-10,\n  \"mailbox_alpha\": 2.25e-07,\n  \"mailbox_beta\": 2.75e-10,"));
  for (double d : {1.0 / 3, 2e-6, 6.02214076e23, 5e-324, 1.7976931348623157e308, 0.1 + 0.2}) {
    p.base.beta = d;
    CHECK(hpcoll::parse_machine_profile(hpcoll::machine_profile_text(p), "<text>").base.beta == d);
  }
  // A written -0 (or a value that underflows to it) loads as 0 and saves as
  // "0", so save, load, save gives the same text (found by the fuzzer).
  const std::string negative_zero = std::string(valid_file).insert(valid_file.find("\"gamma\""),
                                                                   "\"switch_time\": -0e-37, \"copy_cached\": -8e-1111, ");
  const hpcoll::machine_profile z = hpcoll::parse_machine_profile(negative_zero, "<text>");
  CHECK_FALSE(std::signbit(z.base.switch_time));
  CHECK_FALSE(std::signbit(z.base.copy_cached));
  const std::string z_text = hpcoll::machine_profile_text(z);
  CHECK(contains(z_text, "\"switch_time\": 0,"));
  CHECK(hpcoll::machine_profile_text(hpcoll::parse_machine_profile(z_text, "<text>")) == z_text);

  // A profile whose "measured" is not a JSON object cannot be saved.
  p.measured = "[1, 2]";
  CHECK(contains(error_of([&] { (void)hpcoll::machine_profile_text(p); }), "\"measured\" must be a JSON object"));
  p.measured = "{";
  CHECK(contains(error_of([&] { (void)hpcoll::machine_profile_text(p); }), "\"measured\" is not JSON"));

  // Overwriting replaces the file.
  p.base.alpha = 7e-6;
  p.measured.clear();
  hpcoll::save_machine_profile(p, path);
  const hpcoll::machine_profile r = hpcoll::load_machine_profile(path);
  CHECK(r.base.alpha == 7e-6);
  CHECK(r.measured.empty());

  // A file written by hand with the documented example values; the keys it
  // does not have (the protocol step, in-cache rates, switch time) keep the
  // built-in defaults.
  const hpcoll::machine_profile h = hpcoll::load_machine_profile(dir.file("hand.json", valid_file));
  CHECK(h.base == hpcoll::machine{1.5e-6, 2e-10, 3e-10, 4e-7, 1e-7, 9e-11});
  const std::string with_step = std::string(valid_file).insert(valid_file.find("\"gamma\""),
                                                               "\"eager_bytes\": 65536, \"switch_time\": 0, "
                                                               "\"receiver_copies\": false, ");
  const hpcoll::machine_profile w = hpcoll::load_machine_profile(dir.file("step.json", with_step));
  CHECK(w.base.eager_bytes == 65536);
  CHECK(w.base.switch_time == 0);
  CHECK_FALSE(w.base.receiver_copies);
  CHECK(h.base.receiver_copies);
  CHECK(w.base.rendezvous == hpcoll::machine{}.rendezvous);
  CHECK(h.base.eager_copy == 0);  // every byte at β, as files from before the key
  CHECK(h.base.port_beta == hpcoll::machine{}.port_beta);
  CHECK(h.base.mailbox_alpha == hpcoll::machine{}.mailbox_alpha);
  CHECK(h.gammas.size() == 3);
  CHECK(h.measured == R"({"host":"example","np":2,"samples":[1,2,3]})");
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
  CHECK(d.measured.empty());
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
      {"empty.json", "", "line 1, column 1: the document is empty"},
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
      {"nan.json", replaced(valid_file, "\"overhead\": 1e-7", "\"overhead\": NaN"), "\"overhead\" is NaN; it must be a finite number"},
      {"infinite.json", replaced(valid_file, "\"copy\": 9e-11", "\"copy\": 1e999"), "\"copy\" is 1e999; it must be a finite number"},
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
      {"eager.json", replaced(valid_file, "\"copy\": 9e-11", "\"copy\": 9e-11, \"eager_bytes\": 4096.5"),
       "\"eager_bytes\" is 4096.5; it must be a whole number of bytes"},
      {"cache.json", replaced(valid_file, "\"copy\": 9e-11", "\"copy\": 9e-11, \"cache_bytes\": -1"),
       "\"cache_bytes\" is -1; it must be a whole number of bytes"},
      {"rendezvous.json", replaced(valid_file, "\"copy\": 9e-11", "\"copy\": 9e-11, \"rendezvous\": -2e-6"),
       "\"rendezvous\" is negative (-2e-6)"},
      {"eager_copy.json", replaced(valid_file, "\"copy\": 9e-11", "\"copy\": 9e-11, \"eager_copy\": \"fast\""),
       "\"eager_copy\" must be a number"},
      {"switch.json", replaced(valid_file, "\"copy\": 9e-11", "\"copy\": 9e-11, \"switch_time\": \"1us\""),
       "\"switch_time\" must be a number"},
      {"receiver_copies.json", replaced(valid_file, "\"copy\": 9e-11", "\"copy\": 9e-11, \"receiver_copies\": 1"),
       "\"receiver_copies\" is 1; it must be true or false"},
      {"port_beta.json", replaced(valid_file, "\"copy\": 9e-11", "\"copy\": 9e-11, \"port_beta\": -8e-11"),
       "\"port_beta\" is negative (-8e-11)"},
      {"inter_alpha.json", replaced(valid_file, "\"copy\": 9e-11", "\"copy\": 9e-11, \"inter_alpha\": null"),
       "\"inter_alpha\" must be a number"},
      {"measured.json", replaced(valid_file, "\"measured\": {\"host\": \"example\", \"np\": 2, \"samples\": [1, 2, 3]}",
                                 "\"measured\": 5"),
       "\"measured\" must be an object, found number"},
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
  using hpcoll::reduction_op_key;
  using hpcoll::reduction_type_key;
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
  CHECK(hpcoll::reduction_key<op::sum, float>() == "sum/float32");
  CHECK(hpcoll::reduction_key<op::minloc, std::pair<double, int>>().empty());

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
  CHECK(p.base.gamma_cached > 0);
  CHECK(p.base.copy_cached > 0);
  CHECK(p.base.cache_bytes >= std::size_t{64} << 10);
  CHECK(p.base.eager_bytes >= 1024);
  CHECK(p.base.eager_copy >= 0);
  CHECK(std::isfinite(p.base.eager_copy));
  CHECK(p.base.mailbox_alpha > 0);
  CHECK(p.base.mailbox_beta > 0);
  for (const char* o : {"sum", "prod", "min", "max"})
    for (const char* t : {"int32", "int64", "float32", "float64"}) {
      CAPTURE(o);
      CAPTURE(t);
      const hpcoll::reduction_gamma* g = p.find_gamma(o, t);
      REQUIRE(g != nullptr);
      CHECK(g->gamma > 0);
    }
  // "measured" is the calibration's record, kept as JSON text.
  namespace detail = hpcoll::detail;
  const detail::json_value measured = detail::parse_json(p.measured);
  REQUIRE(detail::json_is_object(measured.get()));
  const auto np = detail::json_member(measured.get(), "np");
  REQUIRE(np);
  CHECK(detail::json_whole_number(*np).value_or(0) >= 2);
  const auto pingpong = detail::json_member(measured.get(), "pingpong");
  REQUIRE(pingpong);
  CHECK(json_object_array_length(*pingpong) > 2);
  for (const char* record : {"protocol", "switch"}) CHECK(detail::json_member(measured.get(), record));
  // One source to many: measured (3 or more ranks on rank 0's node, a core
  // each) and then the file's source_beta, or not, and then the default.
  const auto source = detail::json_member(measured.get(), "one_source");
  REQUIRE(source);
  const auto source_measured = detail::json_member(*source, "measured");
  REQUIRE(source_measured);
  if (json_object_get_boolean(*source_measured)) {
    const auto value = detail::json_member(*source, "source_beta");
    REQUIRE(value);
    CHECK(p.base.source_beta > 0);
    CHECK(p.base.source_beta == json_object_get_double(*value));
    const auto receivers = detail::json_member(*source, "receivers");
    REQUIRE(receivers);
    CHECK(detail::json_whole_number(*receivers).value_or(0) >= 2);
  } else {
    CHECK(p.base.source_beta == hpcoll::machine{}.source_beta);
    const auto why = detail::json_member(*source, "why_not");
    REQUIRE(why);
    CHECK(json_object_get_string_len(*why) > 0);
  }
}
