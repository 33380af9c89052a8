# package.cmake: the Debian packages as a department would ship them. Runs cpack (DEB) on the
# build into WORK, then for each .deb: its file list holds only /usr paths and nothing of the
# build or source tree, and its control fields depend on the OpenCL ICD loader and recommend PoCL
# (lintian.sh checks the same .deb files, as test install.debian_package_lintian). The labs
# package is unpacked with dpkg -x into a folder of its own; it must be the full edition
# (full_edition.cmake) and the tour (opencl-labs, no arguments) must pass from there. The student
# package must conflict with the labs package, and unpacked hold no instructor key and no
# exercise's solution (find_solutions.py, as for install.student_edition). The .tar.gz (cpack
# TGZ) must be the full edition too and run vector_add from where it is unpacked.
#   cmake -DBUILD=DIR -DSOURCE=DIR -DWORK=DIR -DPYTHON=python3 -P package.cmake
include(${CMAKE_CURRENT_LIST_DIR}/full_edition.cmake)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND cpack -G DEB -B ${WORK} --config ${BUILD}/CPackConfig.cmake
                WORKING_DIRECTORY ${BUILD} RESULT_VARIABLE code OUTPUT_VARIABLE log
                ERROR_VARIABLE log)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "cpack -G DEB failed (${code}):\n${log}")
endif()
file(GLOB debs ${WORK}/*.deb)
list(LENGTH debs count)
if(count EQUAL 0)
  message(FATAL_ERROR "cpack made no .deb:\n${log}")
endif()

set(labs_deb "")
set(student_deb "")
foreach(deb IN LISTS debs)
  get_filename_component(name ${deb} NAME)
  execute_process(COMMAND dpkg-deb --contents ${deb} OUTPUT_VARIABLE listing RESULT_VARIABLE code)
  if(NOT code EQUAL 0 OR listing STREQUAL "")
    message(FATAL_ERROR "dpkg-deb --contents ${name} failed (${code})")
  endif()
  string(REGEX MATCHALL "\\./[^\n]*" paths "${listing}")
  foreach(path IN LISTS paths)
    if(NOT path MATCHES "^\\./(usr/.*)?$" OR path MATCHES "${SOURCE}|${BUILD}|_CPack_Packages")
      message(FATAL_ERROR "${name} holds ${path}, outside /usr or naming the build")
    endif()
  endforeach()
  execute_process(COMMAND dpkg-deb --field ${deb} Package Depends Recommends Conflicts
                  OUTPUT_VARIABLE fields RESULT_VARIABLE code)
  if(fields MATCHES "Package: opencl-labs(-student)?\n")
    if(CMAKE_MATCH_1)
      set(student_deb ${deb})
      set(other opencl-labs)
    else()
      set(labs_deb ${deb})
      set(other opencl-labs-student)
    endif()
    if(NOT fields MATCHES "Depends:[^\n]*(ocl-icd-libopencl1|libopencl1)"
       OR NOT fields MATCHES "Recommends:[^\n]*pocl-opencl-icd"
       OR NOT fields MATCHES "Conflicts: ${other}\n")
      message(FATAL_ERROR "${name}: Depends must name the ICD loader, Recommends PoCL, and "
                          "Conflicts ${other}:\n${fields}")
    endif()
  endif()
endforeach()
if(NOT labs_deb OR NOT student_deb)
  message(FATAL_ERROR "no opencl-labs or no opencl-labs-student package among ${debs}")
endif()

# The student package: no key, no solution in any file.
execute_process(COMMAND dpkg -x ${student_deb} ${WORK}/student RESULT_VARIABLE code)
file(GLOB_RECURSE key ${WORK}/student/*instructor* ${WORK}/student/*solutions*)
if(NOT code EQUAL 0 OR key)
  message(FATAL_ERROR "dpkg -x ${student_deb} exited ${code}, or it holds the key: ${key}")
endif()
# The kernels' blocks and the host programs' (lab_host_exercise).
file(GLOB cut ${BUILD}/install-stage/solutions/*.cl ${BUILD}/install-stage/solutions/*.cpp)
execute_process(COMMAND ${PYTHON} ${CMAKE_CURRENT_LIST_DIR}/find_solutions.py --blocks ${cut}
                        --in ${WORK}/student
                RESULT_VARIABLE code OUTPUT_VARIABLE found ERROR_VARIABLE found)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "${student_deb} holds exercise solutions (exit ${code}):\n${found}")
endif()
message(STATUS "${student_deb}: ${found}")

# The tour from the unpacked package.
execute_process(COMMAND dpkg -x ${labs_deb} ${WORK}/root RESULT_VARIABLE code)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "dpkg -x ${labs_deb} failed (${code})")
endif()
expect_full_edition(${WORK}/root/usr "the opencl-labs package")
execute_process(COMMAND ${WORK}/root/usr/bin/opencl-labs RESULT_VARIABLE code
                OUTPUT_VARIABLE tour ERROR_VARIABLE errors)
if(NOT code EQUAL 0 OR NOT tour MATCHES "labs: [1-9][0-9]* passed, 0 failed")
  message(FATAL_ERROR "the tour from the unpacked package exited ${code}:\n${tour}\n${errors}")
endif()
string(REGEX MATCH "labs: [0-9]+ passed, 0 failed" summary "${tour}")
message(STATUS "${count} packages; the tour from the unpacked ${labs_deb}: ${summary}")

# The .tar.gz is the full edition too (the build's kernels, not the student skeletons, and the
# instructor key), and runs from wherever it is unpacked.
execute_process(COMMAND cpack -G TGZ -B ${WORK}/tgz --config ${BUILD}/CPackConfig.cmake
                WORKING_DIRECTORY ${BUILD} RESULT_VARIABLE code OUTPUT_VARIABLE log
                ERROR_VARIABLE log)
file(GLOB tarballs ${WORK}/tgz/*.tar.gz)
if(NOT code EQUAL 0 OR NOT tarballs)
  message(FATAL_ERROR "cpack -G TGZ failed (${code}):\n${log}")
endif()
file(MAKE_DIRECTORY ${WORK}/tgz/root)
execute_process(COMMAND ${CMAKE_COMMAND} -E tar xzf ${tarballs}
                WORKING_DIRECTORY ${WORK}/tgz/root RESULT_VARIABLE code)
file(GLOB unpacked ${WORK}/tgz/root/*)
expect_full_edition(${unpacked} ${tarballs})
execute_process(COMMAND ${unpacked}/bin/opencl-labs vector_add -n 1009 RESULT_VARIABLE code
                OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "vector_add from the unpacked ${tarballs} exited ${code}:\n${out}")
endif()
message(STATUS "${tarballs}: the build's kernels; vector_add passes from the unpacked tree")
