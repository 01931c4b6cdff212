#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Summary tables and plots of hpcoll_bench results (./hpcoll bench).

usage: /usr/bin/python3 benchmarks/report.py RESULTS_DIR [--no-plots] [--detail]

RESULTS_DIR holds Google Benchmark JSON files written by hpcoll_bench (one per
process count, np<N>.json, plus, after ./hpcoll bench --seed, one file per
forced Open MPI algorithm, np<N>_<collective>_alg<k>.json) and optionally
ompi_algorithms.json (the algorithm names ompi_info reported). Benchmark names
are <collective>/<schedule>/<S>: a schedule of hpcoll, "default" (hpcoll's free
function, schedule::automatic), a native MPI label ("native", or
"native_alg<k>" for an Open MPI algorithm forced with coll_tuned_*_algorithm),
or memcpy/copy/<S> (single-core memcpy reference).

Prints, per collective and process count, a table of times (µs per call,
slowest rank) over message sizes, the geometric mean of schedule/native, and
the fraction of the memcpy bound reached by large messages; after a seed run,
the "best schedule per data size" tables (Table 5 of the seed paper) and a
one-to-one comparison of each Open MPI algorithm with hpcoll's corresponding
schedule. Writes PNG plots into RESULTS_DIR. Standard library and matplotlib
only (run it with Debian's /usr/bin/python3).
"""

import argparse
import math
import os
import sys
from collections import defaultdict

import bench_common as bc
from bench_common import fmt_us, geomean, human_size, is_native, short_name, text_table as table

# ---------------------------------------------------------------------------
# Loading

LARGE = 1 << 20  # "large message" threshold of the memcpy-bound table

# Open MPI algorithm -> the hpcoll schedule that runs the same algorithm (a trailing "<" = any parameter).
CORRESPONDING = {
    "allreduce": {"basic_linear": "linear", "nonoverlapping": "reduce_bcast<binomial, binomial>",
                  "recursive_doubling": "recursive_doubling", "ring": "ring",
                  "segmented_ring": "segmented_ring<65536>",
                  "rabenseifner": "reduce_scatter_allgather<recursive_halving, recursive_doubling>"},
    "alltoall": {"linear": "linear", "pairwise": "pairwise", "modified_bruck": "bruck",
                 "linear_sync": "linear_sync<8>",
                 "two_proc": "pairwise"},  # np=2 only, where pairwise is the same single exchange
}


class Measurement:
    __slots__ = ("time_us", "counters")

    def __init__(self, time_us, counters):
        self.time_us = time_us
        self.counters = counters


class Results:
    """All measurements of a results folder: data[(collective, np)][label][S] = Measurement. The
    collectives' order and size rule come from the files' collective list (bc.read_collectives)."""

    def __init__(self, folder):
        self.folder = folder
        self.data = defaultdict(lambda: defaultdict(dict))
        self.memcpy = defaultdict(dict)  # memcpy[np][S] = GB/s
        self.label_order = defaultdict(list)  # (collective, np) -> labels in order of appearance
        self.files = []  # (file, np, mpi_library, cores)
        self.errors = []
        self.cores = None
        self.mpi_library = None
        self.collective_list = bc.Collectives()
        self.ompi_names = {c: dict(a) for c, a in bc.OMPI_ALGORITHMS.items()}
        meta = os.path.join(folder, "ompi_algorithms.json")
        if os.path.exists(meta):
            for coll, algs in bc.load_json(meta).items():
                self.ompi_names[coll] = {int(k): v for k, v in algs.items()}
        self._raw = []
        self.inexact = set()  # (key, nominal S) whose rows have an actual S below the nominal one
        for fname in sorted(os.listdir(folder)):
            if fname.endswith(".json") and fname != "ompi_algorithms.json":
                self._load(os.path.join(folder, fname))
        self._bucket()

    def _load(self, path):
        name = os.path.basename(path)
        try:
            doc = bc.load_json(path)
        except (OSError, ValueError) as e:
            self.errors.append(f"{name}: unreadable ({e})")
            return
        if not bc.is_bench_doc(doc):
            return
        f = bc.read_bench_doc(doc, name)
        if f.list_problem:
            self.errors.append(f.list_problem)
        self.cores = self.cores or f.cores
        self.mpi_library = self.mpi_library or f.mpi_library
        self.files.append((name, f.np, f.mpi_library or "?", f.cores))
        self.collective_list.merge(f.collectives)
        self.errors += f.errors
        for run in f.runs:
            counters = {}
            for key in ("bytes", "np", "algbw_GBps", "busbw_GBps", "GBps"):
                vals = [e[key] for e in run.entries if isinstance(e.get(key), (int, float))]
                if vals:
                    counters[key] = bc.median(vals)
            size = int(counters.get("bytes", run.size))
            if run.collective == "memcpy":  # its np counter is 1: it runs on rank 0 alone
                if "GBps" in counters:
                    self.memcpy[run.np][size] = counters["GBps"]
                continue
            key = (run.collective, run.np)
            if run.label not in self.label_order[key]:
                self.label_order[key].append(run.label)
            self._raw.append((key, run.label, size,
                              Measurement(bc.median(bc.entry_us(e) for e in run.entries), counters)))

    def _bucket(self):
        """Files by nominal size: the p-block collectives report S = p*floor(S/4p)*4 bytes, a little
        below the nominal S of --hpcoll_sizes (and different per np); every row is filed under the
        nominal size (the smallest size of the grid, or power of two, in [S, 2S))."""
        grid = set()
        for np_sizes in self.memcpy.values():
            grid |= set(np_sizes)
        for (collective, _), label, size, _ in self._raw:
            if self.collective_list.is_vector(collective):
                grid.add(size)
        grid = sorted(grid)
        for key, label, size, m in self._raw:
            nominal = next((g for g in grid if size <= g < 2 * size), None)
            if nominal is None:
                nominal = 1 << (size - 1).bit_length()
            if nominal != size:
                self.inexact.add((key, nominal))
            self.data[key][label][nominal] = m

    # -- queries -----------------------------------------------------------

    def keys(self):
        return sorted(self.data, key=lambda k: (self.collective_list.sort_key(k[0]), k[1]))

    def nps(self, collective):
        return sorted(n for c, n in self.data if c == collective)

    def collectives(self):
        seen = []
        for c, _ in self.keys():
            if c not in seen:
                seen.append(c)
        return seen

    def undescribed(self):
        """Collectives with rows that no file's collective list names."""
        return [c for c in self.collectives() if c not in self.collective_list]

    def sizes(self, key):
        return sorted({s for per_label in self.data[key].values() for s in per_label})

    def schedules(self, key):
        """hpcoll schedules (not default, not native), in the binary's order."""
        return [l for l in self.label_order[key] if bc.is_candidate(l)]

    def native_ref(self, key):
        """The native column: "native", or the only native label that is not a forced algorithm."""
        return bc.native_column(self.label_order[key])

    def forced(self, key):
        """{k: label} of the Open MPI algorithms forced one by one (seed mode)."""
        out = {}
        for l in self.label_order[key]:
            m = bc.NATIVE_ALG.match(l)
            if m:
                out[int(m.group(1))] = l
        return dict(sorted(out.items()))

    def time(self, key, label, size):
        m = self.data[key].get(label, {}).get(size)
        return m.time_us if m else None


# ---------------------------------------------------------------------------
# Summary tables

def print_summary(res, key):
    collective, np_ = key
    sizes = res.sizes(key)
    scheds = res.schedules(key)
    native = res.native_ref(key)
    cols = scheds + (["default"] if "default" in res.data[key] else []) + ([native] if native else [])
    if not cols:
        return
    oversub = f"  (oversubscribed: {np_} ranks on {res.cores} cores)" if res.cores and np_ > res.cores else ""
    print(f"\n== {collective}, np={np_}{oversub} ==")
    header = ["S"] + [short_name(c) if c not in ("default",) else c for c in cols] + (["best/native"] if native else [])
    rows = []
    for s in sizes:
        times = [res.time(key, c, s) for c in cols]
        present = [t for t in times if t is not None]
        best = min(present) if present else None
        cells = [human_size(s) + ("~" if (key, s) in res.inexact else "")]
        for t in times:
            cells.append(fmt_us(t) + ("*" if t is not None and t == best else " "))
        if native:
            tn = res.time(key, native, s)
            hp = [t for c, t in zip(cols, times) if t is not None and not is_native(c)]
            cells.append(f"{min(hp) / tn:.2f}" if hp and tn else "—")
        rows.append(cells)
    if native:
        rows.append(None)
        cells = ["geomean/native"]
        for c in cols:
            if c == native:
                cells.append("1.00 ")
                continue
            g = geomean([(res.time(key, c, s) or 0) / res.time(key, native, s)
                         for s in sizes if res.time(key, native, s) and res.time(key, c, s)])
            cells.append(f"{g:.2f} " if g else "— ")
        cells.append("")
        rows.append(cells)
    print(table(header, rows))
    legend = [f"{short_name(c)} = {c}" for c in cols if short_name(c) != c]
    if legend:
        print("  columns: " + "; ".join(legend))
    if any(k == key for k, _ in res.inexact):
        print(f"  ~ S is nominal: this collective sends p blocks of whole elements, so its actual S is "
              f"{np_}·⌊S/{4 * np_}⌋·4 bytes (the JSON's bytes counter)")

    # Memcpy bound for large messages.
    memcpy = res.memcpy.get(np_, {})
    large = [s for s in sizes if s >= LARGE and s in memcpy]
    if large and memcpy:
        bcols = [c for c in cols]
        header = ["S", "memcpy GB/s"] + [short_name(c) if c != "default" else c for c in bcols]
        rows = []
        for s in large:
            cells = [human_size(s) + ("~" if (key, s) in res.inexact else ""), f"{memcpy[s]:.2f}"]
            for c in bcols:
                m = res.data[key].get(c, {}).get(s)
                bw = m.counters.get("busbw_GBps") if m else None
                cells.append(f"{100 * bw / memcpy[s]:.0f}%" if bw is not None and memcpy[s] > 0 else "—")
            rows.append(cells)
        print("  memcpy bound, S ≥ 1 MiB: busbw_GBps / single-core memcpy GB/s of an S-byte copy")
        print(table(header, rows))


# ---------------------------------------------------------------------------
# Seed reproduction: Table 5 and one-to-one comparison

def seed_tables(res, detail):
    for collective in res.collectives():
        nps = [n for n in res.nps(collective) if res.forced((collective, n))]
        if not nps:
            continue
        names = res.ompi_names.get(collective, {})
        sizes = sorted({s for n in nps for s in res.sizes((collective, n))})

        def alg_name(k):
            return names.get(k, f"alg{k}")

        print(f"\n== {collective}: best per data size (seed paper, Table 5 form) ==")
        print("  one cell per (data size, process count); times compared are µs per call, slowest rank")
        if not res.collective_list.is_vector(collective):
            print("  data size = S, the whole p-block buffer of a rank (NCCL convention); a size whose block "
                  "would be empty (S < 4p bytes) is not run: —")
        best_hp, best_ompi, default_pick, ratio = {}, {}, {}, {}
        for n in nps:
            key = (collective, n)
            forced = res.forced(key)
            native = res.native_ref(key)
            for s in sizes:
                hp = [(res.time(key, l, s), l) for l in res.schedules(key) if res.time(key, l, s)]
                om = [(res.time(key, l, s), alg_name(k)) for k, l in forced.items() if res.time(key, l, s)]
                if hp:
                    best_hp[n, s] = min(hp)
                if om:
                    best_ompi[n, s] = min(om)
                tn = res.time(key, native, s) if native else None
                if tn and om:
                    dist, name, t = min((abs(math.log(t / tn)), name, t) for t, name in om)
                    default_pick[n, s] = (name, t / tn)
                ompi_all = [t for t, _ in om] + ([tn] if tn else [])
                if hp and ompi_all:
                    ratio[n, s] = best_hp[n, s][0] / min(ompi_all)

        def grid(title, cell):
            header = ["data size"] + [f"np={n}" for n in nps]
            rows = [[human_size(s)] + [cell(n, s) for n in nps] for s in sizes]
            print(f"\n  {title}")
            print(table(header, rows))

        grid("fastest hpcoll schedule", lambda n, s: short_name(best_hp[n, s][1]) if (n, s) in best_hp else "—")
        grid("fastest Open MPI algorithm (forced one by one with coll_tuned_%s_algorithm)" % collective,
             lambda n, s: short_name(best_ompi[n, s][1]) if (n, s) in best_ompi else "—")
        grid("algorithm Open MPI's default picks (inferred: the forced algorithm whose time is closest "
             "to the default native row; ? = still more than 15% off)",
             lambda n, s: (short_name(default_pick[n, s][0]) +
                           ("?" if abs(math.log(default_pick[n, s][1])) > math.log(1.15) else ""))
             if (n, s) in default_pick else "—")
        grid("fastest hpcoll schedule / fastest Open MPI (forced algorithms and default); < 1 = hpcoll faster",
             lambda n, s: f"{ratio[n, s]:.2f}" if (n, s) in ratio else "—")
        used = sorted({l for v in best_hp.values() for l in [v[1]]} | {v[1] for v in best_ompi.values()})
        legend = [f"{short_name(l)} = {l}" for l in used if short_name(l) != l]
        if legend:
            print("  names: " + "; ".join(legend))

        # One-to-one: Open MPI algorithm k vs the hpcoll schedule that runs the same algorithm.
        pairs = []
        for k, oname in sorted(names.items()):
            target = CORRESPONDING.get(collective, {}).get(oname)
            pairs.append((k, oname, target))
        print(f"\n  {collective}: Open MPI algorithm k vs hpcoll's corresponding schedule — "
              "geometric mean over data sizes of time(hpcoll) / time(Open MPI k); < 1 = hpcoll faster")
        header = ["Open MPI algorithm", "hpcoll schedule"] + [f"np={n}" for n in nps]
        rows = []
        per_size = []
        for k, oname, target in pairs:
            cells = [f"{k} {oname}", target or "(none)"]
            for n in nps:
                key = (collective, n)
                label = res.forced(key).get(k)
                sched = resolve_schedule(res, key, target)
                if not label or not sched:
                    cells.append("—")
                    continue
                rs = []
                for s in sizes:
                    th, to = res.time(key, sched, s), res.time(key, label, s)
                    if th and to:
                        rs.append(th / to)
                        per_size.append((k, oname, sched, n, s, th, to))
                g = geomean(rs)
                cells.append(f"{g:.2f}" if g else "—")
            rows.append(cells)
        print(table(header, rows, left=2))
        if detail:
            print(f"\n  {collective}: one-to-one, every size (µs)")
            header = ["np", "data size", "Open MPI algorithm", "hpcoll schedule", "Open MPI µs", "hpcoll µs", "ratio"]
            rows = [[str(n), human_size(s), f"{k} {on}", sched, fmt_us(to), fmt_us(th), f"{th / to:.2f}"]
                    for k, on, sched, n, s, th, to in sorted(per_size, key=lambda r: (r[3], r[0], r[4]))]
            print(table(header, rows, left=4))


def resolve_schedule(res, key, target):
    """The schedule label of the results that matches target (exact, or same name with another parameter)."""
    if not target:
        return None
    labels = res.schedules(key)
    if target in labels:
        return target
    base = target.split("<")[0]
    if "<" in target:
        for l in labels:
            if l.startswith(base + "<") and l.count("<") == target.count("<"):
                return l
    return None


# ---------------------------------------------------------------------------
# Plots

def make_plots(res):
    plt = bc.pyplot(lambda message: print(f"\n({message})"))
    if plt is None:
        return []
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch
    from matplotlib.ticker import NullFormatter
    written = []
    for key in res.keys():
        collective, np_ = key
        sizes = res.sizes(key)
        native = res.native_ref(key)
        labels = res.schedules(key) + (["default"] if "default" in res.data[key] else [])
        forced = res.forced(key)
        fig, (ax, axr) = plt.subplots(2, 1, figsize=(13, 8.5), sharex=True,
                                      gridspec_kw={"height_ratios": [3, 2]})
        cmap = plt.get_cmap("tab10" if len(labels) <= 10 else "tab20")
        styles = []
        for i, l in enumerate(labels):
            styles.append((l, dict(color=cmap(i % cmap.N), lw=1.6, marker="o", ms=3.5,
                                   ls="--" if l == "default" else "-")))
        names = res.ompi_names.get(collective, {})
        greys = plt.get_cmap("copper")
        for i, (k, l) in enumerate(forced.items()):
            styles.append((l, dict(color=greys(0.15 + 0.7 * i / max(1, len(forced) - 1)), lw=1.0, ls=":",
                                   marker="x", ms=4, label_override=f"Open MPI {k} {names.get(k, '')}".strip())))
        if native:
            styles.append((native, dict(color="black", lw=3.2, marker="s", ms=4.5)))
        for l, st in styles:
            st = dict(st)
            lab = st.pop("label_override", l)
            pts = [(s, res.time(key, l, s)) for s in sizes if res.time(key, l, s)]
            if not pts:
                continue
            ax.plot([p[0] for p in pts], [p[1] for p in pts], label=lab, **st)
            if native:
                rp = [(s, t / res.time(key, native, s)) for s, t in pts if res.time(key, native, s)]
                axr.plot([p[0] for p in rp], [p[1] for p in rp], **st)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_ylabel("time per call, slowest rank [µs]")
        oversub = f" — oversubscribed ({res.cores} cores)" if res.cores and np_ > res.cores else ""
        ax.set_title(f"{collective}, {np_} ranks{oversub}")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7.5, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
        axr.set_xscale("log", base=2)
        axr.set_yscale("log")
        axr.axhline(1.0, color="black", lw=1)
        axr.set_ylabel(f"time / {native or 'native'}  (< 1: faster)")
        axr.set_xlabel("message size S [bytes]")
        axr.grid(True, which="both", alpha=0.3)
        axr.set_xticks(sizes)
        axr.set_xticklabels([human_size(s) for s in sizes], rotation=45, fontsize=8)
        lo, hi = axr.get_ylim()
        ticks = [2.0 ** k for k in range(math.floor(math.log2(lo)), math.ceil(math.log2(hi)) + 1)]
        if sum(lo <= t <= hi for t in ticks) < 4:  # a narrow range: 0.75, 1.5, 3, ... too
            ticks = sorted(ticks + [1.5 * t for t in ticks])
        axr.set_yticks(ticks)
        axr.set_yticklabels([f"{t:g}" for t in ticks])
        axr.yaxis.set_minor_formatter(NullFormatter())
        axr.set_ylim(lo, hi)
        fig.tight_layout()
        path = os.path.join(res.folder, f"{collective}_np{np_}.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)

    # Heat maps: fastest schedule (or native) over process count x message size.
    for collective in res.collectives():
        nps = res.nps(collective)
        if len(nps) < 2:
            continue
        sizes = sorted({s for n in nps for s in res.sizes((collective, n))})
        winners = {}
        for n in nps:
            key = (collective, n)
            native = res.native_ref(key)
            cands = res.schedules(key) + ([native] if native else [])
            for s in sizes:
                ts = [(res.time(key, c, s), c) for c in cands if res.time(key, c, s)]
                if ts:
                    t, c = min(ts)
                    tn = res.time(key, native, s) if native else None
                    winners[n, s] = (c, t / tn if tn else None)
        cats = []
        for n in nps:
            for c in res.schedules((collective, n)):
                if c not in cats and any(w[0] == c for w in winners.values()):
                    cats.append(c)
        natives = sorted({w[0] for w in winners.values() if is_native(w[0])})
        cats += natives
        if not cats:
            continue
        base = plt.get_cmap("tab10" if len(cats) <= 10 else "tab20")
        colors = [base(i % base.N) for i in range(len(cats) - len(natives))] + ["#555555"] * len(natives)
        grid = [[cats.index(winners[n, s][0]) if (n, s) in winners else float("nan") for s in sizes] for n in nps]
        fig, ax = plt.subplots(figsize=(1.0 * len(sizes) + 5.5, 0.8 * len(nps) + 2.0))
        ax.imshow(grid, cmap=ListedColormap(colors), vmin=-0.5, vmax=len(cats) - 0.5, aspect="auto",
                  origin="lower")
        for i, n in enumerate(nps):
            for j, s in enumerate(sizes):
                if (n, s) not in winners:
                    continue
                c, r = winners[n, s]
                text = short_name(c).replace("<", "\n<", 1)
                if r is not None and not is_native(c):
                    text += f"\n{r:.2f}×"
                ax.text(j, i, text, ha="center", va="center", fontsize=6.5,
                        color="white" if is_native(c) else "black")
        ax.set_xticks(range(len(sizes)))
        ax.set_xticklabels([human_size(s) for s in sizes], rotation=45, fontsize=8)
        ax.set_yticks(range(len(nps)))
        ax.set_yticklabels([str(n) for n in nps])
        ax.set_xlabel("message size S")
        ax.set_ylabel("processes (np)")
        ax.set_title(f"{collective}: fastest schedule (native = native MPI wins; "
                     f"number = its time / native)", fontsize=9)
        ax.legend(handles=[Patch(color=colors[i], label=c) for i, c in enumerate(cats)], fontsize=7,
                  loc="upper left", bbox_to_anchor=(1.01, 1.0))
        fig.tight_layout()
        path = os.path.join(res.folder, f"heatmap_{collective}.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


# ---------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder")
    ap.add_argument("--no-plots", action="store_true", help="tables only")
    ap.add_argument("--detail", action="store_true", help="seed mode: one-to-one ratios for every size")
    args = ap.parse_args()
    if not os.path.isdir(args.folder):
        sys.exit(f"report.py: no such folder: {args.folder}")
    res = Results(args.folder)
    if not res.data:
        sys.exit(f"report.py: no hpcoll_bench results (JSON) in {args.folder}")

    print(f"hpcoll benchmark report: {args.folder}")
    nps = sorted({n for _, n, *_ in res.files if n is not None})
    print(f"  MPI: {(res.mpi_library or '?').split(',')[0]}; cores: {res.cores or '?'}; {len(res.files)} JSON file(s); "
          f"np: {', '.join(map(str, nps))}")
    print("  cells: real time per call in µs, slowest rank (median of repetitions when present);"
          " * = fastest in the row;")
    print("  best/native = fastest hpcoll cell (schedules, default) / native MPI: < 1 means hpcoll is faster;")
    print("  geomean/native = geometric mean over all sizes of time(column) / time(native);")
    print("  memcpy bound = busbw_GBps (bus bandwidth, NCCL convention: the per-rank rate at which the")
    print("  collective's unavoidable traffic is moved) / GB/s of one core's memcpy of S bytes. Over shared")
    print("  memory every byte on the 'bus' is copied at least once by some core, so 100% means the")
    print("  collective keeps each rank's data moving as fast as a single memcpy; small values = latency-,")
    print("  synchronisation- or reduction-bound.")
    if res.undescribed():
        print(f"  NOTE: the JSON's collective list (context '{bc.CONTEXT_KEY}') does not name "
              f"{', '.join(res.undescribed())}: listed last, S read as the whole p-block buffer.")
    if res.cores and any(n > res.cores for _, n in res.data):
        print(f"  NOTE: runs with more ranks than the {res.cores} cores are oversubscribed "
              "(mpi_yield_when_idle on): compare their times only as ratios.")
    for key in res.keys():
        print_summary(res, key)
    seed_tables(res, args.detail)
    if res.errors:
        print("\nskipped (errors reported by the benchmark):")
        for e in res.errors[:50]:
            print("  " + e)
    if not args.no_plots:
        written = make_plots(res)
        if written:
            print(f"\nplots ({len(written)}): {args.folder}/*.png, e.g. {os.path.basename(written[0])}"
                  + (f", {os.path.basename(written[-1])}" if len(written) > 1 else ""))


if __name__ == "__main__":
    main()
