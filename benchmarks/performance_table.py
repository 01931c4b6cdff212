#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""./hpcoll bench --table: hpcoll's dispatched collectives ÷ native MPI, the table of docs/performance.md.

  ./hpcoll bench --table [--np N]... [--configs default,machine,tuning] [--machine FILE] [--tuning FILE]
                         [--quick] [--out DIR] [--from DIR] [--verbose] [-- extra hpcoll_table flags]

What it does:
  runs hpcoll_table (benchmarks/table.cpp) under mpiexec once per np (default 2, 4, 8) and
  configuration, into DIR/<configuration>-np<N>.json: bcast, reduce, allreduce, allgather and
  alltoall through hpcoll's free functions (the dispatcher's choice) and through the MPI
  library, S = 8 B .. 2 MiB in x8 steps (the vector; allgather and alltoall: each rank's
  block), int, op sum, root 0. The two alternate within the run: per cell, 31 trials, each
  timing `calls` calls of one and then of the other (the slowest rank's mean per call), the
  order flipping every trial; calls per trial 4 MiB / S, within 20 to 2000, fewer (not below
  20) where the warm-up says a trial would last more than 20 ms (oversubscribed runs).
  A cell's ratio is hpcoll's median over the trials ÷ native's (< 1: hpcoll is faster).
  np <= cores: --bind-to core; more ranks than cores: oversubscribed (Open MPI:
  --oversubscribe --bind-to none --mca mpi_yield_when_idle 1).

  The configurations (the table's columns), each its own run, all with HPCOLL_MACHINE,
  HPCOLL_TUNING and every HPCOLL_<COLLECTIVE> unset and HOME and XDG_CONFIG_HOME an empty
  folder, so that no machine file is found where hpcoll looks by default:
    default  out of the box: no machine file, no tuning table;
    machine  HPCOLL_MACHINE=FILE: --machine FILE, else the one ./hpcoll calibrate writes
             first (DIR/machine.json);
    tuning   HPCOLL_TUNING=FILE (and no machine file): --tuning FILE, else the one ./hpcoll
             tune writes first for these collectives and process counts (DIR/tuning/).

  Then writes DIR/report.md and DIR/report.json (DIR defaults to results/table-<UTC>/): per
  np a table of collective x S with the native time in µs and each configuration's ratio,
  every collective's geometric mean and that of all cells, and the targets, met or missed.
  Every file names what the dispatcher read (machine file, tuning table); a run of the
  default configuration that read one, or a wrong result, fails the report. --from DIR
  rewrites the report of an earlier folder without running anything.

  A full run on this 2-core VM takes roughly 2, 3 and 5 minutes per configuration at np 2, 4
  and 8 (more on a busy machine), plus the calibration and the tuning runs (minutes per np). --quick: 3 trials of
  256 KiB / S calls (2 to 200, at most 2 ms), quick calibration and tuning: a check that everything runs, not
  a measurement.
"""

import os
import re
import shlex
import sys
import tempfile
import time
from typing import NamedTuple

import bench_common as bc
from bench_common import f2, fmt_us
from dispatch_eval import Env

FORMAT = "hpcoll-table-1"
DEFAULT_NPS = [2, 4, 8]
# The configurations in column order, with their column titles.
CONFIGS = {"default": "out of the box", "machine": "machine file", "tuning": "tuning table"}
COLLECTIVES = "bcast,reduce,allreduce,allgather,alltoall"
QUICK_OPTIONS = ["--trials=3", "--trial-bytes=256K", "--min-calls=2", "--max-calls=200", "--max-trial-time=0.002"]
BUILT_IN = "built-in defaults"  # the machine source when no machine file was read
FILE_NAME = re.compile(r"^(" + "|".join(CONFIGS) + r")-np(\d+)\.json$")

log = bc.Log("bench --table")


class Target(NamedTuple):
    """A goal for one configuration at the process counts `nps` (None: every np): the largest
    cell ("cells"), the largest collective geometric mean ("collectives"), one collective's
    geometric mean (its name) or the geometric mean of all cells ("all") at most `limit`."""
    config: str
    nps: object
    scope: str
    limit: float

    def describe(self):
        what = {"cells": f"no cell above {self.limit:.2f}",
                "collectives": f"every collective's geometric mean ≤ {self.limit:.2f}",
                "all": f"all cells together ≤ {self.limit:.2f}"}
        return what.get(self.scope, f"{self.scope}'s geometric mean ≤ {self.limit:.2f}")


TARGETS = (
    Target("default", (2,), "cells", 1.05),
    Target("default", (2,), "collectives", 1.00),
    Target("default", (2,), "allreduce", 0.85),
    Target("default", (2,), "all", 0.95),
    Target("default", (4, 8), "collectives", 0.90),
    Target("default", (4, 8), "all", 0.85),
    Target("machine", None, "all", 0.85),
)


# ---------------------------------------------------------------------------
# Loading

class Results(NamedTuple):
    runs: list  # one dict per file: file, config, np, date, cores, mpi, machine_source, tuning_source, settings
    cells: dict  # {np: {(collective, bytes): {config: row of the file}}}
    collectives: list  # in the order of the files' rows


def number(row, key, where):
    v = row.get(key)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0:
        raise ValueError(f"{where}: '{key}' is {v!r}, not a positive number")
    return v


def read_file(path):
    """One hpcoll_table JSON file: (its run's dict, its rows); ValueError naming what is wrong."""
    name = os.path.basename(path)
    m = FILE_NAME.match(name)
    try:
        doc = bc.load_json(path)
    except ValueError as e:
        raise ValueError(f"{name}: no JSON ({e})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ValueError(f"{name}: not hpcoll_table output (\"format\": \"{FORMAT}\")")
    if doc.get("np") != int(m.group(2)):
        raise ValueError(f"{name}: the file says np {doc.get('np')!r}")
    if not isinstance(doc.get("rows"), list):
        raise ValueError(f"{name}: no \"rows\" list")
    rows = []
    for i, row in enumerate(doc["rows"]):
        where = f"{name}: row {i}"
        if not isinstance(row, dict) or not isinstance(row.get("collective"), str):
            raise ValueError(f"{where}: no \"collective\"")
        if not isinstance(row.get("bytes"), int) or isinstance(row["bytes"], bool):
            raise ValueError(f"{where}: \"bytes\" is {row.get('bytes')!r}, not a whole number")
        for key in ("hpcoll_median_s", "native_median_s"):
            number(row, key, where)
        rows.append(row)
    run = {"file": name, "config": m.group(1), "np": doc["np"], "date": doc.get("date"), "cores": doc.get("cores"),
           "mpi": doc.get("mpi_library"), "machine_source": doc.get("machine_source"),
           "tuning_source": doc.get("tuning_source"), "settings": doc.get("settings", {})}
    return run, rows


def load(folder):
    runs, cells, collectives = [], {}, []
    names = sorted((n for n in os.listdir(folder) if FILE_NAME.match(n)),
                   key=lambda n: (int(FILE_NAME.match(n).group(2)), list(CONFIGS).index(FILE_NAME.match(n).group(1))))
    for name in names:
        try:
            run, rows = read_file(os.path.join(folder, name))
        except ValueError as e:
            log.die(f"cannot read {e}")
        runs.append(run)
        for row in rows:
            if row["collective"] not in collectives:
                collectives.append(row["collective"])
            cells.setdefault(run["np"], {}).setdefault((row["collective"], row["bytes"]), {})[run["config"]] = row
    if not runs:
        log.die(f"no hpcoll_table results in {folder} (<configuration>-np<N>.json, configurations "
                f"{', '.join(CONFIGS)})")
    return Results(runs, cells, collectives)


# ---------------------------------------------------------------------------
# Ratios, geometric means, targets

def ratio(row):
    """hpcoll's median ÷ native's of one cell in one configuration."""
    return row["hpcoll_median_s"] / row["native_median_s"]


def ratios(cells, config, collective=None):
    """{(collective, bytes): ratio} of the cells measured in `config` (of one collective, if given)."""
    return {key: ratio(by_config[config]) for key, by_config in cells.items()
            if config in by_config and collective in (None, key[0])}


def geomeans(cells, config, collectives):
    """{collective: geometric mean of its ratios, "all": over every cell}, for the collectives measured."""
    out = {c: bc.geomean(ratios(cells, config, c).values()) for c in collectives}
    out = {c: g for c, g in out.items() if g is not None}
    out["all"] = bc.geomean(ratios(cells, config).values())
    return out


def evaluate(target, cells, collectives):
    """(value, the cell or collective it comes from, or None) of a target; (None, None) when unmeasured."""
    means = geomeans(cells, target.config, collectives)
    if target.scope == "cells":
        by_cell = ratios(cells, target.config)
        if not by_cell:
            return None, None
        worst = max(by_cell, key=by_cell.get)
        return by_cell[worst], f"{worst[0]} {bc.human_size(worst[1])}"
    if target.scope == "collectives":
        per_collective = {c: g for c, g in means.items() if c != "all"}
        if not per_collective:
            return None, None
        worst = max(per_collective, key=per_collective.get)
        return per_collective[worst], worst
    return means.get(target.scope), None


def check_targets(results):
    """Every target at every np it applies to: [{np, config, target, value, limit, met, worst}]."""
    out = []
    for np_ in sorted(results.cells):
        for target in TARGETS:
            if target.nps is not None and np_ not in target.nps:
                continue
            value, worst = evaluate(target, results.cells[np_], results.collectives)
            out.append({"np": np_, "config": target.config, "target": target.describe(), "value": value,
                        "limit": target.limit, "met": None if value is None else value <= target.limit,
                        "worst": worst})
    return out


def problems(results):
    """What makes the table wrong: a wrong result, a configuration that read what it must not
    (or did not read what it must)."""
    out = []
    for run in results.runs:
        machine_read = run["machine_source"] not in (None, BUILT_IN)
        table_read = run["tuning_source"] is not None
        wants = {"default": (False, False), "machine": (True, False), "tuning": (False, True)}[run["config"]]
        if (machine_read, table_read) != wants:
            out.append(f"{run['file']}: the {run['config']} configuration read machine "
                       f"{run['machine_source'] or '?'}, tuning table {run['tuning_source'] or 'none'}")
    for np_, cells in sorted(results.cells.items()):
        for (collective, size), by_config in cells.items():
            for config, row in by_config.items():
                if row.get("verified") is not True:
                    out.append(f"{config}-np{np_}.json: {collective} {bc.human_size(size)}: hpcoll's result differs "
                               "from the MPI library's")
    return out


# ---------------------------------------------------------------------------
# The report

def mark(t):
    if t["met"] is None:
        return "not measured"
    worst = f" ({t['worst']})" if t["worst"] else ""
    return f"{f2(t['value'])}{worst}: " + ("met" if t["met"] else "**missed**")


def configs_of(results):
    return [c for c in CONFIGS if any(r["config"] == c for r in results.runs)]


def np_table(results, np_, configs, markdown):
    """Header and rows of one np: the cells, each collective's geometric mean, all cells'."""
    cells = results.cells[np_]
    header = ["collective", "S", "native µs"] + [CONFIGS[c] for c in configs]
    rows = []
    means = {c: geomeans(cells, c, results.collectives) for c in configs}
    bold = (lambda s: f"**{s}**") if markdown else (lambda s: s)
    for collective in results.collectives:
        keys = sorted(k for k in cells if k[0] == collective)
        if not keys:
            continue
        for key in keys:
            by_config = cells[key]
            native = next(by_config[c]["native_median_s"] * 1e6 for c in configs if c in by_config)
            rows.append([collective, bc.human_size(key[1]), fmt_us(native)]
                        + [f2(ratio(by_config[c])) if c in by_config else "—" for c in configs])
        rows.append([bold(collective), "geomean", ""] + [f2(means[c].get(collective)) for c in configs])
        if not markdown:
            rows.append(None)
    rows.append([bold("all cells"), "geomean", ""] + [f2(means[c].get("all")) for c in configs])
    return header, rows


def settings_line(s, run):
    return (f"{s.get('trials', '?')} trials per cell and method, hpcoll and native alternating (the order flipping "
            f"every trial); per trial {bc.human_size(s.get('trial_bytes', 0))} / S calls, "
            f"{s.get('min_calls', '?')} to {s.get('max_calls', '?')}, fewer where a trial would last more than "
            f"{s.get('max_trial_time_s', 0) * 1e3:g} ms")


METHOD = ("Each cell: hpcoll's median ÷ native MPI's median over the trials (< 1: hpcoll is faster), each "
          "trial the slowest rank's mean over its calls. S: the vector (bcast, reduce, allreduce) or each "
          "rank's block (allgather, alltoall); int, op sum, root 0. native µs: the MPI call's median in the "
          "first configuration's run. geomean: the geometric mean of the ratios.")


def report_lines(meta, results, checked, trouble, markdown):
    configs = configs_of(results)
    ncores = results.runs[0]["cores"] or meta.get("cores") or bc.cores()
    rows = [row for cells in results.cells.values() for by_config in cells.values() for row in by_config.values()]
    L = bc.report_header("hpcoll's dispatched collectives ÷ native MPI", meta, rows, results.runs,
                         settings_line, "trials and calls")
    L.append(f"- MPI library: {results.runs[0]['mpi'] or '?'}")
    flags = meta.get("mpiexec_flags_per_np", {})
    L.append("- Process counts: " + "; ".join(
        f"np {n}: {bc.placement(n, ncores)}" + (f" (`{flags[str(n)]}`)" if flags.get(str(n)) else "")
        for n in sorted(results.cells)))
    for c in configs:
        sources = sorted({(r["machine_source"] or "?", r["tuning_source"] or "none")
                          for r in results.runs if r["config"] == c})
        L.append(f"- {CONFIGS[c]} (`{c}`): " + "; ".join(f"machine {m}, tuning table {t}" for m, t in sources))
    if meta.get("failed"):
        L.append(f"- **Failed runs** (no JSON, cells missing): {', '.join(meta['failed'])}")
    if trouble:
        L.append("- **Problems**: " + "; ".join(trouble))
    L += ["", METHOD, ""]
    for np_ in sorted(results.cells):
        header, rows = np_table(results, np_, configs, markdown)
        title = f"np {np_} ({bc.placement(np_, ncores)})"
        if markdown:
            L += [f"### {title}", "", bc.md_table(header, [r for r in rows if r is not None]), ""]
        else:
            L += [title, bc.text_table(header, rows, left=2), ""]
    L += ["### Targets" if markdown else "Targets", ""]
    L += [f"- np {t['np']}, {CONFIGS[t['config']]}: {t['target']}: {mark(t)}" for t in checked]
    return L


def write_report(folder, meta):
    results = load(folder)
    checked = check_targets(results)
    trouble = problems(results)
    print("\n".join(report_lines(meta, results, checked, trouble, markdown=False)))
    cells = [{"np": np_, "collective": key[0], "bytes": key[1],
              "ratio": {c: ratio(row) for c, row in by_config.items()},
              "hpcoll_us": {c: row["hpcoll_median_s"] * 1e6 for c, row in by_config.items()},
              "native_us": {c: row["native_median_s"] * 1e6 for c, row in by_config.items()},
              "schedule": {c: row.get("schedule") for c, row in by_config.items()},
              "calls": {c: row.get("calls") for c, row in by_config.items()}}
             for np_, by_key in sorted(results.cells.items()) for key, by_config in by_key.items()]
    means = [{"np": np_, "config": c, "geomeans": geomeans(results.cells[np_], c, results.collectives)}
             for np_ in sorted(results.cells) for c in configs_of(results)]
    report = {"meta": meta, "runs": results.runs, "cells": cells, "geomeans": means, "targets": checked,
              "problems": trouble}
    bc.write_reports(folder, report, "\n".join(report_lines(meta, results, checked, trouble, markdown=True)))
    log(f"report: {bc.show(os.path.join(folder, 'report.md'))}, report.json")
    return trouble


# ---------------------------------------------------------------------------
# Running

def prepare(what, cmd, folder, runner):
    """Runs ./hpcoll calibrate or tune (cmd) with its console output in DIR/<what>.log; exits when it fails."""
    log(f"{what}: {' '.join(shlex.quote(c) for c in cmd)}")
    out_log = os.path.join(folder, what + ".log")
    rc, seconds = bc.run_logged(cmd, out_log, runner.commands, what, echo=runner.verbose)
    if rc != 0:
        log.die(f"{what} failed (exit {rc}); see {bc.show(out_log)}")
    log(f"  {what}: {bc.fmt_seconds(seconds)}")


def config_files(args, configs, nps, folder, runner):
    """{configuration: the environment it adds}: the machine file and tuning table, made first when not given."""
    script = os.path.join(bc.ROOT, "hpcoll")
    quick = ["--quick"] if args.quick else []
    added = {"default": {}}
    if "machine" in configs:
        machine = args.machine or os.path.join(folder, "machine.json")
        if not args.machine:
            prepare("calibrate", [script, "calibrate", "--np", "2", "--out", machine] + quick, folder, runner)
        added["machine"] = {"HPCOLL_MACHINE": os.path.abspath(machine)}
    if "tuning" in configs:
        tuning = args.tuning or os.path.join(folder, "tuning", "tuning.json")
        if not args.tuning:
            prepare("tune", [script, "tune", "--collectives", COLLECTIVES, "--out", tuning]
                    + [a for n in nps for a in ("--np", str(n))]
                    + (quick + ["--repetitions", "1", "--min-time", "0.002"] if args.quick else []), folder, runner)
        added["tuning"] = {"HPCOLL_TUNING": os.path.abspath(tuning)}
    return added


def parse_configs(text, ap):
    configs = [c for c in text.split(",") if c]
    unknown = [c for c in configs if c not in CONFIGS]
    if unknown or not configs:
        ap.error(f"--configs {text}: {', '.join(unknown) or 'none given'}; choose from {', '.join(CONFIGS)}")
    return [c for c in CONFIGS if c in configs]  # column order


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = bc.parser("./hpcoll bench --table", __doc__, "What it does:")
    bc.add_run_options(ap, np_help=f"process count (repeatable; default {' '.join(map(str, DEFAULT_NPS))})",
                       quick_help="3 short trials per cell, quick calibration and tuning: seconds per run",
                       out_help="results folder (default results/table-<UTC timestamp>)")
    ap.add_argument("--configs", default=",".join(CONFIGS), metavar="a,b",
                    help=f"the columns, of {', '.join(CONFIGS)} (default all)")
    ap.add_argument("--machine", metavar="FILE",
                    help="the machine file of the machine column (default: ./hpcoll calibrate first)")
    ap.add_argument("--tuning", metavar="FILE",
                    help="the tuning table of the tuning column (default: ./hpcoll tune first)")
    ap.add_argument("--from", dest="reuse", metavar="DIR",
                    help="rewrite the report of an earlier folder; runs nothing")
    args = bc.parse_run_args(ap, argv, "hpcoll_table", paths=("out", "reuse", "machine", "tuning"))

    if args.reuse:
        folder = os.path.abspath(args.reuse)
        if not os.path.isdir(folder):
            log.die(f"no such folder {folder}")
        return 1 if write_report(folder, bc.report_meta(folder)) else 0

    configs = parse_configs(args.configs, ap)
    for name, config in (("machine", "machine"), ("tuning", "tuning")):
        path = getattr(args, name)
        if path and config not in configs:
            ap.error(f"--{name} is for the {config} column, which --configs {args.configs} leaves out")
        if path and not os.path.isfile(path):
            ap.error(f"--{name} {path}: no such file")
    nps, now, folder, command = bc.start_run(args, log, ["./hpcoll", "bench", "--table"], DEFAULT_NPS, 2, "table")
    open_mpi = bc.is_open_mpi()
    flags = {n: bc.timing_flags(n, open_mpi) for n in nps}
    # In place of ./hpcoll's --mpiexec-flags: the machine line of run_meta names the oversubscribed runs' flags.
    args.mpiexec_flags = bc.OVERSUBSCRIBED if open_mpi else ""
    log(f"np {', '.join(map(str, nps))}; columns {', '.join(configs)}; {'quick; ' if args.quick else ''}"
        f"results in {bc.show(folder)}")
    for n in nps:
        log(f"np {n}: {bc.placement(n, bc.cores())}; mpiexec {flags[n] or '(no flags)'}")

    t0 = time.monotonic()
    runner = bc.Runner(args.binary, "", folder, log, args.verbose, args.extra)
    options = QUICK_OPTIONS if args.quick else []
    with tempfile.TemporaryDirectory(prefix="hpcoll-table-home-") as home:
        # Nothing where hpcoll looks for a machine file by default (select/machine_file.hpp), no
        # tuning table, no schedule forced: what a configuration adds is all the dispatcher reads.
        clean = {"HOME": home, "XDG_CONFIG_HOME": home}
        with Env(set_=clean, unset=["HPCOLL_MACHINE", "HPCOLL_TUNING"] + bc.schedule_overrides()):
            added = config_files(args, configs, nps, folder, runner)
            for n in nps:
                for config in configs:
                    name = f"{config}-np{n}"
                    out_json = os.path.join(folder, name + ".json")
                    env_text = " ".join(f"{k}={shlex.quote(v)}" for k, v in {**clean, **added[config]}.items())
                    cmd = runner.command(n, options + [f"--out={out_json}"] + runner.extra, flags[n].split())
                    with Env(set_=added[config]):
                        runner.launch(cmd, name, out_json, env_text, rename=False, reasons=r"hpcoll|error|abort",
                                      count_rows=lambda doc: len(doc.get("rows", [])))
    seconds = time.monotonic() - t0
    failed = runner.failed_names()
    log(f"runs done in {bc.fmt_seconds(seconds)}")
    if len(failed) == runner.runs:
        log.die("every run failed; no report")
    meta = bc.run_meta(now, command, args, nps, load(folder).runs[0]["mpi"], seconds, failed, configs=configs,
                       machine_file=added.get("machine", {}).get("HPCOLL_MACHINE"),
                       tuning_file=added.get("tuning", {}).get("HPCOLL_TUNING"),
                       mpiexec_flags_per_np={str(n): f for n, f in flags.items()})
    trouble = write_report(folder, meta)
    return bc.run_exit_code(log, failed, []) or (1 if trouble else 0)


if __name__ == "__main__":
    sys.exit(main())
