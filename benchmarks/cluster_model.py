#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The two-level cost model against the emulated cluster: every (collective, schedule, size)
cell of a `./hpcoll bench --cluster` report next to hpcoll_hierarchy's prediction for it.

  /usr/bin/python3 benchmarks/cluster_model.py REPORT.json PREDICTIONS.json [PREDICTIONS.json ...]

REPORT.json: results/cluster-<UTC>/report.json. PREDICTIONS.json: hpcoll_hierarchy --out on the
cluster's nodes and ranks per node (--nodes=H --ppn=K --elem=4, and --machine with the machine file
./hpcoll calibrate wrote on the cluster). The report states allgather and alltoall by their whole
p-block buffer, hpcoll_hierarchy by the block per rank: a prediction of block b is the cell of
p·b bytes. A cell is within 25 % when |model − measured| ≤ 0.25 × measured. Prints the share of
cells within 25 %, overall, per collective and from 64 KiB up, and the median measured ÷ model."""
import json
import statistics
import sys

PER_RANK = ("allgather", "alltoall")
LARGE = 65536


def predictions_by_cell(docs):
    """{(collective, schedule, report bytes): predicted µs}."""
    cells = {}
    for doc in docs:
        for p in doc["predictions"]:
            ranks = p["nodes"] * p["ppn"]
            size = p["bytes"] * (ranks if p["collective"] in PER_RANK else 1)
            cells[(p["collective"], p["schedule"], size)] = p["seconds"] * 1e6
    return cells


def compared_cells(report, predicted):
    """[(collective, schedule, bytes, measured µs, model µs)] for every measured cell with a prediction."""
    out = []
    for row in report["rows"]:
        for schedule, us in row["us"].items():
            model = predicted.get((row["collective"], schedule, row["size"]))
            if model is not None and us > 0:
                out.append((row["collective"], schedule, row["size"], us, model))
    return out


def within(cell, tolerance=0.25):
    return abs(cell[4] - cell[3]) <= tolerance * cell[3]


def summary_lines(cells):
    def line(name, group):
        if not group:
            return f"{name}: no cells"
        hit = sum(within(c) for c in group)
        ratio = statistics.median(c[3] / c[4] for c in group)
        return f"{name}: {hit} of {len(group)} cells within 25 % ({hit / len(group):.0%}), median measured/model {ratio:.2f}"
    lines = [line("all", cells)]
    for collective in sorted({c[0] for c in cells}):
        lines.append(line(collective, [c for c in cells if c[0] == collective]))
    lines.append(line(f"from {LARGE // 1024} KiB", [c for c in cells if c[2] >= LARGE]))
    return lines


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    with open(argv[1]) as f:
        report = json.load(f)
    docs = []
    for path in argv[2:]:
        with open(path) as f:
            docs.append(json.load(f))
    cells = compared_cells(report, predictions_by_cell(docs))
    if not cells:
        sys.exit("cluster_model.py: no measured cell has a prediction (nodes, ranks per node, sizes, --elem=4?)")
    print("\n".join(summary_lines(cells)))


if __name__ == "__main__":
    main(sys.argv)
