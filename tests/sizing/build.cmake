# Sizing (L2): the records example test's source path, the kernel-level sizing
# test through jupyter_client, the sizing benchmark and the record fuzz target.

# test_sizing_records compares records/examples/ with what the verbs make.
if(TARGET test_sizing_records)
  target_compile_definitions(test_sizing_records PRIVATE VS_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
endif()

# Kernel-level test: SPEC §2's figures and payloads through a real Jupyter client
# (needs the build tree's kernelspec from kernel/build.cmake).
if(DEFINED VS_TEST_JUPYTER_PATH)
  add_test(NAME sizing.kernel
           COMMAND /usr/bin/python3 -m unittest -v test_sizing_kernel
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}/tests/sizing)
  set_tests_properties(sizing.kernel PROPERTIES LABELS sizing TIMEOUT 120
                       ENVIRONMENT "JUPYTER_PATH=${VS_TEST_JUPYTER_PATH}")
endif()

# Benchmark (run by hand: <build>/bench_sizing): the sizing verbs of a cell,
# rendered with their chart, median per cell.
if(NOT VS_FUZZ)
  add_executable(bench_sizing ${PROJECT_SOURCE_DIR}/tests/bench/bench_sizing.c)
  target_link_libraries(bench_sizing PRIVATE vscore)
endif()

# Fuzz target for canonical records: load arbitrary bytes; what loads must dump,
# re-load and re-dump to the same text.
if(VS_FUZZ)
  add_executable(fuzz_sizing ${PROJECT_SOURCE_DIR}/tests/fuzz/fuzz_sizing.c)
  target_link_libraries(fuzz_sizing PRIVATE vscore)
  target_link_options(fuzz_sizing PRIVATE -fsanitize=fuzzer)
  file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/corpus_sizing)
  add_test(NAME fuzz.sizing
           COMMAND fuzz_sizing -max_total_time=20 -rss_limit_mb=2048
                   -artifact_prefix=${PROJECT_BINARY_DIR}/fuzz_sizing-
                   ${PROJECT_BINARY_DIR}/corpus_sizing ${PROJECT_SOURCE_DIR}/tests/fuzz/corpus_sizing)
  set_tests_properties(fuzz.sizing PROPERTIES LABELS fuzz TIMEOUT 300)
endif()
