// SPDX-License-Identifier: BSD-3-Clause
// MPI datatypes for element types: built-in, std::complex, std::pair,
// std::array, structs reflected with Boost.Hana, any trivially copyable type.
#pragma once

#include <mpi.h>

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include <boost/hana/accessors.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/length.hpp>
#include <boost/hana/second.hpp>
#include <boost/hana/concept/struct.hpp>

#include "mpi_call.hpp"

namespace hpcoll {

/// True when the library may move T with memcpy (and MPI with its datatype).
/// Trivially copyable types qualify, and so do std::pair of such types (whose
/// copy assignment is not trivial in the standard library, only in effect).
/// Specialise for other types whose bytes are the whole value.
template <class T>
struct is_bitwise_transmittable : std::is_trivially_copyable<T> {};
template <class A, class B>
struct is_bitwise_transmittable<std::pair<A, B>>
    : std::bool_constant<is_bitwise_transmittable<A>::value && is_bitwise_transmittable<B>::value> {};

template <class T>
concept transmittable = is_bitwise_transmittable<std::remove_cv_t<T>>::value;

namespace detail {

template <class T>
concept hana_struct = boost::hana::Struct<T>::value;

/// A complex number type as std::complex<float | double | long double> is
/// one: real() and imag() of its value_type, the two of them and nothing
/// else. (Recognised by its shape, so that this header need not include
/// <complex>, which brings the iostreams.)
template <class T>
concept complex_number = requires(const T& z) {
  typename T::value_type;
  requires std::same_as<typename T::value_type, float> || std::same_as<typename T::value_type, double> ||
               std::same_as<typename T::value_type, long double>;
  requires sizeof(T) == 2 * sizeof(typename T::value_type);
  { z.real() } -> std::same_as<typename T::value_type>;
  { z.imag() } -> std::same_as<typename T::value_type>;
};

/// MPI's complex type of a complex number type.
template <complex_number T>
MPI_Datatype complex_datatype() {
  using V = typename T::value_type;
  if constexpr (std::same_as<V, float>) return MPI_CXX_FLOAT_COMPLEX;
  else if constexpr (std::same_as<V, double>) return MPI_CXX_DOUBLE_COMPLEX;
  else return MPI_CXX_LONG_DOUBLE_COMPLEX;
}

/// Frees a cached datatype when MPI_Finalize begins: MPI deletes the
/// attributes of MPI_COMM_SELF first in MPI_Finalize (the standard's "Allowing
/// User Functions at Process Termination"), so an attribute that holds the type
/// frees it while MPI still works, and an MPI that reports handles leaked at
/// exit (MPICH) has none to report.
inline void free_at_finalize(MPI_Datatype type) {
  const auto free_type = [](MPI_Comm, int keyval, void* value, void*) -> int {
    auto* held = static_cast<MPI_Datatype*>(value);
    int code = MPI_Type_free(held);
    delete held;
    if (const int freed = MPI_Comm_free_keyval(&keyval); code == MPI_SUCCESS) code = freed;
    return code;
  };
  int keyval = MPI_KEYVAL_INVALID;
  HPCOLL_MPI(MPI_Comm_create_keyval, MPI_COMM_NULL_COPY_FN, free_type, &keyval, nullptr);
  HPCOLL_MPI(MPI_Comm_set_attr, MPI_COMM_SELF, keyval, new MPI_Datatype(type));
}

/// Commits a datatype that stays cached for the rest of the run.
inline MPI_Datatype commit_cached(MPI_Datatype type) {
  HPCOLL_MPI(MPI_Type_commit, &type);
  free_at_finalize(type);
  return type;
}

/// A datatype made of the given members, resized to sizeof(T) so arrays of T
/// have the right extent.
template <class T>
MPI_Datatype struct_type(int members, const int* lengths, const MPI_Aint* offsets,
                         const MPI_Datatype* types) {
  MPI_Datatype packed = MPI_DATATYPE_NULL;
  MPI_Datatype resized = MPI_DATATYPE_NULL;
  HPCOLL_MPI(MPI_Type_create_struct, members, lengths, offsets, types, &packed);
  HPCOLL_MPI(MPI_Type_create_resized, packed, 0, static_cast<MPI_Aint>(sizeof(T)), &resized);
  HPCOLL_MPI(MPI_Type_free, &packed);
  return commit_cached(resized);
}

inline MPI_Aint byte_offset(const void* base, const void* member) {
  return static_cast<MPI_Aint>(static_cast<const char*>(member) - static_cast<const char*>(base));
}

}  // namespace detail

/// Customisation point: `static MPI_Datatype get()` returns a committed
/// datatype for T. The primary template covers std::complex (MPI's complex
/// types), structs reflected with BOOST_HANA_DEFINE_STRUCT (member by
/// member) and any other trivially copyable type (as sizeof(T) bytes).
template <class T, class = void>
struct mpi_datatype {
  static MPI_Datatype get() {
    static_assert(transmittable<T>,
                  "hpcoll: element type must be trivially copyable (or specialise "
                  "hpcoll::is_bitwise_transmittable and hpcoll::mpi_datatype)");
    if constexpr (detail::complex_number<T>) {
      return detail::complex_datatype<T>();
    } else {
      static const MPI_Datatype type = make();
      return type;
    }
  }

private:
  static MPI_Datatype make() {
    if constexpr (detail::hana_struct<T>) {
      namespace hana = boost::hana;
      constexpr std::size_t n = decltype(hana::length(hana::accessors<T>()))::value;
      static_assert(std::is_default_constructible_v<T>,
                    "hpcoll: a Hana-reflected struct needs a default constructor to derive its datatype");
      const T probe{};
      std::array<int, n> lengths{};
      std::array<MPI_Aint, n> offsets{};
      std::array<MPI_Datatype, n> types{};
      std::size_t i = 0;
      hana::for_each(hana::accessors<T>(), [&](auto accessor) {
        const auto& member = hana::second(accessor)(probe);
        lengths[i] = 1;
        offsets[i] = detail::byte_offset(&probe, &member);
        types[i] = mpi_datatype<std::remove_cvref_t<decltype(member)>>::get();
        ++i;
      });
      return detail::struct_type<T>(static_cast<int>(n), lengths.data(), offsets.data(), types.data());
    } else {
      MPI_Datatype bytes = MPI_DATATYPE_NULL;
      HPCOLL_MPI(MPI_Type_contiguous, static_cast<int>(sizeof(T)), MPI_BYTE, &bytes);
      return detail::commit_cached(bytes);
    }
  }
};

// Predefined types: Open MPI's handles are addresses of globals and MPICH's are
// integer constants; a function returning the macro works for both.
#define HPCOLL_PREDEFINED_DATATYPE(T, MPI_TYPE)                \
  template <>                                                  \
  struct mpi_datatype<T> {                                     \
    static MPI_Datatype get() { return MPI_TYPE; }             \
  };

HPCOLL_PREDEFINED_DATATYPE(char, MPI_CHAR)
HPCOLL_PREDEFINED_DATATYPE(std::byte, MPI_BYTE)
HPCOLL_PREDEFINED_DATATYPE(signed char, MPI_SIGNED_CHAR)
HPCOLL_PREDEFINED_DATATYPE(unsigned char, MPI_UNSIGNED_CHAR)
HPCOLL_PREDEFINED_DATATYPE(wchar_t, MPI_WCHAR)
HPCOLL_PREDEFINED_DATATYPE(short, MPI_SHORT)
HPCOLL_PREDEFINED_DATATYPE(unsigned short, MPI_UNSIGNED_SHORT)
HPCOLL_PREDEFINED_DATATYPE(int, MPI_INT)
HPCOLL_PREDEFINED_DATATYPE(unsigned, MPI_UNSIGNED)
HPCOLL_PREDEFINED_DATATYPE(long, MPI_LONG)
HPCOLL_PREDEFINED_DATATYPE(unsigned long, MPI_UNSIGNED_LONG)
HPCOLL_PREDEFINED_DATATYPE(long long, MPI_LONG_LONG)
HPCOLL_PREDEFINED_DATATYPE(unsigned long long, MPI_UNSIGNED_LONG_LONG)
HPCOLL_PREDEFINED_DATATYPE(float, MPI_FLOAT)
HPCOLL_PREDEFINED_DATATYPE(double, MPI_DOUBLE)
HPCOLL_PREDEFINED_DATATYPE(long double, MPI_LONG_DOUBLE)
HPCOLL_PREDEFINED_DATATYPE(bool, MPI_CXX_BOOL)
#undef HPCOLL_PREDEFINED_DATATYPE

/// std::pair of any transmittable members, as a two-member struct type.
template <class A, class B>
struct mpi_datatype<std::pair<A, B>> {
  static MPI_Datatype get() {
    static const MPI_Datatype type = [] {
      const std::pair<A, B> probe{};
      const int lengths[2] = {1, 1};
      const MPI_Aint offsets[2] = {detail::byte_offset(&probe, &probe.first),
                                   detail::byte_offset(&probe, &probe.second)};
      const MPI_Datatype types[2] = {mpi_datatype<A>::get(), mpi_datatype<B>::get()};
      return detail::struct_type<std::pair<A, B>>(2, lengths, offsets, types);
    }();
    return type;
  }
};

/// std::array<T, N>: N contiguous elements of T's datatype.
template <class T, std::size_t N>
struct mpi_datatype<std::array<T, N>> {
  static MPI_Datatype get() {
    static const MPI_Datatype type = [] {
      MPI_Datatype contiguous = MPI_DATATYPE_NULL;
      HPCOLL_MPI(MPI_Type_contiguous, static_cast<int>(N), mpi_datatype<T>::get(), &contiguous);
      return detail::commit_cached(contiguous);
    }();
    return type;
  }
};

/// The committed MPI datatype of T.
template <class T>
MPI_Datatype datatype_of() {
  return mpi_datatype<std::remove_cv_t<T>>::get();
}

}  // namespace hpcoll
