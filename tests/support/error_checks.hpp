// SPDX-License-Identifier: BSD-3-Clause
// Helpers for tests that expect an hpcoll::error or set the environment.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <hpcoll/error.hpp>

namespace hpcoll_test {

/// Runs f, which must throw an E (hpcoll::error unless told otherwise);
/// returns its message ("" if none).
template <class E = hpcoll::error, class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return {};
}

inline bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

/// Sets (or, with nullopt, unsets) an environment variable for one scope,
/// then restores what was there.
class scoped_env {
public:
  scoped_env(std::string name, std::optional<std::string> value) : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) old_ = old;
    set(value);
  }
  ~scoped_env() { set(old_); }
  scoped_env(const scoped_env&) = delete;
  scoped_env& operator=(const scoped_env&) = delete;

  /// Changes the value within the scope (the old one still comes back).
  void set(const std::optional<std::string>& value) const {
    if (value) ::setenv(name_.c_str(), value->c_str(), 1);
    else ::unsetenv(name_.c_str());
  }

private:
  std::string name_;
  std::optional<std::string> old_;
};

}  // namespace hpcoll_test
