#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Unit test of benchmarks/tune.py (the tuning-table builder) and benchmarks/dispatch_eval.py (the
dispatcher evaluation), on small synthetic hpcoll_bench JSON and the evaluation folder in
benchmarks/testdata/dispatch/: no MPI, no timing.
Run by ctest (bench.tune_script) or directly: /usr/bin/python3 benchmarks/test_tune.py [-v]
"""

import argparse
import contextlib
import io
import json
import math
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import bench_common as bc  # noqa: E402
import dispatch_eval  # noqa: E402
import tune  # noqa: E402

U64 = bc.U64_MAX
TESTDATA = os.path.join(HERE, "testdata")
# The collective list as hpcoll_bench writes it into its JSON context (a string of JSON text).
COLLECTIVES_TEXT = bc.load_json(os.path.join(TESTDATA, "bench", "np2.json"))["context"][bc.CONTEXT_KEY]


def row(collective, schedule, size, us, np_=None, **extra):
    """One iteration row of hpcoll_bench's JSON (time in µs)."""
    r = {"name": f"{collective}/{schedule}/{size}", "run_name": f"{collective}/{schedule}/{size}",
         "run_type": "iteration", "repetitions": 1, "repetition_index": 0, "iterations": 100,
         "real_time": us, "cpu_time": us, "time_unit": "us", "bytes": float(size)}
    if np_ is not None:
        r["np"] = float(np_)
    r.update(extra)
    return r


def aggregates(collective, schedule, size, mean_us, median_us):
    """The aggregate rows of --benchmark_repetitions with --benchmark_report_aggregates_only."""
    base = f"{collective}/{schedule}/{size}"
    out = []
    for agg, t in (("mean", mean_us), ("median", median_us), ("stddev", 0.1), ("cv", 0.01)):
        out.append({"name": f"{base}_{agg}", "run_name": base, "run_type": "aggregate", "aggregate_name": agg,
                    "repetitions": 3, "real_time": t, "cpu_time": t, "time_unit": "us", "bytes": float(size)})
    return out


def bench_doc(np_, rows, collectives=COLLECTIVES_TEXT):
    ctx = {"np": str(np_), "cores": "2", "mpi_library": "Open MPI v4.1.4, package: test"}
    if collectives is not None:
        ctx[bc.CONTEXT_KEY] = collectives
    return {"context": ctx, "benchmarks": rows}


def grid(collective, sizes, times, np_=None):
    """times: {schedule: [µs per size]} -> iteration rows."""
    return [row(collective, s, size, t, np_) for s, ts in times.items() for size, t in zip(sizes, ts)]


def by_group(entries):
    out = {}
    for e in entries:
        out.setdefault((e["collective"], e["min_ranks"]), []).append(e)
    return out


class Boundaries(unittest.TestCase):
    def test_geometric_midpoint(self):
        self.assertEqual(tune.boundary(4, 16), 8)
        self.assertEqual(tune.boundary(1024, 4096), 2048)
        self.assertEqual(tune.boundary(12, 48), 24)
        self.assertEqual(tune.boundary(3, 5), 4)  # sqrt(15) = 3.87: 4 is the first byte of the upper range
        self.assertEqual(tune.boundary(1 << 20, 1 << 22), 1 << 21)
        for a, b in ((4, 16), (12, 60), (60, 252), (1000, 4000), (7, 9)):
            x = tune.boundary(a, b)
            self.assertTrue(x * x >= a * b and (x - 1) * (x - 1) < a * b, (a, b, x))

    def test_ranges_merge_and_span(self):
        r = tune.size_ranges([(4, "a"), (16, "a"), (64, "b"), (256, "a"), (1024, "a")])
        self.assertEqual(r, [(0, 31, "a"), (32, 127, "b"), (128, U64, "a")])
        self.assertEqual(tune.size_ranges([(64, "x")]), [(0, U64, "x")])
        self.assertEqual(tune.size_ranges([(4, "x"), (16, "x"), (64, "x")]), [(0, U64, "x")])


class Table(unittest.TestCase):
    def setUp(self):
        sizes = [4, 16, 64, 256]
        np2 = grid("allreduce", sizes, {
            "native": [0.5, 0.5, 0.5, 0.5],      # always fastest, never a candidate
            "default": [0.6, 0.6, 0.6, 0.6],     # the free function: never a candidate
            "ring": [3.0, 3.0, 1.0, 3.0],
            "recursive_doubling": [1.0, 2.0, 2.0, 1.0],
        })
        # Repetitions: the median aggregate decides, not the mean.
        np2 += aggregates("bcast", "linear", 4, mean_us=1.0, median_us=5.0)
        np2 += aggregates("bcast", "binomial", 4, mean_us=9.0, median_us=2.0)
        np2 += aggregates("bcast", "linear", 1024, mean_us=1.0, median_us=1.0)
        np2 += aggregates("bcast", "binomial", 1024, mean_us=0.5, median_us=3.0)
        # Iteration rows of several repetitions without aggregates: their median.
        np2 += [row("reduce", "linear", 64, t, repetition_index=i) for i, t in enumerate((1.0, 9.0, 8.0))]
        np2 += [row("reduce", "binomial", 64, t, repetition_index=i) for i, t in enumerate((5.0, 5.0, 5.0))]
        # gatherv: per size linear wins 2 of 3, but linear_sync<8> has the best geometric mean.
        np2 += grid("gatherv", [16, 64, 256], {"native": [0.1, 0.1, 0.1], "linear": [1.0, 1.0, 100.0],
                                               "linear_sync<8>": [1.1, 1.1, 2.0]})
        # A row with an error is skipped; memcpy rows are not collectives.
        np2 += [dict(row("allreduce", "ring", 1024, 0.01), error_occurred=True, error_message="boom"),
                {"name": "memcpy/copy/64", "run_name": "memcpy/copy/64", "run_type": "iteration",
                 "real_time": 0.01, "time_unit": "us", "GBps": 10.0, "bytes": 64.0, "np": 1.0}]
        # np = 3: S of a p-block collective is 3 * floor(S / 12) * 4 bytes: 12, 60, 252.
        np3 = grid("alltoall", [12, 60, 252], {"native": [0.1] * 3, "bruck": [1.0, 1.0, 5.0],
                                               "pairwise": [2.0, 2.0, 1.0]})
        np3 += grid("alltoallv", [12, 60, 252], {"pairwise": [1.0, 1.0, 1.0]})
        self.bench = tune.Bench()
        self.bench.add_doc(bench_doc(2, np2), "np2.json")
        self.bench.add_doc(bench_doc(3, np3), "np3.json")
        self.table = tune.make_table(self.bench, "./hpcoll tune --test", "test machine")
        self.groups = by_group(self.table["entries"])

    def ranges(self, collective, np_):
        return [(e["min_bytes"], e["max_bytes"], e["schedule"]) for e in self.groups[(collective, np_)]]

    def test_format_and_fields(self):
        t = self.table
        self.assertEqual(set(t), {"format", "created", "command", "machine", "entries"})
        self.assertEqual(t["format"], "hpcoll-tuning-1")
        self.assertRegex(t["created"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
        for e in t["entries"]:
            self.assertEqual(set(e), {"collective", "min_ranks", "max_ranks", "min_bytes", "max_bytes", "schedule"})
            self.assertEqual(e["min_ranks"], e["max_ranks"])
        self.assertEqual(tune.check_table(t, self.bench.collectives), [])
        # 2^64-1 must survive JSON exactly.
        self.assertIn("18446744073709551615", json.dumps(t))

    def test_fastest_schedule_per_range_native_and_default_excluded(self):
        self.assertEqual(self.ranges("allreduce", 2), [(0, 31, "recursive_doubling"), (32, 127, "ring"),
                                                      (128, U64, "recursive_doubling")])
        used = {e["schedule"] for e in self.table["entries"]}
        self.assertFalse(any(s == "default" or s.startswith("native") for s in used))

    def test_median_of_repetitions(self):
        # 4 B: medians linear 5, binomial 2 -> binomial; 1 KiB: linear 1, binomial 3 -> linear.
        self.assertEqual(self.ranges("bcast", 2), [(0, 63, "binomial"), (64, U64, "linear")])
        self.assertEqual(self.ranges("reduce", 2), [(0, U64, "binomial")])  # median(1, 9, 8) = 8 > 5
        self.assertAlmostEqual(self.bench.time(("reduce", 2), "linear", 64), 8e-6)

    def test_median_of_passes(self):
        # Three files of one np are three passes: each row's time is the median of the files' times.
        b = tune.Bench()
        for name, t in (("np2.json", 4.0), ("np2-pass2.json", 1.0), ("np2-pass3.json", 2.5)):
            b.add_doc(bench_doc(2, [row("bcast", "linear", 64, t), row("bcast", "binomial", 64, 3.0)]), name)
        self.assertAlmostEqual(b.time(("bcast", 2), "linear", 64), 2.5e-6)
        self.assertAlmostEqual(b.time(("bcast", 2), "binomial", 64), 3e-6)
        self.assertEqual([tune.pass_name(8, k) for k in (1, 2)], ["np8", "np8-pass2"])

    def test_median_of_rounds(self):
        # hpcoll_bench --hpcoll_rounds=R: R rows of one name in one file, each with its repetitions'
        # aggregates or its iteration rows: the row's time is the median over all of them.
        b = tune.Bench()
        rounds = (aggregates("bcast", "linear", 64, mean_us=1.0, median_us=4.0)
                  + aggregates("bcast", "linear", 64, mean_us=1.0, median_us=1.0)
                  + aggregates("bcast", "linear", 64, mean_us=1.0, median_us=2.0)
                  + [row("bcast", "binomial", 64, t) for t in (0.5, 9.0, 3.0)])
        b.add_doc(bench_doc(2, rounds), "np2.json")
        self.assertAlmostEqual(b.time(("bcast", 2), "linear", 64), 2e-6)
        self.assertAlmostEqual(b.time(("bcast", 2), "binomial", 64), 3e-6)

    def test_rounds_share_min_time(self):
        args = tune.bench_common_args("4:1024", 0.03, "bcast", rounds=3)
        self.assertIn("--benchmark_min_time=0.01", args)
        self.assertIn("--hpcoll_rounds=3", args)
        self.assertIn("--hpcoll_collectives=bcast", args)
        self.assertNotIn("--hpcoll_fresh_input", args)
        self.assertIn("--benchmark_min_time=0.03", tune.bench_common_args("4:1024", 0.03, None))
        self.assertIn("--hpcoll_fresh_input", tune.bench_common_args("4:1024", 0.03, None, fresh_input=True))

    def test_bench_mode_options(self):
        # A fresh input is the default; --no-fresh-input turns it off; a count below 1 is refused by
        # argparse, naming the option.
        ap = argparse.ArgumentParser(prog="tune")
        tune.add_bench_mode_options(ap)
        self.assertTrue(ap.parse_args([]).fresh_input)
        self.assertFalse(ap.parse_args(["--no-fresh-input"]).fresh_input)
        self.assertEqual(ap.parse_args(["--rounds", "5"]).rounds, 5)
        for bad in ("0", "-2", "x"):
            err = io.StringIO()
            with self.assertRaises(SystemExit), contextlib.redirect_stderr(err):
                ap.parse_args(["--rounds", bad])
            self.assertIn(f"argument --rounds: '{bad}' is not an integer >= 1", err.getvalue())

    def test_exact_sizes_of_block_collectives(self):
        self.assertEqual(self.ranges("alltoall", 3), [(0, 122, "bruck"), (123, U64, "pairwise")])
        self.assertEqual(tune.boundary(60, 252), 123)

    def test_v_collectives_one_entry_by_geometric_mean(self):
        self.assertEqual(self.ranges("gatherv", 2), [(0, U64, "linear_sync<8>")])
        self.assertEqual(self.ranges("alltoallv", 3), [(0, U64, "pairwise")])
        best, means, common = tune.geomean_winner(self.bench, ("gatherv", 2))
        self.assertEqual(common, [16, 64, 256])
        self.assertAlmostEqual(means["linear"], 1e-6 * 100 ** (1 / 3))

    def test_errors_and_memcpy_skipped(self):
        self.assertIsNone(self.bench.time(("allreduce", 2), "ring", 1024))
        self.assertEqual(len(self.bench.errors), 1)
        self.assertNotIn(("memcpy", 2), self.bench.times)
        self.assertNotIn(("memcpy", 1), self.bench.times)

    def test_entry_order(self):
        order = [(e["collective"], e["min_ranks"]) for e in self.table["entries"]]
        firsts = list(dict.fromkeys(order))
        self.assertEqual(firsts, [("bcast", 2), ("reduce", 2), ("allreduce", 2), ("gatherv", 2), ("alltoall", 3),
                                  ("alltoallv", 3)])

    def test_check_table_finds_problems(self):
        bad = json.loads(json.dumps(self.table))
        g = [e for e in bad["entries"] if e["collective"] == "allreduce"]
        g[1]["min_bytes"] += 1  # a gap
        bad["entries"].append({"collective": "gatherv", "min_ranks": 2, "max_ranks": 2, "min_bytes": 0,
                               "max_bytes": 5, "schedule": "linear"})
        bad["entries"].append({"collective": "scan", "min_ranks": 2, "max_ranks": 2, "min_bytes": 0,
                               "max_bytes": U64, "schedule": "linear"})
        bad["entries"][0]["schedule"] = "pairwise"
        problems = "\n".join(tune.check_table(bad, self.bench.collectives))
        self.assertIn("gap or overlap", problems)
        self.assertIn("per-rank (v-)collective needs one entry", problems)
        self.assertIn("unknown collective scan", problems)
        self.assertIn("pairwise is not a candidate of bcast", problems)
        merged = {"format": tune.FORMAT, "entries": [
            {"collective": "bcast", "min_ranks": 2, "max_ranks": 2, "min_bytes": 0, "max_bytes": 9,
             "schedule": "linear"},
            {"collective": "bcast", "min_ranks": 2, "max_ranks": 2, "min_bytes": 10, "max_bytes": U64,
             "schedule": "linear"}]}
        self.assertIn("same schedule", "\n".join(tune.check_table(merged, self.bench.collectives)))

    def test_rules_come_from_the_collective_list(self):
        # A list naming allreduce per_rank (and alltoall before it): one entry, and alltoall first.
        lst = json.loads(COLLECTIVES_TEXT)
        for c in lst:
            if c["name"] == "allreduce":
                c["message_size"] = "per_rank"
        lst.sort(key=lambda c: c["name"] != "alltoall")
        b = tune.Bench()
        b.add_doc(bench_doc(2, grid("allreduce", [4, 16], {"ring": [2.0, 1.0], "linear": [1.0, 3.0]})
                            + grid("alltoall", [4], {"bruck": [1.0]}), json.dumps(lst)), "np2.json")
        entries = tune.build_entries(b)
        self.assertEqual([(e["collective"], e["min_bytes"], e["max_bytes"], e["schedule"]) for e in entries],
                         [("alltoall", 0, U64, "bruck"), ("allreduce", 0, U64, "ring")])

    def test_no_collective_list_no_table(self):
        b = tune.Bench()
        b.add_doc(bench_doc(2, grid("allreduce", [4], {"ring": [1.0]}), collectives=None), "np2.json")
        self.assertIn("allreduce: not in the collective list", "\n".join(b.undescribed()))
        with self.assertRaises(bc.UnknownCollective):
            tune.build_entries(b)
        b = tune.Bench()
        b.add_doc(bench_doc(2, grid("allreduce", [4], {"ring": [1.0]}), collectives="[{]"), "np2.json")
        self.assertIn("np2.json: context 'hpcoll_collectives' is no JSON text", "\n".join(b.undescribed()))

    def test_summary_mentions_every_group(self):
        text = "\n".join(tune.summary_lines(self.bench, self.table))
        for c, n in self.groups:
            self.assertIn(f"{c}, np={n}:", text)

    def test_command_line_from_files(self):
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "runs")
            os.makedirs(src)
            with open(os.path.join(src, "np2.json"), "w") as f:
                json.dump(bench_doc(2, grid("allreduce", [4, 16], {"ring": [2.0, 1.0], "linear": [1.0, 2.0]})), f)
            out = os.path.join(d, "t", "tuning.json")
            with contextlib.redirect_stdout(io.StringIO()):
                rc = tune.main(["--from", "runs", "--out", "t/tuning.json", "--cwd", d, "--binary", "/nonexistent"])
            self.assertEqual(rc, 0)
            with open(out) as f:
                t = json.load(f)
            self.assertEqual(t["command"], "./hpcoll tune --from runs --out t/tuning.json")
            self.assertEqual([(e["min_bytes"], e["max_bytes"], e["schedule"]) for e in t["entries"]],
                             [(0, 7, "linear"), (8, U64, "ring")])
            self.assertTrue(os.path.exists(os.path.join(d, "t", "summary.txt")))


class Evaluation(unittest.TestCase):
    """testdata/dispatch/: bench rows at np 2 (allreduce at 4, 64 and 1024 B: native 2, 2, 10 µs, default 4.1,
    3, 12, ring 4, 3, 12, recursive_doubling 1, 6, 24; gatherv at 16 B: native 1, linear 1, linear_sync<8> 2),
    model decisions (ring; linear) and table decisions (recursive_doubling up to 100 B, then ring; linear), the
    table (tuning.json, a relative table_path in eval.json) and predictions (ring 2 µs, recursive_doubling 4 µs;
    gatherv 1 µs each)."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = os.path.join(self.tmp.name, "dispatch")
        shutil.copytree(os.path.join(TESTDATA, "dispatch"), self.dir)

    def tearDown(self):
        self.tmp.cleanup()

    def test_regret_native_and_accuracy(self):
        ev = dispatch_eval.Evaluation(self.dir)
        self.assertEqual(len(ev.cells), 4)
        self.assertEqual(ev.notes, [])
        self.assertIsNotNone(ev.table)
        self.assertEqual(ev.collective_list.names()[:3], ["bcast", "reduce", "allreduce"])
        res = dispatch_eval.analyse(ev)
        cell = {(c["collective"], c["bytes"]): c for c in res["cells"]}
        # 4 B: best recursive_doubling 1.0; model ring 4.0 -> 4; table recursive_doubling -> 1.
        self.assertAlmostEqual(cell[("allreduce", 4)]["model_regret"], 4.0)
        self.assertAlmostEqual(cell[("allreduce", 4)]["table_regret"], 1.0)
        # 64 B: best ring 3.0; table recursive_doubling 6.0 -> 2.
        self.assertAlmostEqual(cell[("allreduce", 64)]["table_regret"], 2.0)
        m = res["regret"]["model"]["overall"]
        self.assertEqual(m["cells"], 4)
        self.assertAlmostEqual(m["worst"], 4.0)
        self.assertAlmostEqual(m["median"], 1.0)
        self.assertAlmostEqual(res["regret"]["table"]["by_collective"]["allreduce"]["worst"], 2.0)
        self.assertEqual(res["regret"]["model"]["worst_cells"][0]["bytes"], 4)
        # Native: allreduce model geomean of (4/2, 3/2, 12/10); default row is its own column.
        g = {(x["collective"], x["np"]): x for x in res["native"]["geomeans"]}[("allreduce", 2)]
        self.assertAlmostEqual(g["model"], (2.0 * 1.5 * 1.2) ** (1 / 3))
        self.assertAlmostEqual(g["default"], (4.1 / 2 * 1.5 * 1.2) ** (1 / 3))
        self.assertAlmostEqual(g["best"], (0.5 * 1.5 * 1.2) ** (1 / 3))
        wins = {(w["collective"], w["bytes"]) for w in res["native"]["native_wins"]}
        self.assertEqual(wins, {("allreduce", 4), ("allreduce", 64), ("allreduce", 1024)})  # gatherv: a tie
        # Accuracy: allreduce 4 B: ring 2 vs 4 (x2), rd 4 vs 1 (x4): the within-2x boundary is inclusive.
        pts = [p for p in res["accuracy"]["points"] if p["collective"] == "allreduce" and p["bytes"] == 4]
        self.assertEqual(len(pts), 2)
        a = dispatch_eval.accuracy_stats(pts)
        self.assertAlmostEqual(a["within_2x"], 0.5)
        self.assertAlmostEqual(a["median_factor"], math.sqrt(2 * 4))

    def test_passes_are_one_run(self):
        # A second pass whose recursive_doubling is 3x slower at 4 B: the median of two passes is their mean.
        doc = bc.load_json(os.path.join(self.dir, "np2.json"))
        for r in doc["benchmarks"]:
            if r["name"].startswith("allreduce/recursive_doubling/4"):
                r["real_time"] *= 3
        bc.write_json(os.path.join(self.dir, "np2-pass2.json"), doc)
        ev = dispatch_eval.Evaluation(self.dir)
        cell = next(c for c in ev.cells if c["collective"] == "allreduce" and c["bytes"] == 4)
        self.assertAlmostEqual(cell["measured"]["recursive_doubling"], 2e-6)
        self.assertEqual(len([c for c in ev.cells if c["collective"] == "allreduce"]), 3)

    def test_identical_plans_pooled(self):
        # ring (4 µs) and recursive_doubling (1 µs) with one plan at 4 B: both count as their median, 2.5 µs,
        # and the model's choice (ring) is the fastest there; at 64 B their plans differ and nothing is pooled.
        path = os.path.join(self.dir, "decisions-model-np2.json")
        doc = bc.load_json(path)
        for r in doc["rows"]:
            for k, c in enumerate(r["candidates"]):
                c["plan"] = "same" if r["bytes"] == 4 else f"plan{k}"
        bc.write_json(path, doc)
        ev = dispatch_eval.Evaluation(self.dir)
        cells = {c["bytes"]: c for c in ev.cells if c["collective"] == "allreduce"}
        self.assertAlmostEqual(cells[4]["measured"]["ring"], 2.5e-6)
        self.assertAlmostEqual(cells[4]["measured"]["recursive_doubling"], 2.5e-6)
        self.assertAlmostEqual(cells[4]["model_regret"], 1.0)
        self.assertAlmostEqual(cells[64]["measured"]["ring"], 3e-6)
        self.assertAlmostEqual(cells[64]["measured"]["recursive_doubling"], 6e-6)

    def test_order_agreement(self):
        cells = [{"points": [{"predicted_s": 1, "measured_s": 1}, {"predicted_s": 2, "measured_s": 3},
                             {"predicted_s": 3, "measured_s": 2.9}]}]
        o = dispatch_eval.order_agreement(cells)
        self.assertEqual(o["pairs"], 3)
        self.assertAlmostEqual(o["agree"], 2 / 3)
        self.assertEqual(o["clear_pairs"], 2)
        self.assertAlmostEqual(o["clear_agree"], 1.0)

    def test_table_disagreement_is_reported(self):
        path = os.path.join(self.dir, "decisions-table-np2.json")
        with open(path) as f:
            doc = json.load(f)
        doc["rows"][0]["choice"] = "ring"  # allreduce 4 B: the table says recursive_doubling
        with open(path, "w") as f:
            json.dump(doc, f)
        ev = dispatch_eval.Evaluation(self.dir)
        self.assertTrue(any("the table says recursive_doubling" in n for n in ev.notes), ev.notes)

    def test_report_files(self):
        with contextlib.redirect_stdout(io.StringIO()):
            rc = dispatch_eval.main(["--from", self.dir, "--no-plots"])
        self.assertEqual(rc, 0)
        with open(os.path.join(self.dir, "report.md")) as f:
            md = f.read()
        for heading in ("## 1. Cost model accuracy", "## 2. Dispatcher regret", "## 3. Against native MPI",
                        "#### allreduce", "#### gatherv"):
            self.assertIn(heading, md)
        with open(os.path.join(self.dir, "report.json")) as f:
            self.assertIn("regret", json.load(f))

    def test_regret_stats(self):
        r = dispatch_eval.regret_stats([1.0, 1.0, 1.02, 2.0, 4.0])
        self.assertEqual((r["cells"], r["median"], r["worst"]), (5, 1.02, 4.0))
        self.assertAlmostEqual(r["p90"], 3.2)
        self.assertAlmostEqual(r["within_5pct"], 0.6)
        self.assertAlmostEqual(r["optimal"], 0.4)
        self.assertIsNone(dispatch_eval.regret_stats([]))


if __name__ == "__main__":
    unittest.main()
