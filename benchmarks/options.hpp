// SPDX-License-Identifier: BSD-3-Clause
// The benchmark programs' command lines: options declared with Boost.Program_options and
// parsed by parse_command_line(), and the byte sizes and lists their values hold.
//
//   hpcoll_bench::command_line cl{"hpcoll_mcast", "usage: mpiexec -n P hpcoll_mcast [options]"};
//   cl.options.add_options()
//       ("sizes", hpcoll_bench::value_of(&o.sizes, "LIST", parse_sizes), "bytes, e.g. 80kB,8MB or 8:16M")
//       ("runs", po::value(&o.runs)->value_name("N"), "timed runs")
//       ("quick", po::bool_switch(&o.quick), "a check that everything runs");
//   const auto parsed = hpcoll_bench::parse_command_line(argc, argv, cl, rank == 0, [&] { check(o); });
//   if (parsed.exit) return *parsed.exit;  // --help: 0; a usage error: 2 (said on rank 0)
#pragma once

#include <boost/program_options.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <exception>
#include <functional>
#include <iostream>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace hpcoll_bench {

namespace po = boost::program_options;

// ---------------------------------------------------------------------------
// Values: lists, sizes

/// The non-empty pieces of s between separators.
inline std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t end = std::min(s.find(sep, start), s.size());
    if (end > start) out.emplace_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

/// A decimal integer in [least, most], nothing else (Boost's own conversion takes "-1" as 2^64 - 1).
inline std::uint64_t parse_integer(const std::string& text, std::uint64_t least, std::uint64_t most) {
  std::uint64_t v = 0;
  const auto [end, status] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || status != std::errc() || end != text.data() + text.size() || v < least || v > most)
    throw std::invalid_argument("'" + text + "' is not an integer " + std::to_string(least) + ".." +
                                std::to_string(most));
  return v;
}

/// A decimal number >= 0, nothing else ("1e-6", "0.5"; not "-1", "nan", "2x").
inline double parse_nonnegative(const std::string& text) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !(v >= 0)) throw std::invalid_argument("'" + text + "' is not a number >= 0");
  return v;
}

/// A comma list of communicator sizes, each an integer 1..2^30.
inline std::vector<int> parse_rank_counts(const std::string& text) {
  std::vector<int> out;
  for (const std::string& t : split(text, ','))
    out.push_back(static_cast<int>(parse_integer(t, 1, std::uint64_t{1} << 30)));
  if (out.empty()) throw std::invalid_argument("no rank counts in '" + text + "'");
  return out;
}

/// A conversion for value_of(): a decimal integer in [least, most] (parse_integer).
inline auto integer_in(std::uint64_t least, std::uint64_t most) {
  return [=](const std::string& text) { return parse_integer(text, least, most); };
}

/// One of `names`, whose position is the enumerator.
template <class Enum>
Enum parse_choice(const std::string& text, const std::vector<std::string>& names) {
  const auto found = std::find(names.begin(), names.end(), text);
  if (found == names.end()) {
    std::string list;
    for (const std::string& name : names) list += (list.empty() ? "" : ", ") + name;
    throw std::invalid_argument("'" + text + "' is not one of " + list);
  }
  return static_cast<Enum>(found - names.begin());
}

/// A comma list of names, each one of `known`, without repeats, in the order given.
inline std::vector<std::string> parse_names(const std::string& text, const std::vector<std::string>& known) {
  std::vector<std::string> out;
  for (const std::string& name : split(text, ',')) {
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      std::string list;
      for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
      throw std::invalid_argument("'" + name + "' is not one of " + list);
    }
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  if (out.empty()) throw std::invalid_argument("no names in '" + text + "'");
  return out;
}

/// "8", "8B"; "80kB", "8MB" and "1GB" in powers of ten (the multicast benchmark's sizes); "4K",
/// "4KiB", "4Ki", "16M", "16MiB", "16Mi", "2G", "2GiB", "2Gi" (any case, also "kb", "mb", "gb")
/// in powers of two. Anything else is std::invalid_argument naming the text.
inline std::size_t parse_bytes(const std::string& text) {
  const auto not_a_size = [&] {
    return std::invalid_argument("'" + text + "' is not a size (bytes: 4096, 80kB, 8MB, 64KiB, 16M, 1Gi)");
  };
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text.front()))) throw not_a_size();
  std::size_t pos = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(text, &pos);
  } catch (const std::out_of_range&) {
    throw std::invalid_argument("'" + text + "' is too large a size");
  }
  std::string unit = text.substr(pos);
  int shift = 0;
  unsigned long long factor = 1;
  if (unit == "kB") factor = 1000;
  else if (unit == "MB") factor = 1000 * 1000;
  else if (unit == "GB") factor = 1000 * 1000 * 1000;
  else {
    std::transform(unit.begin(), unit.end(), unit.begin(), [](unsigned char c) { return std::tolower(c); });
    if (unit == "" || unit == "b") shift = 0;
    else if (unit == "k" || unit == "ki" || unit == "kib" || unit == "kb") shift = 10;
    else if (unit == "m" || unit == "mi" || unit == "mib" || unit == "mb") shift = 20;
    else if (unit == "g" || unit == "gi" || unit == "gib" || unit == "gb") shift = 30;
    else throw not_a_size();
  }
  factor <<= shift;
  if (v > static_cast<unsigned long long>(-1) / factor)
    throw std::invalid_argument("'" + text + "' is too large a size");
  return static_cast<std::size_t>(v * factor);
}

/// MIN:MAX, or with `allow_factor` MIN:MAX:FACTOR (FACTOR 4 unless given): sizes from MIN up
/// to MAX by FACTOR.
struct size_range {
  std::size_t min = 0, max = 0, factor = 4;
};

inline size_range parse_size_range(const std::string& text, bool allow_factor = false) {
  const std::vector<std::string> parts = split(text, ':');
  if (parts.size() < 2 || parts.size() > (allow_factor ? 3u : 2u) || text.front() == ':' || text.back() == ':' ||
      text.find("::") != std::string::npos)
    throw std::invalid_argument("'" + text + "' is not " + (allow_factor ? "MIN:MAX or MIN:MAX:FACTOR" : "MIN:MAX"));
  size_range r{parse_bytes(parts[0]), parse_bytes(parts[1]), parts.size() == 3 ? parse_bytes(parts[2]) : 4};
  if (r.max < r.min) throw std::invalid_argument("'" + text + "': MAX is below MIN");
  if (r.factor < 2) throw std::invalid_argument("'" + text + "': FACTOR must be at least 2");
  return r;
}

/// first, first × r.factor, first × r.factor², ... up to r.max: the steps stop where the next
/// would pass r.max, before it could overflow (a MAX near 2^64 would otherwise wrap to 0 and
/// repeat forever); empty when first is 0 or above r.max.
inline std::vector<std::size_t> range_sizes(const size_range& r, std::size_t first) {
  std::vector<std::size_t> out;
  for (std::size_t s = first; s != 0 && s <= r.max; s *= r.factor) {
    out.push_back(s);
    if (s > r.max / r.factor) break;
  }
  return out;
}

/// A comma list of sizes, or MIN:MAX in x4 steps from max(MIN, smallest) (./hpcoll bench's convention).
inline std::vector<std::size_t> parse_sizes(const std::string& text, std::size_t smallest) {
  std::vector<std::size_t> out;
  if (text.find(':') != std::string::npos) {
    const size_range r = parse_size_range(text);
    out = range_sizes(r, std::max(r.min, smallest));
  } else {
    for (const std::string& part : split(text, ',')) out.push_back(parse_bytes(part));
  }
  if (out.empty()) throw std::invalid_argument("no sizes in '" + text + "'");
  return out;
}

/// "8 B", "64 KiB", "3 GiB" (exact in a binary unit), "80 kB", "8 MB" (exact in a decimal one),
/// else three significant digits in the largest binary unit: "10.7 KiB", "9.22 MiB".
inline std::string human_bytes(std::size_t b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  double v = static_cast<double>(b);
  while (v >= 1024 && u < 4) v /= 1024, ++u;
  char text[32];
  if (v == std::floor(v)) std::snprintf(text, sizeof text, "%.0f %s", v, units[u]);
  else if (b % 1000000 == 0) std::snprintf(text, sizeof text, "%zu MB", b / 1000000);
  else if (b % 1000 == 0) std::snprintf(text, sizeof text, "%zu kB", b / 1000);
  else std::snprintf(text, sizeof text, "%.3g %s", v, units[u]);
  return text;
}

/// The arguments joined by spaces (what a result file records as its command).
inline std::string command_text(int argc, char** argv) {
  std::string command;
  for (int i = 0; i < argc; ++i) {
    if (i) command += ' ';
    command += argv[i];
  }
  return command;
}

// ---------------------------------------------------------------------------
// Options

/// The value of an option, made from its text by a conversion of the program's (a size, a list
/// of names) and stored in *store; what the conversion throws becomes the error "--name: what".
template <class T>
class converted_value final : public po::value_semantic_codecvt_helper<char> {
public:
  converted_value(T* store, std::string name, std::function<T(const std::string&)> convert)
      : store_(store), name_(std::move(name)), convert_(std::move(convert)) {}

  std::string name() const override { return name_; }
  unsigned min_tokens() const override { return 1; }
  unsigned max_tokens() const override { return 1; }
  bool is_composing() const override { return false; }
  bool is_required() const override { return false; }
  bool apply_default(boost::any&) const override { return false; }
  void notify(const boost::any& value_store) const override {
    if (!value_store.empty()) *store_ = boost::any_cast<const T&>(value_store);
  }

protected:
  void xparse(boost::any& value_store, const std::vector<std::string>& tokens) const override {
    const std::string& text = po::validators::get_single_string(tokens);
    try {
      value_store = convert_(text);
    } catch (const std::exception& e) {
      throw po::error_with_option_name(std::string("%canonical_option%: ") + e.what());
    }
  }

private:
  T* store_;
  std::string name_;
  std::function<T(const std::string&)> convert_;
};

/// An option whose value convert(text) makes, stored in *store; `name` stands for it in --help.
template <class T, class Convert>
converted_value<T>* value_of(T* store, std::string name, Convert convert) {
  return new converted_value<T>(store, std::move(name), std::function<T(const std::string&)>(std::move(convert)));
}

/// A program's command line: what --help prints and what is parsed.
struct command_line {
  command_line(std::string program_name, std::string usage_text)
      : program(std::move(program_name)), usage(std::move(usage_text)) {}

  std::string program;  ///< error lines start with "program: "
  std::string usage;    ///< --help's first line(s), before the options
  /// Listed by --help (with --help, -h).
  po::options_description options{"options (--name=VALUE or --name VALUE)", 100, 50};
  po::options_description hidden;  ///< parsed too, not listed
  std::string notes;               ///< --help's last lines, after the options
  /// Arguments not declared (unknown options, positional arguments) are handed back in
  /// parsed_command_line::passed instead of being an error (hpcoll_bench: Google Benchmark's).
  bool pass_unknown = false;
  /// The option (declared composing) whose values bare arguments are; empty: a bare argument
  /// is an error.
  std::string bare;
};

struct parsed_command_line {
  std::optional<int> exit;          ///< set: return it (0 after --help, 2 after a usage error)
  bool help = false;                ///< --help was given (and printed)
  std::vector<std::string> passed;  ///< with pass_unknown: the arguments not declared, in order
};

/// Whether the arguments hold --help or -h: an MPI program prints its help on rank 0 alone, and
/// its errors on every rank.
inline bool asks_for_help(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]) == "--help" || std::string_view(argv[i]) == "-h") return true;
  return false;
}

/// One line "program: what" on stderr where `report`; returns 2, the exit status of a usage error.
inline int usage_error(const command_line& cl, bool report, const std::string& what) {
  if (report) {
    std::fprintf(stderr, "%s: %s (see --help)\n", cl.program.c_str(), what.c_str());
    std::fflush(stderr);
  }
  return 2;
}

/// Parses argv[1..] against cl: "--name=value" and "--name value", flags without a value; an
/// option given more than once keeps its last value, unless it collects them (->composing()).
/// --help / -h prints cl.usage, the options and cl.notes on stdout; an unknown option, a bad or
/// missing value, a stray argument, or what `check` (called after the values are stored) throws
/// as std::invalid_argument prints one line "program: what" on stderr and gives exit status 2.
/// Only where `report` (rank 0) is anything printed; every rank parses the same arguments and so
/// reaches the same outcome, and all of them exit with it: no MPI_Abort.
inline parsed_command_line parse_command_line(int argc, char** argv, const command_line& cl, bool report,
                                              const std::function<void()>& check = {}) {
  parsed_command_line out;
  po::options_description listed(cl.options);
  listed.add_options()("help,h", "this help");
  po::options_description all;
  all.add(listed).add(cl.hidden);
  try {
    po::command_line_parser parser(argc, argv);
    // No abbreviations: a misspelt option is an error, not a guess.
    parser.options(all).style(po::command_line_style::default_style & ~po::command_line_style::allow_guessing);
    if (cl.pass_unknown) parser.allow_unregistered();
    po::positional_options_description bare;
    if (!cl.bare.empty()) parser.positional(bare.add(cl.bare.c_str(), -1));
    po::parsed_options parsed = parser.run();
    // The last of repeated options wins (as with a script's defaults before the user's options).
    std::set<std::string> seen;
    std::vector<po::option> kept;
    for (auto it = parsed.options.rbegin(); it != parsed.options.rend(); ++it) {
      const bool named = !it->unregistered && !it->string_key.empty();  // not a positional argument
      const po::option_description* d = named ? all.find_nothrow(it->string_key, false) : nullptr;
      if (d && !d->semantic()->is_composing() && !seen.insert(it->string_key).second) continue;
      kept.push_back(*it);
    }
    std::reverse(kept.begin(), kept.end());
    parsed.options = std::move(kept);
    if (cl.pass_unknown) {
      out.passed = po::collect_unrecognized(parsed.options, po::include_positional);
    } else {
      for (const po::option& o : parsed.options)
        if (o.position_key >= 0 && cl.bare.empty())
          throw po::error("unexpected argument '" + o.original_tokens.front() + "'");
    }
    po::variables_map values;
    po::store(parsed, values);
    if (values.count("help")) {
      out.help = true;
      if (report) std::cout << cl.usage << "\n\n" << listed << (cl.notes.empty() ? "" : "\n" + cl.notes) << std::flush;
      out.exit = 0;
      return out;
    }
    po::notify(values);
    if (check) check();
  } catch (const po::error& e) {
    out.exit = usage_error(cl, report, e.what());
  } catch (const std::invalid_argument& e) {
    out.exit = usage_error(cl, report, e.what());
  }
  return out;
}

}  // namespace hpcoll_bench
