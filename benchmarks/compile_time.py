#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Compile time of a minimal program per way of calling an allreduce
(docs/architecture.md, "Light headers").

usage: /usr/bin/python3 benchmarks/compile_time.py [--reps N] [--also LABEL ROOT PROGRAMS]... [--cxx g++]
                                                   [--out FILE]

Compiles each program of benchmarks/compile_time/ (g++ -std=c++20 -O2 -c, one
core, MPI's compile flags from `mpicxx --showme:compile`) N times, the programs
alternating within each repetition so that a load that comes and goes hits
them alike, and prints per program the median and the range of the wall
times, the ratio of the medians to the Boost.MPI program of the same tree
(boost_mpi.cpp, the anchor) and the preprocessed lines. --also measures in the
same run the programs of directory PROGRAMS against the headers of another
checkout ROOT (an older version, with programs written for its paths).
Standard library only.
"""

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PROGRAMS = os.path.join(HERE, "compile_time")
ANCHOR = "boost_mpi.cpp"


def mpi_flags():
    """The MPI compile flags of Open MPI's or MPICH's compiler wrapper."""
    for query in (["mpicxx", "--showme:compile"], ["mpicxx", "-compile-info"]):
        try:
            out = subprocess.run(query, capture_output=True, text=True, check=True).stdout
        except (OSError, subprocess.CalledProcessError):
            continue
        words = shlex.split(out)
        return words if query[1] == "--showme:compile" else [w for w in words[1:] if w.startswith(("-I", "-D"))]
    sys.exit("compile_time: mpicxx reports no compile flags (neither --showme:compile nor -compile-info)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--reps", type=int, default=7, help="compilations per program (default 7)")
    ap.add_argument("--also", nargs=3, action="append", default=[], metavar=("LABEL", "ROOT", "PROGRAMS"),
                    help="another checkout ROOT and the programs to compile against it")
    ap.add_argument("--cxx", default="g++", help="the compiler (default g++)")
    ap.add_argument("--out", metavar="FILE", help="also write the table (markdown) to FILE")
    args = ap.parse_args(argv)
    if args.reps < 1:
        ap.error("--reps must be at least 1")

    trees = [("this tree", ROOT, PROGRAMS)] + [tuple(a) for a in args.also]
    jobs = []  # (tree label, program, flags, source)
    for label, root, programs in trees:
        includes = [f"-I{os.path.join(root, 'include')}"]
        if os.path.isdir(os.path.join(root, "include", "hpcoll-compat")):
            includes.append(f"-I{os.path.join(root, 'include', 'hpcoll-compat')}")
        flags = ["-std=c++20", "-O2", *includes, *mpi_flags(), "-DOMPI_SKIP_MPICXX", "-DMPICH_SKIP_MPICXX"]
        for p in sorted(f for f in os.listdir(programs) if f.endswith(".cpp")):
            jobs.append((label, p, flags, os.path.join(programs, p)))

    lines, times = {}, {(label, p): [] for label, p, _, _ in jobs}
    with tempfile.TemporaryDirectory() as tmp:
        for label, p, flags, source in jobs:
            pre = subprocess.run([args.cxx, "-E", *flags, source], capture_output=True, text=True)
            if pre.returncode != 0:
                sys.exit(f"compile_time: {source} does not preprocess:\n{pre.stderr}")
            lines[label, p] = pre.stdout.count("\n")
        for _ in range(args.reps):
            for label, p, flags, source in jobs:
                start = time.monotonic()
                run = subprocess.run([args.cxx, *flags, "-c", source, "-o", os.path.join(tmp, "x.o")],
                                     capture_output=True, text=True)
                times[label, p].append(time.monotonic() - start)
                if run.returncode != 0:
                    sys.exit(f"compile_time: {source} does not compile:\n{run.stderr}")

    version = subprocess.run([args.cxx, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    rows = [f"{args.cxx} -std=c++20 -O2 -c ({version}); {args.reps} compilations each, alternating; "
            "wall seconds on one core", "",
            "| tree | program | preprocessed lines | median s | min-max s | / Boost.MPI |",
            "|---|---|---:|---:|---:|---:|"]
    for label, p, _, _ in jobs:
        t = times[label, p]
        anchor = times.get((label, ANCHOR))
        ratio = f"{statistics.median(t) / statistics.median(anchor):.2f}" if anchor else "-"
        rows.append(f"| {label} | {p} | {lines[label, p]} | {statistics.median(t):.2f} | "
                    f"{min(t):.2f}-{max(t):.2f} | {ratio} |")
    text = "\n".join(rows)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
