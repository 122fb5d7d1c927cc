# Model files (H): the header benchmark and the fuzz targets for the config.json
# and safetensors parsers. The unit tests (test_hfconfig, test_safetensors,
# test_model) are picked up by the top-level glob.

# Benchmark: headers of a 30-shard index (sparse files, ~9,000 tensors).
# `bench_model --check` fails when tensor data is read or the median passes 50 ms.
add_executable(bench_model ${PROJECT_SOURCE_DIR}/tests/bench/bench_model.c)
target_link_libraries(bench_model PRIVATE vscore)
# Never reading tensor data is a property, not a figure: checked on every run.
# The time limit is not gated here (shared machines); `bench_model --check` does.
add_test(NAME model.bench_headers_only COMMAND bench_model --bytes-only)
set_tests_properties(model.bench_headers_only PROPERTIES LABELS "model" TIMEOUT 120)

if(VS_FUZZ)
  foreach(fz fuzz_safetensors fuzz_hfconfig)
    add_executable(${fz} ${PROJECT_SOURCE_DIR}/tests/fuzz/${fz}.c)
    target_link_libraries(${fz} PRIVATE vscore)
    target_link_options(${fz} PRIVATE -fsanitize=fuzzer)
  endforeach()
endif()
