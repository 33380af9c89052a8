# install_skeletons.cmake: run by `cmake --install` for components labs and student. Installs the
# skeleton of every kernel build/exercises.tsv (EXERCISES) names into SHARE/exercises, with the
# real prefix in its header. For the student edition (COMPONENT student) it also installs the
# labs' kernels (KERNELS) into SHARE/kernels, each exercised one as its skeleton, so that edition
# holds no exercise's solution.
cmake_policy(PUSH)
cmake_policy(SET CMP0057 NEW)  # if(IN_LIST) in an install script
include(${CMAKE_CURRENT_LIST_DIR}/ExerciseList.cmake)
lab_exercise_rows(${EXERCISES} _exercise)
set(_exercised ${_exercise_kernels})
set(FILES "")
foreach(_kernel IN LISTS _exercised)
  list(APPEND FILES ${SKELETONS}/${_kernel})
endforeach()
set(DESTINATION ${SHARE}/exercises)
include(${CMAKE_CURRENT_LIST_DIR}/install_with_prefix.cmake)
if(COMPONENT STREQUAL "student")
  file(GLOB _kernels "${KERNELS}/*.cl")
  set(FILES "")
  foreach(_kernel IN LISTS _kernels)
    get_filename_component(_name ${_kernel} NAME)
    if(_name IN_LIST _exercised)
      list(APPEND FILES ${SKELETONS}/${_name})
    else()
      list(APPEND FILES ${_kernel})
    endif()
  endforeach()
  set(DESTINATION ${SHARE}/kernels)
  include(${CMAKE_CURRENT_LIST_DIR}/install_with_prefix.cmake)
endif()
cmake_policy(POP)
