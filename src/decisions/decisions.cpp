// SPDX-License-Identifier: BSD-3-Clause
// hpcoll::decisions: decide() of every collective the dispatcher serves and
// the process's machine profile and tuning table, instantiated once here; the
// headers declare these instantiations extern where HPCOLL_COMPILED_DECISIONS
// is defined (select/dispatch.hpp).
#include <boost/hana/append.hpp>
#include <boost/hana/equal.hpp>

#include <hpcoll/hpcoll.hpp>

namespace hpcoll {

#define HPCOLL_DETAIL_INSTANTIATE_DECIDE(Shape) template HPCOLL_DECIDE_INSTANCE(Shape);
HPCOLL_DISPATCHED_SHAPES(HPCOLL_DETAIL_INSTANTIATE_DECIDE)
HPCOLL_DETAIL_INSTANTIATE_DECIDE(mcast_shape)
#undef HPCOLL_DETAIL_INSTANTIATE_DECIDE
template const machine_profile& detail::process_machine_profile<>();
template const tuning_table* detail::process_tuning_table<>();

// A collective added to collective_shapes and not to the macro's list would
// still work, compiled in every unit again: keep the two alike. (The void at
// the end of both takes the list's last comma.)
#define HPCOLL_DETAIL_TYPE(Shape) hana::type_c<Shape>,
static_assert(decltype(hana::make_tuple(HPCOLL_DISPATCHED_SHAPES(HPCOLL_DETAIL_TYPE) hana::type_c<void>) ==
                       hana::append(collective_shapes, hana::type_c<void>))::value,
              "HPCOLL_DISPATCHED_SHAPES (select/dispatch.hpp) must list collective_shapes, in order");
#undef HPCOLL_DETAIL_TYPE

}  // namespace hpcoll
