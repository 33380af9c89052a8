# cpack_generator.cmake: read by cpack once per generator (CPACK_PROJECT_CONFIG_FILE). A .deb
# installs under /usr, staged through DESTDIR so the install scripts see /usr as the prefix (the
# installed texts name it); a tarball unpacks anywhere, so its texts say PREFIX.
if(CPACK_GENERATOR STREQUAL "DEB")
  set(CPACK_SET_DESTDIR ON)
  set(CPACK_INSTALL_PREFIX /usr)
  set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
endif()
