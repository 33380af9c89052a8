# AddLab.cmake: add_lab() registers one lab: its executable, the kernels it loads and its CTest cases.
#
#   add_lab(vector_add
#     KERNELS vector_add.cl vector_copy.cl      # files in kernels/, copied beside the binary
#     TESTS   "n1: -n 1"  "prime: -n 1009"       # CTest vector_add.n1, vector_add.prime (label lab)
#   )
#
# Every lab binary lands in ${CMAKE_BINARY_DIR}/bin with the kernels in bin/kernels/, and its name is
# appended to ${CMAKE_BINARY_DIR}/labs.txt, which scripts/labs.sh reads to find the tour.

set(LAB_TEST_PLATFORM "pocl" CACHE STRING
    "Platform name substring the CTest suite pins through LAB_PLATFORM (PoCL by default)")
set(LAB_BIN_DIR ${CMAKE_BINARY_DIR}/bin)
set(LAB_POCL_CACHE_DIR ${CMAKE_BINARY_DIR}/pocl-cache)

# The environment every test runs under: PoCL pinned, nothing inherited from the user's shell
# (a LAB_DEVICE set by an instructor must not move the suite onto a GPU).
set(LAB_TEST_ENVIRONMENT
    "LAB_PLATFORM=set:${LAB_TEST_PLATFORM}"
    "LAB_DEVICE=unset:"
    "LAB_DEVICE_TYPE=unset:"
    "LAB_KERNEL_DIR=unset:"
    "POCL_CACHE_DIR=set:${LAB_POCL_CACHE_DIR}")

# lab_set_test_properties(TEST LABEL): the properties every lab-running test shares.
function(lab_set_test_properties test label)
  set_tests_properties(${test} PROPERTIES
    LABELS ${label}
    SKIP_RETURN_CODE 77
    TIMEOUT 300
    ENVIRONMENT_MODIFICATION "${LAB_TEST_ENVIRONMENT}")
endfunction()

function(add_lab name)
  cmake_parse_arguments(PARSE_ARGV 1 LAB "" "" "SOURCES;KERNELS;TESTS")
  if(NOT LAB_SOURCES)
    set(LAB_SOURCES main.cpp)
  endif()

  add_executable(${name} ${LAB_SOURCES})
  target_link_libraries(${name} PRIVATE lab::common)
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${LAB_BIN_DIR})

  foreach(kernel IN LISTS LAB_KERNELS)
    if(NOT EXISTS ${PROJECT_SOURCE_DIR}/kernels/${kernel})
      message(FATAL_ERROR "add_lab(${name}): kernels/${kernel} does not exist")
    endif()
  endforeach()
  add_dependencies(${name} lab_kernels)

  file(APPEND ${CMAKE_BINARY_DIR}/labs.txt "${name}\n")

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
      add_test(NAME ${name}.${test_name} COMMAND ${name} ${test_args})
      lab_set_test_properties(${name}.${test_name} lab)
    endforeach()
  endif()
endfunction()
