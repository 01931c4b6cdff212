#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""./hpcoll tune: measures every schedule of every collective and writes a tuning table.

Called by ./hpcoll tune (which builds the hpcoll_bench target first and passes
--binary and --mpiexec-flags); standard library only.

  ./hpcoll tune [--np N]... [--quick] [--out FILE] [--repetitions K] [--rounds R] [--no-fresh-input]
                [--min-time S] [--sizes MIN:MAX] [--collectives a,b] [--from PATH]... [--verbose]
                [-- extra hpcoll_bench / Google Benchmark flags]
  ./hpcoll tune --evaluate [...]   the dispatcher evaluation (benchmarks/dispatch_eval.py;
                                   ./hpcoll tune --evaluate --help)

What it does:
  1. runs hpcoll_bench under mpiexec K times per process count (default K = 3 passes, np 2,
     3, 4, 8; pinned while the ranks fit the cores, more ranks than cores oversubscribed),
     every collective, every schedule; pass 1 at every np, then pass 2, ...: the median of
     the K passes per row (a machine whose speed shifts for a while shifts every schedule
     alike). Within a pass each size's rows take turns R times (default R = 3 rounds of
     min_time / R each; hpcoll_bench --hpcoll_rounds), the median of the rounds per row: on
     an oversubscribed node a schedule can run 4x slower for tens of milliseconds and then
     fast again, and rounds give every candidate of a cell a share of both. Every rank
     rewrites its input before each timed call, untimed (hpcoll_bench --hpcoll_fresh_input),
     as an application's calls see new data: a receiver that copies out of its peer's memory
     would otherwise find the bytes of the last call still in that core's cache, which
     flatters the schedules that send the input once over those that forward it
     (--no-fresh-input: the same input every call);
  2. per (collective, np, S) takes the fastest schedule (the native MPI row and the free
     function's "default" row are not candidates);
  3. turns each (collective, np) into byte ranges: boundaries at the geometric midpoint
     between neighbouring measured sizes (a size x belongs to the upper one when
     x*x >= a*b), the first range from 0, the last to 2^64-1, neighbouring ranges with the
     same winner merged; process-count ranges are exactly [np, np]. The per-rank collectives
     (message_size "per_rank" in the collective list hpcoll_bench writes into its JSON:
     gatherv, alltoallv) get one entry per np spanning every size (each rank knows only its
     own counts): the schedule with the best geometric mean over the measured sizes;
  4. writes the table (default results/tune-<UTC>/tuning.json), the raw hpcoll_bench JSON
     (np<N>.json), the console logs, commands.txt and summary.txt next to it.

Use the table with HPCOLL_TUNING=<table> in the environment of an hpcoll program: the
free functions (schedule::automatic) then take the table's schedule for the calls it
covers and the cost model's choice for the others.

--from PATH (repeatable; hpcoll_bench JSON files or folders of them) builds the table
from earlier runs without running anything (files of an hpcoll_bench that writes the
collective list, the context key "hpcoll_collectives").
"""

import argparse
import math
import os
import sys
import time

import bench_common as bc

FORMAT = "hpcoll-tuning-1"
U64_MAX = bc.U64_MAX
DEFAULT_NPS = [2, 3, 4, 8]
FULL_SIZES = bc.FULL_SIZES  # 4 B .. 16 MiB, x4 steps
QUICK_SIZES = bc.SMALL_SIZES  # 4 B .. 1 MiB
DEFAULT_MIN_TIME = 0.03
QUICK_MIN_TIME = 0.01
DEFAULT_REPETITIONS = 3
DEFAULT_ROUNDS = 3
CLOSE_CALL = 1.05  # a winner within 5% of the runner-up: noise on a shared machine can flip it

log = bc.Log("tune")


# ---------------------------------------------------------------------------
# Loading hpcoll_bench JSON: exact S (the row name's), median over repetitions

class Bench:
    """Measurements of hpcoll_bench JSON files: times[(collective, np)][label][S] = seconds per call
    (slowest rank; the median aggregate when the run had repetitions, else the median of the
    iteration rows). S is the row name's, i.e. the exact bytes the dispatcher will see. The
    collectives (order, size rule) are the files' collective list (bc.read_collectives)."""

    def __init__(self):
        self.times = {}
        self.samples = {}  # (key, label, S) -> one time per file
        self.order = {}  # (collective, np) -> labels in order of appearance
        self.files = []
        self.mpi_library = None
        self.cores = None
        self.errors = []
        self.collectives = bc.Collectives()
        self.list_problems = []  # malformed collective lists

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
            doc = bc.load_json(path)
        except (OSError, ValueError) as e:
            if not quiet:
                log.die(f"cannot read {path}: {e}")
            return
        if not bc.is_bench_doc(doc):
            if not quiet:
                log.die(f"{path} is not hpcoll_bench JSON (no 'benchmarks')")
            return
        self.add_doc(doc, os.path.basename(path))
        self.files.append(path)

    def add_doc(self, doc, name="<doc>"):
        f = bc.read_bench_doc(doc, name)
        self.mpi_library = self.mpi_library or f.mpi_library
        self.cores = self.cores or f.cores
        self.errors += f.errors
        self.collectives.merge(f.collectives)
        if f.list_problem:
            self.list_problems.append(f.list_problem)
        for run in f.runs:
            if run.collective == "memcpy":
                continue
            key = (run.collective, run.np)
            # Several files of one (collective, np) are passes of the same run: the median of theirs.
            samples = self.samples.setdefault((key, run.label, run.size), [])
            samples.append(bc.median(bc.entry_us(e) * 1e-6 for e in run.entries))
            self.times.setdefault(key, {}).setdefault(run.label, {})[run.size] = bc.median(samples)
            order = self.order.setdefault(key, [])
            if run.label not in order:
                order.append(run.label)

    def undescribed(self):
        """Problems that leave a measured collective without its rules: [] when every one is in the list."""
        missing = sorted({c for c, _ in self.times if c not in self.collectives})
        return self.list_problems + ([str(self.collectives.unknown(missing))] if missing else [])

    # -- queries
    def keys(self):
        return sorted(self.times, key=lambda k: (self.collectives.sort_key(k[0]), k[1]))

    def nps(self):
        return sorted({n for _, n in self.times})

    def candidates(self, key):
        return [l for l in self.order.get(key, []) if bc.is_candidate(l)]

    def native(self, key):
        return bc.native_column(self.order.get(key, []))

    def time(self, key, label, size):
        return self.times.get(key, {}).get(label, {}).get(size)

    def sizes(self, key, labels=None):
        per = self.times.get(key, {})
        labels = self.candidates(key) if labels is None else labels
        return sorted({s for l in labels for s in per.get(l, {})})


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
        means = {l: bc.geomean(list(bench.times[key][l].values())) for l in cands}
    else:
        means = {l: bc.geomean([bench.times[key][l][s] for s in common]) for l in cands}
    best = min(cands, key=lambda l: (means[l], cands.index(l)))
    return best, means, common


def build_entries(bench):
    """The table's entries, in collective order, then np, then bytes. A per-rank collective (its
    message_size in the collective list) gets one entry per np over all sizes; a collective the
    list does not name raises bc.UnknownCollective (check bench.undescribed() first)."""
    entries = []
    for key in bench.keys():
        collective, np_ = key
        if not bench.candidates(key):
            continue
        if bench.collectives.get(collective).per_rank:
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


def make_table(bench, command, machine, created=None):
    return {"format": FORMAT,
            "created": (created or bc.utc_now()).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "command": command,
            "machine": machine,
            "entries": build_entries(bench)}


def check_table(table, collectives):
    """Problems with a table (empty list = fine): format, field types, collectives and schedules
    that `collectives` (bc.Collectives) does not list, per (collective, np) the ranges cover
    0..2^64-1 without gaps or overlaps, one entry for a per-rank collective."""
    problems = []
    if table.get("format") != FORMAT:
        problems.append(f"format is {table.get('format')!r}, not {FORMAT!r}")
    groups = {}
    for i, e in enumerate(table.get("entries", [])):
        malformed = [f"entry {i}: {k} missing" for k in ("collective", "schedule")
                     if not isinstance(e.get(k), str) or not e.get(k)]
        malformed += [f"entry {i}: {k} is not a non-negative integer"
                      for k in ("min_ranks", "max_ranks", "min_bytes", "max_bytes")
                      if not isinstance(e.get(k), int) or e[k] < 0]
        problems += malformed
        if malformed:
            continue
        if e["collective"] not in collectives:
            problems.append(f"entry {i}: unknown collective {e['collective']}")
            continue
        if e["schedule"] not in collectives.get(e["collective"]).candidates:
            problems.append(f"entry {i}: {e['schedule']} is not a candidate of {e['collective']}")
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
        if collectives.get(c).per_rank and len(es) != 1:
            problems.append(f"{c} np {lo_np}-{hi_np}: a per-rank (v-)collective needs one entry over all sizes")
    return problems


# ---------------------------------------------------------------------------
# Summary

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
            lines.append(f"  [{bc.fmt_bytes(e['min_bytes'])}, {bc.fmt_bytes(hi)})  {e['schedule']}")
        native = bench.native(key)
        if bench.collectives.get(collective).per_rank:
            best, means, common = geomean_winner(bench, key)
            ranked = sorted(means.items(), key=lambda kv: kv[1])
            lines.append(f"  geometric mean over {len(common)} sizes: " +
                         ", ".join(f"{bc.short_name(l)} {m * 1e6:.3g} us" for l, m in ranked))
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
            parts.append(f"{bc.fmt_bytes(s)} {bc.short_name(w)}"
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

def bench_common_args(sizes, min_time, collectives, rounds=1, fresh_input=False):
    """hpcoll_bench's flags of a pass: `rounds` turns of each size's rows, min_time shared among them."""
    common = [f"--hpcoll_sizes={sizes}", f"--benchmark_min_time={min_time / rounds:g}", f"--hpcoll_rounds={rounds}",
              "--hpcoll_no_memcpy"]
    if fresh_input:
        common.append("--hpcoll_fresh_input")
    if collectives:
        common.append(f"--hpcoll_collectives={collectives}")
    return common


def pass_name(n, k):
    """The bench file of pass k (1-based) at np n: np<n>.json, then np<n>-pass<k>.json."""
    return f"np{n}" if k == 1 else f"np{n}-pass{k}"


def run_passes(runner, nps, passes, common, first_pass_args=lambda n: [], say=log):
    """`passes` runs of the bench at each np, the np interleaved (pass 1 at every np, then pass 2, ...):
    a machine whose speed shifts for seconds or minutes (a VM's neighbours, frequency, where the
    scheduler put the ranks) then shifts every schedule's time alike instead of whichever rows ran
    then, as repetitions inside one run would. Returns (seconds per np, files)."""
    per_np, files = {}, []
    for k in range(1, passes + 1):
        for n in nps:
            say(f"np={n}" + (f", pass {k} of {passes}" if passes > 1 else ""))
            t0 = time.monotonic()
            name = pass_name(n, k)
            runner.run(n, name, common + (first_pass_args(n) if k == 1 else []))
            per_np[n] = per_np.get(n, 0) + time.monotonic() - t0
            if os.path.exists(path := os.path.join(runner.outdir, name + ".json")):
                files.append(path)
    return per_np, files


def add_bench_mode_options(ap):
    """--rounds and --fresh-input, shared with ./hpcoll tune --evaluate."""
    ap.add_argument("--rounds", type=bc.positive_int, metavar="R", default=DEFAULT_ROUNDS,
                    help="turns of each size's rows within a pass, in alternation, min_time / R each; the "
                         f"median per row is used (default {DEFAULT_ROUNDS})")
    ap.add_argument("--fresh-input", action=argparse.BooleanOptionalAction, default=True,
                    help="every rank rewrites its input before each timed call, untimed (hpcoll_bench "
                         "--hpcoll_fresh_input; default on, --no-fresh-input: the same input every call)")


def oversubscription_note(nps, mpiexec_flags, say=log):
    ncores = bc.cores()
    over = [n for n in nps if n > ncores]
    if over:
        say(f"NOTE: np {', '.join(map(str, over))} > {ncores} cores: oversubscribed"
            + (" (mpi_yield_when_idle)" if "mpi_yield_when_idle" in mpiexec_flags else "")
            + "; the table records it in its machine text")


def run_tune(binary, mpiexec_flags, outdir, nps, sizes, min_time, repetitions, rounds, fresh_input, collectives,
             verbose=False, extra=(), say=log):
    """Runs hpcoll_bench at each np into outdir/np<N>.json; returns (Bench, seconds per np, failed nps)."""
    runner = bc.Runner(binary, mpiexec_flags, outdir, say, verbose, extra, timing=True)
    common = bench_common_args(sizes, min_time, collectives, rounds, fresh_input)
    per_np, files = run_passes(runner, nps, repetitions, common, say=say)
    return Bench.load(files), per_np, runner.failed_names()


def tuning_step(bench, command, nps, mpiexec_flags, out, say=log, created=None):
    """The table of `bench` written to `out` (exits through say.die when a collective's rules are
    unknown or the table is inconsistent); returns (table, summary lines)."""
    problems = bench.undescribed()
    if problems:
        say.die("cannot build the table:\n  " + "\n  ".join(problems))
    table = make_table(bench, command, bc.machine_text(bench.mpi_library, nps, mpiexec_flags), created)
    problems = check_table(table, bench.collectives)
    if problems:
        say.die("internal error, inconsistent table:\n  " + "\n  ".join(problems))
    bc.write_json(out, table)
    return table, summary_lines(bench, table)


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = bc.parser("./hpcoll tune", __doc__, "What it does:")
    bc.add_run_options(ap, np_help=f"process count (repeatable; default {' '.join(map(str, DEFAULT_NPS))})",
                       quick_help=f"sizes {QUICK_SIZES} B, min_time {QUICK_MIN_TIME} (about a minute per np on 2 cores)",
                       out_help="the table (default results/tune-<UTC>/tuning.json); the raw bench JSON goes next "
                                "to it", out_metavar="FILE")
    ap.add_argument("--repetitions", type=bc.positive_int, metavar="K", default=DEFAULT_REPETITIONS,
                    help=f"passes of the benchmark per np, the median per row is used (default {DEFAULT_REPETITIONS})")
    add_bench_mode_options(ap)
    ap.add_argument("--min-time", type=float, metavar="S",
                    help=f"--benchmark_min_time per row and pass, shared among its rounds (default "
                         f"{DEFAULT_MIN_TIME}; --quick {QUICK_MIN_TIME})")
    ap.add_argument("--sizes", metavar="MIN:MAX", help=f"bytes, x4 steps (default {FULL_SIZES}; --quick {QUICK_SIZES})")
    ap.add_argument("--collectives", metavar="a,b", help="only these collectives (default all)")
    ap.add_argument("--from", dest="sources", action="append", default=[], metavar="PATH",
                    help="build the table from these hpcoll_bench JSON files or folders; runs nothing")
    args = bc.parse_run_args(ap, argv, "hpcoll_bench", paths=("out", "sources"))
    command = bc.command_text(["./hpcoll", "tune"], args)

    now = bc.utc_now()
    out = args.out or os.path.join(bc.ROOT, "results", f"tune-{bc.stamp(now)}", "tuning.json")
    outdir = os.path.dirname(os.path.abspath(out))
    os.makedirs(outdir, exist_ok=True)

    if args.sources:
        bench = Bench.load(args.sources)
        if not bench.times:
            log.die("no hpcoll_bench rows in " + ", ".join(args.sources))
        nps = bench.nps()
        log(f"table from {len(bench.files)} file(s): np {', '.join(map(str, nps))}")
        per_np, failed = {}, []
    else:
        bc.require_binary(args, log, "./hpcoll tune")
        nps = bc.process_counts(args, DEFAULT_NPS, 1, log)
        sizes = args.sizes or (QUICK_SIZES if args.quick else FULL_SIZES)
        min_time = args.min_time if args.min_time is not None else (QUICK_MIN_TIME if args.quick else DEFAULT_MIN_TIME)
        log(f"np {', '.join(map(str, nps))}; sizes {sizes} B; min_time {min_time:g} s in {args.rounds} round(s) "
            f"x {args.repetitions} pass(es) (median); collectives {args.collectives or 'all'}; table {bc.show(out)}")
        oversubscription_note(nps, args.mpiexec_flags)
        t0 = time.monotonic()
        bench, per_np, failed = run_tune(args.binary, args.mpiexec_flags, outdir, nps, sizes, min_time,
                                         args.repetitions, args.rounds, args.fresh_input, args.collectives,
                                         args.verbose, args.extra)
        log(f"benchmarks done in {bc.fmt_seconds(time.monotonic() - t0)} ("
            + ", ".join(f"np {n}: {bc.fmt_seconds(s)}" for n, s in per_np.items()) + ")")
        if not bench.times:
            log.die("every run failed; no table")

    table, lines = tuning_step(bench, command, nps, args.mpiexec_flags, out, created=now)
    if per_np:
        lines.append("bench time per np: " + ", ".join(f"np {n}: {s:.0f} s" for n, s in per_np.items()))
    with open(os.path.join(outdir, "summary.txt"), "w") as f:
        f.write(f"{command}\n{table['machine']}\n\n" + "\n".join(lines) + "\n")
    print("\n".join(lines))
    if bench.errors:
        log(f"{len(bench.errors)} row(s) reported errors and were skipped, e.g. {bench.errors[0]}")
    rel = bc.show(out)
    log(f"wrote {rel} ({len(table['entries'])} entries); "
        + ("summary.txt" if args.sources else "raw bench JSON (np<N>.json), logs, commands.txt and summary.txt")
        + f" in {bc.show(outdir)}/")
    log(f"use it:  HPCOLL_TUNING={rel} mpiexec -n 4 ./your_program   "
        f"(calls the table does not cover are decided by the cost model)")
    log(f"check it:  ./hpcoll tune --evaluate --table {rel}")
    if failed:
        log("failed runs (their np has no entries): " + ", ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
