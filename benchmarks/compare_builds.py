#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""./hpcoll bench --compare: two builds of hpcoll_bench timed against each other, alternating.

  ./hpcoll bench --compare --before PATH [--np N]... [--rounds R] [--collectives a,b]
                           [--sizes MIN:MAX] [--min-time S] [--out DIR] [--from DIR] [--verbose]
                           [-- extra hpcoll_bench flags]

What it does:
  runs the hpcoll_bench of --before PATH (another build, e.g. a worktree of an older commit) and
  this build's (the "after") under mpiexec: per round, per np and per collective one build, then
  the other, into DIR/before-np<N>-<collective>-r<k>.json and DIR/after-np<N>-<collective>-r<k>.json.
  Odd rounds run the before build first, even rounds the after build, so that the machine's
  drift during a run falls on both alike. np <= cores: --bind-to core; more ranks than cores:
  oversubscribed (Open MPI: --oversubscribe --bind-to none --mca mpi_yield_when_idle 1).
  Then writes DIR/report.txt (printed), report.md and report.json: per np and collective the
  ratio after/before as geometric means over the hpcoll rows (a row: <collective>/<schedule>/
  <bytes>) and over the native rows (the MPI library's own call, the same in both builds: how
  far noise alone moves a ratio), the 3 hpcoll rows furthest from 1; an overall line; the rows
  only one build has. DIR defaults to results/compare-<UTC timestamp>/. --from DIR rewrites the
  report of an earlier folder without running anything.

Estimators:
  on this 2-core VM a run lands in a fast mode or in a slow one about 2x slower, so a plain
  median over the rounds flips with the count of slow runs. Per row and build: the fast-mode
  median (the median of the rounds within 1.3x of that build's fastest round), the plain median
  and the minimum. One unusually fast round moves the fast-mode median and the minimum but not
  the plain median: read a ratio as a change where the columns agree. Ratio < 1: the after
  build is faster.

  Default: np 2 and 4, 7 rounds, allreduce,bcast,alltoall, sizes 8 B..1 MiB (x4),
  --benchmark_min_time 0.02, no memcpy rows: about 4 minutes on 2 cores.
"""

import math
import os
import re
import sys
import time
from typing import NamedTuple

import bench_common as bc
from bench_common import f2, fmt_us

DEFAULT_NPS = [2, 4]
DEFAULT_ROUNDS = 7
DEFAULT_COLLECTIVES = "allreduce,bcast,alltoall"
DEFAULT_SIZES = "8:1048576"
DEFAULT_MIN_TIME = 0.02
FAST_MODE = 1.3  # a round within this factor of the build's fastest is in the fast mode
FURTHEST = 3
VERSIONS = ("before", "after")
PINNED = "--bind-to core"
OVERSUBSCRIBED = "--oversubscribe --bind-to none --mca mpi_yield_when_idle 1"  # Open MPI's
FILE_NAME = re.compile(r"^(before|after)-np(\d+)-(.+)-r(\d+)\.json$")
HEADER = ["", "rows", "fast-mode", "median", "min", "before µs", "after µs"]
RATIOS = ("ratio_fast", "ratio_median", "ratio_min")

log = bc.Log("bench --compare")


def mpiexec_flags(np_, open_mpi):
    if np_ <= bc.cores():
        return PINNED
    return OVERSUBSCRIBED if open_mpi else ""


# ---------------------------------------------------------------------------
# Loading and the comparison

class Results(NamedTuple):
    times: dict  # {(np, collective, schedule, bytes): {version: [µs, one per round]}}
    files: list  # [{"file", "version", "np", "collective", "round", "date"}]
    collectives: bc.Collectives
    errors: list  # "file: row: message" of rows that reported an error
    contexts: dict  # {version: the JSON context of its first file}


def load(folder):
    times, files, errors, contexts = {}, [], [], {}
    collectives = bc.Collectives()
    for name in sorted(os.listdir(folder)):
        m = FILE_NAME.match(name)
        if not m:
            continue
        version, np_, round_ = m.group(1), int(m.group(2)), int(m.group(4))
        doc = bc.load_json(os.path.join(folder, name))
        bench = bc.read_bench_doc(doc, name)
        collectives.merge(bench.collectives)
        errors += bench.errors
        context = doc.get("context", {})
        contexts.setdefault(version, context)
        files.append({"file": name, "version": version, "np": np_, "collective": m.group(3), "round": round_,
                      "date": context.get("date")})
        for run in bench.runs:
            row = times.setdefault((np_, run.collective, run.label, run.size), {v: [] for v in VERSIONS})
            row[version].append(bc.median([bc.entry_us(e) for e in run.entries]))
    return Results(times, files, collectives, errors, contexts)


def fast_mode_median(times):
    fastest = min(times)
    return bc.median([t for t in times if t <= FAST_MODE * fastest])


def compare(times):
    """(rows both builds have, with their estimators and ratios; rows only one build has)."""
    rows, only = [], []
    for (np_, collective, schedule, size), by_version in sorted(times.items()):
        name = f"{collective}/{schedule}/{size}"
        present = [v for v in VERSIONS if by_version[v]]
        if len(present) < len(VERSIONS):
            only.append({"np": np_, "name": name, "only_in": present[0]})
            continue
        row = {"np": np_, "name": name, "collective": collective, "schedule": schedule, "bytes": size,
               "native": bc.is_native(schedule)}
        for v in VERSIONS:
            row |= {f"{v}_us": by_version[v], f"{v}_fast_us": fast_mode_median(by_version[v]),
                    f"{v}_median_us": bc.median(by_version[v]), f"{v}_min_us": min(by_version[v])}
        row |= {"ratio_fast": row["after_fast_us"] / row["before_fast_us"],
                "ratio_median": row["after_median_us"] / row["before_median_us"],
                "ratio_min": row["after_min_us"] / row["before_min_us"]}
        rows.append(row)
    return rows, only


def split(rows):
    return [r for r in rows if not r["native"]], [r for r in rows if r["native"]]


def groups(rows, collectives):
    """{(np, collective): [rows]}, np ascending, collectives in the order of the JSON's list."""
    out = {}
    for r in sorted(rows, key=lambda r: (r["np"], collectives.sort_key(r["collective"]))):
        out.setdefault((r["np"], r["collective"]), []).append(r)
    return out


# ---------------------------------------------------------------------------
# The report

def group_line(label, rows):
    return [label, str(len(rows))] + [f2(bc.geomean([r[k] for r in rows])) for k in RATIOS] + ["", ""]


def table_rows(rows):
    """Geometric means of the hpcoll and the native rows, a rule, the hpcoll rows furthest from 1."""
    hpcoll, native = split(rows)
    furthest = sorted(hpcoll, key=lambda r: -abs(math.log(r["ratio_fast"])))[:FURTHEST]
    return ([group_line("hpcoll rows, geomean", hpcoll), group_line("native rows, geomean", native), None]
            + [[r["name"], ""] + [f2(r[k]) for k in RATIOS] + [fmt_us(r["before_fast_us"]), fmt_us(r["after_fast_us"])]
               for r in furthest])


def overall(rows):
    parts = []
    for label, rs in zip(("hpcoll", "native"), split(rows)):
        ratios = [r["ratio_fast"] for r in rs]
        parts.append(f"{label} rows ({len(rs)}): geomean {f2(bc.geomean(ratios))}, "
                     f"median {f2(bc.median(ratios) if ratios else None)}")
    return "overall, fast-mode ratio after/before: " + "; ".join(parts)


def placement(np_, ncores):
    return f"{np_} ranks on {ncores} cores" + (", oversubscribed" if np_ > ncores else "")


def settings_line(s, run):
    min_time = f"min_time {s['min_time']:g} s per row; " if s.get("min_time") else ""
    return (f"{s['rounds']} round(s), the builds alternating (odd rounds before first); sizes {s['sizes']}; "
            f"{min_time}{(run.get('mpi') or 'MPI ?').split(',')[0]}")


METHOD = (f"Ratios after/before (< 1: after is faster) of the fast-mode median (over the rounds within "
          f"{FAST_MODE}x of the build's fastest), of the plain median and of the minimum; before µs / after µs: "
          "fast-mode medians. "
          "Native rows time the MPI library's own call, the same in both builds: their ratios show the noise.")


def report_lines(meta, results, rows, only, markdown):
    """report.md (markdown) or report.txt: the same header, one table per np and collective."""
    ncores = bc.as_int(results.contexts.get("after", {}).get("cores")) or meta.get("cores") or bc.cores()
    rounds = max(f["round"] for f in results.files)
    sizes = sorted({r["bytes"] for r in rows})
    runs = [dict(f, mpi=results.contexts[f["version"]].get("mpi_library")) for f in results.files]
    runs[0]["settings"] = {"rounds": rounds, "sizes": f"{bc.human_size(sizes[0])}..{bc.human_size(sizes[-1])}",
                           "min_time": meta.get("min_time")}
    L = bc.report_header("Comparison of two builds", meta, rows, runs, settings_line, "rounds")
    binaries = {v: meta.get(v) or results.contexts.get(v, {}).get("executable", "?") for v in VERSIONS}
    L.append(f"- Builds: before `{binaries['before']}`; after `{binaries['after']}`")
    flags = meta.get("mpiexec_flags_per_np", {})
    L.append("- Process counts: " + "; ".join(
        f"np {n}: {placement(n, ncores)}" + (f" (`{flags[str(n)]}`)" if flags.get(str(n)) else "")
        for n in sorted({f["np"] for f in results.files})))
    if meta.get("failed"):
        L.append(f"- **Failed runs** (no JSON, rows missing): {', '.join(meta['failed'])}")
    if results.errors:
        L.append(f"- **Rows that reported an error** (left out): {'; '.join(results.errors)}")
    L += ["", METHOD, ""]
    for (np_, collective), rs in groups(rows, results.collectives).items():
        title = f"{collective}, np = {np_} ({placement(np_, ncores)})"
        body = table_rows(rs)
        if markdown:
            L += [f"### {title}", "", bc.md_table(HEADER, [r for r in body if r is not None]), ""]
        else:
            L += [title, bc.text_table(HEADER, body), ""]
    L.append(overall(rows))
    if only:
        L += ["", "Rows in one build only:"] + [f"- np {o['np']} {o['name']}: only in {o['only_in']}" for o in only]
    return L


def write_report(folder, results, meta):
    rows, only = compare(results.times)
    if not rows:
        log.die(f"no row that both builds measured in {folder} (before-*.json, after-*.json)")
    text = "\n".join(report_lines(meta, results, rows, only, markdown=False)) + "\n"
    with open(os.path.join(folder, "report.txt"), "w") as f:
        f.write(text)
    print(text, end="")
    report = {"meta": meta, "runs": results.files, "rows": rows, "only_in_one_build": only,
              "errors": results.errors}
    bc.write_reports(folder, report, "\n".join(report_lines(meta, results, rows, only, markdown=True)))
    log(f"report: {bc.show(os.path.join(folder, 'report.txt'))}, report.md, report.json")


# ---------------------------------------------------------------------------

def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = bc.parser("./hpcoll bench --compare", __doc__, "What it does:")
    ap.add_argument("--before", metavar="PATH", help="the other build's hpcoll_bench (required unless --from)")
    ap.add_argument("--np", type=int, action="append", metavar="N",
                    help=f"process count (repeatable; default {' '.join(map(str, DEFAULT_NPS))})")
    ap.add_argument("--rounds", type=bc.positive_int, default=DEFAULT_ROUNDS, metavar="R",
                    help=f"runs of each build per np and collective (default {DEFAULT_ROUNDS})")
    ap.add_argument("--collectives", default=DEFAULT_COLLECTIVES, metavar="a,b",
                    help=f"one run per collective (default {DEFAULT_COLLECTIVES})")
    ap.add_argument("--sizes", default=DEFAULT_SIZES, metavar="MIN:MAX",
                    help=f"bytes, x4 steps (default {DEFAULT_SIZES})")
    ap.add_argument("--min-time", type=float, default=DEFAULT_MIN_TIME, metavar="S",
                    help=f"--benchmark_min_time per row (default {DEFAULT_MIN_TIME})")
    ap.add_argument("--out", metavar="DIR", help="results folder (default results/compare-<UTC timestamp>)")
    ap.add_argument("--from", dest="reuse", metavar="DIR", help="rewrite the report of an earlier folder; runs nothing")
    ap.set_defaults(quick=False)  # run_meta's field; a comparison has no quick mode
    args = bc.parse_run_args(ap, argv, "hpcoll_bench", paths=("out", "reuse", "before"))

    if args.reuse:
        folder = os.path.abspath(args.reuse)
        if not os.path.isdir(folder):
            log.die(f"no such folder {folder}")
        write_report(folder, load(folder), bc.report_meta(folder))
        return 0

    if not args.before:
        ap.error("--before PATH is required (the other build's hpcoll_bench), unless --from DIR")
    if not (os.path.isfile(args.before) and os.access(args.before, os.X_OK)):
        ap.error(f"--before {args.before}: no executable file")
    nps, now, folder, command = bc.start_run(args, log, ["./hpcoll", "bench", "--compare"], DEFAULT_NPS, 1, "compare")
    open_mpi = bc.is_open_mpi()
    flags = {n: mpiexec_flags(n, open_mpi) for n in nps}
    # In place of ./hpcoll's --mpiexec-flags: the machine line of run_meta names the oversubscribed runs' flags.
    args.mpiexec_flags = OVERSUBSCRIBED if open_mpi else ""
    collectives = [c for c in args.collectives.split(",") if c]
    common = [f"--hpcoll_sizes={args.sizes}", f"--benchmark_min_time={args.min_time:g}", "--hpcoll_no_memcpy"]
    log(f"before {args.before}; after {args.binary}; np {', '.join(map(str, nps))}; {args.rounds} round(s); "
        f"{', '.join(collectives)}; sizes {args.sizes} B; results in {bc.show(folder)}")
    for n in nps:
        log(f"np {n}: {placement(n, bc.cores())}; mpiexec {flags[n] or '(no flags)'}")

    t0 = time.monotonic()
    runners = {v: bc.Runner(b, "", folder, log, args.verbose, args.extra)
               for v, b in (("before", args.before), ("after", args.binary))}
    for k in range(1, args.rounds + 1):
        order = VERSIONS if k % 2 else VERSIONS[::-1]
        log(f"round {k} of {args.rounds}: {order[0]} first")
        for n in nps:
            for c in collectives:
                for v in order:
                    runners[v].run(n, f"{v}-np{n}-{c}-r{k}", common + [f"--hpcoll_collectives={c}"],
                                   mca=flags[n].split())
    seconds = time.monotonic() - t0
    failed = [name for runner in runners.values() for name in runner.failed_names()]
    log(f"runs done in {bc.fmt_seconds(seconds)}")
    if len(failed) == sum(runner.runs for runner in runners.values()):
        log.die("every run failed; no report")
    results = load(folder)
    mpi = results.contexts.get("after", {}).get("mpi_library")
    meta = bc.run_meta(now, command, args, nps, mpi, seconds, failed, rounds=args.rounds, min_time=args.min_time,
                       sizes=args.sizes, collectives=collectives,
                       before=os.path.abspath(args.before), after=os.path.abspath(args.binary),
                       mpiexec_flags_per_np={str(n): f for n, f in flags.items()})
    write_report(folder, results, meta)
    return bc.run_exit_code(log, failed, []) or (1 if results.errors else 0)


if __name__ == "__main__":
    sys.exit(main())
