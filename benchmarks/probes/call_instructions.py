#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""What hpcoll adds to a tiny call, in instructions: runs probe_call_instructions
(np 2, two ints per rank) under callgrind at two call counts for each method
and prints, per rank, the program's own instructions per call (the MPI
libraries' left out: the same messages cost them the same by hand), from the
difference of the two runs (start-up cancels out).

  /usr/bin/python3 benchmarks/probes/call_instructions.py build/benchmarks/probe_call_instructions [METHOD ...]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

METHODS = ["by_hand_bcast", "Bcast_binomial", "bcast", "Reduce_binomial", "reduce",
           "Allreduce_recursive_doubling", "allreduce", "Allgather_recursive_doubling", "allgather",
           "Alltoall_pairwise", "alltoall"]
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
    parser.add_argument("probe", help="build/benchmarks/probe_call_instructions")
    parser.add_argument("methods", nargs="*", default=METHODS, help="default: all")
    args = parser.parse_args()
    program = os.path.realpath(args.probe)
    if not os.access(program, os.X_OK):
        sys.exit(f"call_instructions.py: {args.probe} is not an executable program")
    for m in args.methods:
        if m not in METHODS:
            sys.exit(f"call_instructions.py: unknown method '{m}' (one of: {', '.join(METHODS)})")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    print(f"{'method':30} {'rank 0':>8} {'rank 1':>8}   own instructions per call")
    with tempfile.TemporaryDirectory() as tmp:
        for m in args.methods:
            counts = {}
            for calls in CALLS:
                out = os.path.join(tmp, f"{m}.{calls}.%q{{OMPI_COMM_WORLD_RANK}}")
                subprocess.run(["mpiexec", "-n", "2", "--oversubscribe", "valgrind", "--tool=callgrind",
                                f"--callgrind-out-file={out}", program, m, str(calls)],
                               env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                for rank in (0, 1):
                    counts[calls, rank] = own_instructions(out.replace("%q{OMPI_COMM_WORLD_RANK}", str(rank)), program)
            per_call = [(counts[CALLS[1], r] - counts[CALLS[0], r]) / (CALLS[1] - CALLS[0]) for r in (0, 1)]
            print(f"{m:30} {per_call[0]:8.0f} {per_call[1]:8.0f}")


if __name__ == "__main__":
    main()
