// The multicast side of a communicator: a second private duplicate, because a
// multicast receive accepts messages from any rank at any time and must never
// meet a collective's messages, and what the ranks' multicasts share.
#pragma once

#include <mpi.h>

#include <memory>
#include <mutex>

namespace hpcoll::detail {

/// The receive engine of a communicator (hpcoll/mcast.hpp), made on first use.
class mcast_inbox_base {
public:
  virtual ~mcast_inbox_base() = default;
};

struct mcast_channel {
  MPI_Comm comm = MPI_COMM_NULL;
  int tag_span = 32767;
  std::mutex mutex;  ///< guards what follows
  unsigned long long sent = 0;  ///< multicasts this rank has started as master
  std::unique_ptr<mcast_inbox_base> inbox;
};

}  // namespace hpcoll::detail
