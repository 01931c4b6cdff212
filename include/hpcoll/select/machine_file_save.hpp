// SPDX-License-Identifier: BSD-3-Clause
// Writing machine files (the calibration program does): a header of its own,
// so that the dispatcher, which only reads them, does not pay for
// <filesystem>.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include "../error.hpp"
#include "json_io.hpp"
#include "machine_file.hpp"

namespace hpcoll {

/// The JSON text of a profile as a machine file holds it: format, the
/// parameters, gamma with "default" first, measured when not empty.
inline std::string machine_profile_text(const machine_profile& p) {
  using namespace detail;
  const json_value doc(json_object_new_object());
  json_set(doc.get(), "format", json_string(machine_file_format));
  json_set(doc.get(), "alpha", json_number(p.base.alpha));
  json_set(doc.get(), "beta", json_number(p.base.beta));
  json_set(doc.get(), "gap", json_number(p.base.gap));
  json_set(doc.get(), "overhead", json_number(p.base.overhead));
  json_set(doc.get(), "copy", json_number(p.base.copy));
  json_set(doc.get(), "eager_bytes", json_value(json_object_new_uint64(p.base.eager_bytes)));
  json_set(doc.get(), "rendezvous", json_number(p.base.rendezvous));
  json_set(doc.get(), "cache_bytes", json_value(json_object_new_uint64(p.base.cache_bytes)));
  json_set(doc.get(), "gamma_cached", json_number(p.base.gamma_cached));
  json_set(doc.get(), "copy_cached", json_number(p.base.copy_cached));
  json_set(doc.get(), "switch_time", json_number(p.base.switch_time));
  json_set(doc.get(), "receiver_copies", json_value(json_object_new_boolean(p.base.receiver_copies)));
  json_set(doc.get(), "source_beta", json_number(p.base.source_beta));
  json_set(doc.get(), "inter_alpha", json_number(p.base.inter_alpha));
  json_set(doc.get(), "inter_beta", json_number(p.base.inter_beta));
  json_set(doc.get(), "port_beta", json_number(p.base.port_beta));
  json_set(doc.get(), "eager_copy", json_number(p.base.eager_copy));
  json_set(doc.get(), "mailbox_alpha", json_number(p.base.mailbox_alpha));
  json_set(doc.get(), "mailbox_beta", json_number(p.base.mailbox_beta));
  json_value gamma(json_object_new_object());
  json_set(gamma.get(), "default", json_number(p.base.gamma));
  for (const reduction_gamma& g : p.gammas) json_set(gamma.get(), (g.op + "/" + g.type).c_str(), json_number(g.gamma));
  json_set(doc.get(), "gamma", std::move(gamma));
  if (!p.measured.empty()) {
    json_value measured;
    try {
      measured = parse_json(p.measured);
    } catch (const json_syntax_error& e) {
      throw error("save_machine_profile", "", "the profile's \"measured\" is not JSON: " + e.where());
    }
    if (!json_is_object(measured.get()))
      throw error("save_machine_profile", "", "the profile's \"measured\" must be a JSON object");
    json_set(doc.get(), "measured", std::move(measured));
  }
  return json_pretty(doc.get()) + "\n";
}

/// Writes `p` as a machine file at `path` (creating its directory; written to
/// a temporary file first and renamed, so readers never see half a file).
/// Throws hpcoll::error ("hpcoll::save_machine_profile: <path>: ...") on failure.
inline void save_machine_profile(const machine_profile& p, const std::string& path) {
  namespace fs = std::filesystem;
  const std::string text = machine_profile_text(p);
  std::error_code ec;
  const fs::path target(path);
  if (target.has_parent_path()) {
    fs::create_directories(target.parent_path(), ec);
    if (ec) detail::machine_file_error("save_machine_profile", path, "cannot create the directory: " + ec.message());
  }
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) detail::machine_file_error("save_machine_profile", path, "cannot write " + tmp);
    out << text;
    out.flush();
    if (!out) detail::machine_file_error("save_machine_profile", path, "cannot write " + tmp);
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    detail::machine_file_error("save_machine_profile", path, "cannot rename " + tmp + " to it");
  }
}

}  // namespace hpcoll
