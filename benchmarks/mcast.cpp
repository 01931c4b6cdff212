// SPDX-License-Identifier: BSD-3-Clause
// hpcoll_mcast: the dynamic multicast (hpcoll::Mcast) next to what a
// user does with MPI to reach a group of ranks.
//
//   mpiexec -n P hpcoll_mcast [--methods=a,b,...] [--sizes=LIST|MIN:MAX] [--runs=N] [--warmup=W]
//                             [--trim=F] [--quick] [--out=FILE.json]
//   (./hpcoll bench --mcast runs it through benchmarks/mcast_report.py)
//
// The master is rank 0. Groups of r members, r = p/8, p/4, p/2 (those >= 1,
// without repeats) and r = p-1 ("all workers"): member i = (i+1)(p/r) - 1 for
// i < r, i.e. every (p/r)-th rank (all workers: ranks 1..p-1). p = 8:
// {7}, {3,7}, {1,3,5,7}, {1..7}.
//
// Methods (the master's data reaches every member, and the master learns that
// it has):
//   bcast_prepared         MPI_Bcast on a communicator of exactly {master} u
//                          members made in advance (MPI_Comm_create_group),
//                          then the ack: MPI_Reduce of one int to the master
//   create_group_bcast     a group that changes every time, group ranks only:
//                          MPI_Comm_create_group + MPI_Bcast + the ack +
//                          MPI_Comm_free (the MPI_Group, like hpcoll's
//                          rank_set, is made in advance)
//   split_bcast            the same with MPI_Comm_split on MPI_COMM_WORLD
//                          (every rank calls it; others pass MPI_UNDEFINED)
//   hpcoll_bcast_prepared  hpcoll::bcast + hpcoll::reduce of one int on an
//                          hpcoll::communicator made in advance over the
//                          prepared communicator
//   mcast                  hpcoll::Mcast<schedule::automatic>: the master
//                          waits for the request (the last ack); members call
//                          hpcoll::mcast_recv with a buffer of exactly the size
//   mcast_binomial, mcast_scatter_ring, mcast_scatter_rd, mcast_linear
//                          Mcast with schedule binomial, scatter_ring_allgather,
//                          scatter_recursive_doubling_allgather, linear forced
// The hpcoll::communicator over MPI_COMM_WORLD and every prepared
// communicator are made once, outside the timing.
//
// Timing: the master's view, std::chrono::steady_clock from the master's call
// until it knows every member has the data (the ack; for the methods that
// make a communicator, until that is freed again). An MPI_Barrier on
// MPI_COMM_WORLD before every run, outside the timed region, keeps the ranks
// in step. Per (r, size) each method runs `warmup` untimed runs, then `runs`
// timed runs, the methods interleaved run by run (in a new random order each
// run) so machine noise hits them alike. Reported per (method, r, size): the
// trimmed mean (the `trim` fraction dropped at each end of the sorted times),
// the median and the minimum.
//
// Verification: before each method's first warm-up run the master fills its
// data with a pattern of that method and the members clear their buffers;
// after that run every member checks the pattern and the master the ack
// (the reduced int equals the group size; a multicast's wait() raises when a
// member failed). "verified" in the JSON; a failed check makes the exit
// status 1.
#include <mpi.h>

#include <hpcoll/hpcoll.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <numeric>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "json_out.hpp"
#include "options.hpp"
#include "run_info.hpp"

namespace {

using hpcoll_bench::median;
using hpcoll_bench::mpi_library_version;
using hpcoll_bench::utc_now;

namespace json = hpcoll_bench::json;
namespace S = hpcoll::schedule;
using clock_type = std::chrono::steady_clock;

double since(clock_type::time_point t0) { return std::chrono::duration<double>(clock_type::now() - t0).count(); }

// ---------------------------------------------------------------------------
// Methods

enum class method : std::uint8_t {
  bcast_prepared,
  create_group_bcast,
  split_bcast,
  hpcoll_bcast_prepared,
  mcast,
  mcast_binomial,
  mcast_scatter_ring,
  mcast_scatter_rd,
  mcast_linear,
};
constexpr std::array all_methods{method::bcast_prepared, method::create_group_bcast, method::split_bcast,
                                 method::hpcoll_bcast_prepared, method::mcast, method::mcast_binomial,
                                 method::mcast_scatter_ring, method::mcast_scatter_rd, method::mcast_linear};

const char* method_name(method m) {
  switch (m) {
    case method::bcast_prepared: return "bcast_prepared";
    case method::create_group_bcast: return "create_group_bcast";
    case method::split_bcast: return "split_bcast";
    case method::hpcoll_bcast_prepared: return "hpcoll_bcast_prepared";
    case method::mcast: return "mcast";
    case method::mcast_binomial: return "mcast_binomial";
    case method::mcast_scatter_ring: return "mcast_scatter_ring";
    case method::mcast_scatter_rd: return "mcast_scatter_rd";
    case method::mcast_linear: return "mcast_linear";
  }
  return "?";
}

bool is_mcast(method m) { return m >= method::mcast; }

// ---------------------------------------------------------------------------
// Options

struct options {
  std::vector<method> methods{all_methods.begin(), all_methods.end()};
  std::vector<std::size_t> sizes;  // bytes; empty: the default list
  int runs = 0;                    // 0: default (100, --quick 10)
  int warmup = -1;                 // -1: default (3, --quick 1)
  double trim = 0.1;
  std::string out;
  bool quick = false;
};

constexpr std::size_t mib = 1024 * 1024;
constexpr int full_runs = 100, quick_runs = 10;
constexpr int full_warmup = 3, quick_warmup = 1;

/// The multicast's two reference sizes (80 kB, 8 MB) and the sweep 8 B, 32 B, ..., 8 MiB (x4), 16 MiB.
std::vector<std::size_t> default_sizes() {
  std::vector<std::size_t> s{80000, 8000000, 16 * mib};
  for (std::size_t b = 8; b <= 8 * mib; b *= 4) s.push_back(b);
  std::sort(s.begin(), s.end());
  return s;
}
const std::vector<std::size_t> quick_sizes{8, 80000, 8000000};

/// --sizes: within what MPI_Bcast's int count takes.
std::vector<std::size_t> parse_sizes(const std::string& text) {
  std::vector<std::size_t> out = hpcoll_bench::parse_sizes(text, 1);
  for (std::size_t s : out)
    if (s == 0 || s > static_cast<std::size_t>(INT_MAX))  // MPI_Bcast counts bytes in an int
      throw std::invalid_argument("sizes must be within 1 B .. 2 GiB");
  return out;
}

std::vector<method> parse_methods(const std::string& text) {
  std::vector<std::string> known;
  for (method m : all_methods) known.push_back(method_name(m));
  std::vector<method> out;
  for (const std::string& name : hpcoll_bench::parse_names(text, known))
    out.push_back(*std::find_if(all_methods.begin(), all_methods.end(), [&](method m) { return name == method_name(m); }));
  return out;
}

/// The command line, its values stored in o.
hpcoll_bench::command_line command_line_for(options& o) {
  namespace po = hpcoll_bench::po;
  hpcoll_bench::command_line cl{"hpcoll_mcast",
                                "usage: mpiexec -n P hpcoll_mcast [options]   (master: rank 0; P >= 2)"};
  cl.options.add_options()
      ("methods", hpcoll_bench::value_of(&o.methods, "a,b", parse_methods),
       "any of bcast_prepared, create_group_bcast, split_bcast, hpcoll_bcast_prepared, mcast, mcast_binomial, "
       "mcast_scatter_ring, mcast_scatter_rd, mcast_linear (default all)")
      ("sizes", hpcoll_bench::value_of(&o.sizes, "LIST|MIN:MAX", parse_sizes),
       "bytes, e.g. 80kB,8MB or 8:16M (x4 steps); units B, kB, MB (decimal), K/KiB, M/MiB; default 8 B..8 MiB x4, "
       "80 kB, 8 MB, 16 MiB; --quick 8 B, 80 kB, 8 MB")
      ("runs", po::value(&o.runs)->value_name("N"), "timed runs per method, group and size (default 100, --quick 10)")
      ("warmup", po::value(&o.warmup)->value_name("W"),
       "untimed runs before them, the first one verified (default 3, --quick 1)")
      ("trim", po::value(&o.trim)->value_name("F"),
       "fraction dropped at each end for the trimmed mean (default 0.1)")
      ("out", po::value(&o.out)->value_name("FILE.json"), "write the results (rank 0)")
      ("quick", po::bool_switch(&o.quick), "the --quick defaults above: a check that everything runs");
  return cl;
}

/// The defaults that depend on --quick, and the checks across options.
void complete(options& o) {
  if (o.sizes.empty()) o.sizes = o.quick ? quick_sizes : default_sizes();
  if (o.runs == 0) o.runs = o.quick ? quick_runs : full_runs;
  if (o.warmup < 0) o.warmup = o.quick ? quick_warmup : full_warmup;
  if (o.runs < 1) throw std::invalid_argument("--runs must be >= 1");
  if (o.warmup < 1) throw std::invalid_argument("--warmup must be >= 1 (the first warm-up run is verified)");
  if (!(o.trim >= 0 && o.trim < 0.5)) throw std::invalid_argument("--trim must be within [0, 0.5)");
}

// ---------------------------------------------------------------------------
// Groups

struct group {
  int r;
  std::vector<int> members;  // ascending
};

std::vector<group> groups_for(int p) {
  std::vector<int> rs;
  for (int divisor : {8, 4, 2})
    if (p / divisor >= 1) rs.push_back(p / divisor);
  rs.push_back(p - 1);
  std::vector<group> out;
  for (int r : rs) {
    if (std::any_of(out.begin(), out.end(), [&](const group& g) { return g.r == r; })) continue;
    group g{r, {}};
    for (int i = 0; i < r; ++i) g.members.push_back(r == p - 1 ? i + 1 : (i + 1) * (p / r) - 1);
    out.push_back(std::move(g));
  }
  return out;
}

// ---------------------------------------------------------------------------
// One group: the prepared communicators and the methods

/// Byte i of method m's data: a hash, so that a block received at the wrong
/// offset or stale data from another method does not match.
std::byte pattern(std::size_t i, method m) {
  const std::uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull ^ (static_cast<std::uint64_t>(m) + 1) * 0xC2B2AE3D27D4EB4Full;
  return static_cast<std::byte>(x >> 56);
}

constexpr int create_group_tag = 6;  // MPI_Comm_create_group's tag: any, the calls never overlap

class group_bench {
public:
  group_bench(const hpcoll::communicator& world, MPI_Group world_group, const group& g)
      : world_(world), rank_(world.rank()), members_(world.size()) {
    std::vector<int> ranks{0};
    ranks.insert(ranks.end(), g.members.begin(), g.members.end());
    for (int m : g.members) members_.insert(m);
    in_group_ = rank_ == 0 || members_.contains(rank_);
    group_size_ = static_cast<int>(ranks.size());
    MPI_Group_incl(world_group, group_size_, ranks.data(), &group_);
    if (in_group_) {
      MPI_Comm_create_group(MPI_COMM_WORLD, group_, create_group_tag, &prepared_);
      hprepared_.emplace(prepared_);
    }
  }
  ~group_bench() {
    hprepared_.reset();
    if (prepared_ != MPI_COMM_NULL) MPI_Comm_free(&prepared_);
    MPI_Group_free(&group_);
  }
  group_bench(const group_bench&) = delete;
  group_bench& operator=(const group_bench&) = delete;

  int rank() const { return rank_; }

  void resize(std::size_t bytes) { buf_.assign(bytes, std::byte{0}); }

  /// One run of method m, by every rank (each does its part); the master's
  /// time, after a barrier.
  double run(method m) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto t0 = clock_type::now();
    switch (m) {
      case method::bcast_prepared:
        if (in_group_) bcast_and_ack(prepared_);
        break;
      case method::create_group_bcast:
        if (in_group_) {
          MPI_Comm comm;
          MPI_Comm_create_group(MPI_COMM_WORLD, group_, create_group_tag, &comm);
          bcast_and_ack(comm);
          MPI_Comm_free(&comm);
        }
        break;
      case method::split_bcast: {
        MPI_Comm comm;
        MPI_Comm_split(MPI_COMM_WORLD, in_group_ ? 0 : MPI_UNDEFINED, rank_, &comm);
        if (comm != MPI_COMM_NULL) {
          bcast_and_ack(comm);
          MPI_Comm_free(&comm);
        }
        break;
      }
      case method::hpcoll_bcast_prepared:
        if (in_group_) {
          hpcoll::bcast(*hprepared_, buf_, 0);
          const std::array<int, 1> one{1};
          hpcoll::reduce(*hprepared_, one, ack_, hpcoll::op::sum{}, 0);
        }
        break;
      case method::mcast: multicast<S::automatic>(); break;
      case method::mcast_binomial: multicast<S::binomial>(); break;
      case method::mcast_scatter_ring: multicast<S::scatter_ring_allgather>(); break;
      case method::mcast_scatter_rd: multicast<S::scatter_recursive_doubling_allgather>(); break;
      case method::mcast_linear: multicast<S::linear>(); break;
    }
    return since(t0);
  }

  /// One verified run of method m: whether this rank saw the right outcome.
  bool verified_run(method m) {
    const bool master = rank_ == 0, member = members_.contains(rank_);
    for (std::size_t i = 0; i < buf_.size(); ++i) buf_[i] = master ? pattern(i, m) : std::byte{0};
    ack_[0] = 0;
    run(m);
    if (member)
      for (std::size_t i = 0; i < buf_.size(); ++i)
        if (buf_[i] != pattern(i, m)) return false;
    return !master || is_mcast(m) || ack_[0] == group_size_;
  }

  /// The schedule hpcoll's dispatcher picks for method m (empty for MPI's).
  std::string schedule(method m) const {
    const std::size_t bytes = buf_.size();
    switch (m) {
      case method::hpcoll_bcast_prepared:
        if (!hprepared_) return "";  // not in the group
        return hpcoll::explain<void, std::byte>(*hprepared_, hpcoll::bcast_shape{0, group_size_, 0, bytes}).schedule();
      case method::mcast:
        return hpcoll::explain<void, std::byte>(world_, hpcoll::mcast_shape{0, world_.size(), 0, &members_, bytes})
            .schedule();
      case method::mcast_binomial: return hpcoll::schedule_name<S::binomial>();
      case method::mcast_scatter_ring: return hpcoll::schedule_name<S::scatter_ring_allgather>();
      case method::mcast_scatter_rd: return hpcoll::schedule_name<S::scatter_recursive_doubling_allgather>();
      case method::mcast_linear: return hpcoll::schedule_name<S::linear>();
      default: return "";
    }
  }

private:
  void bcast_and_ack(MPI_Comm comm) {
    MPI_Bcast(buf_.data(), static_cast<int>(buf_.size()), MPI_BYTE, 0, comm);
    const int one = 1;
    MPI_Reduce(&one, ack_.data(), 1, MPI_INT, MPI_SUM, 0, comm);
  }
  template <class Schedule>
  void multicast() {
    if (rank_ == 0) hpcoll::Mcast<Schedule>{}(world_, buf_, members_).wait();
    else if (members_.contains(rank_)) hpcoll::mcast_recv(world_, buf_);
  }

  const hpcoll::communicator& world_;
  int rank_;
  hpcoll::rank_set members_;
  bool in_group_ = false;
  int group_size_ = 0;
  MPI_Group group_ = MPI_GROUP_NULL;
  MPI_Comm prepared_ = MPI_COMM_NULL;
  std::optional<hpcoll::communicator> hprepared_;
  std::vector<std::byte> buf_;  // the master's data, the members' receive buffer
  std::array<int, 1> ack_{};    // the reduced ack at the master
};

// ---------------------------------------------------------------------------
// Measurement and output

struct row {
  method m;
  int r;
  std::vector<int> members;
  std::size_t bytes;
  std::string schedule;
  double trimmed_mean, median, min;
  bool verified;
};

double trimmed_mean(std::vector<double> v, double trim) {
  std::sort(v.begin(), v.end());
  const auto drop = static_cast<std::size_t>(std::floor(static_cast<double>(v.size()) * trim));
  double sum = 0;
  for (std::size_t i = drop; i < v.size() - drop; ++i) sum += v[i];
  return sum / static_cast<double>(v.size() - 2 * drop);
}

/// Every method for one group and size: verified warm-up, more warm-ups, then
/// the timed runs interleaved. Rows at rank 0 only.
std::vector<row> measure(group_bench& gb, const group& g, std::size_t bytes, const options& opt) {
  gb.resize(bytes);
  const std::size_t M = opt.methods.size();
  std::vector<int> ok(M);
  for (std::size_t k = 0; k < M; ++k) {
    ok[k] = gb.verified_run(opt.methods[k]);
    for (int w = 1; w < opt.warmup; ++w) gb.run(opt.methods[k]);
  }
  MPI_Allreduce(MPI_IN_PLACE, ok.data(), static_cast<int>(M), MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  // A new order every run, the same on every rank (one seed): noise, and what
  // one method leaves behind for the next, fall on every method alike.
  std::vector<std::vector<double>> times(M);
  std::vector<std::size_t> order(M);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::mt19937 gen(6);
  for (int run = 0; run < opt.runs; ++run) {
    std::shuffle(order.begin(), order.end(), gen);
    for (std::size_t k : order) times[k].push_back(gb.run(opt.methods[k]));
  }
  std::vector<row> rows;
  if (gb.rank() != 0) return rows;
  for (std::size_t k = 0; k < M; ++k)
    rows.push_back({opt.methods[k], g.r, g.members, bytes, gb.schedule(opt.methods[k]),
                    trimmed_mean(times[k], opt.trim), median(times[k]),
                    *std::min_element(times[k].begin(), times[k].end()), ok[k] != 0});
  return rows;
}

void print_rows(const std::vector<row>& rows) {
  const row& first = rows.front();
  std::printf("\nr = %d, %s\n  %-22s %12s %12s %12s  %s\n", first.r, hpcoll_bench::human_bytes(first.bytes).c_str(),
              "method",
              "trimmed", "median", "min", "schedule");
  for (const row& r : rows)
    std::printf("  %-22s %12.1f %12.1f %12.1f  %s%s\n", method_name(r.m), r.trimmed_mean * 1e6, r.median * 1e6,
                r.min * 1e6, r.schedule.c_str(), r.verified ? "" : "  WRONG RESULT");
  std::fflush(stdout);
}

json::value row_json(const row& r, int p, const options& opt) {
  json::value v;
  v.set("method", method_name(r.m));
  v.set("p", p);
  v.set("r", r.r);
  json::array members;
  for (int m : r.members) members.push_back(m);
  v.set("members", std::move(members));
  v.set("bytes", r.bytes);
  v.set("runs", opt.runs);
  v.set("schedule", r.schedule.empty() ? json::value(nullptr) : json::value(r.schedule));
  v.set("trimmed_mean_s", r.trimmed_mean);
  v.set("median_s", r.median);
  v.set("min_s", r.min);
  v.set("verified", r.verified);
  return v;
}

int write_json(const std::string& path, const std::vector<row>& rows, const options& opt, int p, int argc,
               char** argv, double seconds) {
  json::value doc;
  doc.set("format", "hpcoll-mcast-1");
  doc.set("date", utc_now());
  doc.set("command", hpcoll_bench::command_text(argc, argv));
  doc.set("p", p);
  doc.set("master", 0);
  doc.set("mpi", mpi_library_version());
  doc.set("host_cores", std::thread::hardware_concurrency());
  doc.set("compiler", std::string("g++ ") + __VERSION__);
  json::value settings;
  json::array methods, sizes;
  for (method m : opt.methods) methods.push_back(method_name(m));
  for (std::size_t s : opt.sizes) sizes.push_back(s);
  settings.set("methods", std::move(methods));
  settings.set("sizes", std::move(sizes));
  settings.set("runs", opt.runs);
  settings.set("warmup", opt.warmup);
  settings.set("trim", opt.trim);
  settings.set("quick", opt.quick);
  doc.set("settings", std::move(settings));
  doc.set("timing",
          "the master's (rank 0) std::chrono::steady_clock from its call until every member has acked; an "
          "MPI_Barrier on MPI_COMM_WORLD before every run; methods interleaved run by run in a new random order; "
          "trimmed mean drops the trim fraction at each end of the sorted times");
  doc.set("seconds", seconds);
  json::array out;
  for (const row& r : rows) out.push_back(row_json(r, p, opt));
  doc.set("rows", std::move(out));
  try {
    json::write_file(path, doc);
  } catch (const std::runtime_error& e) {
    std::fprintf(stderr, "hpcoll_mcast: %s\n", e.what());
    return 1;
  }
  std::printf("\nwrote %s (%.1f s)\n", path.c_str(), seconds);
  return 0;
}

int run(int argc, char** argv) {
  int rank = 0, p = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  options opt;
  const auto parsed = hpcoll_bench::parse_command_line(argc, argv, command_line_for(opt), rank == 0, [&] {
    complete(opt);
    if (p < 2) throw std::invalid_argument("needs at least 2 ranks");
  });
  if (parsed.exit) return *parsed.exit;

  const auto started = clock_type::now();
  const hpcoll::communicator world(MPI_COMM_WORLD);
  MPI_Group world_group;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  if (rank == 0) {
    std::printf("hpcoll_mcast: %d ranks, master 0, %s; times in us (master's view): trimmed mean (%g at each "
                "end), median, min of %d runs\n",
                p, mpi_library_version().c_str(), opt.trim, opt.runs);
    std::fflush(stdout);
  }
  std::vector<row> rows;
  for (const group& g : groups_for(p)) {
    group_bench gb(world, world_group, g);
    for (const std::size_t bytes : opt.sizes) {
      std::vector<row> got = measure(gb, g, bytes, opt);
      if (rank == 0) print_rows(got);
      rows.insert(rows.end(), got.begin(), got.end());
    }
  }
  MPI_Group_free(&world_group);

  int rc = 0;
  if (rank == 0) {
    if (!opt.out.empty()) rc = write_json(opt.out, rows, opt, p, argc, argv, since(started));
    if (std::any_of(rows.begin(), rows.end(), [](const row& r) { return !r.verified; })) {
      std::fprintf(stderr, "hpcoll_mcast: some method delivered wrong data (WRONG RESULT rows)\n");
      rc = 1;
    }
  }
  return hpcoll_bench::rank0_status(rc);
}

}  // namespace

int main(int argc, char** argv) { return hpcoll_bench::run_main(argc, argv, "hpcoll_mcast", run); }
