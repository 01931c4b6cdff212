#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The report scripts run as ./hpcoll runs them, on the stored results in benchmarks/testdata/
(no MPI, no binary), each in a temporary folder: report.py DIR, tune.py --from, dispatch_eval.py
--from, overlap_report.py --from, mcast_report.py --from, compare_builds.py --from, and every
script's --help. Checks table rows, report files and plots.
Run by ctest (bench.report_scripts) or directly: /usr/bin/python3 benchmarks/test_reports.py [-v]
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.join(HERE, "testdata")
U64 = (1 << 64) - 1
# What ./hpcoll passes (cmd_tune, cmd_bench_report): not part of the user's command.
HIDDEN = ["--binary", "/nonexistent/hpcoll_bench", "--mpiexec-flags", "--oversubscribe --bind-to none"]


def run(script, *args, cwd):
    """/usr/bin/python3 benchmarks/<script> args... in cwd: (exit code, stdout + stderr)."""
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONDONTWRITEBYTECODE="1")
    proc = subprocess.run([sys.executable, os.path.join(HERE, script)] + list(args), cwd=cwd, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=100)
    return proc.returncode, proc.stdout


class Case(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def copy(self, name):
        """A copy of testdata/<name> in the temporary folder (the scripts write next to their input)."""
        dst = os.path.join(self.dir, name)
        shutil.copytree(os.path.join(TESTDATA, name), dst)
        return dst

    def run_ok(self, script, *args):
        rc, out = run(script, *args, cwd=self.dir)
        self.assertEqual(rc, 0, out)
        return out

    def assertPng(self, path):
        with open(path, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n", path)

    def read(self, *path):
        with open(os.path.join(*path)) as f:
            return f.read()


class BenchReport(Case):
    """report.py DIR: ./hpcoll bench's tables and plots (run_bench.py runs it this way)."""

    def test_tables_and_plots(self):
        folder = self.copy("bench")
        out = self.run_ok("report.py", "bench")
        lines = out.splitlines()
        # Sections in the order of the JSON's collective list, np ascending.
        sections = [l for l in lines if l.startswith("== ")]
        self.assertEqual(sections[:3], ["== allreduce, np=2 ==",
                                        "== allreduce, np=4  (oversubscribed: 4 ranks on 2 cores) ==",
                                        "== gatherv, np=2 =="])
        self.assertEqual(sections[-1], "== alltoall, np=4  (oversubscribed: 4 ranks on 2 cores) ==")
        at = lines.index("== allreduce, np=2 ==")
        self.assertEqual(lines[at + 1], "  S              |   rdbl |   ring | default | native | best/native")
        self.assertIn("  1 MiB          | 500.0  | 300.0* |  350.0  | 400.0  |        0.75", lines)
        # np 4: the median aggregate of the repetitions (12 µs), not their mean (20 µs).
        self.assertIn("  1 KiB          |  5.50* |  12.0  |   7.00  |  6.00  |        0.92", lines)
        self.assertIn("  1 MiB |       10.00 |  21% |  35% |     30% |    26%", lines)  # memcpy bound
        self.assertIn("  np2.json: alltoall/linear/1024: hpcoll_bench: wrong result", lines)
        self.assertNotIn("NOTE: the JSON's collective list", out)
        for png in ("allreduce_np2.png", "gatherv_np4.png", "heatmap_allreduce.png", "heatmap_alltoall.png"):
            self.assertPng(os.path.join(folder, png))

    def rewrite_list(self, folder, change):
        for name in ("np2.json", "np4.json"):
            path = os.path.join(folder, name)
            with open(path) as f:
                doc = json.load(f)
            change(doc["context"])
            with open(path, "w") as f:
                json.dump(doc, f)

    def test_collective_order_and_size_rule_come_from_the_json(self):
        folder = self.copy("bench")

        def alltoall_first(ctx):
            lst = json.loads(ctx["hpcoll_collectives"])
            ctx["hpcoll_collectives"] = json.dumps(sorted(lst, key=lambda c: c["name"] != "alltoall"))
        self.rewrite_list(folder, alltoall_first)
        sections = [l for l in self.run_ok("report.py", "bench", "--no-plots").splitlines() if l.startswith("== ")]
        self.assertEqual(sections[0], "== alltoall, np=2 ==")
        self.assertEqual(sections[2], "== allreduce, np=2 ==")

    def test_without_a_collective_list(self):
        folder = self.copy("bench")
        self.rewrite_list(folder, lambda ctx: ctx.pop("hpcoll_collectives"))
        out = self.run_ok("report.py", "bench", "--no-plots")
        self.assertIn("NOTE: the JSON's collective list (context 'hpcoll_collectives') does not name allreduce, "
                      "alltoall, gatherv", out)
        self.assertIn("  1 MiB          | 500.0  | 300.0* |  350.0  | 400.0  |        0.75", out.splitlines())


class TuneFrom(Case):
    """tune.py --from PATH as ./hpcoll tune --from runs it: hidden options first, paths from --cwd."""

    def test_table(self):
        self.copy("bench")
        out = self.run_ok("tune.py", *HIDDEN, "--cwd", self.dir, "--from", "bench", "--out", "t/tuning.json")
        self.assertIn("[hpcoll] tune: wrote ", out)
        table = json.loads(self.read(self.dir, "t", "tuning.json"))
        self.assertEqual(table["format"], "hpcoll-tuning-1")
        self.assertEqual(table["command"], "./hpcoll tune --from bench --out t/tuning.json")
        group = {}
        for e in table["entries"]:
            self.assertEqual(e["min_ranks"], e["max_ranks"])
            group.setdefault((e["collective"], e["min_ranks"]), []).append((e["min_bytes"], e["max_bytes"],
                                                                            e["schedule"]))
        self.assertEqual(list(group)[:2], [("allreduce", 2), ("allreduce", 4)])  # the list's order
        self.assertEqual(group[("allreduce", 2)], [(0, 32767, "recursive_doubling"), (32768, U64, "ring")])
        # gatherv is "per_rank" in the list: one entry per np, the best geometric mean.
        self.assertEqual(group[("gatherv", 2)], [(0, U64, "linear_sync<8>")])
        self.assertEqual(group[("gatherv", 4)], [(0, U64, "linear")])
        summary = self.read(self.dir, "t", "summary.txt")
        self.assertIn("  geometric mean over 2 sizes: linsync<8> 14.1 us, linear 15.5 us", summary)

    def test_refuses_json_without_the_collective_list(self):
        folder = self.copy("bench")
        path = os.path.join(folder, "np2.json")
        doc = json.loads(self.read(path))
        del doc["context"]["hpcoll_collectives"]
        with open(path, "w") as f:
            json.dump(doc, f)
        rc, out = run("tune.py", "--from", path, "--out", os.path.join(self.dir, "t.json"), cwd=self.dir)
        self.assertNotEqual(rc, 0)
        self.assertIn("[hpcoll] tune: cannot build the table:", out)
        self.assertIn("not in the collective list", out)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "t.json")))


class DispatchFrom(Case):
    """dispatch_eval.py --from DIR (./hpcoll tune --evaluate --from DIR)."""

    def test_report(self):
        folder = self.copy("dispatch")
        out = self.run_ok("dispatch_eval.py", *HIDDEN, "--cwd", self.dir, "--from", "dispatch")
        self.assertIn("regret, model alone: median 1.00, p90 3.10, worst 4.00 (4 cells)", out)
        self.assertIn("cells where native MPI is > 10% faster than the dispatched schedule: 3", out)
        md = self.read(folder, "report.md")
        for text in ("## 1. Cost model accuracy", "## 2. Dispatcher regret", "## 3. Against native MPI",
                     "#### allreduce", "#### gatherv",
                     "| **all** | 1.00 | 3.10 | 4.00 | 75% | 75% | 1.00 | 1.70 | 2.00 | 75% | 75% |",
                     "- Tuning table: `tuning.json` (given)"):
            self.assertIn(text, md)
        self.assertLess(md.index("#### allreduce"), md.index("#### gatherv"))  # the list's order
        self.assertNotIn("## Notes", md)  # the table (relative table_path) agrees with the decisions
        self.assertIn("regret", json.loads(self.read(folder, "report.json")))
        for png in ("model_vs_measured.png", "regret.png"):
            self.assertPng(os.path.join(folder, png))


class OverlapFrom(Case):
    """overlap_report.py --from DIR (./hpcoll bench --overlap --from DIR)."""

    def test_report(self):
        folder = self.copy("overlap")
        out = self.run_ok("overlap_report.py", "--cwd", self.dir, "--from", "overlap")
        lines = out.splitlines()
        at = lines.index("alltoall, np = 2: speed-up = t_blocking_then_compute / t_ovl (> 1: overlap pays)")
        self.assertEqual(lines[at + 1:at + 6], ["  variant      | 1 KiB | 16 KiB", "  -------------+-------+-------",
                                                "  native/never |  1.13 |   1.02", "  manual/inner |  1.45 |   1.47",
                                                "  thread       |  1.78 |   1.83"])
        self.assertLess(at, out.index("allreduce, np = 2: speed-up"))  # the order of the run's settings
        md = self.read(folder, "report.md")
        self.assertIn("### alltoall, np = 2: overlap % (OSU / IMB)", md)
        self.assertIn("| thread | 1.78 | 1.83 |", md)
        self.assertIn("- **--quick run**: few sizes and repetitions", md)
        report = json.loads(self.read(folder, "report.json"))
        self.assertEqual(len(report["rows"]), 8)
        for png in ("overlap_np2_alltoall.png", "overlap_np2_allreduce.png"):
            self.assertPng(os.path.join(folder, png))


class McastFrom(Case):
    """mcast_report.py --from FILE --out DIR (./hpcoll bench --mcast --from FILE)."""

    def test_report(self):
        source = os.path.join(TESTDATA, "mcast", "np4.json")
        out = self.run_ok("mcast_report.py", "--cwd", self.dir, "--from", source, "--out", "m")
        self.assertIn("  8 MB |  5100 | 1.02 | 0.98 |  0.94", out.splitlines())
        md = self.read(self.dir, "m", "report.md")
        self.assertIn("| 1 | 8 B (1 of 2) | 8 B (1 of 2) | 8 B (1 of 2) | no |", md)
        self.assertIn("| 3 | every size (2) | every size (2) | every size (2) | yes |", md)
        rows = json.loads(self.read(self.dir, "m", "report.json"))["rows"]
        self.assertEqual({r["bytes"] for r in rows}, {8, 8000000})
        self.assertTrue(all(isinstance(r["bytes"], int) for r in rows))
        for png in ("mcast_np4.png", "mcast_ratio_np4.png"):
            self.assertPng(os.path.join(self.dir, "m", png))


class CompareFrom(Case):
    """compare_builds.py --from DIR (./hpcoll bench --compare --from DIR); the expected ratios are worked out
    by hand from the values in testdata/compare (see its README)."""

    def test_report(self):
        folder = self.copy("compare")
        lines = self.run_ok("compare_builds.py", *HIDDEN, "--cwd", self.dir, "--from", "compare").splitlines()
        at = lines.index("allreduce, np = 2 (2 ranks on 2 cores)")
        self.assertEqual(lines[at + 1:at + 9], [
            "                         | rows | fast-mode | median |  min | before µs | after µs",
            "  -----------------------+------+-----------+--------+------+-----------+---------",
            # (0.75 · 1.10 · 1 · 0.80)^(1/4) = 0.90; medians (0.75 · 2.20 · 1 · 0.80)^(1/4) = 1.07;
            # minima (0.75 · 1.10 · 1 · 0.75)^(1/4) = 0.89
            "  hpcoll rows, geomean   |    4 |      0.90 |   1.07 | 0.89 |           |         ",
            "  native rows, geomean   |    2 |      1.05 |   1.05 | 1.00 |           |         ",  # √1.1 = 1.05
            "  -----------------------+------+-----------+--------+------+-----------+---------",
            "  allreduce/default/8    |      |      0.75 |   0.75 | 0.75 |      2.00 |     1.50",
            "  allreduce/ring/1024    |      |      0.80 |   0.80 | 0.75 |      8.00 |     6.40",
            # bimodal: after 11, 22, 23 µs; the plain median (22 / 10 = 2.2) reports a slow-down, the
            # fast-mode median and the minimum do not: the columns disagree
            "  allreduce/default/1024 |      |      1.10 |   2.20 | 1.10 |      10.0 |     11.0"])
        self.assertIn("  bcast/binomial/8     |      |      0.50 |   0.50 | 0.50 |      1.00 |     0.50", lines)
        self.assertIn("  hpcoll rows, geomean |    4 |      0.90 |   0.90 | 0.90 |           |         ", lines)
        self.assertIn("overall, fast-mode ratio after/before: hpcoll rows (8): geomean 0.90, median 1.00; "
                      "native rows (4): geomean 1.02, median 1.00", lines)
        self.assertEqual(lines[lines.index("Rows in one build only:") + 1], "- np 2 bcast/linear/8: only in after")
        self.assertEqual(self.read(folder, "report.txt").splitlines(), lines[:-1])  # all but the log line
        md = self.read(folder, "report.md")
        self.assertIn("### bcast, np = 2 (2 ranks on 2 cores)", md)
        self.assertIn("| allreduce/ring/1024 |  | 0.80 | 0.80 | 0.75 | 8.00 | 6.40 |", md)
        self.assertIn("- Settings: 3 round(s), the builds alternating (odd rounds before first); sizes 8 B..1 KiB; "
                      "Open MPI v4.1.4", md)
        report = json.loads(self.read(folder, "report.json"))
        self.assertEqual(report["only_in_one_build"], [{"np": 2, "name": "bcast/linear/8", "only_in": "after"}])
        bimodal = next(r for r in report["rows"] if r["name"] == "allreduce/default/1024")
        self.assertEqual((bimodal["after_us"], bimodal["after_fast_us"], bimodal["after_median_us"]), ([11, 22, 23], 11, 22))
        self.assertEqual(len(report["rows"]), 12)

    def test_before_must_be_executable(self):
        rc, out = run("compare_builds.py", "--before", "/nonexistent/hpcoll_bench", "--out", "c", cwd=self.dir)
        self.assertEqual(rc, 2, out)
        self.assertIn("error: --before /nonexistent/hpcoll_bench: no executable file", out)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "c")))


FAKE_MPIEXEC = """#!{python}
# A stand-in for mpiexec: writes the stored results (testdata) where the benchmark would write its JSON.
import os, shutil, sys
args = sys.argv[1:]
n = args[args.index("-n") + 1]
print("fake mpiexec -n", n, "HPCOLL_ALLREDUCE=" + os.environ.get("HPCOLL_ALLREDUCE", "(unset)"),
      "HPCOLL_TUNING=" + os.environ.get("HPCOLL_TUNING", "(unset)"))
if os.environ.get("FAKE_FAIL"):
    print("hpcoll_bench: error: boom")
    sys.exit(3)
decisions_only = "--hpcoll_decisions_only" in args
for a in args:
    name, _, path = a.partition("=")
    if name in ("--benchmark_out", "--out") and not decisions_only:
        shutil.copy(os.environ["FAKE_FIXTURE"].replace("{{np}}", n), path)
    elif name == "--hpcoll_decisions_out":
        which = "table" if decisions_only else "model"
        shutil.copy(os.path.join(os.environ["FAKE_DECISIONS"], f"decisions-{{which}}-np{{n}}.json"), path)
"""


class RunModes(Case):
    """The scripts' runs (./hpcoll bench, tune, tune --evaluate, bench --overlap, bench --mcast, bench --compare)
    with a fake mpiexec on PATH that copies the stored results into place: the runner, logs, commands.txt, the
    reports."""

    def setUp(self):
        super().setUp()
        bindir = os.path.join(self.dir, "bin")
        os.makedirs(bindir)
        self.fake = os.path.join(bindir, "mpiexec")
        with open(self.fake, "w") as f:
            f.write(FAKE_MPIEXEC.format(python=sys.executable))
        os.chmod(self.fake, 0o755)
        self.env = {"PATH": bindir + os.pathsep + os.environ.get("PATH", ""), "HPCOLL_ALLREDUCE": "ring"}

    def run_fake(self, script, fixture, *args, rc=0, **env):
        saved = dict(os.environ)
        os.environ.update(self.env, FAKE_FIXTURE=os.path.join(TESTDATA, fixture), **env)
        try:
            got, out = run(script, "--binary", self.fake, "--mpiexec-flags", "--oversubscribe --bind-to none",
                           *args, cwd=self.dir)
        finally:
            os.environ.clear()
            os.environ.update(saved)
        self.assertEqual(got, rc, out)
        return out

    def test_bench(self):
        out = self.run_fake("run_bench.py", "bench/np{np}.json", "--np", "2", "--np", "4", "--quick", "--out", "r")
        self.assertRegex(out, r"\[hpcoll\] bench:   np2\.json: 25 rows, \d+ s\n")
        report = self.read(self.dir, "r", "report.txt")
        self.assertIn("  1 MiB          | 500.0  | 300.0* |  350.0  | 400.0  |        0.75", report.splitlines())
        self.assertPng(os.path.join(self.dir, "r", "heatmap_gatherv.png"))
        commands = self.read(self.dir, "r", "commands.txt")
        self.assertIn("# np4: rc=0, ", commands)
        self.assertIn("mpiexec -n 4 --oversubscribe --bind-to none " + self.fake + " --hpcoll_sizes=4:1048576 ",
                      commands)
        self.assertIn("fake mpiexec -n 2", self.read(self.dir, "r", "np2.log"))

    def test_bench_failure(self):
        out = self.run_fake("run_bench.py", "bench/np{np}.json", "--np", "2", "--out", "r", rc=1, FAKE_FAIL="1")
        self.assertRegex(out, r"\[hpcoll\] bench:   np2: FAILED \(exit 3\) after \d+ s; from r/np2\.log:\n")
        self.assertIn("    hpcoll_bench: error: boom", out)
        self.assertIn("[hpcoll] bench: every run failed; no report", out)

    def test_tune(self):
        out = self.run_fake("tune.py", "bench/np{np}.json", "--np", "2", "--np", "4", "--out", "t/tuning.json",
                            "--", "--benchmark_enable_random_interleaving=false")
        self.assertIn("[hpcoll] tune:   np4.json: 30 rows", out)
        table = json.loads(self.read(self.dir, "t", "tuning.json"))
        self.assertEqual(table["command"], "./hpcoll tune --np 2 --np 4 --out t/tuning.json -- "
                                           "--benchmark_enable_random_interleaving=false")
        self.assertEqual(len(table["entries"]), 10)
        self.assertTrue(os.path.exists(os.path.join(self.dir, "t", "np2.json")))

    def test_evaluate(self):
        table = os.path.join(TESTDATA, "dispatch", "tuning.json")
        out = self.run_fake("dispatch_eval.py", "dispatch/np{np}.json", "--np", "2", "--table", table, "--out", "d",
                            "--no-plots", FAKE_DECISIONS=os.path.join(TESTDATA, "dispatch"))
        self.assertIn("[hpcoll] tune --evaluate: unset for every run: HPCOLL_ALLREDUCE", out)
        self.assertIn("regret, model+table: median 1.00, p90 1.70, worst 2.00 (4 cells)", out)
        self.assertIn("fake mpiexec -n 2 HPCOLL_ALLREDUCE=(unset) HPCOLL_TUNING=(unset)",
                      self.read(self.dir, "d", "np2.log"))
        self.assertIn(f"fake mpiexec -n 2 HPCOLL_ALLREDUCE=(unset) HPCOLL_TUNING={table}",
                      self.read(self.dir, "d", "decisions-table-np2.log"))
        meta = json.loads(self.read(self.dir, "d", "eval.json"))
        self.assertEqual(meta["table_path"], table)
        self.assertIn("| **all** | 1.00 | 3.10 | 4.00 |", self.read(self.dir, "d", "report.md"))

    def test_overlap(self):
        out = self.run_fake("overlap_report.py", "overlap/np2.json", "--np", "2", "--thread-poll-us", "0", "--quick",
                            "--out", "o")
        self.assertIn("  thread       |  1.78 |   1.83", out.splitlines())
        meta = json.loads(self.read(self.dir, "o", "report.json"))["meta"]
        self.assertEqual((meta["command"], meta["nps"], meta["thread_poll_us"], meta["failed"]),
                         ("./hpcoll bench --overlap --np 2 --thread-poll-us 0 --quick --out o", [2], [0], []))
        self.assertIn("--quick --out=" + os.path.join(self.dir, "o", "np2.json"), self.read(self.dir, "o", "commands.txt"))

    def test_mcast(self):
        out = self.run_fake("mcast_report.py", "mcast/np4.json", "--np", "4", "--runs", "10", "--out", "m", "--no-plots")
        self.assertIn("  8 MB |  5100 | 1.02 | 0.98 |  0.94", out.splitlines())
        self.assertIn("- Command: `./hpcoll bench --mcast --np 4 --runs 10 --out m --no-plots`",
                      self.read(self.dir, "m", "report.md"))

    def test_compare(self):
        # Both builds are the fake binary (every ratio is 1); the order flips every round; np 1 runs pinned.
        out = self.run_fake("compare_builds.py", "compare/after-np2-bcast-r1.json", "--before", self.fake,
                            "--np", "1", "--rounds", "2", "--collectives", "bcast", "--out", "c")
        self.assertIn("  hpcoll rows, geomean |    5 |      1.00 |   1.00 | 1.00 |           |         ", out.splitlines())
        commands = self.read(self.dir, "c", "commands.txt")
        order = [line.split(":")[0][2:] for line in commands.splitlines() if line.startswith("# ")]
        self.assertEqual(order, ["before-np1-bcast-r1", "after-np1-bcast-r1", "after-np1-bcast-r2",
                                 "before-np1-bcast-r2"])
        self.assertIn(f"mpiexec -n 1 --bind-to core {self.fake} --hpcoll_sizes=8:1048576 --benchmark_min_time=0.02 "
                      "--hpcoll_no_memcpy --hpcoll_collectives=bcast ", commands)
        meta = json.loads(self.read(self.dir, "c", "report.json"))["meta"]
        self.assertEqual((meta["rounds"], meta["mpiexec_flags_per_np"], meta["failed"]),
                         (2, {"1": "--bind-to core"}, []))

    def test_compare_failure(self):
        out = self.run_fake("compare_builds.py", "compare/after-np2-bcast-r1.json", "--before", self.fake,
                            "--np", "1", "--rounds", "1", "--collectives", "bcast", "--out", "c", rc=1, FAKE_FAIL="1")
        self.assertRegex(out, r"bench --compare:   before-np1-bcast-r1: FAILED \(exit 3\)")
        self.assertIn("[hpcoll] bench --compare: every run failed; no report", out)


class Help(Case):
    def test_every_script_has_help(self):
        for script, prog in (("run_bench.py", "./hpcoll bench"), ("tune.py", "./hpcoll tune"),
                             ("dispatch_eval.py", "./hpcoll tune --evaluate"),
                             ("overlap_report.py", "./hpcoll bench --overlap"),
                             ("mcast_report.py", "./hpcoll bench --mcast"),
                             ("compare_builds.py", "./hpcoll bench --compare"), ("report.py", "report.py")):
            out = self.run_ok(script, "--help")
            self.assertTrue(out.startswith(f"usage: {prog} "), out)
            self.assertNotIn("--mpiexec-flags", out)


if __name__ == "__main__":
    unittest.main()
