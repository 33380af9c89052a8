# grade_class.cmake: grades the sample class (tests/CMakeLists.txt) with scripts/grade.py and
# checks the gradebook, row by row: the verdict and the sentence each student's file deserves;
# then grades it again with -j 1 and the CSV must be the same (grading side by side changes
# nothing).
#   cmake -DPYTHON=... -DGRADER=grade.py -DBIN=build/bin -DCLASS=dir -DOUT=dir -P grade_class.cmake
file(REMOVE_RECURSE ${OUT} ${OUT}-serial)
execute_process(COMMAND ${PYTHON} ${GRADER} ${CLASS} ${OUT} --bin ${BIN} --only vector_add.add
                        --time-limit 20 --seed 11 -j 3
                RESULT_VARIABLE code OUTPUT_VARIABLE log ERROR_VARIABLE log)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "grade.py exited with ${code}:\n${log}")
endif()
file(READ ${OUT}/gradebook.json book)
string(JSON count LENGTH "${book}" rows)
if(NOT count EQUAL 9)
  message(FATAL_ERROR "expected 9 rows, one per student, got ${count}:\n${log}")
endif()
# student -> passed;regex of the sentence
set(expect_1_right "on;^PASSED$")
set(expect_2_wrong_element "off;mismatch c\\[7\\]: got")
set(expect_3_out_of_bounds "off;invalid (read|write) .*at vector_add.cl:[0-9]+ .*an index outside the buffer")
set(expect_4_build_error "off;^vector_add.cl failed to build: vector_add.cl:[0-9]+:[0-9]+: error: ")
set(expect_5_endless_loop "off;did not finish within 20 s")
set(expect_6_wrong_name "off;no kernel named vector_add")
set(expect_7_missing_file "off;^no file my_vector_add.cl in the submission")
set(expect_8_crash "off;was killed by signal 11")
set(expect_9_wrong_argument "off;argument 3 of kernel vector_add in .* is \"__global int\\* c\"")
math(EXPR last "${count} - 1")
foreach(i RANGE 0 ${last})
  string(JSON student GET "${book}" rows ${i} student)
  string(JSON passed GET "${book}" rows ${i} passed)
  string(JSON sentence GET "${book}" rows ${i} sentence)
  list(GET expect_${student} 0 want_passed)
  list(GET expect_${student} 1 want_sentence)
  string(TOLOWER "${passed}" passed)
  if(NOT passed STREQUAL want_passed OR NOT sentence MATCHES "${want_sentence}")
    message(FATAL_ERROR "${student}: passed=${passed}, sentence '${sentence}'; expected "
                        "passed=${want_passed} and a sentence matching '${want_sentence}'\n${log}")
  endif()
  message(STATUS "${student}: ${sentence}")
endforeach()
file(STRINGS ${OUT}/gradebook.csv csv)
list(LENGTH csv lines)
if(NOT lines EQUAL 10)
  message(FATAL_ERROR "gradebook.csv has ${lines} lines, not a header and 9 rows")
endif()

execute_process(COMMAND ${PYTHON} ${GRADER} ${CLASS} ${OUT}-serial --bin ${BIN}
                        --only vector_add.add --time-limit 20 --seed 11 -j 1
                RESULT_VARIABLE code OUTPUT_VARIABLE serial_log ERROR_VARIABLE serial_log)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "grade.py -j 1 exited with ${code}:\n${serial_log}")
endif()
file(READ ${OUT}/gradebook.csv side_by_side)
file(READ ${OUT}-serial/gradebook.csv serial)
string(REPLACE "${OUT}-serial" "${OUT}" serial "${serial}")
if(NOT side_by_side STREQUAL serial)
  message(FATAL_ERROR "the gradebook of -j 3 differs from -j 1's:\n${side_by_side}\n---\n${serial}")
endif()
