# new_lab.cmake: scripts/new_lab.sh makes a lab that builds, passes its own tests and joins the
# tour. In a copy of the source tree under WORK it makes lab NAME, configures and builds it, and
# runs the tests the template gives it (each lab, errors and oclgrind case, and the handout's
# options against --help).
#   cmake -DSOURCE=dir -DWORK=dir -DNAME=demo [-DPOCL_CACHE=dir] -P new_lab.cmake
cmake_policy(VERSION 3.20)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/src)
foreach(entry CMakeLists.txt CMakePresets.json LICENSE README.md cmake common docs kernels labs
              scripts tests)
  file(COPY ${SOURCE}/${entry} DESTINATION ${WORK}/src)
endforeach()

# run(WHAT command...): runs the command in the copy and fails with its output if it fails.
function(run what)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY ${WORK}/src
                  RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "${what} failed (exit ${code}):\n${out}\n${err}")
  endif()
  set(run_output "${out}${err}" PARENT_SCOPE)
endfunction()

run("new_lab.sh ${NAME}" bash scripts/new_lab.sh ${NAME})
message(STATUS "${run_output}")
execute_process(COMMAND bash scripts/new_lab.sh ${NAME} WORKING_DIRECTORY ${WORK}/src
                RESULT_VARIABLE again OUTPUT_QUIET ERROR_VARIABLE again_err)
if(NOT again EQUAL 2)
  message(FATAL_ERROR "making ${NAME} twice gave exit ${again}, expected 2: ${again_err}")
endif()

set(cache "")
if(POCL_CACHE)
  set(cache -DLAB_POCL_CACHE_DIR=${POCL_CACHE})
endif()
# Unoptimised and without debug information: the copy only has to build and pass, and -O0 halves
# the time it takes to compile lab::common again.
run("configure" ${CMAKE_COMMAND} -S ${WORK}/src -B ${WORK}/build -DCMAKE_BUILD_TYPE=Debug
    "-DCMAKE_CXX_FLAGS_DEBUG=-O0" -DCMAKE_UNITY_BUILD=ON ${cache})
run("build" ${CMAKE_COMMAND} --build ${WORK}/build --target ${NAME} -j 2)
file(STRINGS ${WORK}/build/labs.txt tour)
if(NOT NAME IN_LIST tour)
  message(FATAL_ERROR "${NAME} is not in the tour's build/labs.txt: ${tour}")
endif()
run("the new lab's tests" ${CMAKE_COMMAND} -E env --unset=LAB_DEVICE
    ctest --test-dir ${WORK}/build -R "^(${NAME}\\.|errors\\.${NAME}\\.|oclgrind\\.${NAME}\\.)"
    --output-on-failure -j 2)
string(REGEX MATCH "([0-9]+) tests failed out of ([0-9]+)" counts "${run_output}")
if(NOT CMAKE_MATCH_1 EQUAL 0 OR CMAKE_MATCH_2 LESS 8)
  message(FATAL_ERROR "expected at least 8 passing tests of ${NAME}:\n${run_output}")
endif()
message(STATUS "${NAME}: ${CMAKE_MATCH_2} tests passed in the copy")
file(REMOVE_RECURSE ${WORK})
