# buffer_flags_trace_slices.cmake: checks that every slice of buffer_flags' timing trace names its command, its
# buffer and that buffer's mode, so the picture can be read next to the table.
#   cmake -DTRACE=out.json [-DC_MODES=copy;use;...] -P buffer_flags_trace_slices.cmake -- BUFFER_FLAGS ARGS
# For each mode of C, the lab runs the timing part with --warmup 1 --reps 1 --trace and must exit
# 0. Then every slice ("ph": "X") must be called
#   "write|read|map|unmap|fill A|B|C (MODE)"   a command on one buffer, in that buffer's mode;
#   "kernel matmul_naive (ROW)"                the kernel, in its row's modes of A and B (the
#                                              table's first column: "use" or "copy/use");
# its args must say the modes (A, B, C, row) and the run, with the mode in its name equal to the
# buffer's (or the row's) in args; and as many slices must be marked "warm-up": true as not, since
# each warm-up makes the same commands as the timed run after it.
cmake_policy(VERSION 3.20)
include(${CMAKE_CURRENT_LIST_DIR}/command_after_separator.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/trace_slices.cmake)

if(NOT DEFINED C_MODES)
  set(C_MODES copy use alloc write map)
endif()
set(mode "(copy|use|alloc|write|map)")
foreach(c_mode IN LISTS C_MODES)
  file(REMOVE "${TRACE}")
  execute_process(
    COMMAND ${command} --part timing --c-mode ${c_mode} --warmup 1 --reps 1 --trace ${TRACE}
    OUTPUT_VARIABLE out ERROR_VARIABLE errors RESULT_VARIABLE code)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "C ${c_mode}: exit code ${code}, expected 0\n${out}\n${errors}")
  endif()
  read_trace_slices("${TRACE}" json slices warm timed)
  foreach(i IN LISTS slices)
    string(JSON event GET "${json}" traceEvents ${i})
    string(JSON name GET "${event}" name)
    foreach(key A B C row run)
      string(JSON ${key} ERROR_VARIABLE absent GET "${event}" args ${key})
      if(absent)
        message(FATAL_ERROR "C ${c_mode}: slice '${name}' has no '${key}' in its args: ${event}")
      endif()
    endforeach()
    if(name MATCHES "^(write|read|map|unmap|fill) ([ABC]) \\(${mode}\\)$")
      set(buffer ${CMAKE_MATCH_2})
      set(named ${CMAKE_MATCH_3})
      if(NOT named STREQUAL "${${buffer}}")
        message(FATAL_ERROR "C ${c_mode}: slice '${name}' is on ${buffer} made ${${buffer}}")
      endif()
    elseif(name MATCHES "^kernel matmul_naive \\((${mode}(/${mode})?)\\)$")
      if(NOT CMAKE_MATCH_1 STREQUAL "${row}")
        message(FATAL_ERROR "C ${c_mode}: slice '${name}' belongs to the row '${row}'")
      endif()
    else()
      message(FATAL_ERROR "C ${c_mode}: slice '${name}' is not named 'COMMAND BUFFER (MODE)' "
                          "or 'kernel matmul_naive (MODES OF A AND B)'")
    endif()
    if(NOT C STREQUAL "${c_mode}")
      message(FATAL_ERROR "C ${c_mode}: slice '${name}' says C is ${C}")
    endif()
  endforeach()
  if(timed EQUAL 0 OR NOT warm EQUAL timed)
    message(FATAL_ERROR "C ${c_mode}: ${warm} slices marked as warm-ups and ${timed} not; one "
                        "warm-up and one timed run make as many of each")
  endif()
  message(STATUS "C ${c_mode}: ${timed} timed slices and ${warm} warm-up ones, each named with "
                 "its buffer's mode")
endforeach()
