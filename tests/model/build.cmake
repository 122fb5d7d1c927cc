# Model files (H): the header benchmark and the fuzz targets for the config.json
# and safetensors parsers. The unit tests (test_hfconfig, test_safetensors,
# test_model) are picked up by the top-level glob.

# Benchmark: headers of a 30-shard index (sparse files, ~9,000 tensors).
# `bench_model --check` fails when tensor data is read or the median passes 50 ms.
vs_bench(bench_model)
# Never reading tensor data is a property, not a figure: checked on every run.
# The time limit is not gated here (shared machines); `bench_model --check` does.
add_test(NAME model.bench_headers_only COMMAND bench_model --bytes-only)
set_tests_properties(model.bench_headers_only PROPERTIES LABELS "model" TIMEOUT 120)

vs_fuzz_target(fuzz_safetensors)
vs_fuzz_target(fuzz_hfconfig)
vs_fuzz_target(fuzz_pipeline)

# The family registry against the fixtures of tests/model/configs (each a
# published checkpoint's config.json): test_families reads them from here, and
# tally.py sums the same tensor lists independently against the same totals.
target_compile_definitions(test_families PRIVATE
                           VS_MODEL_CONFIGS="${PROJECT_SOURCE_DIR}/tests/model/configs")
add_test(NAME model.tally COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/model/tally.py
                                  ${PROJECT_SOURCE_DIR}/tests/model/configs)
set_tests_properties(model.tally PROPERTIES LABELS "model" TIMEOUT 60)
target_compile_definitions(test_kv_estimate PRIVATE
                           VS_MODEL_CONFIGS="${PROJECT_SOURCE_DIR}/tests/model/configs")

target_compile_definitions(test_lora PRIVATE
                           VS_MODEL_CONFIGS="${PROJECT_SOURCE_DIR}/tests/model/configs")

# Benchmark: `model config=` and `estimate kv` on every fixture (1 ms each).
vs_bench(bench_families)
target_compile_definitions(bench_families PRIVATE
                           VS_MODEL_CONFIGS="${PROJECT_SOURCE_DIR}/tests/model/configs")

# Benchmark: `model config=` with a quantization_config and `weights` (1 ms each).
vs_bench(bench_quant)
target_compile_definitions(bench_quant PRIVATE
                           VS_MODEL_CONFIGS="${PROJECT_SOURCE_DIR}/tests/model/configs")

vs_fuzz_target(fuzz_gguf)

# GGUF headers: vramsheet's reader against Hugging Face's @huggingface/gguf
# (npm ci of tests/model/gguf_js into ${PROJECT_BINARY_DIR}/gguf_js), tensor
# by tensor, on files the test writes. Exits 77 (skipped, saying why) when
# node/npm are missing or npm has no network.
add_executable(gguf_dump ${PROJECT_SOURCE_DIR}/tests/model/gguf_dump.c)
target_link_libraries(gguf_dump PRIVATE vscore)
add_test(NAME model.gguf_independent
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/model/gguf_independent.py
         WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
set_tests_properties(model.gguf_independent PROPERTIES LABELS "model" TIMEOUT 200
                     SKIP_RETURN_CODE 77
                     ENVIRONMENT "VS_BUILD_DIR=${PROJECT_BINARY_DIR};VS_SOURCE_DIR=${PROJECT_SOURCE_DIR}")

# Benchmarks: GGUF headers of a 400 GB sparse file (1,200 tensors), and the
# Hugging Face cache resolution plus the headers of a 163-shard index.
vs_bench(bench_gguf)
add_test(NAME model.bench_gguf_headers_only COMMAND bench_gguf --bytes-only)
set_tests_properties(model.bench_gguf_headers_only PROPERTIES LABELS "model" TIMEOUT 120)
# GGUF metadata -> kv_layout, and llama.cpp file types over the family lists.
target_compile_definitions(test_gguf_arch PRIVATE
                           VS_MODEL_CONFIGS="${PROJECT_SOURCE_DIR}/tests/model/configs")
# Quantised checkpoints against headers the test writes and a published loader figure.
target_compile_definitions(test_quant PRIVATE
                           VS_MODEL_CONFIGS="${PROJECT_SOURCE_DIR}/tests/model/configs")
# Quantised checkpoints against the loaders' published per-GPU figures (tests/data/quant_published).
target_compile_definitions(test_quant_published PRIVATE VS_SOURCE_DIR="${PROJECT_SOURCE_DIR}")

# The VAE decoder's tensor walk against diffusers' decode run on the meta device.
target_compile_definitions(test_decode_kl PRIVATE
                           VS_DECODER_ORACLE_TSV="${PROJECT_SOURCE_DIR}/tests/data/decoder_kl_oracle.tsv")
# The envelope against published training and generation peaks (tests/data/published).
target_compile_definitions(test_published PRIVATE
                           VS_MODEL_CONFIGS="${PROJECT_SOURCE_DIR}/tests/model/configs"
                           VS_PUBLISHED_TSV="${PROJECT_SOURCE_DIR}/tests/data/published/peaks.tsv"
                           VS_SDXL_PIPELINE="${PROJECT_SOURCE_DIR}/notebooks/pipelines/sdxl-base-1.0"
                           VS_FLUX_PIPELINE="${PROJECT_SOURCE_DIR}/tests/data/pipelines/flux.1-dev")
# torchao's compiled AdamW8bit step against Inductor's output code of three releases, torch 2.5, 2.6
# and 2.15 (tests/data/inductor).
target_compile_definitions(test_adamw8bit_step PRIVATE
                           VS_INDUCTOR_DATA="${PROJECT_SOURCE_DIR}/tests/data/inductor")
