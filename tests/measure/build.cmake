# Measurement (src/measure/, src/lang/verbs_measure.c): the fake NVML libraries
# the tests load through VRAMSHEET_NVML_LIBRARY, the unit tests' paths to them,
# the kernel-level test, the benchmark, the fuzz target, the CUDA workload
# (only where nvcc exists). The PyTorch helper is installed by kernel/build.cmake.

# --- fake NVML: the full API, and the oldest API only (no _v2/_v3 symbols) ---
add_library(fake_nvml SHARED ${PROJECT_SOURCE_DIR}/tests/fake_nvml/fake_nvml.c)
add_library(fake_nvml_min SHARED ${PROJECT_SOURCE_DIR}/tests/fake_nvml/fake_nvml.c)
target_compile_definitions(fake_nvml_min PRIVATE FAKE_NVML_MINIMAL)
foreach(_lib fake_nvml fake_nvml_min)
  target_link_libraries(${_lib} PRIVATE Threads::Threads)
  # Sanitizers stay out of a library dlopen'ed by sanitized and plain programs alike.
  target_compile_options(${_lib} PRIVATE -fno-sanitize=all)
  target_link_options(${_lib} PRIVATE -fno-sanitize=all)
endforeach()

set(VS_MEASURE_TEST_DEFS
    VS_FAKE_NVML="$<TARGET_FILE:fake_nvml>"
    VS_FAKE_NVML_MIN="$<TARGET_FILE:fake_nvml_min>"
    VS_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
foreach(_t test_measure test_measure_nvml test_measure_runner test_measure_sampler test_gpu_here
           test_measure_phasefd test_measure_verbs test_measure_probe test_measure_import_engines
           test_measure_launch)
  if(TARGET ${_t})
    target_compile_definitions(${_t} PRIVATE ${VS_MEASURE_TEST_DEFS})
    add_dependencies(${_t} fake_nvml fake_nvml_min)
  endif()
endforeach()

# --- benchmark: sampler CPU at 10 ms and output latency with the gauge on ---
vs_bench(bench_measure)
add_dependencies(bench_measure fake_nvml)
add_test(NAME bench.measure COMMAND bench_measure $<TARGET_FILE:fake_nvml> 3)
set_tests_properties(bench.measure PROPERTIES LABELS bench TIMEOUT 120)

# --- benchmark: `measure import` of a 100,000-line log (< 200 ms) ---
vs_bench(bench_import)
add_test(NAME bench.import COMMAND bench_import 100000)
set_tests_properties(bench.import PROPERTIES LABELS bench TIMEOUT 120)

# --- `measure import` records read by independent readers (jsonschema, decimal) ---
add_test(NAME measure.import_records
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/measure/test_import_records.py
                 $<TARGET_FILE:vramsheet>)
set_tests_properties(measure.import_records PROPERTIES LABELS measure TIMEOUT 60)

# --- the PyTorch helper (no torch needed) and the kernel-level measure test ---
add_test(NAME measure.torch_helper
         COMMAND /usr/bin/python3 -m unittest -v test_vramsheet_torch
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}/tests/measure)
set_tests_properties(measure.torch_helper PROPERTIES LABELS measure TIMEOUT 60)
vs_kernel_test(measure.kernel ${PROJECT_SOURCE_DIR}/tests/measure test_measure_kernel measure 180
               "VS_FAKE_NVML=$<TARGET_FILE:fake_nvml>;PYTHONUNBUFFERED=1")

# --- fuzz targets: the phase-fd line parser; one per log importer ---
vs_fuzz_target(fuzz_measure)
foreach(_fmt probe vllm llamacpp torchtune nvsmi torch sglang trtllm)
  vs_fuzz_target(fuzz_import_${_fmt})
endforeach()

# --- the CUDA workload for the real-GPU check: built only where nvcc exists ---
find_program(VS_NVCC nvcc HINTS /usr/local/cuda/bin ENV CUDA_HOME PATH_SUFFIXES bin)
if(VS_NVCC)
  add_custom_command(
    OUTPUT ${PROJECT_BINARY_DIR}/cuda_workload
    COMMAND ${VS_NVCC} -O2 -o ${PROJECT_BINARY_DIR}/cuda_workload
            ${PROJECT_SOURCE_DIR}/tests/cuda/workload.cu
    DEPENDS ${PROJECT_SOURCE_DIR}/tests/cuda/workload.cu
    COMMENT "nvcc tests/cuda/workload.cu (run by the test measure.cuda_workload)")
  add_custom_target(cuda_workload ALL DEPENDS ${PROJECT_BINARY_DIR}/cuda_workload)
endif()

# --- the kernel against failing surroundings (tests/protocol/test_reliability.py):
# replayed messages, the measured command when the kernel is killed, setsid
# strays, JPY_PARENT_PID, deep JSON nesting ---
vs_kernel_test(proto.reliability ${PROJECT_SOURCE_DIR}/tests/protocol test_reliability protocol 300
               "VS_FAKE_NVML=$<TARGET_FILE:fake_nvml>;VS_BINARY=$<TARGET_FILE:vramsheet>;PYTHONUNBUFFERED=1")

# --- the CUDA workload under `measure` on a real GPU: skipped (ctest shows it,
# with the reason on its output) where there is no driver or GPU, or no nvcc ---
add_test(NAME measure.cuda_workload
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/cuda/run_workload.py
                 $<TARGET_FILE:vramsheet> ${PROJECT_BINARY_DIR}/cuda_workload)
set_tests_properties(measure.cuda_workload PROPERTIES LABELS "measure;gpu" TIMEOUT 600
                     SKIP_RETURN_CODE 77)
