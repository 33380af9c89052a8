# full_edition.cmake: expect_full_edition(PREFIX WHAT), for the install tests: the full edition
# installed under PREFIX holds every kernel exactly as the build made it (the student edition's
# skeletons never replace them) and the instructor key. WHAT names the install in the error.
function(expect_full_edition prefix what)
  file(GLOB built RELATIVE ${BUILD}/bin/kernels ${BUILD}/bin/kernels/*.cl)
  foreach(kernel IN LISTS built)
    file(SHA256 ${BUILD}/bin/kernels/${kernel} want)
    file(SHA256 ${prefix}/share/opencl-labs/kernels/${kernel} got)
    if(NOT got STREQUAL want)
      message(FATAL_ERROR "${what}: share/opencl-labs/kernels/${kernel} is not the build's kernel "
                          "(a student skeleton installed over it?)")
    endif()
  endforeach()
  if(NOT EXISTS ${prefix}/share/doc/opencl-labs/docs/instructor/solutions.md)
    message(FATAL_ERROR "${what} lacks the instructor key's solutions.md")
  endif()
endfunction()
