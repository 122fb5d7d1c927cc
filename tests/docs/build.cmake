# The docs stay true: the README's cells run and print the figures it quotes
# (test_readme.py), and the generated tables of docs/ (every verb, every GPU of the
# catalogue) match the code's own tables (tests/tools/gen_docs.py --check; run it
# without --check to regenerate).
add_test(NAME docs.readme
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/docs/test_readme.py)
set_tests_properties(docs.readme PROPERTIES LABELS docs TIMEOUT 120
                     ENVIRONMENT "VS_SOURCE_DIR=${PROJECT_SOURCE_DIR};VS_BINARY=$<TARGET_FILE:vramsheet>")
add_test(NAME docs.drift
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/tools/gen_docs.py
                 --build ${PROJECT_BINARY_DIR} --check)
set_tests_properties(docs.drift PROPERTIES LABELS docs TIMEOUT 120)
