# Driver of the install tests (tests/install/CMakeLists.txt), run as `cmake -P` with
# BUILD_DIR, SOURCE_DIR, PREFIX, WORK_DIR and STEP:
#   tree      install BUILD_DIR into PREFIX; the tree holds the binaries, the libraries, headers,
#             package files, meshes and page; the installed binary runs and finds its page
#             beside itself (a marker put into the installed copy comes out in `view`'s page)
#   consumer  configure, build and run tests/install/consumer against PREFIX alone; its first
#             mode equals the installed binary's for the same mesh and options
cmake_minimum_required(VERSION 3.25)

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${ARGN}\n${out}\n${err}")
  endif()
  set(run_output "${out}${err}" PARENT_SCOPE)
endfunction()

function(expect_file path)
  if(NOT EXISTS ${PREFIX}/${path})
    message(FATAL_ERROR "the installed tree lacks ${path}")
  endif()
endfunction()

set(bin ${PREFIX}/bin/mesh2dsp)
set(mesh ${PREFIX}/share/mesh2dsp/meshes/bar.obj)
file(MAKE_DIRECTORY ${WORK_DIR})

if(STEP STREQUAL "tree")
  file(REMOVE_RECURSE ${PREFIX})
  run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX})
  foreach(f bin/mesh2dsp lib/libmesh2dsp_analysis.a lib/libmesh2dsp_emit.a
            include/mesh2dsp/analysis/analysis.hpp include/mesh2dsp/emit/emitters.hpp
            include/mesh2dsp/util/error.hpp lib/cmake/mesh2dsp/mesh2dspConfig.cmake
            lib/cmake/mesh2dsp/mesh2dspConfigVersion.cmake lib/cmake/mesh2dsp/mesh2dspTargets.cmake
            lib/cmake/mesh2dsp/Mesh2dspDeps.cmake share/mesh2dsp/meshes/bar.obj)
    expect_file(${f})
  endforeach()
  file(GLOB_RECURSE leaked RELATIVE ${PREFIX} ${PREFIX}/include/*.cpp ${PREFIX}/*CMakeLists.txt
       ${PREFIX}/*test* ${PREFIX}/*bench*)
  if(leaked)
    message(FATAL_ERROR "the installed tree holds build files: ${leaked}")
  endif()
  run("the installed binary" ${bin} --version)
  # The runtime commands are handed over to the installed mesh2dsp-full (libexec/mesh2dsp).
  expect_file(libexec/mesh2dsp/mesh2dsp-full)
  run("the installed binary's render" ${bin} render --help)
  if(NOT run_output MATCHES "--sample-rate")
    message(FATAL_ERROR "`mesh2dsp render --help` did not print render's options:\n${run_output}")
  endif()
  if(EXISTS ${BUILD_DIR}/web-assets/index.html)
    expect_file(share/mesh2dsp/web/index.html)
    # The installed binary's page comes from the installed copy, not from the build folder.
    set(marker "<!-- the installed copy of the page -->")
    file(APPEND ${PREFIX}/share/mesh2dsp/web/index.html "${marker}\n")
    file(REMOVE_RECURSE ${WORK_DIR}/page)
    run("mesh2dsp modes" ${bin} modes ${mesh} --material steel --modes 4 --surface-data -q
        -o ${WORK_DIR}/bar.modal.json)
    run("mesh2dsp view" ${bin} view ${WORK_DIR}/bar.modal.json -o ${WORK_DIR}/page -q)
    file(READ ${WORK_DIR}/page/index.html page)
    string(FIND "${page}" "${marker}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "the installed binary's page did not come from ${PREFIX}/share/mesh2dsp/web")
    endif()
  endif()
  file(GLOB_RECURSE installed RELATIVE ${PREFIX} ${PREFIX}/*)
  list(LENGTH installed count)
  message(STATUS "installed ${count} files into ${PREFIX}")

elseif(STEP STREQUAL "consumer")
  set(build ${WORK_DIR}/consumer-build)
  file(REMOVE_RECURSE ${build})
  set(configure ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/install/consumer -B ${build}
      -G ${GENERATOR} -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${PREFIX})
  if(MAKE_PROGRAM)
    list(APPEND configure -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM})
  endif()
  if(CXX_COMPILER)
    list(APPEND configure -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
  endif()
  if(LAUNCHER)
    list(APPEND configure -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
  endif()
  run("configuring the consumer" ${configure})
  run("building the consumer" ${CMAKE_COMMAND} --build ${build})
  run("the consumer" ${build}/consumer ${mesh} ${WORK_DIR}/bar.hpp)
  message(STATUS "consumer: ${run_output}")
  if(NOT run_output MATCHES "modes ([0-9]+) first_hz ([0-9.]+)")
    message(FATAL_ERROR "the consumer printed: ${run_output}")
  endif()
  set(consumer_modes ${CMAKE_MATCH_1})
  set(consumer_hz ${CMAKE_MATCH_2})
  file(READ ${WORK_DIR}/bar.hpp header)
  if(NOT header MATCHES "#ifndef" OR NOT header MATCHES "${consumer_modes}")
    message(FATAL_ERROR "the consumer's header is not a generated model header")
  endif()
  # The same analysis by the installed binary: the library behind the package is the binary's.
  run("mesh2dsp modes" ${PREFIX}/bin/mesh2dsp modes ${mesh} --material steel --modes 6 -q
      -o ${WORK_DIR}/bar6.modal.json)
  file(READ ${WORK_DIR}/bar6.modal.json model)
  string(JSON binary_modes LENGTH "${model}" modes)
  string(JSON binary_hz GET "${model}" modes 0 frequency_hz)
  string(REGEX REPLACE "[.].*" "" binary_whole_hz "${binary_hz}")
  string(REGEX REPLACE "[.].*" "" consumer_whole_hz "${consumer_hz}")
  if(NOT binary_modes EQUAL consumer_modes OR NOT binary_whole_hz EQUAL consumer_whole_hz)
    message(FATAL_ERROR "consumer: ${consumer_modes} modes from ${consumer_hz} Hz, the installed "
                        "binary: ${binary_modes} from ${binary_hz} Hz")
  endif()
else()
  message(FATAL_ERROR "STEP must be tree or consumer")
endif()
