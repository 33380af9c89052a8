# student_edition.cmake: the edition handed to students. Installs component `student` into WORK,
# then checks that it holds no instructor key and no exercise's solution in any file (each block
# the skeletons leave out, the host programs' too, searched for by tests/find_solutions.py), that
# every exercise's grading command and every repeat's command (lab_exercise_repeat), run there as
# it ships, fails with its sentence, and that each passes once the suite's kernels (the solution
# blocks) are put back.
#   cmake -DBUILD=DIR -DSOURCE=DIR -DWORK=DIR -DPYTHON=python3 -P student_edition.cmake
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

# The grader is the instructor's: the student edition has no reference kernels to grade with.
execute_process(COMMAND ${launcher} grade ${WORK} RESULT_VARIABLE code OUTPUT_VARIABLE log
                ERROR_VARIABLE log)
if(NOT code EQUAL 3 OR NOT log MATCHES "comes with the instructor edition")
  message(FATAL_ERROR "opencl-labs grade in the student edition: exit ${code}, expected 3 and "
                      "a sentence naming the instructor edition:\n${log}")
endif()

# Every block the skeletons leave out (as the build recorded them while making the skeletons,
# repeats included), searched for in every installed file by find_solutions.py, which says which
# files are searched for which blocks and how they are compared.
include(${CMAKE_CURRENT_LIST_DIR}/../cmake/ExerciseList.cmake)
lab_exercise_rows(${BUILD}/exercises.tsv exercise)
# The kernels that repeat an exercise's lines (build/exercise_repeats.tsv: LAB, KERNEL, ARGS,
# MATCH), run below as exercises named LAB.KERNEL.
file(STRINGS ${BUILD}/exercise_repeats.tsv repeats)
set(repeated "")
foreach(row IN LISTS repeats)
  string(REPLACE "\t" ";" fields "${row}")
  list(GET fields 0 lab)
  list(GET fields 1 kernel)
  list(APPEND repeated ${kernel})
  set(exercise_${exercise_count}_lab ${lab})
  set(exercise_${exercise_count}_name ${kernel})
  list(GET fields 2 exercise_${exercise_count}_args)
  list(GET fields 3 exercise_${exercise_count}_match)
  math(EXPR exercise_count "${exercise_count} + 1")
endforeach()

if(NOT PYTHON)
  message(FATAL_ERROR "pass -DPYTHON=python3: tests/find_solutions.py searches the edition")
endif()
set(cut "")
foreach(kernel IN LISTS exercise_kernels repeated)
  list(APPEND cut ${BUILD}/install-stage/solutions/${kernel})
endforeach()
# The host exercises (lab_host_exercise): each program's skeleton is installed, and the blocks cut
# from it (install-stage/solutions/*.cpp) are searched for as the kernels' are.
file(GLOB host_cut ${BUILD}/install-stage/solutions/*.cpp)
if(NOT host_cut)
  message(FATAL_ERROR "no host exercise staged in ${BUILD}/install-stage/solutions: build first")
endif()
foreach(file IN LISTS host_cut)
  get_filename_component(name ${file} NAME)
  if(NOT EXISTS ${share}/exercises/${name})
    message(FATAL_ERROR "the student edition lacks the host exercise's skeleton exercises/${name}")
  endif()
  list(APPEND cut ${file})
endforeach()
execute_process(COMMAND ${PYTHON} ${CMAKE_CURRENT_LIST_DIR}/find_solutions.py --blocks ${cut}
                        --in ${WORK}
                RESULT_VARIABLE code OUTPUT_VARIABLE found ERROR_VARIABLE found)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "the student edition holds exercise solutions:\n${found}")
endif()
string(REGEX MATCH "[0-9]+ blocks searched for in [0-9]+ files" searched "${found}")

# Each exercise as it ships fails with its sentence; with the solutions back, it passes. So does
# each repeat's variant.
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
foreach(kernel IN LISTS exercise_kernels repeated)
  file(COPY_FILE ${SOURCE}/kernels/${kernel} ${share}/kernels/${kernel})
endforeach()
run_exercises(passes)
list(LENGTH repeats repeat_count)
message(STATUS "student edition: no solution in it (${searched}); ${exercise_count} exercises "
               "and repeats (${repeat_count}) fail as shipped and pass with their solutions")
