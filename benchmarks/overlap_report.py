#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""./hpcoll bench --overlap: how much of a nonblocking collective a computation hides (docs/async.md).

  ./hpcoll bench --overlap [--np N]... [--quick] [--out DIR] [--sizes LIST|MIN:MAX] [--reps R]
                           [--collectives a,b] [--thread-poll-us U]... [--matrix N] [--inner-every K]
                           [--from DIR] [--no-plots] [--verbose] [-- extra hpcoll_overlap flags]

What it does:
  runs hpcoll_overlap (benchmarks/overlap.cpp) under mpiexec once per process count (default
  np 2 and 4) into DIR/np<N>.json, and once more per nonzero progress-thread poll interval
  (--thread-poll-us, default 50; only the thread variant: the interval is a per-process
  setting) into DIR/np<N>-poll<U>us.json; then writes DIR/report.md (per np, collective and
  size: t_pure, t_cpu, t_ovl, t_comp, t_test, t_wait, t_blocking_then_compute, overlap % by
  OSU's and IMB-NBC's definitions, speed-up), DIR/report.json (every row plus the run's
  metadata) and PNG plots (overlap % and speed-up per variant over size, one per np and
  collective). DIR defaults to results/overlap-<UTC timestamp>/. --from DIR rewrites the report
  of an earlier folder without running anything.

  Default: sizes 1 KiB..4 MiB (x4), 101 repetitions: one to two minutes on 2 cores.
  --quick: sizes 1 KiB, 64 KiB, 1 MiB, 11 repetitions: a few seconds.
"""

import os
import sys
import time

import bench_common as bc
from bench_common import human_size, md_table, us

DEFAULT_NPS = [2, 4]
DEFAULT_POLLS = [50]  # µs; 0 (yield, sweep again) is always measured
RUN_TIMEOUT = 900  # seconds per mpiexec
FORMAT = "hpcoll-overlap-1"
VARIANT_ORDER = ["native/never", "native/outer", "native/inner", "manual/never", "manual/outer", "manual/inner",
                 "thread", "offload"]

log = bc.Log("bench --overlap")


def variant_key(name):
    base = name.split("/poll=")[0]
    return (VARIANT_ORDER.index(base) if base in VARIANT_ORDER else len(VARIANT_ORDER), name)


# ---------------------------------------------------------------------------
# Loading and the report

def load_rows(folder):
    """Every row of every hpcoll_overlap JSON in the folder, with the runs' headers; sorted by np, the
    collectives' order in the runs' settings (hpcoll_overlap's), size and variant."""
    rows, runs = [], []
    for name in sorted(os.listdir(folder)):
        if not (name.startswith("np") and name.endswith(".json")):
            continue
        doc = bc.load_json(os.path.join(folder, name))
        if doc.get("format") != FORMAT:
            continue
        runs.append({k: v for k, v in doc.items() if k != "rows"} | {"file": name})
        for r in doc.get("rows", []):
            rows.append(dict(r, source=name))
    order = list(dict.fromkeys(c for run in runs for c in run.get("settings", {}).get("collectives", [])))
    rows.sort(key=lambda r: (r["np"], order.index(r["collective"]) if r["collective"] in order else len(order),
                             r["collective"], r["bytes"], variant_key(r["variant"])))
    return rows, runs


def groups(rows):
    """{(np, collective): {bytes: [rows]}} in order."""
    out = {}
    for r in rows:
        out.setdefault((r["np"], r["collective"]), {}).setdefault(r["bytes"], []).append(r)
    return out


def pct(x):
    return f"{x:.0f}"


def summary_tables(key, by_size):
    sizes = list(by_size)
    variants = sorted({r["variant"] for rs in by_size.values() for r in rs}, key=variant_key)
    cell = {(r["variant"], b): r for b, rs in by_size.items() for r in rs}
    header = ["variant"] + [human_size(b) for b in sizes]
    speed = [[v] + [f"{cell[(v, b)]['speedup']:.2f}" if (v, b) in cell else "—" for b in sizes] for v in variants]
    ovl = [[v] + [f"{pct(cell[(v, b)]['overlap_osu_pct'])} / {pct(cell[(v, b)]['overlap_imb_pct'])}"
                  if (v, b) in cell else "—" for b in sizes] for v in variants]
    return header, speed, ovl


def detail_table(rs):
    header = ["variant", "t_pure", "t_cpu", "t_ovl (IQR)", "t_comp", "t_test", "t_wait", "t_blk+cpu",
              "OSU %", "IMB %", "speed-up"]
    rows = []
    for r in rs:
        flag = "" if r.get("verified", True) else " **WRONG RESULT**"
        rows.append([r["variant"] + flag, us(r["t_pure_s"]), us(r["t_cpu_s"]),
                     f"{us(r['t_ovl_s'])} ({us(r['t_ovl_q1_s'])}–{us(r['t_ovl_q3_s'])})", us(r["t_comp_s"]),
                     us(r["t_test_s"]), us(r["t_wait_s"]), us(r["t_blocking_then_compute_s"]),
                     pct(r["overlap_osu_pct"]), pct(r["overlap_imb_pct"]), f"{r['speedup']:.2f}"])
    return md_table(header, rows)


def case_line(rs):
    """The computation and the schedule of one collective and size (shared by its rows)."""
    r0 = rs[0]
    sizing = {r["source"]: (r["matrix_n"], r["iters"], r["t_cpu_target_s"]) for r in rs}
    parts = [f"n = {n}, {it} products (sized for native t_pure {us(t)} µs; {src})" for src, (n, it, t) in
             sizing.items()]
    sched = sorted({r["schedule"] for r in rs if r.get("schedule")})
    return (f"{human_size(r0['bytes'])} per rank ({r0['elements']} doubles); matrix: " + "; ".join(parts)
            + (f"; hpcoll schedule: {', '.join(sched)}" if sched else ""))


METHOD = """\
Per rank and repetition (steady_clock, an MPI_Barrier before each timed region):
t_pure = issue + wait without computation; t_cpu = the computation alone (`iters` dense
products y = A x of order n); t_ovl = issue, computation with the variant's progress calls,
wait, split into t_issue, t_comp (the computation phase including its progress calls),
t_test (time inside the progress calls: MPI_Test, request.test()) and t_wait;
t_blk+cpu = the blocking collective (MPI_* for native rows, hpcoll's blocking call for
hpcoll rows) followed by the computation. Per repetition the slowest rank's value is kept
(for the overlapped run, all parts from the rank with the largest t_ovl); the tables show
medians over repetitions, in µs; IQR = the interquartile range of t_ovl.
OSU % = max(0, 100 − 100·(t_ovl − (t_comp − t_test))/t_pure);
IMB % = 100·max(0, min(1, (t_pure + t_cpu − t_ovl)/max(t_pure, t_cpu)));
speed-up = t_blk+cpu / t_ovl (> 1: issuing, computing and waiting beats blocking, then computing).
Variants: native = MPI_Ialltoall/MPI_Iallreduce; manual = hpcoll progress::manual; never /
outer / inner = no progress call / one after each product / one after each k rows (k =
inner_every); thread = progress::thread (poll=U us: its poll interval); offload = progress::offload."""


def settings_line(s, run):
    return (f"{s.get('reps')} repetitions per measurement; sizes "
            f"{', '.join(human_size(b) for b in s.get('sizes', []))} per rank; inner variants every "
            f"{s.get('inner_every')} row(s); "
            + ("matrix chosen per size so that t_cpu ≈ native t_pure (about "
               f"{s.get('outer_target')} products)" if not s.get("matrix") else f"matrix n = {s['matrix']}")
            + (f"; {s['iters']} products" if s.get("iters") else "")
            + f"; {run.get('mpi', '?')}, {run.get('thread_level', '?')}; {run.get('compiler', '')}")


def markdown(meta, rows, runs, pngs):
    L = bc.report_header("Overlap of nonblocking collectives with computation", meta, rows, runs, settings_line,
                         "sizes and repetitions")
    ncores = meta.get("cores") or bc.cores()
    over = sorted({r["np"] for r in rows if r["np"] > ncores})
    crowded = sorted({r["np"] for r in rows if r["np"] >= ncores})
    if crowded:
        L.append(f"- np {', '.join(map(str, crowded))}: no core is left free on this {ncores}-core machine, so a "
                 "progress thread or offload worker competes with the computation for a core"
                 + (f"; np {', '.join(map(str, over))}: more ranks than cores (oversubscribed, mpi_yield_when_idle)"
                    if over else "") + ".")
    bad = [r for r in rows if not r.get("verified", True)]
    if bad:
        L.append(f"- **{len(bad)} row(s) produced a wrong result** (marked below).")
    L += ["", "## Method", "", METHOD, ""]

    L += ["## Summary", ""]
    g = groups(rows)
    for (np_, coll), by_size in g.items():
        header, speed, ovl = summary_tables((np_, coll), by_size)
        L += [f"### {coll}, np = {np_}: speed-up (t_blk+cpu / t_ovl)", "", md_table(header, speed), ""]
        L += [f"### {coll}, np = {np_}: overlap % (OSU / IMB)", "", md_table(header, ovl), ""]
        png = f"overlap_np{np_}_{coll}.png"
        if png in pngs:
            L += [f"![{coll}, np = {np_}]({png})", ""]

    L += ["## Details", ""]
    for (np_, coll), by_size in g.items():
        L += [f"### {coll}, np = {np_}", ""]
        for b, rs in by_size.items():
            L += [f"#### {coll}, np = {np_}, {human_size(b)}", "", case_line(rs), "", detail_table(rs), ""]
    return "\n".join(L)


def plots(rows, folder):
    plt = bc.pyplot(log)
    if plt is None:
        return []
    written = []
    styles = {"native/never": ("black", ":"), "native/outer": ("black", "--"), "native/inner": ("black", "-"),
              "manual/never": ("tab:blue", ":"), "manual/outer": ("tab:blue", "--"), "manual/inner": ("tab:blue", "-"),
              "thread": ("tab:red", "-"), "offload": ("tab:green", "-")}
    for (np_, coll), by_size in groups(rows).items():
        sizes = list(by_size)
        variants = sorted({r["variant"] for rs in by_size.values() for r in rs}, key=variant_key)
        fig, axes = plt.subplots(1, 3, figsize=(17, 5.2))
        panels = [("overlap_osu_pct", "overlap % (OSU)"), ("overlap_imb_pct", "overlap % (IMB-NBC)"),
                  ("speedup", "speed-up = t_blocking_then_compute / t_ovl")]
        for ax, (field, title) in zip(axes, panels):
            for v in variants:
                pts = [(b, r[field]) for b, rs in by_size.items() for r in rs if r["variant"] == v]
                color, ls = styles.get(v, ("tab:orange", "-."))
                ax.plot([p[0] for p in pts], [p[1] for p in pts], color=color, ls=ls, marker="o", ms=3.5, lw=1.5,
                        label=v)
            ax.set_xscale("log", base=2)
            ax.set_xticks(sizes)
            ax.set_xticklabels([human_size(b) for b in sizes], rotation=45, fontsize=8)
            ax.set_xlabel("bytes per rank")
            ax.set_title(title, fontsize=10)
            ax.grid(True, which="both", alpha=0.3)
            if field == "speedup":
                ax.axhline(1.0, color="grey", lw=1)
            else:
                ax.set_ylim(-3, 103)
        axes[-1].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
        ncores = bc.cores()
        note = (" — no core left for progress threads" if np_ == ncores else
                f" — oversubscribed ({ncores} cores)" if np_ > ncores else "")
        fig.suptitle(f"{coll}, {np_} ranks{note}: nonblocking collective + matrix-vector products "
                     "(t_cpu ≈ native t_pure)", fontsize=11)
        fig.tight_layout()
        path = os.path.join(folder, f"overlap_np{np_}_{coll}.png")
        fig.savefig(path, dpi=100)
        plt.close(fig)
        written.append(path)
    return written


def write_report(folder, meta, no_plots=False):
    rows, runs = load_rows(folder)
    if not rows:
        log.die(f"no hpcoll_overlap rows in {folder} (np*.json)")
    pngs = [] if no_plots else [os.path.basename(p) for p in plots(rows, folder)]
    bc.write_reports(folder, {"meta": meta, "runs": runs, "rows": rows}, markdown(meta, rows, runs, pngs))
    return rows, pngs


def print_summary(rows):
    for (np_, coll), by_size in groups(rows).items():
        header, speed, _ = summary_tables((np_, coll), by_size)
        print(f"\n{coll}, np = {np_}: speed-up = t_blocking_then_compute / t_ovl (> 1: overlap pays)")
        print(bc.text_table(header, speed))


# ---------------------------------------------------------------------------

def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = bc.parser("./hpcoll bench --overlap", __doc__, "What it does:")
    bc.add_run_options(ap, np_help=f"process count (repeatable; default {' '.join(map(str, DEFAULT_NPS))})",
                       quick_help="3 sizes, 11 repetitions",
                       out_help="results folder (default results/overlap-<UTC timestamp>)")
    ap.add_argument("--sizes", metavar="LIST", help="bytes per rank: 1KiB,64KiB,... or MIN:MAX (x4 steps)")
    ap.add_argument("--reps", type=int, metavar="R", help="repetitions (default 101, --quick 11)")
    ap.add_argument("--collectives", metavar="a,b", help="alltoall, allreduce (default both)")
    ap.add_argument("--thread-poll-us", type=int, action="append", metavar="U",
                    help="also run the thread variant with this poll interval (repeatable; default "
                         f"{' '.join(map(str, DEFAULT_POLLS))}; 0 alone: none)")
    ap.add_argument("--matrix", type=int, metavar="N", help="fixed matrix order (default: sized per message size)")
    ap.add_argument("--inner-every", type=int, metavar="K", help="inner variants: a progress call every K rows")
    bc.add_from_options(ap, "rewrite the report of an earlier folder")
    args = bc.parse_run_args(ap, argv, "hpcoll_overlap", paths=("out", "reuse"))

    if args.reuse:
        folder = os.path.abspath(args.reuse)
        if not os.path.isdir(folder):
            log.die(f"no such folder {folder}")
        rows, pngs = write_report(folder, bc.report_meta(folder), args.no_plots)
        print_summary(rows)
        bc.report_written(log, folder, pngs)
        return 0

    if any(u < 0 for u in args.thread_poll_us or []):
        log.die("--thread-poll-us must be >= 0")
    polls = sorted({u for u in (args.thread_poll_us if args.thread_poll_us is not None else DEFAULT_POLLS) if u > 0})
    nps, now, folder, command = bc.start_run(args, log, ["./hpcoll", "bench", "--overlap"], DEFAULT_NPS, 2,
                                             "overlap")
    common = bc.binary_options(args.quick, [("--sizes", args.sizes), ("--reps", args.reps),
                                            ("--collectives", args.collectives), ("--matrix", args.matrix),
                                            ("--inner-every", args.inner_every)])
    log(f"np {', '.join(map(str, nps))}; {'quick; ' if args.quick else ''}progress-thread poll intervals 0"
        + "".join(f", {u}" for u in polls) + f" µs; results in {bc.show(folder)}")
    ncores = bc.cores()
    if any(n >= ncores for n in nps):
        log(f"NOTE: {ncores} cores: at np >= {ncores} a progress thread or offload worker has no core of its own and "
            "competes with the computation; that is part of what is measured")

    t0 = time.monotonic()
    runner = bc.Runner(args.binary, args.mpiexec_flags, folder, log, args.verbose, args.extra)
    for n in nps:
        log(f"np={n}")
        runner.run_json(n, f"np{n}", common, RUN_TIMEOUT)
        for u in polls:
            runner.run_json(n, f"np{n}-poll{u}us", common + ["--variants=thread", f"--thread-poll-us={u}"], RUN_TIMEOUT)
    seconds = time.monotonic() - t0
    failed = runner.failed_names()
    _, runs = load_rows(folder)
    mpi = runs[0].get("mpi") if runs else None
    meta = bc.run_meta(now, command, args, nps, mpi, seconds, failed, thread_poll_us=[0] + polls)
    log(f"runs done in {bc.fmt_seconds(seconds)}")
    if len(failed) == runner.runs:
        log.die("every run failed; no report")
    rows, pngs = write_report(folder, meta, args.no_plots)
    print_summary(rows)
    bc.report_written(log, folder, pngs)
    return bc.run_exit_code(log, failed, rows)


if __name__ == "__main__":
    sys.exit(main())
