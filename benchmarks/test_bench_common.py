#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Unit test of benchmarks/bench_common.py, the module the benchmark scripts share: the collective
list reader, Google Benchmark JSON reading, statistics, formats, the command-line helpers, the
environment of an evaluation run, and that no script's import leads back to itself.
Run by ctest (bench.common) or directly: /usr/bin/python3 benchmarks/test_bench_common.py [-v]
"""

import argparse
import ast
import json
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import bench_common as bc  # noqa: E402

TESTDATA = os.path.join(HERE, "testdata")
SCRIPTS = ["bench_common", "run_bench", "report", "tune", "dispatch_eval", "overlap_report", "mcast_report",
           "compare_builds"]


def fixture(*path):
    return bc.load_json(os.path.join(TESTDATA, *path))


class CollectiveList(unittest.TestCase):
    def test_from_bench_context_string(self):
        doc = fixture("bench", "np2.json")
        self.assertIsInstance(doc["context"][bc.CONTEXT_KEY], str)  # Google Benchmark context values are strings
        cl = bc.read_collectives(doc)
        self.assertEqual(cl.names(), ["bcast", "reduce", "allreduce", "gather", "gatherv", "scatter", "allgather",
                                      "reduce_scatter_block", "alltoall", "alltoallv"])
        self.assertTrue(cl.get("allreduce").vector)
        self.assertFalse(cl.get("alltoall").vector)
        self.assertTrue(cl.get("gatherv").per_rank)
        self.assertFalse(cl.get("gather").per_rank)
        self.assertIn("segmented_ring<65536>", cl.get("allreduce").candidates)

    def test_from_decisions_file(self):
        cl = bc.read_collectives(fixture("dispatch", "decisions-model-np2.json"))
        self.assertEqual(len(cl), 10)
        self.assertEqual(cl.get("alltoallv").message_size, "per_rank")

    def test_order_comes_from_the_list(self):
        cl = bc.Collectives([bc.Collective("alltoall", "all_blocks", ()), bc.Collective("bcast", "vector", ())])
        self.assertEqual(sorted(["bcast", "zeta", "alltoall", "alpha"], key=cl.sort_key),
                         ["alltoall", "bcast", "alpha", "zeta"])
        cl.merge(bc.Collectives([bc.Collective("bcast", "all_blocks", ()), bc.Collective("scan", "vector", ())]))
        self.assertEqual(cl.names(), ["alltoall", "bcast", "scan"])
        self.assertTrue(cl.get("bcast").vector)  # the first description stays

    def test_absent_and_malformed(self):
        self.assertEqual(len(bc.read_collectives({"context": {"np": "2"}, "benchmarks": []})), 0)
        with self.assertRaisesRegex(bc.UnknownCollective, "there is none"):
            bc.Collectives().get("bcast")
        self.assertFalse(bc.Collectives().is_vector("bcast"))
        bad = [{"context": {bc.CONTEXT_KEY: "[{"}},
               {"context": {bc.CONTEXT_KEY: json.dumps([{"name": "bcast", "message_size": "huge", "candidates": []}])}},
               {"collectives": {"name": "bcast"}}]
        for doc in bad:
            with self.assertRaises(ValueError, msg=doc):
                bc.read_collectives(doc)
        f = bc.read_bench_doc(dict(bad[0], benchmarks=[]), "np2.json")
        self.assertIn("np2.json", f.list_problem)
        self.assertEqual(len(f.collectives), 0)


class BenchJson(unittest.TestCase):
    def test_names_runs_and_medians(self):
        self.assertEqual(bc.parse_name("allreduce/ring/4096/manual_time"), ("allreduce", "ring", 4096))
        self.assertEqual(bc.parse_name("alltoall/linear_sync<8>/64"), ("alltoall", "linear_sync<8>", 64))
        self.assertIsNone(bc.parse_name("allreduce/ring"))
        f = bc.read_bench_doc(fixture("bench", "np4.json"), "np4.json")
        self.assertEqual((f.np, f.cores), (4, 2))
        runs = {(r.collective, r.label, r.size): r for r in f.runs}
        ring = runs[("allreduce", "ring", 1024)]
        self.assertEqual(len(ring.entries), 1)  # the median aggregate, not the mean
        self.assertEqual(bc.entry_us(ring.entries[0]), 12.0)
        self.assertEqual(bc.native_column(["default", "native_alg2", "native"]), "native")
        self.assertEqual(bc.native_column(["native_alg1", "native_mpich"]), "native_mpich")
        self.assertIsNone(bc.native_column(["native_alg1", "ring"]))
        self.assertFalse(bc.is_candidate("default") or bc.is_candidate("native_alg3"))

    def test_errors_reported(self):
        f = bc.read_bench_doc(fixture("bench", "np2.json"), "np2.json")
        self.assertEqual(f.errors, ["np2.json: alltoall/linear/1024: hpcoll_bench: wrong result"])


class Numbers(unittest.TestCase):
    def test_statistics(self):
        self.assertEqual(bc.percentile([1, 2, 3, 4, 5], 50), 3)
        self.assertAlmostEqual(bc.percentile(list(range(1, 11)), 90), 9.1)
        self.assertEqual(bc.percentile([7], 90), 7)
        self.assertIsNone(bc.percentile([], 90))
        self.assertAlmostEqual(bc.geomean([1, 4, 0, None]), 2.0)
        self.assertIsNone(bc.geomean([0, None]))

    def test_formats(self):
        self.assertEqual([bc.human_size(b) for b in (100, 1024, 1536, 1 << 20)], ["100 B", "1 KiB", "1.5 KiB", "1 MiB"])
        self.assertEqual([bc.fmt_bytes(b) for b in (1000, 2048, 3000, bc.U64_MAX)], ["1000 B", "2 KiB", "3000 B", "inf"])
        self.assertEqual([bc.fmt_us(t) for t in (None, 1.234, 12.34, 1234.5)], ["—", "1.23", "12.3", "1234"])
        self.assertEqual(bc.us(2.5e-6), "2.50")
        self.assertEqual(bc.short_name("reduce_scatter_allgather<recursive_halving, recursive_doubling>"),
                         "rs+ag<rhalv,rdbl>")
        self.assertEqual(bc.short_name("segmented_ring<65536>"), "segring<64K>")

    def test_tables(self):
        self.assertEqual(bc.text_table(["a", "b"], [["x", "1"], None, ["yy", "22"]]).splitlines(),
                         ["  a  |  b", "  ---+---", "  x  |  1", "  ---+---", "  yy | 22"])
        self.assertEqual(bc.md_table(["a", "b"], [[1, 2]]), "| a | b |\n| --- | --- |\n| 1 | 2 |")


class CommandLine(unittest.TestCase):
    def parse(self, argv):
        ap = argparse.ArgumentParser()
        bc.add_run_options(ap, "np", "quick", "out")
        ap.add_argument("--from", dest="reuse", action="append", default=[])
        return bc.parse_run_args(ap, argv, "hpcoll_x", paths=("out", "reuse"))

    def test_hidden_options_relative_paths_and_extra(self):
        args = self.parse(["--binary", "b/x", "--mpiexec-flags", "--oversubscribe --bind-to none", "--cwd", "/w",
                           "--np", "2", "--out", "r", "--from", "/abs", "--from", "rel", "--", "--flag", "v"])
        self.assertEqual((args.binary, args.np, args.out, args.reuse), ("b/x", [2], "/w/r", ["/abs", "/w/rel"]))
        self.assertEqual(args.extra, ["--flag", "v"])
        self.assertEqual(bc.command_text(["./hpcoll", "x"], args), "./hpcoll x --np 2 --out r --from /abs --from rel "
                                                                   "-- --flag v")
        self.assertTrue(self.parse([]).binary.endswith(os.path.join("build", "benchmarks", "hpcoll_x")))

    def test_process_counts(self):
        log = bc.Log("test")
        args = self.parse(["--np", "1"])
        self.assertEqual(bc.process_counts(self.parse([]), [2, 4], 2, log), [2, 4])
        with self.assertRaisesRegex(SystemExit, r"^\[hpcoll\] test: --np must be >= 2$"):
            bc.process_counts(args, [2], 2, log)

    def test_schedule_overrides(self):
        env = {"HPCOLL_ALLREDUCE": "ring", "HPCOLL_MCAST": "binomial", "HPCOLL_TUNING": "t.json",
               "HPCOLL_MACHINE": "m.json", "HPCOLL_CHECK": "1", "HPCOLL_VERBOSE": "1",
               "HPCOLL_MAX_MESSAGE_BYTES": "64", "PATH": "/bin"}
        self.assertEqual(bc.schedule_overrides(env), ["HPCOLL_ALLREDUCE", "HPCOLL_MCAST"])


class Imports(unittest.TestCase):
    def local_imports(self, module):
        with open(os.path.join(HERE, module + ".py")) as f:
            tree = ast.parse(f.read())
        names = set()
        for node in ast.walk(tree):  # function-level imports count too
            if isinstance(node, ast.Import):
                names |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module)
        return sorted(names & set(SCRIPTS))

    def test_no_cycle_and_the_shared_module_imports_no_script(self):
        graph = {m: self.local_imports(m) for m in SCRIPTS}
        self.assertEqual(graph["bench_common"], [])
        for m, deps in graph.items():
            if m != "bench_common":
                self.assertIn("bench_common", deps, m)
        state = {}

        def visit(m, path):
            self.assertNotEqual(state.get(m), "open", "import cycle: " + " -> ".join(path + [m]))
            if state.get(m) == "done":
                return
            state[m] = "open"
            for d in graph[m]:
                visit(d, path + [m])
            state[m] = "done"
        for m in SCRIPTS:
            visit(m, [])

    def test_each_module_imports_alone(self):
        for m in SCRIPTS:
            proc = subprocess.run([sys.executable, "-c", f"import {m}"], cwd=HERE, capture_output=True, text=True,
                                  env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
            self.assertEqual(proc.returncode, 0, f"import {m}: {proc.stderr}")


if __name__ == "__main__":
    unittest.main()
