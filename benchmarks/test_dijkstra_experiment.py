#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""dijkstra_experiment.py (./hpcoll bench --dijkstra) on the stored results in benchmarks/testdata/dijkstra/
(no MPI, no binary, no timing): the candidate lists it reads from hpcoll_dijkstra's error message,
the configurations per np, medians, the fastest per np, the ratios, the checks of wrong results and
the report (--from). The expected numbers are worked out by hand (testdata/dijkstra/README.md).
Run by ctest (bench.dijkstra_experiment) or directly: /usr/bin/python3 benchmarks/test_dijkstra_experiment.py [-v]
"""

import copy
import fnmatch
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import dijkstra_experiment as de  # noqa: E402

FIXTURE = os.path.join(HERE, "testdata", "dijkstra")
# hpcoll_dijkstra's error for an unknown schedule, as it prints it.
ALLREDUCE_ERROR = ("hpcoll_dijkstra: --allreduce: '?' is not a schedule of allreduce (candidates: recursive_doubling, "
                   "ring, segmented_ring<65536>, reduce_scatter_allgather<recursive_halving, recursive_doubling>, "
                   "linear, reduce_bcast<binomial, binomial>) (see --help)\n")


def fixture_rows():
    with open(os.path.join(FIXTURE, "report.json")) as f:
        return json.load(f)["rows"]


def with_peer_rows(rows):
    """The fixture's rows and runs of delta and the peers on seto with the same distances (ms per np:
    delta 11 and 8, the Parallel BGL at its default 30 and 15, at Δ=500 20 and 25, Boost.Graph 5 at np 1)."""
    checksums = rows[0]["checksums"]
    times = {("delta", 1): [0.010, 0.012, 0.011], ("delta", 2): [0.008], ("pbgl delta", 1): [0.030],
             ("pbgl delta Δ=500", 1): [0.020], ("pbgl delta", 2): [0.015], ("pbgl delta Δ=500", 2): [0.025],
             ("bgl dijkstra", 1): [0.005]}
    deltas = {"delta": 4402, "pbgl delta": 1834, "pbgl delta Δ=500": 500, "bgl dijkstra": None}
    return rows + [{"graph": "seto", "np": np_, "config": config, "seconds": seconds, "checksums": checksums,
                    "schedules": [], "native_algorithms": {}, "delta": deltas[config]}
                   for (config, np_), seconds in times.items()]


class Candidates(unittest.TestCase):
    def test_names_with_template_arguments_stay_whole(self):
        self.assertEqual(de.parse_candidates(ALLREDUCE_ERROR, "allreduce"),
                         ["recursive_doubling", "ring", "segmented_ring<65536>",
                          "reduce_scatter_allgather<recursive_halving, recursive_doubling>", "linear",
                          "reduce_bcast<binomial, binomial>"])

    def test_another_message_is_an_error(self):
        with self.assertRaisesRegex(ValueError, "no candidate list for alltoall"):
            de.parse_candidates(ALLREDUCE_ERROR, "alltoall")


class Configurations(unittest.TestCase):
    SCHEDULES = {"allreduce": ["recursive_doubling", "ring"], "alltoall": ["bruck"], "alltoallv": ["linear"]}

    def test_every_schedule_and_algorithm_once(self):
        configs = de.configurations(self.SCHEDULES, 3)
        names = [c[0] for c in configs]
        self.assertEqual(names[:5], ["dispatcher", "allreduce=recursive_doubling", "allreduce=ring", "alltoall=bruck",
                                     "alltoallv=linear"])
        self.assertEqual(names[5], "native")
        # Open MPI: allreduce 1-6, alltoall 1-4 (two_proc is for 2 ranks only), alltoallv 1-2; delta, delta native.
        self.assertEqual(len(names), 6 + 6 + 4 + 2 + 2)
        self.assertEqual(names[-2:], ["delta", "delta native"])
        self.assertNotIn("native alltoall=5", names)
        self.assertIn("native alltoall=5", [c[0] for c in de.configurations(self.SCHEDULES, 2)])

    def test_options_of_a_forced_schedule_and_algorithm(self):
        configs = {c[0]: c[1:] for c in de.configurations(self.SCHEDULES, 2)}
        self.assertEqual(configs["allreduce=ring"], ("dijkstra", ["--allreduce", "ring"], []))
        self.assertEqual(configs["native alltoallv=2"],
                         ("dijkstra", ["--collectives", "native"], ["--mca", "coll_tuned_use_dynamic_rules", "1",
                                                                    "--mca", "coll_tuned_alltoallv_algorithm", "2"]))
        self.assertEqual(configs["delta native"], ("delta", ["--collectives", "native"], []))

    def test_peers_next_to_delta(self):
        # Boost.Graph's one-core Dijkstra at np 1 only; the Parallel BGL with its delta, then each one given.
        at = {np_: {c[0]: c[1:] for c in de.configurations(self.SCHEDULES, np_, ("bgl", "pbgl"), [500, 1000])}
              for np_ in (1, 2)}
        self.assertEqual(at[1]["bgl dijkstra"], ("bgl", [], []))
        self.assertNotIn("bgl dijkstra", at[2])
        self.assertEqual(at[2]["pbgl delta"], ("pbgl", [], []))
        self.assertEqual(at[2]["pbgl delta Δ=1000"], ("pbgl", ["--delta", "1000"], []))
        self.assertEqual([name for name in at[2] if name.startswith("pbgl")],
                         ["pbgl delta", "pbgl delta Δ=500", "pbgl delta Δ=1000"])
        # Without the peers (not built), none of them.
        self.assertEqual([c[0] for c in de.configurations(self.SCHEDULES, 1) if de.family(c[0]) in ("bgl", "pbgl")],
                         [])

    def test_pbgl_deltas_around_hpcolls_default(self):
        self.assertEqual(de.pbgl_deltas(4402), [2201, 4402, 8804])
        self.assertEqual(de.pbgl_deltas(1), [1, 2])  # half of 1 is 1: once

    def test_the_new_names_are_filterable(self):
        names = [c[0] for c in de.configurations(self.SCHEDULES, 1, ("bgl", "pbgl"), [500])]
        self.assertEqual([n for n in names if fnmatch.fnmatchcase(n, "delta*")], ["delta", "delta native"])
        self.assertEqual([n for n in names if fnmatch.fnmatchcase(n, "*bgl*")],
                         ["bgl dijkstra", "pbgl delta", "pbgl delta Δ=500"])

    def test_program_commands(self):
        binaries = {"hpcoll": "/b/hpcoll_dijkstra", "bgl": "/b/peers/hpcoll_dijkstra_bgl",
                    "pbgl": "/b/peers/hpcoll_dijkstra_pbgl"}
        self.assertEqual(de.program_command(binaries, "delta", "seto", ["--collectives", "native"]),
                         ["/b/hpcoll_dijkstra", "--generate", "seto", "--solver", "delta", "--collectives", "native"])
        self.assertEqual(de.program_command(binaries, "pbgl", "cal", ["--delta", "9"]),
                         ["/b/peers/hpcoll_dijkstra_pbgl", "--generate", "cal", "--delta", "9"])

    def test_families_and_labels(self):
        self.assertEqual(de.family("allreduce=ring"), "hpcoll allreduce")
        self.assertEqual(de.family("native alltoall=3"), "native alltoall")
        self.assertEqual([de.family(c) for c in ("delta", "delta native", "bgl dijkstra", "pbgl delta Δ=9")],
                         ["delta", "delta", "bgl", "pbgl"])
        # The peers' configurations, with '=' in a name, force no schedule.
        self.assertFalse(de.forced("pbgl delta Δ=9", native=False) or de.forced("pbgl delta Δ=9", native=True))
        self.assertEqual(de.label("pbgl delta"), "Parallel BGL delta (its default Δ)")
        self.assertEqual(de.label("pbgl delta Δ=9"), "Parallel BGL delta Δ=9")
        self.assertEqual(de.label("native alltoall=3"), "Open MPI alltoall 3 (modified_bruck)")
        self.assertEqual(de.label("native"), "Open MPI default")


class Analysis(unittest.TestCase):
    def setUp(self):
        self.rows = fixture_rows()

    def test_summary_medians_and_ratios(self):
        np1, np2 = de.summary(self.rows, "seto")
        self.assertAlmostEqual(np1["dispatcher_ms"], 22.0)
        self.assertEqual([round(x, 6) for x in np1["dispatcher_range_ms"]], [20.0, 24.0])
        self.assertEqual(np1["best_hpcoll"], "allreduce=recursive_doubling")
        # Forcing recursive_doubling runs what the dispatcher chose: their difference is noise.
        self.assertTrue(np1["best_hpcoll_runs_dispatchers_schedules"])
        self.assertAlmostEqual(np1["dispatcher_over_best_hpcoll"], 22 / 21)
        self.assertAlmostEqual(np1["dispatcher_over_native"], 22 / 17)
        self.assertEqual((np1["best_native"], np1["best_native_ms"]), ("native allreduce=3", 16.0))
        self.assertAlmostEqual(np2["dispatcher_ms"], 100.0)  # the median: the 300 ms outlier does not count
        self.assertEqual(np2["best_hpcoll"], "alltoall=bruck")
        self.assertFalse(np2["best_hpcoll_runs_dispatchers_schedules"])
        self.assertAlmostEqual(np2["dispatcher_over_best_hpcoll"], 1.25)
        self.assertAlmostEqual(np2["dispatcher_over_native"], 100 / 110)

    def test_the_fastest_per_np_is_bold(self):
        configs = de.figure_rows(self.rows, "seto", "allreduce")
        self.assertEqual(configs, ["dispatcher", "native", "allreduce=recursive_doubling", "allreduce=ring",
                                   "native allreduce=3"])
        table = {r[0]: r[1:] for r in de.time_table(self.rows, "seto", configs, [1, 2])}
        self.assertEqual(table["Open MPI allreduce 3 (recursive_doubling)"], ["**16.0**", "120.0"])
        self.assertEqual(table["allreduce=recursive_doubling"], ["21.0", "**95.0**"])
        self.assertEqual(table["dispatcher"], ["22.0", "100.0"])

    def test_peers_summary_medians_and_ratios(self):
        self.assertEqual(de.peers_summary(self.rows, "seto"), [])  # no delta-stepping or peer runs
        np1, np2 = de.peers_summary(with_peer_rows(self.rows), "seto")
        self.assertAlmostEqual(np1["delta_ms"], 11.0)
        self.assertEqual((np1["best_pbgl"], np1["best_pbgl_ms"]), ("pbgl delta Δ=500", 20.0))
        self.assertAlmostEqual(np1["delta_over_best_pbgl"], 11 / 20)
        self.assertAlmostEqual(np1["dispatcher_over_delta"], 22 / 11)
        self.assertAlmostEqual(np1["delta_over_bgl"], 11 / 5)
        self.assertEqual((np2["best_pbgl"], np2["best_pbgl_ms"]), ("pbgl delta", 15.0))
        self.assertAlmostEqual(np2["dispatcher_over_delta"], 100 / 8)
        # Boost.Graph's one-core time is the reference at every np.
        self.assertAlmostEqual(np2["delta_over_bgl"], 8 / 5)
        self.assertIsNone(np2["delta_native_ms"])

    def test_peer_rows_are_no_forced_schedules(self):
        rows = with_peer_rows(self.rows)
        self.assertEqual(de.problems(rows), [])
        self.assertEqual(de.best(rows, "seto", 1, forced_native=False), ("allreduce=recursive_doubling", 21.0))
        self.assertEqual(de.figure_rows(rows, "seto", "peers"),
                         ["dispatcher", "delta", "pbgl delta", "pbgl delta Δ=500", "bgl dijkstra"])
        self.assertEqual(de.figure_rows(self.rows, "seto", "peers"), [])
        without_dijkstra = [r for r in rows if r["config"] != "dispatcher"]  # --only 'delta*' --only '*bgl*'
        self.assertEqual(de.figure_rows(without_dijkstra, "seto", "peers")[0], "delta")

    def test_a_peer_with_other_distances_is_wrong(self):
        rows = with_peer_rows(self.rows)
        rows[-1]["checksums"] = ["reachable=58168 sum=1 max=489298"]
        [problem] = de.problems(rows)
        self.assertIn("bgl dijkstra at np 1", problem)

    def test_correct_rows_have_no_problems(self):
        self.assertEqual(de.problems(self.rows), [])

    def test_a_differing_checksum_is_wrong(self):
        rows = copy.deepcopy(self.rows)
        rows[3]["checksums"] = ["reachable=58168 sum=1 max=489298"]
        [problem] = de.problems(rows)
        self.assertIn("seto: the runs disagree on the distances", problem)
        self.assertIn("alltoall=bruck at np 1", problem)

    def test_a_forced_schedule_that_did_not_run_is_wrong(self):
        rows = copy.deepcopy(self.rows)
        rows[2]["schedules"][0]["schedule"] = "recursive_doubling"  # allreduce=ring at np 1
        self.assertEqual(de.problems(rows), ["seto np 1 allreduce=ring: the summary says allreduce ran "
                                             "recursive_doubling"])

    def test_a_forced_algorithm_the_program_did_not_see_is_wrong(self):
        rows = copy.deepcopy(self.rows)
        rows[5]["native_algorithms"]["allreduce"] = 0  # native allreduce=3 at np 1
        self.assertEqual(de.problems(rows), ["seto np 1 native allreduce=3: the program saw algorithm 0 forced"])

    def test_a_native_default_with_a_forced_algorithm_is_wrong(self):
        rows = copy.deepcopy(self.rows)
        rows[4]["native_algorithms"]["alltoall"] = 2  # native at np 1
        [problem] = de.problems(rows)
        self.assertIn("seto np 1 native: an Open MPI algorithm was forced", problem)


def run(*args, cwd):
    """/usr/bin/python3 benchmarks/dijkstra_experiment.py args... in cwd: (exit code, stdout + stderr)."""
    proc = subprocess.run([sys.executable, os.path.join(HERE, "dijkstra_experiment.py")] + list(args), cwd=cwd,
                          env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1", MPLBACKEND="Agg"),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=100)
    return proc.returncode, proc.stdout


class FromFolder(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.folder = os.path.join(self.tmp.name, "dijkstra")
        shutil.copytree(FIXTURE, self.folder)

    def tearDown(self):
        self.tmp.cleanup()

    def report(self, *args):
        """--from the folder (and args), which must succeed: the report.md it wrote."""
        rc, out = run("--from", self.folder, *args, cwd=self.tmp.name)
        self.assertEqual(rc, 0, out)
        with open(os.path.join(self.folder, "report.md")) as f:
            return f.read()

    def edit_results(self, change):
        """change(doc) on the folder's report.json, written back."""
        path = os.path.join(self.folder, "report.json")
        with open(path) as f:
            doc = json.load(f)
        change(doc)
        with open(path, "w") as f:
            json.dump(doc, f)

    def test_report_from_stored_results(self):
        md = self.report()
        self.assertIn("- Command: `./hpcoll bench --dijkstra --np 1 --np 2`", md)
        self.assertIn("np 2: 2 ranks on 2 cores (`--bind-to core`)", md)
        self.assertIn("| 2 | 100.0 (90.0–300.0) | 80.0 (alltoall=bruck) | 110.0 | 120.0 (Open MPI allreduce 3 (recursive_doubling)) "
                      "| 1.25 | 0.91 |", md)
        self.assertIn("np 1: allreduce recursive_doubling; alltoall linear; alltoallv linear", md)
        for png in ("seto-allreduce.png", "seto-alltoall.png"):
            self.assertGreater(os.path.getsize(os.path.join(self.folder, png)), 1000)
        with open(os.path.join(self.folder, "report.json")) as f:
            report = json.load(f)
        self.assertAlmostEqual(report["summary"]["seto"][1]["dispatcher_over_best_hpcoll"], 1.25)
        self.assertEqual(report["problems"], [])
        # The report it wrote is read back as it was.
        self.assertEqual(self.report("--no-plots"), md)

    def test_report_with_peers(self):
        def add_peers(doc):
            doc["rows"] = with_peer_rows(doc["rows"])
            doc["meta"]["peers_missing"] = {"bgl": "not built"}
        self.edit_results(add_peers)
        md = self.report()
        self.assertIn("### Δ-stepping and peers", md)
        self.assertIn("- Left out: bgl (not built).", md)
        self.assertIn("- Δ: hpcoll's default 4402 (4 × the mean arc weight); the Parallel BGL's default 1834", md)
        self.assertIn("| dijkstra (dispatcher) | 22.0 | 100.0 |", md)
        self.assertIn("| Boost.Graph dijkstra (one core) | **5.00** |  |", md)
        self.assertIn("| 2 | 8.00 | 15.0 (Parallel BGL delta (its default Δ)) | 100.0 | 0.53 | 12.50 | 1.60 |", md)
        self.assertGreater(os.path.getsize(os.path.join(self.folder, "seto-peers.png")), 1000)

    def test_wrong_results_fail_the_report(self):
        self.edit_results(lambda doc: doc["rows"][0].update(checksums=["reachable=1 sum=0 max=0"]))
        rc, out = run("--from", self.folder, "--no-plots", cwd=self.tmp.name)
        self.assertEqual(rc, 1, out)
        self.assertIn("WRONG: seto: the runs disagree on the distances", out)
        with open(os.path.join(self.folder, "report.md")) as f:
            self.assertIn("**Wrong results:**", f.read())

    def test_another_folder_is_refused(self):
        rc, out = run("--from", self.tmp.name, cwd=self.tmp.name)
        self.assertNotEqual(rc, 0)
        self.assertIn("--from: cannot read", out)
        with open(os.path.join(self.folder, "report.json"), "w") as f:
            json.dump({"format": "hpcoll-table-1"}, f)
        rc, out = run("--from", self.folder, cwd=self.tmp.name)
        self.assertNotEqual(rc, 0)
        self.assertIn("is not a report of ./hpcoll bench --dijkstra", out)

    def test_bad_options(self):
        rc, out = run("--graphs", "texas", cwd=self.tmp.name)
        self.assertNotEqual(rc, 0)
        self.assertIn("--graphs: unknown texas (one of seto, cal)", out)
        rc, out = run("--repeat", "0", cwd=self.tmp.name)
        self.assertNotEqual(rc, 0)
        self.assertIn("--repeat 0: at least 1", out)


if __name__ == "__main__":
    unittest.main()
