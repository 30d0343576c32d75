# cpack -G DEB: quartz_VERSION_ARCH.deb, installing under /usr. Its Depends come from the
# libraries the installed programs link (dpkg-shlibdeps). Configure with
# -DCMAKE_INSTALL_PREFIX=/usr, as Debian's own packages do, for the multiarch library
# directory (/usr/lib/x86_64-linux-gnu) that GNUInstallDirs chooses for that prefix.
set(CPACK_PACKAGE_NAME quartz)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "profiler of parallel programs by normalized processor time")
set(CPACK_PACKAGE_DESCRIPTION
    "Quartz ranks the procedures, locks and threads of a shared-memory parallel program
(pthreads, std::thread) by normalized processor time: processor time divided by the number
of processors busy at the same moment, so that a serial phase weighs what it costs. It
predicts what regrouping threads or speeding up a procedure would buy.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(QUARTZ_DEB_MAINTAINER "Quartz developers" CACHE STRING "The .deb's Maintainer field")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${QUARTZ_DEB_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The wrappers run a C or C++ compiler, and quartz.pc is read by pkg-config.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "gcc | c-compiler, g++ | c++-compiler, pkgconf")
include(CPack)
