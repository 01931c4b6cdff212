#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Plots and tables of hpcoll_hierarchy's predictions: where hierarchical schedules beat flat ones.

  /usr/bin/python3 benchmarks/hierarchy_report.py PREDICTIONS.json OUT_DIR

For every collective and ranks-per-node count in PREDICTIONS.json (written by
hpcoll_hierarchy --out): OUT_DIR/hierarchy-<collective>.png, a map over node
count and message size of the best node-aware schedule's predicted time
divided by the best flat schedule's (below 1: hierarchical wins), one panel
per ranks-per-node count; and OUT_DIR/hierarchy.md, the same numbers as
tables with the winning schedule of each cell.
"""

import collections
import json
import math
import os
import sys

NODE_AWARE = ("hierarchical<", "multi_leader<")


def human_bytes(b):
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= size:
            value = b / size
            return f"{value:g} {unit}"
    return f"{b} B"


def best_cells(predictions):
    """{(collective, ppn): {(nodes, bytes): (best flat, best node-aware)}}, each (seconds, schedule)."""
    cells = collections.defaultdict(dict)
    for p in predictions:
        key = (p["collective"], p["ppn"])
        cell = cells[key].setdefault((p["nodes"], p["bytes"]), [None, None])
        slot = 1 if p["schedule"].startswith(NODE_AWARE) else 0
        if cell[slot] is None or p["seconds"] < cell[slot][0]:
            cell[slot] = (p["seconds"], p["schedule"])
    return cells


def write_tables(cells, doc, path):
    lines = [f"<!-- written by: {os.path.basename(sys.argv[0])} from: {doc['command']} -->", ""]
    m = doc["machine"]
    lines.append(f"Machine: inside a node alpha = {m['alpha']:g} s, beta = {m['beta']:g} s/B; between nodes "
                 f"inter_alpha = {m['inter_alpha']:g} s, inter_beta = {m['inter_beta']:g} s/B, "
                 f"port_beta = {m['port_beta']:g} s/B. Each cell: best node-aware ÷ best flat predicted time, "
                 "and the winner (F: flat, H: node-aware).")
    for (collective, ppn), table in sorted(cells.items()):
        nodes = sorted({n for n, _ in table})
        sizes = sorted({b for _, b in table})
        lines += ["", f"### {collective}, {ppn} ranks per node", ""]
        lines.append("| nodes | " + " | ".join(human_bytes(b) for b in sizes) + " |")
        lines.append("|---:|" + "---:|" * len(sizes))
        for n in nodes:
            row = []
            for b in sizes:
                flat, aware = table.get((n, b), (None, None))
                if flat is None or aware is None:
                    row.append("-")
                    continue
                row.append(f"{aware[0] / flat[0]:.2f} {'H' if aware[0] < flat[0] else 'F'}")
            lines.append(f"| {n} | " + " | ".join(row) + " |")
        winners = collections.Counter(
            (aware if aware[0] < flat[0] else flat)[1] for flat, aware in table.values() if flat and aware)
        lines.append("")
        lines.append("Winners: " + "; ".join(f"{name} ({count})" for name, count in winners.most_common()))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def plot(cells, out_dir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import LogNorm

    by_collective = collections.defaultdict(list)
    for (collective, ppn) in sorted(cells):
        by_collective[collective].append(ppn)
    for collective, ppns in by_collective.items():
        fig, axes = plt.subplots(1, len(ppns), figsize=(5.5 * len(ppns), 4.2), squeeze=False)
        for ax, ppn in zip(axes[0], ppns):
            table = cells[(collective, ppn)]
            nodes = sorted({n for n, _ in table})
            sizes = sorted({b for _, b in table})
            grid = [[math.nan] * len(sizes) for _ in nodes]
            for i, n in enumerate(nodes):
                for j, b in enumerate(sizes):
                    flat, aware = table.get((n, b), (None, None))
                    if flat and aware:
                        grid[i][j] = aware[0] / flat[0]
            image = ax.imshow(grid, origin="lower", aspect="auto", cmap="RdBu_r", norm=LogNorm(vmin=0.1, vmax=10))
            for i in range(len(nodes)):
                for j in range(len(sizes)):
                    if not math.isnan(grid[i][j]):
                        ax.text(j, i, f"{grid[i][j]:.2f}", ha="center", va="center", fontsize=7)
            ax.set_xticks(range(len(sizes)), [human_bytes(b) for b in sizes], rotation=45, fontsize=7)
            ax.set_yticks(range(len(nodes)), [str(n) for n in nodes], fontsize=7)
            ax.set_xlabel("message size")
            ax.set_ylabel("nodes")
            ax.set_title(f"{collective}, {ppn} ranks per node", fontsize=9)
        fig.colorbar(image, ax=axes[0].tolist(), label="best node-aware ÷ best flat (predicted)")
        path = os.path.join(out_dir, f"hierarchy-{collective}.png")
        fig.savefig(path, dpi=110, bbox_inches="tight")
        plt.close(fig)


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    with open(argv[1]) as f:
        doc = json.load(f)
    os.makedirs(argv[2], exist_ok=True)
    cells = best_cells(doc["predictions"])
    write_tables(cells, doc, os.path.join(argv[2], "hierarchy.md"))
    plot(cells, argv[2])


if __name__ == "__main__":
    main(sys.argv)
