/* SPDX-License-Identifier: BSD-3-Clause */
/* An MPI_Allreduce under MPI_ERRORS_RETURN, whose error, if any, is printed
 * with its MPI_Error_string and class; run preloaded with a setting hpcoll
 * refuses, it shows the library returning hpcoll's message as an MPI error. */
#include <mpi.h>

#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm returning;
  MPI_Comm_dup(MPI_COMM_WORLD, &returning);
  MPI_Comm_set_errhandler(returning, MPI_ERRORS_RETURN);
  int in = 1, out = 0;
  const int code = MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, returning);
  if (rank == 0) {
    if (code == MPI_SUCCESS) {
      printf("allreduce: success, %d\n", out);
    } else {
      char text[MPI_MAX_ERROR_STRING];
      int length = 0, error_class = 0;
      MPI_Error_string(code, text, &length);
      MPI_Error_class(code, &error_class);
      printf("allreduce: error of class %d: %s\n", error_class, text);
    }
  }
  MPI_Comm_free(&returning);
  MPI_Finalize();
  return 0;
}
