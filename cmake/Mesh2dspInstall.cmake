# `cmake --install build --prefix P`: the `mesh2dsp` binary, the parts' static libraries with
# their headers, the browser page's assets, the bundled meshes and a CMake package, so that a
# program outside the tree can do
#   find_package(mesh2dsp REQUIRED)
#   target_link_libraries(app PRIVATE mesh2dsp::analysis mesh2dsp::emit)
# Included last from the top level, when every part's target exists.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(MESH2DSP_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/mesh2dsp)
set(MESH2DSP_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/mesh2dsp)

# The parts a consumer links, under their package names (mesh2dsp_analysis -> mesh2dsp::analysis).
# The same names work inside this tree (aliases), so python/ is written once for both.
set(MESH2DSP_EXPORTED_PARTS util fem modal modal_slepc radiation analysis emit runtime solver signal validate)
set(exported)
foreach(part IN LISTS MESH2DSP_EXPORTED_PARTS)
  if(TARGET mesh2dsp_${part})
    set_target_properties(mesh2dsp_${part} PROPERTIES EXPORT_NAME ${part})
    add_library(mesh2dsp::${part} ALIAS mesh2dsp_${part})
    # Headers are included as "analysis/analysis.hpp", "runtime/render/events.hpp", ...: the
    # installed tree keeps the source tree's paths under include/mesh2dsp.
    target_include_directories(mesh2dsp_${part} INTERFACE $<INSTALL_INTERFACE:${MESH2DSP_INSTALL_INCLUDEDIR}>)
    list(APPEND exported mesh2dsp_${part})
  endif()
endforeach()
if(TARGET mesh2dsp_solver)  # its own sources and the Python module include "reference_job.hpp"
  target_include_directories(mesh2dsp_solver INTERFACE $<INSTALL_INTERFACE:${MESH2DSP_INSTALL_INCLUDEDIR}/solver>)
endif()

install(TARGETS mesh2dsp RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The runtime commands' binary, which `mesh2dsp` runs for them (cli/forward_to_full.hpp).
if(TARGET mesh2dsp-full)
  # libexec, not CMAKE_INSTALL_LIBEXECDIR: cli/forward_to_full.cpp looks in ../libexec/mesh2dsp.
  install(TARGETS mesh2dsp-full RUNTIME DESTINATION libexec/mesh2dsp)
endif()
install(TARGETS ${exported} EXPORT mesh2dspTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})

# Public headers: every header of each built part (benchmarks and tools are not parts).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/generator/ DESTINATION ${MESH2DSP_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.hpp")
foreach(part runtime solver validate)
  if(TARGET mesh2dsp_${part})
    install(DIRECTORY ${PROJECT_SOURCE_DIR}/${part}/ DESTINATION ${MESH2DSP_INSTALL_INCLUDEDIR}/${part}
      FILES_MATCHING PATTERN "*.hpp" PATTERN bench EXCLUDE)
  endif()
endforeach()

# Run-time data. The templates are compiled into mesh2dsp_emit (generator/emit/CMakeLists.txt),
# so nothing of them is installed; the page's assets are found relative to the installed binary
# (generator/web/CMakeLists.txt sets that relative path).
if(EXISTS ${MESH2DSP_WEB_ASSETS_BUILD_DIR}/index.html OR TARGET mesh2dsp_web_assets)
  install(DIRECTORY ${MESH2DSP_WEB_ASSETS_BUILD_DIR}/ DESTINATION ${MESH2DSP_WEB_ASSETS_INSTALL_DIR})
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/meshes/ DESTINATION ${CMAKE_INSTALL_DATADIR}/mesh2dsp/meshes
  FILES_MATCHING PATTERN "*.obj")
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/header-only DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)

# The package: targets, the version, and the dependencies the targets name (found again in the
# consumer's project by mesh2dspConfig.cmake; the hand-made ones by the same Mesh2dspDeps.cmake).
install(EXPORT mesh2dspTargets NAMESPACE mesh2dsp:: DESTINATION ${MESH2DSP_INSTALL_CMAKEDIR})
foreach(part runtime solver validate)
  string(TOUPPER ${part} PART)
  if(TARGET mesh2dsp_${part})
    set(MESH2DSP_PACKAGE_HAS_${PART} ON)
  else()
    set(MESH2DSP_PACKAGE_HAS_${PART} OFF)
  endif()
endforeach()
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/mesh2dspConfig.cmake.in
  ${PROJECT_BINARY_DIR}/mesh2dspConfig.cmake INSTALL_DESTINATION ${MESH2DSP_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/mesh2dspConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/mesh2dspConfig.cmake ${PROJECT_BINARY_DIR}/mesh2dspConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/Mesh2dspDeps.cmake
        DESTINATION ${MESH2DSP_INSTALL_CMAKEDIR})

# The same package from the build folder (mesh2dsp_DIR=build): what `pip install ./python` uses
# in a checkout when no installed tree is named (python/setup.py).
export(EXPORT mesh2dspTargets NAMESPACE mesh2dsp:: FILE ${PROJECT_BINARY_DIR}/mesh2dspTargets.cmake)
configure_file(${CMAKE_CURRENT_LIST_DIR}/Mesh2dspDeps.cmake ${PROJECT_BINARY_DIR}/Mesh2dspDeps.cmake COPYONLY)

# A .deb of the same tree: `cpack -G DEB` in the build folder (dependencies from dpkg-shlibdeps).
set(CPACK_PACKAGE_NAME mesh2dsp)
set(CPACK_PACKAGE_CONTACT "mesh2dsp developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "3D object and material to modal sound code (Faust, C/C++)")
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
include(CPack)
