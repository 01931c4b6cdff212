// SPDX-License-Identifier: BSD-3-Clause
// The runtime dispatcher behind schedule::automatic (and so behind the free
// functions): per call class it prices every candidate schedule with the cost
// model, lets a measured tuning table or an environment variable overrule the
// model, remembers the decision per communicator and can explain it.
//
// Precedence: the template argument (a named schedule never reaches the
// dispatcher) > HPCOLL_<COLLECTIVE>=<schedule> > the tuning table
// ($HPCOLL_TUNING) > the cost model with the machine file
// (select/machine_file.hpp). A choice that cannot serve the call (a schedule
// that needs a commutative op, for a non-commutative one) is an hpcoll::error
// naming where the choice came from, never a silent replacement.
//
// Every rank of a call must reach the same decision, so decisions only read
// what every rank knows alike: the collective, the communicator size, the
// root, the element size, the op and — except for gatherv and alltoallv, whose
// per-rank counts no rank knows in full — the message size — and the
// communicator's node layout. The rooted collectives are priced without their
// root-only in-place flag.
//
// The node-aware candidates (hierarchical, multi-leader) are weighed only when
// the call's node layout spans more than one node; then every candidate is
// priced by the two-level model (select/node_cost.hpp). Within one node they
// are left out of the model's choice, but may still be named.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "../communicator.hpp"
#include "../environment.hpp"
#include "../error.hpp"
#include "../plan/shape.hpp"
#include "cost.hpp"
#include "decisions.hpp"
#include "machine_file.hpp"
#include "node_cost.hpp"
#include "traits.hpp"
#include "tuning.hpp"

namespace hpcoll {

/// One candidate of a decision.
struct candidate_estimate {
  std::string schedule;
  double predicted_seconds = 0;
  bool valid = true;    ///< false: cannot serve this call (why: `unusable`)
  bool weighed = true;  ///< false: left out of the model's choice (a node-aware schedule within one node)
  std::string unusable; ///< why the candidate cannot serve the call, when it cannot
};

/// What the dispatcher decided for a call, and why.
struct decision {
  std::string collective;
  int ranks = 0;
  std::uint64_t bytes = 0;  ///< the size the choice was made for (nominal for gatherv/alltoallv)
  std::string reduction;    ///< "sum/int32", or empty when no op is involved
  std::string machine_source;
  std::vector<candidate_estimate> candidates;
  std::size_t model_choice = 0;  ///< the cheapest valid candidate by the model
  std::size_t choice = 0;        ///< the one that runs
  std::string reason;            ///< "model", "HPCOLL_ALLREDUCE=ring", "tuning table ... entry 3 (...)"

  const std::string& schedule() const { return candidates[choice].schedule; }

  /// A few lines: the call, every candidate's predicted time, the choice and its reason.
  std::string to_string() const {
    std::string o = detail::concat({"hpcoll: ", collective, ", ", std::to_string(ranks), " ranks, ",
                                    std::to_string(bytes), " bytes"});
    if (!reduction.empty()) o += detail::concat({" (", reduction, ")"});
    o += detail::concat({", machine: ", machine_source, "\n"});
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      const auto& c = candidates[i];
      char line[160];
      if (!c.valid)
        std::snprintf(line, sizeof line, "  %c %-62s   (%s)\n", i == choice ? '>' : ' ', c.schedule.c_str(),
                      c.unusable.c_str());
      else if (c.weighed)
        std::snprintf(line, sizeof line, "  %c %-62s %12.2f us\n", i == choice ? '>' : ' ', c.schedule.c_str(),
                      c.predicted_seconds * 1e6);
      else
        std::snprintf(line, sizeof line, "  %c %-62s   (node-aware: weighed across nodes)\n", i == choice ? '>' : ' ',
                      c.schedule.c_str());
      o += line;
    }
    o += detail::concat({"  -> ", schedule(), ": ", reason});
    if (choice != model_choice) o += detail::concat({" (the model would choose ", candidates[model_choice].schedule, ")"});
    o += '\n';
    return o;
  }
};

namespace detail {

template <class Shape>
bool commutative_call(const Shape& s) {
  if constexpr (requires { s.commutative; }) return s.commutative;
  else return true;
}

/// The call's node layout, or null when its shape has none.
template <class Shape>
const node_layout* layout_of(const Shape& s) {
  if constexpr (requires { s.nodes; }) return s.nodes ? &*s.nodes : nullptr;
  else return nullptr;
}

/// Why schedule S cannot serve a call (commutative or not, on `nodes`), or
/// null when it can.
template <class S, class Shape>
const char* unusable_for(bool commutative, const node_layout* nodes) {
  if (!commutative && requires_commutative<S, Shape>) return "needs a commutative op";
  if constexpr (uses_node_layout<S>) {
    if (!nodes) return "needs the communicator's node layout";
    if (!commutative && !nodes->ranks_consecutive())
      return "reduces with a non-commutative op only when ranks are numbered node by node";
  }
  return nullptr;
}

/// Builds the plan of Shape's `index`-th candidate, as the variant over all
/// of them that the executor runs.
template <class Shape>
struct candidate_plans {
  static constexpr bool through_step_sink = true;  // no walk compiled per candidate
  std::size_t index;
  auto operator()(const Shape& call) const { return schedule::candidate_plan(call, index); }
};

/// HPCOLL_ALLREDUCE for allreduce, and so on.
template <class Shape>
std::string override_variable() {
  std::string name = "HPCOLL_";
  for (char ch : Shape::name) name += static_cast<char>(ch >= 'a' && ch <= 'z' ? ch - 'a' + 'A' : ch);
  return name;
}

}  // namespace detail

/// The decision for a call on a given machine, tuning table (may be null) and
/// override (the value of HPCOLL_<COLLECTIVE>; null or empty: none). Pure:
/// the same arguments give the same decision on every rank.
template <dispatchable Shape>
decision decide(const Shape& call, const machine& m, const tuning_table* table, const char* override_value,
                std::string_view reduction = {}, std::string_view machine_source = "given") {
  constexpr std::string_view coll = Shape::name;
  decision d;
  d.collective = coll;
  d.ranks = call.size;
  d.bytes = message_bytes(call);
  d.reduction = reduction;
  d.machine_source = machine_source;
  const bool commutative = detail::commutative_call(call);
  const node_layout* nodes = detail::layout_of(call);
  if (nodes && nodes->size() != call.size)
    throw error(coll, "automatic",
                detail::concat({"the call's node layout has ", std::to_string(nodes->size()), " ranks, its communicator ",
                                std::to_string(call.size)}));
  const bool across_nodes = nodes && nodes->nodes() > 1;
  std::array<bool, schedule::candidate_count<Shape>> may_sample{};
  with_common_shape(call, [&](const Shape& s) {
    schedule::for_each_candidate<Shape>([&](auto type, std::size_t i) {
      using S = typename decltype(type)::type;
      candidate_estimate c;
      c.schedule = schedule::candidate_names<Shape>()[i];
      if (const char* why = detail::unusable_for<S, Shape>(commutative, nodes)) {
        c.valid = false;
        c.unusable = why;
      } else if (across_nodes) {
        may_sample[i] = samples_ranks<S> || uses_node_layout<S>;  // priced below
      } else if constexpr (uses_node_layout<S>) {
        c.weighed = false;
      } else {
        c.predicted_seconds = predict_sampled<S>(candidate_priced_shape<S>(s), m).seconds + lead_in_seconds<S>(s, m);
      }
      d.candidates.push_back(std::move(c));
    });
    // Across nodes every candidate is walked through the variant plan the
    // executor runs: one two-level walk per collective, not per candidate.
    if constexpr (requires { s.nodes; }) {
      if (across_nodes) {
        const Shape priced = priced_shape(s);
        for (std::size_t i = 0; i < d.candidates.size(); ++i)
          if (d.candidates[i].valid)
            d.candidates[i].predicted_seconds =
                detail::predict_on_nodes_sampled(priced, m, *nodes, detail::candidate_plans<Shape>{i}, may_sample[i])
                    .seconds;
      }
    }
  });
  d.model_choice = d.candidates.size();
  for (std::size_t i = 0; i < d.candidates.size(); ++i)
    if (d.candidates[i].valid && d.candidates[i].weighed &&
        (d.model_choice == d.candidates.size() ||
         d.candidates[i].predicted_seconds < d.candidates[d.model_choice].predicted_seconds))
      d.model_choice = i;
  d.choice = d.model_choice;
  d.reason = "model";

  const auto honour = [&](std::size_t index, const std::string& origin) {
    if (!d.candidates[index].valid)
      throw error(coll, "automatic",
                  detail::concat({origin, " chooses ", d.candidates[index].schedule, ", which ",
                                  d.candidates[index].unusable}));
    d.choice = index;
    d.reason = origin;
  };
  if (override_value && *override_value) {
    const std::string origin = detail::concat({detail::override_variable<Shape>(), "=", override_value});
    const std::size_t index = schedule::find_candidate<Shape>(override_value);
    if (index == schedule::candidate_count<Shape>)
      throw error(coll, "automatic",
                  detail::concat({origin, " names no schedule of ", coll, " (candidates: ",
                                  schedule::candidate_list(schedule::candidate_names<Shape>()), ")"}));
    honour(index, origin);
  } else if (table) {
    if (const tuning_entry* e = table->find(coll, call.size, d.bytes))
      honour(e->candidate, detail::concat({"tuning table ", table->source, ", ", e->describe()}));
  }
  return d;
}

// hpcoll::decisions, the optional compiled part (src/decisions): a program
// that links it gets decide() of every collective and the reading of the
// machine file and the tuning table compiled once, in that library, instead
// of in each translation unit that makes a dispatched call (the cost model's
// walk of every candidate: about 3 s of a unit's compile at -O3 per
// collective). Linking it defines HPCOLL_COMPILED_DECISIONS; without it
// nothing changes. The collectives of collective_shapes, as a list the
// explicit instantiations can name (the library checks that they agree); the
// multicast's follows its shape (mcast/mcast.hpp).
#define HPCOLL_DISPATCHED_SHAPES(X)                                                              \
  X(bcast_shape) X(reduce_shape) X(allreduce_shape) X(gather_shape) X(gatherv_shape)            \
  X(scatter_shape) X(allgather_shape) X(allgatherv_shape) X(reduce_scatter_block_shape)        \
  X(alltoall_shape) X(alltoallv_shape)
#define HPCOLL_DECIDE_INSTANCE(Shape)                                                            \
  decision decide<Shape>(const Shape&, const machine&, const tuning_table*, const char*,        \
                         std::string_view, std::string_view)
#ifdef HPCOLL_COMPILED_DECISIONS
#define HPCOLL_DETAIL_EXTERN_DECIDE(Shape) extern template HPCOLL_DECIDE_INSTANCE(Shape);
HPCOLL_DISPATCHED_SHAPES(HPCOLL_DETAIL_EXTERN_DECIDE)
#undef HPCOLL_DETAIL_EXTERN_DECIDE
extern template const machine_profile& detail::process_machine_profile<>();
extern template const tuning_table* detail::process_tuning_table<>();
#endif

namespace detail {

template <class Op, class T>
inline constexpr char reduction_tag = 0;

/// Quarter-octave size classes: calls within ~19% of each other share a decision.
inline int size_class(std::uint64_t bytes) {
  if (bytes == 0) return 0;
  const int w = std::bit_width(bytes);
  const int quarter = w >= 3 ? static_cast<int>((bytes >> (w - 3)) & 3) : 0;
  return 1 + 4 * w + quarter;
}

/// The decision from the current machine file, tuning table and environment,
/// for ranks placed `ranks_per_core` to a core whose messages of up to
/// `mailbox_bytes` within a node take the node's mailboxes (a blocking
/// call's: shared_message_bytes(node ranks); a nonblocking call's all take
/// MPI, 0): the model prices those at the machine's mailbox rates.
template <dispatchable Shape, class Op, class T>
decision decide_now(const Shape& call, double ranks_per_core, std::size_t mailbox_bytes) {
  const machine_profile& profile = current_machine_profile();
  const std::string variable = override_variable<Shape>();
  machine m = profile.for_reduction<Op, T>();
  m.ranks_per_core = ranks_per_core;
  m.mailbox_bytes = mailbox_bytes;
  return decide(call, m, current_tuning_table(), std::getenv(variable.c_str()), reduction_key<Op, T>(), profile.source);
}

/// Bytes up to which a call's messages within a node take the node's
/// mailboxes: a blocking call's, if its collective takes them; else none.
template <dispatchable Shape>
std::size_t mailbox_bytes(const communicator& c, bool blocking) {
  return blocking && takes_mailboxes<Shape> ? shared_message_bytes(c.node_ranks()) : 0;
}

/// The call class of a call: what a choice is remembered for.
template <dispatchable Shape, class Op, class T>
dispatch_key key_of(const Shape& call, bool blocking) {
  // message_bytes is the same on every rank (gatherv and alltoallv: nominal).
  return {&Shape::name,          size_class(message_bytes(call)), group_size(call), commutative_call(call),
          common_in_place(call), blocking,                        call.elem_size,   &reduction_tag<Op, T>};
}

/// The candidate index for a call of class `key` on communicator c:
/// remembered per call class, decided (and with HPCOLL_VERBOSE explained by
/// rank 0) on first use. A blocking and a nonblocking call of one class are
/// decided apart: the first's small messages take the node's mailboxes, the
/// second's MPI.
template <dispatchable Shape, class Op, class T>
std::size_t remembered_choice(const communicator& c, const Shape& call, const dispatch_key& key) {
  dispatch_decisions& cache = c.service<dispatch_decisions>();
  if (const auto known = cache.find(key)) return *known;
  const decision d = decide_now<Shape, Op, T>(call, c.ranks_per_core(), mailbox_bytes<Shape>(c, key.blocking));
  if (verbose() && c.rank() == 0) std::fputs(d.to_string().c_str(), stderr);
  cache.remember(key, d.choice);
  return d.choice;
}

/// The thread's last call of one Shape, Op and T: its communicator, its
/// shape and the choice made for it.
template <class Shape>
struct last_dispatch {
  std::uint64_t communicator = 0;
  Shape shape{};
  std::size_t choice = 0;
};

/// The thread's last call class of one Shape, Op and T, for shapes that
/// cannot be compared (a multicast's points at its member set): its
/// communicator, its class and the choice made for it.
struct last_dispatch_class {
  std::uint64_t communicator = 0;
  dispatch_key key{};
  std::size_t choice = 0;
};

/// dispatch() for a call that is not the thread's last: looked up, and kept as the last.
template <dispatchable Shape, class Op, class T, bool Blocking>
[[gnu::noinline]] std::size_t dispatch_anew(const communicator& c, const Shape& call, last_dispatch<Shape>& last) {
  const std::size_t choice = remembered_choice<Shape, Op, T>(c, call, key_of<Shape, Op, T>(call, Blocking));
  last = {c.serial(), call, choice};
  return choice;
}
template <dispatchable Shape, class Op, class T>
[[gnu::noinline]] std::size_t dispatch_anew(const communicator& c, const Shape& call, const dispatch_key& key,
                                            last_dispatch_class& last) {
  last = {c.serial(), key, remembered_choice<Shape, Op, T>(c, call, key)};
  return last.choice;
}

/// remembered_choice(), for a call of the same shape (or, where shapes cannot
/// be compared, the same class) as the thread's last on the same communicator
/// without a lookup: the call class is a function of the shape (for one Op, T
/// and Blocking), and a remembered choice never changes. Inlined into the
/// entry point: a repeated call compares, then runs.
template <dispatchable Shape, class Op, class T, bool Blocking>
[[gnu::always_inline]] inline std::size_t dispatch(const communicator& c, const Shape& call) {
  if constexpr (std::equality_comparable<Shape>) {
    thread_local last_dispatch<Shape> last;
    if (last.communicator == c.serial() && last.shape == call) [[likely]]
      return last.choice;
    return dispatch_anew<Shape, Op, T, Blocking>(c, call, last);
  } else {
    thread_local last_dispatch_class last;
    const dispatch_key key = key_of<Shape, Op, T>(call, Blocking);
    if (last.communicator == c.serial() && last.key == key) [[likely]]
      return last.choice;
    return dispatch_anew<Shape, Op, T>(c, call, key, last);
  }
}

}  // namespace detail

/// What the dispatcher would choose for a call of this shape with op Op on
/// elements T on communicator c, and why (the decision the blocking free
/// functions make, or hpcoll::mcast for a multicast, from the current machine
/// file, tuning table and environment, and how crowded c's nodes are). The free functions give a call c's node layout;
/// give it to the shape here for the same decision on a communicator that
/// spans nodes (shape.nodes = hpcoll::node_layout_of(c), collective on its
/// first call on c).
///   hpcoll::explain<hpcoll::op::sum, double>(c, hpcoll::allreduce_shape{c.rank(), c.size(), n}).to_string()
/// With T given, the shape's element size is sizeof(T).
template <class Op = void, class T = void, dispatchable Shape>
decision explain(const communicator& c, Shape call) {
  if constexpr (!std::is_void_v<T>) call.elem_size = sizeof(T);
  return detail::decide_now<Shape, Op, T>(call, c.ranks_per_core(), detail::mailbox_bytes<Shape>(c, true));
}

/// explain() for ranks with a core each (machine::ranks_per_core = 1), every
/// message through MPI, without a communicator.
template <class Op = void, class T = void, dispatchable Shape>
decision explain(Shape call) {
  if constexpr (!std::is_void_v<T>) call.elem_size = sizeof(T);
  return detail::decide_now<Shape, Op, T>(call, 1, 0);
}

}  // namespace hpcoll
