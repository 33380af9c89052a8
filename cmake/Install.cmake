# Install.cmake: where an installed suite lives (the GNU layout), and the installed copies of the
# texts that name commands. Included before the labs, which add their own install rules.
#
#   bin/opencl-labs                         the one command (labs/launcher): the tour, or one lab
#   libexec/opencl-labs/LAB                 the labs, off the PATH: their short names (events,
#                                           profiling, transpose) would collide in /usr/bin
#   share/opencl-labs/kernels/*.cl          the kernels, found from a lab's own place, so a
#                                           moved prefix still works
#   share/opencl-labs/exercises/*.cl        the exercise skeletons, grading through opencl-labs
#   share/opencl-labs/grade.py, hand_in.py, exercises.tsv  the grader and the exercise list it grades
#                                           (`opencl-labs grade`; the full edition only)
#   share/doc/opencl-labs/                  README, docs/ and every handout (labs/NN_NAME/), with
#                                           `scripts/labs.sh LAB` and `build/bin/LAB` written as
#                                           `opencl-labs LAB`; the licence as copyright
#   share/doc/opencl-labs/docs/instructor/ the instructor key: docs/instructor/ and every
#                                           exercise's solution (solutions.md)
#   libexec/opencl-labs/tests/unit_tests    the unit tests (component `tests`)
#
# Component `labs` is that full edition. Component `student` is the edition to hand out: the same
# launcher, labs and handouts, without the instructor key, and with each exercised kernel in
# share/opencl-labs/kernels replaced by its skeleton (and each kernel that repeats an exercise's
# lines, lab_exercise_repeat, by its own), so a lab run on an unfinished exercise fails with the
# exercise's sentence instead of running the answer. Only a component install
# (`cmake --install build --component student`) puts the student edition in: a plain install is
# the full edition, and the two never mix in one prefix.
include(GNUInstallDirs)

# lab_edition(OUT COMPONENT): the install() arguments that put a rule in COMPONENT (labs or
# student); the student edition's rules are left out of a plain install.
function(lab_edition out component)
  set(args COMPONENT ${component})
  if(component STREQUAL student)
    list(APPEND args EXCLUDE_FROM_ALL)
  endif()
  set(${out} ${args} PARENT_SCOPE)
endfunction()

# lab_gzip(FILE): writes FILE.gz as Debian wants it, level 9 with no name or time in its header
# (gzip -9n; CMake's own gzip writes the time).
function(lab_gzip file)
  find_program(LAB_GZIP gzip)
  if(LAB_GZIP)
    execute_process(COMMAND ${LAB_GZIP} -9nc ${file} OUTPUT_FILE ${file}.gz RESULT_VARIABLE code)
    if(code EQUAL 0)
      return()
    endif()
  endif()
  file(ARCHIVE_CREATE OUTPUT ${file}.gz PATHS ${file} FORMAT raw COMPRESSION GZip
       COMPRESSION_LEVEL 9 MTIME 0)
endfunction()

set(LAB_LAUNCHER opencl-labs)
set(LAB_INSTALL_LAB_DIR ${CMAKE_INSTALL_LIBEXECDIR}/opencl-labs)
set(LAB_INSTALL_SHARE_DIR ${CMAKE_INSTALL_DATADIR}/opencl-labs)
set(LAB_INSTALL_DOC_DIR ${CMAKE_INSTALL_DATAROOTDIR}/doc/opencl-labs)
# An exercise's header names its kernel at the prefix the suite is installed to.
set(LAB_INSTALL_KERNEL_NAME @LAB_INSTALL_PREFIX@/${LAB_INSTALL_SHARE_DIR}/kernels)
set(LAB_INSTALL_STAGE_DIR ${CMAKE_BINARY_DIR}/install-stage)   # the installed texts, made here

# The places the programs find from their own folder, relative, so that any prefix works.
set(_root /opencl-labs-prefix)  # any absolute root: only the relative paths are kept
file(RELATIVE_PATH LAB_RELATIVE_LABS_TO_KERNELS ${_root}/${LAB_INSTALL_LAB_DIR}
     ${_root}/${LAB_INSTALL_SHARE_DIR}/kernels)
file(RELATIVE_PATH LAB_RELATIVE_BIN_TO_LABS ${_root}/${CMAKE_INSTALL_BINDIR}
     ${_root}/${LAB_INSTALL_LAB_DIR})
file(RELATIVE_PATH LAB_RELATIVE_BIN_TO_DOCS ${_root}/${CMAKE_INSTALL_BINDIR}
     ${_root}/${LAB_INSTALL_DOC_DIR})
file(RELATIVE_PATH LAB_RELATIVE_BIN_TO_SHARE ${_root}/${CMAKE_INSTALL_BINDIR}
     ${_root}/${LAB_INSTALL_SHARE_DIR})

# lab_install_text(SOURCE DESTINATION): installs the source tree's text file SOURCE (relative to
# the top) under DESTINATION, through an installed copy made at build time by
# cmake/text_for_install.cmake.
set(LAB_INSTALLED_TEXTS "")
function(lab_install_text source destination)
  file(STRINGS ${CMAKE_BINARY_DIR}/labs.txt labs)
  # The README and docs/ describe the source tree and stay as they are, with a first paragraph
  # for the reader of an installed copy; a handout names the installed commands.
  set(preamble "> The installed copy of this text: it describes the project's source tree. An \
installed suite runs as `opencl-labs` (the tour) and `opencl-labs LAB`, where this text says \
`scripts/labs.sh`; the other `scripts/` commands need the source tree.")
  set(plain ON)
  if(source MATCHES "^labs/")
    set(plain OFF)
    set(preamble "> The installed copy of this handout: the kernels it names as `kernels/FILE` are in \
`@LAB_INSTALL_PREFIX@/${LAB_INSTALL_SHARE_DIR}/kernels/`, and the lab's C++ sources in the project's \
repository.")
  endif()
  set(copy ${LAB_INSTALL_STAGE_DIR}/text/${source})
  add_custom_command(OUTPUT ${copy}
    COMMAND ${CMAKE_COMMAND} -DINPUT=${PROJECT_SOURCE_DIR}/${source} -DOUTPUT=${copy}
            -DLAUNCHER=${LAB_LAUNCHER} "-DLABS=${labs}" "-DPREAMBLE=${preamble}" -DPLAIN=${plain}
            "-DEXERCISES=@LAB_INSTALL_PREFIX@/${LAB_INSTALL_SHARE_DIR}/exercises"
            -P ${PROJECT_SOURCE_DIR}/cmake/text_for_install.cmake
    DEPENDS ${PROJECT_SOURCE_DIR}/${source} ${PROJECT_SOURCE_DIR}/cmake/text_for_install.cmake
    VERBATIM)
  set_property(GLOBAL APPEND PROPERTY LAB_INSTALLED_TEXTS ${copy})
  set(components labs student)
  if(source MATCHES "^docs/instructor/")
    set(components labs)  # the key stays out of the student edition
  endif()
  _lab_install_staged("${copy}" ${destination} ${components})
endfunction()

# _lab_install_staged(FILES DESTINATION COMPONENT...): installs staged copies through
# install_with_prefix.cmake, which puts the real prefix in them, as part of each COMPONENT.
# FILES may be a glob, expanded when installing.
function(_lab_install_staged files destination)
  foreach(component IN LISTS ARGN)
    lab_edition(edition ${component})
    install(CODE "file(GLOB FILES \"${files}\")
set(DESTINATION \"${destination}\")
include(\"${PROJECT_SOURCE_DIR}/cmake/install_with_prefix.cmake\")" ${edition})
  endforeach()
endfunction()

# The texts, the kernels and the skeletons, once every lab has been added.
function(lab_install_shared)
  lab_install_text(README.md ${LAB_INSTALL_DOC_DIR})
  file(GLOB docs RELATIVE ${PROJECT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/docs/*.md
       ${PROJECT_SOURCE_DIR}/docs/instructor/*.md)
  foreach(doc IN LISTS docs)
    get_filename_component(folder ${doc} DIRECTORY)
    lab_install_text(${doc} ${LAB_INSTALL_DOC_DIR}/${folder})
  endforeach()
  file(GLOB handouts RELATIVE ${PROJECT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/labs/[0-9]*/README.md)
  foreach(handout IN LISTS handouts)
    get_filename_component(folder ${handout} DIRECTORY)
    lab_install_text(${handout} ${LAB_INSTALL_DOC_DIR}/${folder})
  endforeach()
  # The pictures a handout shows (labs/NN_NAME/pictures/), beside it.
  file(GLOB pictures RELATIVE ${PROJECT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/labs/[0-9]*/pictures/*.png)
  foreach(picture IN LISTS pictures)
    get_filename_component(folder ${picture} DIRECTORY)
    install(FILES ${PROJECT_SOURCE_DIR}/${picture} DESTINATION ${LAB_INSTALL_DOC_DIR}/${folder}
            COMPONENT labs)
    install(FILES ${PROJECT_SOURCE_DIR}/${picture} DESTINATION ${LAB_INSTALL_DOC_DIR}/${folder}
            COMPONENT student)
  endforeach()
  get_property(texts GLOBAL PROPERTY LAB_INSTALLED_TEXTS)
  add_custom_target(lab_installed_texts ALL DEPENDS ${texts})

  foreach(component labs student)
    lab_edition(edition ${component})
    install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${LAB_INSTALL_DOC_DIR}
            RENAME copyright ${edition})
  endforeach()
  install(DIRECTORY ${LAB_BIN_DIR}/kernels/ DESTINATION ${LAB_INSTALL_SHARE_DIR}/kernels
          COMPONENT labs FILES_MATCHING PATTERN "*.cl")
  # The grader and the module it reads hand-ins with, the exercise list it reads and the suite's
  # kernels as its reference: the full edition only (the student edition's kernels are
  # skeletons).
  install(PROGRAMS ${PROJECT_SOURCE_DIR}/scripts/grade.py DESTINATION ${LAB_INSTALL_SHARE_DIR}
          COMPONENT labs)
  install(FILES ${PROJECT_SOURCE_DIR}/scripts/hand_in.py DESTINATION ${LAB_INSTALL_SHARE_DIR}
          COMPONENT labs)
  install(FILES ${LAB_EXERCISE_LIST} DESTINATION ${LAB_INSTALL_SHARE_DIR} COMPONENT labs)
  # The skeletons of the exercises build/exercises.tsv lists (a skeleton left in the staging
  # folder by an exercise since removed is not installed), and the student edition's kernels:
  # each exercised one as its skeleton.
  foreach(component labs student)
    lab_edition(edition ${component})
    install(CODE "set(EXERCISES \"${LAB_EXERCISE_LIST}\")
set(KERNELS \"${LAB_BIN_DIR}/kernels\")
set(SKELETONS \"${LAB_INSTALL_STAGE_DIR}/exercises\")
set(REPEATS \"${LAB_EXERCISE_REPEAT_LIST}\")
set(REPEAT_SKELETONS \"${LAB_INSTALL_STAGE_DIR}/repeats\")
set(SHARE \"${LAB_INSTALL_SHARE_DIR}\")
set(COMPONENT ${component})
include(\"${PROJECT_SOURCE_DIR}/cmake/install_skeletons.cmake\")" ${edition})
  endforeach()

  # The instructor key's solutions, cut from the kernels the exercises come from.
  set(solutions ${LAB_INSTALL_STAGE_DIR}/instructor/solutions.md)
  file(GLOB kernels ${PROJECT_SOURCE_DIR}/kernels/*.cl)
  add_custom_command(OUTPUT ${solutions}
    COMMAND ${CMAKE_COMMAND} -DEXERCISES=${LAB_EXERCISE_LIST} -DCUT=${LAB_INSTALL_STAGE_DIR}/solutions
            -DOUTPUT=${solutions} -P ${PROJECT_SOURCE_DIR}/cmake/exercise_solutions.cmake
    DEPENDS ${kernels} ${LAB_EXERCISE_LIST} ${PROJECT_SOURCE_DIR}/cmake/exercise_solutions.cmake
            ${PROJECT_SOURCE_DIR}/cmake/ExerciseList.cmake
    VERBATIM)
  add_custom_target(lab_exercise_solutions ALL DEPENDS ${solutions})
  get_property(skeletons GLOBAL PROPERTY LAB_EXERCISE_TARGETS)  # they write the blocks it reads
  if(skeletons)
    add_dependencies(lab_exercise_solutions ${skeletons})
  endif()
  _lab_install_staged("${solutions}" ${LAB_INSTALL_DOC_DIR}/docs/instructor labs)
endfunction()
