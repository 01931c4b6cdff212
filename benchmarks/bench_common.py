# SPDX-License-Identifier: BSD-3-Clause
"""What the benchmark scripts share (run_bench.py, report.py, tune.py, dispatch_eval.py,
overlap_report.py, mcast_report.py, compare_builds.py): logging, number formats, statistics, text and
markdown tables, the runner options and mpiexec runs, report headers, reading
hpcoll_bench's Google Benchmark JSON and the collective list it carries.

It imports no script (the scripts import it), only the standard library;
matplotlib is imported by pyplot() alone, when a plot is made.

The collective list comes from the C++ side, in two places:
  - every hpcoll_bench JSON file: context["hpcoll_collectives"], a string of JSON
    text (Google Benchmark's context values are strings);
  - a decisions file of hpcoll_bench --hpcoll_decisions_out: "collectives", JSON.
Both hold [{"name": "bcast", "message_size": "vector", "candidates": [...]}, ...]
in the order reports list the collectives; message_size is "vector" (S is the
vector), "all_blocks" (S is the whole p-block buffer) or "per_rank" (counts
differ per rank: one tuning-table entry over all sizes). read_collectives() is
the one reader; nothing here or in the scripts keeps its own copy.
"""

import argparse
import datetime
import json
import os
import platform
import re
import shlex
import statistics
import subprocess
import sys
import time
from typing import NamedTuple

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# hpcoll_bench's message sizes (--hpcoll_sizes, x4 steps): the default range of ./hpcoll bench and
# ./hpcoll tune, and the smaller one of their --quick (and --seed) runs.
FULL_SIZES = "4:16777216"
SMALL_SIZES = "4:1048576"  # 4 B, 16 B, ..., 256 KiB, 1 MiB


# ---------------------------------------------------------------------------
# Logging

class Log:
    """log = Log("tune"); log("text") prints "[hpcoll] tune: text"; log.die("text") exits with it."""

    def __init__(self, what):
        self.prefix = f"[hpcoll] {what}: "

    def __call__(self, msg):
        print(self.prefix + msg, flush=True)

    def die(self, msg):
        raise SystemExit(self.prefix + msg)


# ---------------------------------------------------------------------------
# Formats

def human_size(b):
    """1024 -> "1 KiB", 1536 -> "1.5 KiB", 100 -> "100 B"."""
    for unit, factor in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= factor:
            v = b / factor
            return f"{v:.0f} {unit}" if v == int(v) else f"{v:.1f} {unit}"
    return f"{b} B"


U64_MAX = (1 << 64) - 1


def fmt_bytes(b):
    """Exact unless a whole number of KiB/MiB/GiB; 2^64-1 is "inf"."""
    if b == U64_MAX:
        return "inf"
    return human_size(b) if b < 1024 or b % 1024 == 0 else f"{b} B"


def fmt_us(t):
    """Microseconds with 3 significant digits or so; None -> "—"."""
    if t is None:
        return "—"
    if t < 10:
        return f"{t:.2f}"
    if t < 1000:
        return f"{t:.1f}"
    return f"{t:.0f}"


def us(seconds):
    """Seconds as fmt_us microseconds; None -> "—"."""
    return fmt_us(seconds * 1e6) if seconds is not None else "—"


def f2(x, spec=".2f"):
    """A ratio with two decimals; None -> "—"."""
    return format(x, spec) if x is not None else "—"


def fmt_seconds(s):
    return f"{s:.0f} s" if s < 120 else f"{s / 60:.1f} min"


def show(path):
    """path relative to the current directory when below it, else absolute."""
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


ABBREVIATIONS = [
    ("reduce_scatter_allgather", "rs+ag"), ("scatter_allgather", "sc+ag"), ("reduce_bcast", "red+bc"),
    ("recursive_doubling", "rdbl"), ("recursive_halving", "rhalv"), ("segmented_ring", "segring"),
    ("linear_sync", "linsync"), ("binomial", "binom"), ("basic_linear", "blinear"),
    ("nonoverlapping", "nonovl"), ("rabenseifner", "rabens"), ("modified_bruck", "mbruck"),
]


def short_name(label):
    """A schedule's name for a table column: "reduce_scatter_allgather<recursive_halving, ...>" -> "rs+ag<rhalv,...>"."""
    s = label.replace(", ", ",")
    for long, short in ABBREVIATIONS:
        s = s.replace(long, short)
    return re.sub(r"<(\d+)>", lambda m: "<" + _short_number(int(m.group(1))) + ">", s)


def _short_number(n):
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20}M"
    if n >= 1 << 10 and n % (1 << 10) == 0:
        return f"{n >> 10}K"
    return str(n)


def positive_int(text):
    """An argparse type: a count of at least 1 (argparse names the option in its error)."""
    n = as_int(text)
    if n is None or n < 1:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer >= 1")
    return n


def as_int(v):
    """int(v), or None when v is no number."""
    try:
        return int(v)
    except (TypeError, ValueError):
        return None


# ---------------------------------------------------------------------------
# Statistics (the standard library's, with the conventions of these reports)

median = statistics.median


def geomean(xs):
    """Geometric mean of the positive values of xs; None when there is none."""
    xs = [x for x in xs if x and x > 0]
    return statistics.geometric_mean(xs) if xs else None


def percentile(xs, q):
    """The q-th percentile (q a whole number in [0, 100]), linear interpolation between order
    statistics (statistics.quantiles, method "inclusive"); None for no data."""
    xs = sorted(xs)
    if not xs:
        return None
    if q <= 0 or len(xs) == 1:
        return xs[0]
    if q >= 100:
        return xs[-1]
    return statistics.quantiles(xs, n=100, method="inclusive")[int(q) - 1]


# ---------------------------------------------------------------------------
# Tables

def text_table(header, rows, left=1):
    """Plain-text table; header and rows (None = a rule) are lists of strings; the first `left` columns
    are left-aligned, the others right-aligned."""
    widths = [max(len(r[i]) for r in [header] + rows if r is not None) for i in range(len(header))]
    rule = "  " + "-+-".join("-" * w for w in widths)

    def line(cells):
        return "  " + " | ".join(c.ljust(w) if i < left else c.rjust(w)
                                 for i, (c, w) in enumerate(zip(cells, widths)))

    return "\n".join([line(header), rule] + [line(r) if r is not None else rule for r in rows])


def md_table(header, rows):
    """A markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# Command line: the options of every script that runs a benchmark binary

HIDDEN = ("--binary", "--mpiexec-flags", "--cwd")  # what ./hpcoll passes; not part of the user's command


def parser(prog, doc, start):
    """An ArgumentParser whose description is the script's docstring from `start` on."""
    return argparse.ArgumentParser(prog=prog, formatter_class=argparse.RawDescriptionHelpFormatter,
                                   description=doc[doc.index(start):])


def add_run_options(ap, np_help, quick_help, out_help, out_metavar="DIR"):
    """--np N (repeatable), --quick and --out, with the script's help texts."""
    ap.add_argument("--np", type=int, action="append", metavar="N", help=np_help)
    ap.add_argument("--quick", action="store_true", help=quick_help)
    ap.add_argument("--out", metavar=out_metavar, help=out_help)


def add_from_options(ap, from_help, metavar="DIR"):
    """--from (args.reuse: rewrite the report of earlier results, run nothing) and --no-plots."""
    ap.add_argument("--from", dest="reuse", metavar=metavar, help=from_help + "; runs nothing")
    ap.add_argument("--no-plots", action="store_true", help="no PNG")


def parse_run_args(ap, argv, binary, paths=("out",)):
    """Adds --verbose and the hidden options ./hpcoll passes (--binary, default
    build/benchmarks/<binary>; --mpiexec-flags; --cwd, where relative paths on its command line
    are from), splits off what follows "--" (args.extra, for the binary) and parses the rest.
    The attributes named in `paths` (a path or a list of paths) are taken from --cwd;
    args.argv holds the options before "--"."""
    ap.add_argument("--verbose", action="store_true", help=f"show {binary}'s console output")
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "benchmarks", binary), help=argparse.SUPPRESS)
    ap.add_argument("--mpiexec-flags", default="", help=argparse.SUPPRESS)
    ap.add_argument("--cwd", help=argparse.SUPPRESS)
    argv = list(argv)
    extra = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    args = ap.parse_args(argv)
    args.argv, args.extra = argv, extra
    for name in paths:
        value = getattr(args, name)
        setattr(args, name, [from_cwd(args.cwd, p) for p in value] if isinstance(value, list)
                else from_cwd(args.cwd, value))
    return args


def parse_app_run_args(ap, argv, app, binary):
    """parse_run_args for a script that runs an application's program: --binary defaults to
    build/apps/<app>/<binary> (not build/benchmarks/); --out and --from (args.reuse) are taken
    from --cwd."""
    args = parse_run_args(ap, argv, binary, paths=("out", "reuse"))
    if not any(a == "--binary" or a.startswith("--binary=") for a in argv):
        args.binary = os.path.join(ROOT, "build", "apps", app, binary)
    return args


def from_cwd(cwd, path):
    """A path given on ./hpcoll's command line, relative to where ./hpcoll was started."""
    if path is None or not cwd or os.path.isabs(path):
        return path
    return os.path.join(cwd, path)


def drop_hidden(argv):
    """argv without the HIDDEN options and their values."""
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a in HIDDEN:
            skip = True
        elif not a.startswith(tuple(h + "=" for h in HIDDEN)):
            out.append(a)
    return out


def command_text(words, args):
    """The user's command: words ("./hpcoll", "tune") + the options (hidden ones dropped) + "-- extra"."""
    extra = ["--"] + args.extra if args.extra else []
    return " ".join(list(words) + [shlex.quote(a) for a in drop_hidden(args.argv) + extra])


def process_counts(args, default, minimum, log):
    """args.np or `default`; exits (through log.die) when one is below `minimum`."""
    nps = args.np or default
    if any(n < minimum for n in nps):
        log.die(f"--np must be >= {minimum}")
    return nps


def require_binary(args, log, built_by):
    if not os.access(args.binary, os.X_OK):
        log.die(f"no benchmark binary at {args.binary} ({built_by} builds it)")


def start_run(args, log, words, default_nps, minimum_np, prefix):
    """What a script that runs its benchmark checks and sets up first: the binary is there (`words`,
    the ./hpcoll command, builds it), the process counts; the results folder (--out, else
    results/<prefix>-<UTC>/, made) and the user's command. Returns (nps, now, folder, command)."""
    require_binary(args, log, " ".join(words))
    nps = process_counts(args, default_nps, minimum_np, log)
    now = utc_now()
    return nps, now, results_folder(args.out, prefix, now), command_text(words, args)


def binary_options(quick, options):
    """The benchmark's own options: --quick, and --name=value for each (name, value) whose value is set."""
    return (["--quick"] if quick else []) + [f"{name}={value}" for name, value in options if value is not None]


# ---------------------------------------------------------------------------
# Running a benchmark binary under mpiexec

# Open MPI refuses to start as root without these (harmless otherwise; ./hpcoll exports them too).
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


def cores():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def mpiexec_version():
    """The first line of mpiexec --version ("mpiexec (OpenRTE) 4.1.4"), "" without one."""
    try:
        return subprocess.run(["mpiexec", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    except (OSError, IndexError):
        return ""


def is_open_mpi():
    try:
        out = subprocess.run(["mpiexec", "--version"], capture_output=True, text=True).stdout
    except OSError:
        return False
    return bool(re.search(r"Open MPI|OpenRTE", out))


# mpiexec flags for timings: ranks pinned while they fit the cores; more ranks than cores
# oversubscribed, yielding when idle (Open MPI's flags; another MPI gets none).
PINNED = "--bind-to core"
OVERSUBSCRIBED = "--oversubscribe --bind-to none --mca mpi_yield_when_idle 1"


def timing_flags(np_, open_mpi):
    """The mpiexec flags for timings at np_ ranks on this machine."""
    if np_ <= cores():
        return PINNED
    return OVERSUBSCRIBED if open_mpi else ""


def placement(np_, ncores):
    """"4 ranks on 2 cores, oversubscribed"."""
    return f"{np_} ranks on {ncores} cores" + (", oversubscribed" if np_ > ncores else "")


def run_logged(cmd, out_log, commands, name, env_text="", timeout=None, echo=False):
    """Runs cmd (environment: this process's and MPI_ENV) with its console output in out_log
    (after a "$ command" line) and, with echo, on stdout (as it comes; with a timeout, once it
    ended); records "# name: rc=..., seconds" and the command in the open file `commands`; returns
    (exit code, or "timeout" past `timeout` seconds; seconds taken)."""
    line = (env_text + " " if env_text else "") + " ".join(shlex.quote(c) for c in cmd)
    env = dict(os.environ, **MPI_ENV)
    start = time.monotonic()
    with open(out_log, "w") as logf:
        logf.write(f"$ {line}\n")
        logf.flush()
        if echo and timeout is None:
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True, env=env)
            for text in proc.stdout:
                sys.stdout.write(text)
                logf.write(text)
            rc = proc.wait()
        else:
            try:
                rc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=logf, stderr=subprocess.STDOUT,
                                    timeout=timeout, env=env).returncode
            except subprocess.TimeoutExpired:
                rc = "timeout"
    if echo and timeout is not None:
        with open(out_log) as f:
            sys.stdout.write("".join(f.readlines()[1:]))
    elapsed = time.monotonic() - start
    commands.write(f"# {name}: rc={rc}, {elapsed:.1f} s\n{line}\n")
    commands.flush()
    return rc, elapsed


class Runner:
    """mpiexec runs of one benchmark binary into outdir: <name>.json, console output in <name>.log,
    every command in commands.txt; failures are reported through `log` and listed in .failed as
    (name, required). With `timing`, each np gets timing_flags() (pinned while the ranks fit the
    cores) in place of mpiexec_flags: unpinned ranks that yield drift onto one core and slow a
    2-rank run down up to 3x, from one benchmark to the next."""

    def __init__(self, binary, mpiexec_flags, outdir, log, verbose=False, extra=(), timing=False):
        self.binary = binary
        self.flags = shlex.split(mpiexec_flags)
        self.timing_open_mpi = is_open_mpi() if timing else None
        self.outdir = outdir
        self.log = log
        self.verbose = verbose
        self.extra = list(extra)
        self.failed = []
        self.runs = 0
        self.commands = open(os.path.join(outdir, "commands.txt"), "a")

    def command(self, np_, args, mca=()):
        flags = self.flags if self.timing_open_mpi is None else shlex.split(timing_flags(np_, self.timing_open_mpi))
        return ["mpiexec", "-n", str(np_)] + flags + list(mca) + [self.binary] + list(args)

    def launch(self, cmd, name, out_json, env_text="", timeout=None, reasons=None, required=True, rename=True,
               count_rows=None):
        """Runs cmd, which writes out_json (console output next to it, .log); True when it exited with 0
        and wrote out_json (and count_rows(its JSON) did not fail). Otherwise reports the lines of the log
        that match the regex `reasons` (else its last lines), renames out_json to .failed (with
        `rename`) and records the failure."""
        self.runs += 1
        out_log = os.path.splitext(out_json)[0] + ".log"
        rc, elapsed = run_logged(cmd, out_log, self.commands, name, env_text, timeout, echo=self.verbose)
        ok = rc == 0 and os.path.exists(out_json)
        what = ""
        if ok and count_rows:
            try:
                with open(out_json) as f:
                    what = f"{count_rows(json.load(f))} rows, "
            except ValueError:
                ok = False
        if ok:
            self.log(f"  {os.path.basename(out_json)}: {what}{fmt_seconds(elapsed)}")
            return True
        with open(out_log) as f:
            lines = f.readlines()[1:]
        picked = [l for l in lines if reasons and re.search(reasons, l, re.I)][:6]
        self.log(f"  {name}: FAILED (exit {rc}) after {fmt_seconds(elapsed)}; "
                 f"{'from' if picked else 'last lines of'} {show(out_log)}:")
        for text in picked or lines[-12:]:
            print("    " + text.rstrip())
        if rename and os.path.exists(out_json):
            os.rename(out_json, out_json + ".failed")
        self.failed.append((name, required))
        return False

    def run(self, np_, name, bench_args, mca=(), required=True):
        """hpcoll_bench: Google Benchmark JSON into <name>.json."""
        out_json = os.path.join(self.outdir, name + ".json")
        cmd = self.command(np_, list(bench_args) + [f"--benchmark_out={out_json}", "--benchmark_out_format=json"]
                           + self.extra, mca)
        return self.launch(cmd, name, out_json, reasons=r"hpcoll_bench|error|abort", required=required,
                           count_rows=lambda doc: len(doc.get("benchmarks", [])))

    def run_json(self, np_, name, bench_args, timeout):
        """A benchmark writing its own JSON (hpcoll_overlap, hpcoll_mcast: --out=<name>.json). A file
        written by a failed run stays (its rows say what went wrong)."""
        out_json = os.path.join(self.outdir, name + ".json")
        cmd = self.command(np_, list(bench_args) + [f"--out={out_json}"] + self.extra)
        return self.launch(cmd, name, out_json, timeout=timeout, rename=False)

    def failed_names(self):
        return [name for name, _ in self.failed]


# ---------------------------------------------------------------------------
# Results folders and report headers

def utc_now():
    return datetime.datetime.now(datetime.timezone.utc)


def stamp(now=None):
    return (now or utc_now()).strftime("%Y%m%dT%H%M%SZ")


def results_folder(out, prefix, now):
    """out, or results/<prefix>-<UTC stamp>/ of the repository; made, absolute."""
    folder = os.path.abspath(out or os.path.join(ROOT, "results", f"{prefix}-{stamp(now)}"))
    os.makedirs(folder, exist_ok=True)
    return folder


def write_json(path, doc):
    """doc as indented JSON with a final newline; the folder is made."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def write_reports(folder, report, markdown):
    """folder/report.json (the dict `report`) and folder/report.md (the text `markdown`)."""
    write_json(os.path.join(folder, "report.json"), report)
    with open(os.path.join(folder, "report.md"), "w") as f:
        f.write(markdown + "\n")


def write_checked_report(log, folder, report, markdown, plot):
    """folder/report.json (the dict `report`, with "problems" and "meta"["failed"]) and report.md,
    then the plots (plot() makes them and returns the PNGs' names); logs what was written, every
    problem as WRONG and the failed runs. Returns 1 if there was a problem or a failed run, else 0."""
    write_reports(folder, report, markdown)
    report_written(log, folder, plot())
    for t in report["problems"]:
        log(f"WRONG: {t}")
    failed = report["meta"].get("failed")
    if failed:
        log(f"failed runs (their logs in runs/): {', '.join(failed)}")
    return 1 if report["problems"] or failed else 0


def read_report_of(log, folder, expected_format, command):
    """The report.json in folder of an earlier run of `command` (format `expected_format`); exits
    through log.die when it cannot be read or is another report."""
    path = os.path.join(folder, "report.json")
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        log.die(f"--from: cannot read {path}: {e}")
    if doc.get("format") != expected_format:
        log.die(f"--from: {path} is not a report of {command} (format {doc.get('format')!r}, "
                f"expected {expected_format!r})")
    return doc


def report_meta(folder):
    """The "meta" of an earlier report.json in folder (command, machine, date...), {} if there is none."""
    try:
        with open(os.path.join(folder, "report.json")) as f:
            return json.load(f).get("meta", {})
    except (OSError, ValueError):
        return {}


def report_opening(title, meta):
    """A report.md's title (with the run's stamp), its command and its machine."""
    L = [f"# {title} {meta.get('stamp', '')}".rstrip(), ""]
    if meta.get("command"):
        L.append(f"- Command: `{meta['command']}`")
    L.append(f"- Machine: {meta.get('machine', '?')}")
    return L


def report_header(title, meta, rows, runs, describe, what):
    """The first lines of a report.md: title, command, machine, date and the runs' files (the first
    and the last of more than 4), the settings line
    describe(runs[0]["settings"], runs[0]) (none without runs), duration and, for a --quick run, that
    it is no measurement (`what`: "sizes and runs")."""
    settings = describe(runs[0].get("settings", {}), runs[0]) if runs else None
    files = [r["file"] for r in runs]
    listed = ", ".join(files) if len(files) <= 4 else f"{files[0]}, ..., {files[-1]}"  # many: keep the line short
    L = report_opening(title, meta)
    L.append(f"- Date: {meta.get('date') or (runs[0].get('date') if runs else '?')}; {len(rows)} rows from "
             f"{len(runs)} run(s) ({listed})")
    if settings:
        L.append(f"- Settings: {settings}")
    if meta.get("seconds") is not None:
        L.append(f"- Duration: {fmt_seconds(meta['seconds'])}")
    if meta.get("quick") or any(r.get("settings", {}).get("quick") for r in runs):
        L.append(f"- **--quick run**: few {what}; a check that everything runs, not a measurement.")
    return L


def run_meta(now, command, args, nps, mpi, seconds, failed, **extra):
    """The "meta" of a report.json written after running a benchmark with its own JSON (overlap,
    mcast): `extra` goes after the process counts."""
    return {"stamp": stamp(now), "date": now.strftime("%Y-%m-%d %H:%M:%S UTC"), "command": command,
            "machine": machine_text(mpi, nps, args.mpiexec_flags), "cores": cores(),
            "mpiexec_flags": args.mpiexec_flags, "nps": nps, **extra, "quick": args.quick, "seconds": seconds,
            "failed": failed}


def run_exit_code(log, failed, rows):
    """1 when a run failed or a row's result was wrong ("verified": false), else 0."""
    if failed:
        log("failed runs: " + ", ".join(failed))
    return 1 if failed or any(not r.get("verified", True) for r in rows) else 0


def report_written(log, folder, pngs):
    log(f"report: {show(os.path.join(folder, 'report.md'))}, report.json" + (", " + ", ".join(pngs) if pngs else ""))


def machine_text(mpi_library, nps, mpiexec_flags=""):
    """OS, CPU, cores and MPI library of this machine, and which process counts oversubscribe it."""
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
    ncores = cores()
    mpi = (mpi_library or "").split(",")[0] or "MPI ?"
    text = f"{uname.system} {uname.release} {uname.machine}; {cpu or 'cpu ?'}; {ncores} cores; {mpi}"
    over = [n for n in nps if n > ncores]
    if over:
        how = " with mpi_yield_when_idle" if "mpi_yield_when_idle" in mpiexec_flags else ""
        text += (f"; np {', '.join(map(str, over))} oversubscribed on {ncores} cores{how} "
                 "(timings there measure a crowded machine)")
    return text


def pyplot(complain):
    """matplotlib.pyplot on the Agg backend; None, after complain(message), without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        complain(f"no plots: matplotlib unavailable ({e}); run with /usr/bin/python3")
        return None
    return plt


# ---------------------------------------------------------------------------
# The collective list (from the C++ side; see the top of this file)

CONTEXT_KEY = "hpcoll_collectives"  # in the "context" of every hpcoll_bench JSON file
DECISIONS_KEY = "collectives"  # in a decisions file (--hpcoll_decisions_out)
MESSAGE_SIZES = ("vector", "all_blocks", "per_rank")


class Collective(NamedTuple):
    name: str
    message_size: str  # one of MESSAGE_SIZES
    candidates: tuple  # the schedule labels of its benchmark rows, in the dispatcher's order

    @property
    def vector(self):
        """S is the vector every rank holds (else the whole p-block buffer)."""
        return self.message_size == "vector"

    @property
    def per_rank(self):
        """Counts differ per rank: tuning tables give it one entry over all sizes."""
        return self.message_size == "per_rank"


class UnknownCollective(ValueError):
    pass


class Collectives:
    """The collectives of one or more hpcoll_bench outputs, in report order (the first list read
    gives the order; a collective the later lists add comes after)."""

    def __init__(self, items=()):
        self._by_name = {}
        for c in items:
            self._by_name.setdefault(c.name, c)

    def merge(self, other):
        for c in other:
            self._by_name.setdefault(c.name, c)
        return self

    def __iter__(self):
        return iter(self._by_name.values())

    def __len__(self):
        return len(self._by_name)

    def __contains__(self, name):
        return name in self._by_name

    def names(self):
        return list(self._by_name)

    def get(self, name):
        """The Collective, or UnknownCollective (a ValueError) saying where the list comes from."""
        try:
            return self._by_name[name]
        except KeyError:
            raise self.unknown([name]) from None

    def unknown(self, names):
        """The UnknownCollective error for collectives with rows that the list does not name."""
        return UnknownCollective(
            f"{', '.join(names)}: not in the collective list of the hpcoll_bench output (its JSON context "
            f"'{CONTEXT_KEY}', a decisions file's '{DECISIONS_KEY}'); "
            + ("the list names " + ", ".join(self._by_name) if self._by_name else
               "there is none: written by an hpcoll_bench older than that list? run it again"))

    def is_vector(self, name):
        """True for a known vector collective; False for the others and for unknown ones."""
        return name in self._by_name and self._by_name[name].vector

    def sort_key(self, name):
        """Report order: listed collectives first, in their order; unknown ones after, by name."""
        names = list(self._by_name)
        return (names.index(name) if name in self._by_name else len(names), name)


def read_collectives(doc):
    """The collective list of an hpcoll_bench output `doc` (its Google Benchmark JSON, or a decisions
    file): Collectives, empty when the document has none. ValueError when the list is malformed."""
    raw = None
    if isinstance(doc, dict):
        ctx = doc.get("context")
        if isinstance(ctx, dict) and CONTEXT_KEY in ctx:
            raw, where = ctx[CONTEXT_KEY], f"context '{CONTEXT_KEY}'"
            if isinstance(raw, str):
                try:
                    raw = json.loads(raw)
                except ValueError as e:
                    raise ValueError(f"{where} is no JSON text: {e}") from None
        elif DECISIONS_KEY in doc:
            raw, where = doc[DECISIONS_KEY], f"'{DECISIONS_KEY}'"
    if raw is None:
        return Collectives()
    if not isinstance(raw, list):
        raise ValueError(f"{where} is not a list")
    out = []
    for i, c in enumerate(raw):
        ok = (isinstance(c, dict) and isinstance(c.get("name"), str) and c.get("message_size") in MESSAGE_SIZES
              and isinstance(c.get("candidates"), list) and all(isinstance(s, str) for s in c["candidates"]))
        if not ok:
            raise ValueError(f"{where}: entry {i} is not {{\"name\": text, \"message_size\": one of "
                             f"{', '.join(MESSAGE_SIZES)}, \"candidates\": [text, ...]}}: {c!r}")
        out.append(Collective(c["name"], c["message_size"], tuple(c["candidates"])))
    return Collectives(out)


# ---------------------------------------------------------------------------
# hpcoll_bench's Google Benchmark JSON

TIME_TO_US = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
# Path components Google Benchmark appends to a benchmark's name.
GB_SUFFIX = re.compile(r"^(manual_time|real_time|process_time|(min_time|min_warmup_time|iterations|repeats|threads):.*)$")
AGGREGATE_SUFFIX = re.compile(r"_(mean|median|stddev|cv|[A-Za-z0-9]+)$")
NATIVE_ALG = re.compile(r"^native_alg(\d+)$")

# Open MPI 4.1's coll/tuned algorithm numbers (when ompi_info cannot be asked; run_bench.py --seed
# and report.py): about Open MPI, not hpcoll's collectives.
OMPI_ALGORITHMS = {
    "allreduce": {1: "basic_linear", 2: "nonoverlapping", 3: "recursive_doubling", 4: "ring",
                  5: "segmented_ring", 6: "rabenseifner"},
    "alltoall": {1: "linear", 2: "pairwise", 3: "modified_bruck", 4: "linear_sync", 5: "two_proc"},
}


def parse_name(name):
    """'allreduce/ring/4096/manual_time' -> ('allreduce', 'ring', 4096), or None."""
    parts = name.split("/")
    while parts and GB_SUFFIX.match(parts[-1]):
        parts.pop()
    if len(parts) < 3 or not parts[-1].isdigit():
        return None
    return parts[0], "/".join(parts[1:-1]), int(parts[-1])


def is_native(label):
    """A native MPI row: "native", "native_alg<k>" (a forced Open MPI algorithm) or another native label."""
    return label.startswith("native")


def is_candidate(label):
    """An hpcoll schedule's row: neither native MPI nor the free function ("default")."""
    return label != "default" and not is_native(label)


def native_column(labels):
    """The native reference among a row's labels: "native", or the only native label that is not a
    forced algorithm; None."""
    if "native" in labels:
        return "native"
    others = [l for l in labels if is_native(l) and not NATIVE_ALG.match(l)]
    return others[0] if len(others) == 1 else None


def entry_us(e):
    """A Google Benchmark row's real time in µs."""
    return e["real_time"] * TIME_TO_US.get(e.get("time_unit", "ns"), 1e-3)


class BenchRun(NamedTuple):
    collective: str
    label: str
    size: int  # the row name's S
    np: int
    entries: list  # the median aggregates when there are repetitions' aggregates, else the iteration rows


class BenchFile(NamedTuple):
    name: str
    np: object  # the context's np (or the file name's np<N>), None when neither says
    cores: object
    mpi_library: object
    collectives: Collectives  # empty when the file has none, or a malformed one
    list_problem: object  # what is wrong with the file's collective list, or None
    runs: list  # [BenchRun]
    errors: list  # "file: row: message" of rows that report an error


def load_json(path):
    with open(path) as f:
        return json.load(f)


def is_bench_doc(doc):
    return isinstance(doc, dict) and isinstance(doc.get("benchmarks"), list)


def read_bench_doc(doc, name):
    """One hpcoll_bench JSON document (file name `name`, for messages and its np<N>): BenchFile."""
    ctx = doc.get("context") or {}
    file_np = as_int(ctx.get("np"))
    if file_np is None:
        m = re.match(r"np(\d+)", name)
        file_np = int(m.group(1)) if m else None
    try:
        collectives, list_problem = read_collectives(doc), None
    except ValueError as e:
        collectives, list_problem = Collectives(), f"{name}: {e}"
    errors = []
    grouped = {}  # the repetitions and aggregates of one benchmark run
    for e in doc["benchmarks"]:
        if e.get("error_occurred"):
            errors.append(f"{name}: {e.get('name')}: {e.get('error_message', 'error')}")
            continue
        run_name = e.get("run_name")
        if not run_name:
            run_name = e["name"]
            if e.get("run_type") == "aggregate":
                run_name = AGGREGATE_SUFFIX.sub("", run_name)
        grouped.setdefault(run_name, []).append(e)
    runs = []
    for run_name, entries in grouped.items():
        parsed = parse_name(run_name)
        if parsed is None:
            continue
        medians = [e for e in entries if e.get("run_type") == "aggregate" and e.get("aggregate_name") == "median"]
        # Several medians: the rounds of hpcoll_bench --hpcoll_rounds (rows of one name), each with repetitions.
        chosen = medians or [e for e in entries if e.get("run_type", "iteration") == "iteration"]
        if not chosen:
            continue
        np_ = file_np
        if np_ is None:
            counts = [e["np"] for e in chosen if isinstance(e.get("np"), (int, float))]
            np_ = int(median(counts)) if counts else None
        if np_ is None:
            continue
        runs.append(BenchRun(*parsed, np_, chosen))
    return BenchFile(name, file_np, as_int(ctx.get("cores")) or as_int(ctx.get("num_cpus")), ctx.get("mpi_library"),
                     collectives, list_problem, runs, errors)


# ---------------------------------------------------------------------------
# The environment of an evaluation run

# The HPCOLL_* variables that are settings of the library, not a schedule forced for one collective.
HPCOLL_SETTINGS = ("HPCOLL_MACHINE", "HPCOLL_TUNING", "HPCOLL_CHECK", "HPCOLL_VERBOSE", "HPCOLL_MAX_MESSAGE_BYTES")


def schedule_overrides(environ=None):
    """The HPCOLL_<COLLECTIVE> variables set in the environment (each forces a schedule on one
    collective). No collective list is needed to find them: every HPCOLL_* variable that is not
    one of the library's settings (HPCOLL_SETTINGS) is one."""
    environ = os.environ if environ is None else environ
    return sorted(k for k in environ if k.startswith("HPCOLL_") and k not in HPCOLL_SETTINGS)
