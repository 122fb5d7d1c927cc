# The layers hold (CMakeLists.txt, src/README.md): a header of a higher layer does
# not compile from a lower one. The script compiles, against each layer's include
# tree, one header of that layer and one of each layer above it: the first must
# compile, every other must fail for want of the file.
add_test(NAME layers.backwards_include
         COMMAND ${CMAKE_COMMAND} -DVS_CC=${CMAKE_C_COMPILER} -DVS_LAYERS_DIR=${PROJECT_BINARY_DIR}/layers
                 -DVS_WORK=${PROJECT_BINARY_DIR}/layers-check
                 "-DVS_INCLUDES=${JANSSON_INCLUDE_DIRS};${LIBGIT2_INCLUDE_DIRS};${ZMQ_INCLUDE_DIRS};${SODIUM_INCLUDE_DIRS}"
                 -P ${PROJECT_SOURCE_DIR}/tests/layers/check_layers.cmake)
set_tests_properties(layers.backwards_include PROPERTIES LABELS unit)

# The shape of src/ (tests/layers/check_shape.py): no file over 800 lines unless it
# is one table, every exported function named for its module or its type, and
# defined in the module whose header declares it, and a result's payload built in
# render/ only.
add_test(NAME layers.shape.selftest
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/layers/check_shape.py --self-test)
add_test(NAME layers.shape
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/layers/check_shape.py ${PROJECT_SOURCE_DIR})
set_tests_properties(layers.shape.selftest layers.shape PROPERTIES LABELS unit)

# Every symbol the layers' libraries export, functions and data, is named vs_...
# (nm over the built archives: a missing `static` shows here).
add_test(NAME layers.symbols
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/layers/check_shape.py --symbols
                 $<TARGET_FILE:vs_util> $<TARGET_FILE:vs_pure> $<TARGET_FILE:vs_adapters>
                 $<TARGET_FILE:vs_lang> $<TARGET_FILE:vs_kernel>)
set_tests_properties(layers.symbols PROPERTIES LABELS unit)

# The sheet's keys are named once (sheet/sheet_keys.def through sheet/sheet_access.h):
# a new literal-key lookup into the sheet outside the access module fails
# (tests/layers/check_sheet_keys.py: none in any folder of src/).
add_test(NAME layers.sheet_keys.selftest
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/layers/check_sheet_keys.py --self-test)
add_test(NAME layers.sheet_keys
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/layers/check_sheet_keys.py ${PROJECT_SOURCE_DIR})
set_tests_properties(layers.sheet_keys.selftest layers.sheet_keys PROPERTIES LABELS unit)
