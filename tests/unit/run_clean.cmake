# Runs one unit test (TEST, the executable) with TMPDIR a fresh folder of its own
# (TMP) and fails when the test leaves anything there: each test removes what it
# made. The tests make their folders under $TMPDIR (tests/unit/test_tmp.h).
file(REMOVE_RECURSE ${TMP})
file(MAKE_DIRECTORY ${TMP})
set(ENV{TMPDIR} ${TMP})
execute_process(COMMAND ${TEST} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${TEST}: exit status ${rc}")
endif()
file(GLOB left LIST_DIRECTORIES true RELATIVE ${TMP} ${TMP}/* ${TMP}/.*)
list(REMOVE_ITEM left . ..)
if(left)
  message(FATAL_ERROR "${TEST} left these behind in its temporary folder ${TMP}: ${left}")
endif()
file(REMOVE_RECURSE ${TMP})
