// hpcoll::machine — the parameters the cost model (select/cost.hpp) and the
// network simulator (analysis/simulate.hpp) price a schedule's plans with.
#pragma once

namespace hpcoll {

/// Hockney α-β-γ parameters plus the LogGP gap and overhead, in seconds and
/// seconds per byte. The defaults describe a generic cluster node pair
/// (2 µs latency, 10 GB/s links, 5 GB/s reduction, 10 GB/s copies); the
/// calibration program (`./hpcoll calibrate`) measures the machine at hand and
/// select/machine_file.hpp loads what it wrote.
struct machine {
  double alpha = 2e-6;    ///< latency of one message (LogGP L, plus the overheads in the Hockney model)
  double beta = 1e-10;    ///< per byte transferred (1 / bandwidth; LogGP G)
  double gamma = 2e-10;   ///< per byte combined by a reduction
  double gap = 2e-6;      ///< LogGP g: between consecutive messages one rank posts (gap = alpha: Hockney)
  double overhead = 0;    ///< LogGP o: CPU time per message at the sender and at the receiver
  double copy = 1e-10;    ///< per byte copied locally (packing, staging)

  friend constexpr bool operator==(const machine&, const machine&) = default;
};

}  // namespace hpcoll
