// SPDX-License-Identifier: BSD-3-Clause
#include <span>

#include <hpcoll/hpcoll.hpp>

#include "reductions.hpp"
#include "typed_reduction.hpp"

namespace hpcoll::pmpi {

bool reduce_scatter_block(const served_call& call, const communicator& c, element e, reduction_op op, const void* in,
                          void* out, std::size_t n) {
  return with_typed_reduction(e, op, [&]<class T>(std::type_identity<T>, auto typed_op, std::size_t per_element) {
    const std::size_t block = n * per_element;
    const std::size_t all = block * static_cast<std::size_t>(c.size());
    if (in)
      call.run<hpcoll::ReduceScatterBlock<>>(c, std::span<const T>(static_cast<const T*>(in), all),
                                             std::span<T>(static_cast<T*>(out), block), typed_op);
    else
      call.run<hpcoll::ReduceScatterBlock<>>(c, hpcoll::in_place, std::span<T>(static_cast<T*>(out), all), typed_op);
  });
}

}  // namespace hpcoll::pmpi
