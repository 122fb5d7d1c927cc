# Sizing (L2): the records example test's source path, the kernel-level sizing
# test through jupyter_client, the sizing benchmark and the record fuzz target.

# test_sizing_records compares records/examples/ with what the verbs make.
if(TARGET test_sizing_records)
  target_compile_definitions(test_sizing_records PRIVATE VS_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
endif()

# Kernel-level test: the worked examples' figures and payloads through a real Jupyter client
# (needs the build tree's kernelspec from kernel/build.cmake).
vs_kernel_test(sizing.kernel ${PROJECT_SOURCE_DIR}/tests/sizing test_sizing_kernel sizing 120)

# Benchmark (run by hand: <build>/bench_sizing): the sizing verbs of a cell,
# rendered with their chart, median per cell.
vs_bench(bench_sizing)

# Fuzz target for canonical records: load arbitrary bytes; what loads must dump,
# re-load and re-dump to the same text.
vs_fuzz_target(fuzz_sizing)

# Fuzz target for derived state: a loaded record refreshed against its card is
# a fixed point; the checks on its components, evidence and estimate reads agree.
vs_fuzz_target(fuzz_derived)

# Kernel-level test of derived state (the card stays the truth): estimates,
# validation and evidence follow the card; re-running restates.
vs_kernel_test(card.kernel ${PROJECT_SOURCE_DIR}/tests/sizing test_card_kernel sizing 180)

# The tool that writes records/examples/ (test_sizing_records only compares):
# built on demand, `cmake --build build --target regen_records`, never run by a test.
add_executable(regen_records EXCLUDE_FROM_ALL ${PROJECT_SOURCE_DIR}/tests/tools/regen_records.c)
target_link_libraries(regen_records PRIVATE vscore)
target_compile_definitions(regen_records PRIVATE VS_SOURCE_DIR="${PROJECT_SOURCE_DIR}")

# Engines and fit: the kernel-level test of `engine` and `fit` through jupyter_client,
# and the fit benchmark (20 offers x 8 formats; `bench_fit --check` fails past 5 ms).
vs_kernel_test(engine.kernel ${PROJECT_SOURCE_DIR}/tests/sizing test_engine_kernel sizing 120)
vs_bench(bench_fit)
add_test(NAME bench.fit COMMAND bench_fit 50)
set_tests_properties(bench.fit PROPERTIES LABELS bench TIMEOUT 60)
# launch: 20 offers' fit and command (`bench_launch --check` fails past 5 ms).
vs_bench(bench_launch)
add_test(NAME bench.launch COMMAND bench_launch 50)
set_tests_properties(bench.launch PROPERTIES LABELS bench TIMEOUT 60)
vs_fuzz_target(fuzz_fit)

# llama.cpp as it allocates: test_llamacpp reads the public configs of tests/model/configs;
# test_llamacpp_oracle compares with a real llama.cpp's figures (tests/data/llamacpp,
# written by hand with tests/tools/llamacpp_oracle.py, never by CI).
target_compile_definitions(test_llamacpp PRIVATE
                           VS_MODEL_CONFIGS="${PROJECT_SOURCE_DIR}/tests/model/configs"
                           VS_LLAMACPP_DATA="${PROJECT_SOURCE_DIR}/tests/data/llamacpp")
target_compile_definitions(test_llamacpp_oracle PRIVATE
                           VS_MODEL_CONFIGS="${PROJECT_SOURCE_DIR}/tests/model/configs"
                           VS_LLAMACPP_DATA="${PROJECT_SOURCE_DIR}/tests/data/llamacpp")
# test_offload: a published expert-offload run against the tensor list of its model
# (tests/data/llamacpp, the list written by tests/tools/llamacpp_oracle.py --tensors).
target_compile_definitions(test_offload PRIVATE
                           VS_LLAMACPP_DATA="${PROJECT_SOURCE_DIR}/tests/data/llamacpp")
# test_kv_engine: the kv_cache component under an engine is fit's figure (the same configs).
target_compile_definitions(test_kv_engine PRIVATE
                           VS_MODEL_CONFIGS="${PROJECT_SOURCE_DIR}/tests/model/configs")

# The runtime-item estimators against published start-up figures (run by hand:
# <build>/bench_runtime prints each row and the median and worst error).
vs_bench(bench_runtime)
if(TARGET bench_runtime)
  target_compile_definitions(bench_runtime PRIVATE VS_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  target_link_libraries(bench_runtime PRIVATE m)
endif()

# engine sglang estimate=yes against published SGLang start-ups (run by hand:
# <build>/bench_sglang prints non_torch's error on the fit and held-out rows, and the KV
# pool and tokens from the estimates alone against the printed #tokens).
vs_bench(bench_sglang)
if(TARGET bench_sglang)
  target_compile_definitions(bench_sglang PRIVATE VS_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  target_link_libraries(bench_sglang PRIVATE m)
endif()

# The cuda_graphs estimate against published "Graph capturing finished ... took X GiB"
# lines (tests/data/engine_startup/vllm_graphs.tsv): bench.graphs fails when a printed
# progress bar disagrees with the release's capture-size rule; it prints the median and
# worst error of the bytes.
vs_bench(bench_graphs)
if(TARGET bench_graphs)
  target_compile_definitions(bench_graphs PRIVATE VS_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  target_link_libraries(bench_graphs PRIVATE m)
  add_test(NAME bench.graphs COMMAND bench_graphs)
  set_tests_properties(bench.graphs PROPERTIES LABELS bench TIMEOUT 30)
endif()
# test_engine_releases: the engines' release tables on a public config.json.
target_compile_definitions(test_engine_releases PRIVATE
                           VS_MODEL_CONFIGS="${PROJECT_SOURCE_DIR}/tests/model/configs")
# SGLang's and TensorRT-LLM's KV arithmetic against their published start-up lines
# (tests/data/engine_startup/sglang_startup.tsv, trtllm_startup.tsv).
# test_runtime_table: the runtime estimators against the published vLLM start-up
# figures (tests/data/engine_startup/vllm_runtime.tsv), within their stated errors.
if(TARGET test_runtime_table)
  target_compile_definitions(test_runtime_table PRIVATE VS_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  target_link_libraries(test_runtime_table PRIVATE m)
endif()
if(TARGET test_engine_startup_sglang)
  target_compile_definitions(test_engine_startup_sglang PRIVATE VS_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  target_link_libraries(test_engine_startup_sglang PRIVATE m)
endif()
