// SPDX-License-Identifier: BSD-3-Clause
// The symbolic verifier: runs every rank's plan of one call in one process,
// with no MPI, on symbolic data, and proves the result.
//
// Each element carries what it is made of: the element index it stands for,
// the set of ranks whose contributions it combines, whether they were combined
// in rank order, and a hash of the expression tree. Messages match like MPI
// point-to-point messages (in posting order per pair of ranks) and sends
// complete only when received, so a schedule that could deadlock under
// rendezvous does deadlock here. The verifier reports:
//   - deadlocks, unmatched messages and size mismatches;
//   - regions out of bounds, writes to the input, self-messages;
//   - hazards inside a round (a region received into while it is sent,
//     written by a local step or received into twice);
//   - wrong results: missing, duplicated or misplaced contributions, operands
//     out of rank order for non-commutative ops, a different expression tree
//     on different ranks for allreduce (which would break bit-identical
//     floating-point results), output that should have stayed untouched;
//   - plans whose round counts differ between ranks.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iterator>
#include <numeric>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "../plan/plan.hpp"
#include "../plan/plan_for.hpp"
#include "../plan/shape.hpp"
#include "../schedule/properties.hpp"

namespace hpcoll::verify {

/// The largest communicator the verifier models.
inline constexpr int max_ranks = 128;

/// ok, or the first failure in words.
struct outcome {
  bool ok = true;
  std::string failure;
  explicit operator bool() const { return ok; }
};

namespace detail {

struct contributors {
  std::array<std::uint64_t, max_ranks / 64> words{};
  void add(int r) { words[static_cast<std::size_t>(r) / 64] |= std::uint64_t{1} << (r % 64); }
  bool intersects(const contributors& o) const {
    for (std::size_t i = 0; i < words.size(); ++i)
      if (words[i] & o.words[i]) return true;
    return false;
  }
  void merge(const contributors& o) {
    for (std::size_t i = 0; i < words.size(); ++i) words[i] |= o.words[i];
  }
  bool is_only(int r) const {
    for (std::size_t i = 0; i < words.size(); ++i)
      if (words[i] != (i == static_cast<std::size_t>(r) / 64 ? std::uint64_t{1} << (r % 64) : 0)) return false;
    return true;
  }
  int count() const {
    int c = 0;
    for (auto w : words) c += std::popcount(w);
    return c;
  }
  bool operator==(const contributors&) const = default;
};

/// A symbolic element.
struct cell {
  bool defined = false;  ///< false: garbage that was at `index` of its memory from the start
  bool ordered = true;   ///< contributions lo..hi combined left to right in rank order
  std::uint32_t index = 0;
  int lo = 0, hi = 0;
  std::uint64_t expr = 0;
  contributors ranks;

  static cell garbage(std::size_t position) {
    cell c;
    c.index = static_cast<std::uint32_t>(position);
    return c;
  }
  static cell leaf(int rank, std::size_t index) {
    cell c;
    c.defined = true;
    c.index = static_cast<std::uint32_t>(index);
    c.lo = c.hi = rank;
    c.ranks.add(rank);
    c.expr = mix(0x9e3779b97f4a7c15ull * static_cast<std::uint64_t>(rank + 1), index);
    return c;
  }
  static std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
    std::uint64_t h = a ^ (b + 0x9e3779b97f4a7c15ull + (a << 6) + (a >> 2));
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
  }
  std::string describe() const {
    std::ostringstream o;
    if (!defined) {
      o << "garbage";
    } else if (lo == hi && ranks.count() == 1) {
      o << "element " << index << " of rank " << lo;
    } else {
      o << "reduction of element " << index << " over " << ranks.count() << " ranks (" << lo << ".." << hi
        << (ordered ? ", in order)" : ", out of order)");
    }
    return o.str();
  }
};

/// How input and output sit in a rank's user memory (they may alias).
struct layout_spec {
  std::size_t input_size = 0, output_size = 0;
  std::size_t input_base = 0, output_base = 0;
  std::size_t extent() const { return std::max(input_base + input_size, output_base + output_size); }
};

/// Separate input and output.
inline layout_spec separate(std::size_t input_size, std::size_t output_size) {
  return {input_size, output_size, 0, input_size};
}
/// Input inside output, starting at `at`.
inline layout_spec input_in_output(std::size_t input_size, std::size_t output_size, std::size_t at) {
  return {input_size, output_size, at, 0};
}
/// Output inside input, starting at `at`.
inline layout_spec output_in_input(std::size_t input_size, std::size_t output_size, std::size_t at) {
  return {input_size, output_size, 0, at};
}

class failure_log {
public:
  explicit failure_log(std::string context) : context_(std::move(context)) {}
  template <class... Parts>
  void fail(const Parts&... parts) {
    if (!ok_) return;  // keep the first failure: later ones are usually its echo
    std::ostringstream o;
    o << context_ << ": ";
    (o << ... << parts);
    message_ = o.str();
    ok_ = false;
  }
  bool ok() const { return ok_; }
  outcome result() const { return ok_ ? outcome{} : outcome{false, message_}; }

private:
  std::string context_;
  std::string message_;
  bool ok_ = true;
};

inline const char* buffer_name(buffer b) {
  switch (b) {
    case buffer::input: return "input";
    case buffer::output: return "output";
    case buffer::scratch: return "scratch";
  }
  return "?";
}

/// A posted send or receive that waits for its counterpart.
struct message {
  int rank;  ///< the rank that posted it
  std::size_t step;
};

/// Where a rank is: its round, the round's steps and which of them wait.
struct rank_state {
  int round = 0;
  std::vector<step> steps;
  std::vector<char> matched;  ///< per step of the round
  int unmatched = 0;
};

/// The memory a region resolves to: user memory or scratch, and a start.
struct span_ref {
  std::vector<cell>* mem;
  std::size_t first, count;
  bool is_scratch;
};

/// What a run allocates, kept by the thread between runs: a sweep makes
/// hundreds of thousands of small runs, and allocating it afresh for each
/// (malloc, page faults) took about half of a linear or binomial bcast sweep's
/// time. Its vectors only grow, so the inner ones keep their capacity; a run
/// uses the first p (or p²).
struct run_memory {
  std::vector<std::vector<cell>> user, scratch;
  std::vector<rank_state> ranks;
  /// Per (receiver, sender) pair: messages posted and not yet matched, oldest first.
  std::vector<std::vector<message>> sends, recvs;
  std::vector<span_ref> landings, sources;

  static run_memory& of_this_thread() {
    thread_local run_memory memory;
    return memory;
  }
  template <class T>
  static void grow(std::vector<T>& v, std::size_t n) {
    if (v.size() < n) v.resize(n);
  }
};

/// The symbolic run of one call: p ranks, each with user memory and scratch.
/// One at a time per thread: it runs in the thread's run_memory.
template <class Plan>
class symbolic_run {
public:
  symbolic_run(std::vector<Plan> plans, std::vector<layout_spec> layouts, bool commutative, failure_log& log)
      : plans_(std::move(plans)), layouts_(std::move(layouts)), commutative_(commutative), log_(log),
        memory_(run_memory::of_this_thread()), user_(memory_.user), scratch_(memory_.scratch),
        ranks_(memory_.ranks), landings_(memory_.landings), sources_(memory_.sources) {
    const std::size_t p = plans_.size();
    run_memory::grow(user_, p);
    run_memory::grow(scratch_, p);
    run_memory::grow(ranks_, p);
    run_memory::grow(memory_.sends, p * p);
    run_memory::grow(memory_.recvs, p * p);
    for (std::size_t r = 0; r < p; ++r) {
      user_[r].resize(layouts_[r].extent());
      for (std::size_t i = 0; i < user_[r].size(); ++i) user_[r][i] = cell::garbage(i);
      scratch_[r].assign(plans_[r].scratch_elems(), cell::garbage(0));
      ranks_[r].round = 0;
      ranks_[r].steps.clear();
      ranks_[r].matched.clear();
      ranks_[r].unmatched = 0;
    }
    for (std::size_t pair = 0; pair < p * p; ++pair) {
      memory_.sends[pair].clear();
      memory_.recvs[pair].clear();
    }
  }

  cell& input(int rank, std::size_t i) { return user_[idx(rank)][layouts_[idx(rank)].input_base + i]; }
  cell& output(int rank, std::size_t i) { return user_[idx(rank)][layouts_[idx(rank)].output_base + i]; }
  const layout_spec& layout(int rank) const { return layouts_[idx(rank)]; }
  int size() const { return static_cast<int>(plans_.size()); }

  /// Runs every rank's plan to the end (or to the first failure).
  void run() {
    const int p = size();
    const int rounds = plans_[0].rounds();
    for (int r = 0; r < p; ++r)
      if (plans_[idx(r)].rounds() != rounds)
        return log_.fail("rank ", r, " has ", plans_[idx(r)].rounds(), " rounds, rank 0 has ", rounds);
    for (int r = 0; r < p && log_.ok() && rounds > 0; ++r) start_round(r);
    // A round finishes once all its messages have matched; finishing it
    // starts the next, whose posts may match messages of other ranks.
    bool progress = true;
    while (progress && log_.ok()) {
      progress = false;
      for (int r = 0; r < p && log_.ok(); ++r) {
        rank_state& st = ranks_[idx(r)];
        while (st.round < rounds && st.unmatched == 0 && log_.ok()) {
          finish_reductions(r);
          if (st.round < rounds) start_round(r);
          progress = true;
        }
      }
    }
    if (!log_.ok()) return;
    for (int r = 0; r < p; ++r)
      if (ranks_[idx(r)].round < rounds) return report_stuck(r);
  }

private:
  static std::size_t idx(int r) { return static_cast<std::size_t>(r); }
  std::size_t pair(int receiver, int sender) const { return idx(receiver) * plans_.size() + idx(sender); }

  std::size_t limit(int rank, buffer b) const {
    const auto& l = layouts_[idx(rank)];
    switch (b) {
      case buffer::input: return l.input_size;
      case buffer::output: return l.output_size;
      case buffer::scratch: return scratch_[idx(rank)].size();
    }
    return 0;
  }
  bool in_bounds(int rank, const region& g, const char* what) {
    if (g.offset + g.count > limit(rank, g.buf) || g.offset + g.count < g.offset) {
      log_.fail("rank ", rank, " round ", ranks_[idx(rank)].round, ": ", what, " region ", buffer_name(g.buf), "[",
                g.offset, ", ", g.offset + g.count, ") is out of bounds (", buffer_name(g.buf), " has ",
                limit(rank, g.buf), " elements)");
      return false;
    }
    return true;
  }
  span_ref resolve(int rank, const region& g) {
    const auto& l = layouts_[idx(rank)];
    switch (g.buf) {
      case buffer::input: return {&user_[idx(rank)], l.input_base + g.offset, g.count, false};
      case buffer::output: return {&user_[idx(rank)], l.output_base + g.offset, g.count, false};
      case buffer::scratch: return {&scratch_[idx(rank)], g.offset, g.count, true};
    }
    return {nullptr, 0, 0, false};
  }
  static bool overlap(const span_ref& a, const span_ref& b) {
    return a.mem == b.mem && a.count && b.count && a.first < b.first + b.count && b.first < a.first + a.count;
  }

  static void copy_cells(const span_ref& from, const span_ref& to) {
    // An empty span may have no storage (data() null), which memmove must not be given.
    if (from.count == 0 || (from.mem == to.mem && from.first == to.first)) return;
    // Cells are trivially copyable; memmove also covers overlapping copies.
    std::memmove(static_cast<void*>(to.mem->data() + to.first), from.mem->data() + from.first,
                 from.count * sizeof(cell));
  }

  cell combine(int rank, const cell& left, const cell& right) {
    if (!left.defined || !right.defined) {
      log_.fail("rank ", rank, " round ", ranks_[idx(rank)].round, ": reduces ", left.describe(), " with ",
                right.describe());
      return left;
    }
    if (left.index != right.index) {
      log_.fail("rank ", rank, " round ", ranks_[idx(rank)].round, ": reduces element ", left.index,
                " with element ", right.index);
      return left;
    }
    if (left.ranks.intersects(right.ranks)) {
      log_.fail("rank ", rank, " round ", ranks_[idx(rank)].round, ": element ", left.index,
                " counts a contribution twice (", left.describe(), " with ", right.describe(), ")");
      return left;
    }
    cell c = left;
    c.ranks.merge(right.ranks);
    c.ordered = left.ordered && right.ordered && left.hi + 1 == right.lo;
    c.lo = std::min(left.lo, right.lo);
    c.hi = std::max(left.hi, right.hi);
    c.expr = commutative_ ? cell::mix(std::min(left.expr, right.expr), std::max(left.expr, right.expr) * 3 + 1)
                          : cell::mix(left.expr, right.expr * 3 + 1);
    return c;
  }

  void reduce_cells(int rank, const span_ref& left, const span_ref& right, const span_ref& dst) {
    for (std::size_t i = 0; i < dst.count && log_.ok(); ++i)
      (*dst.mem)[dst.first + i] = combine(rank, (*left.mem)[left.first + i], (*right.mem)[right.first + i]);
  }

  bool check_step(int rank, const step& s) {
    const int p = size();
    if (s.is_comm()) {
      if (s.peer < 0 || s.peer >= p) {
        log_.fail("rank ", rank, " round ", ranks_[idx(rank)].round, ": peer ", s.peer, " is not a rank");
        return false;
      }
      if (s.peer == rank && !(s.kind == step_kind::send ? s.a : s.landing()).empty()) {
        log_.fail("rank ", rank, " round ", ranks_[idx(rank)].round, ": sends a message to itself (use a copy)");
        return false;
      }
    }
    auto written = [&](const region& g) {
      if (g.buf == buffer::input && g.count) {
        log_.fail("rank ", rank, " round ", ranks_[idx(rank)].round, ": writes its input");
        return false;
      }
      return in_bounds(rank, g, "written");
    };
    switch (s.kind) {
      case step_kind::send: return in_bounds(rank, s.a, "sent");
      case step_kind::recv: return written(s.dst);
      case step_kind::recv_reduce:
        if (s.a.count != s.dst.count || s.b.count != s.dst.count) {
          log_.fail("rank ", rank, " round ", ranks_[idx(rank)].round, ": recv_reduce regions differ in size");
          return false;
        }
        return written(s.a) && in_bounds(rank, s.b, "reduced") && written(s.dst);
      case step_kind::copy:
        if (s.a.count != s.dst.count) {
          log_.fail("rank ", rank, " round ", ranks_[idx(rank)].round, ": copy regions differ in size");
          return false;
        }
        return in_bounds(rank, s.a, "copied") && written(s.dst);
      case step_kind::reduce:
        if (s.a.count != s.dst.count || s.b.count != s.dst.count) {
          log_.fail("rank ", rank, " round ", ranks_[idx(rank)].round, ": reduce regions differ in size");
          return false;
        }
        return in_bounds(rank, s.a, "reduced") && in_bounds(rank, s.b, "reduced") && written(s.dst);
    }
    return true;
  }

  /// Regions in flight during the round may not be touched by anything else.
  void check_hazards(int rank, const std::vector<step>& steps) {
    auto& landings = landings_;
    auto& sources = sources_;
    landings.clear();
    sources.clear();
    for (const step& s : steps) {
      if (s.kind == step_kind::recv || s.kind == step_kind::recv_reduce) {
        if (!s.landing().empty()) landings.push_back(resolve(rank, s.landing()));
      } else if (s.kind == step_kind::send && !s.a.empty()) {
        sources.push_back(resolve(rank, s.a));
      }
    }
    auto by_start = [](const span_ref& x, const span_ref& y) {
      return std::less<const void*>{}(x.mem, y.mem) || (x.mem == y.mem && x.first < y.first);
    };
    std::sort(landings.begin(), landings.end(), by_start);
    const int round = ranks_[idx(rank)].round;
    for (std::size_t i = 1; i < landings.size(); ++i)
      if (overlap(landings[i - 1], landings[i]))
        return log_.fail("rank ", rank, " round ", round, ": two receives land in the same elements");
    // The landings are sorted and disjoint, so their ends ascend too: of those
    // starting before g ends, only the last can reach into g.
    auto hits_landing = [&](const span_ref& g) {
      if (!g.count) return false;
      const auto after = std::lower_bound(landings.begin(), landings.end(),
                                          span_ref{g.mem, g.first + g.count, 0, false}, by_start);
      return after != landings.begin() && overlap(*std::prev(after), g);
    };
    for (const span_ref& src : sources)
      if (hits_landing(src))
        return log_.fail("rank ", rank, " round ", round, ": sends elements that a receive of the same round writes");
    for (const step& s : steps) {
      if (s.kind != step_kind::copy && s.kind != step_kind::reduce) continue;
      const bool touches = hits_landing(resolve(rank, s.a)) || hits_landing(resolve(rank, s.dst)) ||
                           (s.kind == step_kind::reduce && hits_landing(resolve(rank, s.b)));
      if (touches)
        return log_.fail("rank ", rank, " round ", round,
                         ": a local step touches elements that a receive of the same round writes");
    }
  }

  /// Posts the rank's current round: receives, then local steps, then sends.
  void start_round(int rank) {
    rank_state& st = ranks_[idx(rank)];
    const Plan& plan = plans_[idx(rank)];
    st.steps.clear();
    plan.round(st.round, [&](const step& s) { st.steps.push_back(s); });
    for (const step& s : st.steps)
      if (!check_step(rank, s)) return;
    check_hazards(rank, st.steps);
    if (!log_.ok()) return;
    st.matched.assign(st.steps.size(), 1);
    st.unmatched = 0;
    for (std::size_t i = 0; i < st.steps.size(); ++i) {
      const step& s = st.steps[i];
      if (s.kind == step_kind::recv || s.kind == step_kind::recv_reduce) post(rank, i, false);
    }
    for (const step& s : st.steps) {
      if (s.kind == step_kind::copy) copy_cells(resolve(rank, s.a), resolve(rank, s.dst));
      if (s.kind == step_kind::reduce) reduce_cells(rank, resolve(rank, s.a), resolve(rank, s.b), resolve(rank, s.dst));
    }
    for (std::size_t i = 0; i < st.steps.size(); ++i)
      if (st.steps[i].kind == step_kind::send) post(rank, i, true);
  }

  void finish_reductions(int rank) {
    rank_state& st = ranks_[idx(rank)];
    for (const step& s : st.steps) {
      if (s.kind != step_kind::recv_reduce || s.a.empty()) continue;
      const span_ref incoming = resolve(rank, s.a), other = resolve(rank, s.b), dst = resolve(rank, s.dst);
      if (s.incoming_left)
        reduce_cells(rank, incoming, other, dst);
      else
        reduce_cells(rank, other, incoming, dst);
    }
    ++st.round;
  }

  /// Posts a send or receive; matches it against the oldest waiting
  /// counterpart of the same pair of ranks.
  void post(int rank, std::size_t i, bool is_send) {
    rank_state& st = ranks_[idx(rank)];
    const step& s = st.steps[i];
    const region& g = is_send ? s.a : s.landing();
    if (g.empty()) return;
    st.matched[i] = 0;
    ++st.unmatched;
    const std::size_t between = is_send ? pair(s.peer, rank) : pair(rank, s.peer);
    auto& waiting = (is_send ? memory_.recvs : memory_.sends)[between];
    if (waiting.empty()) {
      (is_send ? memory_.sends : memory_.recvs)[between].push_back({rank, i});
      return;
    }
    const message other = waiting.front();
    waiting.erase(waiting.begin());
    if (is_send)
      deliver(rank, i, other.rank, other.step);
    else
      deliver(other.rank, other.step, rank, i);
  }

  /// Moves the data of a matched message and completes rounds that are done.
  void deliver(int sender, std::size_t send_step, int receiver, std::size_t recv_step) {
    rank_state& ss = ranks_[idx(sender)];
    rank_state& rs = ranks_[idx(receiver)];
    const region& from = ss.steps[send_step].a;
    const region& to = rs.steps[recv_step].landing();
    if (from.count != to.count)
      return log_.fail("rank ", sender, " round ", ss.round, " sends ", from.count, " elements to rank ", receiver,
                       ", whose round ", rs.round, " receives ", to.count);
    copy_cells(resolve(sender, from), resolve(receiver, to));
    ss.matched[send_step] = 1;
    rs.matched[recv_step] = 1;
    --ss.unmatched;
    --rs.unmatched;
  }

  void report_stuck(int rank) {
    const rank_state& st = ranks_[idx(rank)];
    std::ostringstream o;
    o << "deadlock: rank " << rank << " waits in round " << st.round << " for";
    for (std::size_t i = 0; i < st.steps.size(); ++i) {
      if (st.matched[i]) continue;
      const step& s = st.steps[i];
      o << (s.kind == step_kind::send ? " a send to " : " a receive from ") << s.peer;
    }
    log_.fail(o.str());
  }

  std::vector<Plan> plans_;
  std::vector<layout_spec> layouts_;
  bool commutative_;
  failure_log& log_;
  run_memory& memory_;
  std::vector<std::vector<cell>>&user_, &scratch_;
  std::vector<rank_state>& ranks_;
  std::vector<span_ref>&landings_, &sources_;
};

template <class S, class Shape, class ShapeOf, class LayoutOf, class Init, class Check>
outcome run(const std::string& context, int p, bool commutative, ShapeOf shape_of, LayoutOf layout_of, Init init,
                 Check check) {
  failure_log log(context);
  if (p < 1 || p > max_ranks) {
    log.fail("the verifier models 1 to ", max_ranks, " ranks");
    return log.result();
  }
  using P = plan_type<S, Shape>;
  std::vector<P> plans;
  std::vector<layout_spec> layouts;
  plans.reserve(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) {
    plans.push_back(plan_for<S>(shape_of(r)));
    layouts.push_back(layout_of(r));
  }
  symbolic_run<P> m(std::move(plans), std::move(layouts), commutative, log);
  init(m);
  m.run();
  if (log.ok()) check(m, log);
  return log.result();
}

template <class M>
void fill_input(M& m, int rank) {
  for (std::size_t i = 0; i < m.layout(rank).input_size; ++i) m.input(rank, i) = cell::leaf(rank, i);
}

/// Checks one output element against the element `index` of rank `origin`.
template <class M>
bool expect_leaf(M& m, failure_log& log, int rank, std::size_t at, int origin, std::size_t index) {
  const cell& c = m.output(rank, at);
  if (c.defined && c.index == index && c.ranks.is_only(origin) && c.lo == origin) return true;
  log.fail("rank ", rank, " output[", at, "] should be element ", index, " of rank ", origin, ", is ", c.describe());
  return false;
}

/// Checks one output element against the reduction of element `index` over all ranks.
template <class M>
bool expect_reduction(M& m, failure_log& log, int rank, std::size_t at, std::size_t index, bool commutative) {
  const cell& c = m.output(rank, at);
  const int p = m.size();
  const bool complete = c.defined && c.index == index && c.ranks.count() == p;
  const bool in_order = commutative || (c.ordered && c.lo == 0 && c.hi == p - 1);
  if (complete && in_order) return true;
  log.fail("rank ", rank, " output[", at, "] should be the ", commutative ? "" : "in-order ", "reduction of element ",
           index, " over all ", p, " ranks, is ", c.describe());
  return false;
}

template <class M>
bool expect_untouched(M& m, failure_log& log, int rank, std::size_t at) {
  const cell& c = m.output(rank, at);
  if (!c.defined && c.index == m.layout(rank).output_base + at) return true;
  log.fail("rank ", rank, " output[", at, "] should be untouched, is ", c.describe());
  return false;
}

inline std::string context(const char* collective, const std::string& schedule, int p, const std::string& rest) {
  std::ostringstream o;
  o << "verify " << collective << "<" << schedule << "> p=" << p << rest;
  return o.str();
}

inline std::string describe_args(int root, std::size_t count, bool commutative, bool in_place) {
  std::ostringstream o;
  if (root >= 0) o << " root=" << root;
  o << " count=" << count << (commutative ? "" : " non-commutative") << (in_place ? " in-place" : "");
  return o.str();
}

}  // namespace detail

// ---- One function per collective: build every rank's plan, run, check ----
// `nodes`: the node layout the shapes carry, for node-aware schedules
// (schedule/hierarchical.hpp); none by default.

template <class S>
outcome bcast(int p, int root, std::size_t count, node_layout_ref nodes = {}) {
  using namespace detail;
  return run<S, bcast_shape>(
      context("bcast", schedule_name<S>(), p, describe_args(root, count, true, false)), p, true,
      [&](int r) { return bcast_shape{r, p, root, count, 1, nodes}; }, [&](int) { return separate(0, count); },
      [&](auto& m) {
        for (std::size_t i = 0; i < count; ++i) m.output(root, i) = cell::leaf(root, i);
      },
      [&](auto& m, failure_log& log) {
        for (int r = 0; r < p; ++r)
          for (std::size_t i = 0; i < count; ++i)
            if (!expect_leaf(m, log, r, i, root, i)) return;
      });
}

template <class S>
outcome reduce(int p, int root, std::size_t count, bool commutative = true, bool in_place = false,
               node_layout_ref nodes = {}) {
  using namespace detail;
  return run<S, reduce_shape>(
      context("reduce", schedule_name<S>(), p, describe_args(root, count, commutative, in_place)), p, commutative,
      [&](int r) { return reduce_shape{r, p, root, count, commutative, in_place && r == root, 1, nodes}; },
      [&](int r) {
        if (r != root) return separate(count, 0);
        return in_place ? input_in_output(count, count, 0) : separate(count, count);
      },
      [&](auto& m) {
        for (int r = 0; r < p; ++r) fill_input(m, r);
      },
      [&](auto& m, failure_log& log) {
        for (std::size_t i = 0; i < count; ++i)
          if (!expect_reduction(m, log, root, i, i, commutative)) return;
      });
}

template <class S>
outcome allreduce(int p, std::size_t count, bool commutative = true, bool in_place = false,
                  node_layout_ref nodes = {}) {
  using namespace detail;
  return run<S, allreduce_shape>(
      context("allreduce", schedule_name<S>(), p, describe_args(-1, count, commutative, in_place)), p, commutative,
      [&](int r) { return allreduce_shape{r, p, count, commutative, in_place, 8, nodes}; },
      [&](int) { return in_place ? input_in_output(count, count, 0) : separate(count, count); },
      [&](auto& m) {
        for (int r = 0; r < p; ++r) fill_input(m, r);
      },
      [&](auto& m, failure_log& log) {
        for (int r = 0; r < p; ++r)
          for (std::size_t i = 0; i < count; ++i) {
            if (!expect_reduction(m, log, r, i, i, commutative)) return;
            if (m.output(r, i).expr != m.output(0, i).expr)
              return log.fail("rank ", r, " output[", i, "] combines the contributions in another order than rank 0 ",
                              "(results would not be bit-identical across ranks)");
          }
      });
}

template <class S>
outcome gather(int p, int root, std::size_t count, bool in_place = false) {
  using namespace detail;
  const std::size_t all = count * static_cast<std::size_t>(p);
  return run<S, gather_shape>(
      context("gather", schedule_name<S>(), p, describe_args(root, count, true, in_place)), p, true,
      [&](int r) { return gather_shape{r, p, root, count, in_place && r == root}; },
      [&](int r) {
        if (r != root) return separate(count, 0);
        return in_place ? input_in_output(count, all, static_cast<std::size_t>(root) * count) : separate(count, all);
      },
      [&](auto& m) {
        for (int r = 0; r < p; ++r) fill_input(m, r);
      },
      [&](auto& m, failure_log& log) {
        for (int q = 0; q < p; ++q)
          for (std::size_t i = 0; i < count; ++i)
            if (!expect_leaf(m, log, root, static_cast<std::size_t>(q) * count + i, q, i)) return;
      });
}

/// counts/displs: the root's receive layout (counts[q] elements from rank q
/// at displs[q]); rank q sends counts[q] elements.
template <class S>
outcome gatherv(int p, int root, std::span<const std::size_t> counts, std::span<const std::size_t> displs,
                bool in_place = false) {
  using namespace detail;
  std::size_t extent = 0;
  for (int q = 0; q < p; ++q) extent = std::max(extent, displs[static_cast<std::size_t>(q)] + counts[static_cast<std::size_t>(q)]);
  const auto me = static_cast<std::size_t>(root);
  return run<S, gatherv_shape>(
      context("gatherv", schedule_name<S>(), p, describe_args(root, extent, true, in_place)), p, true,
      [&](int r) {
        return gatherv_shape{r, p, root, counts[static_cast<std::size_t>(r)], counts, displs, in_place && r == root};
      },
      [&](int r) {
        const std::size_t mine = counts[static_cast<std::size_t>(r)];
        if (r != root) return separate(mine, 0);
        return in_place ? input_in_output(mine, extent, displs[me]) : separate(mine, extent);
      },
      [&](auto& m) {
        for (int r = 0; r < p; ++r) fill_input(m, r);
      },
      [&](auto& m, failure_log& log) {
        std::vector<char> covered(extent, 0);
        for (int q = 0; q < p; ++q) {
          const auto j = static_cast<std::size_t>(q);
          for (std::size_t i = 0; i < counts[j]; ++i) {
            covered[displs[j] + i] = 1;
            if (!expect_leaf(m, log, root, displs[j] + i, q, i)) return;
          }
        }
        for (std::size_t i = 0; i < extent; ++i)
          if (!covered[i] && !expect_untouched(m, log, root, i)) return;
      });
}

template <class S>
outcome scatter(int p, int root, std::size_t count, bool in_place = false) {
  using namespace detail;
  const std::size_t all = count * static_cast<std::size_t>(p);
  return run<S, scatter_shape>(
      context("scatter", schedule_name<S>(), p, describe_args(root, count, true, in_place)), p, true,
      [&](int r) { return scatter_shape{r, p, root, count, in_place && r == root}; },
      [&](int r) {
        if (r != root) return separate(0, count);
        return in_place ? output_in_input(all, count, static_cast<std::size_t>(root) * count) : separate(all, count);
      },
      [&](auto& m) { fill_input(m, root); },
      [&](auto& m, failure_log& log) {
        for (int r = 0; r < p; ++r)
          for (std::size_t i = 0; i < count; ++i)
            if (!expect_leaf(m, log, r, i, root, static_cast<std::size_t>(r) * count + i)) return;
      });
}

template <class S>
outcome allgather(int p, std::size_t count, bool in_place = false, node_layout_ref nodes = {}) {
  using namespace detail;
  const std::size_t all = count * static_cast<std::size_t>(p);
  return run<S, allgather_shape>(
      context("allgather", schedule_name<S>(), p, describe_args(-1, count, true, in_place)), p, true,
      [&](int r) { return allgather_shape{r, p, count, in_place, 1, nodes}; },
      [&](int r) {
        return in_place ? input_in_output(count, all, static_cast<std::size_t>(r) * count) : separate(count, all);
      },
      [&](auto& m) {
        for (int r = 0; r < p; ++r) fill_input(m, r);
      },
      [&](auto& m, failure_log& log) {
        for (int r = 0; r < p; ++r)
          for (int q = 0; q < p; ++q)
            for (std::size_t i = 0; i < count; ++i)
              if (!expect_leaf(m, log, r, static_cast<std::size_t>(q) * count + i, q, i)) return;
      });
}

/// counts[q]: elements rank q contributes. Every rank's output holds the
/// blocks packed in rank order, or (`reversed`) in reverse rank order with one
/// element after each block that must stay untouched.
template <class S>
outcome allgatherv(int p, std::span<const std::size_t> counts, bool reversed = false, bool in_place = false) {
  using namespace detail;
  const auto P = static_cast<std::size_t>(p);
  std::vector<std::size_t> starts(P + 1, 0), displs(P);
  for (std::size_t q = 0; q < P; ++q) starts[q + 1] = starts[q] + counts[q];
  std::size_t extent = 0;
  for (std::size_t i = 0; i < P; ++i) {
    const std::size_t q = reversed ? P - 1 - i : i;
    displs[q] = extent;
    extent += counts[q] + (reversed ? 1 : 0);
  }
  std::ostringstream args;
  args << " counts=";
  for (std::size_t q = 0; q < P; ++q) args << (q ? "," : "") << counts[q];
  args << (reversed ? " reversed with gaps" : "") << (in_place ? " in-place" : "");
  return run<S, allgatherv_shape>(
      context("allgatherv", schedule_name<S>(), p, args.str()), p, true,
      [&](int r) {
        const std::size_t mine = counts[static_cast<std::size_t>(r)];
        return allgatherv_shape{r, p, mine, counts, displs, starts, in_place, 1, packed_in_rank_order(displs, starts)};
      },
      [&](int r) {
        const auto i = static_cast<std::size_t>(r);
        return in_place ? input_in_output(counts[i], extent, displs[i]) : separate(counts[i], extent);
      },
      [&](auto& m) {
        for (int r = 0; r < p; ++r) fill_input(m, r);
      },
      [&](auto& m, failure_log& log) {
        for (int r = 0; r < p; ++r) {
          std::vector<char> covered(extent, 0);
          for (std::size_t q = 0; q < P; ++q)
            for (std::size_t i = 0; i < counts[q]; ++i) {
              covered[displs[q] + i] = 1;
              if (!expect_leaf(m, log, r, displs[q] + i, static_cast<int>(q), i)) return;
            }
          for (std::size_t i = 0; i < extent; ++i)
            if (!covered[i] && !expect_untouched(m, log, r, i)) return;
        }
      });
}

template <class S>
outcome reduce_scatter_block(int p, std::size_t count, bool commutative = true, bool in_place = false) {
  using namespace detail;
  const std::size_t all = count * static_cast<std::size_t>(p);
  return run<S, reduce_scatter_block_shape>(
      context("reduce_scatter_block", schedule_name<S>(), p, describe_args(-1, count, commutative, in_place)), p,
      commutative, [&](int r) { return reduce_scatter_block_shape{r, p, count, commutative, in_place, 8}; },
      [&](int) { return in_place ? input_in_output(all, all, 0) : separate(all, count); },
      [&](auto& m) {
        for (int r = 0; r < p; ++r) fill_input(m, r);
      },
      [&](auto& m, failure_log& log) {
        for (int r = 0; r < p; ++r)
          for (std::size_t i = 0; i < count; ++i)
            if (!expect_reduction(m, log, r, i, static_cast<std::size_t>(r) * count + i, commutative)) return;
      });
}

template <class S>
outcome alltoall(int p, std::size_t count, bool in_place = false, node_layout_ref nodes = {}) {
  using namespace detail;
  const std::size_t all = count * static_cast<std::size_t>(p);
  return run<S, alltoall_shape>(
      context("alltoall", schedule_name<S>(), p, describe_args(-1, count, true, in_place)), p, true,
      [&](int r) { return alltoall_shape{r, p, count, in_place, 1, nodes}; },
      [&](int) { return in_place ? input_in_output(all, all, 0) : separate(all, all); },
      [&](auto& m) {
        for (int r = 0; r < p; ++r) fill_input(m, r);
      },
      [&](auto& m, failure_log& log) {
        for (int r = 0; r < p; ++r)
          for (int q = 0; q < p; ++q)
            for (std::size_t i = 0; i < count; ++i)
              if (!expect_leaf(m, log, r, static_cast<std::size_t>(q) * count + i, q,
                               static_cast<std::size_t>(r) * count + i))
                return;
      });
}

/// counts[i * p + j]: elements rank i sends to rank j. Displacements are
/// packed in order; with `gaps`, every block is followed by one element that
/// must stay untouched.
template <class S>
outcome alltoallv(int p, std::span<const std::size_t> counts, bool gaps = false, bool in_place = false) {
  using namespace detail;
  const auto P = static_cast<std::size_t>(p);
  // Per rank: send/recv counts and displacements.
  std::vector<std::vector<std::size_t>> sc(P), sd(P), rc(P), rd(P);
  std::vector<std::size_t> in_extent(P), out_extent(P);
  for (std::size_t i = 0; i < P; ++i) {
    std::size_t s_at = 0, r_at = 0;
    for (std::size_t j = 0; j < P; ++j) {
      sc[i].push_back(counts[i * P + j]);
      sd[i].push_back(s_at);
      s_at += counts[i * P + j] + (gaps ? 1 : 0);
      rc[i].push_back(counts[j * P + i]);
      rd[i].push_back(r_at);
      r_at += counts[j * P + i] + (gaps ? 1 : 0);
    }
    in_extent[i] = s_at;
    out_extent[i] = r_at;
  }
  if (in_place) {  // MPI_IN_PLACE: the send side is described by the receive side
    sc = rc;
    sd = rd;
    in_extent = out_extent;
  }
  std::ostringstream args;
  args << (gaps ? " with gaps" : "") << (in_place ? " in-place" : "");
  return run<S, alltoallv_shape>(
      context("alltoallv", schedule_name<S>(), p, args.str()), p, true,
      [&](int r) {
        const auto i = static_cast<std::size_t>(r);
        return alltoallv_shape{r, p, sc[i], sd[i], rc[i], rd[i], in_place};
      },
      [&](int r) {
        const auto i = static_cast<std::size_t>(r);
        return in_place ? input_in_output(out_extent[i], out_extent[i], 0) : separate(in_extent[i], out_extent[i]);
      },
      [&](auto& m) {
        for (int r = 0; r < p; ++r) fill_input(m, r);
      },
      [&](auto& m, failure_log& log) {
        for (std::size_t i = 0; i < P; ++i) {
          std::vector<char> covered(out_extent[i], 0);
          for (std::size_t j = 0; j < P; ++j)
            for (std::size_t e = 0; e < rc[i][j]; ++e) {
              covered[rd[i][j] + e] = 1;
              if (!expect_leaf(m, log, static_cast<int>(i), rd[i][j] + e, static_cast<int>(j), sd[j][i] + e)) return;
            }
          const int r = static_cast<int>(i);
          for (std::size_t e = 0; e < out_extent[i]; ++e) {
            if (covered[e]) continue;
            // Gaps keep what was there: garbage, or in place the rank's own data.
            if (in_place ? !expect_leaf(m, log, r, e, r, e) : !expect_untouched(m, log, r, e)) return;
          }
        }
      });
}

}  // namespace hpcoll::verify
