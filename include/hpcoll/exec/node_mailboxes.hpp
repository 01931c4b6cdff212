// SPDX-License-Identifier: BSD-3-Clause
// Small messages between ranks that share a node, through shared memory
// instead of the MPI library: per ordered pair of the node's ranks a ring of
// slots in a segment the node's ranks map (MPI_Win_allocate_shared). A
// sender copies a message into the next free slot and publishes it with a
// sequence number; its receiver waits for that number, copies the message
// out and frees the slot. No matching, no queues, no request objects: a
// message costs its two copies and the cache lines they move.
//
// Used by the blocking executor only (exec/executor.hpp): the collectives of
// a communicator run one at a time, so each pair's messages arrive in the
// order both ends' plans name them. Nonblocking operations, which may
// overlap, keep MPI and its tags. A message goes through shared memory when
// both ends are on the node and it fits a slot; both ends know both facts,
// so they always agree on the path.
//
// HPCOLL_SHARED_MEMORY=0 turns it off (1 or unset: on). The dispatcher's
// cost model prices these messages at the machine's mailbox rates
// (machine::mailbox_alpha, mailbox_beta; select/cost.hpp).
#pragma once

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#if defined(__linux__)
#include <sched.h>
#endif

#include "../communicator.hpp"
#include "../environment.hpp"
#include "../error.hpp"
#include "../mpi_call.hpp"
#include "../plan/plan.hpp"
#include "copy_kernel.hpp"

namespace hpcoll::detail {

/// A busy wait's pause: the CPU's spin hint, on a node with more ranks than
/// cores the core to others (the peer waited for may need it); and every
/// 1024 pauses the MPI library's progress (a peer may wait for this rank's
/// other messages) and, on any node, the core.
class spin_wait {
public:
  spin_wait(MPI_Comm comm, bool crowded) noexcept : comm_(comm), crowded_(crowded) {}
  void operator()() noexcept {
    if (++spins_ % 1024 == 0) {
      int flag = 0;
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &flag, MPI_STATUS_IGNORE);
      return yield();
    }
    if (crowded_) return yield();
    relax();
  }

private:
  static void yield() noexcept {
#if defined(__linux__)
    sched_yield();
#endif
  }
  static void relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
  }
  MPI_Comm comm_;
  bool crowded_;
  unsigned spins_ = 0;
};

/// The communicator service: its node's segment and where each pair's ring is.
class node_mailboxes final : public communicator_service {
public:
  /// Slots per ring: how far a sender may run ahead of its receiver
  /// (shared_message_bytes() sizes the segment for this many).
  static constexpr std::uint32_t slots = 16;

  explicit node_mailboxes(const communicator_facts& f) : comm_(f.comm), crowded_(f.ranks_per_core > 1) {
    if (!shared_memory_wanted()) return;
    // The ranks that share memory, as the MPI library sees them (a node
    // layout imposed for experiments, exec/topology.hpp, does not change
    // which ranks can map one segment).
    HPCOLL_MPI(MPI_Comm_split_type, f.comm, MPI_COMM_TYPE_SHARED, f.rank, MPI_INFO_NULL, &node_);
    int local = 0, locals = 1;
    HPCOLL_MPI(MPI_Comm_rank, node_, &local);
    HPCOLL_MPI(MPI_Comm_size, node_, &locals);
    if (locals == 1) {
      free_node();
      return;
    }

    payload_ = shared_message_bytes(locals);
    stride_ = (slot_header_bytes + payload_ + line_bytes - 1) / line_bytes * line_bytes;  // every slot on lines of its own
    const std::size_t ring_bytes = ring_header_bytes + slots * stride_;
    // Each rank holds the rings it receives on (near its own core).
    MPI_Info info;
    HPCOLL_MPI(MPI_Info_create, &info);
    HPCOLL_MPI(MPI_Info_set, info, "alloc_shared_noncontig", "true");
    std::byte* mine = nullptr;
    const int made = MPI_Win_allocate_shared(static_cast<MPI_Aint>(ring_bytes * static_cast<std::size_t>(locals)), 64,
                                             info, node_, &mine, &window_);
    MPI_Info_free(&info);
    if (made != MPI_SUCCESS) {
      window_ = MPI_WIN_NULL;
      free_node();
      throw error("", "", concat({"MPI_Win_allocate_shared failed: ", mpi_error_string(made),
                                  " (HPCOLL_SHARED_MEMORY=0 sends every message through MPI)"}),
                  made);
    }
    HPCOLL_MPI(MPI_Win_set_errhandler, window_, MPI_ERRORS_RETURN);
    std::memset(mine, 0, ring_bytes * static_cast<std::size_t>(locals));

    // Communicator rank of each node rank, and the rings by communicator rank.
    std::vector<int> world(static_cast<std::size_t>(locals));
    HPCOLL_MPI(MPI_Allgather, &f.rank, 1, MPI_INT, world.data(), 1, MPI_INT, node_);
    out_.assign(static_cast<std::size_t>(f.size), nullptr);
    in_.assign(static_cast<std::size_t>(f.size), nullptr);
    sent_.assign(static_cast<std::size_t>(f.size), 0);
    received_.assign(static_cast<std::size_t>(f.size), 0);
    consumed_seen_.assign(static_cast<std::size_t>(f.size), 0);
    // A round sends and receives at most one message per peer in most plans:
    // room for that now, so that no later call allocates.
    pending.reserve(2 * static_cast<std::size_t>(locals));
    for (int j = 0; j < locals; ++j) {
      if (j == local) continue;
      MPI_Aint size = 0;
      int unit = 0;
      std::byte* base = nullptr;
      HPCOLL_MPI(MPI_Win_shared_query, window_, j, &size, &unit, &base);
      const auto peer = static_cast<std::size_t>(world[static_cast<std::size_t>(j)]);
      out_[peer] = base + static_cast<std::size_t>(local) * ring_bytes;  // its ring from this rank
      in_[peer] = mine + static_cast<std::size_t>(j) * ring_bytes;       // this rank's ring from it
    }
    std::atomic_thread_fence(std::memory_order_seq_cst);
    HPCOLL_MPI(MPI_Barrier, node_);  // every ring cleared before any is used
    active_ = true;
  }
  ~node_mailboxes() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    if (window_ != MPI_WIN_NULL) MPI_Win_free(&window_);
    free_node();
  }
  node_mailboxes(const node_mailboxes&) = delete;
  node_mailboxes& operator=(const node_mailboxes&) = delete;

  /// Whether any pair of this rank's communicator shares a segment.
  bool active() const noexcept { return active_; }

  /// Whether a message of `bytes` to or from `peer` goes through shared memory.
  [[gnu::always_inline]] bool carries(int peer, std::size_t bytes) const noexcept {
    return bytes <= payload_ && out_[static_cast<std::size_t>(peer)] != nullptr;
  }

  /// Copies a message into peer's ring when a slot is free; false when not
  /// (nothing done). `bytes` 0 is a notice (see round_runner).
  bool try_send(int peer, const void* data, std::size_t bytes) noexcept {
    const auto p = static_cast<std::size_t>(peer);
    const std::uint32_t n = sent_[p];
    if (n - consumed_seen_[p] >= slots) {
      consumed_seen_[p] = consumed(out_[p]).load(std::memory_order_acquire);
      if (n - consumed_seen_[p] >= slots) return false;
    }
    std::byte* slot = slot_of(out_[p], n);
    // The receiver polls the slot's first line: write the lines after it
    // first, then the first line's payload and header together, so that the
    // polling takes that line from this core once per message, not at each
    // store to it.
    const auto* from = static_cast<const std::byte*>(data);
    if (bytes > first_line_payload)
      copy_bytes(slot + line_bytes, from + first_line_payload, bytes - first_line_payload);
    if (bytes) std::memcpy(slot + slot_header_bytes, from, std::min(bytes, first_line_payload));
    header_word(slot).store(std::uint64_t{bytes} << 32 | (n + 1), std::memory_order_release);
    sent_[p] = n + 1;
    return true;
  }

  /// Copies the next message from peer into `data` when it has arrived;
  /// false when not. `received` is the size the sender sent: `bytes`, 0 for
  /// a notice, anything else when the ranks' counts disagree (then at most
  /// `bytes` are copied).
  bool try_receive(int peer, void* data, std::size_t bytes, std::size_t& received) noexcept {
    const auto p = static_cast<std::size_t>(peer);
    const std::uint32_t n = received_[p];
    std::byte* ring = in_[p];
    std::byte* slot = slot_of(ring, n);
    // A message of two lines: ask for the second while waiting for the
    // first, so that the two cross from the sender's core together.
    if (bytes > first_line_payload && bytes <= first_line_payload + line_bytes) __builtin_prefetch(slot + line_bytes);
    const std::uint64_t word = header_word(slot).load(std::memory_order_acquire);
    if (static_cast<std::uint32_t>(word) != n + 1) return false;
    received = word >> 32;
    if (received) copy_bytes(data, slot + slot_header_bytes, std::min(bytes, received));
    consumed(ring).store(n + 1, std::memory_order_release);
    received_[p] = n + 1;
    return true;
  }

  /// try_send until it succeeds.
  void send(int peer, const void* data, std::size_t bytes) noexcept {
    spin_wait pause = waiter();
    while (!try_send(peer, data, bytes)) pause();
  }
  /// try_receive until it succeeds; the size received.
  std::size_t receive(int peer, void* data, std::size_t bytes) noexcept {
    std::size_t received = 0;
    spin_wait pause = waiter();
    while (!try_receive(peer, data, bytes, received)) pause();
    return received;
  }

  spin_wait waiter() const noexcept { return {comm_, crowded_}; }

  /// The round's messages through shared memory still to do (the executor's
  /// working list, kept here so that a call allocates nothing).
  struct pending_message {
    const step* s;
    bool is_send;
  };
  std::vector<pending_message> pending;

private:
  static constexpr std::size_t ring_header_bytes = 64;  ///< the receiver's count of messages consumed
  /// A slot: one word, the size above the sequence number (n + 1 once
  /// message n is in the slot; read and written atomically, as one), then
  /// the payload on the same cache line (a small message moves one line).
  static constexpr std::size_t slot_header_bytes = 8;
  static constexpr std::size_t line_bytes = 64;
  static constexpr std::size_t first_line_payload = line_bytes - slot_header_bytes;
  static_assert(std::atomic_ref<std::uint64_t>::is_always_lock_free &&
                std::atomic_ref<std::uint64_t>::required_alignment <= line_bytes);

  static std::atomic_ref<std::uint32_t> consumed(std::byte* ring) noexcept {
    return std::atomic_ref(*reinterpret_cast<std::uint32_t*>(ring));
  }
  static std::atomic_ref<std::uint64_t> header_word(std::byte* slot) noexcept {
    return std::atomic_ref(*reinterpret_cast<std::uint64_t*>(slot));
  }
  std::byte* slot_of(std::byte* ring, std::uint32_t n) const noexcept {
    return ring + ring_header_bytes + (n % slots) * stride_;
  }

  void free_node() noexcept {
    if (node_ != MPI_COMM_NULL) MPI_Comm_free(&node_);
  }

  MPI_Comm comm_;
  bool crowded_;
  bool active_ = false;
  MPI_Comm node_ = MPI_COMM_NULL;
  MPI_Win window_ = MPI_WIN_NULL;
  std::size_t payload_ = 0;
  std::size_t stride_ = 0;
  /// By communicator rank: the ring to it and the ring from it (null: not on the node).
  std::vector<std::byte*> out_, in_;
  std::vector<std::uint32_t> sent_, received_, consumed_seen_;  ///< by communicator rank
};

/// The communicator's mailboxes for a blocking call, or null when it has
/// none (one rank per node, or turned off). The first call on a
/// communicator sets them up: a collective operation, as every blocking call is.
inline node_mailboxes* mailboxes_of(const communicator& c) {
  node_mailboxes& boxes = c.service<node_mailboxes>();
  return boxes.active() ? &boxes : nullptr;
}

}  // namespace hpcoll::detail
