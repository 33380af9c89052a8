# solution_leak_caught.cmake: proof that the student edition's search for solutions
# (find_solutions.py, run by student_edition.cmake) can fail. In a copy of the skeletons the build
# stages for installing (none holds a solution: the search must find nothing), each exercise's
# block is planted back, reformatted (its comments dropped, its lines joined, a comment of its own
# in the middle), into a file of its own kernel's name; the search must name every block and its
# file. A block of two lines or more is also planted into a handout, where it must be found too.
#   cmake -DBUILD=DIR -DWORK=DIR -DPYTHON=python3 -P solution_leak_caught.cmake
include(${CMAKE_CURRENT_LIST_DIR}/../cmake/ExerciseList.cmake)
set(find ${CMAKE_CURRENT_LIST_DIR}/find_solutions.py)
file(REMOVE_RECURSE ${WORK})
file(COPY ${BUILD}/install-stage/exercises DESTINATION ${WORK})
lab_exercise_rows(${BUILD}/exercises.tsv exercise)
# The host exercises' programs (lab_host_exercise) are searched for and planted as the kernels are.
file(GLOB host_programs RELATIVE ${BUILD}/install-stage/solutions
     ${BUILD}/install-stage/solutions/*.cpp)
list(APPEND exercise_kernels ${host_programs})
set(cut "")
foreach(kernel IN LISTS exercise_kernels)
  list(APPEND cut ${BUILD}/install-stage/solutions/${kernel})
endforeach()

# search(OUT CODE TREE): runs the search over TREE; OUT gets its report, OUT_code its exit code.
function(search out tree)
  execute_process(COMMAND ${PYTHON} ${find} --blocks ${cut} --in ${tree}
                  RESULT_VARIABLE code OUTPUT_VARIABLE report ERROR_VARIABLE report)
  set(${out} "${report}" PARENT_SCOPE)
  set(${out}_code ${code} PARENT_SCOPE)
endfunction()

search(clean ${WORK}/exercises)
if(NOT clean_code EQUAL 0)
  message(FATAL_ERROR "the skeletons alone should hold no solution, but the search exited "
                      "${clean_code}:\n${clean}")
endif()

set(expected "")
set(handout ${WORK}/planted/labs/handout.md)
file(WRITE ${handout} "# A handout\n\nThe answer, which must not be here:\n\n```c\n")
foreach(kernel IN LISTS exercise_kernels)
  lab_exercise_blocks(${BUILD}/install-stage/solutions/${kernel} block)
  foreach(id IN LISTS block_ids)
    # Comments dropped, lines joined, a comment planted after the first statement.
    string(REGEX REPLACE "//[^\n]*" "" code "${block_${id}_code}")
    string(REGEX REPLACE "[ \t\n]+" " " code "${code}")
    string(REPLACE ";" "; /* planted */" code "${code}")
    set(file ${WORK}/planted/${kernel}_${id}/${kernel})
    file(WRITE ${file} "// ${kernel} with the answer back\n${code}\n")
    list(APPEND expected "${file}: holds the solution of exercise ${id} \\((kernels/)?${kernel}")
    string(REGEX MATCHALL "\n[ \t]*[^ \t\n/#]" lines "\n${block_${id}_code}")
    list(LENGTH lines count)
    if(count GREATER 1)
      file(APPEND ${handout} "${code}\n")
      list(APPEND expected "${handout}: holds the solution of exercise ${id} \\((kernels/)?${kernel}")
    endif()
  endforeach()
endforeach()
file(APPEND ${handout} "```\n")

search(planted ${WORK}/planted)
if(NOT planted_code EQUAL 1)
  message(FATAL_ERROR "with every block planted back the search exited ${planted_code}, not 1:\n"
                      "${planted}")
endif()
list(LENGTH expected count)
foreach(line IN LISTS expected)
  if(NOT planted MATCHES "${line}")
    message(FATAL_ERROR "the search missed a planted block: no line '${line}' in\n${planted}")
  endif()
endforeach()
message(STATUS "the search finds none in the skeletons and all ${count} planted blocks")
