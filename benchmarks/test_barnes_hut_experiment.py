#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""barnes_hut_experiment.py (./hpcoll bench --barnes-hut) without MPI, binary or timing: the
configurations and workers of the study's plan, the mpiexec flags, the rows read from the program's
JSON, speed-ups, the largest phase, the check of the final positions and the report (--from).
Run by ctest (bench.barnes_hut_experiment) or directly: /usr/bin/python3 benchmarks/test_barnes_hut_experiment.py [-v]
"""

import copy
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import barnes_hut_experiment as be  # noqa: E402


def program_json(phases, per_rank, hash_="00000000000000aa"):
    """What hpcoll_barnes_hut --json writes, the parts the script reads."""
    return {"seconds": dict(phases, setup=0.1, run=sum(phases.values()) + 0.1), "fcalc_per_rank_s": per_rank,
            "interactions": {"per_second": 2.5e7},
            "collective_calls": {"bcast": {"bytes": 100}, "gather": {"bytes": 16}, "gatherv": {"bytes": 200}},
            "energy": {"drift": 1e-6}, "positions_hash": hash_}


PHASES_NP1 = {"mktree": 1.0, "bcast": 0.0, "fcalc": 8.0, "gather": 0.5, "others": 0.5}
PHASES_NP2 = {"mktree": 1.0, "bcast": 0.5, "fcalc": 3.0, "gather": 0.3, "others": 0.2}


def rows():
    config = ("gatherv", "root", "dynamic")
    return [be.row_from_json(program_json(PHASES_NP1, [8.0]), 300000, 1, 1, config, 2),
            be.row_from_json(program_json(PHASES_NP2, [3.0, 2.0]), 300000, 1, 2, config, 2),
            be.row_from_json(program_json(PHASES_NP2, [2.5, 2.5]), 300000, 1, 2, ("reduce", "parallel", "dynamic"),
                             2)]


class Plan(unittest.TestCase):
    def test_the_largest_problem_gets_the_most_workers(self):
        self.assertEqual(be.workers_for(300000, [300000, 3000000], 16), 1)
        self.assertEqual(be.workers_for(3000000, [300000, 3000000], 16), 16)
        self.assertEqual(be.workers_for(300000, [300000], 16), 1)
        self.assertEqual(be.workers_for(3000000, [3000000], 2, asked=True), 2)

    def test_configurations(self):
        configs = be.configurations(["gatherv", "reduce"], ["root", "parallel"], True)
        self.assertEqual([be.config_name(c) for c in configs],
                         ["gatherv/root", "gatherv/parallel", "reduce/root", "reduce/parallel",
                          "gatherv/parallel/static"])
        self.assertEqual(len(be.configurations(["gatherv"], ["root"], False)), 1)

    def test_flags_pin_only_single_workers_that_fit(self):
        self.assertEqual(be.mpiexec_flags(2, 1, 2, True), "--bind-to core")
        self.assertIn("--oversubscribe", be.mpiexec_flags(4, 1, 2, True))
        self.assertIn("--bind-to none", be.mpiexec_flags(1, 2, 2, True))
        self.assertTrue(be.oversubscribed(2, 2, 2))
        self.assertFalse(be.oversubscribed(1, 2, 2))


class Analysis(unittest.TestCase):
    def test_row_from_the_programs_json(self):
        r = rows()[1]
        self.assertEqual(r["config"], "gatherv/root")
        self.assertAlmostEqual(r["step_s"], 5.0)
        self.assertAlmostEqual(r["fcalc_max_over_mean"], 1.2)
        self.assertEqual(be.largest_phase(r), "fcalc")
        self.assertFalse(r["oversubscribed"])
        self.assertEqual((r["bcast_bytes"], r["gather_bytes"]), (100, 216))  # the counts' gather and the gatherv

    def test_speedup_over_np1_of_the_same_configuration(self):
        speed = be.speedups(rows())
        self.assertAlmostEqual(speed[(300000, "gatherv/root", 2)], 10.0 / 5.0)
        self.assertNotIn((300000, "reduce/parallel", 2), speed)  # no np 1 run of it

    def test_differing_positions_are_wrong(self):
        self.assertEqual(be.problems(rows()), [])
        changed = copy.deepcopy(rows())
        changed[2]["hash"] = "00000000000000bb"
        [problem] = be.problems(changed)
        self.assertIn("300000 bodies: the runs disagree on the final positions", problem)
        self.assertIn("reduce/parallel at np 2", problem)


def run(*args, cwd):
    proc = subprocess.run([sys.executable, os.path.join(HERE, "barnes_hut_experiment.py")] + list(args), cwd=cwd,
                          env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1", MPLBACKEND="Agg"),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=100)
    return proc.returncode, proc.stdout


class FromFolder(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.folder = os.path.join(self.tmp.name, "barnes-hut")
        os.makedirs(self.folder)
        meta = {"stamp": "20261124T000000Z", "date": "2026-11-24 00:00:00 UTC", "command": "./hpcoll bench --barnes-hut",
                "machine": "test", "cores": 2, "nps": [1, 2], "steps": 8, "workers": {"300000": 1}, "quick": False,
                "seconds": 60, "failed": []}
        with open(os.path.join(self.folder, "report.json"), "w") as f:
            json.dump({"format": be.FORMAT, "meta": meta, "rows": rows()}, f)

    def tearDown(self):
        self.tmp.cleanup()

    def test_report_from_stored_results(self):
        rc, out = run("--from", self.folder, cwd=self.tmp.name)
        self.assertEqual(rc, 0, out)
        with open(os.path.join(self.folder, "report.md")) as f:
            md = f.read()
        self.assertIn("| gatherv/root | 2 | 1.000 | 0.500 | 3.000 | 0.300 | 0.200 | 5.000 | 1.200 | 2.5e+07 | fcalc | 2.00 |",
                      md)
        for png in ("300000-phases.png", "300000-speedup.png"):
            self.assertGreater(os.path.getsize(os.path.join(self.folder, png)), 1000)

    def test_wrong_results_fail_the_report(self):
        path = os.path.join(self.folder, "report.json")
        with open(path) as f:
            doc = json.load(f)
        doc["rows"][0]["hash"] = "1"
        with open(path, "w") as f:
            json.dump(doc, f)
        rc, out = run("--from", self.folder, "--no-plots", cwd=self.tmp.name)
        self.assertEqual(rc, 1, out)
        self.assertIn("WRONG: 300000 bodies: the runs disagree", out)

    def test_bad_options(self):
        rc, out = run("--gathers", "alltoall", cwd=self.tmp.name)
        self.assertNotEqual(rc, 0)
        self.assertIn("--gathers: alltoall not among gatherv, reduce, allgatherv", out)
        rc, out = run("--bodies", "0", cwd=self.tmp.name)
        self.assertNotEqual(rc, 0)
        self.assertIn("--bodies 0: positive integers", out)


if __name__ == "__main__":
    unittest.main()
