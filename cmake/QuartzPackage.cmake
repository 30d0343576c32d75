# The installed package: find_package(Quartz) (Quartz::runtime, Quartz::instrument,
# quartz_instrument()) and quartz.pc for pkg-config. Both find the rest of the installation
# relative to their own place, so the tree can be installed under any prefix.
include(CMakePackageConfigHelpers)

set(QUARTZ_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Quartz)
set(QUARTZ_GCC_AS_DIR_INSTALLED ${CMAKE_INSTALL_LIBEXECDIR}/${QUARTZ_GCC_AS_INSTALL_DIR})
install(EXPORT QuartzTargets NAMESPACE Quartz:: DESTINATION ${QUARTZ_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/package/QuartzConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/package/QuartzConfig.cmake
                              INSTALL_DESTINATION ${QUARTZ_CMAKE_DIR}
                              PATH_VARS CMAKE_INSTALL_BINDIR QUARTZ_GCC_AS_DIR_INSTALLED)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/package/QuartzConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/package/QuartzConfig.cmake
              ${CMAKE_BINARY_DIR}/package/QuartzConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/QuartzInstrument.cmake
        DESTINATION ${QUARTZ_CMAKE_DIR})

set(QUARTZ_PKGCONFIG_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH QUARTZ_PREFIX_FROM_PKGCONFIG_DIR
     ${CMAKE_INSTALL_PREFIX}/${QUARTZ_PKGCONFIG_DIR} ${CMAKE_INSTALL_PREFIX})
configure_file(${CMAKE_CURRENT_LIST_DIR}/package/quartz.pc.in ${CMAKE_BINARY_DIR}/package/quartz.pc
               @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/package/quartz.pc DESTINATION ${QUARTZ_PKGCONFIG_DIR})
