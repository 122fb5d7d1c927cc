# Records (src/store/): the multi-process test helper and its tests, and the
# store benchmark (kept out of ctest: run tests/bench/bench_store.sh).

if(NOT VS_FUZZ)
  # Drives the store from separate processes (concurrency, kill -9, racing pushers).
  add_executable(vs_store_helper ${PROJECT_SOURCE_DIR}/tests/store/store_helper.c)
  target_link_libraries(vs_store_helper PRIVATE vscore)

  foreach(_part concurrent race kill lockloop push)
    add_test(NAME store.processes.${_part}
             COMMAND bash ${PROJECT_SOURCE_DIR}/tests/store/test_store_processes.sh
                     $<TARGET_FILE:vs_store_helper> ${_part})
    set_tests_properties(store.processes.${_part} PROPERTIES LABELS store TIMEOUT 120)
  endforeach()

  # The verbs and the CLI through the real binary, with git as the reader.
  add_test(NAME store.cli
           COMMAND bash ${PROJECT_SOURCE_DIR}/tests/store/test_store_cli.sh
                   $<TARGET_FILE:vramsheet>)
  set_tests_properties(store.cli PROPERTIES LABELS store TIMEOUT 120)

  # Push against a server's policy: a path remote's hooks, and a real git daemon
  # on loopback with a refusing hook (skipped, saying why, when it cannot start).
  foreach(_part path daemon)
    add_test(NAME store.server.${_part}
             COMMAND bash ${PROJECT_SOURCE_DIR}/tests/store/test_store_server.sh
                     $<TARGET_FILE:vramsheet> ${_part})
    set_tests_properties(store.server.${_part} PROPERTIES LABELS store TIMEOUT 120
                         SKIP_RETURN_CODE 77)
  endforeach()

  # Push and pull over http: git-http-backend behind a Python http.server with
  # Basic auth; the credential from the environment or a git credential helper
  # (skipped, saying why, only when git-http-backend is missing).
  add_test(NAME store.server.http
           COMMAND bash ${PROJECT_SOURCE_DIR}/tests/store/test_store_http.sh
                   $<TARGET_FILE:vramsheet>)
  set_tests_properties(store.server.http PROPERTIES LABELS store TIMEOUT 120
                       SKIP_RETURN_CODE 77)

  # The revision index through the binary: git log agrees, a shallow clone, `:/`.
  add_test(NAME store.index_cli
           COMMAND bash ${PROJECT_SOURCE_DIR}/tests/store/test_store_index_cli.sh
                   $<TARGET_FILE:vramsheet>)
  set_tests_properties(store.index_cli PROPERTIES LABELS store TIMEOUT 120)

  # Benchmark: built with the project, run by hand or by CI (not a ctest test).
  vs_bench(bench_store)
endif()

# Kernel-level: the records verbs through a real Jupyter client, git as the reader
# (needs the build tree's kernelspec from kernel/build.cmake).
vs_kernel_test(store.kernel ${PROJECT_SOURCE_DIR}/tests/store test_records_kernel store 180)

# Fuzz target for what the records verbs compute from two versions of a sheet
# (axes, derived state) and revision specs.
vs_fuzz_target(fuzz_records)

# Fuzz target for the pack reader, the inflater and the held tree of the
# revision index: a pack and index written around arbitrary bytes.
vs_fuzz_target(fuzz_pack)
