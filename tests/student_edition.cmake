# student_edition.cmake: the edition handed to students. Installs component `student` into WORK,
# then checks that it holds no instructor key and no exercise's solution (each block's solution
# lines are searched for in the exercised kernel and its skeleton, and blocks of three or more
# lines in every handout and doc as well; the lab's other kernels are not searched: a later
# variant may build on an exercise, as transpose's padded tile is coalesced's tile plus one
# column), that every exercise's grading command, run there as it ships, fails
# with the exercise's sentence, and that each passes once the suite's kernels (the solution blocks)
# are put back.
#   cmake -DBUILD=DIR -DSOURCE=DIR -DWORK=DIR -P student_edition.cmake
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK} --component student
                RESULT_VARIABLE code OUTPUT_VARIABLE log ERROR_VARIABLE log)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "cmake --install --component student failed (${code}):\n${log}")
endif()
set(launcher ${WORK}/bin/opencl-labs)
set(share ${WORK}/share/opencl-labs)
file(GLOB_RECURSE key ${WORK}/*instructor* ${WORK}/*solutions*)
if(key)
  message(FATAL_ERROR "the student edition holds the instructor key: ${key}")
endif()

# normalized(OUT TEXT): TEXT's code lines, comments and blank lines dropped, spaces collapsed,
# joined by '|' (a ';' would split a CMake list).
function(normalized out text)
  string(REPLACE ";" "<semicolon>" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(kept "")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "//.*$" "" line "${line}")
    string(REGEX REPLACE "[ \t]+" " " line "${line}")
    string(STRIP "${line}" line)
    if(NOT line STREQUAL "")
      string(APPEND kept "${line}|")
    endif()
  endforeach()
  set(${out} "${kept}" PARENT_SCOPE)
endfunction()

# Every block the skeletons leave out (as the build recorded them while making the skeletons),
# searched for by its code lines.
include(${CMAKE_CURRENT_LIST_DIR}/../cmake/ExerciseList.cmake)
lab_exercise_rows(${BUILD}/exercises.tsv exercise)
file(GLOB_RECURSE docs ${WORK}/*.md)
set(blocks 0)
foreach(kernel IN LISTS exercise_kernels)
  lab_exercise_blocks(${BUILD}/install-stage/solutions/${kernel} block)
  foreach(id IN LISTS block_ids)
    normalized(solution "${block_${id}_code}")
    string(REGEX MATCHALL "\\|" bars "${solution}")
    list(LENGTH bars lines)
    math(EXPR blocks "${blocks} + 1")
    set(texts ${share}/kernels/${kernel} ${share}/exercises/${kernel})
    if(lines GREATER 2)  # a one- or two-line idiom may rightly appear in a handout
      list(APPEND texts ${docs})
    endif()
    foreach(text IN LISTS texts)
      # Each text normalized once: CMake walks its lines slowly, and the docs are searched for
      # every block.
      string(MAKE_C_IDENTIFIER "${text}" id_of_text)
      if(NOT DEFINED normalized_${id_of_text})
        file(READ ${text} content)
        normalized(normalized_${id_of_text} "${content}")
      endif()
      string(FIND "${normalized_${id_of_text}}" "${solution}" at)
      if(at GREATER -1)
        message(FATAL_ERROR "${text} holds the solution of exercise ${id} (kernels/${kernel})")
      endif()
    endforeach()
  endforeach()
endforeach()
if(blocks EQUAL 0)
  message(FATAL_ERROR "no exercise block found in ${exercise_kernels}")
endif()

# Each exercise as it ships fails with its sentence; with the solutions back, it passes.
function(run_exercises want)
  math(EXPR last "${exercise_count} - 1")
  foreach(i RANGE ${last})
    set(lab ${exercise_${i}_lab})
    set(name ${exercise_${i}_name})
    set(match "${exercise_${i}_match}")
    separate_arguments(args UNIX_COMMAND "${exercise_${i}_args}")
    execute_process(COMMAND ${launcher} ${lab} ${args} --reps 1
                    RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(want STREQUAL "fails" AND NOT (code EQUAL 1 AND "${out}${err}" MATCHES "${match}"))
      message(FATAL_ERROR "${lab}.${name} in the student edition exited ${code} without "
                          "'${match}':\n${out}\n${err}")
    elseif(want STREQUAL "passes" AND NOT (code EQUAL 0 AND out MATCHES "PASSED"))
      message(FATAL_ERROR "${lab}.${name} with its solution back exited ${code}:\n${out}\n${err}")
    endif()
  endforeach()
endfunction()
run_exercises(fails)
foreach(kernel IN LISTS exercise_kernels)
  file(COPY_FILE ${SOURCE}/kernels/${kernel} ${share}/kernels/${kernel})
endforeach()
run_exercises(passes)
message(STATUS "student edition: ${blocks} exercise blocks absent; ${exercise_count} exercises "
               "fail as shipped and pass with their solutions")
