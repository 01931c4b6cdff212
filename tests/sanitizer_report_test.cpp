// SPDX-License-Identifier: BSD-3-Clause
// Leaks on purpose, then exits 0 (the ASan build's harness.sanitizer_report_fails, run with
// LeakSanitizer's exit code off): the run must fail by the report in its output alone, as a run
// that must fail on bad input has only its output to tell a leak on its error path.
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  static int* volatile leaked;
  leaked = new int[7];
  leaked = nullptr;
  MPI_Finalize();
}
