# ExerciseList.cmake: reading what the build records about the exercises, for the scripts that
# install, document and test them (include() it).
#
# lab_exercise_rows(TSV OUT): build/exercises.tsv (written by lab_exercise, one exercise a line:
# LAB, NAME, KERNEL, ARGS, MATCH, VARY, tab-separated) as OUT_count, OUT_<i>_lab, _name, _kernel,
# _args, _match and _vary for i = 0 .. count - 1, and OUT_kernels, the kernel files in first-seen order.
function(lab_exercise_rows tsv out)
  file(STRINGS ${tsv} rows)
  set(i 0)
  set(kernels "")
  foreach(row IN LISTS rows)
    string(REPLACE "\t" ";" fields "${row}")
    foreach(field lab name kernel args match vary)
      list(LENGTH fields count)
      set(value "")
      if(count GREATER 0)
        list(POP_FRONT fields value)
      endif()
      set(${out}_${i}_${field} "${value}" PARENT_SCOPE)
      if(field STREQUAL "kernel")
        list(APPEND kernels ${value})
      endif()
    endforeach()
    math(EXPR i "${i} + 1")
  endforeach()
  list(REMOVE_DUPLICATES kernels)
  set(${out}_count ${i} PARENT_SCOPE)
  set(${out}_kernels ${kernels} PARENT_SCOPE)
endfunction()

# lab_exercise_blocks(CUT OUT): the blocks a skeleton leaves out (the file SOLUTIONS that
# scripts/exercise_skeleton.cmake writes) as OUT_ids, OUT_<id>_hint and OUT_<id>_code, the block's
# solution lines as written.
function(lab_exercise_blocks cut out)
  file(READ ${cut} text)
  # Split at the END markers, keeping the ';' of C statements out of CMake's list separator.
  string(REPLACE ";" "<semicolon>" text "${text}")
  string(REGEX REPLACE "[ \t]*// END EXERCISE[^\n]*\n" ";" parts "${text}")
  set(ids "")
  foreach(part IN LISTS parts)
    if(part MATCHES "^[ \t]*// EXERCISE\\(([A-Za-z0-9_]+)\\): ([^\n]*)\n(.*)$")
      set(id ${CMAKE_MATCH_1})
      list(APPEND ids ${id})
      string(REPLACE "<semicolon>" ";" hint "${CMAKE_MATCH_2}")
      string(REPLACE "<semicolon>" ";" code "${CMAKE_MATCH_3}")
      set(${out}_${id}_hint "${hint}" PARENT_SCOPE)
      set(${out}_${id}_code "${code}" PARENT_SCOPE)
    endif()
  endforeach()
  set(${out}_ids ${ids} PARENT_SCOPE)
endfunction()
