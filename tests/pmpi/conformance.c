/* SPDX-License-Identifier: BSD-3-Clause */
/* The MPI standard's collectives checked against results computed here, on
 * every rank, for every root, predefined type and op: a program that knows
 * nothing of hpcoll, run with libhpcoll_mpi preloaded and without it.
 * Exits non-zero, after printing each failed check, when any check fails. */
#include <mpi.h>

#include <complex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { N = 5 }; /* elements per rank (per block) */

/* ---- reductions ---------------------------------------------------------- */

enum op_kind { SUM, PROD, MIN, MAX, LAND, LOR, LXOR, BAND, BOR, BXOR };
static const char* const op_names[] = {"sum", "prod", "min", "max", "land", "lor", "lxor", "band", "bor", "bxor"};
static MPI_Op op_handle(int op) {
  const MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX, MPI_LAND, MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR};
  return ops[op];
}

/* Rank r's element i for op: small values, so that every sum and product is
 * exact. Not negative for MPI_MIN and MPI_MAX: Open MPI 4.1.4 compares
 * MPI_UNSIGNED_LONG items as signed ones (docs/pmpi.md). */
static int value(int op, int r, int i) {
  switch (op) {
    case SUM: return (r + 2 * i) % 7 - 3;
    case PROD: return (r + i) % 4 - 1;
    case MIN: case MAX: return (r * 5 + i * 3) % 11;
    case LAND: case LOR: case LXOR: return (r + i) % 3;
    default: return (r * 37 + i * 11) & 0x7f;
  }
}

#define FOLD(op, a, b, T)                                  \
  ((op) == SUM    ? (T)((a) + (b))                         \
   : (op) == PROD ? (T)((a) * (b))                         \
   : (op) == MIN  ? ((b) < (a) ? (b) : (a))                \
   : (op) == MAX  ? ((a) < (b) ? (b) : (a))                \
   : (op) == LAND ? (T)((a) && (b))                        \
   : (op) == LOR  ? (T)((a) || (b))                        \
                  : (T)(!(a) != !(b)))
#define FOLD_LOGICAL(op, a, b, T) ((op) == LAND ? (T)((a) && (b)) : (op) == LOR ? (T)((a) || (b)) : (T)(!(a) != !(b)))
#define FOLD_BITS(op, a, b, T) ((op) == BAND ? (T)((a) & (b)) : (op) == BOR ? (T)((a) | (b)) : (T)((a) ^ (b)))

/* Every form of the three reductions with one type and op: allreduce (and in
 * place), reduce to every root (and in place), reduce_scatter_block (and in place). */
#define DEFINE_REDUCTIONS(NAME, T, FOLD_OP, MAKE)                                                    \
  static void NAME(MPI_Comm comm, MPI_Datatype type, int op, const char* type_name) {               \
    int rank, p;                                                                                     \
    MPI_Comm_rank(comm, &rank);                                                                      \
    MPI_Comm_size(comm, &p);                                                                         \
    const int total = N * p;                                                                         \
    T* in = malloc(sizeof(T) * total);                                                               \
    T* out = malloc(sizeof(T) * total);                                                              \
    T* expected = malloc(sizeof(T) * total);                                                         \
    for (int i = 0; i < total; ++i) {                                                                \
      in[i] = MAKE(op, rank, i);                                                                     \
      expected[i] = MAKE(op, 0, i);                                                                  \
      for (int r = 1; r < p; ++r) {                                                                  \
        const T v = MAKE(op, r, i);                                                                  \
        expected[i] = FOLD_OP(op, expected[i], v, T);                                                \
      }                                                                                              \
    }                                                                                                \
    MPI_Allreduce(in, out, N, type, op_handle(op), comm);                                            \
    for (int i = 0; i < N; ++i) CHECK(out[i] == expected[i], "allreduce %s %s [%d]", type_name, op_names[op], i); \
    memcpy(out, in, sizeof(T) * N);                                                                  \
    MPI_Allreduce(MPI_IN_PLACE, out, N, type, op_handle(op), comm);                                  \
    for (int i = 0; i < N; ++i)                                                                      \
      CHECK(out[i] == expected[i], "allreduce in place %s %s [%d]", type_name, op_names[op], i);     \
    for (int root = 0; root < p; ++root) {                                                           \
      memset(out, 0, sizeof(T) * N);                                                                 \
      if (rank == root && root % 2 == 1) {                                                           \
        memcpy(out, in, sizeof(T) * N);                                                              \
        MPI_Reduce(MPI_IN_PLACE, out, N, type, op_handle(op), root, comm);                           \
      } else {                                                                                       \
        MPI_Reduce(in, out, N, type, op_handle(op), root, comm);                                     \
      }                                                                                              \
      if (rank == root)                                                                              \
        for (int i = 0; i < N; ++i)                                                                  \
          CHECK(out[i] == expected[i], "reduce %s %s root %d [%d]", type_name, op_names[op], root, i); \
    }                                                                                                \
    MPI_Reduce_scatter_block(in, out, N, type, op_handle(op), comm);                                 \
    for (int i = 0; i < N; ++i)                                                                      \
      CHECK(out[i] == expected[rank * N + i], "reduce_scatter_block %s %s [%d]", type_name, op_names[op], i); \
    memcpy(out, in, sizeof(T) * total);                                                              \
    MPI_Reduce_scatter_block(MPI_IN_PLACE, out, N, type, op_handle(op), comm);                       \
    for (int i = 0; i < N; ++i)                                                                      \
      CHECK(out[i] == expected[rank * N + i], "reduce_scatter_block in place %s %s [%d]", type_name, op_names[op], i); \
    free(in);                                                                                        \
    free(out);                                                                                       \
    free(expected);                                                                                  \
  }

#define SCALAR(op, r, i) value(op, r, i)
#define COMPLEX(op, r, i) (value(op, r, i) + value(op, r, i + 1) * I)

/* One function per C type and op group: the ops MPI defines on it. */
#define INTEGER_TYPE(T, NAME)                                       \
  DEFINE_REDUCTIONS(NAME##_arith, T, FOLD, SCALAR)                  \
  DEFINE_REDUCTIONS(NAME##_bits, T, FOLD_BITS, SCALAR)              \
  static void NAME(MPI_Comm comm, MPI_Datatype type, const char* n) { \
    for (int op = SUM; op <= LXOR; ++op) NAME##_arith(comm, type, op, n); \
    for (int op = BAND; op <= BXOR; ++op) NAME##_bits(comm, type, op, n); \
  }
INTEGER_TYPE(signed char, reduce_schar)
INTEGER_TYPE(unsigned char, reduce_uchar)
INTEGER_TYPE(short, reduce_short)
INTEGER_TYPE(unsigned short, reduce_ushort)
INTEGER_TYPE(int, reduce_int)
INTEGER_TYPE(unsigned, reduce_unsigned)
INTEGER_TYPE(long, reduce_long)
INTEGER_TYPE(unsigned long, reduce_ulong)
INTEGER_TYPE(long long, reduce_llong)
INTEGER_TYPE(unsigned long long, reduce_ullong)
INTEGER_TYPE(int8_t, reduce_int8)
INTEGER_TYPE(int16_t, reduce_int16)
INTEGER_TYPE(int32_t, reduce_int32)
INTEGER_TYPE(int64_t, reduce_int64)
INTEGER_TYPE(uint8_t, reduce_uint8)
INTEGER_TYPE(uint16_t, reduce_uint16)
INTEGER_TYPE(uint32_t, reduce_uint32)
INTEGER_TYPE(uint64_t, reduce_uint64)
INTEGER_TYPE(MPI_Aint, reduce_aint)
INTEGER_TYPE(MPI_Offset, reduce_offset)
INTEGER_TYPE(MPI_Count, reduce_count)

#define FLOATING_TYPE(T, NAME)                                       \
  DEFINE_REDUCTIONS(NAME##_arith, T, FOLD, SCALAR)                   \
  static void NAME(MPI_Comm comm, MPI_Datatype type, const char* n) { \
    for (int op = SUM; op <= MAX; ++op) NAME##_arith(comm, type, op, n); \
  }
FLOATING_TYPE(float, reduce_float)
FLOATING_TYPE(double, reduce_double)
FLOATING_TYPE(long double, reduce_long_double)

DEFINE_REDUCTIONS(reduce_bool_logical, bool, FOLD_LOGICAL, SCALAR)
DEFINE_REDUCTIONS(reduce_byte_bits, unsigned char, FOLD_BITS, SCALAR)

/* Complex sums and products, written out (C has no < on complex numbers). */
#define COMPLEX_FOLD(op, a, b, T) ((op) == SUM ? (T)((a) + (b)) : (T)((a) * (b)))
DEFINE_REDUCTIONS(reduce_complex_float, float _Complex, COMPLEX_FOLD, COMPLEX)
DEFINE_REDUCTIONS(reduce_complex_double, double _Complex, COMPLEX_FOLD, COMPLEX)
DEFINE_REDUCTIONS(reduce_complex_long_double, long double _Complex, COMPLEX_FOLD, COMPLEX)

/* MPI_MINLOC and MPI_MAXLOC: many ties, which the smaller index wins. */
#define PAIR_TYPE(V, NAME)                                                                        \
  static void NAME(MPI_Comm comm, MPI_Datatype type, const char* type_name) {                    \
    struct pair { V value; int index; };                                                          \
    int rank, p;                                                                                  \
    MPI_Comm_rank(comm, &rank);                                                                   \
    MPI_Comm_size(comm, &p);                                                                      \
    for (int maxloc = 0; maxloc < 2; ++maxloc) {                                                  \
      struct pair in[N], out[N], expected[N];                                                     \
      for (int i = 0; i < N; ++i) {                                                               \
        in[i] = (struct pair){(V)((rank * 5 + i * 3) % 4), rank};                                 \
        expected[i] = (struct pair){(V)((i * 3) % 4), 0};                                         \
        for (int r = 1; r < p; ++r) {                                                             \
          const V v = (V)((r * 5 + i * 3) % 4);                                                   \
          if (maxloc ? v > expected[i].value : v < expected[i].value) expected[i] = (struct pair){v, r}; \
        }                                                                                         \
      }                                                                                           \
      MPI_Allreduce(in, out, N, type, maxloc ? MPI_MAXLOC : MPI_MINLOC, comm);                    \
      for (int i = 0; i < N; ++i)                                                                 \
        CHECK(out[i].value == expected[i].value && out[i].index == expected[i].index,             \
              "allreduce %s %s [%d]", type_name, maxloc ? "maxloc" : "minloc", i);                \
      for (int root = 0; root < p; ++root) {                                                      \
        MPI_Reduce(in, out, N, type, maxloc ? MPI_MAXLOC : MPI_MINLOC, root, comm);               \
        if (rank == root)                                                                         \
          for (int i = 0; i < N; ++i)                                                             \
            CHECK(out[i].value == expected[i].value && out[i].index == expected[i].index,         \
                  "reduce %s %s root %d [%d]", type_name, maxloc ? "maxloc" : "minloc", root, i); \
      }                                                                                           \
    }                                                                                             \
  }
PAIR_TYPE(float, reduce_float_int)
PAIR_TYPE(double, reduce_double_int)
PAIR_TYPE(long, reduce_long_int)
PAIR_TYPE(int, reduce_2int)
PAIR_TYPE(short, reduce_short_int)
PAIR_TYPE(long double, reduce_long_double_int)

static void reductions(MPI_Comm comm) {
  reduce_schar(comm, MPI_SIGNED_CHAR, "signed char");
  reduce_uchar(comm, MPI_UNSIGNED_CHAR, "unsigned char");
  reduce_short(comm, MPI_SHORT, "short");
  reduce_ushort(comm, MPI_UNSIGNED_SHORT, "unsigned short");
  reduce_int(comm, MPI_INT, "int");
  reduce_unsigned(comm, MPI_UNSIGNED, "unsigned");
  reduce_long(comm, MPI_LONG, "long");
  reduce_ulong(comm, MPI_UNSIGNED_LONG, "unsigned long");
  reduce_llong(comm, MPI_LONG_LONG, "long long");
  reduce_ullong(comm, MPI_UNSIGNED_LONG_LONG, "unsigned long long");
  reduce_int8(comm, MPI_INT8_T, "int8_t");
  reduce_int16(comm, MPI_INT16_T, "int16_t");
  reduce_int32(comm, MPI_INT32_T, "int32_t");
  reduce_int64(comm, MPI_INT64_T, "int64_t");
  reduce_uint8(comm, MPI_UINT8_T, "uint8_t");
  reduce_uint16(comm, MPI_UINT16_T, "uint16_t");
  reduce_uint32(comm, MPI_UINT32_T, "uint32_t");
  reduce_uint64(comm, MPI_UINT64_T, "uint64_t");
  reduce_aint(comm, MPI_AINT, "MPI_Aint");
  reduce_offset(comm, MPI_OFFSET, "MPI_Offset");
  reduce_count(comm, MPI_COUNT, "MPI_Count");
  reduce_float(comm, MPI_FLOAT, "float");
  reduce_double(comm, MPI_DOUBLE, "double");
  reduce_long_double(comm, MPI_LONG_DOUBLE, "long double");
  for (int op = SUM; op <= PROD; ++op) {
    reduce_complex_float(comm, MPI_C_FLOAT_COMPLEX, op, "float complex");
    reduce_complex_double(comm, MPI_C_DOUBLE_COMPLEX, op, "double complex");
    reduce_complex_long_double(comm, MPI_C_LONG_DOUBLE_COMPLEX, op, "long double complex");
    reduce_complex_float(comm, MPI_CXX_FLOAT_COMPLEX, op, "C++ float complex");
    reduce_complex_double(comm, MPI_CXX_DOUBLE_COMPLEX, op, "C++ double complex");
    reduce_complex_long_double(comm, MPI_CXX_LONG_DOUBLE_COMPLEX, op, "C++ long double complex");
  }
  for (int op = LAND; op <= LXOR; ++op) {
    reduce_bool_logical(comm, MPI_C_BOOL, op, "bool");
    reduce_bool_logical(comm, MPI_CXX_BOOL, op, "C++ bool");
  }
  for (int op = BAND; op <= BXOR; ++op) reduce_byte_bits(comm, MPI_BYTE, op, "byte");
  reduce_float_int(comm, MPI_FLOAT_INT, "float_int");
  reduce_double_int(comm, MPI_DOUBLE_INT, "double_int");
  reduce_long_int(comm, MPI_LONG_INT, "long_int");
  reduce_2int(comm, MPI_2INT, "2int");
  reduce_short_int(comm, MPI_SHORT_INT, "short_int");
  reduce_long_double_int(comm, MPI_LONG_DOUBLE_INT, "long_double_int");
}

/* ---- data movement ------------------------------------------------------- */

/* The byte rank r sends as byte i of its block to rank `to` (an alltoall's
 * block for `to`; every other collective sends one block, to = 0). */
static unsigned char pattern(int r, int to, size_t i) { return (unsigned char)(r * 31 + to * 7 + i * 13 + 1); }

static void fill(unsigned char* block, size_t bytes, int r, int to) {
  for (size_t i = 0; i < bytes; ++i) block[i] = pattern(r, to, i);
}

/* Whether `bytes` bytes at `block` are rank r's block for `to`. */
static bool holds(const unsigned char* block, size_t bytes, int r, int to) {
  for (size_t i = 0; i < bytes; ++i)
    if (block[i] != pattern(r, to, i)) return false;
  return true;
}

/* Bcast, Allgather and Alltoall of `count` items of a predefined type, as
 * bytes: every root, and the in-place forms. */
static void move_predefined(MPI_Comm comm, MPI_Datatype type, int count, const char* type_name) {
  int rank, p, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  MPI_Type_size(type, &size);
  const size_t block = (size_t)count * (size_t)size;
  unsigned char* in = malloc(block * p + 1);
  unsigned char* out = malloc(block * p + 1);
  for (int root = 0; root < p; ++root) {
    if (rank == root) fill(out, block, root, 0);
    else memset(out, 0, block);
    MPI_Bcast(out, count, type, root, comm);
    CHECK(holds(out, block, root, 0), "bcast %s × %d root %d", type_name, count, root);
  }
  fill(in, block, rank, 0);
  memset(out, 0, block * p);
  MPI_Allgather(in, count, type, out, count, type, comm);
  for (int r = 0; r < p; ++r)
    CHECK(holds(out + r * block, block, r, 0), "allgather %s × %d block %d", type_name, count, r);
  memset(out, 0, block * p);
  fill(out + rank * block, block, rank, 0);
  MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, count, type, comm);
  for (int r = 0; r < p; ++r)
    CHECK(holds(out + r * block, block, r, 0), "allgather in place %s × %d block %d", type_name, count, r);
  for (int to = 0; to < p; ++to) fill(in + to * block, block, rank, to);
  memset(out, 0, block * p);
  MPI_Alltoall(in, count, type, out, count, type, comm);
  for (int r = 0; r < p; ++r)
    CHECK(holds(out + r * block, block, r, rank), "alltoall %s × %d from %d", type_name, count, r);
  memcpy(out, in, block * p);
  MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, count, type, comm);
  for (int r = 0; r < p; ++r)
    CHECK(holds(out + r * block, block, r, rank), "alltoall in place %s × %d from %d", type_name, count, r);
  free(in);
  free(out);
}

static void move_every_predefined_type(MPI_Comm comm) {
  const struct {
    MPI_Datatype type;
    const char* name;
  } types[] = {
      {MPI_CHAR, "char"}, {MPI_SIGNED_CHAR, "signed char"}, {MPI_UNSIGNED_CHAR, "unsigned char"},
      {MPI_BYTE, "byte"}, {MPI_WCHAR, "wchar"}, {MPI_SHORT, "short"}, {MPI_UNSIGNED_SHORT, "unsigned short"},
      {MPI_INT, "int"}, {MPI_UNSIGNED, "unsigned"}, {MPI_LONG, "long"}, {MPI_UNSIGNED_LONG, "unsigned long"},
      {MPI_LONG_LONG, "long long"}, {MPI_UNSIGNED_LONG_LONG, "unsigned long long"}, {MPI_FLOAT, "float"},
      {MPI_DOUBLE, "double"}, {MPI_LONG_DOUBLE, "long double"}, {MPI_INT8_T, "int8_t"}, {MPI_INT16_T, "int16_t"},
      {MPI_INT32_T, "int32_t"}, {MPI_INT64_T, "int64_t"}, {MPI_UINT8_T, "uint8_t"}, {MPI_UINT16_T, "uint16_t"},
      {MPI_UINT32_T, "uint32_t"}, {MPI_UINT64_T, "uint64_t"}, {MPI_C_BOOL, "bool"},
      {MPI_C_FLOAT_COMPLEX, "float complex"}, {MPI_C_DOUBLE_COMPLEX, "double complex"},
      {MPI_C_LONG_DOUBLE_COMPLEX, "long double complex"}, {MPI_AINT, "aint"}, {MPI_OFFSET, "offset"},
      {MPI_COUNT, "count"}, {MPI_FLOAT_INT, "float_int"}, {MPI_2INT, "2int"},
      /* The other pair types have padding, which the byte patterns would cover. */
  };
  for (size_t t = 0; t < sizeof types / sizeof types[0]; ++t) move_predefined(comm, types[t].type, 3, types[t].name);
}

/* Gather, Gatherv, Scatter, Allgatherv and Alltoallv of ints, to and from
 * every root, in place where MPI allows it; rank r's block has r % 3 + 1 ints
 * (v forms). */
static void move_ints(MPI_Comm comm) {
  int rank, p;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  int* in = malloc(sizeof(int) * N * p);
  int* out = malloc(sizeof(int) * (N + 1) * p * 2);
  int* counts = malloc(sizeof(int) * p);
  int* displs = malloc(sizeof(int) * p);
  int* send_counts = malloc(sizeof(int) * p);
  int* send_displs = malloc(sizeof(int) * p);
#define ITEM(r, to, i) ((r) * 1000 + (to) * 100 + (i))
  int gaps = 0; /* gatherv: block r at 2 × the previous blocks' sizes, leaving gaps */
  for (int r = 0; r < p; ++r) {
    counts[r] = r % 3 + 1;
    displs[r] = gaps;
    gaps += 2 * counts[r];
  }
  for (int root = 0; root < p; ++root) {
    for (int i = 0; i < N; ++i) in[i] = ITEM(rank, 0, i);
    for (int i = 0; i < N * p; ++i) out[i] = -1;
    if (rank == root && root % 2 == 1) {
      memcpy(out + root * N, in, sizeof(int) * N);
      MPI_Gather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, N, MPI_INT, root, comm);
    } else {
      MPI_Gather(in, N, MPI_INT, out, N, MPI_INT, root, comm);
    }
    if (rank == root)
      for (int r = 0; r < p; ++r)
        for (int i = 0; i < N; ++i) CHECK(out[r * N + i] == ITEM(r, 0, i), "gather root %d block %d [%d]", root, r, i);

    for (int i = 0; i < gaps; ++i) out[i] = -1;
    if (rank == root && root % 2 == 1) {
      memcpy(out + displs[root], in, sizeof(int) * counts[root]);
      MPI_Gatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, counts, displs, MPI_INT, root, comm);
    } else {
      MPI_Gatherv(in, counts[rank], MPI_INT, out, counts, displs, MPI_INT, root, comm);
    }
    if (rank == root)
      for (int r = 0; r < p; ++r)
        for (int i = 0; i < counts[r]; ++i)
          CHECK(out[displs[r] + i] == ITEM(r, 0, i), "gatherv root %d block %d [%d]", root, r, i);

    for (int to = 0; to < p; ++to)
      for (int i = 0; i < N; ++i) in[to * N + i] = ITEM(root, to, i);
    for (int i = 0; i < N; ++i) out[i] = -1;
    if (rank == root && root % 2 == 1) {
      memcpy(out, in, sizeof(int) * N * p);
      MPI_Scatter(out, N, MPI_INT, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, root, comm);
      for (int i = 0; i < N; ++i)
        CHECK(out[root * N + i] == ITEM(root, root, i), "scatter in place root %d [%d]", root, i);
    } else {
      MPI_Scatter(in, N, MPI_INT, out, N, MPI_INT, root, comm);
      for (int i = 0; i < N; ++i) CHECK(out[i] == ITEM(root, rank, i), "scatter root %d [%d]", root, i);
    }
  }
  /* Allgatherv: the blocks at the gatherv's displacements, the gaps left as they were; then in place. */
  for (int i = 0; i < gaps; ++i) out[i] = -1;
  for (int i = 0; i < N; ++i) in[i] = ITEM(rank, 0, i);
  MPI_Allgatherv(in, counts[rank], MPI_INT, out, counts, displs, MPI_INT, comm);
  int written = 0;
  for (int i = 0; i < gaps; ++i) written += out[i] != -1;
  CHECK(written == gaps / 2, "allgatherv wrote %d ints, not %d", written, gaps / 2);
  for (int r = 0; r < p; ++r)
    for (int i = 0; i < counts[r]; ++i) CHECK(out[displs[r] + i] == ITEM(r, 0, i), "allgatherv block %d [%d]", r, i);
  for (int i = 0; i < gaps; ++i) out[i] = -1;
  memcpy(out + displs[rank], in, sizeof(int) * counts[rank]);
  MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, counts, displs, MPI_INT, comm);
  for (int r = 0; r < p; ++r)
    for (int i = 0; i < counts[r]; ++i)
      CHECK(out[displs[r] + i] == ITEM(r, 0, i), "allgatherv in place block %d [%d]", r, i);
  /* Gatherv with negative displacements, counted back from the end of the buffer. */
  for (int r = 0; r < p; ++r) displs[r] -= gaps;
  for (int i = 0; i < gaps; ++i) out[i] = -1;
  for (int i = 0; i < N; ++i) in[i] = ITEM(rank, 0, i);
  MPI_Gatherv(in, counts[rank], MPI_INT, out + gaps, counts, displs, MPI_INT, 0, comm);
  if (rank == 0)
    for (int r = 0; r < p; ++r)
      for (int i = 0; i < counts[r]; ++i)
        CHECK(out[gaps + displs[r] + i] == ITEM(r, 0, i), "gatherv negative displacements block %d [%d]", r, i);
  /* Alltoallv: rank r sends (r + to) % 3 ints to rank `to`, blocks in reverse order, with gaps. */
  int sent = 0, received = 0;
  for (int to = p - 1; to >= 0; --to) {
    send_counts[to] = (rank + to) % 3;
    send_displs[to] = sent;
    sent += send_counts[to] + 1;
  }
  for (int from = 0; from < p; ++from) {
    counts[from] = (from + rank) % 3;
    displs[from] = received;
    received += counts[from] + 1;
  }
  for (int to = 0; to < p; ++to)
    for (int i = 0; i < send_counts[to]; ++i) in[send_displs[to] + i] = ITEM(rank, to, i);
  for (int i = 0; i < received; ++i) out[i] = -1;
  MPI_Alltoallv(in, send_counts, send_displs, MPI_INT, out, counts, displs, MPI_INT, comm);
  for (int from = 0; from < p; ++from)
    for (int i = 0; i < counts[from]; ++i)
      CHECK(out[displs[from] + i] == ITEM(from, rank, i), "alltoallv from %d [%d]", from, i);
  /* In place: the same counts both ways (symmetric), blocks at 2 × their offsets. */
  int offset = 0;
  for (int other = 0; other < p; ++other) {
    counts[other] = (other + rank) % 3;
    displs[other] = offset;
    offset += 2 * counts[other] + 1;
  }
  for (int to = 0; to < p; ++to)
    for (int i = 0; i < counts[to]; ++i) out[displs[to] + i] = ITEM(rank, to, i);
  MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, out, counts, displs, MPI_INT, comm);
  for (int from = 0; from < p; ++from)
    for (int i = 0; i < counts[from]; ++i)
      CHECK(out[displs[from] + i] == ITEM(from, rank, i), "alltoallv in place from %d [%d]", from, i);
#undef ITEM
  free(in);
  free(out);
  free(counts);
  free(displs);
  free(send_counts);
  free(send_displs);
}

/* Zero counts everywhere: nothing moves, nothing is written. */
static void zero_counts(MPI_Comm comm) {
  int rank, p;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  int* zeros = calloc((size_t)p, sizeof(int));
  int guard = 42, in = 7;
  MPI_Bcast(&guard, 0, MPI_INT, 0, comm);
  MPI_Allreduce(&in, &guard, 0, MPI_INT, MPI_SUM, comm);
  MPI_Reduce(&in, &guard, 0, MPI_DOUBLE, MPI_MAX, p - 1, comm);
  MPI_Reduce_scatter_block(&in, &guard, 0, MPI_INT, MPI_SUM, comm);
  MPI_Gather(&in, 0, MPI_INT, &guard, 0, MPI_INT, 0, comm);
  MPI_Gatherv(&in, 0, MPI_INT, &guard, zeros, zeros, MPI_INT, 0, comm);
  MPI_Scatter(&in, 0, MPI_INT, &guard, 0, MPI_INT, 0, comm);
  MPI_Allgather(&in, 0, MPI_INT, &guard, 0, MPI_INT, comm);
  MPI_Allgatherv(&in, 0, MPI_INT, &guard, zeros, zeros, MPI_INT, comm);
  MPI_Alltoall(&in, 0, MPI_INT, &guard, 0, MPI_INT, comm);
  MPI_Alltoallv(&in, zeros, zeros, MPI_INT, &guard, zeros, zeros, MPI_INT, comm);
  MPI_Allreduce(NULL, NULL, 0, MPI_INT, MPI_SUM, comm);
  CHECK(guard == 42, "a collective of zero items wrote %d", guard);
  free(zeros);
}

/* Four MPI_INTs against one item of a contiguous type of four ints: the
 * same type signature, from either side. */
static void mixed_signatures(MPI_Comm comm) {
  int rank, p;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  MPI_Datatype four;
  MPI_Type_contiguous(4, MPI_INT, &four);
  MPI_Type_commit(&four);
  int* in = malloc(sizeof(int) * 4 * p);
  int* out = malloc(sizeof(int) * 4 * p);
  for (int i = 0; i < 4; ++i) in[i] = rank * 10 + i;
  const bool odd = rank % 2;
  MPI_Allgather(in, odd ? 4 : 1, odd ? MPI_INT : four, out, odd ? 1 : 4, odd ? four : MPI_INT, comm);
  for (int i = 0; i < 4 * p; ++i)
    CHECK(out[i] == (i / 4) * 10 + i % 4, "allgather int × 4 against contiguous [%d]", i);
  for (int root = 0; root < p; ++root) {
    if (rank == root) for (int i = 0; i < 4; ++i) in[i] = root + i;
    MPI_Bcast(in, odd ? 4 : 1, odd ? MPI_INT : four, root, comm);
    for (int i = 0; i < 4; ++i) CHECK(in[i] == root + i, "bcast int × 4 against contiguous root %d [%d]", root, i);
  }
  MPI_Type_free(&four);
  free(in);
  free(out);
}

/* The nonblocking forms, all in flight at once, then completed together. */
static void nonblocking(MPI_Comm comm) {
  int rank, p;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  enum { KINDS = 11 };
  MPI_Request requests[KINDS];
  int* ones = malloc(sizeof(int) * p);
  int* ranks = malloc(sizeof(int) * p);
  int* displs = malloc(sizeof(int) * p);
  int* out[KINDS];
  for (int k = 0; k < KINDS; ++k) {
    out[k] = malloc(sizeof(int) * p);
    for (int r = 0; r < p; ++r) out[k][r] = -1;
  }
  for (int r = 0; r < p; ++r) {
    ones[r] = 1;
    ranks[r] = r;
    displs[r] = r;
  }
  const int root = p - 1;
  int bcast_value = rank == root ? 42 : 0;
  MPI_Ibcast(&bcast_value, 1, MPI_INT, root, comm, &requests[0]);
  MPI_Iallreduce(&rank, out[1], 1, MPI_INT, MPI_SUM, comm, &requests[1]);
  MPI_Ireduce(&rank, out[2], 1, MPI_INT, MPI_MAX, root, comm, &requests[2]);
  MPI_Ireduce_scatter_block(ones, out[3], 1, MPI_INT, MPI_SUM, comm, &requests[3]);
  MPI_Igather(&rank, 1, MPI_INT, out[4], 1, MPI_INT, root, comm, &requests[4]);
  MPI_Igatherv(&rank, 1, MPI_INT, out[5], ones, displs, MPI_INT, root, comm, &requests[5]);
  MPI_Iscatter(ranks, 1, MPI_INT, out[6], 1, MPI_INT, root, comm, &requests[6]);
  MPI_Iallgather(&rank, 1, MPI_INT, out[7], 1, MPI_INT, comm, &requests[7]);
  MPI_Ialltoall(ranks, 1, MPI_INT, out[8], 1, MPI_INT, comm, &requests[8]);
  MPI_Ialltoallv(ranks, ones, displs, MPI_INT, out[9], ones, displs, MPI_INT, comm, &requests[9]);
  MPI_Iallgatherv(&rank, 1, MPI_INT, out[10], ones, displs, MPI_INT, comm, &requests[10]);
  MPI_Waitall(KINDS, requests, MPI_STATUSES_IGNORE);
  CHECK(bcast_value == 42, "ibcast: %d", bcast_value);
  CHECK(out[1][0] == p * (p - 1) / 2, "iallreduce: %d", out[1][0]);
  if (rank == root) CHECK(out[2][0] == p - 1, "ireduce: %d", out[2][0]);
  CHECK(out[3][0] == p, "ireduce_scatter_block: %d", out[3][0]);
  CHECK(out[6][0] == rank, "iscatter: %d", out[6][0]);
  for (int r = 0; r < p; ++r) {
    if (rank == root) CHECK(out[4][r] == r && out[5][r] == r, "igather, igatherv [%d]", r);
    CHECK(out[7][r] == r && out[10][r] == r, "iallgather, iallgatherv [%d]", r);
    CHECK(out[8][r] == rank && out[9][r] == rank, "ialltoall, ialltoallv [%d]", r);
  }
  for (int k = 0; k < KINDS; ++k) free(out[k]);
  free(ones);
  free(ranks);
  free(displs);
}

/* ---- what must reach the native library ---------------------------------- */

/* x ↦ a·x + b as (a, b); the op composes maps, which does not commute. */
static void compose(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  const int* f = in;
  int* g = inout;
  for (int i = 0; i < *len; ++i) {
    const int a = f[2 * i] * g[2 * i], b = f[2 * i] * g[2 * i + 1] + f[2 * i + 1];
    g[2 * i] = a;
    g[2 * i + 1] = b;
  }
}

static void add_ints(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  for (int i = 0; i < *len; ++i) ((int*)inout)[i] += ((const int*)in)[i];
}

static void user_ops(MPI_Comm comm) {
  int rank, p;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  MPI_Op composition, addition;
  MPI_Op_create(compose, 0, &composition);
  MPI_Op_create(add_ints, 1, &addition);
  int map[2] = {rank % 2 + 1, rank}, result[2] = {0, 0}, expected[2] = {1, 0};
  /* In rank order: f_0 ∘ f_1 ∘ … ∘ f_{p-1}. */
  for (int r = p - 1; r >= 0; --r) {
    expected[1] = (r % 2 + 1) * expected[1] + r;
    expected[0] *= r % 2 + 1;
  }
  MPI_Allreduce(map, result, 1, MPI_2INT, composition, comm);
  CHECK(result[0] == expected[0] && result[1] == expected[1], "allreduce non-commutative user op: (%d, %d)", result[0],
        result[1]);
  for (int root = 0; root < p; ++root) {
    result[0] = result[1] = 0;
    MPI_Reduce(map, result, 1, MPI_2INT, composition, root, comm);
    if (rank == root)
      CHECK(result[0] == expected[0] && result[1] == expected[1], "reduce non-commutative user op root %d", root);
  }
  int one = rank + 1, sum = 0;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, addition, comm);
  CHECK(sum == p * (p + 1) / 2, "allreduce user op: %d", sum);
  MPI_Op_free(&composition);
  MPI_Op_free(&addition);
}

/* Every other int: a vector type with holes, against plain ints on other
 * ranks (the same type signature, another layout), in every collective that
 * moves data. A reduction on it is an error (MPI_ERR_OP) in Open MPI. */
static void non_contiguous(MPI_Comm comm) {
  int rank, p;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  MPI_Datatype strided;
  MPI_Type_vector(3, 1, 2, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  MPI_Datatype item; /* one strided item every 6 ints */
  MPI_Type_create_resized(strided, 0, 6 * sizeof(int), &item);
  MPI_Type_commit(&item);
  const bool odd = rank % 2;
  int buffer[6];
  int* all = malloc(sizeof(int) * 6 * p);
  int* counts = malloc(sizeof(int) * p);
  int* displs = malloc(sizeof(int) * p);
  for (int root = 0; root < p; ++root) {
    for (int i = 0; i < 6; ++i) buffer[i] = rank == root ? root * 10 + i : -1;
    MPI_Bcast(buffer, 1, strided, root, comm);
    for (int i = 0; i < 6; ++i)
      CHECK(buffer[i] == (i % 2 == 0 || rank == root ? root * 10 + i : -1), "bcast strided root %d [%d]", root, i);
    /* The root receives strided blocks, the others send 3 ints. */
    for (int i = 0; i < 6; ++i) buffer[i] = rank * 10 + i;
    for (int i = 0; i < 6 * p; ++i) all[i] = -1;
    if (rank == root) MPI_Gather(buffer, 1, strided, all, 1, item, root, comm);
    else MPI_Gather(buffer, 3, MPI_INT, all, 3, MPI_INT, root, comm);
    if (rank == root)
      for (int r = 0; r < p; ++r)
        for (int i = 0; i < 6; ++i)
          CHECK(all[6 * r + i] == (i % 2 ? -1 : r * 10 + (r == root ? i : i / 2)), "gather strided root %d [%d][%d]",
                root, r, i);
  }
  /* Sent strided by odd ranks, plain by even ones; received plain by odd ranks, strided by even ones. */
  for (int i = 0; i < 6; ++i) buffer[i] = rank * 10 + (odd ? i : 2 * i);
  for (int i = 0; i < 6 * p; ++i) all[i] = -1;
  MPI_Allgather(buffer, odd ? 1 : 3, odd ? strided : MPI_INT, all, odd ? 3 : 1, odd ? MPI_INT : item, comm);
  for (int r = 0; r < p; ++r)
    for (int i = 0; i < (odd ? 3 : 6); ++i) {
      const int expected = odd ? r * 10 + 2 * i : i % 2 ? -1 : r * 10 + i;
      CHECK(all[(odd ? 3 : 6) * r + i] == expected, "allgather strided against plain [%d][%d]", r, i);
    }
  /* Alltoallv of one strided item (3 ints) to every rank, received as 3 plain ints. */
  int* sent = malloc(sizeof(int) * 6 * p);
  for (int r = 0; r < p; ++r) {
    counts[r] = 1;
    displs[r] = r;
    for (int i = 0; i < 6; ++i) sent[6 * r + i] = rank * 100 + r * 10 + i;
  }
  int* received_counts = malloc(sizeof(int) * p);
  int* received_displs = malloc(sizeof(int) * p);
  for (int r = 0; r < p; ++r) {
    received_counts[r] = 3;
    received_displs[r] = 3 * (p - 1 - r);
  }
  for (int i = 0; i < 3 * p; ++i) all[i] = -1;
  MPI_Alltoallv(sent, counts, displs, item, all, received_counts, received_displs, MPI_INT, comm);
  for (int r = 0; r < p; ++r)
    for (int i = 0; i < 3; ++i)
      CHECK(all[3 * (p - 1 - r) + i] == r * 100 + rank * 10 + 2 * i, "alltoallv strided from %d [%d]", r, i);
  free(sent);
  free(received_counts);
  free(received_displs);

  /* A predefined op on a derived type: Open MPI's error, returned. */
  MPI_Comm returning;
  MPI_Comm_dup(comm, &returning);
  MPI_Comm_set_errhandler(returning, MPI_ERRORS_RETURN);
  int sums[6], error_class = MPI_SUCCESS;
  MPI_Error_class(MPI_Allreduce(buffer, sums, 1, strided, MPI_SUM, returning), &error_class);
  CHECK(error_class == MPI_ERR_OP, "allreduce of a vector type returned error class %d, not MPI_ERR_OP", error_class);
  MPI_Comm_free(&returning);
  MPI_Type_free(&item);
  MPI_Type_free(&strided);
  free(all);
  free(counts);
  free(displs);
}

/* The two halves of the communicator (even and odd ranks) joined by an intercommunicator. */
static void intercommunicator(MPI_Comm comm) {
  int rank, p;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  if (p < 2) return;
  MPI_Comm half, inter;
  MPI_Comm_split(comm, rank % 2, rank, &half);
  MPI_Intercomm_create(half, 0, comm, rank % 2 ? 0 : 1, 99, &inter);
  int remote;
  MPI_Comm_remote_size(inter, &remote);
  /* Each group receives the sum of the other group's ranks. */
  int mine = rank, other = -1, expected = 0;
  for (int r = rank % 2 ? 0 : 1; r < p; r += 2) expected += r;
  MPI_Allreduce(&mine, &other, 1, MPI_INT, MPI_SUM, inter);
  CHECK(other == expected, "allreduce on an intercommunicator: %d, not %d", other, expected);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
}

/* A root outside the communicator, with MPI_ERRORS_RETURN: an error of class MPI_ERR_ROOT, returned. */
static void bad_root(MPI_Comm comm) {
  int p;
  MPI_Comm_size(comm, &p);
  MPI_Comm returning;
  MPI_Comm_dup(comm, &returning);
  MPI_Comm_set_errhandler(returning, MPI_ERRORS_RETURN);
  int value = 0, error_class = MPI_SUCCESS;
  const int code = MPI_Bcast(&value, 1, MPI_INT, p, returning);
  MPI_Error_class(code, &error_class);
  CHECK(error_class == MPI_ERR_ROOT, "bcast to root %d returned error class %d, not MPI_ERR_ROOT", p, error_class);
  int sum = 0;
  const int reduce_code = MPI_Reduce(&value, &sum, 1, MPI_INT, MPI_SUM, -1, returning);
  MPI_Error_class(reduce_code, &error_class);
  CHECK(error_class == MPI_ERR_ROOT, "reduce to root -1 returned error class %d, not MPI_ERR_ROOT", error_class);
  MPI_Comm_free(&returning);
}

/* ---- the communicators --------------------------------------------------- */

static void everything(MPI_Comm comm) {
  reductions(comm);
  move_every_predefined_type(comm);
  move_ints(comm);
  zero_counts(comm);
  mixed_signatures(comm);
  nonblocking(comm);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  everything(MPI_COMM_WORLD);
  user_ops(MPI_COMM_WORLD);
  non_contiguous(MPI_COMM_WORLD);
  intercommunicator(MPI_COMM_WORLD);
  bad_root(MPI_COMM_WORLD);
  everything(MPI_COMM_SELF);

  /* A duplicate, freed and made again (its hpcoll communicator with it), and
   * the two halves of a split in reverse rank order. */
  for (int round = 0; round < 2; ++round) {
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    move_ints(dup);
    reduce_int(dup, MPI_INT, "int (dup)");
    MPI_Comm_free(&dup);
  }
  int p;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, p - world_rank, &half);
  everything(half);
  user_ops(half);
  MPI_Comm_free(&half);

  int all_failures = 0;
  MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (world_rank == 0) printf("conformance: %d ranks, %d failed checks\n", p, all_failures);
  MPI_Finalize();
  return all_failures == 0 ? 0 : 1;
}
