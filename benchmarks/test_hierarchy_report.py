#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""hierarchy_report.py (the plots and tables of hpcoll_hierarchy's predictions) on a small
hand-made prediction file: the best flat and node-aware schedule per cell, the ratios, the files.
Run by ctest (bench.hierarchy_report) or directly: /usr/bin/python3 benchmarks/test_hierarchy_report.py [-v]
"""

import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import hierarchy_report as hr  # noqa: E402


def prediction(schedule, nodes, size, seconds, collective="allreduce", ppn=8):
    return {"collective": collective, "schedule": schedule, "nodes": nodes, "ppn": ppn, "bytes": size,
            "seconds": seconds, "walk_seconds": 0.0}


PREDICTIONS = [
    prediction("ring", 2, 8, 3e-6), prediction("recursive_doubling", 2, 8, 2e-6),
    prediction("hierarchical<binomial, recursive_doubling>", 2, 8, 4e-6),
    prediction("ring", 2, 65536, 9e-5), prediction("multi_leader<binomial, recursive_doubling>", 2, 65536, 3e-5),
    prediction("hierarchical<binomial, recursive_doubling>", 2, 65536, 6e-5),
]


class Report(unittest.TestCase):
    def test_best_of_each_family(self):
        cells = hr.best_cells(PREDICTIONS)[("allreduce", 8)]
        self.assertEqual(cells[(2, 8)][0], (2e-6, "recursive_doubling"))
        self.assertEqual(cells[(2, 8)][1], (4e-6, "hierarchical<binomial, recursive_doubling>"))
        self.assertEqual(cells[(2, 65536)][1], (3e-5, "multi_leader<binomial, recursive_doubling>"))

    def test_files(self):
        doc = {"command": "hpcoll_hierarchy --out=x.json", "predictions": PREDICTIONS,
               "machine": {"alpha": 4e-7, "beta": 1.2e-10, "gamma": 1e-10, "inter_alpha": 2e-6, "inter_beta": 1e-10,
                           "port_beta": 8e-11}}
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "p.json")
            with open(path, "w") as f:
                json.dump(doc, f)
            hr.main(["hierarchy_report.py", path, os.path.join(d, "out")])
            with open(os.path.join(d, "out", "hierarchy.md")) as f:
                text = f.read()
            self.assertTrue(os.path.getsize(os.path.join(d, "out", "hierarchy-allreduce.png")) > 0)
        self.assertIn("| 2 | 2.00 F | 0.33 H |", text)
        self.assertIn("multi_leader<binomial, recursive_doubling> (1)", text)


if __name__ == "__main__":
    unittest.main()
