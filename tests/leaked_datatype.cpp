// SPDX-License-Identifier: BSD-3-Clause
// A program that leaves a committed datatype allocated at MPI_Finalize: MPICH
// reports it ("[WARNING] yaksa: 1 leaked handle pool objects") and exits 0, and
// the test harness must count that report as a failure.
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Datatype leaked = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(3, MPI_DOUBLE, &leaked);
  MPI_Type_commit(&leaked);
  MPI_Finalize();
}
