# blobtune-store-bench: BlobStore against raw LMDB (plain mdb_put/mdb_get loops) in one run.
# Included from tests/CMakeLists.txt. Run: build/bin/blobtune-store-bench --benchmark_format=json
add_executable(blobtune-store-bench bench/store_bench.cc)
target_link_libraries(blobtune-store-bench PRIVATE
  blobtune::store ${BLOBTUNE_LMDB_LIBRARY} benchmark::benchmark)
# The store's private CRC32C (store/src/crc32c.h) for BM_RawLmdbGetCopyCrc: the same code the
# store verifies with, linked from blobtune::store.
target_include_directories(blobtune-store-bench PRIVATE ${BLOBTUNE_LMDB_INCLUDE_DIR}
                                                        ${PROJECT_SOURCE_DIR}/store/src)
blobtune_set_warnings(blobtune-store-bench)
add_test(NAME store_bench_smoke
         COMMAND blobtune-store-bench --benchmark_min_time=0.01
                 --benchmark_filter=/10240)
set_tests_properties(store_bench_smoke PROPERTIES LABELS "bench" TIMEOUT 300)
