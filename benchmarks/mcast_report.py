#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""./hpcoll bench --mcast: the dynamic multicast (hpcoll::Mcast) against MPI_Bcast on
prepared and per-call communicators.

  ./hpcoll bench --mcast [--np N]... [--quick] [--out DIR] [--sizes LIST|MIN:MAX] [--runs N]
                         [--methods a,b] [--trim F] [--from PATH] [--no-plots] [--verbose]
                         [-- extra hpcoll_mcast flags]

What it does:
  runs hpcoll_mcast (benchmarks/mcast.cpp; the method is documented there) under mpiexec once
  per process count (default np 8) into DIR/np<N>.json: master rank 0, groups of r = p/8, p/4,
  p/2 and p-1 members, every method timed from the master's call to the last ack, 100 runs
  per method, group and size, methods interleaved. Then writes DIR/report.md (per p and r: the
  trimmed mean of every method per size, the ratios of mcast to (a) bcast_prepared, (b)
  create_group_bcast and (b') split_bcast, and whether the multicast's goals hold: mcast faster
  than (b) at every size and within 10 % of (a) at every size), DIR/report.json (every row and
  the runs' metadata) and PNG plots (per p: time over size per r; the ratios over size per r).
  DIR defaults to results/mcast-<UTC timestamp>/. --from PATH rewrites the report of an
  earlier folder (its np*.json) or of one hpcoll_mcast JSON file (into --out DIR, else the
  file's folder) without running anything.

  Default: sizes 8 B..8 MiB (x4), 80 kB, 8 MB, 16 MiB; 100 runs after 3 warm-up runs: about
  2 minutes at np 8 on 2 cores. --quick: sizes 8 B, 80 kB, 8 MB; 10 runs: seconds.
"""

import os
import sys
import time

import bench_common as bc
from bench_common import f2, md_table, us

DEFAULT_NPS = [8]
RUN_TIMEOUT = 3600  # seconds per mpiexec; a default run at np 8 on 2 cores takes about 2 minutes
FORMAT = "hpcoll-mcast-1"
METHOD_ORDER = ["bcast_prepared", "create_group_bcast", "split_bcast", "hpcoll_bcast_prepared", "mcast",
                "mcast_binomial", "mcast_scatter_ring", "mcast_scatter_rd", "mcast_linear"]
# The references: mcast against (a), (b) and (b').
REFERENCES = [("bcast_prepared", "(a)"), ("create_group_bcast", "(b)"), ("split_bcast", "(b')")]
WITHIN = 1.10  # goal: mcast within 10 % of (a)

log = bc.Log("bench --mcast")


def method_key(name):
    return (METHOD_ORDER.index(name) if name in METHOD_ORDER else len(METHOD_ORDER), name)


def size_label(b):
    """80 kB and 8 MB in decimal units (the goals' sizes), powers of two in binary ones."""
    b = int(b)  # JSON numbers from hpcoll_mcast are doubles
    if b % 1024 and b % 1000 == 0:
        return f"{b // 1000000} MB" if b % 1000000 == 0 else f"{b // 1000} kB"
    return bc.human_size(b)


# ---------------------------------------------------------------------------
# Loading

def load_file(path):
    """(rows, runs) of one hpcoll_mcast JSON file or of an earlier report.json."""
    doc = bc.load_json(path)
    name = os.path.basename(path)
    if doc.get("format") == FORMAT:
        run = {k: v for k, v in doc.items() if k != "rows"} | {"file": name}
        rows = [dict(r, source=name) for r in doc.get("rows", [])]
        return rows, [run]
    if "rows" in doc and "runs" in doc:
        return doc["rows"], doc["runs"]
    return [], []


def load_rows(path):
    """Every row of the hpcoll_mcast JSON at `path` (a file, or a folder's np*.json), sorted."""
    rows, runs = [], []
    if os.path.isdir(path):
        files = [os.path.join(path, n) for n in sorted(os.listdir(path)) if n.startswith("np") and n.endswith(".json")]
    else:
        files = [path]
    for f in files:
        got_rows, got_runs = load_file(f)
        rows += got_rows
        runs += got_runs
    rows.sort(key=lambda r: (r["p"], r["r"], r["bytes"], method_key(r["method"])))
    return rows, runs


def groups(rows):
    """{p: {r: {bytes: {method: row}}}} in order."""
    out = {}
    for r in rows:
        out.setdefault(r["p"], {}).setdefault(r["r"], {}).setdefault(r["bytes"], {})[r["method"]] = r
    return out


def ratio(cells, ref):
    """mcast's trimmed mean over the reference method's, or None when either is missing."""
    if "mcast" not in cells or ref not in cells:
        return None
    return cells["mcast"]["trimmed_mean_s"] / cells[ref]["trimmed_mean_s"]


# ---------------------------------------------------------------------------
# The report

def goal_sizes(by_size, ref, limit):
    """(sizes where mcast / ref < limit, sizes compared)."""
    met, compared = [], []
    for b, cells in by_size.items():
        q = ratio(cells, ref)
        if q is None:
            continue
        compared.append(b)
        if q < limit:
            met.append(b)
    return met, compared


def sizes_text(met, compared):
    """ "every size" / "no size" / "8 B, 32 B (2 of 14)" / "all but 16 MiB (13 of 14)"."""
    if not compared:
        return "not measured"
    if len(met) == len(compared):
        return f"every size ({len(compared)})"
    if not met:
        return f"no size (0 of {len(compared)})"
    missed = [b for b in compared if b not in met]
    if len(missed) < len(met):
        return f"all but {', '.join(map(size_label, missed))} ({len(met)} of {len(compared)})"
    return f"{', '.join(map(size_label, met))} ({len(met)} of {len(compared)})"


def goal_row(by_size):
    """Per r: [faster than (b), faster than (b'), within 10 % of (a)] as text, and whether all goals hold."""
    faster_b = goal_sizes(by_size, "create_group_bcast", 1.0)
    faster_b2 = goal_sizes(by_size, "split_bcast", 1.0)
    near_a = goal_sizes(by_size, "bcast_prepared", WITHIN)
    ok = all(c and len(m) == len(c) for m, c in (faster_b, faster_b2, near_a))
    return [sizes_text(*faster_b), sizes_text(*faster_b2), sizes_text(*near_a)], ok


def size_table(by_size):
    """Rows: sizes; columns: every method's trimmed mean (µs), mcast's schedule, the three ratios."""
    methods = sorted({m for cells in by_size.values() for m in cells}, key=method_key)
    header = ["size"] + methods + ["mcast schedule"] + [f"mcast/{tag}" for _, tag in REFERENCES]
    rows = []
    for b, cells in by_size.items():
        sched = cells["mcast"].get("schedule") if "mcast" in cells else None
        flag = "" if all(c.get("verified", True) for c in cells.values()) else " **WRONG RESULT**"
        rows.append([size_label(b) + flag] + [us(cells[m]["trimmed_mean_s"]) if m in cells else "—" for m in methods]
                    + [bc.short_name(sched) if sched else "—"] + [f2(ratio(cells, ref)) for ref, _ in REFERENCES])
    return header, rows


def spread_table(by_size):
    """Rows: sizes; columns: every method's median / min (µs)."""
    methods = sorted({m for cells in by_size.values() for m in cells}, key=method_key)
    rows = [[size_label(b)] + [f"{us(cells[m]['median_s'])} / {us(cells[m]['min_s'])}" if m in cells else "—"
                               for m in methods] for b, cells in by_size.items()]
    return ["size"] + methods, rows


def group_title(p, r, by_size):
    members = next(iter(next(iter(by_size.values())).values()))["members"]
    who = "all workers" if r == p - 1 else "members " + "{" + ", ".join(map(str, members)) + "}"
    return f"p = {p}, r = {r} ({who})"


METHOD = """\
Master rank 0; groups of r = p/8, p/4, p/2 and p−1 members (every (p/r)-th rank, all workers:
ranks 1..p−1). Time: the master's steady_clock from its call until it knows every member has
the data; an MPI_Barrier on MPI_COMM_WORLD before every run (not timed); per method, group and
size a few untimed warm-up runs (the first one verified: members check the data, the master
the ack), then the timed runs, the methods interleaved run by run in a new random order.
Tables: trimmed mean in µs (the trim fraction dropped at each end); medians and minima under
Details.
Methods: (a) bcast_prepared = MPI_Bcast + an MPI_Reduce of one int (the ack) on a communicator
of exactly {master} ∪ members made in advance; (b) create_group_bcast = MPI_Comm_create_group
+ the same + MPI_Comm_free per call (group ranks only); (b') split_bcast = MPI_Comm_split on
MPI_COMM_WORLD (every rank) + the same + MPI_Comm_free per call; hpcoll_bcast_prepared =
hpcoll::bcast + hpcoll::reduce ack on a prepared hpcoll::communicator; mcast =
hpcoll::Mcast<schedule::automatic> (members: hpcoll::mcast_recv), mcast_binomial /
mcast_scatter_ring / mcast_scatter_rd / mcast_linear = Mcast with the schedule binomial /
scatter_ring_allgather / scatter_recursive_doubling_allgather / linear forced.
Goals: mcast faster than (b) at every size and within 10 % of (a) at every size;
ratio = mcast's trimmed mean / the reference's (< 1: mcast is faster)."""


def settings_line(s, run):
    return (f"{s.get('runs')} timed runs after {s.get('warmup')} warm-up run(s) per method, group and size; "
            f"trimmed mean drops {s.get('trim')} at each end; sizes {', '.join(size_label(b) for b in s.get('sizes', []))}; "
            f"{run.get('mpi', '?')}; {run.get('compiler', '')}")


def markdown(meta, rows, runs, pngs):
    L = bc.report_header("Dynamic multicast (hpcoll::Mcast)", meta, rows, runs, settings_line, "sizes and runs")
    ncores = meta.get("cores") or (runs[0].get("host_cores") if runs else None) or bc.cores()
    over = sorted({r["p"] for r in rows if r["p"] > ncores})
    if over:
        L.append(f"- p {', '.join(map(str, over))}: more ranks than the {ncores} cores (oversubscribed, "
                 "mpi_yield_when_idle): ranks wait for a core, so times include scheduling delays.")
    bad = [r for r in rows if not r.get("verified", True)]
    if bad:
        L.append(f"- **{len(bad)} row(s) delivered wrong data or a wrong ack** (marked below).")
    L += ["", "## Method", "", METHOD, ""]

    g = groups(rows)
    L += ["## Goals", ""]
    for p, by_r in g.items():
        goal_rows = []
        for r, by_size in by_r.items():
            cells, ok = goal_row(by_size)
            goal_rows.append([str(r)] + cells + ["yes" if ok else "no"])
        L += [f"### p = {p}: sizes where the goal holds", "",
              md_table(["r", "mcast faster than (b)", "mcast faster than (b')",
                                      "mcast within 10 % of (a)", "all goals"], goal_rows), ""]
    L += ["## Trimmed means per group", ""]
    for p, by_r in g.items():
        for png in (f"mcast_np{p}.png", f"mcast_ratio_np{p}.png"):
            if png in pngs:
                L += [f"![p = {p}]({png})", ""]
        for r, by_size in by_r.items():
            header, table = size_table(by_size)
            cells, _ = goal_row(by_size)
            L += [f"### {group_title(p, r, by_size)}", "", md_table(header, table), "",
                  f"mcast is faster than (b) at {cells[0]}, faster than (b') at {cells[1]} and within 10 % of (a) "
                  f"at {cells[2]}.", ""]
    L += ["## Details: median / min (µs)", ""]
    for p, by_r in g.items():
        for r, by_size in by_r.items():
            header, table = spread_table(by_size)
            L += [f"### {group_title(p, r, by_size)}", "", md_table(header, table), ""]
    return "\n".join(L)


STYLES = {"bcast_prepared": ("black", "-", 2.0), "create_group_bcast": ("tab:gray", "-", 2.0),
          "split_bcast": ("tab:brown", "--", 2.0), "hpcoll_bcast_prepared": ("tab:green", "-.", 1.5),
          "mcast": ("tab:red", "-", 2.5), "mcast_binomial": ("tab:blue", ":", 1.5),
          "mcast_scatter_ring": ("tab:purple", ":", 1.5), "mcast_scatter_rd": ("tab:cyan", ":", 1.5)}


def size_axis(ax, sizes):
    """Log scale, a tick per size; no label where it would overlap the previous one (8 MiB after 8 MB)."""
    ax.set_xscale("log")
    ax.set_xticks(sizes)
    labels, last = [], None
    for b in sizes:
        crowded = last is not None and b < 1.5 * last
        labels.append("" if crowded else size_label(b))
        last = last if crowded else b
    ax.set_xticklabels(labels, rotation=60, fontsize=7)
    ax.minorticks_off()
    ax.set_xlabel("message size")
    ax.grid(True, which="major", alpha=0.3)


def ratio_axis(ax, values):
    """Log scale with readable ticks: the powers of 2 around the data."""
    ax.set_yscale("log")
    lo, hi = min(values + [0.9]), max(values + [1.2])
    ticks = [2.0 ** k for k in range(-10, 11) if lo / 2 < 2.0 ** k < hi * 2]
    ax.set_yticks(sorted(ticks))
    ax.set_yticklabels([f"{t:g}" for t in sorted(ticks)], fontsize=8)
    ax.minorticks_off()


def plots(rows, folder):
    plt = bc.pyplot(log)
    if plt is None:
        return []
    written = []
    ncores = bc.cores()
    for p, by_r in groups(rows).items():
        cols = min(2, len(by_r))
        nrows = (len(by_r) + cols - 1) // cols
        fig_t, axes_t = plt.subplots(nrows, cols, figsize=(6.5 * cols + 2.5, 4.6 * nrows), squeeze=False)
        fig_q, axes_q = plt.subplots(nrows, cols, figsize=(6.5 * cols + 2.5, 4.2 * nrows), squeeze=False)
        for i, (r, by_size) in enumerate(by_r.items()):
            ax_t, ax_q = axes_t[i // cols][i % cols], axes_q[i // cols][i % cols]
            sizes = list(by_size)
            methods = sorted({m for cells in by_size.values() for m in cells}, key=method_key)
            for m in methods:
                pts = [(b, cells[m]["trimmed_mean_s"] * 1e6) for b, cells in by_size.items() if m in cells]
                color, ls, lw = STYLES.get(m, ("tab:orange", "-.", 1.5))
                ax_t.plot([x for x, _ in pts], [y for _, y in pts], color=color, ls=ls, lw=lw, marker="o", ms=3,
                          label=m)
            ax_t.set_yscale("log")
            ax_t.set_ylabel("trimmed mean (µs)")
            values = []
            for ref, tag in REFERENCES:
                pts = [(b, q) for b, cells in by_size.items() if (q := ratio(cells, ref)) is not None]
                values += [q for _, q in pts]
                color, ls, lw = STYLES[ref]
                ax_q.plot([x for x, _ in pts], [y for _, y in pts], color=color, ls=ls, lw=lw, marker="o", ms=3,
                          label=f"mcast / {tag} {ref}")
            ax_q.axhline(WITHIN, color="tab:red", ls="--", lw=1, label="1.1: within 10 % of (a)")
            ax_q.axhline(1.0, color="grey", ls="--", lw=1, label="1.0")
            ratio_axis(ax_q, values)
            ax_q.set_ylabel("ratio of trimmed means")
            for ax in (ax_t, ax_q):
                size_axis(ax, sizes)
                ax.set_title(group_title(p, r, by_size), fontsize=9)
        for axes in (axes_t, axes_q):
            for i in range(len(by_r), nrows * cols):
                axes[i // cols][i % cols].set_visible(False)
            axes[0][-1].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
        note = f" — oversubscribed ({ncores} cores)" if p > ncores else ""
        fig_t.suptitle(f"Multicast from rank 0 to r members, {p} ranks{note}: time until the last ack", fontsize=11)
        fig_q.suptitle(f"mcast / (a) prepared MPI_Bcast, (b) MPI_Comm_create_group + MPI_Bcast, (b') "
                       f"MPI_Comm_split + MPI_Bcast; {p} ranks{note}", fontsize=10)
        for fig, name in ((fig_t, f"mcast_np{p}.png"), (fig_q, f"mcast_ratio_np{p}.png")):
            fig.tight_layout()
            path = os.path.join(folder, name)
            fig.savefig(path, dpi=100)
            plt.close(fig)
            written.append(path)
    return written


def write_report(source, folder, meta, no_plots=False):
    rows, runs = load_rows(source)
    if not rows:
        log.die(f"no hpcoll_mcast rows in {source}")
    os.makedirs(folder, exist_ok=True)
    pngs = [] if no_plots else [os.path.basename(p) for p in plots(rows, folder)]
    bc.write_reports(folder, {"meta": meta, "runs": runs, "rows": rows}, markdown(meta, rows, runs, pngs))
    return rows, pngs


def print_summary(rows):
    for p, by_r in groups(rows).items():
        for r, by_size in by_r.items():
            table = [[size_label(b), us(cells["mcast"]["trimmed_mean_s"]) if "mcast" in cells else "—"]
                     + [f2(ratio(cells, ref)) for ref, _ in REFERENCES] for b, cells in by_size.items()]
            cells, ok = goal_row(by_size)
            print(f"\n{group_title(p, r, by_size)}: mcast's trimmed mean (µs) and its ratios "
                  f"(goals: < 1 against (b), (b'); < {WITHIN} against (a)){'' if ok else ' — goals missed'}")
            print(bc.text_table(["size", "mcast"] + [f"/{tag}" for _, tag in REFERENCES], table))


def finish(folder, rows, pngs):
    print_summary(rows)
    bc.report_written(log, folder, pngs)


# ---------------------------------------------------------------------------

def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = bc.parser("./hpcoll bench --mcast", __doc__, "What it does:")
    bc.add_run_options(ap, np_help=f"process count (repeatable; default {' '.join(map(str, DEFAULT_NPS))})",
                       quick_help="3 sizes, 10 runs", out_help="results folder (default results/mcast-<UTC timestamp>)")
    ap.add_argument("--sizes", metavar="LIST", help="bytes: 80kB,8MB,... or MIN:MAX (x4 steps)")
    ap.add_argument("--runs", type=int, metavar="N", help="timed runs (default 100, --quick 10)")
    ap.add_argument("--methods", metavar="a,b", help="only these methods (default all; see benchmarks/mcast.cpp)")
    ap.add_argument("--trim", type=float, metavar="F", help="fraction dropped at each end (default 0.1)")
    bc.add_from_options(ap, "rewrite the report of an earlier folder or hpcoll_mcast JSON file", "PATH")
    args = bc.parse_run_args(ap, argv, "hpcoll_mcast", paths=("out", "reuse"))

    if args.reuse:
        source = os.path.abspath(args.reuse)
        if not os.path.exists(source):
            log.die(f"no such file or folder {source}")
        folder = os.path.abspath(args.out) if args.out else source if os.path.isdir(source) else os.path.dirname(source)
        rows, pngs = write_report(source, folder, bc.report_meta(folder), args.no_plots)
        finish(folder, rows, pngs)
        return 0

    nps, now, folder, command = bc.start_run(args, log, ["./hpcoll", "bench", "--mcast"], DEFAULT_NPS, 2, "mcast")
    common = bc.binary_options(args.quick, [("--sizes", args.sizes), ("--runs", args.runs),
                                            ("--methods", args.methods), ("--trim", args.trim)])
    log(f"np {', '.join(map(str, nps))}; {'quick; ' if args.quick else ''}results in {bc.show(folder)}")
    ncores = bc.cores()
    if any(n > ncores for n in nps):
        log(f"NOTE: np > {ncores} cores: oversubscribed; the report says so next to those times")

    t0 = time.monotonic()
    runner = bc.Runner(args.binary, args.mpiexec_flags, folder, log, args.verbose, args.extra)
    for n in nps:
        log(f"np={n}")
        runner.run_json(n, f"np{n}", common, RUN_TIMEOUT)
    seconds = time.monotonic() - t0
    failed = runner.failed_names()
    _, runs = load_rows(folder)
    mpi = runs[0].get("mpi") if runs else None
    meta = bc.run_meta(now, command, args, nps, mpi, seconds, failed)
    log(f"runs done in {bc.fmt_seconds(seconds)}")
    if len(failed) == len(nps):
        log.die("every run failed; no report")
    rows, pngs = write_report(folder, folder, meta, args.no_plots)
    finish(folder, rows, pngs)
    return bc.run_exit_code(log, failed, rows)


if __name__ == "__main__":
    sys.exit(main())
