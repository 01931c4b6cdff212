// hpcoll_calibrate: measures this machine's hpcoll::machine parameters and
// writes the machine file (select/machine_file.hpp, docs/calibration.md).
//
//   mpiexec -n 2 hpcoll_calibrate [--out=FILE] [--quick]      (./hpcoll calibrate)
//
// Ranks 0 and 1 measure; any other rank waits asleep. Rank 0 writes FILE
// (default: hpcoll::default_machine_path(), directories created) and prints a
// summary.
//
//   alpha, beta  ping-pong between ranks 0 and 1 (MPI_Send/MPI_Recv, one buffer
//                per rank) at 0 B .. 4 MiB; per size the median over samples of
//                the one-way time (round trip / 2, averaged over a batch of
//                round trips for small sizes); a least-squares fit of
//                t(n) = alpha + n*beta weighted by 1/t(n)^2, i.e. minimising
//                the relative residuals (an unweighted fit lets the 4 MiB
//                point decide alpha with an error larger than alpha itself;
//                its values are recorded next to it).
//   gap          bursts of k 8-byte MPI_Isends from rank 0 to rank 1 (the
//                receives pre-posted), timed from the first post to rank 1's
//                acknowledgement of the last; the slope of the medians over k.
//   overhead     the CPU time of one message at each end: rank 0's time to post
//                an 8-byte MPI_Isend (over a burst of 128, receives pre-posted)
//                and rank 1's time per MPI_Recv of an 8-byte message that has
//                already arrived; overhead = their mean (the model charges it
//                at both ends, so the sum is kept).
//   copy         memcpy of 64 MiB buffers on rank 0 (seconds per byte, median);
//                also in cache (256 KiB), recorded only.
//   gamma        hpcoll::detail::combine — the executor's reduction loop — in
//                place (dst = dst op incoming, three unrelated pointers as in
//                the executor) for sum, prod, min, max x int32, int64, float32,
//                float64 on 64 MiB vectors (the value used) and 64 KiB vectors
//                (in cache, recorded); per byte of one operand. "default" is
//                the median of the sixteen.
//
// --quick: fewer sizes, samples and smaller vectors (a second or two); the
// values are rougher. No result is checked against a threshold.
#include <mpi.h>

#include <hpcoll/exec/reduce_kernel.hpp>
#include <hpcoll/mpi_call.hpp>
#include <hpcoll/op.hpp>
#include <hpcoll/select/machine_file.hpp>
#include <hpcoll/select/machine_file_save.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "json_out.hpp"
#include "options.hpp"
#include "run_info.hpp"

namespace {

using hpcoll_bench::human_bytes;
using hpcoll_bench::median;
using hpcoll_bench::mpi_library_version;
using hpcoll_bench::utc_now;

namespace json = hpcoll_bench::json;

constexpr int tag_data = 1, tag_control = 2;
constexpr std::size_t small_message = 8;

struct options {
  std::string out;
  bool quick = false;
};

/// The command line, its values stored in o.
hpcoll_bench::command_line command_line_for(options& o) {
  hpcoll_bench::command_line cl{"hpcoll_calibrate", "usage: mpiexec -n 2 hpcoll_calibrate [--out=FILE] [--quick]"};
  cl.options.add_options()
      ("out", hpcoll_bench::po::value(&o.out)->value_name("FILE"),
       ("where to write the machine file (default: " + hpcoll::default_machine_path() + ")").c_str())
      ("quick", hpcoll_bench::po::bool_switch(&o.quick), "a rough calibration in a second or two (for tests)");
  return cl;
}

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

/// Waits for MPI_Ibarrier / a receive without busy-polling, so a waiting rank
/// leaves its core to the measuring ones.
void quiet_wait(MPI_Request& request) {
  int done = 0;
  for (;;) {
    HPCOLL_MPI(MPI_Test, &request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
}
void quiet_barrier(MPI_Comm comm) {
  MPI_Request r;
  HPCOLL_MPI(MPI_Ibarrier, comm, &r);
  quiet_wait(r);
}
/// Rank 1 sleeps while rank 0 measures alone; rank 0 wakes it with a token.
void sleep_until_token(MPI_Comm comm, int from) {
  int token = 0;
  MPI_Request r;
  HPCOLL_MPI(MPI_Irecv, &token, 1, MPI_INT, from, tag_control, comm, &r);
  quiet_wait(r);
}
void send_token(MPI_Comm comm, int to) {
  int token = 1;
  HPCOLL_MPI(MPI_Send, &token, 1, MPI_INT, to, tag_control, comm);
}

// --- least squares -------------------------------------------------------------

struct line_fit {
  double intercept = 0, slope = 0;
  double rms_rel = 0, max_rel = 0;  // relative residuals (model - t) / t
  bool fallback = false;
};

/// t = intercept + slope * x, minimising sum w_i (t_i - model_i)^2.
line_fit fit_line(const std::vector<double>& x, const std::vector<double>& t, bool relative) {
  double s = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double w = relative ? 1 / (t[i] * t[i]) : 1;
    s += w, sx += w * x[i], sy += w * t[i], sxx += w * x[i] * x[i], sxy += w * x[i] * t[i];
  }
  line_fit f;
  const double det = s * sxx - sx * sx;
  f.slope = (s * sxy - sx * sy) / det;
  f.intercept = (sxx * sy - sx * sxy) / det;
  return f;
}

void residuals(line_fit& f, const std::vector<double>& x, const std::vector<double>& t) {
  double sq = 0;
  f.max_rel = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double r = (f.intercept + f.slope * x[i] - t[i]) / t[i];
    sq += r * r;
    f.max_rel = std::max(f.max_rel, std::abs(r));
  }
  f.rms_rel = std::sqrt(sq / static_cast<double>(x.size()));
}

/// The α-β fit: relative weights; when that gives α <= 0 or β <= 0 (a noisy
/// run), α is the smallest message's time and β is fitted with α fixed.
line_fit fit_alpha_beta(const std::vector<double>& n, const std::vector<double>& t) {
  line_fit f = fit_line(n, t, true);
  if (!(f.intercept > 0 && f.slope > 0)) {
    f.fallback = true;
    f.intercept = t.front();
    double num = 0, den = 0;
    for (std::size_t i = 0; i < n.size(); ++i) {
      const double w = 1 / (t[i] * t[i]);
      num += w * n[i] * (t[i] - f.intercept), den += w * n[i] * n[i];
    }
    f.slope = den > 0 ? std::max(num / den, 1e-15) : 1e-15;
  }
  residuals(f, n, t);
  return f;
}

// --- ping-pong -------------------------------------------------------------------

struct pingpong_point {
  std::size_t bytes = 0;
  std::vector<double> samples;  // one-way seconds
  double median = 0;
};

pingpong_point pingpong(MPI_Comm comm, int rank, std::size_t bytes, int samples, int batch, std::vector<char>& buf) {
  pingpong_point p;
  p.bytes = bytes;
  const int count = static_cast<int>(bytes);
  const auto round_trip = [&] {
    if (rank == 0) {
      HPCOLL_MPI(MPI_Send, buf.data(), count, MPI_BYTE, 1, tag_data, comm);
      HPCOLL_MPI(MPI_Recv, buf.data(), count, MPI_BYTE, 1, tag_data, comm, MPI_STATUS_IGNORE);
    } else {
      HPCOLL_MPI(MPI_Recv, buf.data(), count, MPI_BYTE, 0, tag_data, comm, MPI_STATUS_IGNORE);
      HPCOLL_MPI(MPI_Send, buf.data(), count, MPI_BYTE, 0, tag_data, comm);
    }
  };
  for (int w = 0; w < std::max(2, batch); ++w) round_trip();  // warm-up: connection, buffers, caches
  for (int s = 0; s < samples; ++s) {
    const double t0 = MPI_Wtime();
    for (int b = 0; b < batch; ++b) round_trip();
    p.samples.push_back((MPI_Wtime() - t0) / batch / 2);
  }
  p.median = median(p.samples);
  return p;
}

// --- gap and overhead ----------------------------------------------------------------

struct burst_result {
  int messages = 0;
  double median = 0;       // first post to acknowledgement, seconds (rank 0)
  double post_median = 0;  // rank 0's time to post all k Isends
};

burst_result burst(MPI_Comm comm, int rank, int k, int samples) {
  burst_result res;
  res.messages = k;
  std::vector<char> data(small_message * static_cast<std::size_t>(k));
  std::vector<MPI_Request> req(static_cast<std::size_t>(k));
  std::vector<double> total, posting;
  for (int s = -1; s < samples; ++s) {  // s = -1: warm-up
    if (rank == 1) {
      for (int i = 0; i < k; ++i)
        HPCOLL_MPI(MPI_Irecv, data.data() + small_message * i, static_cast<int>(small_message), MPI_BYTE, 0, tag_data,
                   comm, &req[i]);
      HPCOLL_MPI(MPI_Send, nullptr, 0, MPI_BYTE, 0, tag_control, comm);  // ready
      HPCOLL_MPI(MPI_Waitall, k, req.data(), MPI_STATUSES_IGNORE);
      HPCOLL_MPI(MPI_Send, nullptr, 0, MPI_BYTE, 0, tag_control, comm);  // all arrived
    } else {
      HPCOLL_MPI(MPI_Recv, nullptr, 0, MPI_BYTE, 1, tag_control, comm, MPI_STATUS_IGNORE);
      const double t0 = MPI_Wtime();
      for (int i = 0; i < k; ++i)
        HPCOLL_MPI(MPI_Isend, data.data() + small_message * i, static_cast<int>(small_message), MPI_BYTE, 1, tag_data,
                   comm, &req[i]);
      const double t1 = MPI_Wtime();
      HPCOLL_MPI(MPI_Waitall, k, req.data(), MPI_STATUSES_IGNORE);
      HPCOLL_MPI(MPI_Recv, nullptr, 0, MPI_BYTE, 1, tag_control, comm, MPI_STATUS_IGNORE);
      const double t2 = MPI_Wtime();
      if (s >= 0) total.push_back(t2 - t0), posting.push_back(t1 - t0);
    }
  }
  res.median = median(total);
  res.post_median = median(posting);
  return res;
}

/// Rank 1's time per MPI_Recv of an 8-byte message that is already there:
/// rank 0 sends k messages and then a token; rank 1 receives the token (the
/// k messages, sent before it on the same pair, are then in the unexpected
/// queue) and times the k receives.
double receive_overhead(MPI_Comm comm, int rank, int k, int samples) {
  std::vector<char> data(small_message * static_cast<std::size_t>(k));
  std::vector<MPI_Request> req(static_cast<std::size_t>(k));
  std::vector<double> per;
  for (int s = -1; s < samples; ++s) {
    if (rank == 0) {
      for (int i = 0; i < k; ++i)
        HPCOLL_MPI(MPI_Isend, data.data() + small_message * i, static_cast<int>(small_message), MPI_BYTE, 1, tag_data,
                   comm, &req[i]);
      HPCOLL_MPI(MPI_Send, nullptr, 0, MPI_BYTE, 1, tag_control, comm);
      HPCOLL_MPI(MPI_Waitall, k, req.data(), MPI_STATUSES_IGNORE);
      HPCOLL_MPI(MPI_Recv, nullptr, 0, MPI_BYTE, 1, tag_control, comm, MPI_STATUS_IGNORE);
    } else {
      HPCOLL_MPI(MPI_Recv, nullptr, 0, MPI_BYTE, 0, tag_control, comm, MPI_STATUS_IGNORE);
      const double t0 = MPI_Wtime();
      for (int i = 0; i < k; ++i)
        HPCOLL_MPI(MPI_Recv, data.data() + small_message * i, static_cast<int>(small_message), MPI_BYTE, 0, tag_data,
                   comm, MPI_STATUS_IGNORE);
      if (s >= 0) per.push_back((MPI_Wtime() - t0) / k);
      HPCOLL_MPI(MPI_Send, nullptr, 0, MPI_BYTE, 0, tag_control, comm);
    }
  }
  double result = median(per);
  if (rank == 1) HPCOLL_MPI(MPI_Send, &result, 1, MPI_DOUBLE, 0, tag_control, comm);
  else HPCOLL_MPI(MPI_Recv, &result, 1, MPI_DOUBLE, 1, tag_control, comm, MPI_STATUS_IGNORE);
  return result;
}

// --- local: copy and reduction kernels -------------------------------------------------

volatile double sink = 0;

/// memcpy seconds per byte: median over samples of a batch of copies.
double copy_per_byte(std::size_t bytes, int samples, int batch) {
  std::vector<char> a(bytes, 1), b(bytes, 2);
  std::vector<double> t;
  std::memcpy(b.data(), a.data(), bytes);
  for (int s = 0; s < samples; ++s) {
    const double t0 = now();
    for (int i = 0; i < batch; ++i) {
      std::memcpy((i % 2 ? a : b).data(), (i % 2 ? b : a).data(), bytes);
    }
    t.push_back((now() - t0) / batch / static_cast<double>(bytes));
    sink = sink + a[bytes / 2] + b[bytes / 3];
  }
  return median(t);
}

/// The executor's reduction loop, called through a function the optimiser
/// cannot see into from the caller, so it knows nothing about the pointers —
/// as in the executor, where they come from the plan.
template <class T, class Op>
[[gnu::noinline]] void kernel(T* dst, const T* left, const T* right, std::size_t n, const Op& op) {
  hpcoll::detail::combine(dst, left, right, n, op);
}

template <class T, class Op>
double gamma_per_byte(std::vector<T>& acc, std::vector<T>& in, std::size_t n, int samples, int batch) {
  std::vector<double> t;
  const Op op{};
  kernel(acc.data(), acc.data(), in.data(), n, op);
  for (int s = 0; s < samples; ++s) {
    const double t0 = now();
    for (int i = 0; i < batch; ++i) kernel(acc.data(), acc.data(), in.data(), n, op);
    t.push_back((now() - t0) / batch / static_cast<double>(n * sizeof(T)));
    sink = sink + static_cast<double>(acc[n / 2]);
  }
  return median(t);
}

struct gamma_entry {
  std::string key;
  double large = 0, cache = 0;
};

template <class T>
void gammas_for_type(std::vector<gamma_entry>& out, std::size_t large_bytes, std::size_t cache_bytes, int samples,
                     int cache_batch) {
  const std::size_t n_large = large_bytes / sizeof(T), n_cache = cache_bytes / sizeof(T);
  std::vector<T> acc(n_large), in(n_large);
  const auto run = [&](auto op_tag, T incoming) {
    using Op = decltype(op_tag);
    // Values that keep every op's result stable: sum adds 0, prod multiplies
    // by 1 (no overflow, no subnormals); min/max compare varying values.
    for (std::size_t i = 0; i < n_large; ++i) {
      acc[i] = static_cast<T>(1 + i % 3);
      in[i] = incoming == T(-1) ? static_cast<T>(i % 5) : incoming;
    }
    gamma_entry e;
    e.key = hpcoll::reduction_key<Op, T>();
    e.large = gamma_per_byte<T, Op>(acc, in, n_large, samples, 1);
    e.cache = gamma_per_byte<T, Op>(acc, in, n_cache, samples, cache_batch);
    out.push_back(e);
  };
  run(hpcoll::op::sum{}, T(0));
  run(hpcoll::op::prod{}, T(1));
  run(hpcoll::op::min{}, T(-1));
  run(hpcoll::op::max{}, T(-1));
}

// --- reporting ---------------------------------------------------------------------------

std::string processor_name() {
  char name[MPI_MAX_PROCESSOR_NAME];
  int length = 0;
  MPI_Get_processor_name(name, &length);
  return std::string(name, static_cast<std::size_t>(length));
}

std::string us(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f us", seconds * 1e6);
  return buf;
}
std::string per_byte(double spb) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3e s/B (%.2f GB/s)", spb, 1e-9 / spb);
  return buf;
}
json::array numbers(const std::vector<double>& v) { return json::array(v.begin(), v.end()); }

int run(int argc, char** argv) {
  MPI_Comm comm;
  HPCOLL_MPI(MPI_Comm_dup, MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);

  options opt;
  const hpcoll_bench::command_line cl = command_line_for(opt);
  const auto parsed = hpcoll_bench::parse_command_line(argc, argv, cl, rank == 0, [&] {
    if (size < 2) throw std::invalid_argument("needs at least 2 ranks (mpiexec -n 2)");
    if (opt.out.empty()) opt.out = hpcoll::default_machine_path();
    if (opt.out.empty()) throw std::invalid_argument("no HPCOLL_MACHINE, XDG_CONFIG_HOME or HOME: give --out=FILE");
  });
  if (parsed.exit) {
    MPI_Comm_free(&comm);
    return *parsed.exit;
  }
  const std::string& out = opt.out;

  const double started = now();
  const bool quick = opt.quick;
  if (rank >= 2) {  // idle: not part of any measurement
    quiet_barrier(comm);
    MPI_Comm_free(&comm);
    return 0;
  }

  // Where the two measuring ranks run.
  std::string host = processor_name(), peer_host(MPI_MAX_PROCESSOR_NAME, '\0');
  if (rank == 1) {
    HPCOLL_MPI(MPI_Send, host.data(), static_cast<int>(host.size()), MPI_CHAR, 0, tag_control, comm);
  } else {
    MPI_Status st;
    int len = 0;
    HPCOLL_MPI(MPI_Recv, peer_host.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 1, tag_control, comm, &st);
    MPI_Get_count(&st, MPI_CHAR, &len);
    peer_host.resize(static_cast<std::size_t>(len));
  }

  // 1. Ping-pong.
  const std::vector<std::size_t> sizes =
      quick ? std::vector<std::size_t>{0, 64, 4096, 65536, 1 << 20}
            : std::vector<std::size_t>{0, 8, 32, 128, 512, 2048, 8192, 32768, 131072, 524288, 1 << 20, 2 << 20, 4 << 20};
  std::vector<char> buf(sizes.back());
  std::vector<pingpong_point> points;
  for (std::size_t n : sizes) {
    const int batch = n <= 8192 ? 20 : n <= 131072 ? 5 : 1;
    points.push_back(pingpong(comm, rank, n, quick ? 7 : 61, batch, buf));
  }

  // 2. Gap and overhead.
  const std::vector<int> bursts = quick ? std::vector<int>{1, 64} : std::vector<int>{1, 16, 64, 128, 256};
  std::vector<burst_result> burst_results;
  for (int k : bursts) burst_results.push_back(burst(comm, rank, k, quick ? 5 : 31));
  const double o_recv = receive_overhead(comm, rank, 128, quick ? 5 : 31);

  // 3. Local: memcpy and the reduction kernels on rank 0, rank 1 asleep.
  const std::size_t copy_large = quick ? 8u << 20 : 64u << 20, copy_cache = 256u << 10;
  const std::size_t gamma_large = quick ? 4u << 20 : 64u << 20, gamma_cache = 64u << 10;
  double copy_large_spb = 0, copy_cache_spb = 0;
  std::vector<gamma_entry> gammas;
  if (rank == 1) {
    sleep_until_token(comm, 0);
  } else {
    copy_large_spb = copy_per_byte(copy_large, quick ? 3 : 21, 1);
    copy_cache_spb = copy_per_byte(copy_cache, quick ? 3 : 21, 200);
    const int samples = quick ? 3 : 11, cache_batch = quick ? 50 : 200;
    gammas_for_type<std::int32_t>(gammas, gamma_large, gamma_cache, samples, cache_batch);
    gammas_for_type<std::int64_t>(gammas, gamma_large, gamma_cache, samples, cache_batch);
    gammas_for_type<float>(gammas, gamma_large, gamma_cache, samples, cache_batch);
    gammas_for_type<double>(gammas, gamma_large, gamma_cache, samples, cache_batch);
    send_token(comm, 1);
  }

  int rc = 0;
  if (rank == 0) {
    // Fits.
    std::vector<double> n, t;
    for (const pingpong_point& p : points) n.push_back(static_cast<double>(p.bytes)), t.push_back(p.median);
    const line_fit ab = fit_alpha_beta(n, t);
    line_fit absolute = fit_line(n, t, false);
    residuals(absolute, n, t);
    std::vector<double> k, tk;
    for (const burst_result& b : burst_results) k.push_back(b.messages), tk.push_back(b.median);
    const line_fit g = fit_line(k, tk, false);
    const burst_result& longest = burst_results.back();
    const double o_send = longest.post_median / longest.messages;
    const double gap = g.slope > 0 ? g.slope : longest.median / longest.messages;

    std::vector<double> larges;
    for (const gamma_entry& e : gammas) larges.push_back(e.large);

    hpcoll::machine_profile p;
    p.source = out;
    p.base.alpha = ab.intercept;
    p.base.beta = ab.slope;
    p.base.gap = gap;
    p.base.overhead = (o_send + o_recv) / 2;
    p.base.copy = copy_large_spb;
    p.base.gamma = median(larges);
    for (const gamma_entry& e : gammas) {
      const auto slash = e.key.find('/');
      p.gammas.push_back({e.key.substr(0, slash), e.key.substr(slash + 1), e.large});
    }

    // What was measured, for the record.
    json::value m;
    m.set("date", utc_now());
    m.set("host", host);
    m.set("peer_host", peer_host);
    m.set("mpi", mpi_library_version());
    m.set("np", size);
    const char* command = std::getenv("HPCOLL_CALIBRATE_COMMAND");
    m.set("command", command && *command ? std::string(command) : hpcoll_bench::command_text(argc, argv));
    m.set("quick", quick);
    m.set("compiler", std::string("g++ ") + __VERSION__);
    json::array pp;
    for (const pingpong_point& q : points) {
      json::value e;
      e.set("bytes", q.bytes);
      e.set("median", q.median);
      e.set("model", ab.intercept + ab.slope * static_cast<double>(q.bytes));
      e.set("samples", numbers(q.samples));
      pp.push_back(std::move(e));
    }
    m.set("pingpong", std::move(pp));
    json::value fit;
    fit.set("model", "t(n) = alpha + n * beta, one-way time (round trip / 2), median per size");
    fit.set("method", ab.fallback ? "alpha = t(smallest size); beta by least squares weighted by 1/t^2"
                                  : "least squares weighted by 1/t^2 (relative residuals)");
    fit.set("alpha", ab.intercept);
    fit.set("beta", ab.slope);
    fit.set("rms_relative_residual", ab.rms_rel);
    fit.set("max_relative_residual", ab.max_rel);
    json::value abs_fit;
    abs_fit.set("alpha", absolute.intercept);
    abs_fit.set("beta", absolute.slope);
    abs_fit.set("rms_relative_residual", absolute.rms_rel);
    fit.set("unweighted", std::move(abs_fit));
    // The per-byte time between the two largest sizes, for comparison with beta.
    if (points.size() >= 2) {
      const pingpong_point &a = points[points.size() - 2], &b = points.back();
      fit.set("large_message_beta", (b.median - a.median) / static_cast<double>(b.bytes - a.bytes));
    }
    m.set("fit", std::move(fit));
    json::value gj;
    gj.set("message_bytes", small_message);
    json::array bj;
    for (const burst_result& b : burst_results) {
      json::value e;
      e.set("messages", b.messages);
      e.set("median", b.median);
      e.set("post_median", b.post_median);
      bj.push_back(std::move(e));
    }
    gj.set("bursts", std::move(bj));
    gj.set("slope", g.slope);
    gj.set("intercept", g.intercept);
    m.set("gap", std::move(gj));
    json::value oj;
    oj.set("send", o_send);
    oj.set("recv", o_recv);
    oj.set("message_bytes", small_message);
    m.set("overhead", std::move(oj));
    json::value cj;
    cj.set("bytes", copy_large);
    cj.set("per_byte", copy_large_spb);
    cj.set("cache_bytes", copy_cache);
    cj.set("cache_per_byte", copy_cache_spb);
    m.set("copy", std::move(cj));
    json::value gm;
    gm.set("kernel", "hpcoll::detail::combine, in place (dst = dst op incoming)");
    gm.set("vector_bytes", gamma_large);
    gm.set("cache_vector_bytes", gamma_cache);
    json::value cache;
    for (const gamma_entry& e : gammas) cache.set(e.key, e.cache);
    gm.set("cache", std::move(cache));
    gm.set("default", "the median of the sixteen large-vector values (the \"gamma\" entries of the file)");
    m.set("gamma", std::move(gm));
    m.set("seconds", now() - started);
    p.measured = hpcoll::detail::json_text(m.get());

    // Summary.
    std::printf("hpcoll calibrate: %d ranks, ranks 0 and 1 on %s%s%s; %s%s\n", size, host.c_str(),
                peer_host == host ? "" : " and ", peer_host == host ? "" : peer_host.c_str(),
                mpi_library_version().c_str(), quick ? " (--quick)" : "");
    std::printf("\nping-pong, one-way time (median of %zu samples per size):\n", points.front().samples.size());
    std::printf("  %10s  %12s  %12s  %9s\n", "bytes", "measured", "alpha+n*beta", "residual");
    for (const pingpong_point& q : points) {
      const double model = ab.intercept + ab.slope * static_cast<double>(q.bytes);
      std::printf("  %10zu  %12s  %12s  %+8.1f%%\n", q.bytes, us(q.median).c_str(), us(model).c_str(),
                  100 * (model - q.median) / q.median);
    }
    std::printf("\n  alpha     %s\n", us(p.base.alpha).c_str());
    std::printf("  beta      %s\n", per_byte(p.base.beta).c_str());
    std::printf("  fit       %s; relative residual rms %.1f%%, max %.1f%%\n",
                ab.fallback ? "alpha fixed to t(smallest), beta weighted least squares" : "weighted least squares (1/t^2)",
                100 * ab.rms_rel, 100 * ab.max_rel);
    std::printf("            (unweighted least squares: alpha %s, beta %.3e s/B, residual rms %.1f%%)\n",
                us(absolute.intercept).c_str(), absolute.slope, 100 * absolute.rms_rel);
    if (points.size() >= 2) {
      const pingpong_point &a = points[points.size() - 2], &b = points.back();
      std::printf("            (per byte between %s and %s: %s)\n", human_bytes(a.bytes).c_str(),
                  human_bytes(b.bytes).c_str(),
                  per_byte((b.median - a.median) / static_cast<double>(b.bytes - a.bytes)).c_str());
    }
    std::printf("  gap       %s per message (bursts of", us(p.base.gap).c_str());
    for (const burst_result& b : burst_results) std::printf(" %d", b.messages);
    std::printf(" 8-byte Isends)\n");
    std::printf("  overhead  %s (Isend post %s, Recv of an arrived message %s)\n", us(p.base.overhead).c_str(),
                us(o_send).c_str(), us(o_recv).c_str());
    std::printf("  copy      %s memcpy %s; in cache (%s) %s\n", per_byte(p.base.copy).c_str(),
                human_bytes(copy_large).c_str(), human_bytes(copy_cache).c_str(), per_byte(copy_cache_spb).c_str());
    std::printf("  gamma     %s (default: median of the reductions below)\n", per_byte(p.base.gamma).c_str());
    std::printf("\nreductions, hpcoll::detail::combine in place, GB/s of one operand (%s vectors / %s in cache):\n",
                human_bytes(gamma_large).c_str(), human_bytes(gamma_cache).c_str());
    std::printf("  %-8s", "");
    for (const char* type : {"int32", "int64", "float32", "float64"}) std::printf("  %15s", type);
    std::printf("\n");
    for (const char* o : {"sum", "prod", "min", "max"}) {
      std::printf("  %-8s", o);
      for (const char* type : {"int32", "int64", "float32", "float64"})
        for (const gamma_entry& e : gammas)
          if (e.key == std::string(o) + "/" + type) {
            char cell[32];
            std::snprintf(cell, sizeof cell, "%6.2f / %6.2f", 1e-9 / e.large, 1e-9 / e.cache);
            std::printf("  %15s", cell);
          }
      std::printf("\n");
    }
    try {
      hpcoll::save_machine_profile(p, out);
      std::printf("\nwrote %s (%.1f s)\n", out.c_str(), now() - started);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "hpcoll_calibrate: %s\n", e.what());
      rc = 1;
    }
    std::fflush(stdout);
  }
  quiet_barrier(comm);
  MPI_Comm_free(&comm);
  return rc;
}

}  // namespace

int main(int argc, char** argv) { return hpcoll_bench::run_main(argc, argv, "hpcoll_calibrate", run); }
