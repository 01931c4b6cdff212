// The blocking MPI executor: runs a plan round by round with nonblocking
// point-to-point messages.
#pragma once

#include <mpi.h>

#include <climits>
#include <cstddef>
#include <cstdlib>
#include <cstring>

#include "../datatype.hpp"
#include "../plan.hpp"
#include "arena.hpp"
#include "mpi.hpp"
#include "reduce_kernel.hpp"

namespace hpcoll::detail {

/// Largest message the executor hands to MPI in one call. MPI counts are int
/// and some transports mishandle messages near 2 GiB, so larger regions travel
/// as several messages of at most this many bytes (both sides cut the same
/// way). HPCOLL_MAX_MESSAGE_BYTES lowers it, which lets tests exercise the split.
inline std::size_t max_message_bytes() {
  static const std::size_t limit = [] {
    std::size_t bytes = std::size_t{1} << 30;
    if (const char* env = std::getenv("HPCOLL_MAX_MESSAGE_BYTES")) {
      const long long v = std::atoll(env);
      if (v > 0) bytes = static_cast<std::size_t>(v);
    }
    return bytes;
  }();
  return limit;
}

template <class T>
std::size_t max_message_elems() {
  const std::size_t n = max_message_bytes() / sizeof(T);
  return n == 0 ? 1 : (n > static_cast<std::size_t>(INT_MAX) ? static_cast<std::size_t>(INT_MAX) : n);
}

/// The three buffers a plan names, resolved to memory.
template <class T>
struct buffers {
  const T* input = nullptr;
  T* output = nullptr;
  T* scratch = nullptr;

  T* at(const region& r) const {
    switch (r.buf) {
      case buffer::input: return const_cast<T*>(input) + r.offset;  // plans never write input
      case buffer::output: return output + r.offset;
      case buffer::scratch: return scratch + r.offset;
    }
    return nullptr;
  }
};

/// Runs `plan` on this rank. `comm` and `tag` must be the same on every rank
/// of the call, and every rank must run the plan of its own shape.
template <class T, class Op, class Plan>
void execute_mpi(MPI_Comm comm, int tag, const Plan& plan, const T* input, T* output, const Op& op) {
  const MPI_Datatype type = datatype_of<T>();
  const std::size_t chunk = max_message_elems<T>();
  const thread_lease<scratch_block> scratch;
  const buffers<T> mem{input, output, scratch->reserve<T>(plan.scratch_elems())};
  const thread_lease<round_workspace> ws;
  auto& steps = ws->steps;
  auto& requests = ws->requests;

  auto post = [&](const step& s, bool is_send) {
    const region& r = is_send ? s.a : s.landing();
    T* base = mem.at(r);
    for (std::size_t done = 0; done < r.count; done += chunk) {
      const int n = static_cast<int>(r.count - done < chunk ? r.count - done : chunk);
      MPI_Request& req = requests.emplace_back();
      if (is_send)
        HPCOLL_MPI(MPI_Isend, base + done, n, type, s.peer, tag, comm, &req);
      else
        HPCOLL_MPI(MPI_Irecv, base + done, n, type, s.peer, tag, comm, &req);
    }
  };

  const int rounds = plan.rounds();
  for (int r = 0; r < rounds; ++r) {
    steps.clear();
    requests.clear();
    plan.round(r, [&](const step& s) { steps.push_back(s); });
    if (steps.empty()) continue;

    for (const step& s : steps)
      if (s.kind == step_kind::recv || s.kind == step_kind::recv_reduce) post(s, false);
    for (const step& s : steps) {
      if (s.kind == step_kind::copy) {
        T* to = mem.at(s.dst);
        const T* from = mem.at(s.a);
        if (to != from && s.dst.count) std::memcpy(static_cast<void*>(to), from, s.dst.count * sizeof(T));
      } else if (s.kind == step_kind::reduce) {
        combine(mem.at(s.dst), mem.at(s.a), mem.at(s.b), s.dst.count, op);
      }
    }
    for (const step& s : steps)
      if (s.kind == step_kind::send) post(s, true);
    if (!requests.empty())
      HPCOLL_MPI(MPI_Waitall, static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
    for (const step& s : steps) {
      if (s.kind != step_kind::recv_reduce) continue;
      const T* incoming = mem.at(s.a);
      const T* other = mem.at(s.b);
      if (s.incoming_left)
        combine(mem.at(s.dst), incoming, other, s.dst.count, op);
      else
        combine(mem.at(s.dst), other, incoming, s.dst.count, op);
    }
  }
}

}  // namespace hpcoll::detail
