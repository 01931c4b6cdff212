// SPDX-License-Identifier: BSD-3-Clause
// hpcoll::machine — the parameters the cost model (select/cost.hpp) and the
// network simulator (analysis/simulate.hpp) price a schedule's plans with.
#pragma once

#include <cstddef>

namespace hpcoll {

/// Hockney α-β-γ parameters plus the LogGP gap and overhead, the transport's
/// protocol change, in-cache rates and the cost of a crowded node, in seconds,
/// seconds per byte and bytes. The defaults describe shared memory on a common
/// multi-core machine (Open MPI's shared-memory transport on x86-64): each is
/// the rounded mean of `./hpcoll calibrate` on two such machines, an Intel
/// Xeon and an AMD EPYC (docs/calibration.md, "The built-in defaults"). The
/// calibration program measures the machine at hand and
/// select/machine_file.hpp loads what it wrote.
struct machine {
  double alpha = 0.4e-6;      ///< latency of one message (LogGP L, plus the overheads in the Hockney model)
  double beta = 1.2e-10;      ///< per byte transferred (1 / bandwidth; LogGP G)
  double gamma = 1.2e-10;     ///< per byte combined by a reduction, vectors beyond the caches
  double gap = 0.07e-6;       ///< LogGP g: between consecutive messages one rank posts (gap = alpha: Hockney)
  double overhead = 0.05e-6;  ///< LogGP o: CPU time per message at the sender and at the receiver
  double copy = 1.2e-10;      ///< per byte copied locally (packing, staging), beyond the caches

  /// Messages of more than eager_bytes go by the transport's rendezvous
  /// protocol: a handshake before the data, `rendezvous` seconds each.
  std::size_t eager_bytes = 4040;
  double rendezvous = 1.5e-6;
  /// Rendezvous messages are copied once, by the receiver, straight out of the
  /// sender's memory (shared memory with single-copy transfers: CMA, XPMEM,
  /// KNEM): a rank's rendezvous sends cost it the handshake but not the bytes,
  /// so a root sending to many is bound by its receivers' copies, not its own.
  /// false: the sender's link carries every byte it sends (a network, a
  /// two-copy transport).
  bool receiver_copies = true;
  /// A round that reduces, or copies, at most cache_bytes works in cache, at
  /// these rates per byte.
  std::size_t cache_bytes = 1 << 20;
  double gamma_cached = 3e-11;
  double copy_cached = 2e-11;
  /// More ranks than cores: what a message costs more when its two ranks
  /// share one core (one gets it only when the other yields), per other rank on the core.
  double switch_time = 1.3e-6;

  /// Ranks per core on the most crowded node of the communicator: not a
  /// property of the machine but of the placement (communicator::ranks_per_core());
  /// the dispatcher sets it, 1 describes ranks with a core each.
  double ranks_per_core = 1;

  /// Between nodes, for a communicator that spans several (a node layout is
  /// given next to the machine: docs/hierarchy.md). The fields above describe
  /// messages inside a node; a message between two nodes costs inter_alpha
  /// and inter_beta per byte of one rank's stream, and its bytes pass both
  /// nodes' network ports, which all ranks of a node share: port_beta per
  /// byte. Defaults: a 100 Gbit/s network (InfiniBand HDR class), 2 µs
  /// latency, one rank's stream at 10 GB/s — typical values, not measured here.
  double inter_alpha = 2e-6;
  double inter_beta = 1e-10;
  double port_beta = 8e-11;

  /// Per byte a rank's memory gives out to receivers copying from it: the
  /// copies of several receivers out of one sender share its memory's
  /// bandwidth, so a rank serving k rendezvous messages of S bytes at once
  /// takes k·S·source_beta (with receiver_copies, ranks with a core each;
  /// without, its link's β). Declared last: positional initializers keep
  /// their meaning.
  double source_beta = 0.09e-9;

  /// Per byte a message of at most eager_bytes costs its receiver beyond β:
  /// the transport copies it into its shared buffers and the receiver out of
  /// them, where a rendezvous message is copied once. The two machines behind
  /// the defaults differ too much here (0.02 and 0.35 ns/B, docs/calibration.md)
  /// for a mean to fit either: the built-in model prices every byte alike,
  /// a machine file gives the measured value. Declared last, as source_beta.
  double eager_copy = 0;

  /// A blocking call sends a message of at most mailbox_bytes to a rank of
  /// its own node through the node's shared-memory mailboxes
  /// (exec/node_mailboxes.hpp), not the MPI library: mailbox_alpha each and
  /// mailbox_beta a byte (copied into a slot and out of it). mailbox_bytes is
  /// not a property of the machine but of the call (the dispatcher sets it,
  /// as ranks_per_core); 0: every message goes through MPI. The defaults, as
  /// the others: the mean of `./hpcoll calibrate` on the two machines of
  /// docs/calibration.md. Declared last, as source_beta.
  std::size_t mailbox_bytes = 0;
  double mailbox_alpha = 0.11e-6;
  double mailbox_beta = 0.17e-9;

  /// What the cost model charges a rendezvous handshake: `rendezvous`, but
  /// not below the largest eager message's extra cost, so that no message is
  /// priced below a smaller one.
  constexpr double handshake() const {
    const double eager_extra = static_cast<double>(eager_bytes) * eager_copy;
    return eager_copy > 0 && eager_extra > rendezvous ? eager_extra : rendezvous;
  }

  friend constexpr bool operator==(const machine&, const machine&) = default;
};

}  // namespace hpcoll
