// Helpers for tests that expect an hpcoll::error or set the environment.
#pragma once

#include <cstdlib>
#include <string>
#include <string_view>

#include <hpcoll/error.hpp>

namespace hpcoll_test {

/// Runs f, which must throw hpcoll::error; returns its message ("" if none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const hpcoll::error& e) {
    return e.what();
  }
  return {};
}

inline bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

/// Sets an environment variable for one scope, then restores what was there.
class scoped_env {
public:
  scoped_env(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    if (value) ::setenv(name, value, 1);
    else ::unsetenv(name);
  }
  ~scoped_env() {
    if (had_) ::setenv(name_.c_str(), old_.c_str(), 1);
    else ::unsetenv(name_.c_str());
  }
  scoped_env(const scoped_env&) = delete;
  scoped_env& operator=(const scoped_env&) = delete;

private:
  std::string name_, old_;
  bool had_ = false;
};

}  // namespace hpcoll_test
