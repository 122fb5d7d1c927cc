# A reviewer's pass end to end: edit, commit, diff, reproduce with card
# overrides, report --since, run --check, on a records repository of its own.
add_test(NAME review.end_to_end
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/review/test_review.py)
set_tests_properties(review.end_to_end PROPERTIES LABELS "lang" TIMEOUT 120
                     ENVIRONMENT "VS_BINARY=$<TARGET_FILE:vramsheet>;VRAMSHEET_CHECK_CARD=1")
