# report_page.cmake: the course report at tiny sizes on the test device, then its page checked.
#   cmake -DPYTHON=/usr/bin/python3 -DSOURCE=<repo> -DBIN=<build>/bin -DOUT=<dir>
#         -P report_page.cmake
# scripts/report.py collects every lab with --quick into OUT/runs/test and renders OUT/index.html;
# tests/check_report.py then fails on a missing lab, a missing table, a broken image or an empty
# plot (and proves it would). OUT is left for the browser's check (report.chromium).
cmake_policy(VERSION 3.20)
foreach(var PYTHON SOURCE BIN OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "-D${var}=... is required")
  endif()
endforeach()
file(REMOVE_RECURSE "${OUT}")

foreach(step
    "collect;--bin;${BIN};--out;${OUT}/runs/test;--quick"
    "render;--out;${OUT};${OUT}/runs/test")
  execute_process(COMMAND ${PYTHON} ${SOURCE}/scripts/report.py ${step}
                  OUTPUT_VARIABLE out ERROR_VARIABLE errors RESULT_VARIABLE code)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "report.py ${step}: exit code ${code}\n${out}\n${errors}")
  endif()
endforeach()
execute_process(COMMAND ${PYTHON} ${SOURCE}/tests/check_report.py ${OUT}
                OUTPUT_VARIABLE out ERROR_VARIABLE errors RESULT_VARIABLE code)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "the page fails its checks:\n${out}\n${errors}")
endif()
message(STATUS "${out}")
