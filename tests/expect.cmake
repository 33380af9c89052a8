# expect.cmake: runs a command and asserts its exit code and a regular expression on its output.
#   cmake -DEXPECT_CODE=2 "-DEXPECT_REGEX=is negative" -P expect.cmake -- PROGRAM ARGS...
# Optional: -DEXPECT_REGEX2=... a second expression that must also match (e.g. the build log).
# An error (exit 2, 3 or 77) must also be a single line on stderr, unless it follows a build log.
#
# An expression may name facts of the device the command runs on, read from device_info --json
# (-DDEVICE_INFO=path) in the same environment, so a test never carries a number that belongs to
# the machine it was written on:
#   @LOCAL_MEM@             CL_DEVICE_LOCAL_MEM_SIZE as the labs print sizes
#   @MAX_WORK_GROUP_SIZE@   CL_DEVICE_MAX_WORK_GROUP_SIZE
#   @MAX_WORK_ITEM_SIZE_0@  CL_DEVICE_MAX_WORK_ITEM_SIZES[0]
#   @PLATFORMS@             platforms that show a device
#   @PLATFORM_DEVICES@      devices on the chosen device's platform
# and a size the lab computes from the test's own arguments is written as the arithmetic that gives
# it, @BYTES:2*256*(4096+4+64)*4@, and printed the way the labs print sizes.
#
# cmake -DSELF_TEST=ON -P expect.cmake checks its byte formatting against lab::format_bytes's table
# (the same table as unit test FormatBytes.WholeUnitsAndTwoDecimals).
include(${CMAKE_CURRENT_LIST_DIR}/command_after_separator.cmake)

# format_bytes(OUT BYTES): the text lab::format_bytes gives (whole units, else two decimals).
function(format_bytes out bytes)
  set(units B KiB MiB GiB TiB)
  set(unit 0)
  set(scale 1)
  while(unit LESS 4)
    math(EXPR next "${scale} * 1024")
    if(bytes LESS next)
      break()
    endif()
    set(scale ${next})
    math(EXPR unit "${unit} + 1")
  endwhile()
  list(GET units ${unit} name)
  math(EXPR remainder "${bytes} % ${scale}")
  if(remainder EQUAL 0)
    math(EXPR whole "${bytes} / ${scale}")
    set(${out} "${whole} ${name}" PARENT_SCOPE)
  else()
    math(EXPR hundredths "(${bytes} * 100 + ${scale} / 2) / ${scale}")
    math(EXPR whole "${hundredths} / 100")
    math(EXPR fraction "${hundredths} % 100")
    if(fraction LESS 10)
      set(fraction "0${fraction}")
    endif()
    set(${out} "${whole}.${fraction} ${name}" PARENT_SCOPE)
  endif()
endfunction()

# device_json(OUT [ALL]): device_info --json for the device the command will use (LAB_PLATFORM
# and friends from the environment), or with ALL for every platform.
function(device_json out)
  set(run ${DEVICE_INFO} --json)
  if(ARGN STREQUAL "ALL")
    set(run ${CMAKE_COMMAND} -E env --unset=LAB_PLATFORM --unset=LAB_DEVICE
            --unset=LAB_DEVICE_TYPE ${run})
  endif()
  execute_process(COMMAND ${run} RESULT_VARIABLE code OUTPUT_VARIABLE json ERROR_VARIABLE err)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "expect.cmake: device_info --json failed (${code}): ${err}")
  endif()
  string(JSON details GET "${json}" details)
  set(${out} "${details}" PARENT_SCOPE)
endfunction()

if(SELF_TEST)
  foreach(case "1023=1023 B" "1536=1.50 KiB" "32768=32 KiB" "49152=48 KiB" "524288=512 KiB"
               "2097152=2 MiB" "4000000=3.81 MiB" "4202496=4.01 MiB" "4398046511104=4 TiB")
    string(REPLACE "=" ";" pair "${case}")
    list(GET pair 0 bytes)
    list(GET pair 1 expected)
    format_bytes(text ${bytes})
    if(NOT text STREQUAL expected)
      message(FATAL_ERROR "format_bytes(${bytes}) = '${text}', expected '${expected}'")
    endif()
  endforeach()
  return()
endif()
if(NOT command)
  message(FATAL_ERROR "expect.cmake: no command after --")
endif()

set(regexes "${EXPECT_REGEX}" "${EXPECT_REGEX2}")
string(REGEX MATCHALL "@BYTES:[^@]+@" byte_sizes "${regexes}")
foreach(placeholder IN LISTS byte_sizes)
  string(REGEX REPLACE "^@BYTES:(.*)@$" "\\1" expression "${placeholder}")
  math(EXPR bytes "${expression}")
  format_bytes(text ${bytes})
  string(REPLACE "${placeholder}" "${text}" regexes "${regexes}")
endforeach()
if("${regexes}" MATCHES "@[A-Z_0-9]+@")
  if(NOT DEVICE_INFO)
    message(FATAL_ERROR "expect.cmake: the expression names device facts but no -DDEVICE_INFO")
  endif()
  device_json(chosen)
  string(JSON platform_index GET "${chosen}" platforms 0 index)
  string(JSON local_mem_bytes GET "${chosen}" platforms 0 devices 0 local_mem_bytes)
  format_bytes(LOCAL_MEM ${local_mem_bytes})
  string(JSON MAX_WORK_GROUP_SIZE GET "${chosen}" platforms 0 devices 0 max_work_group_size)
  string(JSON MAX_WORK_ITEM_SIZE_0 GET "${chosen}" platforms 0 devices 0 max_work_item_sizes 0)

  device_json(everything ALL)
  string(JSON PLATFORMS LENGTH "${everything}" platforms)
  math(EXPR last_platform "${PLATFORMS} - 1")
  foreach(p RANGE ${last_platform})
    string(JSON index GET "${everything}" platforms ${p} index)
    if(index EQUAL platform_index)
      string(JSON PLATFORM_DEVICES LENGTH "${everything}" platforms ${p} devices)
    endif()
  endforeach()

  set(resolved "")
  foreach(regex IN LISTS regexes)
    foreach(fact LOCAL_MEM MAX_WORK_GROUP_SIZE MAX_WORK_ITEM_SIZE_0 PLATFORMS PLATFORM_DEVICES)
      string(REPLACE "@${fact}@" "${${fact}}" regex "${regex}")
    endforeach()
    if(regex MATCHES "@[A-Z_0-9]+@")
      message(FATAL_ERROR "expect.cmake: unknown device fact in '${regex}'")
    endif()
    list(APPEND resolved "${regex}")
  endforeach()
  set(regexes "${resolved}")
endif()

execute_process(COMMAND ${command} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(JOIN " " shown ${command})
message("$ ${shown}\n--- stdout ---\n${out}--- stderr ---\n${err}--- exit code: ${code}")

set(failures "")
if(NOT "${code}" STREQUAL "${EXPECT_CODE}")
  string(APPEND failures "exit code ${code}, expected ${EXPECT_CODE}. ")
endif()
# An error is one sentence: nothing else on stderr before or after it (a compiler's
# "1 error generated.", a note, a trace's "written to") that would bury it. The one documented
# exception: a suite kernel that does not build prints its build log first (exit 3).
if("${EXPECT_CODE}" MATCHES "^(2|3|77)$" AND NOT err MATCHES "Build log for ")
  string(STRIP "${err}" stripped)
  if(stripped MATCHES "\n")
    string(APPEND failures "an error (exit ${EXPECT_CODE}) must be one line on stderr, got several. ")
  endif()
endif()
foreach(regex IN LISTS regexes)
  if(NOT "${regex}" STREQUAL "" AND NOT "${out}${err}" MATCHES "${regex}")
    string(APPEND failures "output does not match '${regex}'. ")
  endif()
endforeach()
if(failures)
  message(FATAL_ERROR "${failures}")
endif()
