# blobtune-tuner-bench: limiter admission cost against plain semaphores (see tuner_bench.cc).
add_executable(blobtune-tuner-bench bench/tuner_bench.cc)
# blobtune::metrics: the observed limiter, with and without the status page running beside it.
target_link_libraries(blobtune-tuner-bench PRIVATE blobtune::tuner blobtune::metrics
                                                   benchmark::benchmark)
blobtune_set_warnings(blobtune-tuner-bench)
# Smoke run in the test suite: the benchmark must start, run and exit cleanly.
add_test(NAME tuner_bench_smoke
         COMMAND blobtune-tuner-bench --benchmark_min_time=0.01 --benchmark_format=json)
set_tests_properties(tuner_bench_smoke PROPERTIES LABELS "bench" TIMEOUT 120)
