# command_after_separator.cmake: the command a `cmake -D... -P script.cmake -- PROGRAM ARGS...`
# call names, as the list `command` (everything after the "--"), for expect.cmake and
# grading.cmake.
set(command)
set(after_separator FALSE)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE 0 ${last})
  if(after_separator)
    list(APPEND command "${CMAKE_ARGV${i}}")
  elseif("${CMAKE_ARGV${i}}" STREQUAL "--")
    set(after_separator TRUE)
  endif()
endforeach()
