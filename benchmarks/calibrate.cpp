// SPDX-License-Identifier: BSD-3-Clause
// hpcoll_calibrate: measures this machine's hpcoll::machine parameters and
// writes the machine file (select/machine_file.hpp, docs/calibration.md).
//
//   mpiexec -n 2 hpcoll_calibrate [--out=FILE] [--quick]      (./hpcoll calibrate)
//
// Rank 0 and the next rank on its node measure; any other rank waits asleep. Rank 0 writes FILE
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
//   mailbox_alpha, mailbox_beta
//                a ping-pong as above through hpcoll's own shared-memory
//                mailboxes (exec/node_mailboxes.hpp), 8 B to the largest message
//                they take between two ranks (8 KiB), fitted as alpha and beta;
//                the defaults stay with HPCOLL_SHARED_MEMORY=0.
//   copy         memcpy of 64 MiB buffers on rank 0 (seconds per byte, median);
//                also in cache (256 KiB), recorded only.
//   gamma        hpcoll::detail::combine — the executor's reduction loop — in
//                place (dst = dst op incoming, three unrelated pointers as in
//                the executor) for sum, prod, min, max x int32, int64, float32,
//                float64 on 64 MiB vectors (the value used) and 64 KiB vectors
//                (in cache); per byte of one operand. "default" is the median
//                of the sixteen, gamma_cached the median in cache.
//   cache_bytes  sum/int32 from 64 KiB up, doubling: the largest vector still
//                reduced nearer the in-cache rate than the large one (geometric
//                midpoint); copy_cached is memcpy in cache (256 KiB).
//   eager_bytes, rendezvous
//                the transport's protocol step: ping-pong from 1 KiB to 256 KiB
//                in steps of sqrt(2); the largest jump above the beta line,
//                relative to the time before it, that lasts (the size after
//                next is above it too), when it exceeds a quarter, is bisected
//                to 16 bytes; eager_bytes is the last size before it,
//                rendezvous its height (0, and eager_bytes 256 KiB, when there
//                is no such jump).
//   eager_copy   the slope of the ping-pong sizes from 1 byte to eager_bytes
//                with alpha fixed (weighted as the alpha-beta fit), less beta:
//                eager messages are copied in and out of the transport's
//                buffers; 0 when there is no protocol step or the slope is
//                below beta.
//   switch_time  ranks 0 and 1 on one core (Linux affinity): the one-way time
//                of 8 bytes then, minus that on their own cores — what a rank
//                waiting for a message pays for each other rank on its core.
//   source_beta  rank 0 sends one buffer of 4 MiB to every other rank of its
//                node at once (MPI_Isend each, they MPI_Recv), timed from a
//                barrier to the root's MPI_Waitall; per byte given out, all
//                receivers together: the bandwidth their copies out of its
//                memory share. Only with 3 or more ranks on rank 0's node and
//                a core each (./hpcoll calibrate --np 4 or more; else the
//                default stays and the record says why).
//   inter_alpha, inter_beta, port_beta
//                only when the ranks span several nodes (MPI_COMM_TYPE_SHARED):
//                a ping-pong between rank 0 and the first rank of another
//                node, fitted as above (between nodes); then the k ranks of
//                rank 0's node each stream large messages to one rank of that
//                node at once (k = the smaller node's rank count): port_beta
//                is their time per byte in all. With one rank per node the
//                port's share is not seen: port_beta is one stream's.
//
// The measurements inside a node use rank 0 and the next rank on its node.
//
// --quick: fewer sizes, samples and smaller vectors (a second or two); the
// values are rougher. No result is checked against a threshold.
#include <mpi.h>
#if defined(__linux__)
#include <sched.h>
#endif

#include <hpcoll/communicator.hpp>
#include <hpcoll/exec/node_mailboxes.hpp>
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
#include <utility>
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

/// The slope of t = intercept + slope * x with the intercept fixed, least
/// squares weighted by 1/t^2; 0 without data.
double slope_through(double intercept, const std::vector<double>& x, const std::vector<double>& t) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double w = 1 / (t[i] * t[i]);
    num += w * x[i] * (t[i] - intercept), den += w * x[i] * x[i];
  }
  return den > 0 ? num / den : 0;
}

/// The α-β fit: relative weights; when that gives α <= 0 or β <= 0 (a noisy
/// run), α is the smallest message's time and β is fitted with α fixed.
line_fit fit_alpha_beta(const std::vector<double>& n, const std::vector<double>& t) {
  line_fit f = fit_line(n, t, true);
  if (!(f.intercept > 0 && f.slope > 0)) {
    f.fallback = true;
    f.intercept = t.front();
    f.slope = std::max(slope_through(f.intercept, n, t), 1e-15);
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

/// The one-way time of `bytes`: round_trip() timed in batches, after a warm-up.
template <class RoundTrip>
pingpong_point time_round_trips(std::size_t bytes, int samples, int batch, RoundTrip round_trip) {
  pingpong_point p;
  p.bytes = bytes;
  for (int w = 0; w < std::max(2, batch); ++w) round_trip();  // warm-up: connection, buffers, caches
  for (int s = 0; s < samples; ++s) {
    const double t0 = MPI_Wtime();
    for (int b = 0; b < batch; ++b) round_trip();
    p.samples.push_back((MPI_Wtime() - t0) / batch / 2);
  }
  p.median = median(p.samples);
  return p;
}

pingpong_point pingpong(MPI_Comm comm, int rank, std::size_t bytes, int samples, int batch, std::vector<char>& buf) {
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
  return time_round_trips(bytes, samples, batch, round_trip);
}

/// Why the mailbox rates were not measured, when mailbox_pingpongs() timed fewer than two sizes.
constexpr const char* mailboxes_not_measured =
    "fewer than two sizes through the mailboxes: HPCOLL_SHARED_MEMORY=0, or a message limit below 1 KiB";

/// pingpong() through the node's mailboxes (exec/node_mailboxes.hpp), the way a
/// blocking collective sends its small messages, at `sizes` (each at most
/// shared_message_bytes(2)); nothing when the communicator has none
/// (HPCOLL_SHARED_MEMORY=0).
std::vector<pingpong_point> mailbox_pingpongs(MPI_Comm comm, int rank, const std::vector<std::size_t>& sizes,
                                              int samples, std::vector<char>& buf) {
  const hpcoll::communicator c(comm);
  hpcoll::detail::node_mailboxes* const boxes = hpcoll::detail::mailboxes_of(c);
  std::vector<pingpong_point> points;
  if (!boxes) return points;
  const int peer = 1 - rank;
  for (const std::size_t bytes : sizes) {
    const auto round_trip = [&] {
      if (rank == 0) {
        boxes->send(peer, buf.data(), bytes);
        (void)boxes->receive(peer, buf.data(), bytes);
      } else {
        (void)boxes->receive(peer, buf.data(), bytes);
        boxes->send(peer, buf.data(), bytes);
      }
    };
    points.push_back(time_round_trips(bytes, samples, 20, round_trip));
  }
  return points;
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

// --- the protocol step and a shared core --------------------------------------------------

/// Ping-pongs of sizes rank 0 chooses as it goes: rank 0 calls measure(n),
/// rank 1 serve() until rank 0 calls stop().
class ping_service {
public:
  ping_service(MPI_Comm comm, int rank, int samples, std::vector<char>& buf)
      : comm_(comm), rank_(rank), samples_(samples), buf_(&buf) {}
  pingpong_point measure(std::size_t bytes) {
    tell(bytes);
    return pingpong(comm_, rank_, bytes, samples_, batch(bytes), *buf_);
  }
  void stop() { tell(stop_size); }
  void serve() {
    for (;;) {
      unsigned long long bytes = 0;
      HPCOLL_MPI(MPI_Recv, &bytes, 1, MPI_UNSIGNED_LONG_LONG, 0, tag_control, comm_, MPI_STATUS_IGNORE);
      if (bytes == stop_size) return;
      pingpong(comm_, rank_, bytes, samples_, batch(bytes), *buf_);
    }
  }

private:
  static constexpr unsigned long long stop_size = ~0ULL;
  static int batch(std::size_t bytes) { return bytes <= 65536 ? 20 : 5; }
  void tell(unsigned long long bytes) {
    HPCOLL_MPI(MPI_Send, &bytes, 1, MPI_UNSIGNED_LONG_LONG, 1, tag_control, comm_);
  }
  MPI_Comm comm_;
  int rank_, samples_;
  std::vector<char>* buf_;
};

struct protocol_step {
  bool found = false;
  std::size_t eager_bytes = 256 << 10;  // the scan's end when there is no step
  double rendezvous = 0;
  std::vector<pingpong_point> scan, bisection;
};

/// Rank 0's side of the search for the transport's protocol step (rank 1 serves).
protocol_step find_protocol_step(ping_service& ping, double beta) {
  protocol_step r;
  for (int k = 0; k <= 16; ++k)
    r.scan.push_back(ping.measure(static_cast<std::size_t>(std::lround(1024 * std::pow(2.0, k / 2.0))) / 8 * 8));
  const auto jump = [&](const pingpong_point& a, const pingpong_point& b) {
    return b.median - a.median - beta * static_cast<double>(b.bytes - a.bytes);
  };
  // A step stays: the time two sizes on is above the line too (a spike of
  // one noisy size does not). Relative to the time before it: the β line is
  // an average, and large messages drift above it by more than α.
  const auto step = [&](std::size_t k) {
    return std::min(jump(r.scan[k], r.scan[k + 1]), jump(r.scan[k], r.scan[k + 2])) / r.scan[k].median;
  };
  std::size_t at = 0;
  for (std::size_t k = 1; k + 2 < r.scan.size(); ++k)
    if (step(k) > step(at)) at = k;
  pingpong_point lo = r.scan[at], hi = r.scan[at + 1];
  if (!(step(at) > 0.25)) return r;
  r.found = true;
  while (hi.bytes - lo.bytes > 16) {
    const pingpong_point mid = ping.measure((lo.bytes + hi.bytes) / 2 / 8 * 8);
    r.bisection.push_back(mid);
    const double below = lo.median + beta * static_cast<double>(mid.bytes - lo.bytes);
    const double above = hi.median - beta * static_cast<double>(hi.bytes - mid.bytes);
    (std::abs(mid.median - below) <= std::abs(mid.median - above) ? lo : hi) = mid;
  }
  r.eager_bytes = lo.bytes;
  r.rendezvous = std::max(0.0, jump(lo, hi));
  return r;
}

struct shared_core {
  bool measured = false;
  int cpu = -1;
  pingpong_point apart;    // 8 bytes one way, each rank on its own cores
  pingpong_point one_way;  // 8 bytes, both ranks on `cpu`
};

/// Both ranks pinned to rank 0's first CPU for an 8-byte ping-pong, then back
/// to their own affinity. Not measured where the OS does not let a rank pin
/// itself there (then both ranks say so and skip it).
shared_core on_one_core(MPI_Comm comm, int rank, int samples, std::vector<char>& buf) {
  shared_core r;
  r.apart = pingpong(comm, rank, small_message, samples, 20, buf);
#if defined(__linux__)
  cpu_set_t own;
  CPU_ZERO(&own);
  int cpu = -1;
  if (sched_getaffinity(0, sizeof own, &own) == 0)
    for (int c = 0; c < CPU_SETSIZE && cpu < 0; ++c)
      if (CPU_ISSET(c, &own)) cpu = c;
  if (rank == 0)
    HPCOLL_MPI(MPI_Send, &cpu, 1, MPI_INT, 1, tag_control, comm);
  else
    HPCOLL_MPI(MPI_Recv, &cpu, 1, MPI_INT, 0, tag_control, comm, MPI_STATUS_IGNORE);
  cpu_set_t one;
  CPU_ZERO(&one);
  if (cpu >= 0) CPU_SET(cpu, &one);
  int pinned = cpu >= 0 && sched_setaffinity(0, sizeof one, &one) == 0 ? 1 : 0, other = 0;
  HPCOLL_MPI(MPI_Sendrecv, &pinned, 1, MPI_INT, 1 - rank, tag_control, &other, 1, MPI_INT, 1 - rank, tag_control, comm,
             MPI_STATUS_IGNORE);
  if (pinned && other) {
    r.measured = true;
    r.cpu = cpu;
    r.one_way = pingpong(comm, rank, small_message, samples, 20, buf);
  }
  if (pinned) sched_setaffinity(0, sizeof own, &own);
#else
  (void)comm, (void)rank, (void)samples, (void)buf;
#endif
  return r;
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

/// sum/int32 per byte at 64 KiB, 128 KiB, ... up to max_bytes.
std::vector<std::pair<std::size_t, double>> gamma_by_size(std::size_t max_bytes, int samples) {
  std::vector<std::int32_t> acc(max_bytes / 4, 1), in(max_bytes / 4, 0);
  std::vector<std::pair<std::size_t, double>> r;
  for (std::size_t bytes = 64 << 10; bytes <= max_bytes; bytes *= 2)
    r.emplace_back(bytes, gamma_per_byte<std::int32_t, hpcoll::op::sum>(
                              acc, in, bytes / 4, samples, static_cast<int>(std::max<std::size_t>(1, (8u << 20) / bytes))));
  return r;
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

json::array points_json(const std::vector<pingpong_point>& v, bool with_samples) {
  json::array a;
  for (const pingpong_point& q : v) {
    json::value e;
    e.set("bytes", q.bytes);
    e.set("median", q.median);
    if (with_samples) e.set("samples", numbers(q.samples));
    a.push_back(std::move(e));
  }
  return a;
}

/// The node of each rank (MPI_COMM_TYPE_SHARED), numbered in the order of
/// their first ranks.
std::vector<int> nodes_of_ranks(MPI_Comm comm, int rank, int size) {
  MPI_Comm node;
  HPCOLL_MPI(MPI_Comm_split_type, comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int first = rank;
  HPCOLL_MPI(MPI_Allreduce, MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, node);
  MPI_Comm_free(&node);
  std::vector<int> firsts(static_cast<std::size_t>(size));
  HPCOLL_MPI(MPI_Allgather, &first, 1, MPI_INT, firsts.data(), 1, MPI_INT, comm);
  std::vector<int> index(static_cast<std::size_t>(size), -1), out(static_cast<std::size_t>(size));
  int nodes = 0;
  for (std::size_t q = 0; q < firsts.size(); ++q) {
    int& n = index[static_cast<std::size_t>(firsts[q])];
    if (n < 0) n = nodes++;
    out[q] = n;
  }
  return out;
}

/// The ranks of `comm` for which `take` holds, as a communicator in rank order (MPI_COMM_NULL elsewhere).
MPI_Comm sub_communicator(MPI_Comm comm, int rank, bool take) {
  MPI_Comm out;
  HPCOLL_MPI(MPI_Comm_split, comm, take ? 0 : MPI_UNDEFINED, rank, &out);
  return out;
}

struct one_source {
  bool measured = false;
  std::string why_not;  ///< when not measured
  int receivers = 0;
  std::size_t bytes = 0;
  std::vector<double> samples;  ///< seconds per byte given out, all receivers together
  double source_beta = 0;
};

/// One source, many receivers (see the file comment): every rank calls it.
one_source measure_one_source(MPI_Comm comm, int rank, const std::vector<int>& node_of, bool quick) {
  one_source s;
  const int mine = node_of[static_cast<std::size_t>(rank)];
  s.receivers = static_cast<int>(std::count(node_of.begin(), node_of.end(), node_of[0])) - 1;
  if (s.receivers < 2) {
    s.why_not = "needs 3 or more ranks on rank 0's node, a core each: ./hpcoll calibrate --np 4";
    return s;
  }
  MPI_Comm node = sub_communicator(comm, rank, mine == node_of[0]);
  if (node == MPI_COMM_NULL) return s;
  if (hpcoll::detail::crowding(node).ranks_per_core > 1) {  // receivers taking turns on the cores share nothing
    s.why_not = "more ranks than cores on rank 0's node";
    MPI_Comm_free(&node);
    return s;
  }
  s.measured = true;
  int root_or_receiver = 0;
  MPI_Comm_rank(node, &root_or_receiver);
  s.bytes = quick ? std::size_t{1} << 20 : std::size_t{4} << 20;
  std::vector<char> data(s.bytes, 1);
  std::vector<MPI_Request> requests(static_cast<std::size_t>(s.receivers));
  const int count = static_cast<int>(s.bytes);
  for (int sample = -1; sample < (quick ? 3 : 15); ++sample) {  // sample -1: warm-up
    HPCOLL_MPI(MPI_Barrier, node);
    const double t0 = MPI_Wtime();
    if (root_or_receiver == 0) {
      for (int q = 1; q <= s.receivers; ++q)
        HPCOLL_MPI(MPI_Isend, data.data(), count, MPI_BYTE, q, tag_data, node, &requests[static_cast<std::size_t>(q - 1)]);
      HPCOLL_MPI(MPI_Waitall, s.receivers, requests.data(), MPI_STATUSES_IGNORE);
      if (sample >= 0) s.samples.push_back((MPI_Wtime() - t0) / (static_cast<double>(s.bytes) * s.receivers));
    } else {
      HPCOLL_MPI(MPI_Recv, data.data(), count, MPI_BYTE, 0, tag_data, node, MPI_STATUS_IGNORE);
    }
  }
  if (root_or_receiver == 0) s.source_beta = median(s.samples);
  MPI_Comm_free(&node);
  return s;
}

struct between_nodes {
  bool measured = false;
  std::vector<pingpong_point> points;
  line_fit fit;
  int streams = 0;            ///< ranks of a node streaming at once
  std::size_t stream_bytes = 0;
  std::vector<double> port_samples;  ///< seconds per byte of all streams together
  double port_beta = 0;
};

/// The measurements between nodes (see the file comment): every rank calls it.
between_nodes measure_between_nodes(MPI_Comm comm, int rank, const std::vector<int>& node_of, bool quick,
                                    const std::vector<std::size_t>& sizes, std::vector<char>& buf) {
  between_nodes b;
  const int other = static_cast<int>(std::find_if(node_of.begin(), node_of.end(), [&](int n) { return n != node_of[0]; }) -
                                     node_of.begin());
  if (other == static_cast<int>(node_of.size())) return b;
  b.measured = true;
  // Ping-pong between rank 0 and the first rank of the other node.
  if (MPI_Comm pair = sub_communicator(comm, rank, rank == 0 || rank == other); pair != MPI_COMM_NULL) {
    int prank = 0;
    MPI_Comm_rank(pair, &prank);
    for (std::size_t n : sizes) {
      const int batch = n <= 8192 ? 20 : n <= 131072 ? 5 : 1;
      b.points.push_back(pingpong(pair, prank, n, quick ? 7 : 31, batch, buf));
    }
    MPI_Comm_free(&pair);
  }
  // k streams from rank 0's node to the other node at once.
  std::vector<int> first_node, second_node;
  for (int q = 0; q < static_cast<int>(node_of.size()); ++q) {
    if (node_of[static_cast<std::size_t>(q)] == node_of[0]) first_node.push_back(q);
    if (node_of[static_cast<std::size_t>(q)] == node_of[static_cast<std::size_t>(other)]) second_node.push_back(q);
  }
  b.streams = static_cast<int>(std::min(first_node.size(), second_node.size()));
  const auto position = [&](const std::vector<int>& v) {
    const auto it = std::find(v.begin(), v.end(), rank);
    return it == v.end() ? -1 : static_cast<int>(it - v.begin());
  };
  const int sender = position(first_node), receiver = position(second_node);
  const bool streaming = (sender >= 0 && sender < b.streams) || (receiver >= 0 && receiver < b.streams);
  b.stream_bytes = quick ? std::size_t{1} << 20 : std::size_t{4} << 20;
  const int repeats = quick ? 2 : 8;
  if (MPI_Comm streams = sub_communicator(comm, rank, streaming); streams != MPI_COMM_NULL) {
    std::vector<char> data(b.stream_bytes);
    const int count = static_cast<int>(b.stream_bytes);
    for (int sample = -1; sample < (quick ? 3 : 11); ++sample) {  // sample -1: warm-up
      HPCOLL_MPI(MPI_Barrier, streams);
      const double t0 = MPI_Wtime();
      for (int i = 0; i < repeats; ++i) {
        if (sender >= 0 && sender < b.streams)
          HPCOLL_MPI(MPI_Send, data.data(), count, MPI_BYTE, second_node[static_cast<std::size_t>(sender)], tag_data, comm);
        else
          HPCOLL_MPI(MPI_Recv, data.data(), count, MPI_BYTE, first_node[static_cast<std::size_t>(receiver)], tag_data,
                     comm, MPI_STATUS_IGNORE);
      }
      HPCOLL_MPI(MPI_Barrier, streams);
      if (sample >= 0)
        b.port_samples.push_back((MPI_Wtime() - t0) / (static_cast<double>(b.stream_bytes) * repeats * b.streams));
    }
    MPI_Comm_free(&streams);
  }
  if (rank == 0) {
    std::vector<double> n, t;
    for (const pingpong_point& p : b.points) n.push_back(static_cast<double>(p.bytes)), t.push_back(p.median);
    b.fit = fit_alpha_beta(n, t);
    b.port_beta = median(b.port_samples);
  }
  return b;
}

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
  const std::vector<int> node_of = nodes_of_ranks(comm, rank, size);
  const int node_count = *std::max_element(node_of.begin(), node_of.end()) + 1;
  int partner = 1;  // the next rank on rank 0's node
  while (partner < size && node_of[static_cast<std::size_t>(partner)] != node_of[0]) ++partner;
  if (partner == size) {
    if (rank == 0)
      std::fprintf(stderr, "hpcoll_calibrate: rank 0 is the only rank on its node; it needs a second one there to "
                           "measure inside a node (e.g. mpiexec --map-by core)\n");
    MPI_Comm_free(&comm);
    return 1;
  }
  const std::vector<std::size_t> sizes =
      quick ? std::vector<std::size_t>{0, 64, 4096, 65536, 1 << 20}
            : std::vector<std::size_t>{0, 8, 32, 128, 512, 2048, 8192, 32768, 131072, 524288, 1 << 20, 2 << 20, 4 << 20};
  std::vector<char> buf(sizes.back());
  const int world_rank = rank;
  const MPI_Comm all = comm;
  comm = sub_communicator(all, world_rank, rank == 0 || rank == partner);  // they are ranks 0 and 1 of it
  if (comm == MPI_COMM_NULL) {  // idle while rank 0 and its partner measure inside their node
    comm = all;
    quiet_barrier(comm);
    (void)measure_one_source(comm, rank, node_of, quick);
    (void)measure_between_nodes(comm, rank, node_of, quick, sizes, buf);
    quiet_barrier(comm);
    MPI_Comm_free(&comm);
    return 0;
  }
  MPI_Comm_rank(comm, &rank);

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
  std::vector<pingpong_point> points;
  for (std::size_t n : sizes) {
    const int batch = n <= 8192 ? 20 : n <= 131072 ? 5 : 1;
    points.push_back(pingpong(comm, rank, n, quick ? 7 : 61, batch, buf));
  }

  std::vector<double> n, t;
  for (const pingpong_point& p : points) n.push_back(static_cast<double>(p.bytes)), t.push_back(p.median);
  const line_fit straight = fit_alpha_beta(n, t);

  // 1b. Ping-pong through the node's mailboxes, up to the largest message they take.
  std::vector<std::size_t> mailbox_sizes;
  for (const std::size_t bytes : quick ? std::vector<std::size_t>{8, 1024, 8192}
                                       : std::vector<std::size_t>{8, 64, 256, 1024, 2048, 4096, 8192})
    if (bytes <= hpcoll::detail::shared_message_bytes(2)) mailbox_sizes.push_back(bytes);
  const std::vector<pingpong_point> mailbox_points =
      mailbox_pingpongs(comm, rank, mailbox_sizes, quick ? 7 : 61, buf);
  std::vector<double> mailbox_n, mailbox_t;
  for (const pingpong_point& q : mailbox_points)
    mailbox_n.push_back(static_cast<double>(q.bytes)), mailbox_t.push_back(q.median);
  const bool mailbox_measured = mailbox_points.size() >= 2;
  const line_fit mailbox_fit = mailbox_measured ? fit_alpha_beta(mailbox_n, mailbox_t) : line_fit{};

  // 2. The protocol step and the cost of a shared core.
  ping_service ping(comm, rank, quick ? 5 : 15, buf);
  protocol_step step;
  if (rank == 0) {
    step = find_protocol_step(ping, straight.slope);
    ping.stop();
  } else {
    ping.serve();
  }
  const shared_core crowded = on_one_core(comm, rank, quick ? 5 : 31, buf);
  // α and β of the messages with the handshake taken out of those beyond the
  // eager size: t(n) = α + nβ + rendezvous·[n > eager_bytes].
  const auto handshake = [&](std::size_t bytes) { return bytes > step.eager_bytes ? step.rendezvous : 0.0; };
  std::vector<double> t_data;
  for (const pingpong_point& p : points) t_data.push_back(p.median - handshake(p.bytes));
  const line_fit ab = step.found ? fit_alpha_beta(n, t_data) : straight;
  // The eager sizes' slope with α fixed; β where there is none or it is not
  // positive (a noisy run).
  std::vector<double> eager_n, eager_t;
  for (const pingpong_point& q : points)
    if (q.bytes > 0 && q.bytes <= step.eager_bytes)
      eager_n.push_back(static_cast<double>(q.bytes)), eager_t.push_back(q.median);
  const double eager_fit = step.found ? slope_through(ab.intercept, eager_n, eager_t) : 0;
  const double eager_beta = eager_fit > 0 ? eager_fit : ab.slope;
  const double eager_copy = std::max(0.0, eager_beta - ab.slope);
  // The one-way time as the cost model prices it (its handshake is never below
  // the largest eager message's extra cost).
  const hpcoll::machine priced{.alpha = ab.intercept, .beta = ab.slope, .eager_bytes = step.eager_bytes,
                               .rendezvous = step.rendezvous, .eager_copy = eager_copy};
  const auto model_time = [&](std::size_t bytes) {
    if (bytes > step.eager_bytes)
      return priced.alpha + priced.beta * static_cast<double>(bytes) + priced.handshake();
    return priced.alpha + (priced.beta + priced.eager_copy) * static_cast<double>(bytes);
  };

  // 3. Gap and overhead.
  const std::vector<int> bursts = quick ? std::vector<int>{1, 64} : std::vector<int>{1, 16, 64, 128, 256};
  std::vector<burst_result> burst_results;
  for (int k : bursts) burst_results.push_back(burst(comm, rank, k, quick ? 5 : 31));
  const double o_recv = receive_overhead(comm, rank, 128, quick ? 5 : 31);

  // 4. Local: memcpy and the reduction kernels on rank 0, rank 1 asleep.
  const std::size_t copy_large = quick ? 8u << 20 : 64u << 20, copy_cache = 256u << 10;
  const std::size_t gamma_large = quick ? 4u << 20 : 64u << 20, gamma_cache = 64u << 10;
  double copy_large_spb = 0, copy_cache_spb = 0;
  std::vector<gamma_entry> gammas;
  std::vector<std::pair<std::size_t, double>> gamma_sizes;
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
    gamma_sizes = gamma_by_size(quick ? 4u << 20 : 32u << 20, samples);
    send_token(comm, 1);
  }

  // 5. One source, many receivers, then between nodes: every rank.
  MPI_Comm_free(&comm);
  comm = all;
  rank = world_rank;
  quiet_barrier(comm);
  const one_source source = measure_one_source(comm, rank, node_of, quick);
  const between_nodes across = measure_between_nodes(comm, rank, node_of, quick, sizes, buf);

  int rc = 0;
  if (rank == 0) {
    // Fits.
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
    std::vector<double> cached;
    for (const gamma_entry& e : gammas) cached.push_back(e.cache);
    p.base.gamma_cached = median(cached);
    p.base.copy_cached = copy_cache_spb;
    // The largest vector reduced nearer the in-cache rate than the large one.
    const double midpoint = std::sqrt(p.base.gamma_cached * p.base.gamma);
    p.base.cache_bytes = gamma_sizes.front().first;
    for (const auto& [bytes, g] : gamma_sizes)
      if (g <= midpoint) p.base.cache_bytes = bytes;
    p.base.eager_bytes = step.eager_bytes;
    p.base.rendezvous = step.rendezvous;
    p.base.eager_copy = eager_copy;
    // On one core, a message waits for the other rank to be scheduled: the
    // time beyond the same message between two cores.
    const double separate = crowded.apart.median;
    p.base.switch_time = crowded.measured ? std::max(0.0, crowded.one_way.median - separate) : p.base.switch_time;
    for (const gamma_entry& e : gammas) {
      const auto slash = e.key.find('/');
      p.gammas.push_back({e.key.substr(0, slash), e.key.substr(slash + 1), e.large});
    }
    if (source.measured) p.base.source_beta = source.source_beta;
    if (mailbox_measured) {
      p.base.mailbox_alpha = mailbox_fit.intercept;
      p.base.mailbox_beta = mailbox_fit.slope;
    }
    if (across.measured) {
      p.base.inter_alpha = across.fit.intercept;
      p.base.inter_beta = across.fit.slope;
      p.base.port_beta = across.port_beta;
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
      e.set("model", model_time(q.bytes));
      e.set("samples", numbers(q.samples));
      pp.push_back(std::move(e));
    }
    m.set("pingpong", std::move(pp));
    json::value fit;
    fit.set("model", "t(n) = alpha + n * (beta + eager_copy) up to eager_bytes, alpha + n * beta + rendezvous "
                     "beyond, one-way time (round trip / 2), median per size");
    if (step.found) {
      json::value one_line;
      one_line.set("alpha", straight.intercept);
      one_line.set("beta", straight.slope);
      one_line.set("rms_relative_residual", straight.rms_rel);
      fit.set("without_protocol_step", std::move(one_line));
    }
    fit.set("method", ab.fallback ? "alpha = t(smallest size); beta by least squares weighted by 1/t^2"
                                  : "least squares weighted by 1/t^2 (relative residuals)");
    fit.set("alpha", ab.intercept);
    fit.set("beta", ab.slope);
    fit.set("eager_slope", eager_beta);
    fit.set("eager_copy", eager_copy);
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
    json::value mj;
    if (mailbox_measured) {
      mj.set("pingpong", points_json(mailbox_points, true));
      mj.set("model", "t(n) = mailbox_alpha + n * mailbox_beta, least squares weighted by 1/t^2");
      mj.set("rms_relative_residual", mailbox_fit.rms_rel);
    } else {
      mj.set("not_measured", std::string(mailboxes_not_measured) + "; the defaults");
    }
    m.set("mailboxes", std::move(mj));
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
    json::array by_size;
    for (const auto& [bytes, g] : gamma_sizes) {
      json::value e;
      e.set("bytes", bytes);
      e.set("sum/int32", g);
      by_size.push_back(std::move(e));
    }
    gm.set("by_size", std::move(by_size));
    gm.set("cached", "gamma_cached: the median of the sixteen in-cache values; cache_bytes: the largest by_size vector "
                     "whose value is below the geometric mean of gamma_cached and gamma");
    m.set("gamma", std::move(gm));
    json::value pj;
    pj.set("found", step.found);
    pj.set("scan", points_json(step.scan, false));
    pj.set("bisection", points_json(step.bisection, false));
    m.set("protocol", std::move(pj));
    json::value sj;
    sj.set("measured", crowded.measured);
    sj.set("cpu", crowded.cpu);
    sj.set("one_core_one_way", crowded.one_way.median);
    sj.set("two_cores_one_way", separate);
    m.set("switch", std::move(sj));
    json::value source_record;
    source_record.set("measured", source.measured);
    if (source.measured) {
      source_record.set("receivers", source.receivers);
      source_record.set("bytes", source.bytes);
      source_record.set("samples", numbers(source.samples));
      source_record.set("source_beta", source.source_beta);
    } else {
      source_record.set("why_not", source.why_not);
    }
    m.set("one_source", std::move(source_record));
    json::value nj;
    nj.set("nodes", node_count);
    nj.set("measured", across.measured);
    if (across.measured) {
      json::array pp;
      for (const pingpong_point& q : across.points) {
        json::value e;
        e.set("bytes", q.bytes);
        e.set("median", q.median);
        pp.push_back(std::move(e));
      }
      nj.set("pingpong", std::move(pp));
      nj.set("rms_relative_residual", across.fit.rms_rel);
      nj.set("streams", across.streams);
      nj.set("stream_bytes", across.stream_bytes);
      nj.set("port_samples", numbers(across.port_samples));
    }
    m.set("between_nodes", std::move(nj));
    m.set("seconds", now() - started);
    p.measured = hpcoll::detail::json_text(m.get());

    // Summary.
    std::printf("hpcoll calibrate: %d ranks on %d node%s, ranks 0 and %d on %s%s%s; %s%s\n", size, node_count,
                node_count == 1 ? "" : "s", partner, host.c_str(),
                peer_host == host ? "" : " and ", peer_host == host ? "" : peer_host.c_str(),
                mpi_library_version().c_str(), quick ? " (--quick)" : "");
    std::printf("\nping-pong, one-way time (median of %zu samples per size):\n", points.front().samples.size());
    std::printf("  %10s  %12s  %12s  %9s\n", "bytes", "measured", "model", "residual");
    for (const pingpong_point& q : points) {
      const double model = model_time(q.bytes);
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
    if (mailbox_measured)
      std::printf("  mailbox   alpha %s, beta %s (ping-pong through the node's mailboxes, %zu B to %s; "
                  "residual rms %.1f%%)\n",
                  us(p.base.mailbox_alpha).c_str(), per_byte(p.base.mailbox_beta).c_str(), mailbox_points.front().bytes,
                  human_bytes(mailbox_points.back().bytes).c_str(), 100 * mailbox_fit.rms_rel);
    else
      std::printf("  mailbox   not measured (%s): alpha %s, beta %s, the defaults\n", mailboxes_not_measured,
                  us(p.base.mailbox_alpha).c_str(), per_byte(p.base.mailbox_beta).c_str());
    std::printf("  gap       %s per message (bursts of", us(p.base.gap).c_str());
    for (const burst_result& b : burst_results) std::printf(" %d", b.messages);
    std::printf(" 8-byte Isends)\n");
    std::printf("  overhead  %s (Isend post %s, Recv of an arrived message %s)\n", us(p.base.overhead).c_str(),
                us(o_send).c_str(), us(o_recv).c_str());
    std::printf("  copy      %s memcpy %s; in cache (%s) %s\n", per_byte(p.base.copy).c_str(),
                human_bytes(copy_large).c_str(), human_bytes(copy_cache).c_str(), per_byte(copy_cache_spb).c_str());
    std::printf("  gamma     %s (default: median of the reductions below); in cache %s up to %s\n",
                per_byte(p.base.gamma).c_str(), per_byte(p.base.gamma_cached).c_str(),
                human_bytes(p.base.cache_bytes).c_str());
    if (step.found)
      std::printf("  protocol  eager up to %zu B, %.3e s/B more per byte; rendezvous %s more per message\n",
                  p.base.eager_bytes, p.base.eager_copy, us(p.base.rendezvous).c_str());
    else
      std::printf("  protocol  no step between 1 KiB and 256 KiB (rendezvous 0)\n");
    if (crowded.measured)
      std::printf("  switch    %s (8 B one way on one core %s, on two %s)\n", us(p.base.switch_time).c_str(),
                  us(crowded.one_way.median).c_str(), us(separate).c_str());
    else
      std::printf("  switch    not measured (ranks 0 and 1 cannot share a core here): %s, the default\n",
                  us(p.base.switch_time).c_str());
    if (source.measured)
      std::printf("  source    %s (%s from rank 0 to %d ranks at once, all together)\n",
                  per_byte(p.base.source_beta).c_str(), human_bytes(source.bytes).c_str(), source.receivers);
    else
      std::printf("  source    not measured (%s): %s, the default\n", source.why_not.c_str(),
                  per_byte(p.base.source_beta).c_str());
    if (across.measured) {
      std::printf("\nbetween nodes (%d nodes; rank 0 and rank %s of another node):\n", node_count,
                  across.points.empty() ? "?" : "its first");
      for (const pingpong_point& q : across.points)
        std::printf("  %10zu  %12s\n", q.bytes, us(q.median).c_str());
      std::printf("  inter_alpha %s\n  inter_beta  %s (residual rms %.1f%%)\n", us(p.base.inter_alpha).c_str(),
                  per_byte(p.base.inter_beta).c_str(), 100 * across.fit.rms_rel);
      std::printf("  port_beta   %s (%d rank%s of a node streaming %s messages at once%s)\n",
                  per_byte(p.base.port_beta).c_str(), across.streams, across.streams == 1 ? "" : "s",
                  human_bytes(across.stream_bytes).c_str(),
                  across.streams == 1 ? "; one rank per node: the port's share is not seen, this is one stream's" : "");
    } else {
      std::printf("\none node: inter_alpha, inter_beta and port_beta keep their defaults (%s, %s, %s)\n",
                  us(p.base.inter_alpha).c_str(), per_byte(p.base.inter_beta).c_str(), per_byte(p.base.port_beta).c_str());
    }
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
