#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""./hpcoll tune --evaluate: how well the runtime dispatcher chooses (the measurements of docs/dispatch.md).

  ./hpcoll tune --evaluate [--table FILE] [--machine FILE] [--np N]... [--quick] [--sizes MIN:MAX]
                           [--min-time S] [--repetitions K] [--rounds R] [--no-fresh-input] [--collectives a,b]
                           [--out DIR] [--from DIR] [--no-plots] [--verbose] [-- extra hpcoll_bench flags]

What it does, in one invocation:
  1. the tuning table: --table FILE, or else a tuning run first (./hpcoll tune with the same
     settings, into DIR/tune/): the table is always measured on a different bench run than
     the one it is judged on (judged on its own run, its regret would be 1 by construction);
  2. the evaluation run: hpcoll_bench at each np (default 2, 3, 4, 8; K passes of R rounds as
     in ./hpcoll tune, pinned while the ranks fit the cores) with --hpcoll_decisions_out (first pass),
     HPCOLL_TUNING and HPCOLL_<COLLECTIVE> unset: the cost model's
     choice and every candidate's predicted time, next to every schedule's measured time;
     --machine FILE sets HPCOLL_MACHINE (a machine file of ./hpcoll calibrate) for it;
  3. the with-table decisions: hpcoll_bench --hpcoll_decisions_only with HPCOLL_TUNING set;
  4. the report, DIR/report.md and DIR/report.json (default DIR results/dispatch-<UTC>/):
     - model accuracy: predicted vs measured time of every (collective, schedule, np, S):
       median |log(predicted/measured)|, the fraction within 2x, pairwise order agreement,
       a table per collective at np=2 and a log-log scatter (model_vs_measured.png);
     - regret: time of the chosen schedule / time of the fastest schedule in the cell, for
       the model alone and for model+table: median, p90, worst, per collective; the worst
       cells (regret.png: their distribution);
     - against native MPI: geometric mean of dispatched / native per collective and np
       (also the bench's own "default" row, the free function, as a cross-check) and the
       cells where native MPI is more than 10% faster.
--from DIR recomputes the report of an earlier evaluation folder without running anything
(its eval.json's table_path, when relative, is taken from DIR). --from DIR --decide-again --out NEW
grades the decisions of the current build (and --machine) on DIR's timings: it copies DIR's bench
runs into NEW, makes the model's and the table's decisions there with hpcoll_bench
--hpcoll_decisions_only and writes NEW's report — a cost model change judged on timings it was
not fitted to, without timing anything.
"""

import math
import os
import re
import shlex
import shutil
import sys
import time

import bench_common as bc
from bench_common import f2, fmt_bytes, md_table, us
import tune  # the tuning step: Bench, run_tune, tuning_step and the bench's defaults

BENCH_FILE = r"np(\d+)(-pass\d+)?\.json$"  # tune.pass_name's
NATIVE_WIN = 1.10  # "native wins" = dispatched / native above this
WORST_CELLS = 12

log = bc.Log("tune --evaluate")


# ---------------------------------------------------------------------------
# Statistics

def regret_stats(values):
    if not values:
        return None
    return {"cells": len(values), "median": bc.median(values), "p90": bc.percentile(values, 90),
            "worst": max(values), "geomean": bc.geomean(values),
            "within_5pct": sum(v <= 1.05 for v in values) / len(values),
            "optimal": sum(v <= 1.0 + 1e-12 for v in values) / len(values)}


def accuracy_stats(points):
    """points: dicts with predicted_s, measured_s."""
    if not points:
        return None
    logs = [math.log(p["predicted_s"] / p["measured_s"]) for p in points]
    absl = [abs(x) for x in logs]
    return {"points": len(points), "median_abs_log": bc.median(absl),
            "median_factor": math.exp(bc.median(absl)),
            "within_2x": sum(a <= math.log(2) + 1e-12 for a in absl) / len(absl),
            "median_log_bias": bc.median(logs),  # < 0: the model predicts too little time
            "worst_factor": math.exp(max(absl))}


def order_agreement(cells, clear=1.2):
    """Pairs of candidates in one cell that the model orders as the measurement does: over all pairs,
    and over the 'clear' pairs whose measured times differ by more than `clear`."""
    agree = total = cagree = ctotal = 0
    for c in cells:
        pts = [(p["predicted_s"], p["measured_s"]) for p in c["points"]]
        for i in range(len(pts)):
            for j in range(i + 1, len(pts)):
                (pi, mi), (pj, mj) = pts[i], pts[j]
                if mi == mj or pi == pj:
                    continue
                same = (pi < pj) == (mi < mj)
                total += 1
                agree += same
                if max(mi, mj) / min(mi, mj) > clear:
                    ctotal += 1
                    cagree += same
    return {"pairs": total, "agree": agree / total if total else None,
            "clear_pairs": ctotal, "clear_agree": cagree / ctotal if ctotal else None, "clear_ratio": clear}


# ---------------------------------------------------------------------------
# Loading an evaluation folder

def load_decisions(path):
    doc = bc.load_json(path)
    rows = {}
    for r in doc.get("rows", []):
        rows[(r["collective"], r["bytes"])] = r
    return doc, rows


def table_lookup(table, collective, np_, size):
    """The first entry of a tuning table covering the call (what the dispatcher must do), or None."""
    for e in table.get("entries", []):
        if (e["collective"] == collective and e["min_ranks"] <= np_ <= e["max_ranks"]
                and e["min_bytes"] <= size <= e["max_bytes"]):
            return e
    return None


def pool_identical_plans(measured, row):
    """Candidates whose plans are identical in this cell (the same "plan" fingerprint in the
    decisions row: every rank sends the same messages in the same rounds) differ only by noise:
    each gets the median of the group's measured times."""
    plans = {c["schedule"]: c.get("plan") for c in row.get("candidates", [])}
    groups = {}
    for label in measured:
        if plans.get(label):
            groups.setdefault(plans[label], []).append(label)
    pooled = dict(measured)
    for members in groups.values():
        if len(members) > 1:
            t = bc.median(measured[l] for l in members)
            for l in members:
                pooled[l] = t
    return pooled


class Evaluation:
    """Everything of one evaluation folder, joined per cell (collective, np, S)."""

    def __init__(self, folder):
        self.folder = folder
        self.meta = {}
        meta = os.path.join(folder, "eval.json")
        if os.path.exists(meta):
            self.meta = bc.load_json(meta)
        self.model_docs, self.table_docs = {}, {}
        self.model_rows, self.table_rows = {}, {}
        self.table = None
        path = self.meta.get("table_path")
        if path:
            path = os.path.join(folder, path)  # a relative table_path is the folder's (an absolute one stays)
            if os.path.exists(path):
                self.table = bc.load_json(path)
        bench_files = []
        self.notes = []
        # The collectives' order: the decisions files' collective list, then the bench JSON's.
        self.collective_list = bc.Collectives()
        for name in sorted(os.listdir(folder)):
            m = re.match(r"decisions-(model|table)-np(\d+)\.json$", name)
            if m:
                doc, rows = load_decisions(os.path.join(folder, name))
                n = int(doc.get("np", m.group(2)))
                (self.model_docs if m.group(1) == "model" else self.table_docs)[n] = doc
                (self.model_rows if m.group(1) == "model" else self.table_rows)[n] = rows
                try:
                    self.collective_list.merge(bc.read_collectives(doc))
                except ValueError as e:
                    self.notes.append(f"{name}: {e}")
            elif re.match(BENCH_FILE, name):
                bench_files.append(os.path.join(folder, name))
        self.bench = tune.Bench.load(bench_files)
        self.collective_list.merge(self.bench.collectives)
        self.notes += self.bench.list_problems
        self.cells = self._join()

    def _join(self):
        cells = []
        b = self.bench
        for n in sorted(self.model_rows):
            if n not in self.table_rows:
                self.notes.append(f"np={n}: no with-table decisions (decisions-table-np{n}.json missing): "
                                  "model+table columns empty")
            trows = self.table_rows.get(n, {})
            for (collective, size), row in self.model_rows[n].items():
                key = (collective, n)
                if key not in b.times:
                    self.notes.append(f"{collective} np={n}: decisions but no bench rows")
                    continue
                measured = {l: t for l in b.candidates(key) if (t := b.time(key, l, size)) is not None}
                if not measured:
                    self.notes.append(f"{collective} np={n} S={size}: decisions but no measured schedule")
                    continue
                measured = pool_identical_plans(measured, row)
                best = min(measured, key=lambda l: (measured[l], b.candidates(key).index(l)))
                native_label = b.native(key)
                cell = {"collective": collective, "np": n, "bytes": size, "measured": measured,
                        "best": best, "best_s": measured[best],
                        "native_s": b.time(key, native_label, size) if native_label else None,
                        "default_s": b.time(key, "default", size),
                        "model_choice": row.get("choice"), "model_reason": row.get("reason"),
                        "predicted": {c["schedule"]: c["predicted_s"] for c in row.get("candidates", [])
                                      if isinstance(c.get("predicted_s"), (int, float))}}
                trow = trows.get((collective, size))
                cell["table_choice"] = trow.get("choice") if trow else None
                cell["table_reason"] = trow.get("reason") if trow else None
                if trow and self.table is not None:
                    entry = table_lookup(self.table, collective, n, size)
                    if entry and (trow.get("reason") != "table" or trow.get("choice") != entry["schedule"]):
                        self.notes.append(f"{collective} np={n} S={size}: the table says {entry['schedule']}, the "
                                          f"dispatcher chose {trow.get('choice')} ({trow.get('reason')})")
                    elif not entry and trow.get("reason") == "table":
                        self.notes.append(f"{collective} np={n} S={size}: no table entry covers it, yet the "
                                          f"dispatcher's reason is 'table' ({trow.get('choice')})")
                if trow and trow.get("model_choice") != row.get("model_choice"):
                    self.notes.append(f"{collective} np={n} S={size}: the model chose {row.get('model_choice')} "
                                      f"in the evaluation run but {trow.get('model_choice')} in the table run")
                for which in ("model", "table"):
                    choice = cell[f"{which}_choice"]
                    t = measured.get(choice) if choice else None
                    if choice and t is None:
                        self.notes.append(f"{collective} np={n} S={size}: {which} choice {choice} has no "
                                          "measured row")
                    cell[f"{which}_s"] = t
                    cell[f"{which}_regret"] = t / measured[best] if t else None
                cell["points"] = [{"schedule": l, "predicted_s": cell["predicted"][l], "measured_s": measured[l]}
                                  for l in measured if cell["predicted"].get(l, 0) > 0]
                missing = sorted(set(measured) - set(cell["predicted"]))
                if missing:
                    self.notes.append(f"{collective} np={n} S={size}: no prediction for {', '.join(missing)}")
                cells.append(cell)
        cells.sort(key=lambda c: (self.collective_list.sort_key(c["collective"]), c["np"], c["bytes"]))
        return cells

    # -- groupings
    def collectives(self):
        seen = []
        for c in self.cells:
            if c["collective"] not in seen:
                seen.append(c["collective"])
        return seen

    def nps(self):
        return sorted({c["np"] for c in self.cells})


# ---------------------------------------------------------------------------
# Analysis -> report.json

def analyse(ev):
    cells = ev.cells
    out = {"meta": ev.meta, "notes": ev.notes}
    out["decision_sources"] = {
        "model": {str(n): {"machine_source": d.get("machine_source"), "tuning_source": d.get("tuning_source")}
                  for n, d in ev.model_docs.items()},
        "table": {str(n): {"machine_source": d.get("machine_source"), "tuning_source": d.get("tuning_source")}
                  for n, d in ev.table_docs.items()}}

    # Model accuracy.
    points = [dict(p, collective=c["collective"], np=c["np"], bytes=c["bytes"]) for c in cells for p in c["points"]]
    acc = {"overall": accuracy_stats(points), "by_np": {}, "by_collective": {}, "by_collective_np": {},
           "order": order_agreement(cells),
           "model_picks_best": (sum(c["model_choice"] == c["best"] for c in cells) / len(cells)) if cells else None}
    for n in ev.nps():
        acc["by_np"][str(n)] = accuracy_stats([p for p in points if p["np"] == n])
        if acc["by_np"][str(n)]:
            acc["by_np"][str(n)]["order"] = order_agreement([c for c in cells if c["np"] == n])
    for coll in ev.collectives():
        acc["by_collective"][coll] = accuracy_stats([p for p in points if p["collective"] == coll])
        acc["by_collective_np"][coll] = {str(n): accuracy_stats([p for p in points if p["collective"] == coll
                                                                 and p["np"] == n]) for n in ev.nps()}
        if acc["by_collective"][coll]:
            acc["by_collective"][coll]["order"] = order_agreement([c for c in cells if c["collective"] == coll])
    acc["points"] = points
    out["accuracy"] = acc

    # Regret.
    reg = {}
    for which in ("model", "table"):
        vals = [c[f"{which}_regret"] for c in cells if c[f"{which}_regret"] is not None]
        r = {"overall": regret_stats(vals), "by_collective": {}, "by_np": {}}
        for coll in ev.collectives():
            r["by_collective"][coll] = regret_stats([c[f"{which}_regret"] for c in cells if c["collective"] == coll
                                                     and c[f"{which}_regret"] is not None])
        for n in ev.nps():
            r["by_np"][str(n)] = regret_stats([c[f"{which}_regret"] for c in cells if c["np"] == n
                                               and c[f"{which}_regret"] is not None])
        worst = sorted((c for c in cells if c[f"{which}_regret"] is not None),
                       key=lambda c: -c[f"{which}_regret"])[:WORST_CELLS]
        r["worst_cells"] = [_cell_summary(c, which) for c in worst]
        reg[which] = r
    reg["table_reasons"] = {}
    for c in cells:
        reason = c["table_reason"] or "none"
        reg["table_reasons"][reason] = reg["table_reasons"].get(reason, 0) + 1
    out["regret"] = reg

    # Against native MPI.
    nat = {"geomeans": [], "native_wins": []}
    for coll in ev.collectives():
        for n in ev.nps():
            cs = [c for c in cells if c["collective"] == coll and c["np"] == n and c["native_s"]]
            if not cs:
                continue
            row = {"collective": coll, "np": n, "cells": len(cs)}
            for which in ("model", "table", "default", "best"):
                row[which] = bc.geomean([c[f"{which}_s"] / c["native_s"] for c in cs if c.get(f"{which}_s")])
            nat["geomeans"].append(row)
    for c in cells:
        if not c["native_s"]:
            continue
        m = c["model_s"] / c["native_s"] if c["model_s"] else None
        t = c["table_s"] / c["native_s"] if c["table_s"] else None
        if (m and m > NATIVE_WIN) or (t and t > NATIVE_WIN):
            nat["native_wins"].append({"collective": c["collective"], "np": c["np"], "bytes": c["bytes"],
                                       "native_s": c["native_s"], "model_choice": c["model_choice"],
                                       "model_over_native": m, "table_choice": c["table_choice"],
                                       "table_over_native": t, "best": c["best"],
                                       "best_over_native": c["best_s"] / c["native_s"]})
    out["native"] = nat
    out["cells"] = [{k: v for k, v in c.items() if k != "points"} for c in cells]
    return out


def _cell_summary(c, which):
    return {"collective": c["collective"], "np": c["np"], "bytes": c["bytes"], "choice": c[f"{which}_choice"],
            "choice_s": c[f"{which}_s"], "best": c["best"], "best_s": c["best_s"], "regret": c[f"{which}_regret"],
            "predicted_choice_s": c["predicted"].get(c[f"{which}_choice"]),
            "predicted_best_s": c["predicted"].get(c["best"])}


# ---------------------------------------------------------------------------
# Markdown

def pct(x):
    return f"{100 * x:.0f}%" if x is not None else "—"


def markdown(ev, res, pngs):
    meta = res["meta"]
    L = []
    L.append(f"# Dispatcher evaluation {meta.get('stamp', '')}".rstrip())
    L.append("")
    if meta.get("command"):
        L.append(f"- Command: `{meta['command']}`")
    if meta.get("machine_text"):
        L.append(f"- Machine: {meta['machine_text']}")
    if meta.get("settings"):
        s = meta["settings"]
        fresh = ", inputs rewritten before each call" if s.get("fresh_input") else ", the same input every call"
        L.append(f"- Evaluation run: np {', '.join(map(str, s.get('nps', [])))}; sizes {s.get('sizes')} B "
                 f"(x4 steps); `--benchmark_min_time={s.get('min_time')}` in {s.get('rounds', 1)} round(s) x "
                 f"{s.get('repetitions')} pass(es){fresh}, median; collectives {s.get('collectives') or 'all'}")
    if meta.get("table"):
        L.append(f"- Tuning table: `{meta['table']}` ({meta.get('table_origin', 'given')}); it was measured on a "
                 "different bench run than the evaluation run")
    srcs = sorted({(d["machine_source"] or "?") for d in res["decision_sources"]["model"].values()})
    L.append(f"- Cost model's machine: {', '.join(srcs) or '?'}")
    if meta.get("seconds"):
        L.append("- Time: " + ", ".join(f"{k} {v:.0f} s" for k, v in meta["seconds"].items()))
    L.append(f"- {len(ev.cells)} cells (collective x np x S); times are per call, slowest rank, µs "
             "(median of the passes); candidates whose plans are identical in a cell (the same messages in "
             "the same rounds, by the decisions' plan fingerprints) get the median of their times.")
    over = [n for n in ev.nps() if bc.cores() < n]
    if over:
        L.append(f"- np {', '.join(map(str, over))} run oversubscribed on {bc.cores()} cores: read those "
                 "times as ratios between schedules at the same np.")
    L.append("")

    # 1. Model accuracy
    acc = res["accuracy"]
    L.append("## 1. Cost model accuracy: predicted vs measured time")
    L.append("")
    L.append("Error factor = exp(median |ln(predicted / measured)|); bias = exp(median ln(predicted / measured)) "
             "(< 1: the model predicts too little time); order = fraction of candidate pairs in a cell that the "
             f"model orders like the measurement (clear pairs: measured times more than "
             f"{acc['order']['clear_ratio']:.1f}x apart; — = the model predicts the same time for every "
             "candidate, no pair to order).")
    L.append("")
    rows = []

    def acc_row(name, a, order=None):
        if not a:
            return [name, "0", "—", "—", "—", "—", "—"]
        return [name, str(a["points"]), f"x{a['median_factor']:.2f}", pct(a["within_2x"]),
                f"{math.exp(a['median_log_bias']):.2f}", f"x{a['worst_factor']:.1f}",
                (f"{pct(order['agree'])} / {pct(order['clear_agree'])}" if order else "—")]
    rows.append(acc_row("**all**", acc["overall"], acc["order"]))
    for n, a in acc["by_np"].items():
        rows.append(acc_row(f"np={n}", a, a.get("order") if a else None))
    for coll, a in acc["by_collective"].items():
        rows.append(acc_row(coll, a, a.get("order") if a else None))
    L.append(md_table(["", "points", "error factor", "within 2x", "bias", "worst", "order (all / clear)"], rows))
    L.append("")
    if acc["model_picks_best"] is not None:
        L.append(f"The model's choice is the measured fastest schedule in {pct(acc['model_picks_best'])} of the cells.")
        L.append("")
    if "model_vs_measured.png" in pngs:
        L.append("![predicted vs measured](model_vs_measured.png)")
        L.append("")
    np0 = 2 if 2 in ev.nps() else (ev.nps()[0] if ev.nps() else None)
    if np0 is not None:
        L.append(f"### Per collective at np={np0}: predicted / measured µs")
        L.append("")
        L.append("**bold** = measured fastest, † = the model's choice.")
        for coll in ev.collectives():
            cs = [c for c in ev.cells if c["collective"] == coll and c["np"] == np0]
            if not cs:
                continue
            scheds = ev.bench.candidates((coll, np0))
            L.append("")
            L.append(f"#### {coll}")
            L.append("")
            rows = []
            for c in cs:
                r = [fmt_bytes(c["bytes"])]
                for s in scheds:
                    m = c["measured"].get(s)
                    p = c["predicted"].get(s)
                    cell = f"{us(p)} / {us(m)}" if m is not None or p is not None else "—"
                    if s == c["best"]:
                        cell = f"**{cell}**"
                    if s == c["model_choice"]:
                        cell += " †"
                    r.append(cell)
                rows.append(r)
            L.append(md_table(["S"] + [f"`{s}`" for s in scheds], rows))
    L.append("")

    # 2. Regret
    reg = res["regret"]
    L.append("## 2. Dispatcher regret: time(chosen) / time(fastest schedule in the cell)")
    L.append("")
    L.append("Chosen: the model alone (HPCOLL_TUNING unset) or model + table (HPCOLL_TUNING set: the table's "
             "schedule where an entry covers the call, the model's elsewhere). Both are timed by the "
             "evaluation run's row of that schedule. Fastest: the fastest hpcoll schedule in the cell.")
    L.append("")
    reasons = ", ".join(f"{k}: {v}" for k, v in sorted(reg["table_reasons"].items()))
    L.append(f"With the table, decisions by reason: {reasons}.")
    L.append("")

    def reg_cells(r):
        if not r:
            return ["—"] * 5
        return [f"{r['median']:.2f}", f"{r['p90']:.2f}", f"{r['worst']:.2f}", pct(r["within_5pct"]), pct(r["optimal"])]
    rows = [["**all**"] + reg_cells(reg["model"]["overall"]) + reg_cells(reg["table"]["overall"])]
    for n in reg["model"]["by_np"]:
        rows.append([f"np={n}"] + reg_cells(reg["model"]["by_np"][n]) + reg_cells(reg["table"]["by_np"].get(n)))
    for coll in reg["model"]["by_collective"]:
        rows.append([coll] + reg_cells(reg["model"]["by_collective"][coll])
                    + reg_cells(reg["table"]["by_collective"].get(coll)))
    L.append(md_table(["", "model: median", "p90", "worst", "≤ 1.05", "optimal",
                       "model+table: median", "p90", "worst", "≤ 1.05", "optimal"], rows))
    L.append("")
    if "regret.png" in pngs:
        L.append("![regret distribution](regret.png)")
        L.append("")
    for which, title in (("model", "model alone"), ("table", "model + table")):
        L.append(f"### Worst cells, {title}")
        L.append("")
        rows = [[w["collective"], str(w["np"]), fmt_bytes(w["bytes"]), f"`{w['choice']}`", us(w["choice_s"]),
                 f"`{w['best']}`", us(w["best_s"]), f"{w['regret']:.2f}",
                 f"{us(w['predicted_choice_s'])} / {us(w['predicted_best_s'])}"]
                for w in reg[which]["worst_cells"]]
        L.append(md_table(["collective", "np", "S", "chosen", "µs", "fastest", "µs", "regret",
                           "predicted µs chosen / fastest"], rows))
        L.append("")

    # 3. Native
    nat = res["native"]
    L.append("## 3. Against native MPI")
    L.append("")
    L.append("Geometric mean over the sizes of time / native MPI's time (< 1: hpcoll faster). model, model+table: "
             "the chosen schedule's row; default: the bench's own row of the free function in the evaluation "
             "run (model alone, includes the dispatch overhead): a cross-check of the model column; fastest: "
             "the best hpcoll schedule per cell (an oracle).")
    L.append("")
    rows = [[g["collective"], str(g["np"]), str(g["cells"]), f2(g["model"]), f2(g["table"]), f2(g["default"]),
             f2(g["best"])] for g in nat["geomeans"]]
    L.append(md_table(["collective", "np", "sizes", "model", "model+table", "default row", "fastest"], rows))
    L.append("")
    L.append(f"### Cells where native MPI is more than {int(round((NATIVE_WIN - 1) * 100))}% faster than the "
             f"dispatched schedule ({len(nat['native_wins'])})")
    L.append("")
    if nat["native_wins"]:
        counts = {}
        for w in nat["native_wins"]:
            counts[w["collective"]] = counts.get(w["collective"], 0) + 1
        L.append("Per collective: " + ", ".join(f"{c} {k}" for c, k in counts.items()) + ". Ratios are time / "
                 "native; the fastest hpcoll schedule's ratio shows whether any schedule could have won.")
        L.append("")
        rows = [[w["collective"], str(w["np"]), fmt_bytes(w["bytes"]), us(w["native_s"]),
                 f"`{w['model_choice']}` {f2(w['model_over_native'])}",
                 f"`{w['table_choice']}` {f2(w['table_over_native'])}",
                 f"`{w['best']}` {f2(w['best_over_native'])}"] for w in nat["native_wins"]]
        L.append(md_table(["collective", "np", "S", "native µs", "model: choice, ratio", "model+table",
                           "fastest hpcoll"], rows))
    else:
        L.append("None.")
    L.append("")
    if ev.notes:
        L.append("## Notes")
        L.append("")
        for n in ev.notes[:50]:
            L.append(f"- {n}")
        if len(ev.notes) > 50:
            L.append(f"- ... and {len(ev.notes) - 50} more (report.json)")
        L.append("")
    return "\n".join(L)


# ---------------------------------------------------------------------------
# Plots

def plots(ev, res, folder):
    plt = bc.pyplot(log)
    if plt is None:
        return []
    written = []
    points = res["accuracy"]["points"]
    if points:
        ncores = bc.cores()
        dedicated = [p for p in points if p["np"] <= ncores]
        panels = ([(f"np ≤ {ncores} (one core per rank)", dedicated)] if dedicated and len(dedicated) < len(points)
                  else []) + [("every np" + (f" (np > {ncores} oversubscribed)" if dedicated != points else ""), points)]
        fig, axes = plt.subplots(1, len(panels), figsize=(8.5 * len(panels), 7.5), squeeze=False)
        colls = ev.collectives()
        cmap = plt.get_cmap("tab10")
        markers = {n: m for n, m in zip(ev.nps(), "os^Dvp*hX<>")}
        lo = min(min(p["predicted_s"], p["measured_s"]) for p in points) * 1e6 / 1.5
        hi = max(max(p["predicted_s"], p["measured_s"]) for p in points) * 1e6 * 1.5
        for ax, (title, pts_all) in zip(axes[0], panels):
            for i, coll in enumerate(colls):
                for n in ev.nps():
                    pts = [p for p in pts_all if p["collective"] == coll and p["np"] == n]
                    if pts:
                        ax.scatter([p["predicted_s"] * 1e6 for p in pts], [p["measured_s"] * 1e6 for p in pts],
                                   s=14, color=cmap(i % 10), marker=markers.get(n, "o"), alpha=0.7, linewidths=0,
                                   label=coll if n == min(q["np"] for q in pts_all) else None)
            ax.plot([lo, hi], [lo, hi], color="black", lw=1)
            for f in (2, 0.5):
                ax.plot([lo, hi], [lo * f, hi * f], color="grey", lw=0.8, ls="--")
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlim(lo, hi)
            ax.set_ylim(lo, hi)
            ax.set_xlabel("predicted by the cost model [µs]")
            ax.set_ylabel("measured, slowest rank [µs]")
            a = accuracy_stats(pts_all)
            ax.set_title(f"{title}: {len(pts_all)} points, error factor x{a['median_factor']:.2f}, "
                         f"{100 * a['within_2x']:.0f}% within 2x", fontsize=9)
            ax.grid(True, which="both", alpha=0.25)
            ax.legend(fontsize=8, loc="upper left")
        fig.suptitle("predicted vs measured time of every (collective, schedule, np, S); solid: equal, dashed: "
                     "a factor 2 off; marker = np (" + ", ".join(f"{m} {n}" for n, m in markers.items()) + ")",
                     fontsize=10)
        fig.tight_layout()
        path = os.path.join(folder, "model_vs_measured.png")
        fig.savefig(path, dpi=100)
        plt.close(fig)
        written.append(path)
    series = [(w, sorted(c[f"{w}_regret"] for c in ev.cells if c[f"{w}_regret"] is not None))
              for w in ("model", "table")]
    if any(v for _, v in series):
        fig, ax = plt.subplots(figsize=(8, 5))
        for (w, vals), color in zip(series, ("tab:blue", "tab:orange")):
            if vals:
                ax.step(vals, [(i + 1) / len(vals) for i in range(len(vals))], where="post", color=color,
                        label={"model": "model alone", "table": "model + table"}[w])
        ax.set_xscale("log")
        ax.set_xlabel("regret = time(chosen) / time(fastest schedule)")
        ax.set_ylabel("fraction of cells")
        ax.set_title("dispatcher regret over collectives x sizes x np", fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
        fig.tight_layout()
        path = os.path.join(folder, "regret.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


def write_report(folder, no_plots=False):
    ev = Evaluation(folder)
    if not ev.cells:
        log.die(f"nothing to evaluate in {folder} (decisions-model-np*.json and np*.json needed)")
    res = analyse(ev)
    pngs = [] if no_plots else [os.path.basename(p) for p in plots(ev, res, folder)]
    bc.write_reports(folder, res, markdown(ev, res, pngs))
    return ev, res, pngs


def summary(res):
    out = []
    a = res["accuracy"]["overall"]
    if a:
        out.append(f"model accuracy: {a['points']} points; error factor x{a['median_factor']:.2f} (median), "
                   f"{100 * a['within_2x']:.0f}% within 2x; model picks the fastest in "
                   f"{100 * (res['accuracy']['model_picks_best'] or 0):.0f}% of cells")
    for which, name in (("model", "model alone"), ("table", "model+table")):
        r = res["regret"][which]["overall"]
        if r:
            out.append(f"regret, {name}: median {r['median']:.2f}, p90 {r['p90']:.2f}, worst {r['worst']:.2f} "
                       f"({r['cells']} cells)")
    out.append(f"cells where native MPI is > {int(round((NATIVE_WIN - 1) * 100))}% faster than the dispatched "
               f"schedule: {len(res['native']['native_wins'])}")
    return out


# ---------------------------------------------------------------------------
# Running

class Env:
    """Temporarily sets/unsets environment variables (mpiexec passes the environment to local ranks)."""

    def __init__(self, set_=None, unset=()):
        self.set_ = set_ or {}
        self.unset = list(unset)

    def __enter__(self):
        self.saved = {k: os.environ.get(k) for k in list(self.set_) + self.unset}
        for k in self.unset:
            os.environ.pop(k, None)
        os.environ.update(self.set_)

    def __exit__(self, *exc):
        for k, v in self.saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def decisions_only(runner, np_, out, bench_args, timeout=600):
    """hpcoll_bench --hpcoll_decisions_only at np_ (console output in <out>.log)."""
    cmd = runner.command(np_, list(bench_args) + ["--hpcoll_decisions_only", f"--hpcoll_decisions_out={out}"])
    env_text = " ".join(f"{k}={shlex.quote(os.environ[k])}" for k in ("HPCOLL_TUNING", "HPCOLL_MACHINE")
                        if k in os.environ)
    name = os.path.splitext(os.path.basename(out))[0]
    return runner.launch(cmd, name, out, env_text, timeout, reasons=r"hpcoll|error|abort")


def decide_again(args):
    """--from DIR --decide-again --out NEW (see the module's help)."""
    source, folder = args.reuse, args.out
    if not os.path.isfile(os.path.join(source, "eval.json")):
        log.die(f"{source}: no eval.json (not an evaluation folder)")
    if os.path.abspath(source) == os.path.abspath(folder):
        log.die("--out must differ from --from")
    if args.machine and not os.path.isfile(args.machine):
        log.die(f"--machine {args.machine}: no such file")
    bc.require_binary(args, log, "./hpcoll tune --evaluate --decide-again")
    meta = bc.load_json(os.path.join(source, "eval.json"))
    os.makedirs(folder, exist_ok=True)
    nps = []
    for name in sorted(os.listdir(source)):
        if m := re.match(BENCH_FILE, name):
            shutil.copyfile(os.path.join(source, name), os.path.join(folder, name))
            nps.append(int(m.group(1)))
    nps = sorted(set(nps))
    if not nps:
        log.die(f"{source}: no bench runs (np<N>.json)")
    table_path = meta.get("table_path")
    if table_path and not os.path.isabs(table_path):
        table_path = os.path.join(source, table_path)
    settings = meta.get("settings", {})
    common = tune.bench_common_args(settings.get("sizes", tune.FULL_SIZES), settings.get("min_time", 0),
                                    settings.get("collectives"), settings.get("rounds", 1),
                                    settings.get("fresh_input", False))
    dec_args = [a for a in common if a.startswith("--hpcoll_")]
    runner = bc.Runner(args.binary, args.mpiexec_flags, folder, log, args.verbose, args.extra, timing=True)
    machine_env = {"HPCOLL_MACHINE": os.path.abspath(args.machine)} if args.machine else {}
    overrides = bc.schedule_overrides()
    log(f"decisions of {args.binary} on the timings of {bc.show(source)} (np {', '.join(map(str, nps))})")
    for n in nps:
        with Env(set_=machine_env, unset=["HPCOLL_TUNING"] + overrides):
            decisions_only(runner, n, os.path.join(folder, f"decisions-model-np{n}.json"), dec_args)
        if table_path and os.path.exists(table_path):
            with Env(set_=dict(machine_env, HPCOLL_TUNING=table_path), unset=overrides):
                decisions_only(runner, n, os.path.join(folder, f"decisions-table-np{n}.json"), dec_args)
    meta.update({"table_path": table_path, "machine_file": args.machine,
                 "decided_again": {"from": os.path.abspath(source), "stamp": bc.stamp(bc.utc_now()),
                                   "command": bc.command_text(["./hpcoll", "tune", "--evaluate"], args)}})
    bc.write_json(os.path.join(folder, "eval.json"), meta)
    _, res, pngs = write_report(folder, args.no_plots)
    print("\n".join(summary(res)))
    bc.report_written(log, folder, pngs)
    return 1 if runner.failed_names() else 0


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = bc.parser("./hpcoll tune --evaluate", __doc__, "What it does")
    bc.add_run_options(ap, np_help=f"process count (repeatable; default {' '.join(map(str, tune.DEFAULT_NPS))})",
                       quick_help=f"sizes {tune.QUICK_SIZES} B, min_time {tune.QUICK_MIN_TIME}",
                       out_help="results folder (default results/dispatch-<UTC>)")
    ap.add_argument("--table", metavar="FILE", help="the tuning table to judge (default: tune first, on a "
                                                    "separate run, into DIR/tune/)")
    ap.add_argument("--machine", metavar="FILE", help="machine file for the cost model (sets HPCOLL_MACHINE)")
    ap.add_argument("--sizes", metavar="MIN:MAX", help=f"bytes, x4 steps (default {tune.FULL_SIZES})")
    ap.add_argument("--min-time", type=float, metavar="S",
                    help=f"--benchmark_min_time (default {tune.DEFAULT_MIN_TIME}; --quick {tune.QUICK_MIN_TIME})")
    ap.add_argument("--repetitions", type=bc.positive_int, metavar="K", default=tune.DEFAULT_REPETITIONS,
                    help=f"passes of the benchmark per np, median per row used (default {tune.DEFAULT_REPETITIONS})")
    tune.add_bench_mode_options(ap)
    ap.add_argument("--collectives", metavar="a,b", help="only these collectives (default all)")
    bc.add_from_options(ap, "recompute the report of an earlier evaluation folder")
    ap.add_argument("--decide-again", action="store_true",
                    help="with --from DIR and --out NEW: the current build's decisions on DIR's timings")
    args = bc.parse_run_args(ap, argv, "hpcoll_bench", paths=("table", "machine", "out", "reuse"))
    if args.decide_again and not (args.reuse and args.out):
        ap.error("--decide-again needs --from DIR and --out NEW")

    if args.decide_again:
        return decide_again(args)
    if args.reuse:
        folder = args.reuse
        if not os.path.isdir(folder):
            log.die(f"no such folder {folder}")
        _, res, pngs = write_report(folder, args.no_plots)
        print("\n".join(summary(res)))
        bc.report_written(log, folder, pngs)
        return 0

    for what, path in (("--table", args.table), ("--machine", args.machine)):
        if path and not os.path.isfile(path):
            log.die(f"{what} {path}: no such file")
    nps, now, folder, command = bc.start_run(args, log, ["./hpcoll", "tune", "--evaluate"], tune.DEFAULT_NPS, 1,
                                             "dispatch")
    sizes = args.sizes or (tune.QUICK_SIZES if args.quick else tune.FULL_SIZES)
    min_time = args.min_time if args.min_time is not None else (tune.QUICK_MIN_TIME if args.quick else tune.DEFAULT_MIN_TIME)
    log(f"np {', '.join(map(str, nps))}; sizes {sizes} B; min_time {min_time:g} s in {args.rounds} round(s) "
        f"x {args.repetitions} pass(es); "
        f"results in {bc.show(folder)}")
    tune.oversubscription_note(nps, args.mpiexec_flags, say=log)
    seconds = {}
    machine_env = {"HPCOLL_MACHINE": os.path.abspath(args.machine)} if args.machine else {}
    # The runs must see no schedule forced on a collective (HPCOLL_<COLLECTIVE>=schedule): without
    # a list of the collectives, every HPCOLL_* variable that is not one of the library's settings
    # (bc.HPCOLL_SETTINGS) is such an override and is unset. Of the settings, HPCOLL_TUNING is unset
    # for the tuning and evaluation runs and set to the table for the with-table decisions;
    # HPCOLL_MACHINE is --machine's file when given, else the caller's; HPCOLL_CHECK, HPCOLL_VERBOSE
    # and HPCOLL_MAX_MESSAGE_BYTES stay as the caller set them.
    overrides = bc.schedule_overrides()
    if overrides:
        log("unset for every run: " + ", ".join(overrides))
    clean = ["HPCOLL_TUNING"] + overrides

    # 1. The table.
    if args.table:
        table_path, origin = os.path.abspath(args.table), "given"
    else:
        tune_dir = os.path.join(folder, "tune")
        os.makedirs(tune_dir, exist_ok=True)
        log(f"1/3 tuning run (its own bench run) into {bc.show(tune_dir)}")
        t0 = time.monotonic()
        with Env(unset=clean):
            bench, per_np, failed = tune.run_tune(args.binary, args.mpiexec_flags, tune_dir, nps, sizes, min_time,
                                                  args.repetitions, args.rounds, args.fresh_input, args.collectives,
                                                  args.verbose, args.extra, say=log)
        seconds["tuning run"] = time.monotonic() - t0
        if not bench.times:
            log.die("the tuning run failed")
        table_path, origin = os.path.join(tune_dir, "tuning.json"), "tuned by this command on its own bench run"
        table, lines = tune.tuning_step(bench, command + "  (tuning step)", nps, args.mpiexec_flags, table_path,
                                        say=log)
        with open(os.path.join(tune_dir, "summary.txt"), "w") as f:
            f.write("\n".join(lines) + "\n")
        log(f"  table: {bc.show(table_path)} ({len(table['entries'])} entries)")

    # 2. The evaluation run (model only) and 3. the with-table decisions.
    runner = bc.Runner(args.binary, args.mpiexec_flags, folder, log, args.verbose, args.extra, timing=True)
    common = tune.bench_common_args(sizes, min_time, args.collectives, args.rounds, args.fresh_input)
    log("2/3 evaluation run (model only: HPCOLL_TUNING unset)")
    t0 = time.monotonic()
    runner.commands.write("# evaluation runs: HPCOLL_TUNING and HPCOLL_<COLLECTIVE> unset"
                          + (f", HPCOLL_MACHINE={machine_env['HPCOLL_MACHINE']}" if machine_env else "") + "\n")
    with Env(set_=machine_env, unset=clean):
        per_np, bench_files = tune.run_passes(
            runner, nps, args.repetitions, common,
            lambda n: [f"--hpcoll_decisions_out={os.path.join(folder, f'decisions-model-np{n}.json')}"], say=log)
    seconds["evaluation run"] = time.monotonic() - t0
    if len(runner.failed) == len(nps):
        log.die("every evaluation run failed (see the logs above); no report")
    log("3/3 decisions with the table (HPCOLL_TUNING set, --hpcoll_decisions_only)")
    t0 = time.monotonic()
    dec_args = [a for a in common if a.startswith("--hpcoll_")]
    with Env(set_=dict(machine_env, HPCOLL_TUNING=table_path), unset=overrides):
        for n in nps:
            decisions_only(runner, n, os.path.join(folder, f"decisions-table-np{n}.json"), dec_args)
    seconds["table decisions"] = time.monotonic() - t0

    bench = tune.Bench.load(bench_files)
    meta = {"stamp": bc.stamp(now), "command": command, "table": bc.show(table_path),
            "table_path": table_path, "table_origin": origin,
            "machine_file": args.machine, "machine_text": bc.machine_text(bench.mpi_library, nps, args.mpiexec_flags),
            "settings": {"nps": nps, "sizes": sizes, "min_time": min_time, "repetitions": args.repetitions,
                         "rounds": args.rounds, "fresh_input": args.fresh_input,
                         "collectives": args.collectives, "extra": args.extra},
            "seconds": seconds, "evaluation_seconds_per_np": per_np}
    bc.write_json(os.path.join(folder, "eval.json"), meta)
    failed = runner.failed_names()
    if failed:
        log("failed runs: " + ", ".join(failed))
    _, res, pngs = write_report(folder, args.no_plots)
    print("\n".join(summary(res)))
    bc.report_written(log, folder, pngs)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
