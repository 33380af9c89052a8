# Exercises.cmake: lab_exercise() turns one of the suite's kernels into a student's skeleton at
# build time, and registers the tests that show the exercise is fair both ways:
#
#   lab_exercise(matmul tiled KERNEL matmul_tiled.cl MATCH "mismatch C \\(tiled\\)"
#                ARGS --variant tiled --rows 65 --inner 130 --cols 31
#                VARY --rows=17:70:300 --inner=17:70:300 --cols=17:70:300)
#
#   bin/exercises/matmul_tiled.cl          kernels/matmul_tiled.cl with its EXERCISE blocks cut
#                                          out by scripts/exercise_skeleton.cmake (the marker
#                                          syntax is described there), remade whenever the kernel
#                                          changes and built with the lab
#   exercise.matmul.tiled.skeleton_fails   [lab] the lab with ARGS on the skeleton, built with
#                                          -Werror, exits 1 and prints MATCH (default "mismatch"):
#                                          the skeleton builds cleanly and cannot pass as shipped
#   exercise.matmul.tiled.solution_passes  [lab] the same command on kernels/matmul_tiled.cl
#                                          exits 0 and prints PASSED, Oclgrind's check included
#
# ARGS are the arguments of the grading command that the handout gives and the skeleton's header
# prints (the tests add --reps 1); choose sizes that are not multiples of the work-group or tile,
# so a missing bounds check shows. Several calls may share a kernel (one per shape, say): the
# skeleton is made once and its header lists every call's command. The generator's own tests are
# exercise.generator.*, registered below.
#
# VARY says which of the ARGS are sizes the grader (scripts/grade.py) chooses anew for each grading,
# from a seed it records, so a kernel that only works at the printed sizes fails: OPTION=EDGE:SMALL:
# LARGE, where EDGE is one above a work-group or tile (graded as it is), SMALL the largest odd size
# checked under Oclgrind, LARGE the top of the large run; a comma-separated value (--global 10,7)
# gives one EDGE:SMALL:LARGE per field.
#
#   lab_exercise_repeat(transpose KERNEL transpose_padded.cl MATCH "mismatch B"
#                       ARGS --variant padded -H 37 -W 21 --tile 8)
#
# declares a kernel that is no exercise of its own but repeats an exercise's lines: it marks them
# with the same EXERCISE id and hint as the exercise's kernel. The full edition and the build tree
# keep it whole; the student edition ships its skeleton in its place (install-stage/repeats/KERNEL,
# see install_skeletons.cmake), so it gives no answer away. ARGS run a variant that loads it: in
# the student edition that command fails with MATCH, and passes once the suite's kernels are back
# (install.student_edition). HELPER marks a kernel the lab loads beside its own, which
# --kernel-file cannot replace: its skeleton's header grades a copy with --kernel-dir instead.
# Every marked kernel under kernels/ is an exercise's or a repeat: the configure step stops on a
# marker of neither, and on a repeated block whose id or hint its exercise's kernel lacks.

set(LAB_EXERCISE_SCRIPT ${PROJECT_SOURCE_DIR}/scripts/exercise_skeleton.cmake)
set(LAB_EXERCISE_DIR ${LAB_BIN_DIR}/exercises)
# Every exercise, one per line: LAB<tab>NAME<tab>KERNEL<tab>ARGS (space-separated)<tab>MATCH (what
# the skeleton's failure prints)<tab>VARY (space-separated), which scripts/grade.sh reads to grade a class and the student
# edition's test to run each exercise.
set(LAB_EXERCISE_LIST ${CMAKE_BINARY_DIR}/exercises.tsv)
file(WRITE ${LAB_EXERCISE_LIST} "")
# Every repeat, one per line: LAB<tab>KERNEL<tab>ARGS<tab>MATCH, which the student edition's test
# reads (scripts/grade.sh does not: a repeat is graded through its exercise).
set(LAB_EXERCISE_REPEAT_LIST ${CMAKE_BINARY_DIR}/exercise_repeats.tsv)
file(WRITE ${LAB_EXERCISE_REPEAT_LIST} "")

# _lab_exercise_arguments(CALL): for lab_exercise and lab_exercise_repeat, once they have parsed
# X_KERNEL, X_MATCH and X_ARGS: checks the kernel, sets source (its path), X_MATCH's default and
# listed_args (ARGS as one string). CALL names the call in an error.
macro(_lab_exercise_arguments call)
  set(source ${PROJECT_SOURCE_DIR}/kernels/${X_KERNEL})
  if(NOT X_KERNEL OR NOT EXISTS ${source})
    message(FATAL_ERROR "${call}: KERNEL kernels/${X_KERNEL} does not exist")
  endif()
  if(NOT X_MATCH)
    set(X_MATCH "mismatch")
  endif()
  string(JOIN " " listed_args ${X_ARGS})
endmacro()

# lab_exercise(LAB NAME KERNEL file [MATCH regex] ARGS args... VARY OPTION=EDGE:SMALL:LARGE...)
function(lab_exercise lab name)
  cmake_parse_arguments(PARSE_ARGV 2 X "" "KERNEL;MATCH" "ARGS;VARY")
  _lab_exercise_arguments("lab_exercise(${lab} ${name})")
  if(NOT X_VARY)
    message(FATAL_ERROR "lab_exercise(${lab} ${name}): VARY must name the sizes the grader varies")
  endif()
  foreach(vary IN LISTS X_VARY)
    if(NOT vary MATCHES "^(-[-a-zA-Z]+)=[0-9]+:[0-9]+:[0-9]+(,[0-9]+:[0-9]+:[0-9]+)*$")
      message(FATAL_ERROR "lab_exercise(${lab} ${name}): VARY ${vary} is not OPTION=EDGE:SMALL:LARGE")
    endif()
    list(FIND X_ARGS "${CMAKE_MATCH_1}" at)
    if(at LESS 0)
      message(FATAL_ERROR "lab_exercise(${lab} ${name}): VARY ${vary} names an option ARGS lacks")
    endif()
  endforeach()
  set_property(GLOBAL APPEND PROPERTY LAB_EXERCISE_KERNELS ${X_KERNEL})
  set_property(GLOBAL PROPERTY LAB_EXERCISE_${lab}_${name} ${X_KERNEL} ${X_ARGS})
  string(JOIN " " listed_vary ${X_VARY})
  file(APPEND ${LAB_EXERCISE_LIST}
       "${lab}\t${name}\t${X_KERNEL}\t${listed_args}\t${X_MATCH}\t${listed_vary}\n")

  # The grading command as a student types it from the repository root.
  file(RELATIVE_PATH binary ${PROJECT_SOURCE_DIR} ${LAB_BIN_DIR}/${lab})
  if(binary MATCHES "^\\.\\./")
    set(binary ${LAB_BIN_DIR}/${lab})  # a build folder outside the source tree
  endif()
  string(JOIN " " command ${binary} ${X_ARGS} --kernel-file my_${X_KERNEL})
  # ... and as it reads once installed: through the launcher, from the student's own folder.
  string(JOIN " " installed_command ${LAB_LAUNCHER} ${lab} ${X_ARGS} --kernel-file my_${X_KERNEL})

  # One generation rule per kernel, made once every call has added its command (at the end of the
  # top-level directory), so the header lists them all.
  string(MAKE_C_IDENTIFIER "lab_exercise_${X_KERNEL}" target)
  set_property(GLOBAL APPEND PROPERTY ${target}_COMMANDS "${command}")
  set_property(GLOBAL APPEND PROPERTY ${target}_INSTALLED_COMMANDS "${installed_command}")
  set_property(GLOBAL APPEND PROPERTY ${target}_LIST_FILES ${CMAKE_CURRENT_LIST_FILE})
  get_property(scheduled GLOBAL PROPERTY ${target}_SCHEDULED)
  if(NOT scheduled)
    set_property(GLOBAL PROPERTY ${target}_SCHEDULED TRUE)
    set_property(GLOBAL APPEND PROPERTY LAB_EXERCISE_TARGETS ${target})
    # A deferred call reads its arguments when it runs: EVAL puts in their values now.
    cmake_language(EVAL CODE "cmake_language(DEFER DIRECTORY [[${PROJECT_SOURCE_DIR}]]
                                             CALL _lab_exercise_skeleton [[${X_KERNEL}]] ${target})")
  endif()
  add_dependencies(${lab} ${target})

  if(NOT (BUILD_TESTING AND LAB_BUILD_TESTS))
    return()
  endif()
  # -Werror: a skeleton must build without warnings, and fail by its results (exit 1 with a
  # mismatch line), not by its build (exit 1 with a build log, which MATCH would not accept).
  set(run $<TARGET_FILE:${lab}> ${X_ARGS} --reps 1 --build-options -Werror --kernel-file)
  set(test exercise.${lab}.${name})
  add_test(NAME ${test}.skeleton_fails
    COMMAND ${CMAKE_COMMAND} -DEXPECT_CODE=1 "-DEXPECT_REGEX=${X_MATCH}" -P ${LAB_EXPECT_SCRIPT}
            -- ${run} ${LAB_EXERCISE_DIR}/${X_KERNEL})
  add_test(NAME ${test}.solution_passes
    COMMAND ${CMAKE_COMMAND} -DEXPECT_CODE=0 -DEXPECT_REGEX=PASSED -P ${LAB_EXPECT_SCRIPT}
            -- ${run} ${source})
  lab_set_test_properties(${test}.skeleton_fails lab)
  lab_set_test_properties(${test}.solution_passes lab)
  # The solution passes Oclgrind's check too: no race, stray access or uninitialised value.
  set_property(TEST ${test}.solution_passes APPEND PROPERTY ENVIRONMENT_MODIFICATION
               "LAB_OCLGRIND_CHECK=set:on")
endfunction()

# lab_exercise_plant(LAB NAME PLANT KERNEL_FILE MATCH regex): [lab] LAB.plant.NAME.PLANT runs the
# exercise's grading command (its ARGS, as the handout and the skeleton print it) on KERNEL_FILE,
# the exercise's kernel with one planted mistake (a lab_planted_kernel file), with the lab's
# Oclgrind check on: the lab must exit 1 and print MATCH. For the mistakes a run on PoCL cannot
# show (a missing barrier, an update that is not atomic), MATCH is Oclgrind's finding. Skipped
# (77) where Oclgrind is not installed; call it after the exercise's lab_exercise().
function(lab_exercise_plant lab name plant kernel_file)
  cmake_parse_arguments(PARSE_ARGV 4 X "" "MATCH" "")
  get_property(exercise GLOBAL PROPERTY LAB_EXERCISE_${lab}_${name})
  if(NOT exercise)
    message(FATAL_ERROR "lab_exercise_plant(${lab} ${name}): no such exercise (yet)")
  endif()
  list(POP_FRONT exercise kernel)
  if(NOT OCLGRIND)
    if(BUILD_TESTING AND LAB_BUILD_TESTS)
      _lab_skipped_test(${lab}.plant.${name}.${plant} lab "${LAB_NO_OCLGRIND}")
    endif()
    return()
  endif()
  lab_expect(${lab} plant.${name}.${plant} EXIT 1 MATCH "${X_MATCH}"
             ENV "LAB_OCLGRIND_CHECK=set:on" ARGS ${exercise} --reps 1 --kernel-file ${kernel_file})
endfunction()

# lab_exercise_repeat(LAB KERNEL file [HELPER] [MATCH regex] ARGS args...)
function(lab_exercise_repeat lab)
  cmake_parse_arguments(PARSE_ARGV 1 X "HELPER" "KERNEL;MATCH" "ARGS")
  _lab_exercise_arguments("lab_exercise_repeat(${lab})")
  file(APPEND ${LAB_EXERCISE_REPEAT_LIST} "${lab}\t${X_KERNEL}\t${listed_args}\t${X_MATCH}\n")
  set_property(GLOBAL APPEND PROPERTY LAB_EXERCISE_REPEATS ${X_KERNEL})
  if(X_HELPER)  # from a folder holding the student's copies of this kernel and the lab's own
    string(JOIN " " command ${LAB_LAUNCHER} ${lab} ${X_ARGS} --kernel-dir .)
  else()
    string(JOIN " " command ${LAB_LAUNCHER} ${lab} ${X_ARGS} --kernel-file my_${X_KERNEL})
  endif()
  set(skeleton ${LAB_INSTALL_STAGE_DIR}/repeats/${X_KERNEL})
  set(cut ${LAB_INSTALL_STAGE_DIR}/solutions/${X_KERNEL})
  add_custom_command(OUTPUT ${skeleton} ${cut}
    COMMAND ${CMAKE_COMMAND} -DINPUT=${source} -DOUTPUT=${skeleton} -DINSTALLED=ON
            -DSOURCE_NAME=${LAB_INSTALL_KERNEL_NAME}/${X_KERNEL} "-DGRADE=${command}"
            -DSOLUTIONS=${cut} -P ${LAB_EXERCISE_SCRIPT}
    DEPENDS ${source} ${LAB_EXERCISE_SCRIPT} ${CMAKE_CURRENT_LIST_FILE}
    COMMENT "Generating the student edition's kernels/${X_KERNEL}"
    VERBATIM)
  string(MAKE_C_IDENTIFIER "lab_exercise_repeat_${X_KERNEL}" target)
  add_custom_target(${target} DEPENDS ${skeleton} ${cut})
  add_dependencies(${lab} ${target})
endfunction()

# _lab_exercise_markers(FILE OUT): the EXERCISE markers of FILE as OUT_ids and OUT_<id>_hint.
function(_lab_exercise_markers file out)
  file(STRINGS ${file} markers REGEX "^[ \t]*// EXERCISE\\([A-Za-z0-9_]+\\):")
  set(ids "")
  foreach(marker IN LISTS markers)
    string(REGEX MATCH "EXERCISE\\(([A-Za-z0-9_]+)\\):[ \t]*(.*)$" _ "${marker}")
    list(APPEND ids ${CMAKE_MATCH_1})
    string(STRIP "${CMAKE_MATCH_2}" ${out}_${CMAKE_MATCH_1}_hint)
    set(${out}_${CMAKE_MATCH_1}_hint "${${out}_${CMAKE_MATCH_1}_hint}" PARENT_SCOPE)
  endforeach()
  set(${out}_ids ${ids} PARENT_SCOPE)
endfunction()

# _lab_exercise_check_markers(): every marked kernel is an exercise's or a repeat, and a repeat's
# blocks are its exercises' blocks (same id, same hint): a marker of neither would leave its
# lines in the student edition.
function(_lab_exercise_check_markers)
  get_property(exercised GLOBAL PROPERTY LAB_EXERCISE_KERNELS)
  get_property(repeats GLOBAL PROPERTY LAB_EXERCISE_REPEATS)
  list(REMOVE_DUPLICATES exercised)
  foreach(kernel IN LISTS exercised)
    _lab_exercise_markers(${PROJECT_SOURCE_DIR}/kernels/${kernel} marks)
    foreach(id IN LISTS marks_ids)
      set(hint_of_${id} "${marks_${id}_hint}")
    endforeach()
  endforeach()
  file(GLOB kernels RELATIVE ${PROJECT_SOURCE_DIR}/kernels ${PROJECT_SOURCE_DIR}/kernels/*.cl)
  foreach(kernel IN LISTS kernels)
    set(file ${PROJECT_SOURCE_DIR}/kernels/${kernel})
    set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${file})
    _lab_exercise_markers(${file} marks)
    if(NOT marks_ids OR kernel IN_LIST exercised)
      continue()
    endif()
    if(NOT kernel IN_LIST repeats)
      message(FATAL_ERROR "kernels/${kernel} marks EXERCISE(${marks_ids}) but is neither an "
                          "exercise's kernel (lab_exercise) nor a repeat (lab_exercise_repeat): "
                          "its lines would ship in the student edition")
    endif()
    foreach(id IN LISTS marks_ids)
      if(NOT DEFINED hint_of_${id} OR NOT hint_of_${id} STREQUAL marks_${id}_hint)
        message(FATAL_ERROR "kernels/${kernel}: EXERCISE(${id}) repeats no exercise's block: "
                            "an exercise's kernel must mark the same id with the same hint")
      endif()
    endforeach()
  endforeach()
endfunction()
cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL _lab_exercise_check_markers)

# _lab_exercise_skeleton(KERNEL TARGET): the rule that writes bin/exercises/KERNEL, and TARGET.
function(_lab_exercise_skeleton kernel target)
  get_property(commands GLOBAL PROPERTY ${target}_COMMANDS)
  get_property(installed_commands GLOBAL PROPERTY ${target}_INSTALLED_COMMANDS)
  get_property(list_files GLOBAL PROPERTY ${target}_LIST_FILES)
  list(REMOVE_DUPLICATES list_files)
  string(JOIN "|" grade ${commands})
  string(JOIN "|" installed_grade ${installed_commands})
  set(source ${PROJECT_SOURCE_DIR}/kernels/${kernel})
  set(skeleton ${LAB_EXERCISE_DIR}/${kernel})
  # The installed copy (LAB_INSTALL_EXERCISE_DIR, see Install.cmake) names the installed commands.
  set(installed ${LAB_INSTALL_STAGE_DIR}/exercises/${kernel})
  set(cut ${LAB_INSTALL_STAGE_DIR}/solutions/${kernel})  # what the skeleton leaves out
  add_custom_command(OUTPUT ${skeleton} ${installed} ${cut}
    COMMAND ${CMAKE_COMMAND} -DINPUT=${source} -DOUTPUT=${skeleton} -DSOURCE_NAME=kernels/${kernel}
            "-DGRADE=${grade}" -DSOLUTIONS=${cut} -P ${LAB_EXERCISE_SCRIPT}
    COMMAND ${CMAKE_COMMAND} -DINPUT=${source} -DOUTPUT=${installed} -DINSTALLED=ON
            -DSOURCE_NAME=${LAB_INSTALL_KERNEL_NAME}/${kernel} "-DGRADE=${installed_grade}"
            -P ${LAB_EXERCISE_SCRIPT}
    # The lab's CMakeLists.txt too: its ARGS are in the header.
    DEPENDS ${source} ${LAB_EXERCISE_SCRIPT} ${list_files}
    COMMENT "Generating exercise skeleton bin/exercises/${kernel}"
    VERBATIM)
  add_custom_target(${target} DEPENDS ${skeleton} ${installed} ${cut})
endfunction()

# The generator itself: a sample's skeleton is the expected file byte for byte, twice over
# (deterministic), and each malformed input stops it with the file, line and fault.
if(BUILD_TESTING AND LAB_BUILD_TESTS)
  set(_samples ${PROJECT_SOURCE_DIR}/tests/exercises)
  add_test(NAME exercise.generator.sample
    COMMAND ${CMAKE_COMMAND} -DSELF_TEST=ON -DINPUT=${_samples}/sample.cl
            -DSOURCE_NAME=tests/exercises/sample.cl -DEXPECTED=${_samples}/sample_skeleton.cl
            "-DGRADE=build/bin/sample --kernel-file my_sample.cl|build/bin/sample -n 7 --kernel-file my_sample.cl"
            -DOUTPUT=${CMAKE_BINARY_DIR}/tests/exercises/sample_skeleton.cl
            -P ${LAB_EXERCISE_SCRIPT})
  lab_set_test_properties(exercise.generator.sample lab)
  # CASE=INPUT=REGEX; the regex stays within the first line CMake prints (it wraps long messages).
  foreach(case
      "unterminated=unterminated.cl=unterminated.cl:4: EXERCISE.never_closed. is never closed"
      "missing_hint=missing_hint.cl=missing_hint.cl:4: EXERCISE.no_hint. has no hint"
      "stray_end=stray_end.cl=stray_end.cl:6: '// END EXERCISE' without an open EXERCISE"
      "nested=nested.cl=nested.cl:4: EXERCISE.inner. opens inside EXERCISE.outer."
      "no_block=sample_skeleton.cl=sample_skeleton.cl: no '// EXERCISE.<id>.: <hint>' block")
    string(REPLACE "=" ";" case "${case}")
    list(GET case 0 name)
    list(GET case 1 input)
    list(GET case 2 regex)
    add_test(NAME exercise.generator.${name}
      COMMAND ${CMAKE_COMMAND} -DEXPECT_CODE=1 "-DEXPECT_REGEX=${regex}" -P ${LAB_EXPECT_SCRIPT}
              -- ${CMAKE_COMMAND} -DINPUT=${_samples}/${input}
                 -DSOURCE_NAME=tests/exercises/${input}
                 -DOUTPUT=${CMAKE_BINARY_DIR}/tests/exercises/${name}.cl -P ${LAB_EXERCISE_SCRIPT})
    lab_set_test_properties(exercise.generator.${name} lab)
  endforeach()
endif()
