# HostExercises.cmake: lab_host_exercise() turns one of the instructor's host programs
# (docs/instructor/host/*.cpp, with EXERCISE blocks as a kernel has them) into a student's skeleton
# at build time, and registers the tests that show the exercise is fair both ways:
#
#   lab_host_exercise(vector_add host SOURCE vector_add_host.cpp SIZE 1009)
#
#   bin/exercises/vector_add_host.cpp          the program with its EXERCISE blocks cut out by
#                                              scripts/exercise_skeleton.cmake; its header prints
#                                              the g++ line that builds a copy and the command
#                                              that runs it on the suite's kernel
#   install-stage/exercises/vector_add_host.cpp  the same, worded for an installed edition (both
#                                              editions install it into SHARE/exercises)
#   install-stage/solutions/vector_add_host.cpp  the blocks cut out, which the student edition's
#                                              test searches every installed file for
#   exercise.vector_add.host.skeleton_fails    [lab] the skeleton, built with the project's
#                                              warnings as errors, runs and exits 1 with
#                                              "mismatch c[0]: got 0"
#   exercise.vector_add.host.solution_passes   [lab] the instructor's program exits 0, PASSED
#
# The programs are C++17 with the Khronos bindings, their CL_HPP_* settings in the file itself: they
# link OpenCL alone, not lab::common, so a student's one g++ line builds them as the suite does.
# scripts/grade_host.py grades a student's copy (grade.py --host); the instructor's programs are
# installed with the full edition only (SHARE/instructor/host, where the grader finds them).

# lab_host_exercise(LAB NAME SOURCE file SIZE n)
function(lab_host_exercise lab name)
  cmake_parse_arguments(PARSE_ARGV 2 X "" "SOURCE;SIZE" "")
  set(source ${PROJECT_SOURCE_DIR}/docs/instructor/host/${X_SOURCE})
  if(NOT EXISTS ${source} OR NOT X_SIZE)
    message(FATAL_ERROR "lab_host_exercise(${lab} ${name}): needs SIZE and a SOURCE in "
                        "docs/instructor/host/")
  endif()
  get_filename_component(stem ${X_SOURCE} NAME_WE)
  set(skeleton ${LAB_EXERCISE_DIR}/${X_SOURCE})
  set(installed ${LAB_INSTALL_STAGE_DIR}/exercises/${X_SOURCE})
  set(cut ${LAB_INSTALL_STAGE_DIR}/solutions/${X_SOURCE})
  file(RELATIVE_PATH kernels ${PROJECT_SOURCE_DIR} ${LAB_BIN_DIR}/kernels)
  if(kernels MATCHES "^\\.\\./")
    set(kernels ${LAB_BIN_DIR}/kernels)  # a build folder outside the source tree
  endif()
  set(build_line "g++ -std=c++17 -Wall -Wextra my_${X_SOURCE} -o my_${stem} -lOpenCL")
  set(grade "${build_line}|./my_${stem} ${X_SIZE} ${kernels}/vector_add.cl")
  set(installed_grade
      "${build_line}|./my_${stem} ${X_SIZE} my_vector_add.cl  (your kernel)")
  add_custom_command(OUTPUT ${skeleton}
    COMMAND ${CMAKE_COMMAND} -DINPUT=${source} -DOUTPUT=${skeleton} -DSOURCE_NAME=${X_SOURCE}
            "-DGRADE=${grade}" -P ${LAB_EXERCISE_SCRIPT}
    DEPENDS ${source} ${LAB_EXERCISE_SCRIPT} ${CMAKE_CURRENT_LIST_FILE}
    COMMENT "Generating the host exercise bin/exercises/${X_SOURCE}"
    VERBATIM)
  add_custom_command(OUTPUT ${installed} ${cut}
    COMMAND ${CMAKE_COMMAND} -DINPUT=${source} -DOUTPUT=${installed} -DINSTALLED=ON
            -DSOURCE_NAME=${X_SOURCE} "-DGRADE=${installed_grade}" -DSOLUTIONS=${cut}
            -P ${LAB_EXERCISE_SCRIPT}
    DEPENDS ${source} ${LAB_EXERCISE_SCRIPT} ${CMAKE_CURRENT_LIST_FILE}
    COMMENT "Generating the installed host exercise ${X_SOURCE}"
    VERBATIM)
  add_custom_target(lab_host_exercise_${stem} ALL DEPENDS ${skeleton} ${installed} ${cut})
  foreach(component labs student)
    lab_edition(edition ${component})
    install(CODE "set(FILES \"${installed}\")
set(DESTINATION \"${LAB_INSTALL_SHARE_DIR}/exercises\")
include(\"${PROJECT_SOURCE_DIR}/cmake/install_with_prefix.cmake\")" ${edition})
  endforeach()
  install(FILES ${source} DESTINATION ${LAB_INSTALL_SHARE_DIR}/instructor/host COMPONENT labs)

  if(NOT (BUILD_TESTING AND LAB_BUILD_TESTS))
    return()
  endif()
  # The instructor's program and the skeleton, built as a student builds them (OpenCL alone).
  foreach(kind solution skeleton)
    set(target host_${kind}_${stem})
    if(kind STREQUAL solution)
      add_executable(${target} ${source})
    else()
      add_executable(${target} ${skeleton})
    endif()
    target_link_libraries(${target} PRIVATE OpenCL::HeadersCpp OpenCL::Headers OpenCL::OpenCL)
    set_target_properties(${target} PROPERTIES
      RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests/host OUTPUT_NAME ${kind}_${stem})
  endforeach()
  set(kernel ${LAB_BIN_DIR}/kernels/vector_add.cl)
  set(test exercise.${lab}.${name})
  add_test(NAME ${test}.skeleton_fails
    COMMAND ${CMAKE_COMMAND} -DEXPECT_CODE=1 "-DEXPECT_REGEX=mismatch c\\[0\\]: got 0"
            -P ${LAB_EXPECT_SCRIPT} -- $<TARGET_FILE:host_skeleton_${stem}> ${X_SIZE} ${kernel})
  add_test(NAME ${test}.solution_passes
    COMMAND ${CMAKE_COMMAND} -DEXPECT_CODE=0 "-DEXPECT_REGEX=PASSED: c = a \\+ b at all ${X_SIZE}"
            -P ${LAB_EXPECT_SCRIPT} -- $<TARGET_FILE:host_solution_${stem}> ${X_SIZE} ${kernel})
  lab_set_test_properties(${test}.skeleton_fails lab)
  lab_set_test_properties(${test}.solution_passes lab)
endfunction()

# The host exercises' grader beside grade.py, which imports it, and the shim it preloads: the
# full edition only, as grade.py.
install(FILES ${PROJECT_SOURCE_DIR}/scripts/grade_host.py
              ${PROJECT_SOURCE_DIR}/scripts/grade_host_shim.c
        DESTINATION ${LAB_INSTALL_SHARE_DIR} COMPONENT labs)
