# AddLab.cmake: add_lab() registers one lab (its executable and the kernels it loads), and the
# lab_* helpers register its tests, all from the lab's own CMakeLists.txt:
#
#   add_lab(vector_add KERNELS vector_add.cl vector_copy.cl)   # kernels copied beside the binary
#   lab_test(vector_add n1 -n 1 --reps 2)                        # [lab]      vector_add.n1
#   lab_planted_kernel(vector_add_off_by_one FROM vector_add.cl WHY "the bound is one short"
#                      REPLACE "if (i < n) {" "if (i < n - 1) {")  # build/tests/planted/*.cl
#   lab_broken_kernel(vector_add off_by_one ${LAB_PLANTED_FILE}
#                     MATCH "mismatch c\\[1008\\]" ARGS -n 1009)  # [lab]      vector_add.broken.*
#   lab_error(vector_add size_zero EXIT 2 MATCH "0 is too small" ARGS -n 0)
#                                                                # [errors]   errors.vector_add.*
#   lab_oclgrind(vector_add prime ARGS -n 37 --local 8)          # [oclgrind] oclgrind.vector_add.*
#   lab_kernels_beside_binary(vector_add -n 100)                 # [lab] KERNELS lists every file
#   lab_output_test(vector_add json VARIANTS ... EACH size.n=100 ARGS -n 100 --json)
#                                                                # [lab] what --json/--csv print
#
# Every lab binary lands in ${CMAKE_BINARY_DIR}/bin with its kernels in bin/kernels/, and its name
# is appended to ${CMAKE_BINARY_DIR}/labs.txt, from which the launcher (bin/opencl-labs, run by
# scripts/labs.sh) learns the tour. `cmake --install` puts each lab in PREFIX/libexec/opencl-labs
# (cmake/Install.cmake). A
# lab's README.md handout gets a test that every option it lists exists in the lab's --help.

set(LAB_TEST_PLATFORM "pocl" CACHE STRING
    "Platform name substring the CTest suite pins through LAB_PLATFORM (PoCL by default)")
set(LAB_BIN_DIR ${CMAKE_BINARY_DIR}/bin)
set(LAB_EXPECT_SCRIPT ${PROJECT_SOURCE_DIR}/tests/expect.cmake)
# PoCL's kernel cache for the tests. The presets share build/pocl-cache: compiled kernels do not
# depend on how the host code was built, so the sanitizer pass finds what the default pass built.
set(LAB_POCL_CACHE_DIR ${CMAKE_BINARY_DIR}/pocl-cache CACHE PATH
    "PoCL kernel cache (POCL_CACHE_DIR) the test suite uses")

# The environment every test runs under: PoCL pinned, nothing inherited from the user's shell
# (a LAB_DEVICE set by an instructor must not move the suite onto a GPU).
set(LAB_TEST_ENVIRONMENT
    "LAB_PLATFORM=set:${LAB_TEST_PLATFORM}"
    "LAB_DEVICE=unset:"
    "LAB_DEVICE_TYPE=unset:"
    "LAB_KERNEL_DIR=unset:"
    "LAB_TIME_LIMIT=unset:"
    # A student's kernel is checked under Oclgrind before it runs (kernel_check.hpp); the tests
    # that prove that check turn it on (LAB_OCLGRIND_CHECK=set:on), the others test the run itself.
    "LAB_OCLGRIND_CHECK=set:off"
    "LAB_REPORT_FILE=unset:"
    "OPENCL_LABS_COMMAND=unset:"
    # Tests never read or write the user's tuning cache: this file is never written (the tuning
    # tests give their own).
    "LAB_TUNING_CACHE=set:${CMAKE_BINARY_DIR}/tests/no-tuning-cache/tuning.json"
    # nor the user's peak cache: the suite measures the FP32 peak once into its own (the peak
    # tests give theirs), and LAB_PEAK_REMEASURE from the shell does not slow every test down.
    "LAB_PEAK_CACHE=set:${CMAKE_BINARY_DIR}/tests/peak-cache/peak.json"
    "LAB_PEAK_REMEASURE=unset:"
    # Progress lines (stderr, off unless a terminal) and the host-time limit as the suite sets them.
    "LAB_PROGRESS=unset:"
    "LAB_HOST_TIME_LIMIT=unset:"
    "POCL_CACHE_DIR=set:${LAB_POCL_CACHE_DIR}")

# The second device of the [errors] cases: Oclgrind's simulator, whose local memory and
# work-group limits are far below PoCL's, registered through its ICD next to the machine's own
# platforms, so the lab also sees more than one platform (ocl-icd's order decides which comes first; here it is
# Oclgrind).
# Without Oclgrind (or with -DOCLGRIND naming no file) its cases are still registered, and each
# exits 77 (skipped) with LAB_NO_OCLGRIND, the reason; LAB_NO_OCLGRIND_ICD likewise for the cases
# that need its ICD. Tests that need OpenBLAS or Python do the same (_lab_skipped_test).
find_program(OCLGRIND oclgrind)
set(LAB_OCLGRIND_ICD "")
set(LAB_NO_OCLGRIND "")
set(LAB_NO_OCLGRIND_ICD "")
if(NOT OCLGRIND OR NOT EXISTS "${OCLGRIND}")
  set(OCLGRIND "")
  set(LAB_NO_OCLGRIND "oclgrind not found (install it: scripts/setup.sh)")
  set(LAB_NO_OCLGRIND_ICD "${LAB_NO_OCLGRIND}")
  message(STATUS "oclgrind not found: the Oclgrind cases will report skipped")
else()
  get_filename_component(_oclgrind_prefix ${OCLGRIND} DIRECTORY)
  get_filename_component(_oclgrind_prefix ${_oclgrind_prefix} DIRECTORY)
  find_file(LAB_OCLGRIND_ICD_LIBRARY liboclgrind-rt-icd.so
            PATHS ${_oclgrind_prefix}/lib/oclgrind ${_oclgrind_prefix}/lib NO_DEFAULT_PATH)
  if(LAB_OCLGRIND_ICD_LIBRARY)
    set(LAB_OCLGRIND_VENDORS ${CMAKE_BINARY_DIR}/tests/vendors-with-oclgrind)
    file(MAKE_DIRECTORY ${LAB_OCLGRIND_VENDORS})
    file(GLOB _system_icds /etc/OpenCL/vendors/*.icd)
    foreach(icd IN LISTS _system_icds)
      file(COPY ${icd} DESTINATION ${LAB_OCLGRIND_VENDORS})
    endforeach()
    file(WRITE ${LAB_OCLGRIND_VENDORS}/0-oclgrind.icd "${LAB_OCLGRIND_ICD_LIBRARY}\n")
    # With Oclgrind's runtime (and the LLVM inside it) loaded, LeakSanitizer's exit-time tracer
    # segfaults on some machines, every time, before it has checked anything. The same lab code is
    # leak-checked on PoCL (every [errors] case here has a PoCL twin), so leak checking is off on
    # this platform (a no-op outside the sanitize preset).
    set(LAB_OCLGRIND_ICD
        "OCL_ICD_VENDORS=set:${LAB_OCLGRIND_VENDORS}" "LAB_PLATFORM=set:oclgrind"
        "ASAN_OPTIONS=string_append::detect_leaks=0")
  else()
    message(WARNING "liboclgrind-rt-icd.so not found next to ${OCLGRIND}: the [errors] cases' "
                    "Oclgrind twins will report skipped")
    set(LAB_NO_OCLGRIND_ICD "liboclgrind-rt-icd.so not found next to ${OCLGRIND}")
  endif()
endif()

# The Python that tests/check_output.py runs under (the output checks of lab_test).
find_package(Python3 COMPONENTS Interpreter QUIET)

# _lab_skipped_test(TEST LABEL REASON): TEST, which needs something this machine lacks, is still
# registered: it prints "skipped: REASON" and exits 77, so ctest lists it as skipped.
function(_lab_skipped_test test label reason)
  add_test(NAME ${test} COMMAND ${PROJECT_SOURCE_DIR}/tests/skipped.sh "${reason}")
  set_tests_properties(${test} PROPERTIES LABELS "${label}" SKIP_RETURN_CODE 77)
endfunction()

# lab_set_test_properties(TEST LABEL): the properties every lab-running test shares.
function(lab_set_test_properties test label)
  set_tests_properties(${test} PROPERTIES
    LABELS ${label}
    SKIP_RETURN_CODE 77
    TIMEOUT 300
    ENVIRONMENT_MODIFICATION "${LAB_TEST_ENVIRONMENT}")
endfunction()

# _lab_copy_kernel(FILE): one rule that copies kernels/FILE to bin/kernels/, made once however
# many labs load the file; returns the target that runs it in LAB_KERNEL_TARGET.
function(_lab_copy_kernel file)
  string(MAKE_C_IDENTIFIER "lab_kernel_${file}" target)
  if(NOT TARGET ${target})
    set(source ${PROJECT_SOURCE_DIR}/kernels/${file})
    set(copy ${LAB_BIN_DIR}/kernels/${file})
    add_custom_command(OUTPUT ${copy}
      COMMAND ${CMAKE_COMMAND} -E copy_if_different ${source} ${copy}
      DEPENDS ${source}
      COMMENT "Copying kernels/${file}")
    add_custom_target(${target} DEPENDS ${copy})
  endif()
  set(LAB_KERNEL_TARGET ${target} PARENT_SCOPE)
endfunction()

# add_lab_family(NAME SOURCES files...): a lab's variant table and the code that goes with it,
# as the library NAME_family. The lab links it, and so do another lab that runs its kernels and
# the unit tests that check its table; its folder is on their include path. No target compiles
# another folder's sources.
function(add_lab_family name)
  cmake_parse_arguments(PARSE_ARGV 1 FAMILY "" "" "SOURCES")
  add_library(${name}_family STATIC ${FAMILY_SOURCES})
  target_include_directories(${name}_family PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(${name}_family PUBLIC lab::common)
  target_precompile_headers(${name}_family REUSE_FROM lab_common)
endfunction()

# add_lab(NAME [SOURCES files...] [LINKS families...] [KERNELS files...]
#         [TESTS "name: arguments"...])
function(add_lab name)
  cmake_parse_arguments(PARSE_ARGV 1 LAB "" "" "SOURCES;LINKS;KERNELS;TESTS")
  if(NOT LAB_SOURCES)
    set(LAB_SOURCES main.cpp)
  endif()

  add_executable(${name} ${LAB_SOURCES})
  target_link_libraries(${name} PRIVATE lab::common ${LAB_LINKS})
  target_precompile_headers(${name} REUSE_FROM lab_common)
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${LAB_BIN_DIR})

  # What lab_kernels_beside_binary puts beside the binary in a folder of its own.
  set_target_properties(${name} PROPERTIES LAB_KERNELS "${LAB_KERNELS}")
  foreach(kernel IN LISTS LAB_KERNELS)
    if(NOT EXISTS ${PROJECT_SOURCE_DIR}/kernels/${kernel})
      message(FATAL_ERROR "add_lab(${name}): kernels/${kernel} does not exist")
    endif()
    _lab_copy_kernel(${kernel})
    add_dependencies(${name} ${LAB_KERNEL_TARGET})
  endforeach()

  file(APPEND ${CMAKE_BINARY_DIR}/labs.txt "${name}\n")
  foreach(component labs student)  # the full edition and the student edition
    lab_edition(edition ${component})
    install(TARGETS ${name} RUNTIME DESTINATION ${LAB_INSTALL_LAB_DIR} ${edition})
  endforeach()

  if(BUILD_TESTING AND LAB_BUILD_TESTS)
    foreach(spec IN LISTS LAB_TESTS)
      string(FIND "${spec}" ":" colon)
      if(colon LESS 1)
        message(FATAL_ERROR "add_lab(${name}): test '${spec}' must read 'name: arguments'")
      endif()
      string(SUBSTRING "${spec}" 0 ${colon} test_name)
      math(EXPR args_begin "${colon} + 1")
      string(SUBSTRING "${spec}" ${args_begin} -1 test_args)
      separate_arguments(test_args UNIX_COMMAND "${test_args}")
      lab_test(${name} ${test_name} ${test_args})
    endforeach()
    if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/README.md)
      add_test(NAME ${name}.readme_options
        COMMAND ${CMAKE_COMMAND} -DLAB=$<TARGET_FILE:${name}>
                -DREADME=${CMAKE_CURRENT_SOURCE_DIR}/README.md
                -P ${PROJECT_SOURCE_DIR}/tests/readme_options.cmake)
      lab_set_test_properties(${name}.readme_options lab)
    endif()
  endif()
endfunction()

# lab_kernels_beside_binary(LAB args...): [lab] LAB.kernels_beside_binary copies the lab's binary
# and only the files of its add_lab KERNELS (and what they #include) into a fresh folder of their
# own, runs the copy there with the arguments and --json, and fails unless it ran and
# grading.kernel_files, the files the lab reports it built, is not empty and names only files of
# that folder (tests/kernels_loaded.cmake). Every lab's kernels share bin/kernels/, where a file
# missing from one lab's KERNELS would still be found as another lab's copy: in its own folder the
# lab fails, and the test names the file to add to KERNELS (the arguments should make it load all
# of its kernels). It reads what the lab loaded, not the wording of a log line.
function(lab_kernels_beside_binary lab)
  # The same short run is each lab's check once installed (tests/install.cmake).
  string(JOIN " " quick ${ARGN})
  file(APPEND ${CMAKE_BINARY_DIR}/labs-quick.txt "${lab} ${quick}\n")
  if(NOT (BUILD_TESTING AND LAB_BUILD_TESTS))
    return()
  endif()
  get_target_property(kernels ${lab} LAB_KERNELS)
  if(NOT kernels)
    message(FATAL_ERROR "lab_kernels_beside_binary(${lab}): add_lab(${lab}) lists no KERNELS")
  endif()
  string(JOIN "|" kernels ${kernels})  # a ';' would split the argument
  add_test(NAME ${lab}.kernels_beside_binary
    COMMAND ${CMAKE_COMMAND} "-DKERNELS=${kernels}" -DSOURCE=${PROJECT_SOURCE_DIR}/kernels
            -DWORK=${CMAKE_BINARY_DIR}/tests/kernels-alone/${lab}
            -P ${PROJECT_SOURCE_DIR}/tests/kernels_loaded.cmake --
            $<TARGET_FILE:${lab}> ${ARGN} --json)
  lab_set_test_properties(${lab}.kernels_beside_binary lab)
endfunction()

# lab_test(LAB NAME args...): [lab] LAB.NAME runs the lab with the arguments; exit 0 passes.
# With --json or --csv among them, the output is checked too (lab_output_test, no value checks).
function(lab_test lab name)
  if(NOT (BUILD_TESTING AND LAB_BUILD_TESTS))
    return()
  endif()
  if("--json" IN_LIST ARGN OR "--csv" IN_LIST ARGN)
    lab_output_test(${lab} ${name} ARGS ${ARGN})
    return()
  endif()
  add_test(NAME ${lab}.${name} COMMAND ${lab} ${ARGN})
  lab_set_test_properties(${lab}.${name} lab)
endfunction()

# lab_output_test(LAB NAME [VARIANTS a|b|c] [EACH path=value...] [TOP path=value...]
#                 ARGS args...): [lab] LAB.NAME runs the lab with the arguments (--json or --csv
# among them) through tests/check_output.py: the output must parse, say passed, and hold rows
# with the fields every row has, each PASSED (a CSV: one row per result of the same command's
# --json); VARIANTS, the results in order; EACH, a value every result has at a dotted path
# (size.m=20); TOP, a value of the JSON document (details.dtype=int). Check what the options
# change. Skipped (77) without Python.
function(lab_output_test lab name)
  if(NOT (BUILD_TESTING AND LAB_BUILD_TESTS))
    return()
  endif()
  cmake_parse_arguments(PARSE_ARGV 2 X "" "VARIANTS" "EACH;TOP;ARGS")
  if(NOT Python3_Interpreter_FOUND)
    _lab_skipped_test(${lab}.${name} lab "python3 not found: the output of ${lab} is not checked")
    return()
  endif()
  set(checks --lab ${lab})
  if(DEFINED X_VARIANTS)
    list(APPEND checks "--variants=${X_VARIANTS}")
  endif()
  foreach(check IN LISTS X_EACH)
    list(APPEND checks "--each=${check}")
  endforeach()
  foreach(check IN LISTS X_TOP)
    list(APPEND checks "--top=${check}")
  endforeach()
  add_test(NAME ${lab}.${name}
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/check_output.py ${checks}
            -- $<TARGET_FILE:${lab}> ${X_ARGS})
  lab_set_test_properties(${lab}.${name} lab)
endfunction()

# lab_tune_test(LAB VARIANT ARGS args...): [lab] LAB.tune.VARIANT runs --tune with a small budget
# into a cache of its own, then checks that the next run reports "(tuned)", --no-tuned
# "(default)", and that a corrupt cache is a warning (tests/tune.cmake).
function(lab_tune_test lab variant)
  if(NOT (BUILD_TESTING AND LAB_BUILD_TESTS))
    return()
  endif()
  cmake_parse_arguments(PARSE_ARGV 2 X "" "" "ARGS")
  string(JOIN "|" args ${X_ARGS})  # a ';' would split the argument; tune.cmake splits at '|'
  add_test(NAME ${lab}.tune.${variant}
    COMMAND ${CMAKE_COMMAND} -DLAB=$<TARGET_FILE:${lab}> "-DARGS=${args}" -DVARIANT=${variant}
            -DFOLDER=${CMAKE_BINARY_DIR}/tests/tuning/${lab}.${variant}
            -P ${PROJECT_SOURCE_DIR}/tests/tune.cmake)
  lab_set_test_properties(${lab}.tune.${variant} lab)
endfunction()

# lab_student_kernel_dir(OUT NAME FILE): a --kernel-dir as a student keeps one: a folder under the
# build tree holding only FILE, the suite's kernel under its own name with a comment added (a
# byte-for-byte copy counts as the suite's own and would not be graded as the student's).
function(lab_student_kernel_dir out name file)
  set(dir ${CMAKE_BINARY_DIR}/tests/kernel-dirs/${name})
  set(suite ${PROJECT_SOURCE_DIR}/kernels/${file})
  file(READ ${suite} source)
  file(WRITE ${dir}/${file} "// ${file}, a student's copy in a folder of their own\n${source}")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${suite})
  set(${out} ${dir} PARENT_SCOPE)
endfunction()

# _lab_expect(TEST LABEL CODE REGEXES ENV command...): runs the command through expect.cmake,
# which asserts its exit code and that its output matches each of the one or two REGEXES (CMake
# lists: a regex cannot hold a ';', so match the message's semicolons with '.'). A regex
# may name facts of the device the test runs on (@LOCAL_MEM@, ...: expect.cmake lists them), so no
# expectation carries a number from the machine it was written on.
function(_lab_expect test label code regexes env)
  list(LENGTH regexes count)
  if(count GREATER 2)
    message(FATAL_ERROR "${test}: at most two MATCH expressions")
  endif()
  set(regex2 "")
  if(count EQUAL 2)
    list(GET regexes 1 regex2)
  endif()
  list(GET regexes 0 regex)
  add_test(NAME ${test}
    COMMAND ${CMAKE_COMMAND} -DEXPECT_CODE=${code} "-DEXPECT_REGEX=${regex}"
            "-DEXPECT_REGEX2=${regex2}" -DDEVICE_INFO=$<TARGET_FILE:device_info>
            -P ${LAB_EXPECT_SCRIPT} -- ${ARGN})
  lab_set_test_properties(${test} ${label})
  if(env)
    set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT_MODIFICATION ${env})
  endif()
endfunction()

# lab_expect(LAB NAME MATCH regex [MATCH regex] [EXIT code] [POCL_ONLY] [ENV VAR=set:VALUE...]
#            ARGS args...): [lab] LAB.NAME runs the lab with the arguments; it must exit with EXIT
# (default 1) and print what MATCH says. POCL_ONLY leaves it out when -DLAB_TEST_PLATFORM pins
# the suite elsewhere (say why next to the call).
function(lab_expect lab name)
  if(NOT (BUILD_TESTING AND LAB_BUILD_TESTS))
    return()
  endif()
  cmake_parse_arguments(PARSE_ARGV 2 X "POCL_ONLY" "EXIT" "MATCH;ENV;ARGS")
  string(TOLOWER "${LAB_TEST_PLATFORM}" platform)
  if(X_POCL_ONLY AND NOT platform MATCHES "pocl")
    return()
  endif()
  if(NOT DEFINED X_EXIT)
    set(X_EXIT 1)
  endif()
  _lab_expect(${lab}.${name} lab ${X_EXIT} "${X_MATCH}" "${X_ENV}" $<TARGET_FILE:${lab}>
              ${X_ARGS})
endfunction()

# lab_grading(LAB NAME KERNEL_FILE PASSED bool WRONG n OUT_OF_BOUNDS n ARGS args...): [lab]
# LAB.grading.NAME runs the lab with --json on KERNEL_FILE (a path: a lab_planted_kernel file)
# and checks the grading section an autograder reads (tests/grading.cmake): passed, the counts,
# and the kernel file's SHA-256 against CMake's own.
function(lab_grading lab name kernel_file)
  if(NOT (BUILD_TESTING AND LAB_BUILD_TESTS))
    return()
  endif()
  cmake_parse_arguments(PARSE_ARGV 3 X "" "PASSED;WRONG;OUT_OF_BOUNDS" "ARGS")
  add_test(NAME ${lab}.grading.${name}
    COMMAND ${CMAKE_COMMAND} -DPASSED=${X_PASSED} -DWRONG=${X_WRONG}
            -DOUT_OF_BOUNDS=${X_OUT_OF_BOUNDS} -DKERNEL_FILE=${kernel_file}
            -P ${PROJECT_SOURCE_DIR}/tests/grading.cmake --
            $<TARGET_FILE:${lab}> ${X_ARGS} --json --kernel-file ${kernel_file})
  lab_set_test_properties(${lab}.grading.${name} lab)
endfunction()

# lab_broken_kernel(LAB NAME KERNEL_FILE MATCH regex [MATCH regex...] [EXIT code] [POCL_ONLY]
#                   ARGS args...):
# [lab] LAB.broken.NAME runs the lab on KERNEL_FILE (a path: a lab_planted_kernel file, one of its
# kernels with one planted mistake); the lab must exit with EXIT (default 1) and print what MATCH
# says. POCL_ONLY leaves it out when -DLAB_TEST_PLATFORM pins the suite elsewhere.
function(lab_broken_kernel lab name kernel_file)
  cmake_parse_arguments(PARSE_ARGV 3 X "POCL_ONLY" "EXIT" "MATCH;ARGS")
  string(TOLOWER "${LAB_TEST_PLATFORM}" platform)
  if(X_POCL_ONLY AND NOT platform MATCHES "pocl")
    return()  # a mistake only PoCL's guard zones show (say why next to the call)
  endif()
  set(exit_code 1)
  if(DEFINED X_EXIT)
    set(exit_code ${X_EXIT})
  endif()
  lab_expect(${lab} broken.${name} EXIT ${exit_code} MATCH ${X_MATCH}
             ARGS ${X_ARGS} --kernel-file ${kernel_file})
endfunction()

# lab_planted_kernel(NAME FROM kernels/FILE WHY "sentence" REPLACE old new [REPLACE old new...]):
# writes build/tests/planted/NAME.cl, the suite's kernel FILE with each `old` text replaced by
# `new` and a first line saying what was planted, so a planted mistake cannot drift from the
# kernel it breaks. Every planted kernel the tests use is made this way (keep each `old` text as
# small as the mistake allows, so the planted copy follows the suite's kernel when it changes).
# A text may hold ';' but no '[' without its ']' (CMake would join it with the next argument).
# Configuring fails when an `old` text is not in the kernel. Sets LAB_PLANTED_FILE to the path
# and LAB_PLANTED_LINE to the line of the first replacement in it (the added first line counted).
function(lab_planted_kernel name)
  cmake_parse_arguments(PARSE_ARGV 1 X "" "FROM;WHY" "REPLACE")
  set(source ${PROJECT_SOURCE_DIR}/kernels/${X_FROM})
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${source})
  file(READ ${source} text)
  set(text "// ${name}.cl: planted mistake: ${X_WHY}\n${text}")
  list(LENGTH X_REPLACE count)
  math(EXPR pairs "${count} % 2")
  if(count EQUAL 0 OR NOT pairs EQUAL 0)
    message(FATAL_ERROR "lab_planted_kernel(${name}): REPLACE takes pairs: old new")
  endif()
  set(line 0)
  # By index: list(GET) keeps a ';' inside an old or new text (list(POP_FRONT) would split the
  # pairs after the first at it).
  math(EXPR last "${count} - 2")
  foreach(k RANGE 0 ${last} 2)
    math(EXPR k_new "${k} + 1")
    list(GET X_REPLACE ${k} old)
    list(GET X_REPLACE ${k_new} new)
    string(FIND "${text}" "${old}" at)
    if(at LESS 0)
      message(FATAL_ERROR "lab_planted_kernel(${name}): kernels/${X_FROM} no longer contains "
                          "'${old}': update the planted mistake")
    endif()
    if(line EQUAL 0)
      string(SUBSTRING "${text}" 0 ${at} before)
      string(REGEX MATCHALL "\n" newlines "${before}")
      list(LENGTH newlines line)
      math(EXPR line "${line} + 1")
    endif()
    string(REPLACE "${old}" "${new}" text "${text}")
  endforeach()
  set(path ${CMAKE_BINARY_DIR}/tests/planted/${name}.cl)
  file(WRITE ${path} "${text}")
  set(LAB_PLANTED_FILE ${path} PARENT_SCOPE)
  set(LAB_PLANTED_LINE ${line} PARENT_SCOPE)
endfunction()

# lab_error(LAB NAME EXIT code MATCH regex [MATCH regex...] [POCL_ONLY] [ENV VAR=set:VALUE...]
#           ARGS args...): [errors] errors.LAB.NAME runs the lab with bad input on PoCL and asserts
# the exit code and the message; errors.LAB.NAME.oclgrind does the same on Oclgrind's simulated
# device, whose limits differ (skipped without Oclgrind), unless POCL_ONLY (say why next to the call; such a case is left
# out when -DLAB_TEST_PLATFORM pins the suite to another platform).
function(lab_error lab name)
  if(NOT (BUILD_TESTING AND LAB_BUILD_TESTS))
    return()
  endif()
  cmake_parse_arguments(PARSE_ARGV 2 X "POCL_ONLY" "EXIT" "MATCH;ENV;ARGS")
  string(TOLOWER "${LAB_TEST_PLATFORM}" platform)
  if(X_POCL_ONLY AND NOT platform MATCHES "pocl")
    return()  # the suite is pinned to another platform (-DLAB_TEST_PLATFORM)
  endif()
  _lab_expect(errors.${lab}.${name} errors ${X_EXIT} "${X_MATCH}" "${X_ENV}"
              $<TARGET_FILE:${lab}> ${X_ARGS})
  if(X_POCL_ONLY)
    return()
  elseif(LAB_OCLGRIND_ICD)
    _lab_expect(errors.${lab}.${name}.oclgrind errors ${X_EXIT} "${X_MATCH}"
                "${LAB_OCLGRIND_ICD};${X_ENV}"
                $<TARGET_FILE:${lab}> ${X_ARGS})
  else()
    _lab_skipped_test(errors.${lab}.${name}.oclgrind errors "${LAB_NO_OCLGRIND_ICD}")
  endif()
endfunction()

# lab_oclgrind(LAB NAME [NO_UNINITIALIZED] [KERNEL_FILE file EXPECT_REPORT regex EXIT code]
#              ARGS args...): [oclgrind] oclgrind.LAB.NAME runs the lab at a tiny size under
# Oclgrind with --data-races --uninitialized --check-api; any report fails it. NO_UNINITIALIZED
# leaves that check out (say why next to the call). With EXPECT_REPORT the run uses KERNEL_FILE
# (a path: a lab_planted_kernel file) and must print a report matching the regex and exit with
# EXIT (Oclgrind never changes the exit code): proof that the checks catch what they claim to.
# Without Oclgrind the test reports skipped.
set(LAB_OCLGRIND_REPORTS
    "Invalid read;Invalid write;data race;Data race;divergence;Uninitialized value;Uninitialised value;runtime error detected")
function(lab_oclgrind lab name)
  if(NOT (BUILD_TESTING AND LAB_BUILD_TESTS))
    return()
  endif()
  if(NOT OCLGRIND)
    _lab_skipped_test(oclgrind.${lab}.${name} oclgrind "${LAB_NO_OCLGRIND}")
    return()
  endif()
  cmake_parse_arguments(PARSE_ARGV 2 X "NO_UNINITIALIZED" "KERNEL_FILE;EXPECT_REPORT;EXIT" "ARGS")
  set(checks --data-races --uninitialized --check-api)
  if(X_NO_UNINITIALIZED)
    list(REMOVE_ITEM checks --uninitialized)
  endif()
  set(args ${X_ARGS} --reps 1 --warmup 0)
  if(X_KERNEL_FILE)
    list(APPEND args --kernel-file ${X_KERNEL_FILE})
  endif()
  set(test oclgrind.${lab}.${name})
  # Under the oclgrind wrapper the only platform is Oclgrind's own.
  if(X_EXPECT_REPORT)
    _lab_expect(${test} oclgrind ${X_EXIT} "${X_EXPECT_REPORT}" "LAB_PLATFORM=set:oclgrind"
                ${OCLGRIND} ${checks} $<TARGET_FILE:${lab}> ${args})
  else()
    add_test(NAME ${test} COMMAND ${OCLGRIND} ${checks} $<TARGET_FILE:${lab}> ${args})
    lab_set_test_properties(${test} oclgrind)
    set_tests_properties(${test} PROPERTIES FAIL_REGULAR_EXPRESSION "${LAB_OCLGRIND_REPORTS}")
    set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT_MODIFICATION "LAB_PLATFORM=set:oclgrind")
  endif()
endfunction()

# lab_trace_test(LAB NAME [MIN_TRACKS n] [NAMES a|b] ARGS args...): [lab] LAB.trace.NAME runs the
# lab with --trace into the build folder and parses the timeline back (tests/trace.cmake).
function(lab_trace_test lab name)
  if(NOT (BUILD_TESTING AND LAB_BUILD_TESTS))
    return()
  endif()
  cmake_parse_arguments(PARSE_ARGV 2 X "" "MIN_TRACKS;NAMES" "ARGS")
  set(defs -DTRACE=${CMAKE_BINARY_DIR}/tests/traces/${lab}.${name}.json)
  if(DEFINED X_MIN_TRACKS)
    list(APPEND defs -DMIN_TRACKS=${X_MIN_TRACKS})
  endif()
  if(DEFINED X_NAMES)
    list(APPEND defs "-DNAMES=${X_NAMES}")
  endif()
  file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/tests/traces)
  add_test(NAME ${lab}.trace.${name}
    COMMAND ${CMAKE_COMMAND} ${defs} -P ${PROJECT_SOURCE_DIR}/tests/trace.cmake --
            $<TARGET_FILE:${lab}> ${X_ARGS})
  lab_set_test_properties(${lab}.trace.${name} lab)
  set_tests_properties(${lab}.trace.${name} PROPERTIES SKIP_REGULAR_EXPRESSION "skipped: ")
endfunction()
