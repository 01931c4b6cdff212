#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""./hpcoll bench --cluster: hpcoll_bench on the emulated cluster (scripts/cluster.sh;
docs/hierarchy.md, "Emulated cluster"): allreduce, bcast, allgather and alltoall with every
flat schedule, the node-aware schedules (hierarchical, multi_leader), the dispatcher ("default"), native Open MPI as configured ("native") and native
with HAN forced ("native_han", --mca coll_han_priority 100), into results/cluster-<UTC>/:
report.md, report.json and each run's Google Benchmark JSON and log.

Schedules the dispatcher can name but does not time here are timed with --force COLL=SCHEDULE (repeatable): a run with
HPCOLL_<COLL>=SCHEDULE whose "default" rows are reported as "forced:SCHEDULE". FORCED_SCHEDULES
below lists those run by default."""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_common as bc  # noqa: E402

COLLECTIVES = ("allreduce", "bcast", "allgather", "alltoall")
# (collective, schedule) pairs timed by forcing, in every run without --force: the hook for
# schedules the dispatcher does not list as candidates.
FORCED_SCHEDULES = ()
HAN_MCA = ["--mca", "coll_han_priority", "100"]
NODE_AWARE_PREFIXES = ("hierarchical<", "multi_leader<")
# Open MPI's coll framework says per communicator which component it selected; the report
# keeps HAN's lines, the proof that HAN served the native_han rows.
HAN_VERBOSE = ["--mca", "coll_base_verbose", "10"]
DEFAULT_SIZES = "1024:4194304"
QUICK_SIZES = "4096:262144"
REPETITIONS = 5
CLUSTER = os.path.join(bc.ROOT, "scripts", "cluster.sh")
# A cluster of its own, apart from one made by hand (hpc, 10.77.0) and ctest's (ctest, 10.77.99).
CLUSTER_OPTIONS = ["--name", "bench", "--subnet", "10.77.1"]


def log(msg):
    print(f"[hpcoll bench --cluster] {msg}", flush=True)


def die(msg):
    print(f"[hpcoll bench --cluster] error: {msg}", file=sys.stderr)
    sys.exit(1)


log.die = die


def parse_force(text):
    coll, sep, schedule = text.partition("=")
    if not sep or coll not in COLLECTIVES or not schedule:
        raise argparse.ArgumentTypeError(f"--force takes COLL=SCHEDULE with COLL one of {', '.join(COLLECTIVES)} "
                                         f"(got {text!r})")
    return coll, schedule


def is_node_aware(label):
    """A node-aware schedule's row (hpcoll_bench --hpcoll_node_aware)."""
    return label.startswith(NODE_AWARE_PREFIXES)


def main():
    ap = argparse.ArgumentParser(prog="./hpcoll bench --cluster", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", required=True, help=argparse.SUPPRESS)
    ap.add_argument("--cwd", default=os.getcwd(), help=argparse.SUPPRESS)
    ap.add_argument("--mpiexec-flags", default="", help=argparse.SUPPRESS)  # the cluster's launcher sets its own
    ap.add_argument("--hosts", type=int, default=4, help="hosts (namespaces), default 4")
    ap.add_argument("--ppn", type=int, default=2, help="ranks per host, default 2")
    ap.add_argument("--rate", default="1gbit", help="link rate each way (tc tbf), default 1gbit")
    ap.add_argument("--sizes", help=f"MIN:MAX bytes, x4 steps (default {DEFAULT_SIZES}, --quick {QUICK_SIZES})")
    ap.add_argument("--min-time", type=float, help="--benchmark_min_time per row (default 0.1, --quick 0.01)")
    ap.add_argument("--collectives", default=",".join(COLLECTIVES), help="a,b (default all four)")
    ap.add_argument("--force", type=parse_force, action="append", metavar="COLL=SCHEDULE",
                    help="also time SCHEDULE forced on COLL (HPCOLL_<COLL>=SCHEDULE); repeatable")
    ap.add_argument("--machine", help="a machine file for the dispatcher (HPCOLL_MACHINE on every rank), "
                    "e.g. one ./hpcoll calibrate measured on the cluster; default: the built-in model")
    ap.add_argument("--no-han", action="store_true", help="leave out the native run with HAN forced")
    ap.add_argument("--keep", action="store_true", help="leave the cluster up afterwards")
    ap.add_argument("--quick", action="store_true", help="few sizes, short rows (a check, not a measurement)")
    ap.add_argument("--out", help="results folder (default results/cluster-<UTC>)")
    args = ap.parse_args()
    if args.hosts < 2:
        die(f"--hosts must be at least 2 (got {args.hosts})")
    if args.ppn < 1:
        die(f"--ppn must be at least 1 (got {args.ppn})")
    collectives = args.collectives.split(",")
    unknown = [c for c in collectives if c not in COLLECTIVES]
    if unknown:
        die(f"--collectives: unknown {', '.join(unknown)} (known: {', '.join(COLLECTIVES)})")
    sizes = args.sizes or (QUICK_SIZES if args.quick else DEFAULT_SIZES)
    min_time = args.min_time if args.min_time is not None else (0.01 if args.quick else 0.1)
    forced = list(args.force or FORCED_SCHEDULES)
    machine = []
    if args.machine:
        path = os.path.abspath(bc.from_cwd(args.cwd, args.machine))
        if not os.path.isfile(path):
            die(f"--machine {args.machine}: no such file")
        machine = ["-x", f"HPCOLL_MACHINE={path}"]

    now = bc.utc_now()
    out = bc.results_folder(bc.from_cwd(args.cwd, args.out) if args.out else None, "cluster", now)
    np_ = args.hosts * args.ppn
    if subprocess.run([CLUSTER, "up", str(args.hosts), "--rate", args.rate] + CLUSTER_OPTIONS).returncode != 0:
        die("the emulated cluster could not be made (above: why)")
    binary = os.path.abspath(args.binary)
    # Repetitions' median: on a shared 2-core machine single rows vary by the scheduler's ticks.
    repeat = [f"--benchmark_repetitions={REPETITIONS}", "--benchmark_report_aggregates_only=true"] \
        if not args.quick else []
    common = repeat + [f"--hpcoll_collectives={','.join(collectives)}", f"--hpcoll_sizes={sizes}",
              f"--benchmark_min_time={min_time:g}", "--hpcoll_no_memcpy"]
    runs = [("flat", machine, [], common + ["--hpcoll_node_aware"])]
    if not args.no_han:
        runs.append(("native_han", HAN_MCA + HAN_VERBOSE, [],
                     common + ["--hpcoll_only_native", "--hpcoll_native_label=native_han"]))
    for coll, schedule in forced:
        var = f"HPCOLL_{coll.upper()}"
        runs.append((f"forced_{coll}_{schedule}", machine + ["-x", f"{var}={schedule}"], [(coll, schedule)],
                     repeat + [f"--hpcoll_collectives={coll}", f"--hpcoll_sizes={sizes}",
                      f"--benchmark_min_time={min_time:g}", "--hpcoll_no_memcpy"]))
    commands = []
    failed = []
    t0 = time.monotonic()
    rows = {}  # (collective, size) -> {label: us}
    mpi_library = None
    try:
        for name, mpirun_opts, relabel, bench_args in runs:
            safe = "".join(ch if ch.isalnum() or ch in "_-" else "_" for ch in name)
            out_json = os.path.join(out, safe + ".json")
            cmd = [CLUSTER, "run", str(args.hosts), str(args.ppn)] + CLUSTER_OPTIONS + mpirun_opts + \
                  ["--", binary] + bench_args + [f"--benchmark_out={out_json}", "--benchmark_out_format=json"]
            commands.append(" ".join(cmd))
            log(f"{name}: {' '.join(cmd)}")
            t = time.monotonic()
            with open(os.path.join(out, safe + ".log"), "w") as f:
                rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT).returncode
            log(f"  {name}: exit {rc}, {bc.fmt_seconds(time.monotonic() - t)}")
            if rc != 0 or not os.path.exists(out_json):
                failed.append(name)
                continue
            doc = bc.read_bench_doc(bc.load_json(out_json), safe)
            mpi_library = mpi_library or doc.mpi_library
            for r in doc.runs:
                label = r.label
                if relabel and label == "default":
                    label = f"forced:{relabel[0][1]}"
                elif relabel:
                    continue
                rows.setdefault((r.collective, r.size), {})[label] = statistics.median(bc.entry_us(e) for e in r.entries)
    finally:
        if not args.keep:
            subprocess.run([CLUSTER, "down", str(args.hosts)] + CLUSTER_OPTIONS, check=False)
    seconds = time.monotonic() - t0

    han_used = None
    han_log = os.path.join(out, "native_han.log")
    if os.path.exists(han_log):
        with open(han_log) as f:
            text = f.read()
        selected = [l.strip() for l in text.splitlines() if re.search(r"comm_select: selecting\s+han", l)]
        han_used = [f"{len(selected)} communicator selections of HAN by the ranks, e.g.:"] + selected[:2]
        if not selected:
            han_used = []

    meta = {"stamp": bc.stamp(now), "date": now.strftime("%Y-%m-%d %H:%M:%S UTC"),
            "command": ("./hpcoll bench --cluster " + " ".join(a for a in sys.argv[1:] if not a.startswith(bc.HIDDEN) and a not in (args.binary, args.cwd, args.mpiexec_flags)).strip()).strip(),
            "machine": bc.machine_text(mpi_library, [np_]) + f"; emulated: {args.hosts} hosts x {args.ppn} ranks, "
                       f"links {args.rate} each way (tc tbf)",
            "hosts": args.hosts, "ppn": args.ppn, "rate": args.rate, "machine_file": args.machine, "sizes": sizes, "min_time": min_time,
            "quick": args.quick, "seconds": seconds, "failed": failed, "runs": commands}
    table = []
    L = bc.report_opening("Emulated cluster", meta)
    L += [f"- Date: {meta['date']}; duration {bc.fmt_seconds(seconds)}",
          f"- The dispatcher's machine file: {args.machine or 'none (the built-in model)'}",
          f"- {f'Medians of {REPETITIONS} repetitions' if repeat else 'One repetition'}, in µs of the slowest rank per call; "
          "best flat = the fastest flat hpcoll schedule, best node-aware = the fastest hierarchical or "
          "multi_leader one, dispatcher = hpcoll's free function.", ""]
    if args.quick:
        L += ["**--quick run**: a check that everything runs, not a measurement.", ""]
    if han_used is not None:
        L += ["HAN (coll_base_verbose 10) said:", "", "```"] + (han_used or ["(nothing: HAN not used)"]) + ["```", ""]
    for coll in collectives:
        keys = sorted(s for c, s in rows if c == coll)
        if not keys:
            continue
        L += [f"## {coll}", ""]
        header = ["size", "best flat", "schedule", "best node-aware", "schedule", "node-aware ÷ flat",
                  "dispatcher", "native", "native HAN"] + [f"forced:{s}" for c, s in forced if c == coll]
        body = []
        for size in keys:
            r = rows[(coll, size)]
            hpcoll_rows = {k: v for k, v in r.items() if bc.is_candidate(k) and not k.startswith("forced:")}
            flat = {k: v for k, v in hpcoll_rows.items() if not is_node_aware(k)}
            aware = {k: v for k, v in hpcoll_rows.items() if is_node_aware(k)}
            best = min(flat, key=flat.get) if flat else None
            best_aware = min(aware, key=aware.get) if aware else None
            ratio = aware[best_aware] / flat[best] if best and best_aware and flat[best] > 0 else None
            cells = [bc.fmt_bytes(size), bc.f2(flat.get(best), ".1f") if best else "-", best or "-",
                     bc.f2(aware.get(best_aware), ".1f") if best_aware else "-", best_aware or "-",
                     bc.f2(ratio, ".2f") if ratio is not None else "-"]
            cells += [bc.f2(r.get(k), ".1f") if r.get(k) is not None else "-"
                      for k in ["default", "native", "native_han"] + [f"forced:{s}" for c, s in forced if c == coll]]
            body.append(cells)
            table.append({"collective": coll, "size": size, "us": r, "best_flat": best, "best_node_aware": best_aware,
                          "node_aware_over_flat": ratio})
        L += bc.md_table(header, body).splitlines() + [""]
    bc.write_reports(out, {"format": "hpcoll-cluster-bench-1", "meta": meta, "rows": table,
                           "han_verbose": han_used}, "\n".join(L))
    log(f"report: {bc.show(os.path.join(out, 'report.md'))}, report.json")
    if failed:
        log(f"failed runs: {', '.join(failed)} (logs in {bc.show(out)})")
        sys.exit(1)


if __name__ == "__main__":
    main()
