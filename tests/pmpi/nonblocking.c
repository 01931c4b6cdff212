/* SPDX-License-Identifier: BSD-3-Clause */
/* The nonblocking collectives of the MPI standard under MPI_THREAD_MULTIPLE
 * (where libhpcoll_mpi serves them), checked against results computed here:
 * each of them at several sizes and every root, completed by every member of
 * the MPI_Wait and MPI_Test families next to point-to-point requests; in
 * place; with a non-contiguous datatype freed while the operation is
 * pending; a rank blocked in MPI_Recv while others wait for a collective
 * that needs it; a blocking collective, a freed communicator and a freed
 * request while one is pending; a bad root. A program that knows nothing of hpcoll: run with the
 * library preloaded and without it. Exits non-zero when any check fails. */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int* ints(size_t n) {
  int* a = malloc(sizeof(int) * (n ? n : 1));
  for (size_t i = 0; i < n; ++i) a[i] = -1;
  return a;
}

/* Rank s's element i of what it sends to rank d (alltoall, alltoallv). */
static int sent_to(int s, int d, int i) { return (s * 16 + d) * 4096 + i; }
/* Rank r's element count in the v-collectives. */
static int v_count(int n, int r) { return n + r % 3; }

/* How a batch of requests is completed: each way MPI offers. */
enum completion { WAITALL, WAIT_REVERSED, TESTALL, WAITANY, TESTSOME, GET_STATUS, COMPLETIONS };
static const char* const completion_names[] = {"MPI_Waitall", "MPI_Wait in reverse", "MPI_Testall", "MPI_Waitany",
                                               "MPI_Testsome", "MPI_Request_get_status"};

static void complete(int k, MPI_Request* requests, enum completion how) {
  switch (how) {
    case WAITALL: MPI_Waitall(k, requests, MPI_STATUSES_IGNORE); break;
    case WAIT_REVERSED:
      for (int i = k - 1; i >= 0; --i) MPI_Wait(&requests[i], MPI_STATUS_IGNORE);
      break;
    case TESTALL: {
      int done = 0;
      while (!done) MPI_Testall(k, requests, &done, MPI_STATUSES_IGNORE);
      break;
    }
    case WAITANY:
      for (int i = 0; i < k; ++i) {
        int index = MPI_UNDEFINED;
        MPI_Waitany(k, requests, &index, MPI_STATUS_IGNORE);
        CHECK(index != MPI_UNDEFINED, "MPI_Waitany found no active request after %d of %d", i, k);
      }
      break;
    case TESTSOME: {
      int left = k;
      int* indices = malloc(sizeof(int) * (size_t)k);
      while (left > 0) {
        int count = 0;
        MPI_Testsome(k, requests, &count, indices, MPI_STATUSES_IGNORE);
        if (count != MPI_UNDEFINED) left -= count;
      }
      free(indices);
      break;
    }
    case GET_STATUS:
      for (int i = 0; i < k; ++i) {
        int done = 0;
        while (!done) MPI_Request_get_status(requests[i], &done, MPI_STATUS_IGNORE);
        MPI_Wait(&requests[i], MPI_STATUS_IGNORE);
      }
      break;
    case COMPLETIONS: break;
  }
  for (int i = 0; i < k; ++i) CHECK(requests[i] == MPI_REQUEST_NULL, "request %d not freed by %s", i, completion_names[how]);
}

/* All eleven collectives in flight at once, n elements per rank (block),
 * rooted at `root`, plus a ring exchange of point-to-point messages; then
 * completed together `how`. */
static void all_collectives(MPI_Comm comm, int n, int root, enum completion how) {
  int rank, p;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  const size_t un = (size_t)n, up = (size_t)p;
  enum { KINDS = 13 };
  MPI_Request requests[KINDS];

  int* bcast = ints(un);
  for (int i = 0; i < n; ++i) bcast[i] = rank == root ? root * 1000 + i : -1;
  MPI_Ibcast(bcast, n, MPI_INT, root, comm, &requests[0]);

  int* mine = ints(un);
  for (int i = 0; i < n; ++i) mine[i] = rank * 1000 + i;
  int* allreduced = ints(un);
  MPI_Iallreduce(mine, allreduced, n, MPI_INT, MPI_SUM, comm, &requests[1]);
  int* reduced = ints(un);
  MPI_Ireduce(mine, reduced, n, MPI_INT, MPI_MAX, root, comm, &requests[2]);

  int* blocks = ints(un * up);
  for (size_t j = 0; j < un * up; ++j) blocks[j] = rank * 1000 + (int)j;
  int* scattered_sum = ints(un);
  MPI_Ireduce_scatter_block(blocks, scattered_sum, n, MPI_INT, MPI_SUM, comm, &requests[3]);

  int* gathered = ints(un * up);
  MPI_Igather(mine, n, MPI_INT, gathered, n, MPI_INT, root, comm, &requests[4]);

  /* The v-collectives: rank r's block holds v_count(n, r) elements, the
   * blocks in reverse rank order in the buffer. */
  int* counts = malloc(sizeof(int) * up);
  int* displs = malloc(sizeof(int) * up);
  int total = 0;
  for (int r = p - 1; r >= 0; --r) {
    counts[r] = v_count(n, r);
    displs[r] = total;
    total += counts[r];
  }
  int* mine_v = ints((size_t)v_count(n, rank));
  for (int i = 0; i < v_count(n, rank); ++i) mine_v[i] = rank * 1000 + i;
  int* gathered_v = ints((size_t)total);
  MPI_Igatherv(mine_v, v_count(n, rank), MPI_INT, gathered_v, counts, displs, MPI_INT, root, comm, &requests[5]);

  int* to_scatter = ints(un * up);
  for (size_t j = 0; j < un * up; ++j) to_scatter[j] = (int)(j / (un ? un : 1)) * 1000 + (int)(j % (un ? un : 1)) + 7;
  int* scattered = ints(un);
  MPI_Iscatter(to_scatter, n, MPI_INT, scattered, n, MPI_INT, root, comm, &requests[6]);

  int* allgathered = ints(un * up);
  MPI_Iallgather(mine, n, MPI_INT, allgathered, n, MPI_INT, comm, &requests[7]);
  int* allgathered_v = ints((size_t)total);
  MPI_Iallgatherv(mine_v, v_count(n, rank), MPI_INT, allgathered_v, counts, displs, MPI_INT, comm, &requests[8]);

  int* to_all = ints(un * up);
  for (int d = 0; d < p; ++d)
    for (int i = 0; i < n; ++i) to_all[(size_t)d * un + (size_t)i] = sent_to(rank, d, i);
  int* from_all = ints(un * up);
  MPI_Ialltoall(to_all, n, MPI_INT, from_all, n, MPI_INT, comm, &requests[9]);

  /* Alltoallv: rank s sends v_count(n, s + d) elements to rank d. */
  int* send_counts = malloc(sizeof(int) * up);
  int* send_displs = malloc(sizeof(int) * up);
  int* receive_counts = malloc(sizeof(int) * up);
  int* receive_displs = malloc(sizeof(int) * up);
  int sent_total = 0, received_total = 0;
  for (int r = 0; r < p; ++r) {
    send_counts[r] = v_count(n, rank + r);
    send_displs[r] = sent_total;
    sent_total += send_counts[r];
    receive_counts[r] = v_count(n, r + rank);
    receive_displs[r] = received_total;
    received_total += receive_counts[r];
  }
  int* to_all_v = ints((size_t)sent_total);
  for (int d = 0; d < p; ++d)
    for (int i = 0; i < send_counts[d]; ++i) to_all_v[send_displs[d] + i] = sent_to(rank, d, i);
  int* from_all_v = ints((size_t)received_total);
  MPI_Ialltoallv(to_all_v, send_counts, send_displs, MPI_INT, from_all_v, receive_counts, receive_displs, MPI_INT,
                 comm, &requests[10]);

  /* Point-to-point requests in the same batch. */
  const int next = (rank + 1) % p, previous = (rank + p - 1) % p;
  int ring_out = rank, ring_in = -1;
  MPI_Irecv(&ring_in, 1, MPI_INT, previous, 99, comm, &requests[11]);
  MPI_Isend(&ring_out, 1, MPI_INT, next, 99, comm, &requests[12]);

  complete(KINDS, requests, how);
  const char* way = completion_names[how];

  CHECK(ring_in == previous, "%s: ring message %d from %d", way, ring_in, previous);
  const int rank_sum = p * (p - 1) / 2;
  for (int i = 0; i < n; ++i) {
    CHECK(bcast[i] == root * 1000 + i, "%s: ibcast n %d root %d [%d]: %d", way, n, root, i, bcast[i]);
    CHECK(allreduced[i] == 1000 * rank_sum + p * i, "%s: iallreduce n %d [%d]: %d", way, n, i, allreduced[i]);
    if (rank == root) CHECK(reduced[i] == (p - 1) * 1000 + i, "%s: ireduce n %d root %d [%d]", way, n, root, i);
    CHECK(scattered_sum[i] == 1000 * rank_sum + p * (rank * n + i), "%s: ireduce_scatter_block n %d [%d]", way, n, i);
    CHECK(scattered[i] == rank * 1000 + i + 7, "%s: iscatter n %d root %d [%d]", way, n, root, i);
  }
  for (int r = 0; r < p; ++r) {
    for (int i = 0; i < n; ++i) {
      const size_t at = (size_t)r * un + (size_t)i;
      if (rank == root) CHECK(gathered[at] == r * 1000 + i, "%s: igather n %d root %d [%d][%d]", way, n, root, r, i);
      CHECK(allgathered[at] == r * 1000 + i, "%s: iallgather n %d [%d][%d]", way, n, r, i);
      CHECK(from_all[at] == sent_to(r, rank, i), "%s: ialltoall n %d [%d][%d]", way, n, r, i);
    }
    for (int i = 0; i < counts[r]; ++i) {
      if (rank == root)
        CHECK(gathered_v[displs[r] + i] == r * 1000 + i, "%s: igatherv n %d root %d [%d][%d]", way, n, root, r, i);
      CHECK(allgathered_v[displs[r] + i] == r * 1000 + i, "%s: iallgatherv n %d [%d][%d]", way, n, r, i);
    }
    for (int i = 0; i < receive_counts[r]; ++i)
      CHECK(from_all_v[receive_displs[r] + i] == sent_to(r, rank, i), "%s: ialltoallv n %d [%d][%d]", way, n, r, i);
  }

  int* owned[] = {bcast, mine, allreduced, reduced, blocks, scattered_sum, gathered, counts, displs, mine_v, gathered_v,
                  to_scatter, scattered, allgathered, allgathered_v, to_all, from_all, send_counts, send_displs,
                  receive_counts, receive_displs, to_all_v, from_all_v};
  for (size_t i = 0; i < sizeof owned / sizeof owned[0]; ++i) free(owned[i]);
}

/* MPI_IN_PLACE wherever the standard allows it. */
static void in_place(MPI_Comm comm, int n) {
  int rank, p;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  const size_t un = (size_t)n, up = (size_t)p;
  const int root = p / 2;
  MPI_Request requests[5];
  int* summed = ints(un);
  for (int i = 0; i < n; ++i) summed[i] = rank + i;
  MPI_Iallreduce(MPI_IN_PLACE, summed, n, MPI_INT, MPI_SUM, comm, &requests[0]);
  int* reduced = ints(un);
  for (int i = 0; i < n; ++i) reduced[i] = rank * i;
  MPI_Ireduce(rank == root ? MPI_IN_PLACE : reduced, rank == root ? reduced : NULL, n, MPI_INT, MPI_MAX, root, comm,
              &requests[1]);
  int* all = ints(un * up);
  for (int i = 0; i < n; ++i) all[(size_t)rank * un + (size_t)i] = rank * 1000 + i;
  MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, n, MPI_INT, comm, &requests[2]);
  int* exchanged = ints(un * up);
  for (int d = 0; d < p; ++d)
    for (int i = 0; i < n; ++i) exchanged[(size_t)d * un + (size_t)i] = sent_to(rank, d, i);
  MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, exchanged, n, MPI_INT, comm, &requests[3]);
  int* gathered = ints(un * up);
  for (int i = 0; i < n; ++i) gathered[(size_t)rank * un + (size_t)i] = rank * 1000 + i;
  MPI_Igather(rank == root ? MPI_IN_PLACE : gathered + (size_t)rank * un, n, MPI_INT, gathered, n, MPI_INT, root,
              comm, &requests[4]);
  MPI_Waitall(5, requests, MPI_STATUSES_IGNORE);
  for (int i = 0; i < n; ++i) {
    CHECK(summed[i] == p * (p - 1) / 2 + p * i, "iallreduce in place n %d [%d]", n, i);
    if (rank == root) CHECK(reduced[i] == (p - 1) * i, "ireduce in place n %d [%d]", n, i);
  }
  for (int r = 0; r < p; ++r)
    for (int i = 0; i < n; ++i) {
      const size_t at = (size_t)r * un + (size_t)i;
      CHECK(all[at] == r * 1000 + i, "iallgather in place n %d [%d][%d]", n, r, i);
      CHECK(exchanged[at] == sent_to(r, rank, i), "ialltoall in place n %d [%d][%d]", n, r, i);
      if (rank == root) CHECK(gathered[at] == r * 1000 + i, "igather in place n %d [%d][%d]", n, r, i);
    }
  free(summed);
  free(reduced);
  free(all);
  free(exchanged);
  free(gathered);
}

/* A vector datatype (2 ints of every 3), freed by the program right after
 * the call that uses it: the operation must still unpack through it. The
 * third int of each item must stay untouched. */
static void non_contiguous(MPI_Comm comm) {
  int rank, p;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  const int n = 5, root = p - 1;
  MPI_Datatype pairs;
  MPI_Type_vector(1, 2, 3, MPI_INT, &pairs);
  MPI_Datatype item;
  MPI_Type_create_resized(pairs, 0, 3 * (MPI_Aint)sizeof(int), &item);
  MPI_Type_free(&pairs);
  MPI_Type_commit(&item);
  int* bcast = ints(3 * (size_t)n);
  for (int i = 0; i < 3 * n; ++i) bcast[i] = rank == root || i % 3 == 2 ? i : -1;
  int* all = ints(3 * (size_t)n * (size_t)p);
  for (int i = 0; i < 3 * n * p; ++i) all[i] = i % 3 == 2 ? -5 : -1;
  int* mine = ints(2 * (size_t)n);
  for (int i = 0; i < 2 * n; ++i) mine[i] = rank * 100 + i;
  MPI_Request requests[2];
  MPI_Ibcast(bcast, n, item, root, comm, &requests[0]);
  MPI_Iallgather(mine, 2 * n, MPI_INT, all, n, item, comm, &requests[1]);
  MPI_Type_free(&item);
  MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
  for (int i = 0; i < 3 * n; ++i) CHECK(bcast[i] == i, "ibcast of a vector type [%d]: %d", i, bcast[i]);
  for (int r = 0; r < p; ++r)
    for (int k = 0; k < n; ++k) {
      const int* got = all + 3 * (r * n + k);
      CHECK(got[0] == r * 100 + 2 * k && got[1] == r * 100 + 2 * k + 1 && got[2] == -5,
            "iallgather into a vector type, rank %d item %d: %d %d %d", r, k, got[0], got[1], got[2]);
    }
  free(bcast);
  free(all);
  free(mine);
}

/* Rank 0 roots a broadcast, then blocks in MPI_Recv for a message that the
 * last rank sends only once its broadcast has completed: the broadcast must
 * progress while its root sits in another MPI call. */
static void progress_while_blocked(MPI_Comm comm) {
  int rank, p;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  enum { N = 20000 };
  int* data = ints(N);
  if (rank == 0)
    for (int i = 0; i < N; ++i) data[i] = i;
  MPI_Request request;
  MPI_Ibcast(data, N, MPI_INT, 0, comm, &request);
  int done = 0;
  if (rank == 0 && p > 1) MPI_Recv(&done, 1, MPI_INT, p - 1, 7, comm, MPI_STATUS_IGNORE);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  if (rank == p - 1 && p > 1) {
    done = 1;
    MPI_Send(&done, 1, MPI_INT, 0, 7, comm);
  }
  int wrong = 0;
  for (int i = 0; i < N; ++i) wrong += data[i] != i;
  CHECK(wrong == 0, "ibcast while the root blocks in MPI_Recv: %d wrong elements", wrong);
  if (rank == 0 && p > 1) CHECK(done == 1, "the message after the broadcast: %d", done);
  free(data);
}

/* A blocking collective on the communicator while a nonblocking one is
 * pending on it; then a duplicate freed with an operation pending on it. */
static void pending_across_calls(MPI_Comm comm) {
  int rank, p;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  int in = rank + 1, sum = 0, blocking_sum = 0;
  MPI_Request request;
  MPI_Iallreduce(&in, &sum, 1, MPI_INT, MPI_SUM, comm, &request);
  MPI_Allreduce(&in, &blocking_sum, 1, MPI_INT, MPI_SUM, comm);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  CHECK(sum == p * (p + 1) / 2 && blocking_sum == sum, "iallreduce %d, then allreduce %d, while pending", sum,
        blocking_sum);

  MPI_Comm dup;
  MPI_Comm_dup(comm, &dup);
  int* to_all = ints((size_t)p);
  int* from_all = ints((size_t)p);
  for (int d = 0; d < p; ++d) to_all[d] = sent_to(rank, d, 0);
  MPI_Ialltoall(to_all, 1, MPI_INT, from_all, 1, MPI_INT, dup, &request);
  MPI_Comm_free(&dup);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  for (int r = 0; r < p; ++r) CHECK(from_all[r] == sent_to(r, rank, 0), "ialltoall on a freed duplicate [%d]", r);
  free(to_all);
  free(from_all);
}

/* A freed request's buffers may still be in use: they are kept here,
 * reachable, so that LeakSanitizer does not take them for a leak (Open MPI
 * frees its own request of a collective that completed before the call):
 * two a free, two frees on each of main's three communicators. */
static int* volatile freed_request_buffers[12];
static int freed_requests;

/* Whether libhpcoll_mpi is preloaded, and so serves the nonblocking forms
 * (main skips the program without MPI_THREAD_MULTIPLE). */
static int served(void) {
  const char* preload = getenv("LD_PRELOAD");
  return preload != NULL && strstr(preload, "libhpcoll_mpi") != NULL;
}

/* MPI_Request_free on a nonblocking collective's request, which the standard
 * forbids: under MPI_ERRORS_RETURN an error (Open MPI: MPI_ERR_REQUEST, MPICH
 * 4.0: MPI_ERR_OTHER), the request left active and completed by MPI_Wait.
 * libhpcoll_mpi refuses a served request always, whether its run has ended or
 * not; an MPI library that frees its own instead, returning MPI_SUCCESS, is
 * let be (Open MPI does when the collective has completed). Freed at once,
 * while the collective is likely in flight, and after a pause in which it
 * has likely ended (neither is required of the check). */
static void freed_request(MPI_Comm comm) {
  int rank, p;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  enum { N = 1000 };
  for (int late = 0; late < 2; ++late) {
    int* in = ints(N);
    int* out = ints(N);
    for (int i = 0; i < N; ++i) in[i] = rank + i;
    MPI_Request request;
    MPI_Iallreduce(in, out, N, MPI_INT, MPI_SUM, comm, &request);
    if (late)
      for (const double start = MPI_Wtime(); MPI_Wtime() - start < 0.02;) continue;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const int code = MPI_Request_free(&request);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    CHECK(code != MPI_SUCCESS || !served(), "MPI_Request_free freed a served collective's request (%s)",
          late ? "after a pause" : "at once");
    if (code == MPI_SUCCESS) {
      freed_request_buffers[freed_requests++] = in;
      freed_request_buffers[freed_requests++] = out;
      continue;
    }
    CHECK(request != MPI_REQUEST_NULL, "a refused MPI_Request_free set the request to MPI_REQUEST_NULL");
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    for (int i = 0; i < N; ++i) CHECK(out[i] == p * (p - 1) / 2 + p * i, "iallreduce after a refused free [%d]", i);
    free(in);
    free(out);
  }
}

/* A bad root under MPI_ERRORS_RETURN: an error code, no request, no hang. */
static void bad_root(MPI_Comm comm) {
  int p;
  MPI_Comm_size(comm, &p);
  MPI_Comm returning;
  MPI_Comm_dup(comm, &returning);
  MPI_Comm_set_errhandler(returning, MPI_ERRORS_RETURN);
  int value = 0, error_class = MPI_SUCCESS;
  MPI_Request request = MPI_REQUEST_NULL;
  const int code = MPI_Ibcast(&value, 1, MPI_INT, p, returning, &request);
  MPI_Error_class(code, &error_class);
  CHECK(error_class == MPI_ERR_ROOT, "ibcast to root %d returned error class %d, not MPI_ERR_ROOT", p, error_class);
  MPI_Comm_free(&returning);
}

static void everything(MPI_Comm comm) {
  int p;
  MPI_Comm_size(comm, &p);
  const int sizes[] = {0, 1, p + 1, 3000};
  int round = 0;
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
    for (int root = 0; root < p; ++root) all_collectives(comm, sizes[s], root, (enum completion)(round++ % COMPLETIONS));
  in_place(comm, 0);
  in_place(comm, p + 1);
  non_contiguous(comm);
  progress_while_blocked(comm);
  pending_across_calls(comm);
  freed_request(comm);
}

int main(int argc, char** argv) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  if (provided < MPI_THREAD_MULTIPLE) {
    if (world_rank == 0) printf("SKIPPED: MPI does not provide MPI_THREAD_MULTIPLE\n");
    MPI_Finalize();
    return 0;
  }
  everything(MPI_COMM_WORLD);
  everything(MPI_COMM_SELF);
  bad_root(MPI_COMM_WORLD);
  int p;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, p - world_rank, &half);
  everything(half);
  MPI_Comm_free(&half);

  int all_failures = 0;
  MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (world_rank == 0) printf("nonblocking: %d ranks, %d failed checks\n", p, all_failures);
  MPI_Finalize();
  return all_failures == 0 ? 0 : 1;
}
