#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""cluster_model.py (the two-level model against a cluster benchmark report) on hand-made files:
per-rank sizes matched to the report's whole buffers, the 25 % rule, the summary.
Run by ctest (bench.cluster_model) or directly: /usr/bin/python3 benchmarks/test_cluster_model.py [-v]
"""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import cluster_model as cm  # noqa: E402


def prediction(collective, schedule, size, seconds):
    return {"collective": collective, "schedule": schedule, "nodes": 2, "ppn": 2, "bytes": size, "seconds": seconds}


PREDICTIONS = {"predictions": [prediction("allreduce", "ring", 1024, 100e-6),
                               prediction("alltoall", "pairwise", 256, 50e-6),
                               prediction("allreduce", "ring", 65536, 1e-3)]}
REPORT = {"rows": [{"collective": "allreduce", "size": 1024, "us": {"ring": 140.0, "native": 90.0}},
                   {"collective": "alltoall", "size": 1024, "us": {"pairwise": 60.0}},
                   {"collective": "allreduce", "size": 65536, "us": {"ring": 1000.0}}]}


class ClusterModel(unittest.TestCase):
    def test_cells(self):
        cells = cm.compared_cells(REPORT, cm.predictions_by_cell([PREDICTIONS]))
        # native has no prediction; alltoall's 256 B a rank on 4 ranks is the report's 1 KiB.
        self.assertEqual(sorted(cells), [("allreduce", "ring", 1024, 140.0, 100.0),
                                         ("allreduce", "ring", 65536, 1000.0, 1000.0),
                                         ("alltoall", "pairwise", 1024, 60.0, 50.0)])

    def test_within(self):
        self.assertFalse(cm.within(("a", "s", 1, 140.0, 100.0)))  # 40 of 140: 29 %
        self.assertTrue(cm.within(("a", "s", 1, 60.0, 50.0)))     # 10 of 60: 17 %
        self.assertTrue(cm.within(("a", "s", 1, 100.0, 125.0)))   # 25 % exactly

    def test_summary(self):
        lines = cm.summary_lines(cm.compared_cells(REPORT, cm.predictions_by_cell([PREDICTIONS])))
        self.assertEqual(lines[0], "all: 2 of 3 cells within 25 % (67%), median measured/model 1.20")
        self.assertIn("from 64 KiB: 1 of 1 cells within 25 % (100%), median measured/model 1.00", lines)


if __name__ == "__main__":
    unittest.main()
