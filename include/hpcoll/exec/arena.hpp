// SPDX-License-Identifier: BSD-3-Clause
// Per-thread, grow-only storage for the executors' working sets, so a
// collective allocates only the first time it needs more than before.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <new>
#include <vector>

#include "../plan/plan.hpp"

namespace hpcoll::detail {

/// Lends the calling thread's pooled Resource to its first borrower; a nested
/// borrower (a user op that calls a collective) gets a fresh one of its own.
/// Inlined: the replay of a recorded plan with scratch borrows on every call.
template <class Resource>
class thread_lease {
public:
  [[gnu::always_inline]] thread_lease() {
    slot& s = thread_slot();
    if (!s.lent) {
      s.lent = true;
      owner_ = &s;
      resource_ = &s.resource;
    } else {
      own_ = std::make_unique<Resource>();
      resource_ = own_.get();
    }
  }
  [[gnu::always_inline]] ~thread_lease() {
    if (owner_) owner_->lent = false;
  }
  thread_lease(const thread_lease&) = delete;
  thread_lease& operator=(const thread_lease&) = delete;

  Resource& operator*() const noexcept { return *resource_; }
  Resource* operator->() const noexcept { return resource_; }

private:
  struct slot {
    Resource resource;
    bool lent = false;
  };
  static slot& thread_slot() {
    thread_local slot s;
    return s;
  }
  slot* owner_ = nullptr;
  std::unique_ptr<Resource> own_;
  Resource* resource_ = nullptr;
};

/// Raw, 64-byte aligned scratch memory that only grows (reserve is
/// inlined: a repeated call finds it large enough).
class scratch_block {
public:
  template <class T>
  [[gnu::always_inline]] T* reserve(std::size_t elems) {
    const std::size_t bytes = elems * sizeof(T);
    if (capacity_ < bytes) [[unlikely]]
      grow(bytes);
    return reinterpret_cast<T*>(block_.get());
  }

private:
  [[gnu::noinline]] void grow(std::size_t bytes) {
    block_.reset(static_cast<std::byte*>(::operator new(bytes, alignment)));
    capacity_ = bytes;
  }

  static constexpr std::align_val_t alignment{64};
  struct deleter {
    void operator()(std::byte* p) const noexcept { ::operator delete(p, alignment); }
  };
  std::unique_ptr<std::byte, deleter> block_;
  std::size_t capacity_ = 0;
};

/// A round's steps, requests and their statuses.
struct round_workspace {
  std::vector<step> steps;
  std::vector<MPI_Request> requests;
  std::vector<MPI_Status> statuses;
};

}  // namespace hpcoll::detail
