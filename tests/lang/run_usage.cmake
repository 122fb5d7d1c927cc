# `vramsheet run` usage: --help (0), no FILE (2), an unreadable FILE (2).
execute_process(COMMAND ${VRAMSHEET} run --help RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out MATCHES "usage: vramsheet run FILE")
  message(FATAL_ERROR "run --help: status ${rc}, output:\n${out}")
endif()
execute_process(COMMAND ${VRAMSHEET} run RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "run without FILE: status ${rc}, expected 2")
endif()
execute_process(COMMAND ${VRAMSHEET} run /nonexistent/vramsheet-no-such-file.vs
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "cannot open")
  message(FATAL_ERROR "run on a missing file: status ${rc}, stderr:\n${err}")
endif()
