// SPDX-License-Identifier: BSD-3-Clause
#include "datatypes.hpp"

#include <array>
#include <complex>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace hpcoll::pmpi {

namespace {

/// The element of a C integer type, by its size and signedness.
template <class I>
constexpr element integer_element() {
  constexpr bool s = std::is_signed_v<I>;
  if constexpr (sizeof(I) == 1) return s ? element::int8 : element::uint8;
  else if constexpr (sizeof(I) == 2) return s ? element::int16 : element::uint16;
  else if constexpr (sizeof(I) == 4) return s ? element::int32 : element::uint32;
  else if constexpr (sizeof(I) == 8) return s ? element::int64 : element::uint64;
  else return element::none;
}

struct predefined {
  MPI_Datatype type;
  element kind;
  std::size_t cxx_bytes;  ///< sizeof the C++ type reductions of `kind` run with
  datatype_view view{};
};

template <class T>
predefined entry(MPI_Datatype type, element kind) {
  return {type, kind, sizeof(T)};
}
template <class I>
predefined integer(MPI_Datatype type) {
  return entry<I>(type, integer_element<I>());
}

/// The predefined types, the most used first (the table is searched in order).
auto make_table() {
  std::array table{
      entry<double>(MPI_DOUBLE, element::float64),
      integer<int>(MPI_INT),
      entry<float>(MPI_FLOAT, element::float32),
      integer<long>(MPI_LONG),
      entry<unsigned char>(MPI_BYTE, element::byte),
      entry<char>(MPI_CHAR, element::none),
      integer<long long>(MPI_LONG_LONG),
      integer<long long>(MPI_LONG_LONG_INT),
      integer<unsigned>(MPI_UNSIGNED),
      integer<unsigned long>(MPI_UNSIGNED_LONG),
      integer<unsigned long long>(MPI_UNSIGNED_LONG_LONG),
      integer<short>(MPI_SHORT),
      integer<unsigned short>(MPI_UNSIGNED_SHORT),
      integer<signed char>(MPI_SIGNED_CHAR),
      integer<unsigned char>(MPI_UNSIGNED_CHAR),
      integer<std::int8_t>(MPI_INT8_T),
      integer<std::int16_t>(MPI_INT16_T),
      integer<std::int32_t>(MPI_INT32_T),
      integer<std::int64_t>(MPI_INT64_T),
      integer<std::uint8_t>(MPI_UINT8_T),
      integer<std::uint16_t>(MPI_UINT16_T),
      integer<std::uint32_t>(MPI_UINT32_T),
      integer<std::uint64_t>(MPI_UINT64_T),
      integer<MPI_Aint>(MPI_AINT),
      integer<MPI_Offset>(MPI_OFFSET),
      integer<MPI_Count>(MPI_COUNT),
      entry<wchar_t>(MPI_WCHAR, element::none),
      entry<bool>(MPI_C_BOOL, element::boolean),
      entry<bool>(MPI_CXX_BOOL, element::boolean),
      entry<long double>(MPI_LONG_DOUBLE, element::long_double),
      entry<std::complex<float>>(MPI_C_FLOAT_COMPLEX, element::complex_float),
      entry<std::complex<float>>(MPI_C_COMPLEX, element::complex_float),
      entry<std::complex<double>>(MPI_C_DOUBLE_COMPLEX, element::complex_double),
      entry<std::complex<long double>>(MPI_C_LONG_DOUBLE_COMPLEX, element::complex_long_double),
      entry<std::complex<float>>(MPI_CXX_FLOAT_COMPLEX, element::complex_float),
      entry<std::complex<double>>(MPI_CXX_DOUBLE_COMPLEX, element::complex_double),
      entry<std::complex<long double>>(MPI_CXX_LONG_DOUBLE_COMPLEX, element::complex_long_double),
      entry<std::pair<float, int>>(MPI_FLOAT_INT, element::float_int),
      entry<std::pair<double, int>>(MPI_DOUBLE_INT, element::double_int),
      entry<std::pair<long, int>>(MPI_LONG_INT, element::long_int),
      entry<std::pair<int, int>>(MPI_2INT, element::int_int),
      entry<std::pair<short, int>>(MPI_SHORT_INT, element::short_int),
      entry<std::pair<long double, int>>(MPI_LONG_DOUBLE_INT, element::long_double_int),
      // Fortran's, as the Fortran bindings pass them (fortran.cpp). Where the
      // compiler's kinds differ (-fdefault-integer-8), the size check below
      // leaves them unreduced.
      integer<std::int32_t>(MPI_INTEGER),
      entry<float>(MPI_REAL, element::float32),
      entry<double>(MPI_DOUBLE_PRECISION, element::float64),
      integer<std::int8_t>(MPI_INTEGER1),
      integer<std::int16_t>(MPI_INTEGER2),
      integer<std::int32_t>(MPI_INTEGER4),
      integer<std::int64_t>(MPI_INTEGER8),
      entry<float>(MPI_REAL4, element::float32),
      entry<double>(MPI_REAL8, element::float64),
      entry<std::complex<float>>(MPI_COMPLEX, element::complex_float),
      entry<std::complex<double>>(MPI_DOUBLE_COMPLEX, element::complex_double),
      entry<std::pair<int, int>>(MPI_2INTEGER, element::int_int),
  };
  for (predefined& p : table) {
    // An MPI without Fortran may name its Fortran types MPI_DATATYPE_NULL.
    if (p.type == MPI_DATATYPE_NULL) continue;
    int size = 0;
    MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
    PMPI_Type_size(p.type, &size);
    PMPI_Type_get_extent(p.type, &lb, &extent);
    PMPI_Type_get_true_extent(p.type, &true_lb, &true_extent);
    const auto bytes = static_cast<std::size_t>(size);
    // A reduction reads the items as the C++ type: their sizes must agree
    // (the pair types' padding belongs to the extent, not to the size).
    const bool same_layout = static_cast<std::size_t>(extent) == p.cxx_bytes;
    p.view = {same_layout ? p.kind : element::none, 1, bytes, extent,
              lb == 0 && true_lb == 0 && extent == size && true_extent == size, true};
  }
  return table;
}

/// n items of `inner` as one item.
datatype_view repeated(const datatype_view& inner, std::size_t n, std::ptrdiff_t extent, bool dense) {
  return {inner.kind, inner.elements * n, inner.bytes * n, extent, dense, true};
}

datatype_view derived_view(MPI_Datatype type) {
  int integers = 0, addresses = 0, types = 0, combiner = 0;
  if (PMPI_Type_get_envelope(type, &integers, &addresses, &types, &combiner) != MPI_SUCCESS) return {};
  int size = 0;
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  PMPI_Type_size(type, &size);
  PMPI_Type_get_extent(type, &lb, &extent);
  PMPI_Type_get_true_extent(type, &true_lb, &true_extent);
  const bool dense = lb == 0 && true_lb == 0 && extent == size && true_extent == size;
  datatype_view view{element::none, 0, static_cast<std::size_t>(size), extent, dense, true};
  if ((combiner != MPI_COMBINER_CONTIGUOUS && combiner != MPI_COMBINER_DUP) || types != 1 || integers > 1 ||
      addresses != 0)
    return view;
  int count = 1;
  MPI_Datatype inner = MPI_DATATYPE_NULL;
  PMPI_Type_get_contents(type, integers, 0, 1, &count, nullptr, &inner);
  const datatype_view of_inner = view_of(inner);
  int inner_integers = 0, inner_addresses = 0, inner_types = 0, inner_combiner = 0;
  PMPI_Type_get_envelope(inner, &inner_integers, &inner_addresses, &inner_types, &inner_combiner);
  if (inner_combiner != MPI_COMBINER_NAMED) PMPI_Type_free(&inner);  // get_contents made a new handle
  if (of_inner.kind == element::none || count < 0) return view;
  return repeated(of_inner, static_cast<std::size_t>(count), extent, dense);
}

int delete_view(MPI_Datatype, int, void* view, void*) {
  delete static_cast<datatype_view*>(view);
  return MPI_SUCCESS;
}

/// Frees the views' keyval when MPI_Finalize begins (MPI deletes the
/// attributes of MPI_COMM_SELF first), so that nothing of the library's is
/// left at exit.
void free_keyval_at_finalize(int views_keyval) {
  const auto free_keyval = [](MPI_Comm, int self_keyval, void* value, void*) -> int {
    auto* held = static_cast<int*>(value);
    int code = PMPI_Type_free_keyval(held);
    delete held;
    if (const int freed = PMPI_Comm_free_keyval(&self_keyval); code == MPI_SUCCESS) code = freed;
    return code;
  };
  int self_keyval = MPI_KEYVAL_INVALID;
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_keyval, &self_keyval, nullptr);
  PMPI_Comm_set_attr(MPI_COMM_SELF, self_keyval, new int(views_keyval));
}

/// A derived type's view, read from its envelope once and kept as its
/// attribute (freed with it; MPI_Type_dup does not copy it).
datatype_view kept_view(MPI_Datatype type) {
  static const int keyval = [] {
    int made = MPI_KEYVAL_INVALID;
    PMPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, delete_view, &made, nullptr);
    free_keyval_at_finalize(made);
    return made;
  }();
  void* kept = nullptr;
  int found = 0;
  if (PMPI_Type_get_attr(type, keyval, &kept, &found) != MPI_SUCCESS) return {};
  if (found) return *static_cast<const datatype_view*>(kept);
  const datatype_view view = derived_view(type);
  if (view.valid) PMPI_Type_set_attr(type, keyval, new datatype_view(view));
  return view;
}

}  // namespace

reduction_op op_of(MPI_Op op) {
  static const std::pair<MPI_Op, reduction_op> ops[] = {
      {MPI_SUM, reduction_op::sum},   {MPI_MAX, reduction_op::max},       {MPI_MIN, reduction_op::min},
      {MPI_PROD, reduction_op::prod}, {MPI_LAND, reduction_op::land},     {MPI_LOR, reduction_op::lor},
      {MPI_LXOR, reduction_op::lxor}, {MPI_BAND, reduction_op::band},     {MPI_BOR, reduction_op::bor},
      {MPI_BXOR, reduction_op::bxor}, {MPI_MINLOC, reduction_op::minloc}, {MPI_MAXLOC, reduction_op::maxloc},
  };
  for (const auto& [handle, kind] : ops)
    if (handle == op) return kind;
  return reduction_op::other;
}

datatype_view view_of(MPI_Datatype type) {
  if (type == MPI_DATATYPE_NULL) return {};
  static const auto table = make_table();
  for (const predefined& p : table)
    if (p.type == type) return p.view;
  return kept_view(type);
}

}  // namespace hpcoll::pmpi
