# package.cmake: the Debian packages as a department would ship them. Runs cpack (DEB) on the
# build into WORK, then for each .deb: its file list holds only /usr paths and nothing of the
# build or source tree, its control fields depend on the OpenCL ICD loader and recommend PoCL, and
# lintian (when installed) reports no error. The labs package is unpacked with dpkg -x into a
# folder of its own; it must be the full edition (full_edition.cmake) and the tour (opencl-labs, no
# arguments) must pass from there. The .tar.gz (cpack TGZ) must be the full edition too and run
# vector_add from where it is unpacked.
#   cmake -DBUILD=DIR -DSOURCE=DIR -DWORK=DIR -P package.cmake
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

find_program(LINTIAN lintian)
set(labs_deb "")
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
  execute_process(COMMAND dpkg-deb --field ${deb} Package Depends Recommends
                  OUTPUT_VARIABLE fields RESULT_VARIABLE code)
  if(fields MATCHES "Package: opencl-labs\n")
    set(labs_deb ${deb})
    if(NOT fields MATCHES "Depends:[^\n]*(ocl-icd-libopencl1|libopencl1)"
       OR NOT fields MATCHES "Recommends:[^\n]*pocl-opencl-icd")
      message(FATAL_ERROR "${name}: Depends must name the ICD loader, Recommends PoCL:\n${fields}")
    endif()
  endif()
  if(LINTIAN)
    execute_process(COMMAND ${LINTIAN} --fail-on error ${deb} RESULT_VARIABLE code
                    OUTPUT_VARIABLE report ERROR_VARIABLE report)
    if(NOT code EQUAL 0)
      message(FATAL_ERROR "lintian reports errors in ${name}:\n${report}")
    endif()
    message(STATUS "lintian ${name}: no errors\n${report}")
  else()
    message(STATUS "lintian is not installed: ${name} not checked by it")
  endif()
endforeach()
if(NOT labs_deb)
  message(FATAL_ERROR "no opencl-labs package among ${debs}")
endif()

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
