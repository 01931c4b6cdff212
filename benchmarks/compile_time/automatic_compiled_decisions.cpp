// SPDX-License-Identifier: BSD-3-Clause
// automatic.cpp in a program that links hpcoll::decisions: the dispatcher's
// decide() is compiled there, not here.
#ifndef HPCOLL_COMPILED_DECISIONS
#define HPCOLL_COMPILED_DECISIONS 1  // what linking hpcoll::decisions defines (compile_time.py compiles this file alone)
#endif
#include "automatic.cpp"
