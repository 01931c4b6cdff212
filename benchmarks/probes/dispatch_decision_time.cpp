// How long one dispatcher decision takes (every candidate priced by the cost
// model), for allreduce and alltoall at growing p: the figures behind "Large p"
// in docs/dispatch.md. No MPI is started; the decision is made once per call
// class in real runs.
//
//   build/benchmarks/probe_dispatch_decision_time
#include <hpcoll/hpcoll.hpp>

#include <chrono>
#include <cstdio>

int main() {
  using clock = std::chrono::steady_clock;
  const auto ms = [](clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); };
  for (const int p : {8, 64, 256, 1024, 4096}) {
    const auto t0 = clock::now();
    const auto allreduce = hpcoll::decide(hpcoll::allreduce_shape{0, p, 1 << 20, true, false, 4}, hpcoll::machine{},
                                          nullptr, nullptr);
    const auto t1 = clock::now();
    const auto alltoall = hpcoll::decide(hpcoll::alltoall_shape{0, p, 256, false, 4}, hpcoll::machine{}, nullptr, nullptr);
    const auto t2 = clock::now();
    std::printf("p = %5d  allreduce 4 MiB: %9.3f ms (%s)  alltoall 256 x 4 B blocks: %9.3f ms (%s)\n", p,
                ms(t1 - t0), allreduce.schedule().c_str(), ms(t2 - t1), alltoall.schedule().c_str());
  }
}
