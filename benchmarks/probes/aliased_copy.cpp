// SPDX-License-Identifier: BSD-3-Clause
// Probe behind docs/performance.md ("memcpy at a page-aliased distance"):
// glibc's memcpy copies 2 KiB and more with `rep movsb`, which AMD Zen 3/4
// run many times slower when the destination lies 1 to 31 bytes past the
// source modulo 4 KiB, as it does between two heap vectors of a multiple of
// 4 KiB allocated one after the other. Two tables:
//   1. rank 0 alone: memcpy, hpcoll's copy_bytes (exec/copy_kernel.hpp) and
//      the kernel's copy between processes that MPI libraries' single-copy
//      transports use (process_vm_readv, here from rank 0 to itself) at
//      distances 0, 16 and 48 modulo a page (ns a copy, median of 5 means);
//   2. every rank: allgather, gather and scatter (hpcoll's free functions and
//      native MPI) on heap vectors allocated one after the other (their own
//      block copied at distance 16) and on page-aligned buffers (distance 0):
//      the slowest rank's mean per call, median of 5, µs.
//   mpiexec -n 2 --bind-to core build/benchmarks/probe_aliased_copy [--calls N]
#include <hpcoll/exec/copy_kernel.hpp>
#include <hpcoll/hpcoll.hpp>

#include <mpi.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "../options.hpp"
#include "../run_info.hpp"

namespace {

/// ns per copy of `bytes` from `from` to `to` by `copy`: the median of 5 means.
double copy_ns(void (*copy)(void*, const void*, std::size_t), std::byte* to, const std::byte* from,
               std::size_t bytes) {
  const int reps = static_cast<int>(std::max<std::size_t>(20, (std::size_t{64} << 20) / bytes));
  std::vector<double> samples;
  for (int s = 0; s < 5; ++s) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i) {
      copy(to, from, bytes);
      asm volatile("" ::: "memory");  // every copy happens
    }
    samples.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() / reps);
  }
  return hpcoll_bench::median(samples);
}

void copy_table() {
  constexpr std::size_t page = 4096, most = std::size_t{1} << 20;
  const std::unique_ptr<std::byte, decltype(&std::free)> mem(
      static_cast<std::byte*>(std::aligned_alloc(page, 4 * most)), std::free);
  std::memset(mem.get(), 1, 4 * most);
  const std::byte* from = mem.get();
  const auto plain = [](void* to, const void* src, std::size_t n) { std::memcpy(to, src, n); };
  const auto kernel = [](void* to, const void* src, std::size_t n) {
    iovec local{to, n}, remote{const_cast<void*>(src), n};
    if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != static_cast<ssize_t>(n)) std::memcpy(to, src, n);
  };
  std::printf("copies (rank 0; ns a copy)\n%9s %9s %12s %12s %16s\n", "bytes", "distance", "memcpy", "copy_bytes",
              "process_vm_readv");
  for (std::size_t bytes = 4096; bytes <= most; bytes *= 4)
    for (const std::size_t distance : {std::size_t{0}, std::size_t{16}, std::size_t{48}}) {
      std::byte* to = mem.get() + 2 * most + distance;
      std::printf("%9zu %9zu %12.1f %12.1f %16.1f\n", bytes, distance, copy_ns(plain, to, from, bytes),
                  copy_ns(hpcoll::detail::copy_bytes, to, from, bytes), copy_ns(kernel, to, from, bytes));
    }
}

/// Buffers of `in_elems` and `out_elems` ints: two heap vectors allocated one
/// after the other, or two page-aligned blocks.
struct call_buffers {
  using block = std::unique_ptr<int, decltype(&std::free)>;
  static block page_aligned_block(std::size_t elems) {
    return {static_cast<int*>(std::aligned_alloc(4096, (elems * sizeof(int) + 4095) / 4096 * 4096)), std::free};
  }
  call_buffers(std::size_t in_elems, std::size_t out_elems, bool page_aligned) {
    if (page_aligned) {
      aligned_in = page_aligned_block(in_elems), aligned_out = page_aligned_block(out_elems);
      in = {aligned_in.get(), in_elems}, out = {aligned_out.get(), out_elems};
    } else {
      heap_in.resize(in_elems), heap_out.resize(out_elems);
      in = heap_in, out = heap_out;
    }
    std::fill(in.begin(), in.end(), 1);
  }
  std::vector<int> heap_in, heap_out;
  block aligned_in{nullptr, std::free}, aligned_out{nullptr, std::free};
  std::span<int> in, out;
};

void collective_table(int calls) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const hpcoll::communicator c(MPI_COMM_WORLD);
  const auto p = static_cast<std::size_t>(size);
  if (rank == 0)
    std::printf("\ncollectives on %d ranks (µs a call; heap: vectors one after the other, aligned: page-aligned)\n"
                "%9s %-9s %-8s %9s %10s %10s\n", size, "bytes", "call", "buffers", "distance", "hpcoll", "native");
  const auto us_a_call = [&](const std::function<void()>& call) { return hpcoll_bench::median_call_us(call, calls); };
  // Rank 0's copy of its own block: from the input to the output's first block.
  const auto distance = [](std::span<int> to, std::span<int> from) {
    return (reinterpret_cast<std::uintptr_t>(to.data()) - reinterpret_cast<std::uintptr_t>(from.data())) % 4096;
  };
  for (std::size_t bytes = 4096; bytes <= 65536; bytes *= 4) {
    const std::size_t n = bytes / sizeof(int);
    const int count = static_cast<int>(n);
    for (const bool aligned : {false, true}) {
      // Allocated in the order a program would: the input, then the p-block output.
      call_buffers b(n, p * n, aligned);
      call_buffers s(p * n, n, aligned);
      const char* kind = aligned ? "aligned" : "heap";
      const auto row = [&](const char* call, std::uintptr_t d, double hp, double native) {
        if (rank == 0) std::printf("%9zu %-9s %-8s %9zu %10.2f %10.2f\n", bytes, call, kind, std::size_t{d}, hp, native);
      };
      row("allgather", distance(b.out, b.in), us_a_call([&] { hpcoll::allgather(c, std::span<const int>(b.in), b.out); }),
          us_a_call([&] { MPI_Allgather(b.in.data(), count, MPI_INT, b.out.data(), count, MPI_INT, MPI_COMM_WORLD); }));
      row("gather", distance(b.out, b.in), us_a_call([&] { hpcoll::gather(c, std::span<const int>(b.in), b.out, 0); }),
          us_a_call([&] { MPI_Gather(b.in.data(), count, MPI_INT, b.out.data(), count, MPI_INT, 0, MPI_COMM_WORLD); }));
      row("scatter", distance(s.out, s.in), us_a_call([&] { hpcoll::scatter(c, std::span<const int>(s.in), s.out, 0); }),
          us_a_call([&] { MPI_Scatter(s.in.data(), count, MPI_INT, s.out.data(), count, MPI_INT, 0, MPI_COMM_WORLD); }));
    }
  }
}

int run(int argc, char** argv) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int calls = 200;
  hpcoll_bench::command_line cl{"probe_aliased_copy", "usage: mpiexec -n P probe_aliased_copy [options]"};
  cl.options.add_options()("calls", hpcoll_bench::value_of(&calls, "N", hpcoll_bench::integer_in(1, 1000000000)),
                           "timed calls per sample (default 200)");
  if (const auto parsed = hpcoll_bench::parse_command_line(argc, argv, cl, rank == 0); parsed.exit) return *parsed.exit;
  if (rank == 0) {
    std::printf("this CPU %s page-aliased copies in blocks\n",
                hpcoll::detail::cpu_stalls_on_aliased_copies ? "takes" : "does not take");
    copy_table();
  }
  collective_table(calls);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return hpcoll_bench::run_main(argc, argv, "probe_aliased_copy", run); }
