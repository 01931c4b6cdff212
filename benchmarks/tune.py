#!/usr/bin/python3
"""./hpcoll tune: measures every schedule of every collective and writes a tuning table.

Called by ./hpcoll tune (which builds the hpcoll_bench target first and passes
--binary and --mpiexec-flags); standard library only.

  ./hpcoll tune [--np N]... [--quick] [--out FILE] [--repetitions K] [--min-time S]
                [--sizes MIN:MAX] [--collectives a,b] [--from PATH]... [--verbose]
                [-- extra hpcoll_bench / Google Benchmark flags]
  ./hpcoll tune --evaluate [...]   the dispatcher evaluation (benchmarks/dispatch_eval.py;
                                   ./hpcoll tune --evaluate --help)

What it does:
  1. runs hpcoll_bench under mpiexec once per process count (default np 2, 3, 4, 8; more
     ranks than cores run oversubscribed), every collective, every schedule, the median of
     K repetitions per row (default 3);
  2. per (collective, np, S) takes the fastest schedule (the native MPI row and the free
     function's "default" row are not candidates);
  3. turns each (collective, np) into byte ranges: boundaries at the geometric midpoint
     between neighbouring measured sizes (a size x belongs to the upper one when
     x*x >= a*b), the first range from 0, the last to 2^64-1, neighbouring ranges with the
     same winner merged; process-count ranges are exactly [np, np]. gatherv and alltoallv
     get one entry per np spanning every size (each rank knows only its own counts): the
     schedule with the best geometric mean over the measured sizes;
  4. writes the table (default results/tune-<UTC>/tuning.json), the raw hpcoll_bench JSON
     (np<N>.json), the console logs, commands.txt and summary.txt next to it.

Use the table with HPCOLL_TUNING=<table> in the environment of an hpcoll program: the
free functions (schedule::automatic) then take the table's schedule for the calls it
covers and the cost model's choice for the others.

--from PATH (repeatable; hpcoll_bench JSON files or folders of them) builds the table
from earlier runs without running anything.
"""

import argparse
import datetime
import json
import math
import os
import platform
import re
import shlex
import statistics
import sys
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import report  # noqa: E402  (parse_name, COLLECTIVE_ORDER, human_size, short_name, table, geomean)
import run_bench  # noqa: E402  (Runner: one mpiexec run of hpcoll_bench; cores(), is_open_mpi())

FORMAT = "hpcoll-tuning-1"
U64_MAX = (1 << 64) - 1
DEFAULT_NPS = [2, 3, 4, 8]
V_COLLECTIVES = ("gatherv", "alltoallv")  # per-rank sizes not known to every rank: one entry per np
FULL_SIZES = run_bench.FULL_SIZES  # 4 B .. 16 MiB, x4 steps
QUICK_SIZES = run_bench.SMALL_SIZES  # 4 B .. 1 MiB
DEFAULT_MIN_TIME = 0.03
QUICK_MIN_TIME = 0.01
DEFAULT_REPETITIONS = 3
CLOSE_CALL = 1.05  # a winner within 5% of the runner-up: noise on a shared machine can flip it


def log(msg):
    print(f"[hpcoll] tune: {msg}", flush=True)


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc)


def stamp(now=None):
    return (now or utc_now()).strftime("%Y%m%dT%H%M%SZ")


# ---------------------------------------------------------------------------
# Loading hpcoll_bench JSON: exact S (the row name's), median over repetitions

def is_candidate(label):
    """hpcoll schedules only: the native MPI rows and the free function ("default") are not."""
    return label != "default" and not label.startswith("native")


class Bench:
    """Measurements of hpcoll_bench JSON files: times[(collective, np)][label][S] = seconds per call
    (slowest rank; the median aggregate when the run had repetitions, else the median of the
    iteration rows). S is the row name's, i.e. the exact bytes the dispatcher will see."""

    def __init__(self):
        self.times = {}
        self.order = {}  # (collective, np) -> labels in order of appearance
        self.files = []
        self.mpi_library = None
        self.cores = None
        self.errors = []

    @classmethod
    def load(cls, paths):
        b = cls()
        for p in paths:
            if os.path.isdir(p):
                for name in sorted(os.listdir(p)):
                    if name.endswith(".json"):
                        b.add_file(os.path.join(p, name), quiet=True)
            else:
                b.add_file(p)
        return b

    def add_file(self, path, quiet=False):
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            if not quiet:
                raise SystemExit(f"[hpcoll] tune: cannot read {path}: {e}")
            return
        if not isinstance(doc, dict) or not isinstance(doc.get("benchmarks"), list):
            if not quiet:
                raise SystemExit(f"[hpcoll] tune: {path} is not hpcoll_bench JSON (no 'benchmarks')")
            return
        self.add_doc(doc, os.path.basename(path))
        self.files.append(path)

    def add_doc(self, doc, name="<doc>"):
        ctx = doc.get("context", {}) or {}
        file_np = _int(ctx.get("np"))
        if file_np is None:
            m = re.match(r"np(\d+)", name)
            file_np = int(m.group(1)) if m else None
        self.mpi_library = self.mpi_library or ctx.get("mpi_library")
        self.cores = self.cores or _int(ctx.get("cores")) or _int(ctx.get("num_cpus"))
        runs = {}
        for e in doc["benchmarks"]:
            if e.get("error_occurred"):
                self.errors.append(f"{name}: {e.get('name')}: {e.get('error_message', 'error')}")
                continue
            run_name = e.get("run_name")
            if not run_name:
                run_name = e["name"]
                if e.get("run_type") == "aggregate":
                    run_name = report.AGGREGATE_SUFFIX.sub("", run_name)
            runs.setdefault(run_name, []).append(e)
        for run_name, entries in runs.items():
            parsed = report.parse_name(run_name)
            if parsed is None:
                continue
            collective, label, size = parsed
            if collective == "memcpy":
                continue
            medians = [e for e in entries if e.get("run_type") == "aggregate" and e.get("aggregate_name") == "median"]
            iterations = [e for e in entries if e.get("run_type", "iteration") == "iteration"]
            chosen = medians[:1] or iterations
            if not chosen:
                continue
            seconds = statistics.median(
                e["real_time"] * report.TIME_TO_US.get(e.get("time_unit", "ns"), 1e-3) * 1e-6 for e in chosen)
            np_ = file_np
            if np_ is None:
                nps = [e["np"] for e in chosen if isinstance(e.get("np"), (int, float))]
                np_ = int(nps[0]) if nps else None
            if np_ is None:
                continue
            key = (collective, np_)
            self.times.setdefault(key, {}).setdefault(label, {})[size] = seconds
            order = self.order.setdefault(key, [])
            if label not in order:
                order.append(label)

    # -- queries
    def keys(self):
        def rank(k):
            c, n = k
            o = report.COLLECTIVE_ORDER
            return (o.index(c) if c in o else len(o), c, n)
        return sorted(self.times, key=rank)

    def nps(self):
        return sorted({n for _, n in self.times})

    def candidates(self, key):
        return [l for l in self.order.get(key, []) if is_candidate(l)]

    def native(self, key):
        labels = self.order.get(key, [])
        if "native" in labels:
            return "native"
        others = [l for l in labels if l.startswith("native") and not re.match(r"native_alg\d+$", l)]
        return others[0] if len(others) == 1 else None

    def time(self, key, label, size):
        return self.times.get(key, {}).get(label, {}).get(size)

    def sizes(self, key, labels=None):
        per = self.times.get(key, {})
        labels = self.candidates(key) if labels is None else labels
        return sorted({s for l in labels for s in per.get(l, {})})


def _int(v):
    try:
        return int(v)
    except (TypeError, ValueError):
        return None


# ---------------------------------------------------------------------------
# The table

def boundary(a, b):
    """The first byte count of the upper range between measured sizes a < b: the smallest integer x
    with x >= sqrt(a*b) (the geometric midpoint; exact integer arithmetic)."""
    prod = a * b
    return math.isqrt(prod - 1) + 1 if prod > 0 else 0


def cell_winners(bench, key):
    """[(S, winner, time, runner_up_or_None, runner_up_time_or_None)] for every size measured by
    at least one candidate schedule; ties go to the schedule listed first by the bench."""
    cands = bench.candidates(key)
    out = []
    for s in bench.sizes(key, cands):
        ts = sorted((t, i, l) for i, l in enumerate(cands) if (t := bench.time(key, l, s)) is not None)
        if not ts:
            continue
        (t0, _, w), second = ts[0], (ts[1] if len(ts) > 1 else None)
        out.append((s, w, t0, second[2] if second else None, second[0] if second else None))
    return out


def size_ranges(winners):
    """winners: [(S, schedule)] sorted by S -> [(min_bytes, max_bytes, schedule)], merged."""
    ranges = []
    for i, (s, w) in enumerate(winners):
        lo = 0 if i == 0 else boundary(winners[i - 1][0], s)
        hi = U64_MAX if i == len(winners) - 1 else boundary(s, winners[i + 1][0]) - 1
        if ranges and ranges[-1][2] == w:
            ranges[-1] = (ranges[-1][0], hi, w)
        else:
            ranges.append((lo, hi, w))
    return ranges


def geomean_winner(bench, key):
    """(schedule, {schedule: geometric mean seconds}, sizes) over the sizes every candidate measured."""
    cands = [l for l in bench.candidates(key) if bench.times[key].get(l)]
    if not cands:
        return None, {}, []
    common = sorted(set.intersection(*(set(bench.times[key][l]) for l in cands)))
    if not common:  # no size measured by all: each schedule over its own sizes
        means = {l: report.geomean(list(bench.times[key][l].values())) for l in cands}
    else:
        means = {l: report.geomean([bench.times[key][l][s] for s in common]) for l in cands}
    best = min(cands, key=lambda l: (means[l], cands.index(l)))
    return best, means, common


def build_entries(bench):
    """The table's entries, in collective order, then np, then bytes."""
    entries = []
    for key in bench.keys():
        collective, np_ = key
        if not bench.candidates(key):
            continue
        if collective in V_COLLECTIVES:
            best, _, _ = geomean_winner(bench, key)
            if best is None:
                continue
            ranges = [(0, U64_MAX, best)]
        else:
            cells = cell_winners(bench, key)
            if not cells:
                continue
            ranges = size_ranges([(s, w) for s, w, *_ in cells])
        for lo, hi, w in ranges:
            entries.append({"collective": collective, "min_ranks": np_, "max_ranks": np_,
                            "min_bytes": lo, "max_bytes": hi, "schedule": w})
    return entries


def machine_text(bench, nps, mpiexec_flags=""):
    uname = platform.uname()
    cpu = None
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    ncores = run_bench.cores()
    mpi = (bench.mpi_library or "").split(",")[0] or "MPI ?"
    text = f"{uname.system} {uname.release} {uname.machine}; {cpu or 'cpu ?'}; {ncores} cores; {mpi}"
    over = [n for n in nps if n > ncores]
    if over:
        how = " with mpi_yield_when_idle" if "mpi_yield_when_idle" in mpiexec_flags else ""
        text += (f"; np {', '.join(map(str, over))} oversubscribed on {ncores} cores{how} "
                 "(timings there measure a crowded machine)")
    return text


def make_table(bench, command, machine, created=None):
    return {"format": FORMAT,
            "created": (created or utc_now()).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "command": command,
            "machine": machine,
            "entries": build_entries(bench)}


def check_table(table):
    """Problems with a table (empty list = fine): format, field types, per (collective, np) the
    ranges cover 0..2^64-1 without gaps or overlaps."""
    problems = []
    if table.get("format") != FORMAT:
        problems.append(f"format is {table.get('format')!r}, not {FORMAT!r}")
    groups = {}
    for i, e in enumerate(table.get("entries", [])):
        for k in ("collective", "schedule"):
            if not isinstance(e.get(k), str) or not e.get(k):
                problems.append(f"entry {i}: {k} missing")
        for k in ("min_ranks", "max_ranks", "min_bytes", "max_bytes"):
            if not isinstance(e.get(k), int) or e[k] < 0:
                problems.append(f"entry {i}: {k} is not a non-negative integer")
        if problems:
            continue
        if e["min_ranks"] > e["max_ranks"] or e["min_bytes"] > e["max_bytes"] or e["max_bytes"] > U64_MAX:
            problems.append(f"entry {i}: empty or out-of-range interval")
        groups.setdefault((e["collective"], e["min_ranks"], e["max_ranks"]), []).append(e)
    for (c, lo_np, hi_np), es in groups.items():
        es = sorted(es, key=lambda e: e["min_bytes"])
        if es[0]["min_bytes"] != 0 or es[-1]["max_bytes"] != U64_MAX:
            problems.append(f"{c} np {lo_np}-{hi_np}: ranges do not span 0..2^64-1")
        for a, b in zip(es, es[1:]):
            if b["min_bytes"] != a["max_bytes"] + 1:
                problems.append(f"{c} np {lo_np}-{hi_np}: gap or overlap at {a['max_bytes']}/{b['min_bytes']}")
            if a["schedule"] == b["schedule"]:
                problems.append(f"{c} np {lo_np}-{hi_np}: neighbouring ranges with the same schedule")
        if c in V_COLLECTIVES and len(es) != 1:
            problems.append(f"{c} np {lo_np}-{hi_np}: a v-collective needs one entry over all sizes")
    return problems


# ---------------------------------------------------------------------------
# Summary

def fmt_bytes(b):
    """Exact unless a whole number of KiB/MiB/GiB."""
    if b == U64_MAX:
        return "inf"
    return report.human_size(b) if b < 1024 or b % 1024 == 0 else f"{b} B"


def summary_lines(bench, table):
    lines = []
    entries = table["entries"]
    lines.append(f"tuning table: {len(entries)} entries; collectives x np: "
                 f"{len({(e['collective'], e['min_ranks']) for e in entries})}")
    lines.append("ranges per (collective, np): [from, to) schedule; in the cells below,"
                 " 'x1.07' = runner-up / winner,")
    lines.append("'nat 0.83' = winner / native MPI (< 1: the schedule beats native), '!' = a close call "
                 f"(runner-up within {int(round((CLOSE_CALL - 1) * 100))}%)")
    close = total = native_wins = 0
    for key in bench.keys():
        collective, np_ = key
        es = [e for e in entries if e["collective"] == collective and e["min_ranks"] == np_]
        if not es:
            continue
        lines.append("")
        lines.append(f"{collective}, np={np_}:")
        for e in es:
            hi = U64_MAX if e["max_bytes"] == U64_MAX else e["max_bytes"] + 1
            lines.append(f"  [{fmt_bytes(e['min_bytes'])}, {fmt_bytes(hi)})  {e['schedule']}")
        native = bench.native(key)
        if collective in V_COLLECTIVES:
            best, means, common = geomean_winner(bench, key)
            ranked = sorted(means.items(), key=lambda kv: kv[1])
            lines.append(f"  geometric mean over {len(common)} sizes: " +
                         ", ".join(f"{report.short_name(l)} {m * 1e6:.3g} us" for l, m in ranked))
        cells = cell_winners(bench, key)
        parts = []
        for s, w, t, ru, tru in cells:
            total += 1
            flag = ""
            if tru is not None and tru / t < CLOSE_CALL:
                close += 1
                flag = "!"
            tn = bench.time(key, native, s) if native else None
            if tn and t > tn:
                native_wins += 1
            parts.append(f"{fmt_bytes(s)} {report.short_name(w)}"
                         + (f" x{tru / t:.2f}{flag}" if tru is not None else "")
                         + (f" nat {t / tn:.2f}" if tn else ""))
        for i in range(0, len(parts), 4):
            lines.append("    " + "; ".join(parts[i:i + 4]))
    lines.append("")
    lines.append(f"{total} cells; {close} close calls (runner-up within {int(round((CLOSE_CALL - 1) * 100))}%); "
                 f"native MPI beats every hpcoll schedule in {native_wins}")
    return lines


# ---------------------------------------------------------------------------
# Running the bench

def bench_common_args(sizes, min_time, repetitions, collectives):
    common = [f"--hpcoll_sizes={sizes}", f"--benchmark_min_time={min_time:g}", "--hpcoll_no_memcpy"]
    if collectives:
        common.append(f"--hpcoll_collectives={collectives}")
    if repetitions > 1:
        common += [f"--benchmark_repetitions={repetitions}", "--benchmark_report_aggregates_only=true"]
    return common


def make_runner(binary, mpiexec_flags, outdir, verbose=False, extra=()):
    """run_bench's Runner (one mpiexec per call; <name>.json, <name>.log, commands.txt in outdir)."""
    args = types.SimpleNamespace(binary=binary, mpiexec_flags=mpiexec_flags, verbose=verbose, extra=list(extra))
    return run_bench.Runner(args, outdir)


def oversubscription_note(nps, mpiexec_flags, say=log):
    ncores = run_bench.cores()
    over = [n for n in nps if n > ncores]
    if over:
        say(f"NOTE: np {', '.join(map(str, over))} > {ncores} cores: oversubscribed"
            + (" (mpi_yield_when_idle)" if "mpi_yield_when_idle" in mpiexec_flags else "")
            + "; the table records it in its machine text")


def run_tune(binary, mpiexec_flags, outdir, nps, sizes, min_time, repetitions, collectives, verbose=False,
             extra=(), say=log):
    """Runs hpcoll_bench at each np into outdir/np<N>.json; returns (Bench, seconds per np, failed nps)."""
    runner = make_runner(binary, mpiexec_flags, outdir, verbose, extra)
    common = bench_common_args(sizes, min_time, repetitions, collectives)
    per_np = {}
    for n in nps:
        say(f"np={n}")
        t0 = time.monotonic()
        runner.run(n, f"np{n}", common)
        per_np[n] = time.monotonic() - t0
    failed = [name for name, _ in runner.failed]
    files = [os.path.join(outdir, f"np{n}.json") for n in nps if os.path.exists(os.path.join(outdir, f"np{n}.json"))]
    return Bench.load(files), per_np, failed


def write_table(path, table):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(table, f, indent=1)
        f.write("\n")



def parse_runner_args(ap, argv):
    """Adds the options every bench-running script shares (./hpcoll passes the
    hidden ones), splits off what follows "--" (passed to hpcoll_bench) and
    parses the rest: returns (args, extra)."""
    ap.add_argument("--verbose", action="store_true", help="show hpcoll_bench's console output")
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "benchmarks", "hpcoll_bench"),
                    help=argparse.SUPPRESS)
    ap.add_argument("--mpiexec-flags", default="", help=argparse.SUPPRESS)
    ap.add_argument("--cwd", help=argparse.SUPPRESS)  # ./hpcoll: where relative paths are from
    extra = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    return ap.parse_args(argv), extra

def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--evaluate" in argv:
        import dispatch_eval
        argv.remove("--evaluate")
        return dispatch_eval.main(argv)
    ap = argparse.ArgumentParser(prog="./hpcoll tune", formatter_class=argparse.RawDescriptionHelpFormatter,
                                 description=__doc__[__doc__.index("What it does:"):])
    ap.add_argument("--np", type=int, action="append", metavar="N",
                    help=f"process count (repeatable; default {' '.join(map(str, DEFAULT_NPS))})")
    ap.add_argument("--quick", action="store_true",
                    help=f"sizes {QUICK_SIZES} B, min_time {QUICK_MIN_TIME} (about a minute per np on 2 cores)")
    ap.add_argument("--out", metavar="FILE", help="the table (default results/tune-<UTC>/tuning.json); "
                                                  "the raw bench JSON goes next to it")
    ap.add_argument("--repetitions", type=int, metavar="K", default=DEFAULT_REPETITIONS,
                    help=f"Google Benchmark repetitions per row, the median is used (default {DEFAULT_REPETITIONS})")
    ap.add_argument("--min-time", type=float, metavar="S",
                    help=f"--benchmark_min_time per repetition (default {DEFAULT_MIN_TIME}; --quick {QUICK_MIN_TIME})")
    ap.add_argument("--sizes", metavar="MIN:MAX", help=f"bytes, x4 steps (default {FULL_SIZES}; --quick {QUICK_SIZES})")
    ap.add_argument("--collectives", metavar="a,b", help="only these collectives (default all)")
    ap.add_argument("--from", dest="sources", action="append", metavar="PATH",
                    help="build the table from these hpcoll_bench JSON files or folders; runs nothing")
    args, extra = parse_runner_args(ap, argv)
    if args.repetitions < 1:
        ap.error("--repetitions must be >= 1")
    args.out = from_cwd(args.cwd, args.out)
    args.sources = [from_cwd(args.cwd, p) for p in args.sources or []]
    command = " ".join(["./hpcoll", "tune"] + [shlex.quote(a) for a in _drop_hidden(argv)]
                       + (["--"] + [shlex.quote(a) for a in extra] if extra else []))

    now = utc_now()
    out = args.out or os.path.join(ROOT, "results", f"tune-{stamp(now)}", "tuning.json")
    outdir = os.path.dirname(os.path.abspath(out))
    os.makedirs(outdir, exist_ok=True)

    if args.sources:
        bench = Bench.load(args.sources)
        if not bench.times:
            sys.exit("[hpcoll] tune: no hpcoll_bench rows in " + ", ".join(args.sources))
        nps = bench.nps()
        log(f"table from {len(bench.files)} file(s): np {', '.join(map(str, nps))}")
        per_np, failed = {}, []
    else:
        if not os.access(args.binary, os.X_OK):
            sys.exit(f"[hpcoll] tune: no benchmark binary at {args.binary} (./hpcoll tune builds it)")
        nps = args.np or DEFAULT_NPS
        if any(n < 1 for n in nps):
            sys.exit("[hpcoll] tune: --np must be >= 1")
        sizes = args.sizes or (QUICK_SIZES if args.quick else FULL_SIZES)
        min_time = args.min_time if args.min_time is not None else (QUICK_MIN_TIME if args.quick else DEFAULT_MIN_TIME)
        log(f"np {', '.join(map(str, nps))}; sizes {sizes} B; min_time {min_time:g} s x {args.repetitions} "
            f"repetition(s) (median); collectives {args.collectives or 'all'}; table {run_bench.show(out)}")
        oversubscription_note(nps, args.mpiexec_flags)
        t0 = time.monotonic()
        bench, per_np, failed = run_tune(args.binary, args.mpiexec_flags, outdir, nps, sizes, min_time,
                                         args.repetitions, args.collectives, args.verbose, extra)
        log(f"benchmarks done in {run_bench.fmt_seconds(time.monotonic() - t0)} ("
            + ", ".join(f"np {n}: {run_bench.fmt_seconds(s)}" for n, s in per_np.items()) + ")")
        if not bench.times:
            sys.exit("[hpcoll] tune: every run failed; no table")

    table = make_table(bench, command, machine_text(bench, nps, args.mpiexec_flags), now)
    problems = check_table(table)
    if problems:
        sys.exit("[hpcoll] tune: internal error, inconsistent table:\n  " + "\n  ".join(problems))
    write_table(out, table)
    lines = summary_lines(bench, table)
    if per_np:
        lines.append("bench time per np: " + ", ".join(f"np {n}: {s:.0f} s" for n, s in per_np.items()))
    with open(os.path.join(outdir, "summary.txt"), "w") as f:
        f.write(f"{command}\n{table['machine']}\n\n" + "\n".join(lines) + "\n")
    print("\n".join(lines))
    if bench.errors:
        log(f"{len(bench.errors)} row(s) reported errors and were skipped, e.g. {bench.errors[0]}")
    rel = run_bench.show(out)
    log(f"wrote {rel} ({len(table['entries'])} entries); "
        + ("summary.txt" if args.sources else "raw bench JSON (np<N>.json), logs, commands.txt and summary.txt")
        + f" in {run_bench.show(outdir)}/")
    log(f"use it:  HPCOLL_TUNING={rel} mpiexec -n 4 ./your_program   "
        f"(calls the table does not cover are decided by the cost model)")
    log(f"check it:  ./hpcoll tune --evaluate --table {rel}")
    if failed:
        log("failed runs (their np has no entries): " + ", ".join(failed))
        return 1
    return 0


HIDDEN = ("--binary", "--mpiexec-flags", "--cwd")


def _drop_hidden(argv):
    """argv without --binary/--mpiexec-flags/--cwd (./hpcoll passes them) for the table's command text."""
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
            continue
        if a in HIDDEN:
            skip = True
            continue
        if a.startswith(tuple(h + "=" for h in HIDDEN)):
            continue
        out.append(a)
    return out


def from_cwd(cwd, path):
    """A path given on ./hpcoll's command line, relative to where ./hpcoll was started."""
    if path is None or not cwd or os.path.isabs(path):
        return path
    return os.path.join(cwd, path)


if __name__ == "__main__":
    sys.exit(main())
