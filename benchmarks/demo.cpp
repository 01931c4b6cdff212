// SPDX-License-Identifier: BSD-3-Clause
// ./hpcoll demo: every collective with every schedule next to the native MPI
// call, at three message sizes. Each cell is the median over repetitions of
// the slowest rank's time for one call.
#include <hpcoll/hpcoll.hpp>

#include <boost/hana/for_each.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/type.hpp>

#include <mpi.h>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "options.hpp"
#include "run_info.hpp"

namespace hana = boost::hana;
namespace S = hpcoll::schedule;

namespace {

constexpr int repetitions = 15;
constexpr std::size_t sizes_bytes[] = {8, 64 * 1024, 1024 * 1024};

/// Median over repetitions of the maximum time across ranks, in microseconds.
double time_call(MPI_Comm comm, const std::function<void()>& call) {
  call();  // warm-up: allocations, connection setup
  std::vector<double> samples;
  for (int i = 0; i < repetitions; ++i) {
    MPI_Barrier(comm);
    const double t0 = MPI_Wtime();
    call();
    double elapsed = MPI_Wtime() - t0, slowest = 0;
    MPI_Allreduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
    samples.push_back(slowest * 1e6);
  }
  return hpcoll_bench::median(samples);
}

struct row {
  std::string name;
  std::vector<double> micros;
};

void print_table(const char* collective, const std::vector<row>& rows, int rank) {
  if (rank != 0) return;
  std::printf("\n%s\n  %-64s", collective, "schedule");
  for (std::size_t b : sizes_bytes) std::printf(" %12zu B", b);
  std::printf("\n");
  const row& native = rows.front();
  for (const row& r : rows) {
    std::printf("  %-64s", r.name.c_str());
    for (std::size_t i = 0; i < r.micros.size(); ++i) {
      const double ratio = r.micros[i] / native.micros[i];
      std::printf(" %8.1f us%s", r.micros[i], &r == &native ? "   " : (ratio <= 1.0 ? " *" : "  "));
    }
    std::printf("\n");
  }
}

/// Times `native(elements)` and, for each schedule of the list,
/// `hpc.template operator()<Schedule>(elements)` at every size.
template <class Schedules, class Native, class Hpcoll>
void compare(const char* collective, Schedules schedules, Native native, Hpcoll hpc, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::vector<row> rows{{"native MPI", {}}};
  for (std::size_t bytes : sizes_bytes) rows[0].micros.push_back(time_call(comm, [&] { native(bytes / sizeof(double)); }));
  hana::for_each(schedules, [&](auto s) {
    using Schedule = typename decltype(s)::type;
    row r{hpcoll::schedule_name<Schedule>(), {}};
    for (std::size_t bytes : sizes_bytes)
      r.micros.push_back(time_call(comm, [&] { hpc.template operator()<Schedule>(bytes / sizeof(double)); }));
    rows.push_back(std::move(r));
  });
  print_table(collective, rows, rank);
}

int run(int argc, char** argv) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  hpcoll_bench::command_line cl{"hpcoll_demo", "usage: mpiexec -n P hpcoll_demo   (./hpcoll demo: P = 4)"};
  cl.notes = "Prints, per collective, the median time of one call with every schedule and with the native MPI call "
             "at 8 B, 64 KiB and 1 MiB.\n";
  if (const auto parsed = hpcoll_bench::parse_command_line(argc, argv, cl, rank == 0); parsed.exit) return *parsed.exit;
  {
    hpcoll::communicator c(MPI_COMM_WORLD);
    const MPI_Comm world = MPI_COMM_WORLD;
    const int p = c.size();
    const auto P = static_cast<std::size_t>(p);
    const std::size_t max_elems = sizes_bytes[2] / sizeof(double);
    std::vector<double> a(max_elems * P, 1.0), b(max_elems * P, 0.0);
    std::vector<std::size_t> counts(P), displs(P);
    std::vector<int> native_counts(P), native_displs(P);
    if (c.rank() == 0)
      std::printf("hpcoll demo: %d ranks; median of %d calls, slowest rank; * = not slower than native MPI\n", p,
                  repetitions);

    compare(
        "bcast (buffer of the given size, root 0)",
        hana::tuple_t<S::automatic, S::linear, S::binomial, S::scatter_ring_allgather,
                      S::scatter_recursive_doubling_allgather>,
        [&](std::size_t n) { MPI_Bcast(a.data(), static_cast<int>(n), MPI_DOUBLE, 0, world); },
        [&]<class Sch>(std::size_t n) { hpcoll::Bcast<Sch>{}(c, std::span(a.data(), n), 0); }, world);
    compare(
        "reduce (sum of doubles, root 0)", hana::tuple_t<S::automatic, S::linear, S::binomial>,
        [&](std::size_t n) { MPI_Reduce(a.data(), b.data(), static_cast<int>(n), MPI_DOUBLE, MPI_SUM, 0, world); },
        [&]<class Sch>(std::size_t n) {
          hpcoll::Reduce<Sch>{}(c, std::span<const double>(a.data(), n), std::span(b.data(), n), hpcoll::op::sum{}, 0);
        },
        world);
    compare(
        "allreduce (sum of doubles)",
        hana::tuple_t<S::automatic, S::recursive_doubling, S::ring, S::segmented_ring<>, S::rabenseifner, S::linear,
                      S::reduce_bcast<S::binomial, S::binomial>>,
        [&](std::size_t n) { MPI_Allreduce(a.data(), b.data(), static_cast<int>(n), MPI_DOUBLE, MPI_SUM, world); },
        [&]<class Sch>(std::size_t n) {
          hpcoll::Allreduce<Sch>{}(c, std::span<const double>(a.data(), n), std::span(b.data(), n), hpcoll::op::sum{});
        },
        world);
    compare(
        "gather (size per rank, root 0)", hana::tuple_t<S::automatic, S::linear, S::linear_sync<4>, S::binomial>,
        [&](std::size_t n) {
          MPI_Gather(a.data(), static_cast<int>(n), MPI_DOUBLE, b.data(), static_cast<int>(n), MPI_DOUBLE, 0, world);
        },
        [&]<class Sch>(std::size_t n) {
          hpcoll::Gather<Sch>{}(c, std::span<const double>(a.data(), n),
                                std::span(b.data(), c.rank() == 0 ? n * P : 0), 0);
        },
        world);
    // Gatherv and alltoallv with equal blocks, so they compare with the fixed-size forms.
    auto set_counts = [&](std::size_t n) {
      for (std::size_t i = 0; i < P; ++i) {
        counts[i] = n;
        displs[i] = i * n;
        native_counts[i] = static_cast<int>(n);
        native_displs[i] = static_cast<int>(i * n);
      }
    };
    compare(
        "gatherv (size per rank, root 0)", hana::tuple_t<S::automatic, S::linear, S::linear_sync<4>>,
        [&](std::size_t n) {
          set_counts(n);
          MPI_Gatherv(a.data(), static_cast<int>(n), MPI_DOUBLE, b.data(), native_counts.data(), native_displs.data(),
                      MPI_DOUBLE, 0, world);
        },
        [&]<class Sch>(std::size_t n) {
          set_counts(n);
          hpcoll::Gatherv<Sch>{}(c, std::span<const double>(a.data(), n), std::span(b.data(), n * P), counts, displs, 0);
        },
        world);
    compare(
        "scatter (size per rank, root 0)", hana::tuple_t<S::automatic, S::linear, S::linear_sync<4>, S::binomial>,
        [&](std::size_t n) {
          MPI_Scatter(a.data(), static_cast<int>(n), MPI_DOUBLE, b.data(), static_cast<int>(n), MPI_DOUBLE, 0, world);
        },
        [&]<class Sch>(std::size_t n) {
          hpcoll::Scatter<Sch>{}(c, std::span<const double>(a.data(), c.rank() == 0 ? n * P : 0),
                                 std::span(b.data(), n), 0);
        },
        world);
    compare(
        "allgather (size per rank)", hana::tuple_t<S::automatic, S::linear, S::ring, S::recursive_doubling, S::bruck>,
        [&](std::size_t n) {
          MPI_Allgather(a.data(), static_cast<int>(n), MPI_DOUBLE, b.data(), static_cast<int>(n), MPI_DOUBLE, world);
        },
        [&]<class Sch>(std::size_t n) {
          hpcoll::Allgather<Sch>{}(c, std::span<const double>(a.data(), n), std::span(b.data(), n * P));
        },
        world);
    compare(
        "reduce_scatter_block (size per rank, sum)",
        hana::tuple_t<S::automatic, S::linear, S::ring, S::segmented_ring<>, S::recursive_halving>,
        [&](std::size_t n) {
          MPI_Reduce_scatter_block(a.data(), b.data(), static_cast<int>(n), MPI_DOUBLE, MPI_SUM, world);
        },
        [&]<class Sch>(std::size_t n) {
          hpcoll::ReduceScatterBlock<Sch>{}(c, std::span<const double>(a.data(), n * P), std::span(b.data(), n),
                                            hpcoll::op::sum{});
        },
        world);
    compare(
        "alltoall (size per block)", hana::tuple_t<S::automatic, S::linear, S::linear_sync<2>, S::pairwise, S::bruck>,
        [&](std::size_t n) {
          MPI_Alltoall(a.data(), static_cast<int>(n), MPI_DOUBLE, b.data(), static_cast<int>(n), MPI_DOUBLE, world);
        },
        [&]<class Sch>(std::size_t n) {
          hpcoll::Alltoall<Sch>{}(c, std::span<const double>(a.data(), n * P), std::span(b.data(), n * P));
        },
        world);
    compare(
        "alltoallv (size per block)", hana::tuple_t<S::automatic, S::linear, S::linear_sync<2>, S::pairwise>,
        [&](std::size_t n) {
          set_counts(n);
          MPI_Alltoallv(a.data(), native_counts.data(), native_displs.data(), MPI_DOUBLE, b.data(),
                        native_counts.data(), native_displs.data(), MPI_DOUBLE, world);
        },
        [&]<class Sch>(std::size_t n) {
          set_counts(n);
          hpcoll::Alltoallv<Sch>{}(c, std::span<const double>(a.data(), n * P), counts, displs,
                                   std::span(b.data(), n * P), counts, displs);
        },
        world);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return hpcoll_bench::run_main(argc, argv, "hpcoll_demo", run); }
