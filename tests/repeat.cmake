# repeat.cmake: runs one lab command many times and fails on the first run that does not exit 0,
# naming the run and its exit code (a signal shows as its name, "Segmentation fault"). A first run
# that skips (exit 77) prints "skipped:" for the test's SKIP_REGULAR_EXPRESSION.
#   cmake -DRUNS=40 -P repeat.cmake -- LAB ARGS
# A race in the host program or the runtime shows only in some runs; this makes such a test able
# to fail without depending on one lucky run.
cmake_policy(VERSION 3.20)
include(${CMAKE_CURRENT_LIST_DIR}/command_after_separator.cmake)

if(NOT DEFINED RUNS)
  set(RUNS 20)
endif()
foreach(run RANGE 1 ${RUNS})
  execute_process(COMMAND ${command} OUTPUT_QUIET ERROR_VARIABLE errors RESULT_VARIABLE code)
  if(code STREQUAL "77" AND run EQUAL 1)
    message(STATUS "skipped: the device lacks what the command needs\n${errors}")
    return()
  endif()
  if(NOT code STREQUAL "0")
    message(FATAL_ERROR "run ${run} of ${RUNS} ended with '${code}', expected 0\n${errors}")
  endif()
endforeach()
message(STATUS "${RUNS} runs, all exit 0")
