// SPDX-License-Identifier: BSD-3-Clause
#include <span>

#include <hpcoll/hpcoll.hpp>

#include "reductions.hpp"
#include "typed_reduction.hpp"

namespace hpcoll::pmpi {

bool reduce(const served_call& call, const communicator& c, element e, reduction_op op, const void* in, void* out,
            std::size_t n, int root) {
  return with_typed_reduction(e, op, [&]<class T>(std::type_identity<T>, auto typed_op, std::size_t per_element) {
    const std::size_t count = n * per_element;
    const std::span<T> result(static_cast<T*>(out), c.rank() == root ? count : 0);
    if (in) call.run<hpcoll::Reduce<>>(c, std::span<const T>(static_cast<const T*>(in), count), result, typed_op, root);
    else call.run<hpcoll::Reduce<>>(c, hpcoll::in_place, result, typed_op, root);
  });
}

}  // namespace hpcoll::pmpi
