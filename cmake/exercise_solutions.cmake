# exercise_solutions.cmake: the instructor key's solutions.md. For every kernel file an exercise
# uses (EXERCISES, build/exercises.tsv), the blocks its skeleton leaves out (CUT/KERNEL, written
# by scripts/exercise_skeleton.cmake) with the exercises that grade them and their commands.
#   cmake -DEXERCISES=exercises.tsv -DCUT=dir -DOUTPUT=solutions.md -P exercise_solutions.cmake
include(${CMAKE_CURRENT_LIST_DIR}/ExerciseList.cmake)
lab_exercise_rows(${EXERCISES} exercise)

set(text "# Exercise solutions\n\nFor the instructor. Each exercise's skeleton is its kernel with ")
string(APPEND text "the blocks below left out; these are the suite's own lines, which pass the ")
string(APPEND text "grading commands. The student edition holds none of them.\n")
foreach(kernel IN LISTS exercise_kernels)
  string(APPEND text "\n## kernels/${kernel}\n\nGraded by:\n")
  math(EXPR last "${exercise_count} - 1")
  foreach(i RANGE ${last})
    if(exercise_${i}_kernel STREQUAL kernel)
      string(APPEND text "- `opencl-labs ${exercise_${i}_lab} ${exercise_${i}_args} "
                         "--kernel-file my_${kernel}` (${exercise_${i}_lab}.${exercise_${i}_name})\n")
    endif()
  endforeach()
  lab_exercise_blocks(${CUT}/${kernel} block)
  foreach(id IN LISTS block_ids)
    string(APPEND text "\nExercise `${id}`: ${block_${id}_hint}\n\n```c\n${block_${id}_code}```\n")
  endforeach()
endforeach()
file(WRITE ${OUTPUT} "${text}")
