# One static library per area of the analysis half, with the layering
# enforced by the compiler instead of by review.
#
# Code includes an area's headers by folder ("analysis/prepared_timeline.h",
# "feedprof/timeline.h"). If every target searched lib/src and lib/include,
# any file could include any header, and a reader could quietly start to
# depend on the analysis. Instead each area gets an include root of its own
# in the build tree, holding a link to its folder and links to the public
# headers it owns, and only that root is on its usage requirements. A target
# sees an area's headers only when it links the area (directly or through an
# area it depends on), so an include against docs/architecture.md's layers
# fails with "No such file or directory".
#
#   feedprof_add_area(TARGET
#     FOLDER dir                 # the folder under lib/src (or the repo root
#                                #   for FOLDER_PATH)
#     [FOLDER_PATH path]         # the folder's absolute path, when not
#                                #   lib/src/<dir>
#     [SOURCES file.cc ...]      # none: a header-only (INTERFACE) area
#     [PUBLIC_HEADERS x.h ...]   # the lib/include/feedprof headers it owns
#     [DEPENDS area ...]         # areas and libraries its headers need
#     [PRIVATE_DEPENDS lib ...]) # libraries only its sources need
set(FEEDPROF_PUBLIC_INCLUDE_DIR ${CMAKE_SOURCE_DIR}/lib/include)
set(FEEDPROF_AREA_TARGETS "" CACHE INTERNAL "")

function(feedprof_add_area target)
  cmake_parse_arguments(A "" "FOLDER;FOLDER_PATH"
                        "SOURCES;PUBLIC_HEADERS;DEPENDS;PRIVATE_DEPENDS" ${ARGN})
  if(NOT A_FOLDER_PATH)
    set(A_FOLDER_PATH ${CMAKE_SOURCE_DIR}/lib/src/${A_FOLDER})
  endif()
  set(root ${CMAKE_BINARY_DIR}/include_roots/${target})
  file(REMOVE_RECURSE ${root})
  file(MAKE_DIRECTORY ${root})
  file(CREATE_LINK ${A_FOLDER_PATH} ${root}/${A_FOLDER} SYMBOLIC)
  if(A_PUBLIC_HEADERS)
    file(MAKE_DIRECTORY ${root}/feedprof)
    foreach(header ${A_PUBLIC_HEADERS})
      if(NOT EXISTS ${FEEDPROF_PUBLIC_INCLUDE_DIR}/feedprof/${header})
        message(FATAL_ERROR "${target}: no public header feedprof/${header}")
      endif()
      file(CREATE_LINK ${FEEDPROF_PUBLIC_INCLUDE_DIR}/feedprof/${header}
           ${root}/feedprof/${header} SYMBOLIC)
    endforeach()
  endif()
  if(A_SOURCES)
    add_library(${target} STATIC ${A_SOURCES})
    target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${root}>)
    target_compile_options(${target} PRIVATE ${FEEDPROF_WARNINGS})
    target_link_libraries(${target} PUBLIC ${A_DEPENDS}
                                    PRIVATE ${A_PRIVATE_DEPENDS})
  else()
    add_library(${target} INTERFACE)
    target_include_directories(${target} INTERFACE $<BUILD_INTERFACE:${root}>)
    target_link_libraries(${target} INTERFACE ${A_DEPENDS})
  endif()
  set(FEEDPROF_AREA_TARGETS ${FEEDPROF_AREA_TARGETS} ${target}
      CACHE INTERNAL "")
endfunction()
