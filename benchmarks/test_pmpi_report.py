#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""pmpi_report.py (./hpcoll bench --pmpi) without MPI, binary or timing: reading hpcoll_table
and hpcoll_overlap files, the per-cell ratios and the summary, the help text.
Run by ctest (bench.pmpi_report) or directly: /usr/bin/python3 benchmarks/test_pmpi_report.py [-v]
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import pmpi_report as pr  # noqa: E402


def table_file(folder, name, rows):
    """An hpcoll_table JSON file holding rows of (collective, bytes, native_s, hpcoll_s)."""
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        json.dump({"format": "hpcoll-table-1", "rows": [
            {"collective": c, "bytes": b, "native_s": native, "hpcoll_s": hpcoll} for c, b, native, hpcoll in rows]},
            f)
    return path


class Compare(unittest.TestCase):
    def test_runs_merge_and_ratios_are_of_medians(self):
        with tempfile.TemporaryDirectory() as d:
            plain = pr.cells_of([table_file(d, "p1.json", [("bcast", 8, [1e-6, 3e-6], [1e-6]),
                                                           ("allreduce", 8, [2e-6], [1e-6])]),
                                 table_file(d, "p2.json", [("bcast", 8, [2e-6], [2e-6])])])
            preloaded = pr.cells_of([table_file(d, "q1.json", [("bcast", 8, [1e-6], [1e-6]),
                                                               ("allreduce", 8, [3e-6], [1e-6])])])
        self.assertEqual(plain[("bcast", 8)]["native"], [1e-6, 3e-6, 2e-6])
        rows, geomean, own, slower, cells = pr.compare(plain, preloaded)
        # bcast: 1 / median(1, 3, 2) = 0.5; allreduce: 3 / 2 = 1.5 (more than 5 % slower).
        self.assertEqual([r[:2] + r[4:5] for r in rows], [["allreduce", "8 B", "1.50"], ["bcast", "8 B", "0.50"]])
        self.assertAlmostEqual(geomean, (0.5 * 1.5) ** 0.5)
        self.assertAlmostEqual(own, (0.5 * 0.75) ** 0.5)
        self.assertEqual((slower, cells), (1, 2))

    def test_a_cell_missing_from_one_kind_is_left_out(self):
        plain = {("bcast", 8): {"native": [1.0], "hpcoll": [1.0]}, ("reduce", 8): {"native": [1.0], "hpcoll": [1.0]}}
        preloaded = {("bcast", 8): {"native": [1.0], "hpcoll": [1.0]}}
        self.assertEqual(pr.compare(plain, preloaded)[4], 1)


def overlap_file(folder, name, rows):
    """An hpcoll_overlap JSON file holding rows of (collective, bytes, variant, t_pure_s)."""
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        json.dump({"format": "hpcoll-overlap-1", "rows": [
            {"collective": c, "bytes": b, "variant": v, "t_pure_s": t} for c, b, v, t in rows]}, f)
    return path


class Overlap(unittest.TestCase):
    def test_native_and_manual_never_rows_are_the_two_kinds(self):
        with tempfile.TemporaryDirectory() as d:
            cells = pr.overlap_cells_of([
                overlap_file(d, "o1.json", [("allreduce", 8, "native/never", 2e-6), ("allreduce", 8, "manual/never", 1e-6),
                                            ("allreduce", 8, "thread", 9e-6), ("allreduce", 8, "native/outer", 7e-6)]),
                overlap_file(d, "o2.json", [("allreduce", 8, "native/never", 4e-6), ("allreduce", 8, "manual/never", 3e-6)])])
        self.assertEqual(cells, {("allreduce", 8): {"native": [2e-6, 4e-6], "hpcoll": [1e-6, 3e-6]}})


class Help(unittest.TestCase):
    def test_help(self):
        out = subprocess.run([sys.executable, os.path.join(HERE, "pmpi_report.py"), "--help"], capture_output=True,
                             text=True, env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1")).stdout
        self.assertTrue(out.startswith("usage: ./hpcoll bench --pmpi "), out)
        self.assertNotIn("--mpiexec-flags", out)


if __name__ == "__main__":
    unittest.main()
