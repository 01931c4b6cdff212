// SPDX-License-Identifier: BSD-3-Clause
// doctest's own main() for plain (non-MPI) test executables.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
