// SPDX-License-Identifier: BSD-3-Clause
// How the interposition library sees an MPI datatype and an MPI op: as the
// element type and the op of one of hpcoll's typed reductions, and as bytes
// that the data-moving collectives may carry.
#pragma once

#include <mpi.h>

#include <cstddef>

namespace hpcoll::pmpi {

/// The element types the reductions run with, by representation (MPI_INT
/// and MPI_INT32_T are both int32).
enum class element : unsigned char {
  none,  ///< no reduction is defined on it (MPI_CHAR, MPI_WCHAR) or it is not served
  int8, int16, int32, int64, uint8, uint16, uint32, uint64,
  float32, float64, long_double,
  complex_float, complex_double, complex_long_double,
  boolean,  ///< MPI_C_BOOL, MPI_CXX_BOOL
  byte,     ///< MPI_BYTE: bitwise ops only
  float_int, double_int, long_int, int_int, short_int, long_double_int,  ///< MPI_MINLOC / MPI_MAXLOC pairs
};

/// MPI's predefined reduction ops; `other` is anything else (user ops, MPI_REPLACE, MPI_OP_NULL).
enum class reduction_op : unsigned char {
  sum, prod, min, max, land, lor, lxor, band, bor, bxor, minloc, maxloc, other
};

reduction_op op_of(MPI_Op op);

/// A datatype as the library sees it. An item of it is `elements` elements
/// of `kind` (several for a contiguous derived type), `bytes` bytes of data
/// and `extent` bytes apart from the next; it is `dense` when its bytes are
/// the whole of its extent, from a lower bound of 0, so that n items are
/// n × bytes contiguous bytes.
struct datatype_view {
  element kind = element::none;
  std::size_t elements = 0;
  std::size_t bytes = 0;
  std::ptrdiff_t extent = 0;
  bool dense = false;
  bool valid = false;  ///< false for MPI_DATATYPE_NULL and handles MPI does not know
};

/// Predefined types from a table made once; derived ones from their envelope.
/// MPI_DATATYPE_NULL and invalid handles: not valid; types the library cannot reduce: kind none.
datatype_view view_of(MPI_Datatype type);

}  // namespace hpcoll::pmpi
