# trace_png.cmake: scripts/trace_png.py draws a lab's --trace timeline, and refuses a trace with
# nothing to draw in one line.
#   cmake -DLAB=bin/vector_add -DPYTHON=/usr/bin/python3 -DSCRIPT=scripts/trace_png.py
#         -DOUT=build/tests/trace_png [-DMIN_BYTES=5000] -P trace_png.cmake [-- LAB ARGS...]
# PYTHON must have matplotlib. In OUT (emptied first):
# - the lab, run with ARGS and --trace OUT/LAB.json, must exit 0 and write the trace;
# - the script must exit 0 on it and write OUT/LAB.png: a PNG file of at least MIN_BYTES bytes
#   (default 5000; a picture of bars, axes and legend is tens of KB, a blank one far less);
# - a trace holding no command (a process and a thread, no "X" event) and a file that is not
#   JSON must each give exit code 2, one line on stderr that says "error:" and no traceback, and
#   no picture.
cmake_policy(VERSION 3.20)
include(${CMAKE_CURRENT_LIST_DIR}/command_after_separator.cmake)

foreach(var LAB PYTHON SCRIPT OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "-D${var}=... is required")
  endif()
endforeach()
if(NOT DEFINED MIN_BYTES)
  set(MIN_BYTES 5000)
endif()
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")

execute_process(COMMAND ${PYTHON} -c "import matplotlib" RESULT_VARIABLE code
                ERROR_VARIABLE errors)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "${PYTHON} cannot import matplotlib (Debian: python3-matplotlib):\n"
                      "${errors}")
endif()

# The lab's trace, drawn.
get_filename_component(lab_name "${LAB}" NAME_WE)
set(trace "${OUT}/${lab_name}.json")
set(png "${OUT}/${lab_name}.png")
execute_process(COMMAND ${LAB} ${command} --trace ${trace} OUTPUT_VARIABLE out
                ERROR_VARIABLE errors RESULT_VARIABLE code WORKING_DIRECTORY "${OUT}")
if(NOT code EQUAL 0)
  message(FATAL_ERROR "${lab_name}: exit code ${code}, expected 0\n${out}\n${errors}")
endif()
if(NOT EXISTS "${trace}")
  message(FATAL_ERROR "${lab_name} wrote no trace ${trace}\n${errors}")
endif()
execute_process(COMMAND ${PYTHON} ${SCRIPT} ${trace} ${png} OUTPUT_VARIABLE out
                ERROR_VARIABLE errors RESULT_VARIABLE code)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "trace_png.py on ${trace}: exit code ${code}, expected 0\n${out}\n"
                      "${errors}")
endif()
if(NOT EXISTS "${png}")
  message(FATAL_ERROR "trace_png.py exited 0 but wrote no ${png}\n${errors}")
endif()
file(SIZE "${png}" bytes)
if(bytes LESS MIN_BYTES)
  message(FATAL_ERROR "${png} is ${bytes} bytes, expected at least ${MIN_BYTES}: a blank picture?")
endif()
file(READ "${png}" signature LIMIT 8 HEX)
if(NOT signature STREQUAL "89504e470d0a1a0a")
  message(FATAL_ERROR "${png} is not a PNG file (it starts ${signature})")
endif()

# _expect_refused(NAME TEXT): trace_png.py on a file holding TEXT exits 2 with one line.
function(_expect_refused name text)
  set(bad "${OUT}/${name}.json")
  set(bad_png "${OUT}/${name}.png")
  file(WRITE "${bad}" "${text}")
  execute_process(COMMAND ${PYTHON} ${SCRIPT} ${bad} ${bad_png} OUTPUT_VARIABLE out
                  ERROR_VARIABLE errors RESULT_VARIABLE code)
  string(STRIP "${errors}" message)
  if(NOT code EQUAL 2)
    message(FATAL_ERROR "trace_png.py on ${name}.json: exit code ${code}, expected 2\n${out}\n"
                        "${errors}")
  endif()
  if(message STREQUAL "" OR message MATCHES "\n" OR NOT message MATCHES "error:"
     OR message MATCHES "Traceback")
    message(FATAL_ERROR "trace_png.py on ${name}.json: expected one line saying 'error:', got\n"
                        "${errors}")
  endif()
  if(EXISTS "${bad_png}")
    message(FATAL_ERROR "trace_png.py on ${name}.json wrote ${bad_png} all the same")
  endif()
  message(STATUS "${name}.json refused: ${message}")
endfunction()

_expect_refused(no_commands [=[{"traceEvents": [
 {"name": "process_name", "ph": "M", "pid": 1, "args": {"name": "lab on device"}},
 {"name": "thread_name", "ph": "M", "pid": 1, "tid": 1, "args": {"name": "queue"}}],
 "otherData": {"lab": "lab", "device": "device", "commands": 0}}
]=])
_expect_refused(not_json "{\"traceEvents\": [")

message(STATUS "${png}: ${bytes} bytes")
