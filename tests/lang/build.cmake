# Language core (L1): `vramsheet run` tests, the language benchmark, the cell fuzzer.

# `vramsheet run` on the scripts in tests/lang/: each *.vs file must run cleanly
# and print what its *.expected file holds; *.fail.vs files must fail with exit 1
# and the stderr line their *.expected file holds.
file(GLOB VS_LANG_SCRIPTS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/lang/*.vs)
foreach(script ${VS_LANG_SCRIPTS})
  get_filename_component(name ${script} NAME_WE)
  add_test(NAME lang.run.${name}
           COMMAND ${CMAKE_COMMAND} -DVRAMSHEET=$<TARGET_FILE:vramsheet> -DSCRIPT=${script}
                   -DWORKDIR=${CMAKE_CURRENT_BINARY_DIR}/lang-run-${name}
                   -P ${PROJECT_SOURCE_DIR}/tests/lang/run_script.cmake)
  set_tests_properties(lang.run.${name} PROPERTIES LABELS "lang" ENVIRONMENT "VRAMSHEET_CHECK_CARD=1")
endforeach()
add_test(NAME lang.run.usage
         COMMAND ${CMAKE_COMMAND} -DVRAMSHEET=$<TARGET_FILE:vramsheet>
                 -P ${PROJECT_SOURCE_DIR}/tests/lang/run_usage.cmake)
set_tests_properties(lang.run.usage PROPERTIES LABELS "lang")

# Benchmark (not a test): median time to evaluate and render a 200-line cell.
vs_bench(bench_lang)
# Benchmark (not a test): how the cost grows with lines, re-runs and open sheets.
vs_bench(bench_lang_scale)
vs_fuzz_target(fuzz_cell)
vs_fuzz_target(fuzz_percent)

# The product's words stand alone: no string of src/ or kernel/, notebook or
# example record cites the specification, internal notes, seeds or rule numbers.
add_test(NAME lang.words.selftest
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/lang/check_words.py --self-test)
add_test(NAME lang.words
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/lang/check_words.py
                 ${PROJECT_SOURCE_DIR})
set_tests_properties(lang.words.selftest lang.words PROPERTIES LABELS "lang")

# `vramsheet run --check` exit statuses by verdict, percent-format text cells,
# .ipynb files, a byte-order mark.
add_test(NAME lang.run.check
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/lang/test_run.py)
set_tests_properties(lang.run.check PROPERTIES LABELS "lang" TIMEOUT 120
                     ENVIRONMENT "VS_BINARY=$<TARGET_FILE:vramsheet>")
# `vramsheet convert`: Jupytext's script of a sample notebook, every notebook
# of notebooks/ there and back, the notebooks written valid nbformat 4.5.
add_test(NAME lang.convert
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/lang/test_convert.py)
set_tests_properties(lang.convert PROPERTIES LABELS "lang" TIMEOUT 120
                     ENVIRONMENT "VS_BINARY=$<TARGET_FILE:vramsheet>")
add_test(NAME lang.report
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/lang/test_report.py)
set_tests_properties(lang.report PROPERTIES LABELS "lang" TIMEOUT 120
                     ENVIRONMENT "VS_BINARY=$<TARGET_FILE:vramsheet>")

# test_diff walks the record's JSON Schema and the worked example record.
if(TARGET test_diff)
  target_compile_definitions(test_diff PRIVATE VS_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
endif()
# test_launch reads the engines' argument tables in tests/data/launch/.
if(TARGET test_launch)
  target_compile_definitions(test_launch PRIVATE VS_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
                             VS_MODEL_CONFIGS="${PROJECT_SOURCE_DIR}/tests/model/configs")
endif()
# test_offload sizes models from the fixture configs.
if(TARGET test_offload)
  target_compile_definitions(test_offload PRIVATE
                             VS_MODEL_CONFIGS="${PROJECT_SOURCE_DIR}/tests/model/configs")
endif()
# test_sheet_access compares the sheet's key tables with the record's JSON Schema.
if(TARGET test_sheet_access)
  target_compile_definitions(test_sheet_access PRIVATE VS_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
endif()
