/* SPDX-License-Identifier: BSD-3-Clause */
/* Random collectives checked against the MPI library's own: each call of an
 * MPI_ collective (which libhpcoll_mpi serves when preloaded) is made again
 * with the PMPI_ function, which the library leaves to MPI, on the same
 * input, and the two results must be equal byte for byte. The collective,
 * datatype, op, count, root, in-place form and communicator (the world, a
 * split with the ranks reversed, a duplicate, a split into unequal parts,
 * MPI_COMM_SELF) are drawn from a seeded generator that every rank runs
 * alike. Under MPI_THREAD_MULTIPLE (where the library serves the nonblocking
 * forms) about half the batches are nonblocking calls: up to four on several
 * communicators outstanding at once, completed by MPI_Waitall or MPI_Testall
 * after the native calls. The values make every op exact in any order
 * (floating values are multiples of 1/4). A program that knows nothing of
 * hpcoll; arguments: [batches [seed [native]]], where `native` says that no
 * library serves the MPI_ calls (MPICH then leaves out the calls it gets
 * wrong itself). Exits non-zero when any result differs. */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static uint64_t generator;
static int draw(int n) {
  generator ^= generator << 13;
  generator ^= generator >> 7;
  generator ^= generator << 17;
  return (int)(generator % (uint64_t)n);
}

/* What the values of a type are and which ops apply to it. */
enum kind { INTEGER, FLOATING, PAIR, BITS, BOOLEAN, COMPLEX, MOVED_ONLY };
struct type {
  MPI_Datatype datatype; /* a derived one is made in main */
  const char* name;
  int extent;      /* bytes an element takes in a buffer */
  int significant; /* bytes of an element that carry its value (a pair's padding does not) */
  enum kind kind;
};
static struct type types[] = {
    {MPI_INT, "MPI_INT", 4, 4, INTEGER},
    {MPI_UNSIGNED, "MPI_UNSIGNED", 4, 4, INTEGER},
    {MPI_LONG, "MPI_LONG", 8, 8, INTEGER},
    {MPI_SHORT, "MPI_SHORT", 2, 2, INTEGER},
    {MPI_UINT8_T, "MPI_UINT8_T", 1, 1, INTEGER},
    {MPI_INT64_T, "MPI_INT64_T", 8, 8, INTEGER},
    {MPI_DOUBLE, "MPI_DOUBLE", 8, 8, FLOATING},
    {MPI_FLOAT, "MPI_FLOAT", 4, 4, FLOATING},
    {MPI_2INT, "MPI_2INT", 8, 8, PAIR},
    {MPI_DOUBLE_INT, "MPI_DOUBLE_INT", 16, 12, PAIR},
    {MPI_BYTE, "MPI_BYTE", 1, 1, BITS},
    {MPI_C_BOOL, "MPI_C_BOOL", 1, 1, BOOLEAN},
    {MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", 16, 16, COMPLEX},
    {MPI_DATATYPE_NULL, "vector(2, 1, 2) of MPI_INT", 12, 12, MOVED_ONLY},
};
enum { TYPES = sizeof types / sizeof types[0] };

/* Whether the native library can be the oracle of a call of type t. */
static int usable(const struct type* t, int reduction) {
  if (reduction && t->kind == MOVED_ONLY) return 0; /* Open MPI: MPI_ERR_OP for predefined ops on derived types */
#ifdef MPICH_VERSION
  if (t->datatype == MPI_DOUBLE_INT) return 0; /* MPICH 4.0.2 aborts in scatters and gathers of it at roots but 0 */
#endif
  return 1;
}

struct op {
  MPI_Op op;
  const char* name;
};
static struct op draw_op(enum kind k) {
  static const struct op integer[] = {{MPI_SUM, "MPI_SUM"},   {MPI_PROD, "MPI_PROD"}, {MPI_MIN, "MPI_MIN"},
                                      {MPI_MAX, "MPI_MAX"},   {MPI_BAND, "MPI_BAND"}, {MPI_BOR, "MPI_BOR"},
                                      {MPI_BXOR, "MPI_BXOR"}, {MPI_LAND, "MPI_LAND"}, {MPI_LOR, "MPI_LOR"},
                                      {MPI_LXOR, "MPI_LXOR"}};
  switch (k) {
    case INTEGER: return integer[draw(10)];
    case FLOATING: return integer[(int[]){0, 2, 3}[draw(3)]];
    case PAIR: return draw(2) ? (struct op){MPI_MINLOC, "MPI_MINLOC"} : (struct op){MPI_MAXLOC, "MPI_MAXLOC"};
    case BITS: return integer[4 + draw(3)];
    case BOOLEAN: return integer[7 + draw(3)];
    default: return integer[0]; /* COMPLEX: the sum */
  }
}

/* n elements of type t, element i of rank `rank`'s call `call`. */
static void fill(char* buffer, size_t n, const struct type* t, int call, int rank) {
  memset(buffer, 0, n * (size_t)t->extent);
  for (size_t i = 0; i < n; ++i) {
    const int v = (int)(((size_t)call * 31 + (size_t)rank * 17 + i * 7) % 13); /* 0 .. 12 */
    char* e = buffer + i * (size_t)t->extent;
    switch (t->kind) {
      case INTEGER: case BITS: e[0] = (char)(v & 7); break; /* small and non-negative in every width */
      case BOOLEAN: e[0] = (char)(v & 1); break;
      case FLOATING:
        if (t->extent == 8) *(double*)e = (v - 6) * 0.25;
        else *(float*)e = (float)(v - 6) * 0.25f;
        break;
      case PAIR:
        if (t->extent == 8) ((int*)e)[0] = v - 6, ((int*)e)[1] = (int)(i + (size_t)rank) % 5;
        else *(double*)e = v - 6, *(int*)(e + 8) = (int)(i + (size_t)rank) % 5;
        break;
      case COMPLEX: ((double*)e)[0] = (v - 6) * 0.25, ((double*)e)[1] = (v % 5) * 0.5; break;
      case MOVED_ONLY: ((int*)e)[0] = v + 100 * rank, ((int*)e)[1] = -1, ((int*)e)[2] = v - 100 * rank; break;
    }
  }
}

enum collective { BCAST, REDUCE, ALLREDUCE, REDUCE_SCATTER_BLOCK, GATHER, GATHERV, SCATTER, ALLGATHER,
                  ALLGATHERV, ALLTOALL, ALLTOALLV, COLLECTIVES };
static const char* const collective_names[] = {"bcast",     "reduce",     "allreduce", "reduce_scatter_block",
                                               "gather",    "gatherv",    "scatter",   "allgather",
                                               "allgatherv", "alltoall",  "alltoallv"};

/* One call: its parameters, its input, the result of the MPI_ call (served)
 * and of the PMPI_ call (native). */
struct call {
  int index, rank, size, count, root, in_place;
  enum collective collective;
  const struct type* type;
  struct op op;
  MPI_Comm comm;
  char *in, *served, *native;
  size_t in_elems, compared; /* elements: of the input, of the output compared */
  int *send_counts, *send_displs, *recv_counts, *recv_displs;
};

/* What rank s sends rank d in the v-collectives (a gatherv or allgatherv sends d = 0). */
static int v_count(const struct call* c, int s, int d) { return (c->index * 31 + s * 7 + d * 13) % (c->count + 1); }

static void prepare(struct call* c) {
  const int p = c->size, r = c->rank;
  const size_t n = (size_t)c->count, extent = (size_t)c->type->extent;
  c->send_counts = calloc((size_t)p, sizeof(int)), c->send_displs = calloc((size_t)p, sizeof(int));
  c->recv_counts = calloc((size_t)p, sizeof(int)), c->recv_displs = calloc((size_t)p, sizeof(int));
  size_t in = n, out = n;
  switch (c->collective) {
    case REDUCE_SCATTER_BLOCK: case SCATTER: in = n * (size_t)p; break;
    case GATHER: case ALLGATHER: out = n * (size_t)p; break;
    case ALLTOALL: in = out = n * (size_t)p; break;
    case GATHERV: case ALLGATHERV: /* blocks in reverse rank order, one element apart */
      out = 0;
      for (int q = p - 1; q >= 0; --q) c->recv_counts[q] = v_count(c, q, 0), c->recv_displs[q] = (int)out, out += (size_t)c->recv_counts[q] + 1;
      in = (size_t)c->recv_counts[r];
      break;
    case ALLTOALLV:
      in = out = 0;
      for (int q = 0; q < p; ++q) {
        c->send_counts[q] = v_count(c, r, q), c->send_displs[q] = (int)in, in += (size_t)c->send_counts[q];
        c->recv_counts[q] = v_count(c, q, r), c->recv_displs[q] = (int)out, out += (size_t)c->recv_counts[q] + 2;
      }
      break;
    default: break;
  }
  c->in_elems = in;
  const size_t largest = (in > out ? in : out) * extent + 1;
  c->in = malloc(in * extent + 1), c->served = malloc(largest), c->native = malloc(largest);
  memset(c->served, 0x5a, largest), memset(c->native, 0x5a, largest);
  fill(c->in, in, c->type, c->index, r);
  c->compared = out;
  const int root = r == c->root;
  /* A bcast's buffer and an in-place call's output start as the input; an
   * in-place gather's, as its own block at its place. */
  const enum collective k = c->collective;
  const int whole = k == BCAST || (c->in_place && (k == ALLREDUCE || k == REDUCE_SCATTER_BLOCK || k == ALLTOALL ||
                                                   ((k == REDUCE || k == SCATTER) && root)));
  const int own_block = c->in_place && (k == ALLGATHER || k == ALLGATHERV || (k == GATHER && root));
  const size_t copied = whole || own_block ? in : 0;
  const size_t at = !own_block ? 0 : k == ALLGATHERV ? (size_t)c->recv_displs[r] : n * (size_t)r;
  memcpy(c->served + at * extent, c->in, copied * extent), memcpy(c->native + at * extent, c->in, copied * extent);
  if (c->collective == SCATTER && c->in_place && root) c->compared = in; /* the root's blocks stay as they were */
}

/* The call, as MPI_ (native = 0) or PMPI_ (native = 1), blocking (request NULL) or not.
 * The native result of an in-place call comes from the form with a send buffer
 * (the input; a scatter's root receives its block aside, its buffer stays as
 * it was): the same result by definition, and MPICH 4.0.2 gets some in-place
 * calls wrong (docs/pmpi.md, "MPICH 4.0.2 defects"). */
static int run(const struct call* c, int native, MPI_Request* request) {
  char* out = native ? c->native : c->served;
  const MPI_Datatype t = c->type->datatype;
  const int n = c->count, root = c->root, at_root = c->rank == root;
  const int in_place = c->in_place && !native;
  if (native && c->in_place && c->collective == SCATTER && at_root) {
    char* aside = malloc((size_t)n * (size_t)c->type->extent + 1);
    const int rc = PMPI_Scatter(out, n, t, aside, n, t, root, c->comm);
    free(aside);
    return rc;
  }
  const MPI_Comm comm = c->comm;
  const void* in = c->in;
#define CALL(Blocking, nonblocking, ...)                                  \
  (request ? MPI_I##nonblocking(__VA_ARGS__, request)                     \
           : native ? PMPI_##Blocking(__VA_ARGS__) : MPI_##Blocking(__VA_ARGS__))
  switch (c->collective) {
    case BCAST: return CALL(Bcast, bcast, out, n, t, root, comm);
    case REDUCE:
      return in_place && at_root ? CALL(Reduce, reduce, MPI_IN_PLACE, out, n, t, c->op.op, root, comm)
                                 : CALL(Reduce, reduce, in, at_root ? out : NULL, n, t, c->op.op, root, comm);
    case ALLREDUCE: return CALL(Allreduce, allreduce, in_place ? MPI_IN_PLACE : in, out, n, t, c->op.op, comm);
    case REDUCE_SCATTER_BLOCK:
      return CALL(Reduce_scatter_block, reduce_scatter_block, in_place ? MPI_IN_PLACE : in, out, n, t, c->op.op, comm);
    case GATHER: return CALL(Gather, gather, in_place && at_root ? MPI_IN_PLACE : in, n, t, out, n, t, root, comm);
    case GATHERV:
      return CALL(Gatherv, gatherv, in, (int)c->in_elems, t, out, c->recv_counts, c->recv_displs, t, root, comm);
    case SCATTER:
      return in_place && at_root ? CALL(Scatter, scatter, out, n, t, MPI_IN_PLACE, n, t, root, comm)
                                 : CALL(Scatter, scatter, in, n, t, out, n, t, root, comm);
    case ALLGATHER:
      return in_place ? CALL(Allgather, allgather, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, n, t, comm)
                      : CALL(Allgather, allgather, in, n, t, out, n, t, comm);
    case ALLGATHERV:
      return in_place ? CALL(Allgatherv, allgatherv, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, c->recv_counts,
                             c->recv_displs, t, comm)
                      : CALL(Allgatherv, allgatherv, in, (int)c->in_elems, t, out, c->recv_counts, c->recv_displs, t,
                             comm);
    case ALLTOALL:
      return in_place ? CALL(Alltoall, alltoall, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, n, t, comm)
                      : CALL(Alltoall, alltoall, in, n, t, out, n, t, comm);
    case ALLTOALLV:
      return CALL(Alltoallv, alltoallv, in, c->send_counts, c->send_displs, t, out, c->recv_counts, c->recv_displs,
                  t, comm);
    default: return MPI_ERR_OTHER;
  }
#undef CALL
}

static void compare(const struct call* c, uint64_t seed, int batch) {
  if ((c->collective == REDUCE || c->collective == GATHER || c->collective == GATHERV) && c->rank != c->root) return;
  const size_t extent = (size_t)c->type->extent;
  size_t differs = c->compared;
  for (size_t i = 0; i < c->compared && differs == c->compared; ++i)
    if (memcmp(c->served + i * extent, c->native + i * extent, (size_t)c->type->significant) != 0) differs = i;
  CHECK(differs == c->compared,
        "seed %llu batch %d call %d: %s of %d x %s, op %s, root %d, %s, on %d ranks (rank %d): element %zu of %zu "
        "differs from the native result",
        (unsigned long long)seed, batch, c->index, collective_names[c->collective], c->count, c->type->name,
        c->op.name, c->root, c->in_place ? "in place" : "not in place", c->size, c->rank, differs, c->compared);
}

/* Whether the native library, serving the in-place form of call c itself, crashes. */
static int native_crashes_in_place(const struct call* c) {
#ifdef MPICH_VERSION
  /* MPICH 4.0.2: an in-place MPI_Reduce at a root other than 0 from 1000 elements */
  return c->in_place && c->collective == REDUCE && c->root != 0 && c->count >= 1000;
#else
  (void)c;
  return 0;
#endif
}

int main(int argc, char** argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int p;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  const int batches = argc > 1 ? atoi(argv[1]) : 150;
  const uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
  const int native_only = argc > 3 && strcmp(argv[3], "native") == 0;
  generator = seed * 0x9E3779B97F4A7C15ull + 1;
  MPI_Type_vector(2, 1, 2, MPI_INT, &types[TYPES - 1].datatype);
  MPI_Type_commit(&types[TYPES - 1].datatype);

  MPI_Comm comms[5] = {MPI_COMM_WORLD, MPI_COMM_SELF};
  MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, p - world_rank, &comms[2]);
  MPI_Comm_dup(MPI_COMM_WORLD, &comms[3]);
  MPI_Comm_split(MPI_COMM_WORLD, world_rank < 3, world_rank, &comms[4]);
  const int nonblocking = provided == MPI_THREAD_MULTIPLE;
  int calls = 0, left_in_place = 0;
  for (int batch = 0; batch < batches; ++batch) {
    struct call batch_calls[4];
    MPI_Request requests[4];
    const int batch_nonblocking = nonblocking && draw(2);
    const int k = batch_nonblocking ? 1 + draw(4) : 1;
    for (int i = 0; i < k; ++i) {
      struct call* c = &batch_calls[i];
      memset(c, 0, sizeof *c);
      c->index = calls++;
      c->comm = comms[draw(5)];
      MPI_Comm_rank(c->comm, &c->rank);
      MPI_Comm_size(c->comm, &c->size);
      c->collective = (enum collective)draw(COLLECTIVES);
      const int reduction = c->collective == REDUCE || c->collective == ALLREDUCE || c->collective == REDUCE_SCATTER_BLOCK;
      do c->type = &types[draw(TYPES)];
      while (!usable(c->type, reduction));
      const int q = c->size;
      const int counts[] = {0, 1, 2, 3, q > 1 ? q - 1 : 1, q, q + 1, 7, 100, 1000, 2047, 4096, 10000, 16384, 50000};
      c->count = counts[draw(sizeof counts / sizeof counts[0])];
      if (c->collective == GATHERV || c->collective == ALLGATHERV || c->collective == ALLTOALLV)
        c->count = c->count > 3000 ? 3000 : c->count;
      c->root = draw(q);
      c->in_place = draw(3) == 0 && c->collective != GATHERV && c->collective != ALLTOALLV;
      if (native_only && native_crashes_in_place(c)) c->in_place = 0, ++left_in_place;
      c->op = reduction ? draw_op(c->type->kind) : (struct op){MPI_OP_NULL, "none"};
      prepare(c);
      const int rc = run(c, 0, batch_nonblocking ? &requests[i] : NULL);
      CHECK(rc == MPI_SUCCESS, "call %d (%s): error %d", c->index, collective_names[c->collective], rc);
    }
    for (int i = 0; i < k; ++i) run(&batch_calls[i], 1, NULL);
    if (batch_nonblocking) {
      if (draw(2)) {
        MPI_Waitall(k, requests, MPI_STATUSES_IGNORE);
      } else {
        int done = 0;
        while (!done) MPI_Testall(k, requests, &done, MPI_STATUSES_IGNORE);
      }
    }
    for (int i = 0; i < k; ++i) {
      struct call* c = &batch_calls[i];
      compare(c, seed, batch);
      free(c->in), free(c->served), free(c->native);
      free(c->send_counts), free(c->send_displs), free(c->recv_counts), free(c->recv_displs);
    }
  }
  for (int i = 2; i < 5; ++i) MPI_Comm_free(&comms[i]);
  MPI_Type_free(&types[TYPES - 1].datatype);
  int total = 0;
  PMPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (world_rank == 0)
    printf("differential: %d ranks, %d calls (%s, seed %llu), %d failed checks\n", p, calls,
           nonblocking ? "blocking and nonblocking" : "blocking", (unsigned long long)seed, total);
  if (world_rank == 0 && left_in_place)
    printf("differential: %d in-place MPI_Reduce calls at roots but 0 made not in place (MPICH 4.0.2 crashes in them)\n",
           left_in_place);
  MPI_Finalize();
  return total != 0;
}
