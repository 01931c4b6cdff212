// SPDX-License-Identifier: BSD-3-Clause
// Contiguous bytes standing in for buffers whose datatype is not dense: the
// items packed before a collective reads them and unpacked after it has
// written them, and the per-rank blocks of a v-collective laid out in bytes.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <span>
#include <vector>

#include <hpcoll/error.hpp>

#include "datatypes.hpp"

namespace hpcoll::pmpi {

inline void check_mpi(int code, const char* what) {
  if (code != MPI_SUCCESS) throw hpcoll::error("", "", what, code);
}

/// How many items one MPI_Pack or MPI_Unpack call may take: it counts bytes in an int.
inline std::size_t items_per_call(const datatype_view& item) {
  return std::max<std::size_t>(1, std::numeric_limits<int>::max() / std::max<std::size_t>(item.bytes, 1));
}

/// `count` items of a datatype that is not dense, packed to contiguous bytes.
inline void pack(const void* buffer, std::size_t count, MPI_Datatype type, const datatype_view& item, std::byte* out,
                 MPI_Comm comm) {
  const std::size_t per_call = items_per_call(item);
  const auto* from = static_cast<const char*>(buffer);
  for (std::size_t done = 0; done < count;) {
    const std::size_t n = std::min(per_call, count - done);
    int position = 0;
    check_mpi(PMPI_Pack(from + static_cast<std::ptrdiff_t>(done) * item.extent, static_cast<int>(n), type,
                        out + done * item.bytes, static_cast<int>(n * item.bytes), &position, comm),
              "packing items of a non-contiguous datatype failed");
    done += n;
  }
}

/// The reverse of pack().
inline void unpack(const std::byte* in, void* buffer, std::size_t count, MPI_Datatype type, const datatype_view& item,
                   MPI_Comm comm) {
  const std::size_t per_call = items_per_call(item);
  auto* to = static_cast<char*>(buffer);
  for (std::size_t done = 0; done < count;) {
    const std::size_t n = std::min(per_call, count - done);
    int position = 0;
    check_mpi(PMPI_Unpack(in + done * item.bytes, static_cast<int>(n * item.bytes), &position,
                          to + static_cast<std::ptrdiff_t>(done) * item.extent, static_cast<int>(n), type, comm),
              "unpacking items of a non-contiguous datatype failed");
    done += n;
  }
}

/// The per-rank blocks of a v-collective's buffer, in bytes of the span
/// hpcoll reads or writes: the buffer itself, or, for a datatype that is not
/// dense or a negative displacement, `bytes` of a stage, where the blocks lie
/// packed one after the other.
struct block_layout {
  std::vector<std::size_t> counts, displs;
  std::size_t bytes = 0;  ///< the span's size: up to the end of the last block
  bool staged = false;
  const int* item_counts = nullptr;
  const int* item_displs = nullptr;

  /// False where a count is negative (MPI reports it).
  bool set(const int* counts_in_items, const int* displs_in_items, const datatype_view& item, int ranks) {
    const auto p = static_cast<std::size_t>(ranks);
    item_counts = counts_in_items;
    item_displs = displs_in_items;
    counts.resize(p);
    displs.resize(p);
    staged = !item.dense || std::any_of(item_displs, item_displs + p, [](int d) { return d < 0; });
    bytes = 0;
    for (std::size_t i = 0; i < p; ++i) {
      if (item_counts[i] < 0) return false;
      counts[i] = static_cast<std::size_t>(item_counts[i]) * item.bytes;
      // An empty block's displacement means nothing to MPI: hpcoll must not check it.
      displs[i] = staged ? bytes : counts[i] == 0 ? 0 : static_cast<std::size_t>(item_displs[i]) * item.bytes;
      bytes = std::max(bytes, displs[i] + counts[i]);
    }
    return true;
  }

  const void* block(const void* buffer, std::size_t i, const datatype_view& item) const {
    return static_cast<const char*>(buffer) + static_cast<std::ptrdiff_t>(item_displs[i]) * item.extent;
  }

  std::span<const std::byte> readable(const void* buffer, MPI_Datatype type, const datatype_view& item, MPI_Comm comm,
                                      std::vector<std::byte>& stage) const {
    if (!staged) return {static_cast<const std::byte*>(buffer), bytes};
    stage.resize(bytes);
    for (std::size_t i = 0; i < counts.size(); ++i)
      pack(block(buffer, i, item), static_cast<std::size_t>(item_counts[i]), type, item, stage.data() + displs[i],
           comm);
    return stage;
  }

  /// Packs the blocks into the stage first when `updated` (in place: the
  /// collective reads them too).
  std::span<std::byte> writable(void* buffer, MPI_Datatype type, const datatype_view& item, MPI_Comm comm,
                                bool updated, std::vector<std::byte>& stage) const {
    if (!staged) return {static_cast<std::byte*>(buffer), bytes};
    stage.resize(bytes);
    if (updated)
      for (std::size_t i = 0; i < counts.size(); ++i)
        pack(block(buffer, i, item), static_cast<std::size_t>(item_counts[i]), type, item, stage.data() + displs[i],
             comm);
    return stage;
  }

  /// Unpacks the stage into the buffer's blocks (nothing to do unless staged).
  void written(const std::vector<std::byte>& stage, void* buffer, MPI_Datatype type, const datatype_view& item,
               MPI_Comm comm) const {
    for (std::size_t i = 0; i < counts.size(); ++i)
      unpack(stage.data() + displs[i], const_cast<void*>(block(buffer, i, item)),
             static_cast<std::size_t>(item_counts[i]), type, item, comm);
  }
};

/// What one served call stages: its input and output bytes and the layouts
/// of its v-collective buffers. A blocking call uses its thread's stage
/// from call to call; a nonblocking one owns its stage until it completes.
struct stage {
  std::vector<std::byte> input, output;
  block_layout send, receive;
};

}  // namespace hpcoll::pmpi
