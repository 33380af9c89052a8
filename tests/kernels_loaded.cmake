# kernels_loaded.cmake: a lab run with --json must report that every kernel file it built came
# from the kernels/ folder beside its own binary, so a file missing from add_lab's KERNELS (which
# the lab would then not find) fails the test. With -DFOLDER=DIR, from DIR instead (an installed
# lab run through the launcher: the installed share folder).
#   cmake [-DFOLDER=DIR] -P kernels_loaded.cmake -- LAB ARGS... --json
# The check reads grading.kernel_files, the list the lab builds its report from, rather than
# looking for a message in the log: a reworded message would make such a test pass silently.
include(${CMAKE_CURRENT_LIST_DIR}/command_after_separator.cmake)

list(GET command 0 lab)
execute_process(COMMAND ${command} OUTPUT_VARIABLE json ERROR_VARIABLE errors RESULT_VARIABLE code)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "${command} exited with ${code}\nstdout:\n${json}\nstderr:\n${errors}")
endif()
string(JSON count ERROR_VARIABLE parse_error LENGTH "${json}" grading kernel_files)
if(parse_error)
  message(FATAL_ERROR "no grading.kernel_files in the JSON: ${parse_error}\n${json}")
endif()
# An empty list would pass every check below: the arguments must make the lab build its kernels.
if(count EQUAL 0)
  message(FATAL_ERROR "grading.kernel_files is empty: the run built no kernel\n${json}")
endif()

# Real paths on both sides, so a symlinked build folder compares equal to itself.
if(NOT FOLDER)
  get_filename_component(lab_dir "${lab}" DIRECTORY)
  set(FOLDER "${lab_dir}/kernels")
endif()
file(REAL_PATH "${FOLDER}" beside_binary)
set(elsewhere "")
math(EXPR last "${count} - 1")
foreach(i RANGE 0 ${last})
  string(JSON path GET "${json}" grading kernel_files ${i} path)
  get_filename_component(folder "${path}" DIRECTORY)
  file(REAL_PATH "${folder}" folder)
  if(NOT folder STREQUAL beside_binary)
    list(APPEND elsewhere "${path}")
  endif()
endforeach()
if(elsewhere)
  string(REPLACE ";" "\n  " elsewhere "${elsewhere}")
  message(FATAL_ERROR "kernel files built from outside ${beside_binary} (is each one in add_lab's "
                      "KERNELS?):\n  ${elsewhere}\nstderr:\n${errors}")
endif()
message(STATUS "${count} kernel files, all from ${beside_binary}")
