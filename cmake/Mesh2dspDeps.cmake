# Imported targets for the Debian packages that ship headers/libraries but no CMake config.
# Included by the build and, installed beside it, by mesh2dspConfig.cmake in a consumer's project
# (find_package(mesh2dsp) may run there more than once: each target is made once).
if(TARGET mesh2dsp::tetgen)
  return()
endif()

# TetGen (Debian libtet1.5-dev): built as a library, so TETLIBRARY must be defined.
find_path(TETGEN_INCLUDE_DIR tetgen.h REQUIRED)
find_library(TETGEN_LIBRARY tet REQUIRED)
add_library(mesh2dsp::tetgen UNKNOWN IMPORTED)
set_target_properties(mesh2dsp::tetgen PROPERTIES
  IMPORTED_LOCATION ${TETGEN_LIBRARY}
  INTERFACE_INCLUDE_DIRECTORIES ${TETGEN_INCLUDE_DIR}
  INTERFACE_COMPILE_DEFINITIONS TETLIBRARY)

# CHOLMOD (libsuitesparse-dev), used through Eigen's CholmodSupport.
find_path(CHOLMOD_INCLUDE_DIR cholmod.h PATH_SUFFIXES suitesparse REQUIRED)
find_library(CHOLMOD_LIBRARY cholmod REQUIRED)
find_library(SUITESPARSECONFIG_LIBRARY suitesparseconfig REQUIRED)
add_library(mesh2dsp::cholmod INTERFACE IMPORTED)
set_target_properties(mesh2dsp::cholmod PROPERTIES
  INTERFACE_INCLUDE_DIRECTORIES ${CHOLMOD_INCLUDE_DIR}
  INTERFACE_LINK_LIBRARIES "${CHOLMOD_LIBRARY};${SUITESPARSECONFIG_LIBRARY}")

# kainjow mustache (libkainjow-mustache-dev), header only.
find_path(MUSTACHE_INCLUDE_DIR kainjow/mustache.hpp REQUIRED)
add_library(mesh2dsp::mustache INTERFACE IMPORTED)
set_target_properties(mesh2dsp::mustache PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${MUSTACHE_INCLUDE_DIR})

find_package(tinyobjloader REQUIRED)

# CGAL (libcgal-dev), header only: isotropic surface remeshing.
find_package(CGAL REQUIRED)
