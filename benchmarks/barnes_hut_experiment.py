#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""./hpcoll bench --barnes-hut: the Barnes-Hut simulation of apps/barnes_hut, phase by phase (docs/barnes_hut.md).

  ./hpcoll bench --barnes-hut [--bodies N,N] [--np N]... [--gathers a,b] [--builds a,b] [--no-static]
                              [--steps S] [--workers W] [--quick] [--out DIR] [--from DIR]

What it does:
  runs hpcoll_barnes_hut (a Plummer sphere, --steps 8 by default) under mpiexec as the study did:
  300,000 bodies with 1 worker per rank and 3,000,000 bodies with the most workers the machine has
  (its cores; --workers W instead), at np 1, 2, 4 and 8, each gather (gatherv, reduce, allgatherv) x
  tree build (root, parallel) with dynamic balancing, plus, for contrast, gatherv with the parallel
  build and --balance static (--no-static: without it). --bodies, --np, --gathers and --builds choose
  a part of that (e.g. --bodies 300000 --np 1 --np 2 --gathers gatherv). Each configuration runs
  once. Every run of one body count must end with the same positions-hash, or the report fails.
  Ranks pinned to cores (--bind-to core) while np x workers fit the cores with one worker each;
  else oversubscribed (Open MPI: --oversubscribe --bind-to none --mca mpi_yield_when_idle 1); the
  report says which runs were. Workers wait passively (OMP_WAIT_POLICY=passive, ./hpcoll sets it).

  Then writes DIR/report.md, DIR/report.json and PNGs (DIR defaults to results/barnes-hut-<UTC>/):
  per body count a table of the phases (mktree, bcast, fcalc, gather, others: the slowest rank's,
  summed over the steps, in s), the step total, fcalc's max/mean over ranks, interactions per second,
  the largest phase and the speed-up over np 1 of the same configuration; <bodies>-phases.png, the
  study's stacked bars (one panel per configuration, one bar per np), and <bodies>-speedup.png.
  --from DIR rewrites the report from DIR/report.json without running anything.

  Times: one force computation of 300,000 bodies takes about 4.5 s of one worker on the 2-core VM of
  docs/barnes_hut.md, so a run of 8 steps (9 force computations) about 40 s at np 1; 3,000,000 bodies
  some 10-12 times that per worker. The whole default experiment takes hours: choose a part.
  --quick: 2,000 and 4,000 bodies, 2 steps: a check that everything runs, not a measurement.
"""

import json
import os
import re
import shlex
import sys
import time

import bench_common as bc

FORMAT = "hpcoll-barnes-hut-experiment-1"
DEFAULT_NPS = [1, 2, 4, 8]
DEFAULT_BODIES = [300000, 3000000]
QUICK_BODIES = [2000, 4000]
GATHERS = ("gatherv", "reduce", "allgatherv")
BUILDS = ("root", "parallel")
PHASES = ("mktree", "bcast", "fcalc", "gather", "others")
STATIC_CONTRAST = ("gatherv", "parallel", "static")

log = bc.Log("bench --barnes-hut")


# ---------------------------------------------------------------------------
# Configurations

def workers_for(bodies, all_bodies, most_workers, asked=False):
    """The study's: one worker per rank for the smaller problem(s), the most workers for the largest;
    a single body count runs with one worker unless --workers was given (asked)."""
    return most_workers if (len(all_bodies) > 1 or asked) and bodies == max(all_bodies) else 1


def configurations(gathers, builds, static_contrast):
    """(gather, build, balance) of every run at one body count and np."""
    configs = [(g, b, "dynamic") for g in gathers for b in builds]
    if static_contrast:
        configs.append(STATIC_CONTRAST)
    return configs


def config_name(config):
    """'gatherv/root', or 'gatherv/parallel/static' for the static contrast."""
    gather, build, balance = config
    return f"{gather}/{build}" + ("" if balance == "dynamic" else f"/{balance}")


def mpiexec_flags(np_, workers, ncores, open_mpi):
    """Pinned while every rank has a core of its own and one worker; else oversubscribed (a rank's
    workers must not share the one core it would be pinned to)."""
    if workers == 1 and np_ <= ncores:
        return bc.PINNED
    return bc.OVERSUBSCRIBED if open_mpi else ""


def oversubscribed(np_, workers, ncores):
    return np_ * workers > ncores


def parse_list(text, known, what):
    names = [n for n in text.split(",") if n]
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        log.die(f"--{what}: {', '.join(unknown) or 'none'} not among {', '.join(known)}")
    return names


def parse_bodies(text):
    try:
        counts = [int(n) for n in text.split(",") if n]
    except ValueError:
        counts = []
    if not counts or any(n < 1 for n in counts):
        log.die(f"--bodies {text}: positive integers, comma-separated")
    return counts


# ---------------------------------------------------------------------------
# Results: rows {bodies, workers, np, config, phases {name: s}, step_s, fcalc_max_over_mean,
#                interactions_per_s, hash, oversubscribed}

def row_from_json(doc, bodies, workers, np_, config, ncores):
    """A row of the report from one run's --json."""
    per_rank = doc["fcalc_per_rank_s"]
    mean = sum(per_rank) / len(per_rank) if per_rank else 0
    return {"bodies": bodies, "workers": workers, "np": np_, "config": config_name(config),
            "phases": {p: doc["seconds"][p] for p in PHASES},
            "step_s": sum(doc["seconds"][p] for p in PHASES),
            "fcalc_max_over_mean": max(per_rank) / mean if mean > 0 else 1.0,
            "interactions_per_s": doc["interactions"]["per_second"],
            "bcast_bytes": doc["collective_calls"].get("bcast", {}).get("bytes", 0),
            "gather_bytes": sum(c["bytes"] for name, c in doc["collective_calls"].items() if name != "bcast"),
            "energy_drift": doc["energy"]["drift"],
            "hash": doc["positions_hash"], "oversubscribed": oversubscribed(np_, workers, ncores)}


def largest_phase(row):
    return max(PHASES, key=lambda p: row["phases"][p])


def speedups(rows):
    """(bodies, config, np) -> step time at np 1 / step time at np, where both ran."""
    base = {(r["bodies"], r["config"]): r["step_s"] for r in rows if r["np"] == 1}
    return {(r["bodies"], r["config"], r["np"]): base[(r["bodies"], r["config"])] / r["step_s"]
            for r in rows if (r["bodies"], r["config"]) in base and r["step_s"] > 0}


def problems(rows):
    """Wrong results: runs of one body count whose final positions differ. Empty: none."""
    out = []
    for bodies in sorted({r["bodies"] for r in rows}):
        hashes = {}
        for r in rows:
            if r["bodies"] == bodies:
                hashes.setdefault(r["hash"], []).append(f"{r['config']} at np {r['np']}")
        if len(hashes) > 1:
            out.append(f"{bodies} bodies: the runs disagree on the final positions: " +
                       "; ".join(f"{h} in {', '.join(w[:3])}" for h, w in hashes.items()))
    return out


def phase_table(rows, bodies):
    """The report's table for one body count: a line per configuration and np."""
    speed = speedups(rows)
    lines = []
    for r in sorted((r for r in rows if r["bodies"] == bodies), key=lambda r: (r["config"], r["np"])):
        s = speed.get((bodies, r["config"], r["np"]))
        lines.append([r["config"], f"{r['np']}" + (" (over)" if r["oversubscribed"] else "")] +
                     [f"{r['phases'][p]:.3f}" for p in PHASES] +
                     [f"{r['step_s']:.3f}", f"{r['fcalc_max_over_mean']:.3f}", f"{r['interactions_per_s']:.3g}",
                      largest_phase(r), bc.f2(s) if s is not None else "-"])
    return lines


def report_lines(meta, rows, trouble):
    ncores = meta.get("cores") or bc.cores()
    L = bc.report_opening("The Barnes-Hut simulation, phase by phase", meta)
    L.append(f"- Date: {meta.get('date', '?')}; {meta.get('steps', '?')} steps per run (and the initial forces)")
    for bodies, workers in meta.get("workers", {}).items():
        over = [n for n in meta.get("nps", []) if oversubscribed(n, workers, ncores)]
        L.append(f"- {bodies} bodies: {workers} worker(s) per rank" +
                 (f"; np {', '.join(map(str, over))}: ranks x workers above the {ncores} cores, oversubscribed"
                  if over else ""))
    L.append("- Each phase: the slowest rank's seconds per step, summed over the steps; `fcalc max/mean`: the "
             "slowest rank's force computation over the mean (1: balanced); speed-up: step time at np 1 ÷ at np.")
    if meta.get("seconds") is not None:
        L.append(f"- Duration: {bc.fmt_seconds(meta['seconds'])}")
    if meta.get("quick"):
        L.append("- **--quick run**: a few thousand bodies, 2 steps; a check that everything runs, not a measurement.")
    if meta.get("failed"):
        L.append(f"- **Failed runs**: {', '.join(meta['failed'])}")
    if trouble:
        L += ["", "**Wrong results:**", ""] + [f"- {t}" for t in trouble]
    L.append("")
    header = (["configuration", "np"] + [f"{p} s" for p in PHASES] +
              ["step s", "fcalc max/mean", "interactions/s", "largest phase", "speed-up"])
    for bodies in sorted({r["bodies"] for r in rows}):
        L += [f"## {bodies} bodies", "", bc.md_table(header, phase_table(rows, bodies)), ""]
    return L


def plot(folder, rows, complain):
    """Per body count: the stacked phases (a panel per configuration, a bar per np) and the speed-up."""
    plt = bc.pyplot(complain)
    if plt is None:
        return []
    written = []

    def save(fig, name):
        fig.savefig(os.path.join(folder, name), dpi=110, bbox_inches="tight")
        plt.close(fig)
        written.append(name)

    speed = speedups(rows)
    for bodies in sorted({r["bodies"] for r in rows}):
        mine = [r for r in rows if r["bodies"] == bodies]
        configs = sorted({r["config"] for r in mine})
        nps = sorted({r["np"] for r in mine})
        columns = min(3, len(configs))
        lines = (len(configs) + columns - 1) // columns
        fig, axes = plt.subplots(lines, columns, figsize=(4.5 * columns, 3.8 * lines), squeeze=False, sharey=True,
                                 constrained_layout=True)
        for ax, config in zip(axes.flat, configs):
            by_np = {r["np"]: r for r in mine if r["config"] == config}
            bottom = [0.0] * len(nps)
            for phase in PHASES:
                heights = [by_np[n]["phases"][phase] if n in by_np else 0 for n in nps]
                ax.bar([str(n) for n in nps], heights, bottom=bottom, label=phase)
                bottom = [b + h for b, h in zip(bottom, heights)]
            ax.set_title(config, fontsize=10)
            ax.set_xlabel("np")
            ax.grid(True, axis="y", alpha=0.3)
        for ax in axes.flat[len(configs):]:
            ax.set_visible(False)
        axes[0][0].set_ylabel("seconds (slowest rank, all steps)")
        axes[0][0].legend(fontsize=8)
        fig.suptitle(f"{bodies} bodies: time per phase", fontsize=11)
        save(fig, f"{bodies}-phases.png")

        fig, ax = plt.subplots(figsize=(7, 5))
        for config in configs:
            points = [(n, speed[(bodies, config, n)]) for n in nps if (bodies, config, n) in speed]
            if points:
                ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=config)
        ax.plot(nps, nps, ":", color="grey", label="ideal")
        ax.set_xlabel("np (ranks x workers above the cores: oversubscribed)")
        ax.set_ylabel("speed-up over np 1 (step time)")
        ax.set_xticks(nps)
        ax.set_title(f"{bodies} bodies: speed-up", fontsize=10)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
        save(fig, f"{bodies}-speedup.png")
    return written


def write_report(folder, meta, rows, plots=True):
    """report.md, report.json and the plots; 1 if a result was wrong or a run failed, else 0."""
    trouble = problems(rows)
    report = {"format": FORMAT, "meta": meta, "rows": rows, "problems": trouble}
    return bc.write_checked_report(log, folder, report, "\n".join(report_lines(meta, rows, trouble)),
                                   lambda: plot(folder, rows, log) if plots else [])


def read_report(folder):
    """(meta, rows) of an earlier folder's report.json."""
    doc = bc.read_report_of(log, folder, FORMAT, "./hpcoll bench --barnes-hut")
    return doc["meta"], doc["rows"]


# ---------------------------------------------------------------------------
# Running

def run_all(args, plan, nps, folder):
    """Every (bodies, workers) of `plan` at every np and configuration: (rows, failed runs)."""
    open_mpi = bc.is_open_mpi()
    ncores = bc.cores()
    os.makedirs(os.path.join(folder, "runs"), exist_ok=True)
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    rows, failed = [], []
    with open(os.path.join(folder, "commands.txt"), "w") as commands:
        for bodies, workers in plan:
            for np_ in nps:
                flags = mpiexec_flags(np_, workers, ncores, open_mpi)
                for config in configurations(args.gathers, args.builds, not args.no_static):
                    gather, build, balance = config
                    name = re.sub(r"[^A-Za-z0-9_.=-]+", "_", f"{bodies}-np{np_}-{config_name(config)}")
                    out_json = os.path.join(folder, "runs", f"{name}.json")
                    cmd = (["mpiexec", "-n", str(np_)] + shlex.split(flags) +
                           [args.binary, "--bodies", str(bodies), "--steps", str(args.steps), "--workers",
                            str(workers), "--gather", gather, "--build", build, "--balance", balance,
                            "--json", out_json] + args.extra)
                    log(f"{bodies} bodies, np {np_}, {workers} worker(s): {config_name(config)}")
                    rc, _ = bc.run_logged(cmd, os.path.join(folder, "runs", f"{name}.log"), commands, name,
                                          env_text=f"OMP_WAIT_POLICY={os.environ['OMP_WAIT_POLICY']}",
                                          echo=args.verbose)
                    if rc != 0:
                        failed.append(name)
                        continue
                    with open(out_json) as f:
                        rows.append(row_from_json(json.load(f), bodies, workers, np_, config, ncores))
    return rows, failed


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    ap = bc.parser("./hpcoll bench --barnes-hut", __doc__, "What it does:")
    bc.add_run_options(ap, np_help="process count (repeatable; default 1, 2, 4, 8)",
                       quick_help="2,000 and 4,000 bodies, 2 steps: seconds",
                       out_help="results folder (default results/barnes-hut-<UTC>/)")
    ap.add_argument("--bodies", default=None, metavar="N,N",
                    help="body counts, comma-separated (default 300000,3000000); the largest runs with --workers")
    ap.add_argument("--gathers", default=",".join(GATHERS), metavar="a,b", help="of gatherv, reduce, allgatherv")
    ap.add_argument("--builds", default=",".join(BUILDS), metavar="a,b", help="of root, parallel")
    ap.add_argument("--no-static", action="store_true", help="without the static-balance contrast run")
    ap.add_argument("--steps", type=int, default=None, metavar="S", help="steps per run (default 8)")
    ap.add_argument("--workers", type=int, default=None, metavar="W",
                    help="workers per rank for the largest body count (default: the cores; a single --bodies count runs with 1 worker unless --workers is given)")
    bc.add_from_options(ap, "rewrite the report of an earlier --out DIR from its report.json")
    args = bc.parse_app_run_args(ap, argv, "barnes_hut", "hpcoll_barnes_hut")
    if args.reuse:
        meta, rows = read_report(args.reuse)
        return write_report(args.reuse, meta, rows, plots=not args.no_plots)
    if args.quick and args.bodies:
        log.die("--quick runs its own small problems: not with --bodies")
    all_bodies = QUICK_BODIES if args.quick else (parse_bodies(args.bodies) if args.bodies else DEFAULT_BODIES)
    args.gathers = parse_list(args.gathers, GATHERS, "gathers")
    args.builds = parse_list(args.builds, BUILDS, "builds")
    args.steps = args.steps if args.steps is not None else (2 if args.quick else 8)
    if args.steps < 0:
        log.die(f"--steps {args.steps}: at least 0")
    most_workers = args.workers or bc.cores()
    if most_workers < 1:
        log.die(f"--workers {most_workers}: at least 1")
    plan = [(b, workers_for(b, all_bodies, most_workers, args.workers is not None)) for b in all_bodies]
    nps, now, folder, command = bc.start_run(args, log, ["./hpcoll", "bench", "--barnes-hut"], DEFAULT_NPS, 1,
                                             "barnes-hut")
    start = time.monotonic()
    rows, failed = run_all(args, plan, nps, folder)
    flags = " ".join(sorted({mpiexec_flags(n, w, bc.cores(), bc.is_open_mpi()) for _, w in plan for n in nps}))
    meta = {"stamp": bc.stamp(now), "date": now.strftime("%Y-%m-%d %H:%M:%S UTC"), "command": command,
            "machine": bc.machine_text(bc.mpiexec_version(), nps, flags), "cores": bc.cores(), "nps": nps,
            "steps": args.steps, "workers": {str(b): w for b, w in plan}, "quick": args.quick,
            "seconds": time.monotonic() - start, "failed": failed}
    return write_report(folder, meta, rows)


if __name__ == "__main__":
    sys.exit(main())
