#!/usr/bin/python3
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

import argparse
import datetime
import json
import os
import re
import shlex
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

QUICK_MIN_TIME = 0.01
QUICK_REPETITIONS = 3  # the median of 3 short runs resists the scheduler's hiccups on a busy machine
SEED_MIN_TIME = 0.02
SEED_REPETITIONS = 3
SEED_QUICK_MIN_TIME = 0.005
DEFAULT_MIN_TIME = 0.1
FULL_SIZES = "4:16777216"
SMALL_SIZES = "4:1048576"  # x4 steps: 4 B, 16 B, ..., 256 KiB, 1 MiB
SEED_COLLECTIVES = ["allreduce", "alltoall"]
SEED_NPS = list(range(2, 9))
# Open MPI 4.1's coll/tuned algorithms, used when ompi_info cannot be asked.
FALLBACK_ALGORITHMS = {
    "allreduce": {1: "basic_linear", 2: "nonoverlapping", 3: "recursive_doubling", 4: "ring",
                  5: "segmented_ring", 6: "rabenseifner"},
    "alltoall": {1: "linear", 2: "pairwise", 3: "modified_bruck", 4: "linear_sync", 5: "two_proc"},
}


def log(msg):
    print(f"[hpcoll] bench: {msg}", flush=True)


def cores():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def run_logged(cmd, out_log, commands, name, env_text="", timeout=None, env=None):
    """Runs cmd with its console output in out_log (after a "$ command" line) and
    records "# name: rc=..., seconds" and the command in the open file `commands`;
    returns (exit code, or "timeout" past `timeout` seconds; seconds taken)."""
    line = (env_text + " " if env_text else "") + " ".join(shlex.quote(c) for c in cmd)
    start = time.monotonic()
    with open(out_log, "w") as logf:
        logf.write(f"$ {line}\n")
        logf.flush()
        try:
            rc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=logf, stderr=subprocess.STDOUT,
                                timeout=timeout, env=env).returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
    elapsed = time.monotonic() - start
    commands.write(f"# {name}: rc={rc}, {elapsed:.1f} s\n{line}\n")
    commands.flush()
    return rc, elapsed


# Open MPI refuses to start as root without these (harmless otherwise; ./hpcoll exports them too).
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


def run_mpi_json(args, outdir, np_, name, bench_args, commands, log, timeout):
    """One mpiexec of args.binary (with --out=<name>.json, console output in <name>.log) for the
    benchmarks that write their own JSON (overlap_report.py, mcast_report.py); failures are
    reported through `log` with the log's last lines; True on success."""
    out_json = os.path.join(outdir, name + ".json")
    out_log = os.path.join(outdir, name + ".log")
    cmd = (["mpiexec", "-n", str(np_)] + shlex.split(args.mpiexec_flags) + [args.binary] + bench_args
           + [f"--out={out_json}"] + args.extra)
    rc, elapsed = run_logged(cmd, out_log, commands, name, timeout=timeout, env=dict(os.environ, **MPI_ENV))
    with open(out_log) as f:
        output = f.readlines()[1:]
    if args.verbose:
        sys.stdout.write("".join(output))
    if rc == 0 and os.path.exists(out_json):
        log(f"  {name}.json: {fmt_seconds(elapsed)}")
        return True
    log(f"  {name}: FAILED (exit {rc}) after {fmt_seconds(elapsed)}; last lines of {show(out_log)}:")
    print("".join("    " + text for text in output[-12:]), end="")
    return False


def report_meta(folder):
    """The "meta" of an earlier report.json in folder (command, machine, date...), {} if there is none."""
    try:
        with open(os.path.join(folder, "report.json")) as f:
            return json.load(f).get("meta", {})
    except (OSError, ValueError):
        return {}


def report_header(title, meta, rows, runs, settings, what):
    """The first lines of a report.md: title, command, machine, date, `settings` (a line built from
    runs[0]["settings"], or None), duration and, for a --quick run, that it is no measurement
    (`what`: "sizes and runs")."""
    L = [f"# {title} {meta.get('stamp', '')}".rstrip(), ""]
    if meta.get("command"):
        L.append(f"- Command: `{meta['command']}`")
    L.append(f"- Machine: {meta.get('machine', '?')}")
    L.append(f"- Date: {meta.get('date') or (runs[0].get('date') if runs else '?')}; {len(rows)} rows from "
             f"{len(runs)} run(s) ({', '.join(r['file'] for r in runs)})")
    if settings:
        L.append(f"- Settings: {settings}")
    if meta.get("seconds") is not None:
        L.append(f"- Duration: {fmt_seconds(meta['seconds'])}")
    if meta.get("quick") or any(r.get("settings", {}).get("quick") for r in runs):
        L.append(f"- **--quick run**: few {what}; a check that everything runs, not a measurement.")
    return L


def show(path):
    """path relative to the current directory when below it, else absolute."""
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def fmt_seconds(s):
    return f"{s:.0f} s" if s < 120 else f"{s / 60:.1f} min"


def is_open_mpi():
    try:
        out = subprocess.run(["mpiexec", "--version"], capture_output=True, text=True).stdout
    except OSError:
        return False
    return bool(re.search(r"Open MPI|OpenRTE", out))


def ompi_algorithms(collectives):
    """{collective: {k: name}} from `ompi_info --param coll tuned --level 9` (Valid values lines)."""
    try:
        text = subprocess.run(["ompi_info", "--param", "coll", "tuned", "--level", "9"], capture_output=True,
                              text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        log(f"ompi_info failed ({e}); using Open MPI 4.1's algorithm numbers")
        return {c: FALLBACK_ALGORITHMS[c] for c in collectives}, False
    out = {}
    for c in collectives:
        m = re.search(r'parameter "coll_tuned_%s_algorithm".*?Valid values: ([^\n]*)' % c, text, re.S)
        algs = {int(k): v for k, v in re.findall(r'(\d+):"([^"]+)"', m.group(1))} if m else {}
        algs.pop(0, None)  # 0 = ignore (the default decision)
        if not algs:
            log(f"ompi_info lists no coll_tuned_{c}_algorithm values; using Open MPI 4.1's")
            algs = FALLBACK_ALGORITHMS[c]
        out[c] = dict(sorted(algs.items()))
    return out, True


class Runner:
    def __init__(self, args, outdir):
        self.args = args
        self.outdir = outdir
        self.flags = shlex.split(args.mpiexec_flags)
        self.failed = []
        self.runs = 0
        self.commands = open(os.path.join(outdir, "commands.txt"), "a")

    def run(self, np_, name, bench_args, mca=(), required=True):
        """Runs one mpiexec; the JSON goes to <name>.json, the console output to <name>.log."""
        self.runs += 1
        out_json = os.path.join(self.outdir, name + ".json")
        out_log = os.path.join(self.outdir, name + ".log")
        cmd = (["mpiexec", "-n", str(np_)] + self.flags + list(mca) + [self.args.binary] + bench_args
               + [f"--benchmark_out={out_json}", "--benchmark_out_format=json"] + self.args.extra)
        line = " ".join(shlex.quote(c) for c in cmd)
        start = time.monotonic()
        with open(out_log, "w") as logf:
            logf.write(f"$ {line}\n")
            logf.flush()
            if self.args.verbose:
                proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                for text in proc.stdout:
                    sys.stdout.write(text)
                    logf.write(text)
                rc = proc.wait()
            else:
                rc = subprocess.run(cmd, stdout=logf, stderr=subprocess.STDOUT).returncode
        elapsed = time.monotonic() - start
        self.commands.write(f"# {name}: rc={rc}, {elapsed:.1f} s\n{line}\n")
        self.commands.flush()
        ok = rc == 0 and os.path.exists(out_json)
        rows = 0
        if ok:
            try:
                with open(out_json) as f:
                    rows = len(json.load(f).get("benchmarks", []))
            except ValueError:
                ok = False
        if ok:
            log(f"  {name}.json: {rows} rows, {fmt_seconds(elapsed)}")
        else:
            with open(out_log) as f:
                lines = f.readlines()[1:]
            reasons = [l for l in lines if re.search(r"hpcoll_bench|error|abort", l, re.I)][:6]
            log(f"  {name}: FAILED (exit {rc}) after {fmt_seconds(elapsed)}; "
                f"{'from' if reasons else 'last lines of'} {out_log}:")
            for text in reasons or lines[-12:]:
                print("    " + text.rstrip())
            if os.path.exists(out_json):
                os.rename(out_json, out_json + ".failed")
            self.failed.append((name, required))
        return ok


def main():
    ap = argparse.ArgumentParser(
        prog="./hpcoll bench", formatter_class=argparse.RawDescriptionHelpFormatter,
        description=__doc__[__doc__.index("Modes:"):])
    ap.add_argument("--np", type=int, action="append", metavar="N",
                    help="process count (repeatable); default 4, or 2..8 with --seed")
    ap.add_argument("--quick", action="store_true",
                    help=f"short run (np 4, sizes to 1 MiB, min_time {QUICK_MIN_TIME}, "
                         f"median of {QUICK_REPETITIONS} repetitions)")
    ap.add_argument("--seed", action="store_true", help="seed reproduction next to forced Open MPI algorithms")
    ap.add_argument("--out", metavar="DIR", help="results folder (default results/<UTC timestamp>)")
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
    ap.add_argument("--verbose", action="store_true", help="show hpcoll_bench's console output")
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "benchmarks", "hpcoll_bench"),
                    help=argparse.SUPPRESS)
    ap.add_argument("--mpiexec-flags", default="", help=argparse.SUPPRESS)
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    args = ap.parse_args(argv)
    args.extra = extra

    if not os.access(args.binary, os.X_OK):
        sys.exit(f"[hpcoll] bench: no benchmark binary at {args.binary} (./hpcoll bench builds it)")
    nps = args.np or (SEED_NPS if args.seed else [4])
    if any(n < 1 for n in nps):
        sys.exit("[hpcoll] bench: --np must be >= 1")
    if args.min_time is not None:
        min_time = args.min_time
    elif args.seed:
        min_time = SEED_QUICK_MIN_TIME if args.quick else SEED_MIN_TIME
    else:
        min_time = QUICK_MIN_TIME if args.quick else DEFAULT_MIN_TIME
    sizes = args.sizes or (SMALL_SIZES if args.quick or args.seed else FULL_SIZES)
    collectives = args.collectives or (",".join(SEED_COLLECTIVES) if args.seed else None)

    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    default_out = not args.out
    outdir = args.out or os.path.join(ROOT, "results", stamp)
    os.makedirs(outdir, exist_ok=True)
    if default_out:
        latest = os.path.join(ROOT, "results", "latest")
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
        f"results in {show(outdir)}")
    ncores = cores()
    over = [n for n in nps if n > ncores]
    if over:
        yield_note = ("Open MPI's mpi_yield_when_idle is on (--mca mpi_yield_when_idle 1), so waiting ranks "
                      "give up their core"
                      if "mpi_yield_when_idle" in args.mpiexec_flags else "ranks share cores")
        log(f"NOTE: np {', '.join(map(str, over))} > {ncores} cores: oversubscribed; {yield_note}. "
            "Timings of those runs are meaningful only as ratios (schedule vs native at the same np), "
            "not as absolute times.")

    algorithms = {}
    if args.seed and not is_open_mpi():
        log("mpiexec is not Open MPI's: no Open MPI algorithms to force; hpcoll and native rows only")
    elif args.seed:
        algorithms, from_ompi = ompi_algorithms(SEED_COLLECTIVES if not args.collectives else
                                                [c for c in collectives.split(",") if c in FALLBACK_ALGORITHMS])
        with open(os.path.join(outdir, "ompi_algorithms.json"), "w") as f:
            json.dump({c: {str(k): v for k, v in a.items()} for c, a in algorithms.items()}, f, indent=1)
        for c, a in algorithms.items():
            log(f"Open MPI {c} algorithms ({'ompi_info' if from_ompi else 'built-in list'}): "
                + ", ".join(f"{k} {v}" for k, v in a.items()))

    runner = Runner(args, outdir)
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
    log(f"benchmarks done in {fmt_seconds(elapsed)}")

    if len(runner.failed) == runner.runs:
        sys.exit("[hpcoll] bench: every run failed; no report")
    report = os.path.join(outdir, "report.txt")
    cmd = [sys.executable, os.path.join(HERE, "report.py"), outdir]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    with open(report, "w") as f:
        f.write(proc.stdout)
    sys.stdout.write(proc.stdout)
    pngs = sorted(p for p in os.listdir(outdir) if p.endswith(".png"))
    rel = show(outdir)
    log(f"report: {rel}/report.txt; {len(pngs)} plot(s) in {rel}/ ({', '.join(pngs[:3])}{', ...' if len(pngs) > 3 else ''})")
    if runner.failed:
        log("failed runs: " + ", ".join(n for n, _ in runner.failed))
    if proc.returncode != 0 or any(req for _, req in runner.failed):
        sys.exit(1)


if __name__ == "__main__":
    main()
