// Per-thread, grow-only storage for the executors' working sets, so a
// collective allocates only the first time it needs more than before.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <new>
#include <vector>

#include "../plan.hpp"

namespace hpcoll::detail {

/// Scratch memory for one running plan. The thread's pooled block is lent to
/// the first lease; a nested lease (a user op that calls a collective) gets a
/// block of its own.
class scratch_lease {
public:
  explicit scratch_lease(std::size_t bytes) {
    pool& p = thread_pool();
    if (!p.lent) {
      p.lent = true;
      owner_ = &p;
      if (p.capacity < bytes) {
        p.block.reset(static_cast<std::byte*>(::operator new(bytes, alignment)));
        p.capacity = bytes;
      }
      data_ = p.block.get();
    } else {
      own_.reset(static_cast<std::byte*>(::operator new(bytes ? bytes : 1, alignment)));
      data_ = own_.get();
    }
  }
  ~scratch_lease() {
    if (owner_) owner_->lent = false;
  }
  scratch_lease(const scratch_lease&) = delete;
  scratch_lease& operator=(const scratch_lease&) = delete;

  template <class T>
  T* as() const noexcept {
    return reinterpret_cast<T*>(data_);
  }

private:
  static constexpr std::align_val_t alignment{64};
  struct deleter {
    void operator()(std::byte* p) const noexcept { ::operator delete(p, alignment); }
  };
  using block_ptr = std::unique_ptr<std::byte, deleter>;
  struct pool {
    block_ptr block;
    std::size_t capacity = 0;
    bool lent = false;
  };
  static pool& thread_pool() {
    thread_local pool p;
    return p;
  }

  pool* owner_ = nullptr;
  block_ptr own_;
  std::byte* data_ = nullptr;
};

/// Reusable per-thread vectors for a round's steps and requests. Like the
/// scratch pool, a nested use takes fresh vectors.
struct round_workspace {
  std::vector<step> steps;
  std::vector<MPI_Request> requests;
};

class workspace_lease {
public:
  workspace_lease() {
    slot& s = thread_slot();
    if (!s.lent) {
      s.lent = true;
      owner_ = &s;
      ws_ = &s.ws;
    } else {
      ws_ = &own_;
    }
    ws_->steps.clear();
    ws_->requests.clear();
  }
  ~workspace_lease() {
    if (owner_) owner_->lent = false;
  }
  workspace_lease(const workspace_lease&) = delete;
  workspace_lease& operator=(const workspace_lease&) = delete;

  round_workspace& operator*() const noexcept { return *ws_; }
  round_workspace* operator->() const noexcept { return ws_; }

private:
  struct slot {
    round_workspace ws;
    bool lent = false;
  };
  static slot& thread_slot() {
    thread_local slot s;
    return s;
  }
  slot* owner_ = nullptr;
  round_workspace own_;
  round_workspace* ws_ = nullptr;
};

}  // namespace hpcoll::detail
