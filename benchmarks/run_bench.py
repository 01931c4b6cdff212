#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""./hpcoll bench: runs hpcoll_bench under mpiexec for each process count, then report.py.

Called by ./hpcoll bench (which builds the hpcoll_bench target first and passes
--binary and --mpiexec-flags); standard library only.

  ./hpcoll bench [--np N]... [--quick] [--seed] [--out DIR] [--min-time S]
                 [--sizes MIN:MAX] [--collectives a,b] [--repetitions R] [--verbose]
                 [-- extra hpcoll_bench / Google Benchmark flags]

Modes:
  (default)  every collective, sizes 4 B..16 MiB, np 4 (or the --np given)
  --quick    np 4, sizes 4 B..1 MiB, --benchmark_min_time 0.01, median of 3 repetitions:
             about a minute (under 3 minutes on 2 cores)
  --seed     the seed paper's reproduction: allreduce and alltoall at np 2..8, sizes
             4 B..1 MiB, next to every Open MPI coll/tuned algorithm forced one by one
             (coll_tuned_use_dynamic_rules 1, coll_tuned_<collective>_algorithm k);
             min_time 0.02, median of 3 repetitions; --seed --quick: min_time 0.005, once

Writes results/<UTC timestamp>/ (or --out): np<N>.json per process count,
np<N>_<collective>_alg<k>.json per forced Open MPI algorithm (seed), the
binary's console output in *.log, commands.txt, report.txt and the PNG plots.
"""

import json
import os
import re
import subprocess
import sys
import time

import bench_common as bc

QUICK_MIN_TIME = 0.01
QUICK_REPETITIONS = 3  # the median of 3 short runs resists the scheduler's hiccups on a busy machine
SEED_MIN_TIME = 0.02
SEED_REPETITIONS = 3
SEED_QUICK_MIN_TIME = 0.005
DEFAULT_MIN_TIME = 0.1
FULL_SIZES = bc.FULL_SIZES
SMALL_SIZES = bc.SMALL_SIZES
# The seed paper's collectives, those with Open MPI algorithms to force (bc.OMPI_ALGORITHMS).
SEED_COLLECTIVES = ["allreduce", "alltoall"]
SEED_NPS = list(range(2, 9))

log = bc.Log("bench")


def ompi_algorithms(collectives):
    """{collective: {k: name}} from `ompi_info --param coll tuned --level 9` (Valid values lines)."""
    try:
        text = subprocess.run(["ompi_info", "--param", "coll", "tuned", "--level", "9"], capture_output=True,
                              text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        log(f"ompi_info failed ({e}); using Open MPI 4.1's algorithm numbers")
        return {c: bc.OMPI_ALGORITHMS[c] for c in collectives}, False
    out = {}
    for c in collectives:
        m = re.search(r'parameter "coll_tuned_%s_algorithm".*?Valid values: ([^\n]*)' % c, text, re.S)
        algs = {int(k): v for k, v in re.findall(r'(\d+):"([^"]+)"', m.group(1))} if m else {}
        algs.pop(0, None)  # 0 = ignore (the default decision)
        if not algs:
            log(f"ompi_info lists no coll_tuned_{c}_algorithm values; using Open MPI 4.1's")
            algs = bc.OMPI_ALGORITHMS[c]
        out[c] = dict(sorted(algs.items()))
    return out, True


def main():
    ap = bc.parser("./hpcoll bench", __doc__, "Modes:")
    bc.add_run_options(ap, np_help="process count (repeatable); default 4, or 2..8 with --seed",
                       quick_help=f"short run (np 4, sizes to 1 MiB, min_time {QUICK_MIN_TIME}, "
                                  f"median of {QUICK_REPETITIONS} repetitions)",
                       out_help="results folder (default results/<UTC timestamp>)")
    ap.add_argument("--seed", action="store_true", help="seed reproduction next to forced Open MPI algorithms")
    ap.add_argument("--min-time", type=float, metavar="S",
                    help=f"--benchmark_min_time per row (default {DEFAULT_MIN_TIME}; --quick {QUICK_MIN_TIME}; "
                         f"--seed {SEED_MIN_TIME}; --seed --quick {SEED_QUICK_MIN_TIME})")
    ap.add_argument("--sizes", metavar="MIN:MAX", help=f"bytes, x4 steps (default {FULL_SIZES}; "
                                                       f"--quick and --seed {SMALL_SIZES})")
    ap.add_argument("--collectives", metavar="a,b", help="only these collectives (default all; --seed "
                                                         + ",".join(SEED_COLLECTIVES) + ")")
    ap.add_argument("--repetitions", type=int, metavar="R",
                    help="Google Benchmark repetitions per row; the report uses their median "
                         f"(default 1; --quick {QUICK_REPETITIONS}; --seed {SEED_REPETITIONS}; --seed --quick 1)")
    args = bc.parse_run_args(ap, sys.argv[1:], "hpcoll_bench")

    bc.require_binary(args, log, "./hpcoll bench")
    nps = bc.process_counts(args, SEED_NPS if args.seed else [4], 1, log)
    if args.min_time is not None:
        min_time = args.min_time
    elif args.seed:
        min_time = SEED_QUICK_MIN_TIME if args.quick else SEED_MIN_TIME
    else:
        min_time = QUICK_MIN_TIME if args.quick else DEFAULT_MIN_TIME
    sizes = args.sizes or (SMALL_SIZES if args.quick or args.seed else FULL_SIZES)
    collectives = args.collectives or (",".join(SEED_COLLECTIVES) if args.seed else None)

    stamp = bc.stamp()
    default_out = not args.out
    outdir = args.out or os.path.join(bc.ROOT, "results", stamp)
    os.makedirs(outdir, exist_ok=True)
    if default_out:
        latest = os.path.join(bc.ROOT, "results", "latest")
        try:
            if os.path.islink(latest):
                os.unlink(latest)
            if not os.path.exists(latest):
                os.symlink(stamp, latest)
        except OSError:
            pass

    common = [f"--hpcoll_sizes={sizes}", f"--benchmark_min_time={min_time:g}"]
    if collectives:
        common.append(f"--hpcoll_collectives={collectives}")
    if args.repetitions:
        repetitions = args.repetitions
    elif args.seed:
        repetitions = 1 if args.quick else SEED_REPETITIONS
    else:
        repetitions = QUICK_REPETITIONS if args.quick else 1
    if repetitions > 1:
        common += [f"--benchmark_repetitions={repetitions}", "--benchmark_report_aggregates_only=true"]

    mode = "seed" if args.seed else ("quick" if args.quick else "full")
    log(f"{mode} run: np {', '.join(map(str, nps))}; sizes {sizes} B; min_time {min_time:g} s"
        f"{f' x {repetitions} repetitions' if repetitions > 1 else ''}; collectives {collectives or 'all'}; "
        f"results in {bc.show(outdir)}")
    ncores = bc.cores()
    over = [n for n in nps if n > ncores]
    if over:
        yield_note = ("Open MPI's mpi_yield_when_idle is on (--mca mpi_yield_when_idle 1), so waiting ranks "
                      "give up their core"
                      if "mpi_yield_when_idle" in args.mpiexec_flags else "ranks share cores")
        log(f"NOTE: np {', '.join(map(str, over))} > {ncores} cores: oversubscribed; {yield_note}. "
            "Timings of those runs are meaningful only as ratios (schedule vs native at the same np), "
            "not as absolute times.")

    algorithms = {}
    if args.seed and not bc.is_open_mpi():
        log("mpiexec is not Open MPI's: no Open MPI algorithms to force; hpcoll and native rows only")
    elif args.seed:
        algorithms, from_ompi = ompi_algorithms(SEED_COLLECTIVES if not args.collectives else
                                                [c for c in collectives.split(",") if c in bc.OMPI_ALGORITHMS])
        with open(os.path.join(outdir, "ompi_algorithms.json"), "w") as f:
            json.dump({c: {str(k): v for k, v in a.items()} for c, a in algorithms.items()}, f, indent=1)
        for c, a in algorithms.items():
            log(f"Open MPI {c} algorithms ({'ompi_info' if from_ompi else 'built-in list'}): "
                + ", ".join(f"{k} {v}" for k, v in a.items()))

    runner = bc.Runner(args.binary, args.mpiexec_flags, outdir, log, args.verbose, args.extra)
    t0 = time.monotonic()
    for n in nps:
        log(f"np={n}")
        runner.run(n, f"np{n}", common)
        for c, algs in algorithms.items():
            for k, name in algs.items():
                if name == "two_proc" and n != 2:
                    continue  # Open MPI's two_proc alltoall serves 2 ranks only
                forced = [f"--hpcoll_sizes={sizes}", f"--benchmark_min_time={min_time:g}",
                          f"--hpcoll_collectives={c}", "--hpcoll_only_native",
                          f"--hpcoll_native_label=native_alg{k}", "--hpcoll_no_memcpy"]
                forced += [a for a in common if a.startswith("--benchmark_rep")]
                runner.run(n, f"np{n}_{c}_alg{k}", forced,
                           mca=["--mca", "coll_tuned_use_dynamic_rules", "1",
                                "--mca", f"coll_tuned_{c}_algorithm", str(k)],
                           required=False)
    elapsed = time.monotonic() - t0
    log(f"benchmarks done in {bc.fmt_seconds(elapsed)}")

    if len(runner.failed) == runner.runs:
        log.die("every run failed; no report")
    report = os.path.join(outdir, "report.txt")
    cmd = [sys.executable, os.path.join(bc.HERE, "report.py"), outdir]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    with open(report, "w") as f:
        f.write(proc.stdout)
    sys.stdout.write(proc.stdout)
    pngs = sorted(p for p in os.listdir(outdir) if p.endswith(".png"))
    rel = bc.show(outdir)
    log(f"report: {rel}/report.txt; {len(pngs)} plot(s) in {rel}/ ({', '.join(pngs[:3])}{', ...' if len(pngs) > 3 else ''})")
    if runner.failed:
        log("failed runs: " + ", ".join(runner.failed_names()))
    if proc.returncode != 0 or any(req for _, req in runner.failed):
        sys.exit(1)


if __name__ == "__main__":
    main()
