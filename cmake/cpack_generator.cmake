# cpack_generator.cmake: read by cpack once per generator (CPACK_PROJECT_CONFIG_FILE). A .deb
# installs under /usr, staged through DESTDIR so the install scripts see /usr as the prefix (the
# installed texts name it); a tarball unpacks anywhere, so its texts say PREFIX. The tarball is
# one tree, so it holds the full edition and the tests only: the student edition's skeletons
# would replace the full edition's kernels in it.
if(CPACK_GENERATOR STREQUAL "DEB")
  set(CPACK_SET_DESTDIR ON)
  set(CPACK_INSTALL_PREFIX /usr)
  set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
endif()
if(CPACK_GENERATOR STREQUAL "TGZ")
  list(REMOVE_ITEM CPACK_COMPONENTS_ALL student)
endif()
