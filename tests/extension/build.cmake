# Extensions stay one file and one row: a throwaway model family, log
# importer, engine and estimator added to a scratch copy of the tree (only the vramsheet target is
# built there, through ccache when present) and used by a cell.
add_test(NAME extension.one_file_one_row
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/extension/run_extension.py
                 ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/extension-scratch)
set_tests_properties(extension.one_file_one_row PROPERTIES LABELS "extension" TIMEOUT 600)
