# SPDX-License-Identifier: BSD-3-Clause
# The benchmark scripts' own tests (benchmarks/*.py): one ctest test per Python
# test file, run with Debian's /usr/bin/python3 on the stored results in
# benchmarks/testdata/ (no MPI, no binary, no timing). Included from
# benchmarks/CMakeLists.txt when HPCOLL_BUILD_TESTS is on.
#   bench.tune_script     test_tune.py         tune.py's table builder, dispatch_eval.py's analysis
#   bench.report_scripts  test_reports.py      every report script run as ./hpcoll runs it (--from, report.py DIR)
#   bench.common          test_bench_common.py bench_common.py, the module the scripts share; no import cycle
#   bench.performance_table test_performance_table.py performance_table.py (./hpcoll bench --table): ratios, targets, runs
#   bench.dijkstra_experiment test_dijkstra_experiment.py dijkstra_experiment.py (./hpcoll bench --dijkstra): configurations, ratios, report
#   bench.barnes_hut_experiment test_barnes_hut_experiment.py barnes_hut_experiment.py (./hpcoll bench --barnes-hut): plan, flags, speed-ups, report
#   bench.pmpi_report   test_pmpi_report.py  pmpi_report.py (./hpcoll bench --pmpi): reading the runs, ratios, help
#   bench.hierarchy_report test_hierarchy_report.py hierarchy_report.py (hpcoll_hierarchy's plots): best per family, files
#   bench.cluster_model test_cluster_model.py cluster_model.py (the model against the emulated cluster): cells, 25 % rule
# Run them alone: ctest -L python (or /usr/bin/python3 benchmarks/<file>.py -v).

# Python and matplotlib are dependencies of ./hpcoll bench and tune (./hpcoll deps
# installs python3-matplotlib): a machine without them fails here, not by dropping tests.
set(HPCOLL_BENCH_PYTHON /usr/bin/python3)
if(NOT EXISTS "${HPCOLL_BENCH_PYTHON}")
  message(FATAL_ERROR "${HPCOLL_BENCH_PYTHON} not found: the benchmark scripts' tests (benchmarks/python_tests.cmake) "
                      "need Debian's python3 with matplotlib (apt-get install python3-matplotlib, or ./hpcoll deps); "
                      "or configure with -DHPCOLL_BUILD_TESTS=OFF")
endif()
execute_process(COMMAND "${HPCOLL_BENCH_PYTHON}" -c "import matplotlib"
                RESULT_VARIABLE _hpcoll_matplotlib OUTPUT_QUIET ERROR_QUIET)
if(NOT _hpcoll_matplotlib EQUAL 0)
  message(FATAL_ERROR "${HPCOLL_BENCH_PYTHON} cannot import matplotlib: the benchmark scripts' tests "
                      "(benchmarks/python_tests.cmake) need it (apt-get install python3-matplotlib, or ./hpcoll deps); "
                      "or configure with -DHPCOLL_BUILD_TESTS=OFF")
endif()

# hpcoll_python_test(NAME FILE): ctest bench.NAME runs benchmarks/FILE.
function(hpcoll_python_test name file)
  add_test(NAME bench.${name} COMMAND "${HPCOLL_BENCH_PYTHON}" "${_hpcoll_python_tests_dir}/${file}")
  set_tests_properties(bench.${name} PROPERTIES
    TIMEOUT 120
    LABELS "bench;python"
    ENVIRONMENT "PYTHONDONTWRITEBYTECODE=1;MPLBACKEND=Agg")
endfunction()

set(_hpcoll_python_tests_dir "${CMAKE_CURRENT_LIST_DIR}")  # benchmarks/, wherever this file is included from
hpcoll_python_test(tune_script test_tune.py)
hpcoll_python_test(report_scripts test_reports.py)
hpcoll_python_test(common test_bench_common.py)
hpcoll_python_test(performance_table test_performance_table.py)
hpcoll_python_test(dijkstra_experiment test_dijkstra_experiment.py)
hpcoll_python_test(barnes_hut_experiment test_barnes_hut_experiment.py)
hpcoll_python_test(pmpi_report test_pmpi_report.py)
hpcoll_python_test(hierarchy_report test_hierarchy_report.py)
hpcoll_python_test(cluster_model test_cluster_model.py)
