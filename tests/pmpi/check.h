/* SPDX-License-Identifier: BSD-3-Clause */
/* The checks of the conformance programs: CHECK(condition, printf format,
 * ...) counts a failed check in `failures` and prints the first 20, with the
 * rank (`world_rank`, set by main) and the place. One program per file. */
#ifndef HPCOLL_TESTS_PMPI_CHECK_H
#define HPCOLL_TESTS_PMPI_CHECK_H

#include <stdio.h>

static int failures = 0;
static int world_rank = 0;

#define CHECK(cond, ...)                                                      \
  do {                                                                        \
    if (!(cond)) {                                                            \
      ++failures;                                                             \
      if (failures <= 20) {                                                   \
        fprintf(stderr, "[rank %d] %s:%d: ", world_rank, __FILE__, __LINE__); \
        fprintf(stderr, __VA_ARGS__);                                         \
        fputc('\n', stderr);                                                  \
      }                                                                       \
    }                                                                         \
  } while (0)

#endif
