// SPDX-License-Identifier: BSD-3-Clause
// hpcoll_overlap: how much of a nonblocking collective a computation hides,
// for native MPI and for hpcoll's progress policies (docs/async.md).
//
//   mpiexec -n N hpcoll_overlap [--collectives=alltoall,allreduce] [--sizes=1KiB,64KiB,...|MIN:MAX]
//                               [--reps=R] [--out=FILE.json] [--quick] [--thread-poll-us=U]
//                               [--matrix=N] [--iters=K] [--inner-every=K] [--variants=a,b]
//   (./hpcoll bench --overlap runs it through benchmarks/overlap_report.py)
//
// The experiment (LibNBC / TCC style): a nonblocking all-to-all or allreduce
// of doubles is issued, a dense matrix-vector product y = A x (n x n,
// repeated `iters` times: the outer loop is one product, the inner loop one
// row) runs, then the request is waited for. Variants:
//   native/never   MPI_Ialltoall / MPI_Iallreduce, compute, MPI_Wait
//   native/outer   ... MPI_Test after every product
//   native/inner   ... MPI_Test after every k rows (--inner-every, default 1)
//   manual/never   hpcoll progress::manual, compute, request.wait()
//   manual/outer   ... request.test() after every product
//   manual/inner   ... request.test() after every k rows
//   thread         hpcoll progress::thread (background progress thread;
//                  poll interval --thread-poll-us, one setting per process)
//   offload        hpcoll progress::offload (a worker runs the blocking collective)
// Progress calls stop once a test has reported completion (an application
// keeps that flag too).
//
// Per rank and repetition (std::chrono::steady_clock; an MPI_Barrier before
// every timed region, MPI_Allreduce/MPI_Gather only outside them):
//   t_cpu    the computation alone
//   t_pure   issue + wait, no computation (per implementation)
//   t_ovl    issue, computation with the variant's progress calls, wait;
//            split into t_issue, t_comp (the computation phase, progress
//            calls included), t_test (inside progress calls) and t_wait
//   t_blocking_then_compute  the blocking collective (MPI_Alltoall /
//            MPI_Allreduce for native rows, hpcoll::alltoall / allreduce for
//            hpcoll rows), then the computation
// Aggregation (rank 0): per repetition the slowest rank's value (max over
// ranks); for the overlapped run the five values of the rank whose t_ovl is
// largest (IMB-NBC's rule); then the median over repetitions of each.
//   overlap OSU   = clamp(100 - 100 (t_ovl - (t_comp - t_test)) / t_pure, 0, 100)
//   overlap IMB   = 100 max(0, min(1, (t_pure + t_cpu - t_ovl) / max(t_pure, t_cpu)))
//   speed-up      = t_blocking_then_compute / t_ovl
// Matrix size: unless --matrix/--iters fix it, per collective and size the
// native nonblocking t_pure is measured first (median of 9 repetitions, --quick
// 5, slowest rank) and n, iters are chosen so that t_cpu is about that time
// (OSU's method) with about 16 products: n = clamp(sqrt(t_pure / (16 c)),
// 32, 1024) rounded to a multiple of 8, c the time per matrix element
// measured at n = 256; iters = round(t_pure / t_matvec(n)); then the whole
// computation is timed 5 times (every rank at once) and iters rescaled once
// if that median is more than 20 % off. Every variant of a collective and
// size runs the same computation.
//
// Rank 0 prints a table per collective and size and writes the JSON (--out).
// The buffers' contents are checked after a warm-up run of each
// implementation ("verified" in the JSON).
#include <mpi.h>

#include <hpcoll/hpcoll.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "json_out.hpp"
#include "options.hpp"
#include "run_info.hpp"

namespace {

using hpcoll_bench::median;
using hpcoll_bench::mpi_library_version;
using hpcoll_bench::utc_now;

namespace json = hpcoll_bench::json;
using clock_type = std::chrono::steady_clock;

double since(clock_type::time_point t0) { return std::chrono::duration<double>(clock_type::now() - t0).count(); }

// ---------------------------------------------------------------------------
// Options

struct options {
  std::vector<std::string> collectives{"alltoall", "allreduce"};
  std::vector<std::size_t> sizes;  // bytes per rank; empty: the default list
  int reps = 0;                    // 0: default (101, --quick 11)
  std::string out;
  bool quick = false;
  long thread_poll_us = 0;
  std::size_t matrix = 0;  // 0: chosen per size
  std::size_t iters = 0;   // 0: chosen per size
  std::size_t inner_every = 1;
  std::vector<std::string> variants;  // empty: all
};

constexpr std::size_t kib = 1024, mib = 1024 * 1024;
const std::vector<std::size_t> full_sizes{kib, 4 * kib, 16 * kib, 64 * kib, 256 * kib, mib, 4 * mib};
const std::vector<std::size_t> quick_sizes{kib, 64 * kib, mib};
constexpr int full_reps = 101, quick_reps = 11;
constexpr std::size_t outer_target = 16;  // products per overlapped computation when n is chosen
constexpr std::size_t min_n = 32, max_n = 1024;


std::vector<std::string> parse_collectives(const std::string& text) {
  return hpcoll_bench::parse_names(text, {"alltoall", "allreduce"});
}
std::vector<std::size_t> parse_sizes(const std::string& text) { return hpcoll_bench::parse_sizes(text, 8); }
std::vector<std::string> parse_list(const std::string& text) { return hpcoll_bench::split(text, ','); }

/// The command line, its values stored in o.
hpcoll_bench::command_line command_line_for(options& o) {
  namespace po = hpcoll_bench::po;
  hpcoll_bench::command_line cl{"hpcoll_overlap", "usage: mpiexec -n N hpcoll_overlap [options]"};
  cl.options.add_options()
      ("collectives", hpcoll_bench::value_of(&o.collectives, "a,b", parse_collectives),
       "alltoall, allreduce (default both)")
      ("sizes", hpcoll_bench::value_of(&o.sizes, "LIST|MIN:MAX", parse_sizes),
       "bytes per rank (alltoall: the whole send buffer of p blocks), e.g. 1KiB,64KiB,1MiB or 1K:4M (x4 steps); "
       "default 1KiB..4MiB x4, --quick 1KiB,64KiB,1MiB")
      ("reps", po::value(&o.reps)->value_name("R"), "repetitions, medians reported (default 101, --quick 11)")
      ("out", po::value(&o.out)->value_name("FILE"), "JSON written by rank 0")
      ("quick", po::bool_switch(&o.quick), "fewer sizes and repetitions")
      ("thread-poll-us", po::value(&o.thread_poll_us)->value_name("U"),
       "progress::thread's poll interval (default 0: yield and sweep again)")
      ("matrix", po::value(&o.matrix)->value_name("N"),
       "fixed matrix order n (default: chosen so that t_cpu ~ native t_pure)")
      ("iters", po::value(&o.iters)->value_name("K"),
       "fixed number of products per computation (default: chosen likewise)")
      ("inner-every", po::value(&o.inner_every)->value_name("K"),
       "the inner variants make a progress call every K rows (default 1)")
      ("variants", hpcoll_bench::value_of(&o.variants, "a,b", parse_list),
       "only these variants or groups: native, native/never, native/outer, native/inner, manual, manual/never, "
       "manual/outer, manual/inner, thread, offload");
  return cl;
}

/// The defaults that depend on --quick, and the checks across options.
void complete(options& o) {
  if (o.sizes.empty()) o.sizes = o.quick ? quick_sizes : full_sizes;
  if (o.reps == 0) o.reps = o.quick ? quick_reps : full_reps;
  if (o.reps < 1) throw std::invalid_argument("--reps must be >= 1");
  if (o.inner_every < 1) throw std::invalid_argument("--inner-every must be >= 1");
  if (o.thread_poll_us < 0) throw std::invalid_argument("--thread-poll-us must be >= 0");
}

// ---------------------------------------------------------------------------
// The computation

enum class calls : std::uint8_t { never, outer, inner };

struct matvec {
  const double* a;
  const double* x;
  double* y;
  std::size_t n;
  std::size_t iters;
};

/// Keeps the compiler from dropping or merging the products: y escapes.
inline void escape(const void* p) { asm volatile("" : : "g"(p) : "memory"); }

inline double dot(const double* a, const double* x, std::size_t n) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  std::size_t j = 0;
  for (; j + 4 <= n; j += 4) {
    s0 += a[j] * x[j];
    s1 += a[j + 1] * x[j + 1];
    s2 += a[j + 2] * x[j + 2];
    s3 += a[j + 3] * x[j + 3];
  }
  for (; j < n; ++j) s0 += a[j] * x[j];
  return (s0 + s1) + (s2 + s3);
}

/// `iters` products y = A x; `progress` after every product (outer) or every
/// `every` rows (inner).
template <calls When, class Progress>
void compute(const matvec& m, std::size_t every, Progress&& progress) {
  for (std::size_t it = 0; it < m.iters; ++it) {
    for (std::size_t i = 0; i < m.n; ++i) {
      m.y[i] = dot(m.a + i * m.n, m.x, m.n);
      if constexpr (When == calls::inner) {
        if ((i + 1) % every == 0) progress();
      }
    }
    escape(m.y);
    if constexpr (When == calls::outer) progress();
  }
}

void compute_only(const matvec& m) {
  compute<calls::never>(m, 1, [] {});
}

// ---------------------------------------------------------------------------
// The collectives

enum class impl : std::uint8_t { native, manual, thread, offload };
constexpr int impl_count = 4;
const char* impl_name(impl w) {
  switch (w) {
    case impl::native: return "native";
    case impl::manual: return "manual";
    case impl::thread: return "thread";
    case impl::offload: return "offload";
  }
  return "?";
}

/// A native request, seen like an hpcoll::request.
struct native_handle {
  MPI_Request req = MPI_REQUEST_NULL;
  bool test() {
    int flag = 0;
    MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
    return flag != 0;
  }
  void wait() { MPI_Wait(&req, MPI_STATUS_IGNORE); }
};

struct hpcoll_handle {
  hpcoll::request req;
  bool test() { return req.test(); }
  void wait() { req.wait(); }
};

/// One collective at one size: buffers, issue, blocking form, check.
class bench_case {
public:
  bench_case(bool alltoall, std::size_t bytes, const hpcoll::communicator& hc, MPI_Comm nc)
      : alltoall_(alltoall), hc_(hc), nc_(nc), rank_(hc.rank()), size_(hc.size()) {
    const std::size_t elems = std::max<std::size_t>(bytes / sizeof(double), 1);
    if (alltoall_) {
      block_ = std::max<std::size_t>(elems / static_cast<std::size_t>(size_), 1);
      in_.resize(block_ * static_cast<std::size_t>(size_));
      for (std::size_t j = 0; j < in_.size(); ++j)
        in_[j] = expected_alltoall(rank_, static_cast<int>(j / block_), j % block_);
    } else {
      in_.resize(elems);
      for (std::size_t k = 0; k < in_.size(); ++k) in_[k] = rank_ + static_cast<double>(k % 13);
    }
    out_.assign(in_.size(), 0.0);
  }

  std::size_t bytes() const { return in_.size() * sizeof(double); }
  std::size_t elements() const { return in_.size(); }

  native_handle issue_native() {
    native_handle h;
    if (alltoall_)
      MPI_Ialltoall(in_.data(), static_cast<int>(block_), MPI_DOUBLE, out_.data(), static_cast<int>(block_),
                    MPI_DOUBLE, nc_, &h.req);
    else
      MPI_Iallreduce(in_.data(), out_.data(), static_cast<int>(in_.size()), MPI_DOUBLE, MPI_SUM, nc_, &h.req);
    return h;
  }
  hpcoll_handle issue_hpcoll(impl who) {
    switch (who) {
      case impl::manual: return {start<hpcoll::progress::manual>()};
      case impl::thread: return {start<hpcoll::progress::thread>()};
      default: return {start<hpcoll::progress::offload>()};
    }
  }
  void blocking_native() {
    if (alltoall_)
      MPI_Alltoall(in_.data(), static_cast<int>(block_), MPI_DOUBLE, out_.data(), static_cast<int>(block_),
                   MPI_DOUBLE, nc_);
    else
      MPI_Allreduce(in_.data(), out_.data(), static_cast<int>(in_.size()), MPI_DOUBLE, MPI_SUM, nc_);
  }
  void blocking_hpcoll() {
    if (alltoall_) hpcoll::alltoall(hc_, in_, out_);
    else hpcoll::allreduce(hc_, in_, out_, hpcoll::op::sum{});
  }

  void clear_output() { std::fill(out_.begin(), out_.end(), -1.0); }
  /// Whether the output holds the collective's result.
  bool output_ok() const {
    const double p = size_;
    for (std::size_t k = 0; k < out_.size(); ++k) {
      const double want = alltoall_ ? expected_alltoall(static_cast<int>(k / block_), rank_, k % block_)
                                    : p * (p - 1) / 2 + p * static_cast<double>(k % 13);
      if (out_[k] != want) return false;
    }
    return true;
  }
  /// The schedule hpcoll's dispatcher picks for this call.
  std::string schedule() const {
    if (alltoall_)
      return hpcoll::explain<void, double>(hc_, hpcoll::alltoall_shape{rank_, size_, block_}).schedule();
    return hpcoll::explain<hpcoll::op::sum, double>(hc_, hpcoll::allreduce_shape{rank_, size_, in_.size()}).schedule();
  }

private:
  static double expected_alltoall(int from, int to, std::size_t e) {
    return from * 1e6 + to * 1e3 + static_cast<double>(e % 997);
  }
  template <class P>
  hpcoll::request start() {
    if (alltoall_) return hpcoll::ialltoall<P>(hc_, in_, out_);
    return hpcoll::iallreduce<P>(hc_, in_, out_, hpcoll::op::sum{});
  }

  bool alltoall_;
  const hpcoll::communicator& hc_;
  MPI_Comm nc_;
  int rank_, size_;
  std::size_t block_ = 0;
  std::vector<double> in_, out_;
};

// ---------------------------------------------------------------------------
// Variants and measurements

struct variant {
  std::string name;
  impl who;
  calls when;
  bool hpcoll() const { return who != impl::native; }
};

std::vector<variant> all_variants(long poll_us) {
  const std::string thread = poll_us > 0 ? "thread/poll=" + std::to_string(poll_us) + "us" : "thread";
  return {{"native/never", impl::native, calls::never}, {"native/outer", impl::native, calls::outer},
          {"native/inner", impl::native, calls::inner}, {"manual/never", impl::manual, calls::never},
          {"manual/outer", impl::manual, calls::outer}, {"manual/inner", impl::manual, calls::inner},
          {thread, impl::thread, calls::never},         {"offload", impl::offload, calls::never}};
}

bool selected(const variant& v, const std::vector<std::string>& filter) {
  if (filter.empty()) return true;
  const std::string group = v.name.substr(0, v.name.find('/'));
  return std::any_of(filter.begin(), filter.end(), [&](const std::string& f) { return f == v.name || f == group; });
}

/// A progress call that remembers completion and the time spent inside it.
template <class Test>
struct timed_progress {
  Test test;
  double seconds = 0;
  bool done = false;
  void operator()() {
    if (done) return;
    const auto t0 = clock_type::now();
    done = test();
    seconds += since(t0);
  }
};
template <class Test>
timed_progress(Test) -> timed_progress<Test>;

struct ovl_sample {
  double total, issue, comp, test, wait;
};
constexpr int ovl_fields = 5;

template <calls When, class Issue>
ovl_sample overlapped(Issue issue, const matvec& m, std::size_t every) {
  MPI_Barrier(MPI_COMM_WORLD);
  const auto t0 = clock_type::now();
  auto h = issue();
  const double t_issue = since(t0);
  const auto t1 = clock_type::now();
  timed_progress progress{[&h] { return h.test(); }};
  compute<When>(m, every, progress);
  const double t_comp = since(t1);
  const auto t2 = clock_type::now();
  h.wait();
  const double t_wait = since(t2);
  return {since(t0), t_issue, t_comp, progress.seconds, t_wait};
}

template <class Issue>
ovl_sample overlapped(calls when, Issue issue, const matvec& m, std::size_t every) {
  switch (when) {
    case calls::outer: return overlapped<calls::outer>(issue, m, every);
    case calls::inner: return overlapped<calls::inner>(issue, m, every);
    default: return overlapped<calls::never>(issue, m, every);
  }
}

template <class Issue>
double pure(Issue issue) {
  MPI_Barrier(MPI_COMM_WORLD);
  const auto t0 = clock_type::now();
  auto h = issue();
  h.wait();
  return since(t0);
}

template <class Blocking>
double blocking_then_compute(Blocking blocking, const matvec& m) {
  MPI_Barrier(MPI_COMM_WORLD);
  const auto t0 = clock_type::now();
  blocking();
  compute_only(m);
  return since(t0);
}

double cpu_alone(const matvec& m) {
  MPI_Barrier(MPI_COMM_WORLD);
  const auto t0 = clock_type::now();
  compute_only(m);
  return since(t0);
}

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double k = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(k)), hi = static_cast<std::size_t>(std::ceil(k));
  return v[lo] + (v[hi] - v[lo]) * (k - static_cast<double>(lo));
}

/// The slowest rank's value of each of `values` (one per repetition): max over ranks.
std::vector<double> max_over_ranks(std::vector<double> values) {
  MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return values;
}

/// Seconds per product of order n: median of 7 timed batches (a batch lasts
/// about 50 µs or one product), every rank computing at once; the slowest rank's.
double matvec_seconds(matvec m) {
  m.iters = 1;
  MPI_Barrier(MPI_COMM_WORLD);
  compute_only(m);  // warm the matrix into cache as far as it fits
  auto t0 = clock_type::now();
  compute_only(m);
  const double one = std::max(since(t0), 1e-9);
  m.iters = std::max<std::size_t>(1, static_cast<std::size_t>(50e-6 / one));
  std::vector<double> samples;
  for (int s = 0; s < 7; ++s) {
    t0 = clock_type::now();
    compute_only(m);
    samples.push_back(since(t0) / static_cast<double>(m.iters));
  }
  return max_over_ranks({median(samples)})[0];
}

// ---------------------------------------------------------------------------
// One collective at one size

struct row_result {
  std::string variant;
  impl who;
  calls when;
  double t_pure = 0, t_cpu = 0, t_ovl = 0, t_comp = 0, t_test = 0, t_issue = 0, t_wait = 0, t_block = 0;
  double t_ovl_q1 = 0, t_ovl_q3 = 0;
  double overlap_osu = 0, overlap_imb = 0, speedup = 0;
  double overlap_osu_raw = 0, overlap_imb_raw = 0;  // before clamping to [0, 100]
  bool verified = false;
};

struct case_result {
  std::string collective;
  std::size_t bytes, elements;
  std::size_t n, iters;
  double target;  // the native t_pure the computation was sized for
  std::string schedule;
  std::vector<row_result> rows;
  double seconds;
};

double clamp_pct(double x) { return std::clamp(x, 0.0, 100.0); }

class experiment {
public:
  experiment(const options& opt, const hpcoll::communicator& hc, MPI_Comm nc, std::vector<variant> variants)
      : opt_(opt), hc_(hc), nc_(nc), variants_(std::move(variants)) {
    const std::size_t cap = std::max(opt_.matrix, max_n);
    a_.resize(cap * cap);
    for (std::size_t k = 0; k < a_.size(); ++k) a_[k] = 1.0 / static_cast<double>(1 + k % 17);
    x_.assign(cap, 1.0);
    y_.assign(cap, 0.0);
    // Time per matrix element at n = 256, for choosing n.
    if (opt_.matrix == 0) per_element_ = matvec_seconds(product(256, 1)) / (256.0 * 256.0);
  }

  case_result run(const std::string& collective, std::size_t bytes) {
    const auto started = clock_type::now();
    bench_case bc(collective == "alltoall", bytes, hc_, nc_);
    case_result res{collective, bc.bytes(), bc.elements(), 0, 0, 0, bc.schedule(), {}, 0};

    bool need[impl_count] = {};
    bool need_native_block = false, need_hpcoll_block = false;
    for (const variant& v : variants_) {
      need[static_cast<int>(v.who)] = true;
      (v.hpcoll() ? need_hpcoll_block : need_native_block) = true;
    }
    auto issue_for = [&bc](impl who) {
      return [&bc, who] { return bc.issue_hpcoll(who); };
    };
    auto native_issue = [&bc] { return bc.issue_native(); };

    // Warm-up and correctness: every implementation twice, then its output checked.
    bool ok[impl_count + 2] = {};
    auto check = [&](int slot, auto run_once) {
      run_once();
      bc.clear_output();
      run_once();
      ok[slot] = bc.output_ok();
    };
    check(0, [&] { pure(native_issue); });  // native: also sizes the computation
    for (int w = 1; w < impl_count; ++w)
      if (need[w]) check(w, [&] { pure(issue_for(static_cast<impl>(w))); });
    if (need_native_block) check(impl_count, [&] { bc.blocking_native(); });
    if (need_hpcoll_block) check(impl_count + 1, [&] { bc.blocking_hpcoll(); });
    int ok_int[impl_count + 2];
    for (int i = 0; i < impl_count + 2; ++i) ok_int[i] = ok[i];
    MPI_Allreduce(MPI_IN_PLACE, ok_int, impl_count + 2, MPI_INT, MPI_LAND, MPI_COMM_WORLD);

    // The computation: t_cpu ~ native t_pure (OSU), about outer_target products.
    std::vector<double> cal;
    for (int r = 0; r < (opt_.quick ? 5 : 9); ++r) cal.push_back(pure(native_issue));
    res.target = median(max_over_ranks(cal));
    res.n = opt_.matrix;
    if (res.n == 0) {
      const double ideal = std::sqrt(res.target / (static_cast<double>(outer_target) * per_element_));
      res.n = std::clamp<std::size_t>(static_cast<std::size_t>(std::lround(ideal / 8.0)) * 8, min_n, max_n);
    }
    res.iters = opt_.iters;
    if (res.iters == 0) {
      const double t_mv = matvec_seconds(product(res.n, 1));
      res.iters = static_cast<std::size_t>(std::max<long>(1, std::lround(res.target / t_mv)));
      // One correction from the whole computation timed as it will run (every
      // rank at once: time slicing and shared caches show only there).
      std::vector<double> whole;
      for (int r = 0; r < 5; ++r) whole.push_back(cpu_alone(product(res.n, res.iters)));
      const double t_whole = median(max_over_ranks(whole));
      const double corrected = static_cast<double>(res.iters) * res.target / t_whole;
      if (std::abs(corrected / static_cast<double>(res.iters) - 1.0) > 0.2)
        res.iters = static_cast<std::size_t>(std::max<long>(1, std::lround(corrected)));
    }
    const matvec m = product(res.n, res.iters);
    compute_only(m);

    // The measurements of one repetition, rotated from one repetition to the next.
    const std::size_t V = variants_.size();
    const std::size_t fields = 1 + impl_count + 2 + ovl_fields * V;  // cpu, pure[w], block x2, ovl[v]
    std::vector<std::function<void(double*)>> tasks;
    tasks.push_back([&](double* s) { s[0] = cpu_alone(m); });
    if (need[0]) tasks.push_back([&](double* s) { s[1] = pure(native_issue); });
    for (int w = 1; w < impl_count; ++w)
      if (need[w]) tasks.push_back([&, w](double* s) { s[1 + w] = pure(issue_for(static_cast<impl>(w))); });
    if (need_native_block)
      tasks.push_back([&](double* s) { s[1 + impl_count] = blocking_then_compute([&] { bc.blocking_native(); }, m); });
    if (need_hpcoll_block)
      tasks.push_back([&](double* s) { s[2 + impl_count] = blocking_then_compute([&] { bc.blocking_hpcoll(); }, m); });
    for (std::size_t v = 0; v < V; ++v) {
      tasks.push_back([&, v](double* s) {
        const variant& var = variants_[v];
        const ovl_sample o = var.who == impl::native
                                 ? overlapped(var.when, native_issue, m, opt_.inner_every)
                                 : overlapped(var.when, issue_for(var.who), m, opt_.inner_every);
        double* d = s + 3 + impl_count + ovl_fields * v;
        d[0] = o.total, d[1] = o.issue, d[2] = o.comp, d[3] = o.test, d[4] = o.wait;
      });
    }
    const auto reps = static_cast<std::size_t>(opt_.reps);
    std::vector<double> mine(reps * fields, 0.0);
    for (std::size_t r = 0; r < reps; ++r)
      for (std::size_t t = 0; t < tasks.size(); ++t) tasks[(t + r) % tasks.size()](&mine[r * fields]);

    // Rank 0 aggregates: the slowest rank per repetition, then the median.
    const int np = hc_.size();
    std::vector<double> all(hc_.rank() == 0 ? mine.size() * static_cast<std::size_t>(np) : 0);
    MPI_Gather(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(), static_cast<int>(mine.size()),
               MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (hc_.rank() == 0) {
      auto at = [&](int rank, std::size_t r, std::size_t f) {
        return all[static_cast<std::size_t>(rank) * mine.size() + r * fields + f];
      };
      auto slowest = [&](std::size_t f) {
        std::vector<double> per_rep(reps);
        for (std::size_t r = 0; r < reps; ++r)
          for (int k = 0; k < np; ++k) per_rep[r] = std::max(per_rep[r], at(k, r, f));
        return per_rep;
      };
      const double t_cpu = median(slowest(0));
      double t_pure[impl_count];
      for (int w = 0; w < impl_count; ++w) t_pure[w] = median(slowest(1 + static_cast<std::size_t>(w)));
      const double block_native = median(slowest(1 + impl_count)), block_hpcoll = median(slowest(2 + impl_count));
      for (std::size_t v = 0; v < V; ++v) {
        const variant& var = variants_[v];
        const std::size_t base = 3 + impl_count + ovl_fields * v;
        std::vector<double> f[ovl_fields];
        for (std::size_t r = 0; r < reps; ++r) {
          int worst = 0;
          for (int k = 1; k < np; ++k)
            if (at(k, r, base) > at(worst, r, base)) worst = k;
          for (int i = 0; i < ovl_fields; ++i) f[i].push_back(at(worst, r, base + static_cast<std::size_t>(i)));
        }
        row_result row{var.name, var.who, var.when};
        row.t_pure = t_pure[static_cast<int>(var.who)];
        row.t_cpu = t_cpu;
        row.t_ovl = median(f[0]);
        row.t_issue = median(f[1]);
        row.t_comp = median(f[2]);
        row.t_test = median(f[3]);
        row.t_wait = median(f[4]);
        row.t_ovl_q1 = quantile(f[0], 0.25);
        row.t_ovl_q3 = quantile(f[0], 0.75);
        row.t_block = var.hpcoll() ? block_hpcoll : block_native;
        row.overlap_osu_raw = 100.0 - 100.0 * (row.t_ovl - (row.t_comp - row.t_test)) / row.t_pure;
        row.overlap_imb_raw = 100.0 * (row.t_pure + row.t_cpu - row.t_ovl) / std::max(row.t_pure, row.t_cpu);
        row.overlap_osu = clamp_pct(row.overlap_osu_raw);
        row.overlap_imb = clamp_pct(row.overlap_imb_raw);
        row.speedup = row.t_block / row.t_ovl;
        row.verified = ok_int[static_cast<int>(var.who)] && ok_int[var.hpcoll() ? impl_count + 1 : impl_count];
        res.rows.push_back(row);
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    res.seconds = since(started);
    return res;
  }

private:
  matvec product(std::size_t n, std::size_t iters) { return {a_.data(), x_.data(), y_.data(), n, iters}; }

  const options& opt_;
  const hpcoll::communicator& hc_;
  MPI_Comm nc_;
  std::vector<variant> variants_;
  std::vector<double> a_, x_, y_;
  double per_element_ = 1e-9;
};

// ---------------------------------------------------------------------------
// Output

void print_case(const case_result& c, int np) {
  std::printf("\n%s, %d ranks, %s per rank (schedule %s); matrix n=%zu x %zu products (sized for native t_pure "
              "%.1f us); %.2f s\n",
              c.collective.c_str(), np, hpcoll_bench::human_bytes(c.bytes).c_str(), c.schedule.c_str(), c.n, c.iters,
              c.target * 1e6, c.seconds);
  std::printf("  %-22s %10s %10s %10s %10s %10s %8s %8s %8s%s\n", "variant", "t_pure", "t_cpu", "t_ovl", "t_test",
              "t_blk+cpu", "ovl OSU", "ovl IMB", "speedup", "");
  for (const row_result& r : c.rows)
    std::printf("  %-22s %10.1f %10.1f %10.1f %10.1f %10.1f %7.0f%% %7.0f%% %8.2f%s\n", r.variant.c_str(),
                r.t_pure * 1e6, r.t_cpu * 1e6, r.t_ovl * 1e6, r.t_test * 1e6, r.t_block * 1e6, r.overlap_osu,
                r.overlap_imb, r.speedup, r.verified ? "" : "  WRONG RESULT");
  std::fflush(stdout);
}

const char* calls_name(calls c) {
  switch (c) {
    case calls::never: return "never";
    case calls::outer: return "outer";
    case calls::inner: return "inner";
  }
  return "?";
}

json::value row_json(const case_result& c, const row_result& r, int np, const options& opt) {
  json::value v;
  v.set("collective", c.collective);
  v.set("np", np);
  v.set("bytes", c.bytes);
  v.set("elements", c.elements);
  v.set("variant", r.variant);
  v.set("implementation", r.who == impl::native ? "native" : "hpcoll");
  v.set("policy", impl_name(r.who));
  v.set("progress_calls", calls_name(r.when));
  v.set("inner_every", r.when == calls::inner ? json::value(opt.inner_every) : json::value(nullptr));
  v.set("thread_poll_us", r.who == impl::thread ? json::value(opt.thread_poll_us) : json::value(nullptr));
  v.set("schedule", r.who == impl::native ? json::value(nullptr) : json::value(c.schedule));
  v.set("blocking_reference", r.who != impl::native                ? "hpcoll::" + c.collective
                              : c.collective == "alltoall" ? "MPI_Alltoall"
                                                           : "MPI_Allreduce");
  v.set("matrix_n", c.n);
  v.set("iters", c.iters);
  v.set("reps", opt.reps);
  v.set("t_cpu_target_s", c.target);
  v.set("t_pure_s", r.t_pure);
  v.set("t_cpu_s", r.t_cpu);
  v.set("t_ovl_s", r.t_ovl);
  v.set("t_issue_s", r.t_issue);
  v.set("t_comp_s", r.t_comp);
  v.set("t_test_s", r.t_test);
  v.set("t_wait_s", r.t_wait);
  v.set("t_blocking_then_compute_s", r.t_block);
  v.set("t_ovl_q1_s", r.t_ovl_q1);
  v.set("t_ovl_q3_s", r.t_ovl_q3);
  v.set("overlap_osu_pct", r.overlap_osu);
  v.set("overlap_imb_pct", r.overlap_imb);
  v.set("overlap_osu_unclamped_pct", r.overlap_osu_raw);
  v.set("overlap_imb_unclamped_pct", r.overlap_imb_raw);
  v.set("speedup", r.speedup);
  v.set("verified", r.verified);
  return v;
}

int run(int argc, char** argv, int provided) {
  int rank = 0, np = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  options opt;
  const hpcoll_bench::command_line cl = command_line_for(opt);
  const auto parsed = hpcoll_bench::parse_command_line(argc, argv, cl, rank == 0, [&] { complete(opt); });
  if (parsed.exit) return *parsed.exit;
  std::vector<variant> variants;
  for (const variant& v : all_variants(opt.thread_poll_us)) {
    if (!selected(v, opt.variants)) continue;
    if ((v.who == impl::thread || v.who == impl::offload) && provided < MPI_THREAD_MULTIPLE) {
      if (rank == 0)
        std::fprintf(stderr, "hpcoll_overlap: MPI does not provide MPI_THREAD_MULTIPLE: %s skipped\n", v.name.c_str());
      continue;
    }
    variants.push_back(v);
  }
  if (variants.empty()) return hpcoll_bench::usage_error(cl, rank == 0, "no variant selected");
  // Once per process, before the first request of the thread policy.
  hpcoll::progress::configure(
      hpcoll::progress::thread_settings{.cpu = -1, .poll_interval = std::chrono::microseconds{opt.thread_poll_us}});

  const hpcoll::communicator hc(MPI_COMM_WORLD);
  MPI_Comm nc;
  MPI_Comm_dup(MPI_COMM_WORLD, &nc);
  const auto started = clock_type::now();
  experiment ex(opt, hc, nc, variants);
  std::vector<case_result> results;
  if (rank == 0) {
    std::printf("hpcoll_overlap: %d ranks, %s; times in us: median over %d repetitions of the slowest rank\n", np,
                mpi_library_version().c_str(), opt.reps);
    std::fflush(stdout);
  }
  for (const std::string& coll : opt.collectives)
    for (const std::size_t bytes : opt.sizes) {
      results.push_back(ex.run(coll, bytes));
      if (rank == 0) print_case(results.back(), np);
    }
  MPI_Comm_free(&nc);

  int rc = 0;
  if (rank == 0) {
    bool all_ok = true;
    json::array rows;
    for (const case_result& c : results) {
      for (const row_result& r : c.rows) {
        rows.push_back(row_json(c, r, np, opt));
        all_ok = all_ok && r.verified;
      }
    }
    if (!opt.out.empty()) {
      json::value doc;
      doc.set("format", "hpcoll-overlap-1");
      doc.set("date", utc_now());
      doc.set("command", hpcoll_bench::command_text(argc, argv));
      doc.set("np", np);
      doc.set("mpi", mpi_library_version());
      doc.set("thread_level", provided == MPI_THREAD_MULTIPLE ? "MPI_THREAD_MULTIPLE" : "below MPI_THREAD_MULTIPLE");
      doc.set("compiler", std::string("g++ ") + __VERSION__);
      json::value settings;
      json::array colls(opt.collectives.begin(), opt.collectives.end());
      settings.set("collectives", std::move(colls));
      json::array sizes;
      for (std::size_t s : opt.sizes) sizes.push_back(s);
      settings.set("sizes", std::move(sizes));
      settings.set("reps", opt.reps);
      settings.set("quick", opt.quick);
      settings.set("thread_poll_us", opt.thread_poll_us);
      settings.set("matrix", opt.matrix ? json::value(opt.matrix) : json::value(nullptr));
      settings.set("iters", opt.iters ? json::value(opt.iters) : json::value(nullptr));
      settings.set("inner_every", opt.inner_every);
      settings.set("outer_target", outer_target);
      doc.set("settings", std::move(settings));
      doc.set("aggregation",
              "per rank and repetition: std::chrono::steady_clock; per repetition the slowest rank (max over ranks; "
              "t_ovl, t_issue, t_comp, t_test, t_wait all from the rank with the largest t_ovl); median over "
              "repetitions");
      doc.set("overlap_osu", "clamp(100 - 100 (t_ovl - (t_comp - t_test)) / t_pure, 0, 100)");
      doc.set("overlap_imb", "100 max(0, min(1, (t_pure + t_cpu - t_ovl) / max(t_pure, t_cpu)))");
      doc.set("speedup", "t_blocking_then_compute / t_ovl");
      doc.set("seconds", since(started));
      doc.set("rows", std::move(rows));
      try {
        json::write_file(opt.out, doc);
        std::printf("\nwrote %s (%.1f s)\n", opt.out.c_str(), since(started));
      } catch (const std::runtime_error& e) {
        std::fprintf(stderr, "hpcoll_overlap: %s\n", e.what());
        rc = 1;
      }
    }
    if (!all_ok) {
      std::fprintf(stderr, "hpcoll_overlap: some collective produced a wrong result (WRONG RESULT rows)\n");
      rc = 1;
    }
  }
  return hpcoll_bench::rank0_status(rc);
}

}  // namespace

int main(int argc, char** argv) {
  return hpcoll_bench::run_main(argc, argv, "hpcoll_overlap", MPI_THREAD_MULTIPLE, run);
}
