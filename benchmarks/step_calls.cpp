// SPDX-License-Identifier: BSD-3-Clause
// hpcoll_step_calls: the collectives a step of apps/dijkstra makes, one by one,
// at any process count: an allreduce (minloc) of one (distance, vertex) pair,
// an alltoall of one count per rank, and the alltoallv of the relaxations,
// sparse (per call one rank sends a few to one or two others) or empty. Each
// is timed as the MPI library's own collective, as the same messages sent by
// hand with the cheapest calls (recursive doubling by MPI_Sendrecv, where the
// size is a power of two; every pair posted at once for the alltoall), as
// hpcoll's named schedules and as hpcoll's free function. Each trial times
// `--calls` calls of every method in turn (the slowest rank's mean); the
// table gives the median over `--trials` trials in ns and its ratio to the
// MPI library's. Every method's result is checked against the MPI library's
// before the timing.
//
//   mpiexec -n P --bind-to core hpcoll_step_calls [--calls N] [--trials N]
#include <hpcoll/hpcoll.hpp>

#include <array>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "options.hpp"
#include "run_info.hpp"

namespace {

namespace po = hpcoll_bench::po;
namespace S = hpcoll::schedule;

using pair = std::pair<std::uint64_t, std::uint64_t>;  // (distance, vertex), as the solver's

struct method {
  std::string name;
  std::function<void()> call;
};

struct collective {
  std::string name;
  std::vector<method> methods;        ///< the MPI library's first
  std::function<bool()> same_result;  ///< after one call of every method: all equal
  std::function<void()> rewind = [] {};  ///< before each method's call that same_result compares
};

/// The sparse exchange of call k: the sender, rank k mod p, sends 1 + k mod 3
/// relaxations (two words each) to rank sender + 1 + (k / p) mod (p - 1) and
/// one to the rank after that (mod p); every other block is empty.
struct sparse_exchange {
  int p, rank;
  long k = 0;
  std::vector<std::uint64_t> send_counts, send_displs, recv_counts, recv_displs;  // in words
  std::vector<int> native_counts[4];                                              // in relaxations
  std::vector<std::uint64_t> out = std::vector<std::uint64_t>(8, 0);

  sparse_exchange(int size, int me)
      : p(size), rank(me), send_counts(size), send_displs(size), recv_counts(size), recv_displs(size) {
    for (auto& v : native_counts) v.resize(static_cast<std::size_t>(size));
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<std::uint64_t>(100 * rank) + i;
  }

  /// The counts of the next call (every method draws its own, so that none
  /// replays one pattern while another meets new ones).
  void next() {
    ++k;
    const int sender = static_cast<int>(k % p), n = 1 + static_cast<int>(k % 3);
    const int first = (sender + 1 + static_cast<int>(k / p % (p > 1 ? p - 1 : 1))) % p, second = (first + 1) % p;
    std::fill(send_counts.begin(), send_counts.end(), 0);
    std::fill(recv_counts.begin(), recv_counts.end(), 0);
    if (rank == sender) {
      send_counts[static_cast<std::size_t>(first)] += 2 * static_cast<std::uint64_t>(n);
      send_counts[static_cast<std::size_t>(second)] += 2;
    }
    if (rank == first) recv_counts[static_cast<std::size_t>(sender)] += 2 * static_cast<std::uint64_t>(n);
    if (rank == second) recv_counts[static_cast<std::size_t>(sender)] += 2;
    std::uint64_t to = 0, from = 0;
    for (std::size_t r = 0; r < send_counts.size(); ++r) {
      send_displs[r] = to;
      recv_displs[r] = from;
      to += send_counts[r];
      from += recv_counts[r];
      const std::vector<std::uint64_t>* words[4] = {&send_counts, &send_displs, &recv_counts, &recv_displs};
      for (int i = 0; i < 4; ++i) native_counts[i][r] = static_cast<int>((*words[i])[r] / 2);
    }
  }
};

int run(int argc, char** argv) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int calls = 20000, trials = 11;
  hpcoll_bench::command_line cl{"hpcoll_step_calls", "usage: mpiexec -n P hpcoll_step_calls [options]"};
  cl.options.add_options()("calls", po::value(&calls)->value_name("N"), "calls per method and trial (default 20000)")(
      "trials", po::value(&trials)->value_name("N"), "trials; the table gives their median (default 11)");
  const auto parsed = hpcoll_bench::parse_command_line(argc, argv, cl, rank == 0, [&] {
    if (calls < 1 || trials < 1) throw std::invalid_argument("--calls and --trials must be positive");
  });
  if (parsed.exit) return *parsed.exit;

  const hpcoll::communicator c(MPI_COMM_WORLD);
  MPI_Comm raw = MPI_COMM_NULL;  // the by-hand messages get their own communicator, as hpcoll's do
  MPI_Comm_dup(MPI_COMM_WORLD, &raw);
  MPI_Datatype relaxation = MPI_DATATYPE_NULL;  // the solver's native alltoallv type
  MPI_Type_contiguous(2, MPI_UINT64_T, &relaxation);
  MPI_Type_commit(&relaxation);
  const auto P = static_cast<std::size_t>(size);
  const bool power_of_two = (size & (size - 1)) == 0;

  // Allreduce, minloc of one pair: the nearest vertex of the step.
  const std::array<pair, 1> nearest{{{1000u + static_cast<std::uint64_t>((rank * 7) % size), 1u + unsigned(rank)}}};
  struct {
    long distance;
    int vertex;
  } native_in{static_cast<long>(nearest[0].first), static_cast<int>(nearest[0].second)}, native_out{};
  std::array<std::array<pair, 1>, 3> minloc{};
  // Alltoall of one count per rank, and the sparse and empty alltoallv.
  std::vector<std::uint64_t> counts_out(P), counts_native(P), counts_in(P);
  for (std::size_t j = 0; j < P; ++j) counts_out[j] = 10 * static_cast<std::uint64_t>(rank) + j;
  std::array<std::vector<std::uint64_t>, 4> counts_got;
  for (auto& v : counts_got) v.resize(P);
  sparse_exchange sparse(size, rank);
  std::array<std::vector<std::uint64_t>, 3> sparse_got;
  for (auto& v : sparse_got) v.assign(8, 0);
  const std::vector<std::uint64_t> none(P, 0);
  const std::vector<int> native_none(P, 0);
  std::vector<std::uint64_t> empty_in(2), empty_out(2);
  std::vector<MPI_Request> requests(2 * P);

  const std::vector<collective> table{
      {"allreduce minloc 16 B",
       {{"native", [&] { MPI_Allreduce(&native_in, &native_out, 1, MPI_LONG_INT, MPI_MINLOC, MPI_COMM_WORLD); }},
        {power_of_two ? "by hand" : "",
         [&] {
           pair best = nearest[0], got{};
           for (int mask = 1; mask < size; mask <<= 1) {
             MPI_Sendrecv(&best, 2, MPI_UINT64_T, rank ^ mask, 0, &got, 2, MPI_UINT64_T, rank ^ mask, 0, raw,
                          MPI_STATUS_IGNORE);
             if (got < best) best = got;
           }
           minloc[0][0] = best;
         }},
        {"Allreduce<recursive_doubling>",
         [&] { hpcoll::Allreduce<S::recursive_doubling>{}(c, nearest, minloc[1], hpcoll::op::minloc{}); }},
        {"allreduce", [&] { hpcoll::allreduce(c, nearest, minloc[2], hpcoll::op::minloc{}); }}},
       [&] {
         const pair want{static_cast<std::uint64_t>(native_out.distance), static_cast<std::uint64_t>(native_out.vertex)};
         return (!power_of_two || minloc[0][0] == want) && minloc[1][0] == want && minloc[2][0] == want;
       }},
      {"alltoall 8 B blocks",
       {{"native",
         [&] {
           MPI_Alltoall(counts_out.data(), 1, MPI_UINT64_T, counts_native.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
         }},
        {"by hand",
         [&] {
           int n = 0;
           for (int i = 1; i < size; ++i) {
             const int from = (rank - i + size) % size;
             MPI_Irecv(&counts_got[0][static_cast<std::size_t>(from)], 1, MPI_UINT64_T, from, 0, raw, &requests[n++]);
           }
           for (int i = 1; i < size; ++i) {
             const int to = (rank + i) % size;
             MPI_Isend(&counts_out[static_cast<std::size_t>(to)], 1, MPI_UINT64_T, to, 0, raw, &requests[n++]);
           }
           counts_got[0][static_cast<std::size_t>(rank)] = counts_out[static_cast<std::size_t>(rank)];
           MPI_Waitall(n, requests.data(), MPI_STATUSES_IGNORE);
         }},
        {"Alltoall<linear>", [&] { hpcoll::Alltoall<S::linear>{}(c, counts_out, counts_got[1]); }},
        {"Alltoall<bruck>", [&] { hpcoll::Alltoall<S::bruck>{}(c, counts_out, counts_got[2]); }},
        {"alltoall", [&] { hpcoll::alltoall(c, counts_out, counts_got[3]); }}},
       [&] {
         for (const auto& got : counts_got)
           if (got != counts_native) return false;
         return true;
       }},
      {"alltoallv sparse",
       {{"native",
         [&] {
           sparse.next();
           std::fill(sparse_got[0].begin(), sparse_got[0].end(), 0);
           MPI_Alltoallv(sparse.out.data(), sparse.native_counts[0].data(), sparse.native_counts[1].data(), relaxation,
                         sparse_got[0].data(), sparse.native_counts[2].data(), sparse.native_counts[3].data(),
                         relaxation, MPI_COMM_WORLD);
         }},
        {"Alltoallv<linear>",
         [&] {
           sparse.next();
           std::fill(sparse_got[1].begin(), sparse_got[1].end(), 0);
           hpcoll::Alltoallv<S::linear>{}(c, sparse.out, sparse.send_counts, sparse.send_displs, sparse_got[1],
                                          sparse.recv_counts, sparse.recv_displs);
         }},
        {"alltoallv",
         [&] {
           sparse.next();
           std::fill(sparse_got[2].begin(), sparse_got[2].end(), 0);
           hpcoll::alltoallv(c, sparse.out, sparse.send_counts, sparse.send_displs, sparse_got[2],
                             sparse.recv_counts, sparse.recv_displs);
         }}},
       [&] { return sparse_got[1] == sparse_got[0] && sparse_got[2] == sparse_got[0]; },
       [&] { sparse.k = 0; }},
      {"alltoallv empty",
       {{"native",
         [&] {
           MPI_Alltoallv(empty_in.data(), native_none.data(), native_none.data(), relaxation, empty_out.data(),
                         native_none.data(), native_none.data(), relaxation, MPI_COMM_WORLD);
         }},
        {"alltoallv", [&] { hpcoll::alltoallv(c, empty_in, none, none, empty_out, none, none); }}},
       [] { return true; }},
  };

  if (rank == 0)
    std::printf("np %d; median of %d trials of %d calls each (slowest rank's mean), methods alternating\n"
                "%-22s %-30s %10s %8s\n",
                size, trials, calls, "collective", "method", "ns", "/native");
  int wrong = 0;
  for (const collective& coll : table) {
    // One call of each, on the same data, then compared.
    for (const method& m : coll.methods) {
      if (m.name.empty()) continue;
      coll.rewind();
      m.call();
    }
    int same = coll.same_result() ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &same, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!same) {
      if (rank == 0) std::fprintf(stderr, "hpcoll_step_calls: %s: a method's result differs from the MPI library's\n",
                                  coll.name.c_str());
      ++wrong;
      continue;
    }
    std::vector<std::vector<double>> times(coll.methods.size());
    // Warm up: decisions, recorded plans, MPI's paths.
    for (const method& m : coll.methods)
      if (!m.name.empty()) hpcoll_bench::slowest_mean_ns(m.call, calls / 10 + 1);
    for (int t = 0; t < trials; ++t)
      for (std::size_t m = 0; m < coll.methods.size(); ++m)
        if (!coll.methods[m].name.empty())
          times[m].push_back(hpcoll_bench::slowest_mean_ns(coll.methods[m].call, calls));
    const double native = hpcoll_bench::median(times[0]);
    for (std::size_t m = 0; m < coll.methods.size(); ++m) {
      if (coll.methods[m].name.empty() || rank != 0) continue;
      const double ns = hpcoll_bench::median(times[m]);
      std::printf("%-22s %-30s %10.1f %8.2f\n", coll.name.c_str(), coll.methods[m].name.c_str(), ns, ns / native);
    }
  }
  MPI_Type_free(&relaxation);
  MPI_Comm_free(&raw);
  return wrong == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return hpcoll_bench::run_main(argc, argv, "hpcoll_step_calls", run); }
