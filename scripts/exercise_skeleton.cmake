# exercise_skeleton.cmake: cuts the marked exercise blocks out of a teaching kernel, giving the
# skeleton a student starts from. The build runs it (lab_exercise() in cmake/Exercises.cmake), so a
# skeleton is always the suite's own kernel minus the marked lines and can never drift from it.
#
#   cmake -DINPUT=kernels/matmul_tiled.cl -DOUTPUT=build/bin/exercises/matmul_tiled.cl
#         [-DSOURCE_NAME=kernels/matmul_tiled.cl] [-DGRADE="command|command..."]
#         [-DSOLUTIONS=FILE]   (FILE: the blocks the skeleton leaves out, markers included)
#         -P scripts/exercise_skeleton.cmake
#   cmake -DSELF_TEST=ON -DINPUT=tests/exercises/sample.cl
#         -DEXPECTED=tests/exercises/sample_skeleton.cl -P scripts/exercise_skeleton.cmake
#
# INSTALLED=ON words the header for an installed copy (graded from the student's own folder).
# SOURCE_NAME is how the header names the input (default INPUT); GRADE lists the commands that
# grade a student's copy, separated by '|'. SELF_TEST generates the skeleton of INPUT twice and
# checks that both are byte for byte EXPECTED.
#
# Marker syntax. The markers are OpenCL C line comments, so the suite's kernel builds and runs
# exactly as it would without them:
#
#     // EXERCISE(<id>): <one-line hint shown to the student>
#     ...the solution lines the student writes...
#     //| <placeholder line>
#     // END EXERCISE
#
# - Each marker is a line of its own; leading blanks are free, the rest is spelled as above. <id>
#   is letters, digits and '_', unique in the file; the hint must not be empty.
# - The skeleton keeps every line outside the blocks as it is and replaces each block by one line,
#   `// YOUR CODE (part <id>): <hint>` at the indentation of the block's EXERCISE line, followed by
#   the block's placeholder lines without their `//| ` (or `//|`): code the skeleton needs to
#   build without warnings, such as a declaration the rest of the kernel uses. In the suite's
#   kernel a placeholder is only a comment.
# - Blocks do not nest, and a block needs at least one solution line. Anything else (an unclosed
#   block, an END without a block, a missing hint, a repeated id, a misspelt marker, a placeholder
#   outside a block, a file without any block) stops the script with the file and line at fault.
# - A block must not be the body of a multi-line #define: the skeleton would cut the macro apart.

cmake_minimum_required(VERSION 3.25)  # the project's policies (IN_LIST) in script mode too

# exercise_skeleton(OUT TEXT SOURCE_NAME GRADE): the skeleton of TEXT, header included; OUT_cut
# gets what the skeleton leaves out: each block, markers and solution lines, without placeholders.
function(exercise_skeleton out text source_name grade)
  set(header "// Exercise skeleton generated from ${source_name} by\n")
  if(INSTALLED)
    string(APPEND header
      "// scripts/exercise_skeleton.cmake. Copy it into a folder of your own, fill in each YOUR CODE\n"
      "// line, then grade your copy from that folder (exit 0 and PASSED: right; exit 1: wrong, the\n"
      "// mismatch lines or the build log say where):\n")
  else()
    string(APPEND header
      "// scripts/exercise_skeleton.cmake: the build rewrites it, so work on a copy. Fill in each\n"
      "// YOUR CODE line, then grade your copy from the repository root (exit 0 and PASSED: right; exit 1:\n"
      "// wrong, the mismatch lines or the build log say where):\n")
  endif()
  string(REPLACE "|" ";" commands "${grade}")
  if(NOT commands)
    set(commands "the lab with --kernel-file YOUR_COPY, as its handout says")
  endif()
  foreach(command IN LISTS commands)
    string(APPEND header "//   ${command}\n")
  endforeach()
  set(result "${header}\n")
  set(cut "")

  set(rest "${text}")
  set(line_no 0)
  set(open_line 0)      # line of the open block's EXERCISE marker, 0 outside blocks
  set(open_id "")
  set(solution_lines 0)
  set(placeholders "")
  set(ids "")
  set(blocks 0)
  string(LENGTH "${rest}" left)
  while(left GREATER 0)
    # The next line, without its '\n'. Semicolons and brackets make CMake lists unreliable for
    # C source, so the text is walked with string(FIND) instead of file(STRINGS).
    string(FIND "${rest}" "\n" newline)
    if(newline LESS 0)
      set(line "${rest}")
      set(rest "")
    else()
      string(SUBSTRING "${rest}" 0 ${newline} line)
      math(EXPR after "${newline} + 1")
      string(SUBSTRING "${rest}" ${after} -1 rest)
    endif()
    string(LENGTH "${rest}" left)
    math(EXPR line_no "${line_no} + 1")
    set(where "${source_name}:${line_no}")

    if(line MATCHES "^([ \t]*)// EXERCISE\\(([A-Za-z0-9_]+)\\)(.*)$")
      set(indent "${CMAKE_MATCH_1}")
      set(id "${CMAKE_MATCH_2}")
      set(tail "${CMAKE_MATCH_3}")
      if(open_line)
        message(FATAL_ERROR "${where}: EXERCISE(${id}) opens inside EXERCISE(${open_id}) of line "
                            "${open_line}: blocks do not nest; close that one with "
                            "'// END EXERCISE' first")
      endif()
      string(REGEX REPLACE "^:[ \t]*" "" hint "${tail}")
      string(REGEX REPLACE "[ \t\r]+$" "" hint "${hint}")
      if(NOT tail MATCHES "^:" OR hint STREQUAL "")
        message(FATAL_ERROR "${where}: EXERCISE(${id}) has no hint: write "
                            "'// EXERCISE(${id}): <what the student must write>'")
      endif()
      if("${id}" IN_LIST ids)
        message(FATAL_ERROR "${where}: the id '${id}' is used twice: each block needs its own")
      endif()
      list(APPEND ids "${id}")
      set(open_line ${line_no})
      set(open_id "${id}")
      set(open_indent "${indent}")
      set(open_hint "${hint}")
      string(APPEND cut "${line}\n")
      set(solution_lines 0)
      set(placeholders "")
    elseif(line MATCHES "^[ \t]*// END EXERCISE[ \t\r]*$")
      if(NOT open_line)
        message(FATAL_ERROR "${where}: '// END EXERCISE' without an open EXERCISE block")
      endif()
      if(solution_lines EQUAL 0)
        message(FATAL_ERROR "${source_name}:${open_line}: EXERCISE(${open_id}) has no solution "
                            "lines between its markers")
      endif()
      string(APPEND result "${open_indent}// YOUR CODE (part ${open_id}): ${open_hint}\n"
                           "${placeholders}")
      string(APPEND cut "${line}\n")
      math(EXPR blocks "${blocks} + 1")
      set(open_line 0)
    elseif(line MATCHES "^[ \t]*//[ \t]*(END[ \t]*)?EXERCISE")
      message(FATAL_ERROR "${where}: malformed marker '${line}': write "
                          "'// EXERCISE(<id>): <hint>' or '// END EXERCISE', each on its own line")
    elseif(line MATCHES "^([ \t]*)//\\| ?(.*)$")
      if(NOT open_line)
        message(FATAL_ERROR "${where}: placeholder line '//|' outside an EXERCISE block")
      endif()
      string(APPEND placeholders "${CMAKE_MATCH_1}${CMAKE_MATCH_2}\n")
    elseif(open_line)
      math(EXPR solution_lines "${solution_lines} + 1")
      string(APPEND cut "${line}\n")
    else()
      string(APPEND result "${line}")
      if(newline GREATER_EQUAL 0)
        string(APPEND result "\n")
      endif()
    endif()
  endwhile()

  if(open_line)
    message(FATAL_ERROR "${source_name}:${open_line}: EXERCISE(${open_id}) is never closed: add "
                        "'// END EXERCISE' after its last solution line")
  endif()
  if(blocks EQUAL 0)
    message(FATAL_ERROR "${source_name}: no '// EXERCISE(<id>): <hint>' block to cut out")
  endif()
  set(${out} "${result}" PARENT_SCOPE)
  set(${out}_cut "${cut}" PARENT_SCOPE)
endfunction()

if(NOT INPUT)
  message(FATAL_ERROR "exercise_skeleton.cmake: pass -DINPUT=<kernel file>")
endif()
if(NOT SOURCE_NAME)
  set(SOURCE_NAME "${INPUT}")
endif()
file(READ "${INPUT}" text)

if(SELF_TEST)
  exercise_skeleton(first "${text}" "${SOURCE_NAME}" "${GRADE}")
  exercise_skeleton(second "${text}" "${SOURCE_NAME}" "${GRADE}")
  if(NOT first STREQUAL second)
    message(FATAL_ERROR "exercise_skeleton.cmake: two runs on ${INPUT} gave different skeletons")
  endif()
  file(READ "${EXPECTED}" expected)
  if(NOT first STREQUAL expected)
    if(OUTPUT)
      file(WRITE "${OUTPUT}" "${first}")
      set(look ": compare ${OUTPUT} with it")
    endif()
    message(FATAL_ERROR "exercise_skeleton.cmake: the skeleton of ${INPUT} differs from "
                        "${EXPECTED}${look}")
  endif()
  message(STATUS "the skeleton of ${INPUT} is ${EXPECTED}, twice")
  return()
endif()

if(NOT OUTPUT)
  message(FATAL_ERROR "exercise_skeleton.cmake: pass -DOUTPUT=<skeleton file>")
endif()
exercise_skeleton(skeleton "${text}" "${SOURCE_NAME}" "${GRADE}")
file(WRITE "${OUTPUT}" "${skeleton}")
if(SOLUTIONS)  # the blocks cut out, for the instructor key and the student edition's test
  file(WRITE "${SOLUTIONS}" "${skeleton_cut}")
endif()
