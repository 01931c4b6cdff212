/* SPDX-License-Identifier: BSD-3-Clause */
/* Under MPI_THREAD_MULTIPLE, threads running collectives at once, each on
 * communicators of its own (duplicated from its own one and freed while the
 * others run: MPI forbids concurrent collectives on one communicator),
 * checked by their own oracle: the library's per-thread state and its
 * communicator attributes must keep them apart. Exits 1 when a check fails. */
#include <mpi.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { THREADS = 3, ROUNDS = 50, N = 4 };

static int rank, p;
static MPI_Comm thread_comms[THREADS];

static void* run(void* arg) {
  const int thread = *(const int*)arg;
  int failures = 0;
  int* counts = malloc(sizeof(int) * p);
  int* displs = malloc(sizeof(int) * p);
  int* sent = malloc(sizeof(int) * N * p);
  int* received = malloc(sizeof(int) * N * p);
  for (int round = 0; round < ROUNDS; ++round) {
    MPI_Comm comm;
    MPI_Comm_dup(thread_comms[thread], &comm);
    int in[N], out[N];
    for (int i = 0; i < N; ++i) in[i] = rank + thread * 100 + round + i;
    MPI_Allreduce(in, out, N, MPI_INT, MPI_SUM, comm);
    for (int i = 0; i < N; ++i) failures += out[i] != p * (p - 1) / 2 + p * (thread * 100 + round + i);
    int value = rank == round % p ? thread * 1000 + round : -1;
    MPI_Bcast(&value, 1, MPI_INT, round % p, comm);
    failures += value != thread * 1000 + round;
    /* Rank r sends (r + to) % N + 1 ints to rank `to`. */
    int offset = 0;
    for (int to = 0; to < p; ++to) {
      counts[to] = (rank + to) % N + 1;
      displs[to] = offset;
      for (int i = 0; i < counts[to]; ++i) sent[offset + i] = rank * 100 + to * 10 + thread;
      offset += counts[to];
    }
    int* receive_counts = malloc(sizeof(int) * p);
    int* receive_displs = malloc(sizeof(int) * p);
    offset = 0;
    for (int from = 0; from < p; ++from) {
      receive_counts[from] = (from + rank) % N + 1;
      receive_displs[from] = offset;
      offset += receive_counts[from];
    }
    MPI_Alltoallv(sent, counts, displs, MPI_INT, received, receive_counts, receive_displs, MPI_INT, comm);
    for (int from = 0; from < p; ++from)
      for (int i = 0; i < receive_counts[from]; ++i)
        failures += received[receive_displs[from] + i] != from * 100 + rank * 10 + thread;
    free(receive_counts);
    free(receive_displs);
    MPI_Comm_free(&comm);
  }
  free(counts);
  free(displs);
  free(sent);
  free(received);
  return (void*)(long)failures;
}

int main(int argc, char** argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  if (provided < MPI_THREAD_MULTIPLE) {
    if (rank == 0) printf("threads: MPI_THREAD_MULTIPLE not provided, nothing to check\n");
    MPI_Finalize();
    return 0;
  }
  pthread_t threads[THREADS];
  int ids[THREADS];
  for (int t = 0; t < THREADS; ++t) {
    ids[t] = t;
    MPI_Comm_dup(MPI_COMM_WORLD, &thread_comms[t]);
  }
  for (int t = 0; t < THREADS; ++t) {
    pthread_create(&threads[t], NULL, run, &ids[t]);
  }
  int failures = 0;
  for (int t = 0; t < THREADS; ++t) {
    void* result;
    pthread_join(threads[t], &result);
    failures += (int)(long)result;
    MPI_Comm_free(&thread_comms[t]);
  }
  int all_failures = 0;
  MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("threads: %d ranks, %d threads, %d failed checks\n", p, THREADS, all_failures);
  MPI_Finalize();
  return all_failures == 0 ? 0 : 1;
}
