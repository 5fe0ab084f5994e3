# cmake --install build --prefix P installs:
#   bin/spritz                          the command
#   lib/spritz/spritz-{exr,http}.so     its modules: OpenEXR, the preview's server
#   include/spritz/...                  the model's and the raster's public headers
#   lib/libspritz-model.a, lib/libspritz-raster.a, lib/libspritz-system.a
#   lib/cmake/spritz/                   find_package(spritz): spritz::model, spritz::raster
#   lib/pkgconfig/spritz.pc             pkg-config --static --cflags --libs spritz
#   share/man/man1/spritz.1.gz          generated from --help by help2man
#   share/spritz/effects/               the bundled effects (with their textures)
#   share/doc/spritz/                   README and docs/
# cpack -G DEB --config build/CPackConfig.cmake makes a .deb of the same tree.
include(CMakePackageConfigHelpers)

install(TARGETS spritz RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The modules the binary loads on first use (cli/io/module.h).
install(TARGETS spritz_exr_module spritz_http_module LIBRARY DESTINATION ${SPRITZ_MODULE_INSTALL_DIR})
install(TARGETS spritz_lib spritz_raster spritz_system EXPORT spritzTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY lib/include/spritz raster/include/spritz system/include/spritz
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_BINARY_DIR}/generated/spritz/version.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/spritz)

set(spritz_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/spritz)
install(EXPORT spritzTargets NAMESPACE spritz:: DESTINATION ${spritz_cmake_dir})
configure_package_config_file(cmake/spritzConfig.cmake.in ${PROJECT_BINARY_DIR}/spritzConfig.cmake
  INSTALL_DESTINATION ${spritz_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/spritzConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/spritzConfig.cmake ${PROJECT_BINARY_DIR}/spritzConfigVersion.cmake
  DESTINATION ${spritz_cmake_dir})

# The .pc file finds the prefix from its own place, so any --prefix works.
file(RELATIVE_PATH pc_prefix_from_pcfiledir /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" pc_prefix_from_pcfiledir "${pc_prefix_from_pcfiledir}")
configure_file(cmake/spritz.pc.in ${PROJECT_BINARY_DIR}/spritz.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/spritz.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

install(DIRECTORY configs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/spritz/effects)
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})

# The man page: help2man runs the built binary's --help and --version, and
# cmake/man-commands.sh appends every command's own --help as a section.
if(SPRITZ_MAN)
  find_program(HELP2MAN help2man)
  if(NOT HELP2MAN)
    message(FATAL_ERROR "help2man is missing: install Debian's help2man (scripts/build.sh does) "
                        "or configure with -DSPRITZ_MAN=OFF to build without the man page")
  endif()
  if(CMAKE_CROSSCOMPILING AND NOT CMAKE_CROSSCOMPILING_EMULATOR)
    message(STATUS "spritz: no man page in a cross build without an emulator to run --help")
  else()
    set(run_spritz ${CMAKE_CROSSCOMPILING_EMULATOR} $<TARGET_FILE:spritz>)
    list(JOIN CMAKE_CROSSCOMPILING_EMULATOR " " emulator_words)  # help2man takes one command line
    add_custom_command(OUTPUT ${PROJECT_BINARY_DIR}/spritz.1 ${PROJECT_BINARY_DIR}/spritz.1.gz
      COMMAND sh ${PROJECT_SOURCE_DIR}/cmake/man-commands.sh ${PROJECT_BINARY_DIR}/spritz-man-commands.h2m ${run_spritz}
      COMMAND ${HELP2MAN} --no-info --section 1 --name "render 2D particle effects to PNG frames and flipbook atlases"
              --include ${PROJECT_BINARY_DIR}/spritz-man-commands.h2m --output ${PROJECT_BINARY_DIR}/spritz.1
              "${emulator_words} $<TARGET_FILE:spritz>"
      COMMAND gzip -n -9 -f -k ${PROJECT_BINARY_DIR}/spritz.1
      DEPENDS spritz ${PROJECT_SOURCE_DIR}/cmake/man-commands.sh
      COMMENT "Generating the spritz(1) man page" VERBATIM)
    add_custom_target(spritz_man ALL DEPENDS ${PROJECT_BINARY_DIR}/spritz.1.gz)
    install(FILES ${PROJECT_BINARY_DIR}/spritz.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  endif()
endif()

# cpack -G DEB: the runtime dependencies are worked out by dpkg-shlibdeps
# from the binary and its modules (libc6, libstdc++6, libgcc-s1, libdeflate0,
# libopenexr, libcpp-httplib, ... on Debian 12); libtiff, which the importer
# opens itself (dlopen), is named here.
set(CPACK_DEBIAN_PACKAGE_DEPENDS ${SPRITZ_LIBTIFF_PACKAGE})
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME spritz)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_CONTACT "spritz developers <spritz@localhost>")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION graphics)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
include(CPack)
