// SPDX-License-Identifier: BSD-3-Clause
#include <span>

#include <hpcoll/hpcoll.hpp>

#include "reductions.hpp"
#include "typed_reduction.hpp"

namespace hpcoll::pmpi {

bool allreduce(const served_call& call, const communicator& c, element e, reduction_op op, const void* in, void* out,
               std::size_t n) {
  return with_typed_reduction(e, op, [&]<class T>(std::type_identity<T>, auto typed_op, std::size_t per_element) {
    const std::size_t count = n * per_element;
    const std::span<T> result(static_cast<T*>(out), count);
    if (in) call.run<hpcoll::Allreduce<>>(c, std::span<const T>(static_cast<const T*>(in), count), result, typed_op);
    else call.run<hpcoll::Allreduce<>>(c, hpcoll::in_place, result, typed_op);
  });
}

}  // namespace hpcoll::pmpi
