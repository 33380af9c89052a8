# install_with_prefix.cmake: run by `cmake --install` (and cpack) for the staged texts: each copy in
# FILES goes to DESTINATION under the prefix being installed, with @LAB_INSTALL_PREFIX@ replaced
# by that prefix, so a handout or a skeleton names the real place of the installed skeletons
# (/usr for the package, /opt/opencl-labs for an instructor's --prefix, PREFIX in a tarball).
#   set(FILES ...) set(DESTINATION share/doc/opencl-labs) include(install_with_prefix.cmake)
# A tarball's staging folder is no place a user will see: its texts say PREFIX instead.
set(_prefix "${CMAKE_INSTALL_PREFIX}")
if(_prefix MATCHES "/_CPack_Packages/")
  set(_prefix PREFIX)
endif()
foreach(_file IN LISTS FILES)
  get_filename_component(_name ${_file} NAME)
  set(_target "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/${DESTINATION}/${_name}")
  message(STATUS "Installing: ${_target}")
  file(READ ${_file} _text)
  string(REPLACE "@LAB_INSTALL_PREFIX@" "${_prefix}" _text "${_text}")
  file(WRITE ${_target} "${_text}")
endforeach()
