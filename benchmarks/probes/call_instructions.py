#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""What hpcoll adds to a tiny call, in instructions: runs `hpcoll_overhead --loop`
(np 2, two ints per rank) under callgrind at two call counts for each method
and prints, per rank, the program's own instructions per call (the MPI
libraries' left out: the same messages cost them the same by hand), from the
difference of the two runs (start-up cancels out).

  /usr/bin/python3 benchmarks/probes/call_instructions.py build/benchmarks/hpcoll_overhead [COLLECTIVE/METHOD ...]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

# hpcoll_overhead's collectives and the methods compared (it checks the names).
METHODS = [f"{c}/{m}" for c in ("bcast", "reduce", "allreduce", "allgather", "alltoall")
           for m in ("by_hand", "named", "automatic")]
CALLS = (10000, 30000)
NAMED = re.compile(r"\((\d+)\)(?: (.*))?")


def own_instructions(path, program):
    """Exclusive instructions of `program`'s object in a callgrind output file."""
    objects = {}  # callgrind's name compression: "(id) name" once, "(id)" after

    def name_of(spec):
        m = NAMED.match(spec)
        if not m:
            return spec
        if m.group(2) is not None:
            objects[m.group(1)] = m.group(2)
        return objects.get(m.group(1), "")

    current, total, after_calls = "", 0, False
    with open(path) as f:
        for line in f:
            if line.startswith("ob="):
                current = name_of(line[3:].rstrip("\n"))
            elif line.startswith("cob="):
                name_of(line[4:].rstrip("\n"))
            elif line.startswith("calls="):
                after_calls = True  # the next cost line is the callee's, inclusive
            elif line[:1].isdigit() or line[:1] in "+-*":
                if after_calls:
                    after_calls = False
                elif os.path.realpath(current) == program:
                    fields = line.split()
                    if len(fields) >= 2:
                        total += int(fields[1])
    return total


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("program", help="build/benchmarks/hpcoll_overhead")
    parser.add_argument("methods", nargs="*", default=METHODS, help="COLLECTIVE/METHOD (default: " + " ".join(METHODS) + ")")
    args = parser.parse_args()
    program = os.path.realpath(args.program)
    if not os.access(program, os.X_OK):
        sys.exit(f"call_instructions.py: {args.program} is not an executable program")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    print(f"{'method':22} {'rank 0':>8} {'rank 1':>8}   own instructions per call")
    with tempfile.TemporaryDirectory() as tmp:
        for m in args.methods:
            counts = {}
            for calls in CALLS:
                out = os.path.join(tmp, f"{m.replace('/', '.')}.{calls}.%q{{OMPI_COMM_WORLD_RANK}}")
                run = subprocess.run(["mpiexec", "-n", "2", "--oversubscribe", "valgrind", "--tool=callgrind",
                                      f"--callgrind-out-file={out}", program, f"--loop={m}", f"--calls={calls}"],
                                     env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                if run.returncode != 0:
                    problem = [l for l in run.stderr.splitlines() if l.startswith("hpcoll_overhead:")]
                    sys.exit(f"call_instructions.py: {m}: " + (problem[0] if problem else f"exit status {run.returncode}"))
                for rank in (0, 1):
                    counts[calls, rank] = own_instructions(out.replace("%q{OMPI_COMM_WORLD_RANK}", str(rank)), program)
            per_call = [(counts[CALLS[1], r] - counts[CALLS[0], r]) / (CALLS[1] - CALLS[0]) for r in (0, 1)]
            print(f"{m:22} {per_call[0]:8.0f} {per_call[1]:8.0f}")


if __name__ == "__main__":
    main()
