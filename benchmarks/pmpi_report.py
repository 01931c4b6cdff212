#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""./hpcoll bench --pmpi: what libhpcoll_mpi gives an unmodified program (docs/pmpi.md).

What it does:
  1. the interception alone: hpcoll_pmpi_overhead with the library preloaded at np 1
     (each collective at 8 B through its MPI_ function and through hpcoll's free
     function, alternating; at np 1 the collective is a local copy);
  2. the project's own benchmark program's native rows: hpcoll_table (every
     collective, int, 8 B to 2 MiB per rank) without the library and with it
     preloaded, the two runs alternating --rounds times per np; per cell the
     median of every native trial of either kind, their ratio, and the
     geometric mean over the cells, next to the ratio of hpcoll's own calls to
     the native ones in the runs without the library.
Times only: nothing is asserted; the targets (interception <= 40 ns, no cell
more than 5 % slower preloaded) are printed next to the measurements.
The report and every run's JSON go to --out (default results/pmpi-<UTC time>/).
"""

import json
import os
import shlex
import subprocess
import sys
import time

import bench_common as bc

log = bc.Log("bench --pmpi")
DEFAULT_NPS = [2, 4]
INTERCEPTION_TARGET_NS = 40
SLOWER_TARGET = 1.05


def run(cmd, env, name, folder, verbose):
    """Runs cmd (a list) with env added; its output goes to <folder>/<name>.log; True on success."""
    with open(os.path.join(folder, name + ".log"), "w") as out:
        out.write("$ " + " ".join(shlex.quote(c) for c in cmd) + "\n")
        out.flush()
        done = subprocess.run(cmd, env={**os.environ, **env}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True)
        out.write(done.stdout)
    if verbose or done.returncode != 0:
        print(done.stdout, end="")
    if done.returncode != 0:
        log(f"{name}: exit status {done.returncode} (see {name}.log)")
    return done.returncode == 0


def cells_of(paths):
    """{(collective, bytes): {"native": [s...], "hpcoll": [s...]}} over hpcoll_table JSON files."""
    cells = {}
    for path in paths:
        with open(path) as f:
            for row in json.load(f)["rows"]:
                cell = cells.setdefault((row["collective"], row["bytes"]), {"native": [], "hpcoll": []})
                cell["native"] += row["native_s"]
                cell["hpcoll"] += row["hpcoll_s"]
    return cells


def overlap_cells_of(paths):
    """The same cells over hpcoll_overlap JSON files: each run's t_pure of its native/never
    row (MPI_I... + MPI_Wait) as "native", of its manual/never row (hpcoll's) as "hpcoll"."""
    cells = {}
    kinds = {"native/never": "native", "manual/never": "hpcoll"}
    for path in paths:
        with open(path) as f:
            for row in json.load(f)["rows"]:
                if row["variant"] in kinds:
                    cell = cells.setdefault((row["collective"], row["bytes"]), {"native": [], "hpcoll": []})
                    cell[kinds[row["variant"]]].append(row["t_pure_s"])
    return cells


def compare(plain, preloaded):
    """Table rows and summary of one np: native without, native preloaded, their ratio, hpcoll ÷ native."""
    rows, ratios, own = [], [], []
    slower = 0
    for key in sorted(plain):
        if key not in preloaded:
            continue
        without = bc.median(plain[key]["native"])
        with_library = bc.median(preloaded[key]["native"])
        hpcoll = bc.median(plain[key]["hpcoll"])
        ratio = with_library / without
        ratios.append(ratio)
        own.append(hpcoll / without)
        slower += ratio > SLOWER_TARGET
        rows.append([key[0], bc.fmt_bytes(key[1]), bc.us(without), bc.us(with_library), f"{ratio:.2f}",
                     f"{hpcoll / without:.2f}"])
    return rows, bc.geomean(ratios), bc.geomean(own), slower, len(ratios)


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = bc.parser("./hpcoll bench --pmpi", __doc__, "What it does:")
    bc.add_run_options(ap, np_help=f"process count of the table runs (repeatable; default "
                                   f"{' '.join(map(str, DEFAULT_NPS))})",
                       quick_help="1 round of 3 trials per cell: seconds",
                       out_help="results folder (default results/pmpi-<UTC timestamp>)")
    ap.add_argument("--rounds", type=bc.positive_int, default=2, metavar="K",
                    help="runs of each kind per np, alternating (default 2)")
    ap.add_argument("--trials", type=bc.positive_int, default=11, metavar="N", help="hpcoll_table's --trials (default 11)")
    args = bc.parse_run_args(ap, argv, "hpcoll_table")
    if args.quick:
        args.rounds, args.trials = 1, 3
    build = os.path.dirname(os.path.dirname(os.path.abspath(args.binary)))
    library = os.path.join(build, "src", "pmpi", "libhpcoll_mpi.so")
    overhead = os.path.join(build, "benchmarks", "hpcoll_pmpi_overhead")
    overlap = os.path.join(build, "benchmarks", "hpcoll_overlap")
    for path in (library, overhead, overlap):
        if not os.path.exists(path):
            log.die(f"no {path} (./hpcoll bench --pmpi builds it)")
    nps, now, folder, command = bc.start_run(args, log, ["./hpcoll", "bench", "--pmpi"], DEFAULT_NPS, 1, "pmpi")
    flags = shlex.split(args.mpiexec_flags)
    # The ranks get LD_PRELOAD from mpiexec: Open MPI's -x, MPICH's (Hydra's) -genv.
    preload = ["-x", f"LD_PRELOAD={library}"] if bc.is_open_mpi() else ["-genv", "LD_PRELOAD", library]
    log(f"np {', '.join(map(str, nps))}; {args.rounds} rounds of {args.trials} trials; results in {bc.show(folder)}")
    t0 = time.monotonic()
    report = [f"./hpcoll bench --pmpi, {now:%Y-%m-%d %H:%M} UTC: {command}",
              f"machine: {bc.cores()} cores; {bc.mpiexec_version()}", ""]

    overhead_log = os.path.join(folder, "interception.log")
    if run(["mpiexec", "-n", "1", "--bind-to", "core", *preload, overhead, *(["--trials", "5"] if args.quick else [])],
           {}, "interception", folder, args.verbose):
        with open(overhead_log) as f:
            table = [line for line in f.read().splitlines()[1:] if line.strip()]
        report += [f"The interception alone (np 1, 8 B; target <= {INTERCEPTION_TARGET_NS} ns per call):", *table, ""]

    failed = []
    overlap_sizes = "8,64,1KiB,16KiB,256KiB,1MiB"
    parts = (("table", args.binary, [f"--trials={args.trials}"], cells_of, "native rows"),
             ("overlap", overlap, ["--variants=native/never,manual/never", f"--sizes={overlap_sizes}",
                                   f"--reps={11 if args.quick else 101}"], overlap_cells_of,
              "nonblocking forms (hpcoll_overlap's t_pure: MPI_I... + MPI_Wait; hpcoll: hpcoll::i... + wait())"))
    for n in nps:
        for part, binary, options, read, title in parts:
            plain, preloaded = [], []
            for k in range(1, args.rounds + 1):
                for kind, extra, paths in (("plain", [], plain), ("preloaded", preload, preloaded)):
                    name = f"{part}-np{n}-{kind}-{k}"
                    out_json = os.path.join(folder, name + ".json")
                    cmd = ["mpiexec", "-n", str(n), *flags, *extra, binary, *options, f"--out={out_json}",
                           *(args.extra if part == "table" else [])]
                    if run(cmd, {}, name, folder, args.verbose):
                        paths.append(out_json)
                    else:
                        failed.append(name)
            if not plain or not preloaded:
                continue
            rows, geomean, own, slower, cells = compare(read(plain), read(preloaded))
            report += [f"np {n} ({bc.placement(n, bc.cores())}): {title}, median over "
                       f"{len(plain)} + {len(preloaded)} runs",
                       bc.text_table(["collective", "size", "without (us)", "preloaded (us)", "ratio",
                                      "hpcoll ÷ native"], rows, left=2),
                       f"  geometric mean preloaded ÷ without: {geomean:.2f} (hpcoll's own calls ÷ native: "
                       f"{own:.2f}); cells more than {round((SLOWER_TARGET - 1) * 100)} % slower preloaded: "
                       f"{slower} of {cells}", ""]
    report.append(f"{bc.fmt_seconds(time.monotonic() - t0)}; "
                  + (f"failed runs: {', '.join(failed)}" if failed else "every run done"))
    text = "\n".join(report) + "\n"
    with open(os.path.join(folder, "report.txt"), "w") as f:
        f.write(text)
    print(text, end="")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
