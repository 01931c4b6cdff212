// SPDX-License-Identifier: BSD-3-Clause
// hpcoll's version. CMakeLists.txt's project(VERSION) must agree: configuring
// fails otherwise, so a source checkout used without CMake reads the same
// version as find_package(hpcoll) and hpcoll.pc.
#pragma once

#include <string_view>

#define HPCOLL_VERSION_MAJOR 0
#define HPCOLL_VERSION_MINOR 2
#define HPCOLL_VERSION_PATCH 0

// "0.2.0", spelled from the numbers above so that the two cannot disagree.
#define HPCOLL_DETAIL_QUOTE(x) #x
#define HPCOLL_DETAIL_QUOTE_VALUE(x) HPCOLL_DETAIL_QUOTE(x)
#define HPCOLL_VERSION_STRING \
  HPCOLL_DETAIL_QUOTE_VALUE(HPCOLL_VERSION_MAJOR) "." HPCOLL_DETAIL_QUOTE_VALUE(HPCOLL_VERSION_MINOR) "." \
  HPCOLL_DETAIL_QUOTE_VALUE(HPCOLL_VERSION_PATCH)

namespace hpcoll {

inline constexpr int version_major = HPCOLL_VERSION_MAJOR;
inline constexpr int version_minor = HPCOLL_VERSION_MINOR;
inline constexpr int version_patch = HPCOLL_VERSION_PATCH;
inline constexpr std::string_view version = HPCOLL_VERSION_STRING;

}  // namespace hpcoll
