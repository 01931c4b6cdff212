// SPDX-License-Identifier: BSD-3-Clause
// The machine file: the α, β, γ, gap, overhead and copy parameters of
// hpcoll::machine measured on the machine at hand by `./hpcoll calibrate`
// (benchmarks/calibrate.cpp), with one γ per (op, element type) reduction.
//
//   const hpcoll::machine_profile& p = hpcoll::current_machine_profile();
//   hpcoll::machine m = p.for_reduction<hpcoll::op::sum, double>();   // γ of sum/float64
//
// Where it is read from (default_machine_path()): $HPCOLL_MACHINE if set, else
// $XDG_CONFIG_HOME/hpcoll/machine.json, else $HOME/.config/hpcoll/machine.json.
// Without a file the built-in defaults of hpcoll::machine apply; a file named
// by $HPCOLL_MACHINE that does not exist is an error, never a silent fallback.
// The format is documented in docs/calibration.md:
//
//   {"format": "hpcoll-machine-1",
//    "alpha": 1.2e-06, "beta": 1.1e-10, "gap": 3e-07, "overhead": 1e-07, "copy": 8e-11,
//    "gamma": {"default": 1.5e-10, "sum/int32": 1.2e-10, "sum/float64": 1.4e-10},
//    "measured": {"date": "...", "host": "...", "mpi": "...", "np": 2, ...}}
//
// Times are seconds, per-byte values seconds per byte; every value must be a
// finite number >= 0. Unknown keys are refused (a typo would otherwise
// silently leave a default in place); "measured" is free-form and kept as is.
// Writing a file: select/machine_file_save.hpp.
#pragma once

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "../error.hpp"
#include "../plan/machine.hpp"
#include "json_io.hpp"

namespace hpcoll {

/// The format tag of the machine files this version reads and writes.
inline constexpr std::string_view machine_file_format = "hpcoll-machine-1";

/// The machine file's names of the built-in ops and of element types.
inline constexpr std::string_view reduction_op_keys[] = {"sum", "prod", "min",  "max",    "land",  "lor",
                                                         "band", "bor", "bxor", "minloc", "maxloc"};
inline constexpr std::string_view reduction_type_keys[] = {"int8",  "int16",  "int32",  "int64",   "uint8",
                                                           "uint16", "uint32", "uint64", "float32", "float64"};

/// The machine file's name of a built-in op: its `name` ("sum" for op::sum)
/// when that is one of reduction_op_keys; "" for any other callable (its
/// reductions use the default γ).
template <class Op>
constexpr std::string_view reduction_op_key() {
  using O = std::remove_cvref_t<Op>;
  if constexpr (requires { std::string_view(O::name); }) {
    for (std::string_view k : reduction_op_keys)
      if (k == std::string_view(O::name)) return k;
  }
  return "";
}

/// The machine file's name of an element type, by representation: integers
/// "int8".."int64" / "uint8".."uint64" (char and long included, by their
/// signedness and size), "float32", "float64"; "" for bool and every other
/// type (their reductions use the default γ).
template <class T>
constexpr std::string_view reduction_type_key() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, bool>) {
    return "";
  } else if constexpr (std::is_integral_v<U>) {
    constexpr bool s = std::is_signed_v<U>;
    if constexpr (sizeof(U) == 1) return s ? "int8" : "uint8";
    else if constexpr (sizeof(U) == 2) return s ? "int16" : "uint16";
    else if constexpr (sizeof(U) == 4) return s ? "int32" : "uint32";
    else if constexpr (sizeof(U) == 8) return s ? "int64" : "uint64";
    else return "";
  } else if constexpr (std::is_same_v<U, float> && sizeof(float) == 4) {
    return "float32";
  } else if constexpr (std::is_same_v<U, double> && sizeof(double) == 8) {
    return "float64";
  } else {
    return "";
  }
}

/// "sum/int32", or "" when the op or the type has no key.
template <class Op, class T>
std::string reduction_key() {
  const std::string_view o = reduction_op_key<Op>(), t = reduction_type_key<T>();
  if (o.empty() || t.empty()) return "";
  return detail::concat({o, "/", t});
}

/// γ (seconds per byte combined) of one (op, element type) reduction.
struct reduction_gamma {
  std::string op;    ///< one of reduction_op_keys
  std::string type;  ///< one of reduction_type_keys
  double gamma = 0;

  friend bool operator==(const reduction_gamma&, const reduction_gamma&) = default;
};

/// A machine as described by a machine file: the base parameters, γ per
/// reduction, where it came from and what the calibration recorded.
struct machine_profile {
  machine base;                              ///< base.gamma: the file's "gamma"."default"
  std::vector<reduction_gamma> gammas;       ///< per (op, type), in file order
  std::string source = "built-in defaults";  ///< the file's path, or "built-in defaults"
  std::string measured;                      ///< the file's "measured" object as JSON text ("" when absent)

  /// The entry for (op, type), nullptr when there is none.
  const reduction_gamma* find_gamma(std::string_view op, std::string_view type) const {
    for (const reduction_gamma& g : gammas)
      if (g.op == op && g.type == type) return &g;
    return nullptr;
  }
  /// `base` with γ replaced by the (op, type) entry when the file has one
  /// (an empty op or type, as from an unknown callable, means base γ).
  machine for_reduction(std::string_view op, std::string_view type) const {
    machine m = base;
    if (const reduction_gamma* g = find_gamma(op, type)) m.gamma = g->gamma;
    return m;
  }
  template <class Op, class T>
  machine for_reduction() const {
    return for_reduction(reduction_op_key<Op>(), reduction_type_key<T>());
  }
};

namespace detail {

template <std::size_t N>
constexpr bool one_of(std::string_view s, const std::string_view (&keys)[N]) {
  for (std::string_view k : keys)
    if (k == s) return true;
  return false;
}

template <std::size_t N>
std::string joined(const std::string_view (&keys)[N]) {
  std::string s;
  for (std::string_view k : keys) s += (s.empty() ? "" : ", ") + std::string(k);
  return s;
}

[[noreturn]] inline void machine_file_error(std::string_view function, std::string_view source,
                                            std::string_view problem) {
  throw error(function, "", concat({source, ": ", problem}));
}

/// A finite number >= 0 at `v`, named `what` in errors.
inline double machine_file_number(json_object* v, std::string_view what, std::string_view source) {
  if (!json_is_number(v))
    machine_file_error("load_machine_profile", source,
                       concat({what, " must be a number (seconds or seconds per byte), found ", json_kind(v)}));
  const double d = json_object_get_double(v);
  if (!std::isfinite(d))
    machine_file_error("load_machine_profile", source, concat({what, " is ", json_text(v), "; it must be a finite number"}));
  if (d < 0)
    machine_file_error("load_machine_profile", source, concat({what, " is negative (", json_text(v), "); it must be >= 0"}));
  return d + 0.0;  // -0 reads as +0, so a saved profile writes "0" and loads back alike
}

}  // namespace detail

/// Reads a machine profile from the text of a machine file; `source` names it
/// in errors and becomes profile.source. Throws hpcoll::error
/// ("hpcoll::load_machine_profile: <source>: <problem>") for malformed JSON
/// (with line and column), a wrong format tag, missing or unknown keys, values
/// that are not numbers or are negative.
inline machine_profile parse_machine_profile(std::string_view text, const std::string& source) {
  using detail::machine_file_error;
  const std::string fn = "load_machine_profile";
  detail::json_value doc;
  try {
    doc = detail::parse_json(text);
  } catch (const detail::json_syntax_error& e) {
    machine_file_error(fn, source, e.where());
  }
  if (!detail::json_is_object(doc.get()))
    machine_file_error(fn, source, detail::concat({"expected a JSON object, found ", detail::json_kind(doc.get())}));

  static constexpr std::string_view known[] = {"format",      "alpha",           "beta",         "gap",
                                               "overhead",    "copy",            "gamma",        "eager_bytes",
                                               "rendezvous",  "cache_bytes",     "gamma_cached", "copy_cached",
                                               "switch_time", "receiver_copies", "source_beta",  "inter_alpha",
                                               "inter_beta",  "port_beta",       "eager_copy",   "mailbox_alpha",
                                               "mailbox_beta", "measured"};
  detail::json_for_each_member(doc.get(), [&](std::string_view key, json_object*) {
    if (!detail::one_of(key, known))
      machine_file_error(fn, source,
                         detail::concat({"unknown key \"", key, "\" (the keys are ", detail::joined(known), ")"}));
  });

  const auto format = detail::json_member(doc.get(), "format");
  if (!format)
    machine_file_error(fn, source, detail::concat({"missing \"format\" (expected \"", machine_file_format, "\")"}));
  if (!detail::json_is_string(*format) || json_object_get_string(*format) != machine_file_format)
    machine_file_error(fn, source,
                       detail::concat({"\"format\" is ", detail::json_text(*format), ", expected \"", machine_file_format, "\""}));

  machine_profile p;
  p.source = source;
  const auto required = [&](const char* key) -> double {
    const auto v = detail::json_member(doc.get(), key);
    if (!v) machine_file_error(fn, source, detail::concat({"missing \"", key, "\""}));
    return detail::machine_file_number(*v, detail::concat({"\"", key, "\""}), source);
  };
  p.base.alpha = required("alpha");
  p.base.beta = required("beta");
  p.base.gap = required("gap");
  p.base.overhead = required("overhead");
  p.base.copy = required("copy");
  // Keys newer than the format: a file without them keeps the built-in defaults.
  const auto optional = [&](const char* key, double& value) {
    if (const auto v = detail::json_member(doc.get(), key))
      value = detail::machine_file_number(*v, detail::concat({"\"", key, "\""}), source);
  };
  const auto optional_bytes = [&](const char* key, std::size_t& value) {
    if (const auto v = detail::json_member(doc.get(), key)) {
      const auto n = detail::json_whole_number(*v);
      if (!n || *n > std::numeric_limits<std::size_t>::max())
        machine_file_error(fn, source,
                           detail::concat({"\"", key, "\" is ", detail::json_text(*v), "; it must be a whole number of bytes"}));
      value = static_cast<std::size_t>(*n);
    }
  };
  optional_bytes("eager_bytes", p.base.eager_bytes);
  optional("rendezvous", p.base.rendezvous);
  optional_bytes("cache_bytes", p.base.cache_bytes);
  optional("gamma_cached", p.base.gamma_cached);
  optional("copy_cached", p.base.copy_cached);
  optional("switch_time", p.base.switch_time);
  optional("source_beta", p.base.source_beta);
  optional("inter_alpha", p.base.inter_alpha);
  optional("inter_beta", p.base.inter_beta);
  optional("port_beta", p.base.port_beta);
  optional("eager_copy", p.base.eager_copy);
  optional("mailbox_alpha", p.base.mailbox_alpha);
  optional("mailbox_beta", p.base.mailbox_beta);
  if (const auto v = detail::json_member(doc.get(), "receiver_copies")) {
    if (json_object_get_type(*v) != json_type_boolean)
      machine_file_error(fn, source,
                         detail::concat({"\"receiver_copies\" is ", detail::json_text(*v), "; it must be true or false"}));
    p.base.receiver_copies = json_object_get_boolean(*v);
  }

  const auto gamma = detail::json_member(doc.get(), "gamma");
  if (!gamma) machine_file_error(fn, source, "missing \"gamma\" (an object with at least \"default\")");
  if (!detail::json_is_object(*gamma))
    machine_file_error(fn, source, detail::concat({"\"gamma\" must be an object, found ", detail::json_kind(*gamma)}));
  if (!detail::json_member(*gamma, "default")) machine_file_error(fn, source, "missing \"gamma\".\"default\"");
  detail::json_for_each_member(*gamma, [&](std::string_view key, json_object* value) {
    const std::string what = detail::concat({"\"gamma\".\"", key, "\""});
    const double g = detail::machine_file_number(value, what, source);
    if (key == "default") {
      p.base.gamma = g;
      return;
    }
    const auto slash = key.find('/');
    const std::string_view op = key.substr(0, slash);
    const std::string_view type = slash == std::string_view::npos ? "" : key.substr(slash + 1);
    if (slash == std::string_view::npos || !detail::one_of(op, reduction_op_keys) ||
        !detail::one_of(type, reduction_type_keys))
      machine_file_error(fn, source,
                         detail::concat({what, " is not \"default\" or \"<op>/<type>\" with <op> one of ",
                                         detail::joined(reduction_op_keys), " and <type> one of ",
                                         detail::joined(reduction_type_keys)}));
    p.gammas.push_back({std::string(op), std::string(type), g});
  });

  if (const auto measured = detail::json_member(doc.get(), "measured")) {
    if (!detail::json_is_object(*measured))
      machine_file_error(fn, source,
                         detail::concat({"\"measured\" must be an object, found ", detail::json_kind(*measured)}));
    p.measured = detail::json_text(*measured);
  }
  return p;
}

/// Reads the machine file at `path`. Throws hpcoll::error naming the file and
/// the problem (missing, unreadable, malformed, invalid).
inline machine_profile load_machine_profile(const std::string& path) {
  const detail::file_text file = detail::read_file(path);
  if (!file.problem.empty()) detail::machine_file_error("load_machine_profile", path, file.problem);
  return parse_machine_profile(file.text, path);
}

/// Where the machine file is looked for: $HPCOLL_MACHINE if set (and not
/// empty), else $XDG_CONFIG_HOME/hpcoll/machine.json (XDG_CONFIG_HOME absolute),
/// else $HOME/.config/hpcoll/machine.json; "" when none of these is set.
inline std::string default_machine_path() {
  if (const char* p = std::getenv("HPCOLL_MACHINE"); p && *p) return p;
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && x[0] == '/') return detail::concat({x, "/hpcoll/machine.json"});
  if (const char* h = std::getenv("HOME"); h && *h) return detail::concat({h, "/.config/hpcoll/machine.json"});
  return "";
}

/// The profile the environment selects, read now (uncached; see
/// current_machine_profile): the file at default_machine_path() when it
/// exists, the built-in defaults otherwise. $HPCOLL_MACHINE naming a file that
/// does not exist throws hpcoll::error.
inline machine_profile load_default_machine_profile() {
  const std::string path = default_machine_path();
  const char* requested = std::getenv("HPCOLL_MACHINE");
  const detail::file_text file = path.empty() ? detail::file_text{} : detail::read_file(path);
  if (file.exists) {
    if (!file.problem.empty()) detail::machine_file_error("load_machine_profile", path, file.problem);
    return parse_machine_profile(file.text, path);
  }
  if (requested && *requested)
    throw error("current_machine_profile", "",
                detail::concat({"HPCOLL_MACHINE is ", path, ", which does not exist (write it with ./hpcoll calibrate --out ",
                                path, ", or unset HPCOLL_MACHINE)"}));
  return machine_profile{};
}

namespace detail {

/// current_machine_profile()'s profile. A template only so that
/// hpcoll::decisions can compile it, and the file reading behind it, once
/// (instantiated extern with HPCOLL_COMPILED_DECISIONS: select/dispatch.hpp).
template <class = void>
const machine_profile& process_machine_profile() {
  static const machine_profile profile = load_default_machine_profile();
  return profile;
}

}  // namespace detail

/// The machine profile of this process, read once (thread-safe) by
/// load_default_machine_profile(); an error is thrown again on the next call.
inline const machine_profile& current_machine_profile() { return detail::process_machine_profile(); }

}  // namespace hpcoll
