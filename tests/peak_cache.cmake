# peak_cache.cmake: a lab measures the FP32 (or FP64) peak once and caches it. The first run (empty cache)
# must report a positive peak measured by peak_fma.cl and write the cache; the second must read
# it (the same value, "cached in"); with LAB_PEAK_REMEASURE=1 the third measures again.
#   cmake -DCACHE=FILE [-DREFERENCE=NAME] -P peak_cache.cmake -- LAB ARGS... --json
# REFERENCE: the name the rows are rated against (default "FP32 peak (measured)").
include(${CMAKE_CURRENT_LIST_DIR}/command_after_separator.cmake)

if(NOT DEFINED REFERENCE)
  set(REFERENCE "FP32 peak (measured)")
endif()
file(REMOVE "${CACHE}")
set(ENV{LAB_PEAK_CACHE} "${CACHE}")
unset(ENV{LAB_PEAK_REMEASURE})

# run(PREFIX): runs the command; sets PREFIX_gflops, PREFIX_how and PREFIX_reference (the first
# rated row's reference name).
function(run prefix)
  execute_process(COMMAND ${command} OUTPUT_VARIABLE json ERROR_VARIABLE errors
                  RESULT_VARIABLE code)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "${command} exited with ${code}\nstdout:\n${json}\nstderr:\n${errors}")
  endif()
  string(JSON gflops GET "${json}" details peak_gflops)
  string(JSON how GET "${json}" details peak_how)
  string(JSON rows LENGTH "${json}" results)
  set(reference "")
  math(EXPR last "${rows} - 1")
  foreach(i RANGE 0 ${last})
    string(JSON name ERROR_VARIABLE none GET "${json}" results ${i} reference name)
    if(NOT none)
      set(reference "${name}")
      break()
    endif()
  endforeach()
  set(${prefix}_gflops "${gflops}" PARENT_SCOPE)
  set(${prefix}_how "${how}" PARENT_SCOPE)
  set(${prefix}_reference "${reference}" PARENT_SCOPE)
endfunction()

run(first)
if(NOT first_gflops GREATER 0)
  message(FATAL_ERROR "first run: the peak is ${first_gflops}, not a positive rate (${first_how})")
endif()
if(NOT first_how MATCHES "^measured by peak_fma.cl" OR first_how MATCHES "cached in")
  message(FATAL_ERROR "first run, empty cache: the peak should be measured, not '${first_how}'")
endif()
if(NOT first_reference STREQUAL REFERENCE)
  message(FATAL_ERROR "first run: rows are rated against '${first_reference}'")
endif()
if(NOT EXISTS "${CACHE}")
  message(FATAL_ERROR "first run: no cache written at ${CACHE}")
endif()

run(second)
if(NOT second_how MATCHES "cached in")
  message(FATAL_ERROR "second run: the peak was not read from the cache: '${second_how}'")
endif()
if(NOT second_gflops EQUAL first_gflops AND NOT second_gflops GREATER first_gflops)
  message(FATAL_ERROR "second run: ${second_gflops} GFLOP/s, the cache held ${first_gflops}")
endif()

set(ENV{LAB_PEAK_REMEASURE} 1)
run(third)
if(third_how MATCHES "cached in" OR NOT third_gflops GREATER 0)
  message(FATAL_ERROR "LAB_PEAK_REMEASURE=1: the peak should be measured again: '${third_how}'")
endif()
message(STATUS "measured ${first_gflops} GFLOP/s, then read from ${CACHE}, then measured again "
               "(${third_gflops})")
