#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""performance_table.py (./hpcoll bench --table) on the stored results in benchmarks/testdata/table/
(no MPI, no binary, no timing): reading the files, ratios, geometric means, the targets' marks,
the report (--from), the runs with a fake mpiexec, and bad input. The expected numbers are worked
out by hand from the fixture (see testdata/table/README.md).
Run by ctest (bench.performance_table) or directly: /usr/bin/python3 benchmarks/test_performance_table.py [-v]
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import bench_common as bc  # noqa: E402
import performance_table as pt  # noqa: E402

FIXTURE = os.path.join(HERE, "testdata", "table")
MIB2 = 2097152


def run(*args, cwd, env=None):
    """/usr/bin/python3 benchmarks/performance_table.py args... in cwd: (exit code, stdout + stderr)."""
    env = dict(os.environ if env is None else env, PYTHONDONTWRITEBYTECODE="1")
    proc = subprocess.run([sys.executable, os.path.join(HERE, "performance_table.py")] + list(args), cwd=cwd,
                          env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=100)
    return proc.returncode, proc.stdout


class Case(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.folder = os.path.join(self.dir, "table")
        shutil.copytree(FIXTURE, self.folder)

    def tearDown(self):
        self.tmp.cleanup()

    def read(self, *path):
        with open(os.path.join(*path)) as f:
            return f.read()

    def rewrite(self, name, change):
        path = os.path.join(self.folder, name)
        doc = json.loads(self.read(path))
        change(doc)
        with open(path, "w") as f:
            json.dump(doc, f)


class Analysis(Case):
    """The module's functions on the fixture."""

    def test_load(self):
        results = pt.load(self.folder)
        self.assertEqual([r["file"] for r in results.runs],
                         ["default-np2.json", "machine-np2.json", "tuning-np2.json", "default-np4.json"])
        self.assertEqual(results.collectives, ["bcast", "allreduce"])
        self.assertEqual(sorted(results.cells), [2, 4])
        self.assertEqual(sorted(results.cells[2][("bcast", 8)]), ["default", "machine", "tuning"])
        self.assertEqual(sorted(results.cells[2][("allreduce", MIB2)]), ["default", "machine"])

    def test_ratios_and_geometric_means(self):
        cells = pt.load(self.folder).cells[2]
        self.assertAlmostEqual(pt.ratio(cells[("bcast", 8)]["default"]), 1.1)
        self.assertEqual(set(pt.ratios(cells, "tuning")), {("bcast", 8)})
        means = pt.geomeans(cells, "default", ["bcast", "allreduce"])
        self.assertAlmostEqual(means["bcast"], (1.1 * 0.9) ** 0.5)
        self.assertAlmostEqual(means["allreduce"], (0.8 * 0.9) ** 0.5)
        self.assertAlmostEqual(means["all"], (1.1 * 0.9 * 0.8 * 0.9) ** 0.25)
        # The tuning column has no allreduce cell: no mean for it, the others from what is there.
        self.assertEqual(pt.geomeans(cells, "tuning", ["bcast", "allreduce"]), {"bcast": 1.0, "all": 1.0})

    def test_targets(self):
        checked = {(t["np"], t["config"], t["target"]): t for t in pt.check_targets(pt.load(self.folder))}
        self.assertEqual(len(checked), 8)  # np 2: 4 out of the box, 1 machine file; np 4: 2 and 1 (unmeasured)

        def target(np_, config, text):
            t = checked[(np_, config, text)]
            return t["met"], round(t["value"], 4) if t["value"] is not None else None, t["worst"]

        self.assertEqual(target(2, "default", "no cell above 1.05"), (False, 1.1, "bcast 8 B"))
        self.assertEqual(target(2, "default", "every collective's geometric mean ≤ 1.00"), (True, 0.995, "bcast"))
        # √(0.8 · 0.9) = 0.8485: just within 0.85
        self.assertEqual(target(2, "default", "allreduce's geometric mean ≤ 0.85"), (True, 0.8485, None))
        self.assertEqual(target(2, "default", "all cells together ≤ 0.95"), (True, 0.9188, None))
        self.assertEqual(target(2, "machine", "all cells together ≤ 0.85"), (True, 0.7071, None))
        self.assertEqual(target(4, "default", "every collective's geometric mean ≤ 0.90"), (False, 1.0, "allreduce"))
        self.assertEqual(target(4, "default", "all cells together ≤ 0.85"), (False, 0.866, None))
        self.assertEqual(target(4, "machine", "all cells together ≤ 0.85"), (None, None, None))
        self.assertEqual(pt.mark(checked[(4, "default", "all cells together ≤ 0.85")]), "0.87: **missed**")
        self.assertEqual(pt.mark(checked[(2, "default", "no cell above 1.05")]), "1.10 (bcast 8 B): **missed**")
        self.assertEqual(pt.mark(checked[(4, "machine", "all cells together ≤ 0.85")]), "not measured")

    def test_no_problems_in_the_fixture(self):
        self.assertEqual(pt.problems(pt.load(self.folder)), [])

    def test_problems(self):
        def wrong(doc):
            doc["rows"][1]["verified"] = False
            doc["machine_source"] = "/home/someone/.config/hpcoll/machine.json"
        self.rewrite("default-np2.json", wrong)
        self.rewrite("tuning-np2.json", lambda doc: doc.update(tuning_source=None))
        self.assertEqual(pt.problems(pt.load(self.folder)), [
            "default-np2.json: the default configuration read machine /home/someone/.config/hpcoll/machine.json, "
            "tuning table none",
            "tuning-np2.json: the tuning configuration read machine built-in defaults, tuning table none",
            "default-np2.json: bcast 2 MiB: hpcoll's result differs from the MPI library's"])


class FromFolder(Case):
    """performance_table.py --from DIR, as ./hpcoll bench --table --from DIR runs it."""

    def test_report(self):
        rc, out = run("--cwd", self.dir, "--from", "table", cwd=self.dir)
        self.assertEqual(rc, 0, out)
        lines = out.splitlines()
        at = lines.index("np 2 (2 ranks on 2 cores)")
        self.assertEqual(lines[at + 1:at + 14], [
            "  collective | S       | native µs | out of the box | machine file | tuning table",
            "  -----------+---------+-----------+----------------+--------------+-------------",
            "  bcast      | 8 B     |      1.00 |           1.10 |         0.50 |         1.00",
            "  bcast      | 2 MiB   |     100.0 |           0.90 |         1.00 |            —",
            "  bcast      | geomean |           |           0.99 |         0.71 |         1.00",
            "  -----------+---------+-----------+----------------+--------------+-------------",
            "  allreduce  | 8 B     |      1.00 |           0.80 |         0.50 |            —",
            "  allreduce  | 2 MiB   |     500.0 |           0.90 |         1.00 |            —",
            "  allreduce  | geomean |           |           0.85 |         0.71 |            —",
            "  -----------+---------+-----------+----------------+--------------+-------------",
            "  all cells  | geomean |           |           0.92 |         0.71 |         1.00",
            "",
            "np 4 (4 ranks on 2 cores, oversubscribed)"])
        self.assertIn("- np 2, out of the box: no cell above 1.05: 1.10 (bcast 8 B): **missed**", lines)
        self.assertIn("- np 4, machine file: all cells together ≤ 0.85: not measured", lines)
        md = self.read(self.folder, "report.md")
        for text in ("| **allreduce** | geomean |  | 0.85 | 0.71 | — |",
                     "- machine file (`machine`): machine /calibrated/machine.json, tuning table none",
                     "- tuning table (`tuning`): machine built-in defaults, tuning table /tuned/tuning.json",
                     "- MPI library: Open MPI v4.1.4, package: Debian OpenMPI",
                     "- Settings: 3 trials per cell and method, hpcoll and native alternating (the order flipping "
                     "every trial); per trial 4 MiB / S calls, 20 to 2000, fewer where a trial would last more "
                     "than 20 ms",
                     "- np 2, out of the box: allreduce's geometric mean ≤ 0.85: 0.85: met"):
            self.assertIn(text, md)
        self.assertLess(md.index("### np 2"), md.index("### np 4"))
        report = json.loads(self.read(self.folder, "report.json"))
        cell = next(c for c in report["cells"] if (c["np"], c["collective"], c["bytes"]) == (2, "bcast", 8))
        self.assertEqual(cell["schedule"], {"default": "binomial", "machine": "binomial", "tuning": "binomial"})
        self.assertAlmostEqual(cell["ratio"]["machine"], 0.5)
        self.assertEqual(len(report["targets"]), 8)
        self.assertEqual(report["problems"], [])

    def test_wrong_result_fails_the_report(self):
        self.rewrite("machine-np2.json", lambda doc: doc["rows"][0].update(verified=False))
        rc, out = run("--from", self.folder, cwd=self.dir)
        self.assertEqual(rc, 1, out)
        self.assertIn("- **Problems**: machine-np2.json: bcast 8 B: hpcoll's result differs from the MPI library's",
                      out)

    def test_bad_files(self):
        for name, change, message in (
                ("default-np4.json", lambda doc: doc.update(format="hpcoll-mcast-1"),
                 'default-np4.json: not hpcoll_table output ("format": "hpcoll-table-1")'),
                ("default-np4.json", lambda doc: doc.update(np=8), "default-np4.json: the file says np 8"),
                ("machine-np2.json", lambda doc: doc["rows"][2].update(native_median_s=0),
                 "machine-np2.json: row 2: 'native_median_s' is 0, not a positive number"),
                ("tuning-np2.json", lambda doc: doc["rows"][0].update(bytes="8"),
                 "tuning-np2.json: row 0: \"bytes\" is '8', not a whole number")):
            with self.subTest(message=message):
                shutil.rmtree(self.folder)
                shutil.copytree(FIXTURE, self.folder)
                self.rewrite(name, change)
                rc, out = run("--from", self.folder, cwd=self.dir)
                self.assertEqual(rc, 1, out)
                self.assertIn("[hpcoll] bench --table: cannot read " + message, out)
                self.assertFalse(os.path.exists(os.path.join(self.folder, "report.md")))

    def test_empty_folder(self):
        empty = os.path.join(self.dir, "empty")
        os.makedirs(empty)
        rc, out = run("--from", empty, cwd=self.dir)
        self.assertEqual(rc, 1, out)
        self.assertIn(f"no hpcoll_table results in {empty}", out)


FAKE_MPIEXEC = """#!{python}
# A stand-in for mpiexec: copies the stored result of the same name where hpcoll_table would write its JSON.
import os, shutil, sys
args = sys.argv[1:]
print("fake mpiexec -n", args[args.index("-n") + 1],
      *[k + "=" + os.environ.get(k, "(unset)") for k in ("HOME", "XDG_CONFIG_HOME", "HPCOLL_MACHINE", "HPCOLL_TUNING",
                                                          "HPCOLL_ALLREDUCE")])
for a in args:
    if a.startswith("--out="):
        path = a[len("--out="):]
        shutil.copy(os.path.join({fixture!r}, os.path.basename(path)), path)
"""


class Runs(Case):
    """The runs, with a fake mpiexec on PATH and the machine file and tuning table given (no calibrate, no tune)."""

    def setUp(self):
        super().setUp()
        bindir = os.path.join(self.dir, "bin")
        os.makedirs(bindir)
        self.fake = os.path.join(bindir, "mpiexec")
        with open(self.fake, "w") as f:
            f.write(FAKE_MPIEXEC.format(python=sys.executable, fixture=FIXTURE))
        os.chmod(self.fake, 0o755)
        for name in ("m.json", "t.json"):
            with open(os.path.join(self.dir, name), "w") as f:
                f.write("{}\n")
        self.env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""), HPCOLL_ALLREDUCE="ring",
                        HPCOLL_MACHINE="/elsewhere/machine.json", HOME=os.path.join(self.dir, "home"))

    def run_fake(self, *args):
        return run("--binary", self.fake, "--mpiexec-flags", "--oversubscribe --bind-to none", "--cwd", self.dir,
                   *args, cwd=self.dir, env=self.env)

    def test_three_columns(self):
        rc, out = self.run_fake("--np", "2", "--machine", "m.json", "--tuning", "t.json", "--quick", "--out", "r")
        self.assertEqual(rc, 0, out)
        self.assertIn("[hpcoll] bench --table:   machine-np2.json: 4 rows, ", out)
        folder = os.path.join(self.dir, "r")
        commands = self.read(folder, "commands.txt")
        order = [line.split(":")[0][2:] for line in commands.splitlines() if line.startswith("# ")]
        self.assertEqual(order, ["default-np2", "machine-np2", "tuning-np2"])
        pinned = bc.timing_flags(2, False)
        self.assertIn(f"mpiexec -n 2 {pinned} {self.fake} --trials=3 ".replace("  ", " "), commands)
        logs = {c: self.read(folder, f"{c}-np2.log") for c in ("default", "machine", "tuning")}
        # Every run: no machine file where hpcoll looks by default, no schedule forced; each adds its own file.
        for c, text in logs.items():
            self.assertIn("HPCOLL_ALLREDUCE=(unset)", text, c)
            self.assertNotIn(f"HOME={self.env['HOME']}", text, c)
            self.assertRegex(text, r"HOME=(\S+) XDG_CONFIG_HOME=\1 ", c)
        self.assertIn("HPCOLL_MACHINE=(unset) HPCOLL_TUNING=(unset)", logs["default"])
        self.assertIn(f"HPCOLL_MACHINE={os.path.join(self.dir, 'm.json')} HPCOLL_TUNING=(unset)", logs["machine"])
        self.assertIn(f"HPCOLL_MACHINE=(unset) HPCOLL_TUNING={os.path.join(self.dir, 't.json')}", logs["tuning"])
        meta = json.loads(self.read(folder, "report.json"))["meta"]
        self.assertEqual((meta["command"], meta["configs"], meta["quick"], meta["failed"]),
                         ("./hpcoll bench --table --np 2 --machine m.json --tuning t.json --quick --out r",
                          ["default", "machine", "tuning"], True, []))
        self.assertIn("- **--quick run**", self.read(folder, "report.md"))

    def test_a_failed_run_is_reported(self):
        # No stored result for np 3: those runs fail, np 2's make the report.
        rc, out = self.run_fake("--np", "2", "--np", "3", "--configs", "default", "--out", "r")
        self.assertEqual(rc, 1, out)
        self.assertIn("[hpcoll] bench --table:   default-np3: FAILED", out)
        self.assertIn("- **Failed runs** (no JSON, cells missing): default-np3", self.read(self.dir, "r", "report.md"))

    def test_bad_options(self):
        for args, message in (
                (["--configs", "default,fast"], "--configs default,fast: fast; choose from default, machine, tuning"),
                (["--machine", "nowhere.json"], f"--machine {os.path.join(self.dir, 'nowhere.json')}: no such file"),
                (["--configs", "default", "--tuning", "t.json"],
                 "--tuning is for the tuning column, which --configs default leaves out"),
                (["--np", "1"], "--np must be >= 2")):
            with self.subTest(args=args):
                rc, out = self.run_fake(*args, "--out", "bad")
                self.assertNotEqual(rc, 0, out)
                self.assertIn(message, out)
                self.assertFalse(os.path.exists(os.path.join(self.dir, "bad", "report.md")))

    def test_help(self):
        rc, out = run("--help", cwd=self.dir)
        self.assertEqual(rc, 0, out)
        self.assertTrue(out.startswith("usage: ./hpcoll bench --table "), out)
        self.assertNotIn("--mpiexec-flags", out)


if __name__ == "__main__":
    unittest.main()
