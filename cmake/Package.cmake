# Package.cmake: `cpack` (run in the build folder) makes, from what `cmake --install` installs:
#   opencl-labs_VERSION_ARCH.deb          component labs: the full edition (the launcher, labs,
#                                         kernels, skeletons, handouts, docs, instructor key)
#   opencl-labs-student_VERSION_ARCH.deb  component student: the student edition (exercised
#                                         kernels as skeletons, no key), for students' machines;
#                                         it conflicts with opencl-labs (the same paths)
#   opencl-labs-tests_VERSION_ARCH.deb    component tests: the unit tests (opencl-labs --self-test)
#   opencl-labs-VERSION-Linux.tar.gz      the full edition and the tests, under one prefix to
#                                         unpack anywhere (cmake/cpack_generator.cmake)
# Depends come from dpkg-shlibdeps (the OpenCL ICD loader, libstdc++); PoCL is recommended so a
# machine without a GPU still has a device.
set(CPACK_PACKAGE_NAME opencl-labs)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "OpenCL Labs contributors")
set(CPACK_PACKAGE_CONTACT "OpenCL Labs contributors <opencl-labs@example.org>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "OpenCL lab programs for a GPU programming course")
# Debian shows the first line as the synopsis and wants the rest in lines of at most 80.
set(CPACK_PACKAGE_DESCRIPTION
    "Small OpenCL programs, one per topic of a GPU programming course: device\n"
    "information, vector addition, work-item ids, matrix multiplication from naive\n"
    "to register-tiled, reductions, transposes and coalescing, buffer flags,\n"
    "profiling, events, memory spaces, vector types, scans and histograms. Every lab\n"
    "checks its device result against a CPU reference, times its kernels from\n"
    "OpenCL profiling events and explains the usual student mistakes in a sentence.\n"
    "Run opencl-labs for the tour, or opencl-labs LAB --help.")
string(REPLACE ";" "" CPACK_PACKAGE_DESCRIPTION "${CPACK_PACKAGE_DESCRIPTION}")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_GENERATOR DEB TGZ)
set(CPACK_STRIP_FILES ON)
# The package's prefix, /usr, set per generator (cmake/cpack_generator.cmake) and installed
# through DESTDIR, so the install scripts see it and the installed texts name it.
set(CPACK_PROJECT_CONFIG_FILE ${PROJECT_SOURCE_DIR}/cmake/cpack_generator.cmake)
set(CPACK_PACKAGE_FILE_NAME opencl-labs-${PROJECT_VERSION}-Linux)  # the tarball
set(CPACK_COMPONENTS_ALL labs student)
if(TARGET unit_tests)
  list(APPEND CPACK_COMPONENTS_ALL tests)
endif()
set(CPACK_COMPONENT_LABS_DESCRIPTION "The labs, their kernels, handouts and exercise skeletons")
set(CPACK_COMPONENT_STUDENT_DESCRIPTION "The student edition: exercises as skeletons, no answers")
set(CPACK_COMPONENT_TESTS_DESCRIPTION "The unit tests of the labs' shared library")
set(CPACK_COMPONENT_TESTS_DEPENDS labs)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION education)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS OFF)
set(CPACK_DEBIAN_LABS_PACKAGE_NAME opencl-labs)
set(CPACK_DEBIAN_LABS_PACKAGE_RECOMMENDS "pocl-opencl-icd | opencl-icd, oclgrind")
# `opencl-labs grade` is a Python program; shlibdeps adds the libraries' packages to this.
set(CPACK_DEBIAN_LABS_PACKAGE_DEPENDS "python3")
set(CPACK_DEBIAN_LABS_PACKAGE_CONFLICTS opencl-labs-student)
set(CPACK_DEBIAN_STUDENT_PACKAGE_NAME opencl-labs-student)
set(CPACK_DEBIAN_STUDENT_PACKAGE_RECOMMENDS "pocl-opencl-icd | opencl-icd")
set(CPACK_DEBIAN_STUDENT_PACKAGE_CONFLICTS opencl-labs)
set(CPACK_DEBIAN_STUDENT_PACKAGE_SECTION education)
set(CPACK_DEBIAN_TESTS_PACKAGE_NAME opencl-labs-tests)
set(CPACK_DEBIAN_TESTS_PACKAGE_DEPENDS "opencl-labs (= ${PROJECT_VERSION})")
set(CPACK_DEBIAN_LABS_DESCRIPTION "${CPACK_PACKAGE_DESCRIPTION}")
set(CPACK_DEBIAN_TESTS_DESCRIPTION
    "The unit tests of the library the OpenCL labs share. An instructor runs them\n"
    "with opencl-labs --self-test to check the suite and the machine's OpenCL device\n"
    "together.")
string(REPLACE ";" "" CPACK_DEBIAN_TESTS_DESCRIPTION "${CPACK_DEBIAN_TESTS_DESCRIPTION}")
set(CPACK_DEBIAN_STUDENT_DESCRIPTION
    "OpenCL lab programs for a GPU programming course, student edition\n"
    "The same labs, handouts and commands as opencl-labs, for the machines students\n"
    "use: every kernel an exercise asks for is installed as its skeleton, with the\n"
    "lines the student writes cut out, and the instructor key (the answers to the\n"
    "handouts' questions and the exercises' solutions) is left out. A lab run on an\n"
    "unfinished exercise fails with a sentence; a student's kernel is graded with\n"
    "opencl-labs LAB ... --kernel-file FILE. Run opencl-labs for the tour.")
string(REPLACE ";" "" CPACK_DEBIAN_STUDENT_DESCRIPTION "${CPACK_DEBIAN_STUDENT_DESCRIPTION}")
set(CPACK_DEBIAN_ARCHIVE_TYPE gnutar)
set(CPACK_ARCHIVE_COMPONENT_INSTALL OFF)

# Debian wants each package's copyright and changelog in its own doc folder.
set(_changelog ${LAB_INSTALL_STAGE_DIR}/debian/changelog)
string(TIMESTAMP _date "%a, %d %b %Y %H:%M:%S +0000" UTC)
file(WRITE ${_changelog}
     "opencl-labs (${PROJECT_VERSION}) unstable; urgency=medium\n\n"
     "  * Release ${PROJECT_VERSION}.\n\n"
     " -- ${CPACK_PACKAGE_CONTACT}  ${_date}\n")
lab_gzip(${_changelog})
# The labs' doc folder, share/doc/opencl-labs, already has the copyright (Install.cmake).
foreach(component labs student tests)
  set(package opencl-labs)
  if(NOT component STREQUAL labs)
    set(package opencl-labs-${component})
  endif()
  lab_edition(edition ${component})
  install(FILES ${_changelog}.gz DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${package}
          RENAME changelog.gz ${edition})
  if(NOT component STREQUAL labs)
    install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${package}
            RENAME copyright ${edition})
  endif()
endforeach()

include(CPack)
