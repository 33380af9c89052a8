# install.cmake: the suite as an installed user has it. Checks that a plain install is the full
# edition (the build's kernels, the instructor key). Installs the labs component into a
# temporary prefix, moves the prefix, then runs every lab once through the installed launcher
# (each lab's short run from labs-quick.txt, with --json) and checks that it passed, that every
# kernel it built came from the moved prefix's share folder, that `--help` and errors name the
# command as typed (opencl-labs LAB), that the tests component stayed out, that the launcher names
# every place it looked when it finds no labs or no unit tests, that the installed
# handouts name the installed command, and that no installed file names the source or build tree.
#   cmake -DBUILD=DIR -DSOURCE=DIR -DWORK=DIR -P install.cmake
include(${CMAKE_CURRENT_LIST_DIR}/full_edition.cmake)
file(REMOVE_RECURSE ${WORK})

# A plain install, as the README gives it, is the full edition: every kernel as the build made
# it (the student edition's skeletons come only with --component student) and the instructor key.
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/plain
                RESULT_VARIABLE code OUTPUT_VARIABLE log ERROR_VARIABLE log)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "cmake --install (every component but student) failed (${code}):\n${log}")
endif()
expect_full_edition(${WORK}/plain "a plain install")
file(REMOVE_RECURSE ${WORK}/plain)

execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/first
                        --component labs
                RESULT_VARIABLE code OUTPUT_VARIABLE log ERROR_VARIABLE log)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${code}):\n${log}")
endif()
file(RENAME ${WORK}/first ${WORK}/moved)
set(prefix ${WORK}/moved)
set(launcher ${prefix}/bin/opencl-labs)
file(REAL_PATH ${prefix}/share/opencl-labs/kernels kernels)

if(EXISTS ${prefix}/libexec/opencl-labs/tests)
  message(FATAL_ERROR "--component labs installed the unit tests too")
endif()

# Every lab once, from the moved prefix.
file(STRINGS ${BUILD}/labs.txt labs)
file(STRINGS ${BUILD}/labs-quick.txt quick_lines)
set(ran 0)
foreach(lab IN LISTS labs)
  set(args "")
  foreach(line IN LISTS quick_lines)
    if(line MATCHES "^${lab} (.*)$")
      separate_arguments(args UNIX_COMMAND "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  if(args)  # the lab's short run, every kernel from the installed share folder
    execute_process(COMMAND ${CMAKE_COMMAND} -DFOLDER=${kernels}
                            -P ${CMAKE_CURRENT_LIST_DIR}/kernels_loaded.cmake --
                            ${launcher} ${lab} ${args} --json
                    RESULT_VARIABLE code OUTPUT_VARIABLE log ERROR_VARIABLE log)
  else()  # a lab without kernels (device_info)
    execute_process(COMMAND ${launcher} ${lab} --json
                    RESULT_VARIABLE code OUTPUT_VARIABLE log ERROR_VARIABLE log)
  endif()
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "opencl-labs ${lab} ${args} failed:\n${log}")
  endif()
  math(EXPR ran "${ran} + 1")
endforeach()
if(ran EQUAL 0)
  message(FATAL_ERROR "no lab ran: ${BUILD}/labs.txt is empty")
endif()

# The command as typed, in --help and in an error; an unknown lab is a usage error.
list(GET labs 1 lab)
execute_process(COMMAND ${launcher} ${lab} --help OUTPUT_VARIABLE help RESULT_VARIABLE code)
if(NOT code EQUAL 0 OR NOT help MATCHES "opencl-labs ${lab}")
  message(FATAL_ERROR "opencl-labs ${lab} --help does not name 'opencl-labs ${lab}':\n${help}")
endif()
execute_process(COMMAND ${launcher} ${lab} --no-such-option ERROR_VARIABLE error
                RESULT_VARIABLE code)
if(NOT code EQUAL 2 OR NOT error MATCHES "^opencl-labs ${lab}: error: ")
  message(FATAL_ERROR "an unknown option gave exit ${code} and: ${error}")
endif()
execute_process(COMMAND ${launcher} no_such_lab ERROR_VARIABLE error RESULT_VARIABLE code)
if(NOT code EQUAL 2 OR NOT error MATCHES "no lab named 'no_such_lab'")
  message(FATAL_ERROR "an unknown lab gave exit ${code} and: ${error}")
endif()

# Where the launcher looked, when it finds nothing: every place it tried, in the sentence.
execute_process(COMMAND ${launcher} --self-test ERROR_VARIABLE error RESULT_VARIABLE code)
if(NOT code EQUAL 3 OR NOT error MATCHES "the unit tests are not installed \\(not in [^ ]+ or [^ ]+\\)")
  message(FATAL_ERROR "--self-test without the tests component gave exit ${code} and: ${error}")
endif()
file(COPY ${launcher} DESTINATION ${WORK}/alone)
execute_process(COMMAND ${WORK}/alone/opencl-labs ERROR_VARIABLE error RESULT_VARIABLE code)
if(NOT code EQUAL 3 OR NOT error MATCHES "the labs are not in ${WORK}/alone or [^ ]+: ")
  message(FATAL_ERROR "a launcher without labs gave exit ${code} and: ${error}")
endif()

# The installed handouts and skeletons name the installed command (the README and docs/ describe
# the source tree, and say so in their first paragraph).
file(GLOB handouts ${prefix}/share/doc/opencl-labs/labs/*/README.md)
list(LENGTH handouts handout_count)
list(LENGTH labs lab_count)
if(NOT handout_count EQUAL lab_count)
  message(FATAL_ERROR "${handout_count} handouts installed for ${lab_count} labs")
endif()
string(JOIN "|" lab_names ${labs})
file(GLOB texts ${prefix}/share/opencl-labs/exercises/*)
foreach(text IN LISTS handouts texts)
  file(STRINGS ${text} stale
       REGEX "scripts/labs\\.sh|build/bin/(${lab_names}|exercises)|`(${lab_names}) -")
  if(stale)
    message(FATAL_ERROR "${text} still names the build tree's commands:\n${stale}")
  endif()
endforeach()

# The installed grader, from the moved prefix with no build tree: a class of two, the suite's
# vector_add (passes) and its skeleton (fails), graded by `opencl-labs grade`.
set(class ${WORK}/class)
file(MAKE_DIRECTORY ${class}/right ${class}/unfinished)
configure_file(${prefix}/share/opencl-labs/kernels/vector_add.cl ${class}/right/my_vector_add.cl
               COPYONLY)
configure_file(${prefix}/share/opencl-labs/exercises/vector_add.cl
               ${class}/unfinished/my_vector_add.cl COPYONLY)
find_program(OCLGRIND oclgrind)
set(grade_options --only vector_add.add --seed 5 -j 2)
if(NOT OCLGRIND)
  list(APPEND grade_options --no-oclgrind)
endif()
execute_process(COMMAND ${launcher} grade ${class} ${WORK}/gradebook ${grade_options}
                RESULT_VARIABLE code OUTPUT_VARIABLE log ERROR_VARIABLE log)
if(NOT code EQUAL 0 OR NOT log MATCHES "opencl-labs grade: 2 students, 1 exercises, seed 5: 1 of 2 passed")
  message(FATAL_ERROR "opencl-labs grade from the moved prefix exited ${code}:\n${log}")
endif()
file(STRINGS ${WORK}/gradebook/gradebook.csv rows REGEX "^(right|unfinished),")
if(NOT rows MATCHES "^right,vector_add.add,my_vector_add.cl,[0-9a-f]+,True,PASSED"
   OR NOT rows MATCHES "unfinished,vector_add.add,my_vector_add.cl,[0-9a-f]+,False,")
  message(FATAL_ERROR "opencl-labs grade: unexpected gradebook rows:\n${rows}\n${log}")
endif()
file(REMOVE_RECURSE ${class})

# Nothing installed names the source or build tree (the labs never read either). The installed
# texts name their own prefix, which this test keeps inside the build tree: that is not counted.
file(GLOB_RECURSE installed ${prefix}/*)
foreach(file IN LISTS installed)
  file(STRINGS ${file} found REGEX "${SOURCE}")
  foreach(line IN LISTS found)
    string(REPLACE "${WORK}/first" "" line "${line}")
    if(line MATCHES "${SOURCE}")
      message(FATAL_ERROR "${file} names the source or build tree: ${line}")
    endif()
  endforeach()
endforeach()
list(LENGTH installed installed_count)
message(STATUS "${ran} labs ran from the moved prefix ${prefix}; ${installed_count} files "
               "installed, none naming ${SOURCE} or ${BUILD}")
