# text_for_install.cmake: the installed copy of a text from the source tree. A user of an installed
# suite types `opencl-labs LAB`, not `scripts/labs.sh LAB`, `build/bin/LAB` or `LAB` alone (as
# with build/bin on the PATH), and finds the skeletons in the installed share folder, so the copy
# says so. Other build-tree paths (the kernels' folder, a developer's command) stay as they are.
#   cmake -DINPUT=FILE -DOUTPUT=FILE -DLAUNCHER=opencl-labs -DEXERCISES=DIR "-DLABS=a;b;..."
#         [-DPREAMBLE=TEXT] [-DPLAIN=ON] -P text_for_install.cmake
# PREAMBLE becomes the first paragraph; PLAIN=ON adds only that, leaving the text as it is.
file(READ ${INPUT} text)
if(PLAIN)  # only the first paragraph
  file(WRITE ${OUTPUT} "${PREAMBLE}\n\n${text}")
  return()
endif()
string(REPLACE "build/bin/exercises/" "${EXERCISES}/" text "${text}")
string(REGEX REPLACE "(\\./)?scripts/labs\\.sh" "${LAUNCHER}" text "${text}")
foreach(lab IN LISTS LABS)
  string(REGEX REPLACE "(\\./)?build/bin/${lab}([^a-z_])" "${LAUNCHER} ${lab}\\2" text "${text}")
  # A command that names the lab alone (`profiling --blocking`), as on a PATH holding build/bin.
  string(REGEX REPLACE "`${lab} -" "`${LAUNCHER} ${lab} -" text "${text}")
endforeach()
if(PREAMBLE)
  set(text "${PREAMBLE}\n\n${text}")
endif()
file(WRITE ${OUTPUT} "${text}")
