# kernels_loaded.cmake: a lab run with --json must report that every kernel file it built came
# from the kernels/ folder beside its own binary, so a file missing from add_lab's KERNELS fails
# the test.
#   cmake -DKERNELS=a.cl|b.cl -DSOURCE=DIR -DWORK=DIR -P kernels_loaded.cmake -- LAB ARGS... --json
# copies LAB and only the KERNELS (from SOURCE, with the files they #include "...") into a fresh
# WORK and runs the copy: every lab's build copies share bin/kernels/, where a file missing from
# one lab's list would be found as another lab's.
#   cmake -DFOLDER=DIR -P kernels_loaded.cmake -- LAB ARGS... --json
# runs LAB where it is and expects every file from DIR (an installed lab run through the launcher:
# the installed share folder).
# The check reads grading.kernel_files, the list the lab builds its report from, rather than
# looking for a message in the log: a reworded message would make such a test pass silently.
cmake_policy(VERSION 3.20)
include(${CMAKE_CURRENT_LIST_DIR}/command_after_separator.cmake)

if(DEFINED KERNELS)
  list(GET command 0 binary)
  get_filename_component(name "${binary}" NAME)
  file(REMOVE_RECURSE "${WORK}")
  file(MAKE_DIRECTORY "${WORK}/kernels")
  file(COPY "${binary}" DESTINATION "${WORK}")
  string(REPLACE "|" ";" queue "${KERNELS}")
  set(copied "")
  while(queue)
    list(POP_FRONT queue file)
    if(file IN_LIST copied)
      continue()
    endif()
    if(NOT EXISTS "${SOURCE}/${file}")
      message(FATAL_ERROR "kernels/${file} (in KERNELS or #included) does not exist")
    endif()
    get_filename_component(sub "${file}" DIRECTORY)
    file(COPY "${SOURCE}/${file}" DESTINATION "${WORK}/kernels/${sub}")
    list(APPEND copied "${file}")
    file(STRINGS "${SOURCE}/${file}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
    foreach(line IN LISTS includes)
      string(REGEX REPLACE "^[^\"]*\"([^\"]+)\".*" "\\1" included "${line}")
      if(sub)
        set(included "${sub}/${included}")
      endif()
      list(APPEND queue "${included}")
    endforeach()
  endwhile()
  list(REMOVE_AT command 0)
  list(PREPEND command "${WORK}/${name}")
  set(FOLDER "${WORK}/kernels")
  string(REPLACE ";" " " listed "${copied}")
  message(STATUS "${name} alone in ${WORK} with its KERNELS: ${listed}")
endif()

list(GET command 0 lab)
execute_process(COMMAND ${command} OUTPUT_VARIABLE json ERROR_VARIABLE errors RESULT_VARIABLE code)
if(DEFINED KERNELS AND errors MATCHES "kernel file ([^ ]+) not found")
  message(FATAL_ERROR "${name} loads ${CMAKE_MATCH_1}, which is not in add_lab(${name})'s KERNELS "
                      "(${listed}): add it there\n${errors}")
endif()
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
