# Installs feedprof the way a system tool is installed, and packages it.
#
# `cmake --install` already puts the CLI in bin/ and libfeedprof.so in the
# library directory (tools/, preload/). This file adds what another project
# and a Debian system need on top: the analysis library with its public
# headers as an importable CMake package (find_package(feedprof CONFIG),
# target feedprof::analysis), the documentation, a man page generated from
# the CLI's own --help (so it cannot drift from the options), and the CPack
# settings of the Debian package (`cpack -G DEB`). docs/install.md says how
# each is used. Included from the top-level CMakeLists.txt after every
# target exists.
include(CMakePackageConfigHelpers)

set(FEEDPROF_CMAKE_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/feedprof)

# --- CMake package: feedprof::analysis (and the schema it links) ----------
# feedprof::analysis is the umbrella of lib/CMakeLists.txt: every area's
# archive (libfeedprof_<area>.a) and the public headers alone.
set_target_properties(feedprof_lib PROPERTIES EXPORT_NAME analysis)
set_target_properties(feedprof_proto PROPERTIES EXPORT_NAME proto)
set(FEEDPROF_ARCHIVES ${FEEDPROF_AREA_TARGETS})
list(REMOVE_ITEM FEEDPROF_ARCHIVES feedprof_abi)  # headers only
install(TARGETS feedprof_lib feedprof_abi ${FEEDPROF_ARCHIVES} feedprof_proto
        EXPORT feedprofTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
# A stripped install (--strip, CPACK_STRIP_FILES) strips executables and
# shared libraries only; the archives' debug info is nearly all of their
# size (72 MB of 74 in a RelWithDebInfo tree), so it goes too, as Debian
# does for -dev packages.
set(FEEDPROF_ARCHIVE_NAMES "")
foreach(archive ${FEEDPROF_ARCHIVES} feedprof_proto)
  list(APPEND FEEDPROF_ARCHIVE_NAMES "$<TARGET_FILE_NAME:${archive}>")
endforeach()
install(CODE "
  if(CMAKE_INSTALL_DO_STRIP)
    foreach(archive ${FEEDPROF_ARCHIVE_NAMES})
      execute_process(COMMAND \"${CMAKE_STRIP}\" --strip-debug
        \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/\${archive}\"
        COMMAND_ERROR_IS_FATAL ANY)
    endforeach()
  endif()")
install(DIRECTORY ${CMAKE_SOURCE_DIR}/lib/include/feedprof
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
install(EXPORT feedprofTargets
        NAMESPACE feedprof::
        FILE feedprofTargets.cmake
        DESTINATION ${FEEDPROF_CMAKE_PACKAGE_DIR})
configure_package_config_file(
  ${CMAKE_SOURCE_DIR}/cmake/feedprofConfig.cmake.in
  ${CMAKE_BINARY_DIR}/cmake/feedprofConfig.cmake
  INSTALL_DESTINATION ${FEEDPROF_CMAKE_PACKAGE_DIR})
write_basic_package_version_file(
  ${CMAKE_BINARY_DIR}/cmake/feedprofConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/feedprofConfig.cmake
              ${CMAKE_BINARY_DIR}/cmake/feedprofConfigVersion.cmake
        DESTINATION ${FEEDPROF_CMAKE_PACKAGE_DIR})

# --- Documentation -----------------------------------------------------------
file(GLOB FEEDPROF_DOC_PAGES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/docs/*.md)
install(FILES ${CMAKE_SOURCE_DIR}/README.md ${FEEDPROF_DOC_PAGES}
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

# --- Man page, from the built CLI's --help ----------------------------------
# Compressed with gzip -9n (no name or time stamp in the header), as Debian
# policy asks, so the same sources give the same bytes.
find_program(FEEDPROF_GZIP gzip)
if(FEEDPROF_GZIP)
  set(FEEDPROF_MAN_PAGE ${CMAKE_BINARY_DIR}/man/feedprof.1)
  add_custom_command(
    OUTPUT ${FEEDPROF_MAN_PAGE}.gz
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/man
    COMMAND sh ${CMAKE_SOURCE_DIR}/tools/make_man_page.sh
            $<TARGET_FILE:feedprof_cli> ${FEEDPROF_MAN_PAGE}
    COMMAND sh -c "${FEEDPROF_GZIP} -9n -c \"$1\" > \"$1.gz\""
            make_man_page ${FEEDPROF_MAN_PAGE}
    DEPENDS feedprof_cli ${CMAKE_SOURCE_DIR}/tools/make_man_page.sh
    COMMENT "Generating the feedprof(1) man page from feedprof --help"
    VERBATIM)
  add_custom_target(feedprof_man_page ALL DEPENDS ${FEEDPROF_MAN_PAGE}.gz)
  install(FILES ${FEEDPROF_MAN_PAGE}.gz
          DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(STATUS "feedprof: no gzip found: the man page is not built")
endif()

# --- Debian package (cpack -G DEB) -------------------------------------------
# One package: the CLI, libfeedprof.so, the analysis library with headers
# and CMake package, the man page and the documentation. Installed under
# /usr, the CLI finds libfeedprof.so in ../lib/ or ../lib/<multiarch>/
# (FindLibrary in tools/record_command.cc), whichever CMAKE_INSTALL_LIBDIR
# this tree was configured with.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME feedprof)
set(CPACK_PACKAGE_VENDOR "feedprof developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "GPU-feeding profiler: can the CPU feed the GPU, and which feeding fails")
# Lines under 80 columns: CPack turns each line into a continuation line of
# the control file's Description.
string(JOIN "\n" CPACK_PACKAGE_DESCRIPTION
  "feedprof records what the host threads and the GPU did (libfeedprof.so,"
  "injected with LD_PRELOAD or CUDA_INJECTION64_PATH) and turns the timeline"
  "into a measured verdict: launch, preprocessing, I/O, transfer, sync, GPU or"
  "latency bound, with the evidence and the next steps that fit. The feedprof"
  "command records, dumps and analyzes its own traces, PyTorch profiler"
  "(Kineto) traces and Nsight Systems SQLite exports. The analysis library,"
  "its headers and its CMake package (find_package(feedprof)) are included.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "feedprof developers")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The static analysis library needs these to link; the tools do not.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS
    "libabsl-dev, libprotobuf-dev, zlib1g-dev, libsqlite3-dev")
if(FEEDPROF_HAVE_ISAL)
  string(APPEND CPACK_DEBIAN_PACKAGE_SUGGESTS ", libisal-dev")
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# xz, Debian's default: 1.1 MB against gzip's 3.0 MB, for about 1.5 s more
# of the package test (tests/package/) that builds it on every ctest.
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
