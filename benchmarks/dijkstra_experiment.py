#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""./hpcoll bench --dijkstra: the parallel Dijkstra of apps/dijkstra with every schedule forced, its
delta-stepping and the peers (docs/dijkstra.md).

  ./hpcoll bench --dijkstra [--np N]... [--graphs seto,cal] [--repeat K] [--only PATTERN]... [--quick] [--out DIR] [--from DIR]

What it does:
  runs hpcoll_dijkstra --solver dijkstra (one settled vertex per step: an allreduce, an
  alltoall and an alltoallv per step) under mpiexec at each np (default 1 to 8) on each
  generated graph (default seto, 58,168 nodes) in these configurations, each its own run:
    dispatcher            hpcoll, the dispatcher chooses every schedule;
    allreduce=S           hpcoll with allreduce schedule S forced (--allreduce S), one per
    alltoall=S, alltoallv=S   candidate of the dispatcher, the other collectives dispatched;
    native                the MPI library's collectives (--collectives native), its own choices;
    native allreduce=N    Open MPI's coll_tuned algorithm N forced (mpiexec --mca
    native alltoall=N,    coll_tuned_use_dynamic_rules 1 --mca coll_tuned_<collective>_algorithm N):
    native alltoallv=N    allreduce 1-6, alltoall 1-4 (5, two_proc, at np 2 only), alltoallv 1-2.
  and next to them, in the same rounds, delta-stepping and its peers on the same graph:
    delta                 hpcoll_dijkstra --solver delta, the dispatcher (its default delta,
                          4 x the mean arc weight);
    delta native          the same with the MPI library's collectives;
    bgl dijkstra          Boost.Graph's Dijkstra (hpcoll_dijkstra_bgl, one core: at np 1 only,
                          without mpiexec), the reference of the table;
    pbgl delta            the Parallel BGL's delta-stepping (hpcoll_dijkstra_pbgl) with its own delta;
    pbgl delta Δ=D        the same with delta D: hpcoll's default delta, half and twice it (hpcoll's
                          default is read from one hpcoll_dijkstra --solver delta run per graph first).
  The peers are apps/dijkstra/peers' programs next to the binary (peers/); one that is not built
  (its Boost package missing) is left out, and the report says so.
  The candidates come from hpcoll_dijkstra itself (its error message for an unknown schedule).
  Every run has HPCOLL_MACHINE, HPCOLL_TUNING and every HPCOLL_<COLLECTIVE> unset. A run's time
  is the solver's on the slowest rank (the summary's "solve", max, from --json); each
  configuration runs --repeat times (default 3) per np, in rounds (every configuration once, then
  again), and the report takes the median. Every run must give the same checksum as the others
  on its graph, and a forced schedule must be the one the summary says ran, or the report fails.
  np <= cores: --bind-to core; more ranks than cores: oversubscribed (Open MPI:
  --oversubscribe --bind-to none --mca mpi_yield_when_idle 1).

  Then writes DIR/report.md, DIR/report.json and DIR/<graph>-<figure>.png (DIR defaults to
  results/dijkstra-<UTC>/): per graph three tables of median solve time (ms) against np, one row
  per configuration, the fastest per np in bold: allreduce (hpcoll's schedules, Open MPI's
  algorithms), alltoall and alltoallv (likewise), and the summary (dispatcher, best forced hpcoll
  schedule, native default, best forced Open MPI algorithm) with dispatcher ÷ best forced hpcoll
  schedule and dispatcher ÷ native default per np (< 1: the dispatcher is faster); and "Δ-stepping
  and peers": delta, delta native, the Parallel BGL's and Boost.Graph's times (the fastest per np
  in bold) with delta ÷ the best Parallel BGL configuration, dijkstra's dispatcher ÷ delta and
  delta ÷ Boost.Graph's one-core Dijkstra per np. --from DIR
  rewrites the report from DIR/report.json without running anything.

  Times: on the 2-core VM of docs/dijkstra.md one run on seto takes about 0.3 s at np 1 to 2 s at
  np 4 (mpiexec's start included). `cal` (1.9 million nodes) makes the parallel Dijkstra 5.7
  million collective calls: one run at np 2 took 3.4 s (2.6 s solving), an oversubscribed one
  would take tens of seconds, times some 28 dijkstra configurations and the repetitions (a peer
  run on cal is short: single runs took 1.1 s for Boost.Graph's and 3.1 s for the Parallel BGL's
  at np 2, generation included): ask for it explicitly (--graphs seto,cal --np 1 --np 2).
  --only PATTERN (repeatable): only the configurations whose name matches one of the shell
  wildcards, e.g. --only dispatcher --only native --only 'allreduce=*' --only 'delta*'
  --only '*bgl*'; a subset for the oversubscribed np on cal, where every configuration costs
  minutes.
  --quick: a generated graph of 300 nodes, one repetition: a check that everything runs, not a
  measurement.
"""

import fnmatch
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import time

import bench_common as bc

FORMAT = "hpcoll-dijkstra-experiment-1"
DEFAULT_NPS = list(range(1, 9))
GRAPHS = ("seto", "cal")  # usa: 72 million collective calls per run, out of reach of this experiment
QUICK_GRAPH = "300"
COLLECTIVES = ("allreduce", "alltoall", "alltoallv")
# Open MPI 4.1's coll_tuned algorithms (ompi_info --param coll tuned --level 9), by number.
OPEN_MPI_ALGORITHMS = {
    "allreduce": {1: "basic_linear", 2: "nonoverlapping", 3: "recursive_doubling", 4: "ring", 5: "segmented_ring",
                  6: "rabenseifner"},
    "alltoall": {1: "linear", 2: "pairwise", 3: "modified_bruck", 4: "linear_sync", 5: "two_proc"},
    "alltoallv": {1: "basic_linear", 2: "pairwise"},
}
TWO_PROC_ONLY = ("alltoall", 5)  # Open MPI's two_proc alltoall serves 2 ranks only
# The report's figures: a name (of the PNG, and for figure_rows) and a title.
FIGURES = (("allreduce", "allreduce: hpcoll's schedules and Open MPI's algorithms forced"),
           ("alltoall", "alltoall and alltoallv: hpcoll's schedules and Open MPI's algorithms forced"),
           ("summary", "dispatcher, native default and the best forced schedule"))
# The peers (apps/dijkstra/peers), by program name, beside hpcoll_dijkstra in the build tree.
PEERS = {"bgl": os.path.join("peers", "hpcoll_dijkstra_bgl"), "pbgl": os.path.join("peers", "hpcoll_dijkstra_pbgl")}
# The Parallel BGL's forced deltas: hpcoll's default delta times these.
PBGL_DELTA_FACTORS = (0.5, 1, 2)
# The table "Δ-stepping and peers": the configurations that are neither a forced schedule nor native.
DELTA_CONFIGS = ("delta", "delta native")
PEER_PREFIXES = ("bgl ", "pbgl ")
PEERS_TITLE = "Δ-stepping and peers"
OVERRIDES = ("HPCOLL_MACHINE", "HPCOLL_TUNING", "HPCOLL_VERBOSE") + tuple(f"HPCOLL_{c.upper()}" for c in COLLECTIVES)

log = bc.Log("bench --dijkstra")


# ---------------------------------------------------------------------------
# Configurations

def split_names(text):
    """'a, b<c, d>, e' -> ['a', 'b<c, d>', 'e']: commas inside template arguments stay."""
    names, depth, current = [], 0, ""
    for ch in text:
        depth += (ch == "<") - (ch == ">")
        if ch == "," and depth == 0:
            names.append(current.strip())
            current = ""
        else:
            current += ch
    return names + [current.strip()] if current.strip() else names


def parse_candidates(message, collective):
    """The candidate list of hpcoll_dijkstra's error for an unknown --<collective> schedule."""
    found = re.search(rf"is not a schedule of {collective} \(candidates: (.*)\) \(see --help\)", message)
    if not found:
        raise ValueError(f"no candidate list for {collective} in: {message.strip()}")
    return split_names(found.group(1))


def candidates(binary):
    """Per collective, the schedules the dispatcher offers, as hpcoll_dijkstra lists them (one
    process, no mpiexec: the option error comes before any message)."""
    out = {}
    for collective in COLLECTIVES:
        proc = subprocess.run([binary, "--generate", "10", f"--{collective}", "?"], capture_output=True, text=True,
                              env=dict(os.environ, **bc.MPI_ENV), timeout=60)
        out[collective] = parse_candidates(proc.stderr, collective)
    return out


def pbgl_deltas(hpcoll_delta):
    """The Parallel BGL's forced deltas: hpcoll's default delta times PBGL_DELTA_FACTORS, at least 1, no repeats."""
    deltas = []
    for factor in PBGL_DELTA_FACTORS:
        delta = max(1, int(hpcoll_delta * factor))
        if delta not in deltas:
            deltas.append(delta)
    return deltas


def configurations(schedules, np_, peers=(), deltas=()):
    """(name, program, program options, mpiexec options) of every configuration at np_. program:
    "dijkstra" or "delta" (hpcoll_dijkstra --solver that), or a peer of `peers` ("bgl": at np 1
    only; "pbgl": its own delta, then each of `deltas`)."""
    configs = [("dispatcher", "dijkstra", [], [])]
    for collective in COLLECTIVES:
        configs += [(f"{collective}={s}", "dijkstra", [f"--{collective}", s], []) for s in schedules[collective]]
    configs.append(("native", "dijkstra", ["--collectives", "native"], []))
    for collective, algorithms in OPEN_MPI_ALGORITHMS.items():
        for number in algorithms:
            if (collective, number) == TWO_PROC_ONLY and np_ != 2:
                continue
            configs.append((f"native {collective}={number}", "dijkstra", ["--collectives", "native"],
                            ["--mca", "coll_tuned_use_dynamic_rules", "1",
                             "--mca", f"coll_tuned_{collective}_algorithm", str(number)]))
    configs += [("delta", "delta", [], []), ("delta native", "delta", ["--collectives", "native"], [])]
    if "bgl" in peers and np_ == 1:
        configs.append(("bgl dijkstra", "bgl", [], []))
    if "pbgl" in peers:
        configs.append(("pbgl delta", "pbgl", [], []))
        configs += [(f"pbgl delta Δ={d}", "pbgl", ["--delta", str(d)], []) for d in deltas]
    return configs


def family(config):
    """'hpcoll allreduce', 'native alltoall' (forced), 'dispatcher', 'native', 'delta' (hpcoll's
    delta-stepping), 'bgl', 'pbgl' (the peers)."""
    if config in ("dispatcher", "native"):
        return config
    if config in DELTA_CONFIGS:
        return "delta"
    if config.startswith(PEER_PREFIXES):
        return config.split()[0]
    if config.startswith("native "):
        return "native " + config[len("native "):].split("=")[0]
    return "hpcoll " + config.split("=")[0]


def peers_label(config):
    """label() in the table and figure "Δ-stepping and peers", where dijkstra's dispatcher is named by its solver."""
    return "dijkstra (dispatcher)" if config == "dispatcher" else label(config)


def forced(config, native):
    """Whether config forces one of hpcoll's schedules (native False) or of Open MPI's algorithms (True)."""
    return family(config).startswith("native " if native else "hpcoll ")


def label(config):
    """A configuration as the tables name it: Open MPI's algorithms by number and name, the peers by library."""
    if config.startswith("native ") and "=" in config:
        collective, number = config[len("native "):].split("=")
        return f"Open MPI {collective} {number} ({OPEN_MPI_ALGORITHMS[collective][int(number)]})"
    if config == "native":
        return "Open MPI default"
    if config == "bgl dijkstra":
        return "Boost.Graph dijkstra (one core)"
    if config.startswith("pbgl delta"):
        return "Parallel BGL delta" + config[len("pbgl delta"):] + ("" if "=" in config else " (its default Δ)")
    return config


# ---------------------------------------------------------------------------
# Results: rows {graph, np, config, seconds: [...], checksum, schedules, native_algorithms}

def median_ms(row):
    return statistics.median(row["seconds"]) * 1e3


def fmt_ms(ms):
    """Three significant digits or so: 0.35, 8.42, 96.4, 1204.7; '-' for none."""
    if ms is None:
        return "-"
    return f"{ms:.2f}" if ms < 10 else f"{ms:.1f}"


def by_key(rows):
    return {(r["graph"], r["np"], r["config"]): r for r in rows}


def problems(rows):
    """Wrong results: a checksum that differs from its graph's others, a forced schedule that did
    not run. Empty: none."""
    out = []
    for graph in sorted({r["graph"] for r in rows}):
        sums = {}
        for r in rows:
            if r["graph"] == graph:
                for checksum in r["checksums"]:
                    sums.setdefault(checksum, []).append(f"{r['config']} at np {r['np']}")
        if len(sums) > 1:
            out.append(f"{graph}: the runs disagree on the distances: " +
                       "; ".join(f"{c} in {', '.join(w[:3])}" for c, w in sums.items()))
    for r in rows:
        if forced(r["config"], native=False):
            collective, schedule = r["config"].split("=", 1)
            ran = [s for s in r["schedules"] if s["collective"] == collective]
            if [s["schedule"] for s in ran] != [schedule]:
                out.append(f"{r['graph']} np {r['np']} {r['config']}: the summary says {collective} ran "
                           f"{', '.join(s['schedule'] for s in ran) or 'nothing'}")
        if r["config"] == "native" and any(r["native_algorithms"].values()):
            out.append(f"{r['graph']} np {r['np']} native: an Open MPI algorithm was forced "
                       f"({r['native_algorithms']}): OMPI_MCA_coll_tuned_* in the environment?")
        if forced(r["config"], native=True):
            collective, number = r["config"][len("native "):].split("=")
            if r["native_algorithms"].get(collective) != int(number):
                out.append(f"{r['graph']} np {r['np']} {r['config']}: the program saw algorithm "
                           f"{r['native_algorithms'].get(collective)} forced")
    return out


def figure_rows(rows, graph, figure):
    """The configurations of one figure, in table order."""
    configs = []
    for r in rows:
        if r["graph"] == graph and r["config"] not in configs:
            configs.append(r["config"])
    if figure == "allreduce":
        wanted = ("hpcoll allreduce", "native allreduce")
    elif figure == "alltoall":
        wanted = ("hpcoll alltoall", "hpcoll alltoallv", "native alltoall", "native alltoallv")
    elif figure == "peers":
        # dijkstra's dispatcher (where it ran) for the ratio dispatcher ÷ delta; none where no delta or peer ran.
        peers = [c for c in configs if family(c) in ("delta", "bgl", "pbgl")]
        return [c for c in configs if c == "dispatcher"] + peers if peers else []
    else:
        return []
    return ["dispatcher", "native"] + [c for c in configs if family(c) in wanted]


def best(rows, graph, np_, forced_native):
    """The fastest forced configuration at np_ (hpcoll's schedules, or Open MPI's algorithms): (config, ms)."""
    found = [(median_ms(r), r["config"]) for r in rows
             if r["graph"] == graph and r["np"] == np_ and forced(r["config"], forced_native)]
    return (min(found)[1], min(found)[0]) if found else (None, None)


def summary(rows, graph):
    """Per np: dispatcher, best forced hpcoll schedule, native default, best forced Open MPI
    algorithm (ms, config) and the two ratios."""
    keyed = by_key(rows)
    out = []
    for np_ in sorted({r["np"] for r in rows if r["graph"] == graph}):
        def ms(config):
            row = keyed.get((graph, np_, config))
            return median_ms(row) if row else None
        hp_config, hp_ms = best(rows, graph, np_, forced_native=False)
        nat_config, nat_ms = best(rows, graph, np_, forced_native=True)
        dispatcher, native = ms("dispatcher"), ms("native")
        # The spread of the dispatcher's own runs: how far apart runs of one configuration are.
        runs = keyed.get((graph, np_, "dispatcher"), {}).get("seconds", [])
        spread = [min(runs) * 1e3, max(runs) * 1e3] if runs else None
        # A forced schedule can be the one the dispatcher chose: then their difference is noise.
        dispatcher_row, best_row = keyed.get((graph, np_, "dispatcher")), keyed.get((graph, np_, hp_config))
        same = bool(dispatcher_row and best_row and dispatcher_row["schedules"] == best_row["schedules"])
        out.append({"np": np_, "dispatcher_ms": dispatcher, "dispatcher_range_ms": spread, "best_hpcoll": hp_config,
                    "best_hpcoll_ms": hp_ms, "best_hpcoll_runs_dispatchers_schedules": same,
                    "native_ms": native, "best_native": nat_config, "best_native_ms": nat_ms,
                    "dispatcher_over_best_hpcoll": dispatcher / hp_ms if dispatcher and hp_ms else None,
                    "dispatcher_over_native": dispatcher / native if dispatcher and native else None})
    return out


def peers_summary(rows, graph):
    """Per np: delta, delta native, the best Parallel BGL configuration, dijkstra's dispatcher and
    Boost.Graph's one-core Dijkstra (np 1's, the reference at every np), in ms, and the ratios
    delta ÷ best Parallel BGL (< 1: hpcoll's delta-stepping is faster), dispatcher ÷ delta (the
    speed-up of delta-stepping over one vertex per step) and delta ÷ Boost.Graph. Empty without
    delta-stepping or peer runs."""
    keyed = by_key(rows)

    def ms(np_, config):
        row = keyed.get((graph, np_, config))
        return median_ms(row) if row else None

    def ratio(a, b):
        return a / b if a and b else None

    out = []
    bgl = ms(1, "bgl dijkstra")
    for np_ in sorted({r["np"] for r in rows if r["graph"] == graph and family(r["config"]) in ("delta", "pbgl")}):
        pbgl = sorted((median_ms(r), r["config"]) for r in rows
                      if r["graph"] == graph and r["np"] == np_ and family(r["config"]) == "pbgl")
        best_pbgl_ms, best_pbgl = pbgl[0] if pbgl else (None, None)
        delta, dispatcher = ms(np_, "delta"), ms(np_, "dispatcher")
        out.append({"np": np_, "delta_ms": delta, "delta_native_ms": ms(np_, "delta native"),
                    "best_pbgl": best_pbgl, "best_pbgl_ms": best_pbgl_ms, "dispatcher_ms": dispatcher,
                    "bgl_ms": bgl, "delta_over_best_pbgl": ratio(delta, best_pbgl_ms),
                    "dispatcher_over_delta": ratio(dispatcher, delta), "delta_over_bgl": ratio(delta, bgl)})
    return out


def dispatched_schedules(rows, graph, np_):
    """What the dispatcher chose at np_: 'allreduce recursive_doubling; alltoall linear; ...'."""
    row = by_key(rows).get((graph, np_, "dispatcher"))
    if not row:
        return "?"
    return "; ".join(f"{s['collective']} {s['schedule']}" for s in row["schedules"])


def time_table(rows, graph, configs, nps, name=label):
    """Rows of median ms per np, the fastest per np in bold; name(config) heads each row."""
    keyed = by_key(rows)
    fastest = {}
    for np_ in nps:
        times = [(median_ms(keyed[(graph, np_, c)]), c) for c in configs if (graph, np_, c) in keyed]
        if times:
            fastest[np_] = min(times)[1]
    table = []
    for c in configs:
        cells = [name(c)]
        for np_ in nps:
            row = keyed.get((graph, np_, c))
            text = fmt_ms(median_ms(row)) if row else ""
            cells.append(f"**{text}**" if row and fastest.get(np_) == c else text)
        table.append(cells)
    return table


def report_lines(meta, rows, trouble):
    ncores = meta.get("cores") or bc.cores()
    L = bc.report_opening("The parallel Dijkstra with every schedule forced", meta)
    L.append(f"- Date: {meta.get('date', '?')}; load average before {meta.get('load_before', '?')}, "
             f"after {meta.get('load_after', '?')}")
    L.append(f"- Each cell: the median of {meta.get('repeat', '?')} run(s) of the solver's time on the slowest rank "
             "(`solve`, max), in ms; bold: the fastest of its column.")
    for np_ in meta.get("nps", []):
        L.append(f"- np {np_}: {bc.placement(np_, ncores)} (`{meta.get('flags', {}).get(str(np_), '')}`)")
    if meta.get("seconds") is not None:
        L.append(f"- Duration: {bc.fmt_seconds(meta['seconds'])}")
    if meta.get("quick"):
        L.append("- **--quick run**: a 300-node graph, one run each; a check that everything runs, not a measurement.")
    if meta.get("failed"):
        L.append(f"- **Failed runs**: {', '.join(meta['failed'])}")
    if trouble:
        L += ["", "**Wrong results:**", ""] + [f"- {t}" for t in trouble]
    L.append("")
    for graph in sorted({r["graph"] for r in rows}, key=lambda g: (g not in GRAPHS, g)):
        nps = sorted({r["np"] for r in rows if r["graph"] == graph})
        header = ["configuration"] + [f"np {n}" for n in nps]
        L += [f"## {graph}", ""]
        for figure, title in FIGURES[:2]:
            L += [f"### {title}", "", bc.md_table(header, time_table(rows, graph, figure_rows(rows, graph, figure),
                                                                     nps)), ""]
        L += [f"### {FIGURES[2][1]}", ""]
        lines = []
        for s in summary(rows, graph):
            spread = s["dispatcher_range_ms"]
            lines.append([s["np"], fmt_ms(s["dispatcher_ms"]) + (f" ({fmt_ms(spread[0])}–{fmt_ms(spread[1])})"
                                                                  if spread else ""), f"{fmt_ms(s['best_hpcoll_ms'])} ({s['best_hpcoll']}"
                          + ("; the dispatcher's schedules" if s["best_hpcoll_runs_dispatchers_schedules"] else "") + ")",
                          fmt_ms(s["native_ms"]),
                          f"{fmt_ms(s['best_native_ms'])} ({label(s['best_native']) if s['best_native'] else '-'})",
                          bc.f2(s["dispatcher_over_best_hpcoll"]), bc.f2(s["dispatcher_over_native"])])
        L += [bc.md_table(["np", "dispatcher ms (range)", "best forced hpcoll ms", "native default ms",
                           "best forced Open MPI ms", "dispatcher ÷ best hpcoll", "dispatcher ÷ native"], lines), ""]
        L += ["The dispatcher's choices: " + "; ".join(f"np {n}: {dispatched_schedules(rows, graph, n)}"
                                                        for n in nps) + ".", ""]
        L += peers_lines(rows, graph, nps, meta)
    return L


def peers_lines(rows, graph, nps, meta):
    """The section "Δ-stepping and peers" of a graph: times per np, then the ratios per np."""
    configs = figure_rows(rows, graph, "peers")
    if not configs:
        return []
    table = time_table(rows, graph, configs, nps, peers_label)
    L = [f"### {PEERS_TITLE}", ""]
    for peer, missing in sorted(meta.get("peers_missing", {}).items()):
        L.append(f"- Left out: {peer} ({missing}).")
    deltas = sorted({r["delta"] for r in rows if r["graph"] == graph and r["config"] == "delta" and r.get("delta")})
    pbgl_default = sorted({r["delta"] for r in rows
                           if r["graph"] == graph and r["config"] == "pbgl delta" and r.get("delta")})
    if deltas or pbgl_default:
        L.append(f"- Δ: hpcoll's default {', '.join(map(str, deltas)) or '-'} (4 × the mean arc weight); the "
                 f"Parallel BGL's default {', '.join(map(str, pbgl_default)) or '-'} (the largest arc weight ÷ the "
                 "largest out-degree).")
    L.append("- Boost.Graph's Dijkstra is a one-core program: it runs in the np 1 rounds only, without mpiexec; "
             "its time is the reference of the last ratio at every np.")
    L += ["", bc.md_table(["configuration"] + [f"np {n}" for n in nps], table), ""]
    lines = [[s["np"], fmt_ms(s["delta_ms"]), f"{fmt_ms(s['best_pbgl_ms'])} ({label(s['best_pbgl']) if s['best_pbgl'] else '-'})",
              fmt_ms(s["dispatcher_ms"]), bc.f2(s["delta_over_best_pbgl"]), bc.f2(s["dispatcher_over_delta"]),
              bc.f2(s["delta_over_bgl"])] for s in peers_summary(rows, graph)]
    L += [bc.md_table(["np", "delta ms", "best Parallel BGL ms", "dijkstra (dispatcher) ms",
                       "delta ÷ best Parallel BGL", "dijkstra ÷ delta", "delta ÷ Boost.Graph (one core)"], lines), ""]
    return L


def plot(folder, rows, complain):
    """One PNG per graph and figure: time against np, one line per configuration."""
    plt = bc.pyplot(complain)
    if plt is None:
        return []
    keyed = by_key(rows)
    written = []
    for graph in sorted({r["graph"] for r in rows}):
        nps = sorted({r["np"] for r in rows if r["graph"] == graph})
        for figure, title in FIGURES[:2] + (("peers", PEERS_TITLE),):
            if not figure_rows(rows, graph, figure):
                continue
            name = peers_label if figure == "peers" else label
            fig, ax = plt.subplots(figsize=(9, 6))
            for c in figure_rows(rows, graph, figure):
                points = [(n, median_ms(keyed[(graph, n, c)])) for n in nps if (graph, n, c) in keyed]
                main_line = family(c) in ("dispatcher", "native", "delta")
                style = "-" if main_line else ("--" if c.startswith("native") else ":")
                ax.plot([p[0] for p in points], [p[1] for p in points], style, marker="o", label=name(c),
                        linewidth=2.5 if main_line else 1.2)
            ax.set_xlabel("np (processes; more than the cores: oversubscribed)")
            ax.set_ylabel("solve time, slowest rank, median (ms)")
            ax.set_yscale("log")
            ax.set_xticks(nps)
            ax.set_title(f"{graph}: {title}", fontsize=10)
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=7)
            name = f"{graph}-{figure}.png"
            fig.savefig(os.path.join(folder, name), dpi=110, bbox_inches="tight")
            plt.close(fig)
            written.append(name)
    return written


def write_report(folder, meta, rows, plots=True):
    """report.md, report.json and the plots; 1 if a result was wrong or a run failed, else 0."""
    trouble = problems(rows)
    report = {"format": FORMAT, "meta": meta, "rows": rows,
              "summary": {g: summary(rows, g) for g in sorted({r["graph"] for r in rows})},
              "peers_summary": {g: peers_summary(rows, g) for g in sorted({r["graph"] for r in rows})},
              "problems": trouble}
    return bc.write_checked_report(log, folder, report, "\n".join(report_lines(meta, rows, trouble)),
                                   lambda: plot(folder, rows, log) if plots else [])


def read_report(folder):
    """(meta, rows) of an earlier folder's report.json."""
    doc = bc.read_report_of(log, folder, FORMAT, "./hpcoll bench --dijkstra")
    return doc["meta"], doc["rows"]


# ---------------------------------------------------------------------------
# Running

def load_average():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"


def program_command(binaries, program, graph, program_options):
    """The command line of one run without mpiexec: hpcoll_dijkstra --solver dijkstra|delta, or a peer."""
    if program in ("dijkstra", "delta"):
        return [binaries["hpcoll"], "--generate", graph, "--solver", program] + program_options
    return [binaries[program], "--generate", graph] + program_options


def run_once(binaries, np_, flags, graph, program, program_options, mca, folder, name, commands, verbose):
    """One run: (solve seconds, checksum text, schedules, native algorithms, delta), or None if it
    failed. Boost.Graph's one-core program runs without mpiexec."""
    out_json = os.path.join(folder, "runs", f"{name}.json")
    cmd = program_command(binaries, program, graph, program_options) + ["--json", out_json]
    if program != "bgl":
        cmd = ["mpiexec", "-n", str(np_)] + shlex.split(flags) + mca + cmd
    rc, _ = bc.run_logged(cmd, os.path.join(folder, "runs", f"{name}.log"), commands, name, timeout=600,
                            echo=verbose)
    if rc != 0:
        return None
    with open(out_json) as f:
        doc = json.load(f)
    c = doc["checksum"]
    return (doc["seconds"]["solve"]["max"], f"reachable={c['reachable']} sum={c['sum']} max={c['max']}",
            doc.get("schedules", []), doc.get("native_algorithms", {}), doc.get("delta"))


def find_peers(binary):
    """The peers' binaries beside hpcoll_dijkstra's ({program: path}) and the missing ones ({program: why})."""
    found, missing = {}, {}
    for program, relative in PEERS.items():
        path = os.path.join(os.path.dirname(os.path.abspath(binary)), relative)
        if os.access(path, os.X_OK):
            found[program] = path
        else:
            missing[program] = f"{path} is not built: its Boost package is missing (./hpcoll deps)"
    return found, missing


def hpcoll_default_delta(binary, graph, folder, commands):
    """hpcoll_dijkstra's default delta on the graph (its --json's "delta"), from one --solver delta
    run on one process, without mpiexec."""
    out_json = os.path.join(folder, "runs", f"{graph}-default-delta.json")
    rc, _ = bc.run_logged([binary, "--generate", graph, "--solver", "delta", "--json", out_json],
                          os.path.join(folder, "runs", f"{graph}-default-delta.log"), commands,
                          f"{graph}-default-delta", timeout=600)
    if rc != 0:
        log.die(f"hpcoll_dijkstra --generate {graph} --solver delta failed: see {folder}/runs/{graph}-default-delta.log")
    with open(out_json) as f:
        return json.load(f)["delta"]


def run_all(args, nps, graphs, folder):
    schedules = candidates(args.binary)
    peers, peers_missing = find_peers(args.binary)
    for program, why in sorted(peers_missing.items()):
        log(f"left out: {program} ({why})")
    binaries = dict(peers, hpcoll=args.binary)
    open_mpi = bc.is_open_mpi()
    if not open_mpi:
        log.die("the forced algorithms are Open MPI's coll_tuned parameters: mpiexec is not Open MPI's")
    for variable in OVERRIDES:
        os.environ.pop(variable, None)
    os.makedirs(os.path.join(folder, "runs"), exist_ok=True)
    rows, failed = {}, []
    flags = {str(n): bc.timing_flags(n, open_mpi) for n in nps}
    with open(os.path.join(folder, "commands.txt"), "w") as commands:
        for graph in graphs:
            deltas = pbgl_deltas(hpcoll_default_delta(args.binary, graph, folder, commands)) if "pbgl" in peers else []
            for np_ in nps:
                configs = [c for c in configurations(schedules, np_, peers, deltas)
                           if not args.only or any(fnmatch.fnmatchcase(c[0], p) for p in args.only)]
                if not configs:
                    log.die(f"--only {' '.join(args.only)}: no configuration at np {np_} matches")
                log(f"{graph}, np {np_}: {len(configs)} configurations x {args.repeat}")
                for repetition in range(args.repeat):
                    for config, program, program_options, mca in configs:
                        name = re.sub(r"[^A-Za-z0-9_.=-]+", "_", f"{graph}-np{np_}-{config}-{repetition + 1}")
                        result = run_once(binaries, np_, flags[str(np_)], graph, program, program_options, mca,
                                          folder, name, commands, args.verbose)
                        if result is None:
                            failed.append(name)
                            continue
                        seconds, checksum, ran, algorithms, delta = result
                        row = rows.setdefault((graph, np_, config), {
                            "graph": graph, "np": np_, "config": config, "seconds": [], "checksums": [],
                            "schedules": [{"collective": s["collective"], "schedule": s["schedule"]} for s in ran],
                            "native_algorithms": algorithms, "delta": delta})
                        row["seconds"].append(seconds)
                        if checksum not in row["checksums"]:
                            row["checksums"].append(checksum)
    return list(rows.values()), failed, flags, peers_missing


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    ap = bc.parser("./hpcoll bench --dijkstra", __doc__, "What it does:")
    bc.add_run_options(ap, np_help="process count (repeatable; default 1 to 8)",
                       quick_help="a 300-node graph, one run per configuration: seconds",
                       out_help="results folder (default results/dijkstra-<UTC>/)")
    ap.add_argument("--graphs", default=None, metavar="a,b",
                    help=f"generated presets, comma-separated: {', '.join(GRAPHS)} (default seto)")
    ap.add_argument("--repeat", type=int, default=None, metavar="K", help="runs per configuration and np (default 3)")
    ap.add_argument("--only", action="append", default=[], metavar="PATTERN",
                    help="run only the configurations whose name matches PATTERN (shell wildcards; repeatable), "
                         "e.g. --only dispatcher --only native --only 'allreduce=*'")
    bc.add_from_options(ap, "rewrite the report of an earlier --out DIR from its report.json")
    args = bc.parse_app_run_args(ap, argv, "dijkstra", "hpcoll_dijkstra")
    if args.reuse:
        meta, rows = read_report(args.reuse)
        return write_report(args.reuse, meta, rows, plots=not args.no_plots)
    if args.quick and args.graphs:
        log.die("--quick runs its own small graph: not with --graphs")
    graphs = [QUICK_GRAPH] if args.quick else (args.graphs or "seto").split(",")
    unknown = [g for g in graphs if g not in GRAPHS and not args.quick]
    if unknown:
        log.die(f"--graphs: unknown {', '.join(unknown)} (one of {', '.join(GRAPHS)})")
    repeat = args.repeat if args.repeat is not None else (1 if args.quick else 3)
    if repeat < 1:
        log.die(f"--repeat {repeat}: at least 1")
    args.repeat = repeat
    nps, now, folder, command = bc.start_run(args, log, ["./hpcoll", "bench", "--dijkstra"], DEFAULT_NPS, 1,
                                             "dijkstra")
    load_before = load_average()
    start = time.monotonic()
    rows, failed, flags, peers_missing = run_all(args, nps, graphs, folder)
    meta = {"stamp": bc.stamp(now), "date": now.strftime("%Y-%m-%d %H:%M:%S UTC"), "command": command,
            "machine": bc.machine_text(bc.mpiexec_version(), nps, " ".join(flags.values())), "cores": bc.cores(),
            "nps": nps, "graphs": graphs, "flags": flags, "repeat": repeat, "quick": args.quick,
            "seconds": time.monotonic() - start, "load_before": load_before, "load_after": load_average(),
            "failed": failed, "peers_missing": peers_missing}
    return write_report(folder, meta, rows)


if __name__ == "__main__":
    sys.exit(main())
