# Run by ctest (cmake -P): install some components of the build tree into a fresh prefix, then
# configure, build and run one consumer of tests/consumer against that prefix alone.
#
#   -DCONSUMER=tuner|store|all   which consumer (tests/consumer/CMakeLists.txt)
#   -DCONSUMER=readme            the project of README.md's Install section, written out of the
#                                page's text by tests/docs/check_examples.py --extract-consumer
#                                (-DPYTHON=..., -DREPOSITORY=the source tree); runs the one program
#                                its CMakeLists.txt declares
#   -DCOMPONENTS=tuner,store     the components installed; empty: a plain install of everything
#   -DPROMTOOL=path              for "all": lints the scrape the consumer saved
#
# For the tuner consumer it also shows that nothing of LMDB, Boost or prometheus-cpp is needed:
# the package is configured with find_package(Boost) and find_package(prometheus-cpp) disabled
# (a find_dependency on them would fail), the prefix holds no header that includes them, and the
# headers the compiler actually read (ninja's dependency log) and the link line name none of them.
foreach(var BUILD_DIR SOURCE_DIR WORK_DIR CXX_COMPILER CONSUMER NINJA)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_consumer_test.cmake needs -D${var}=...")
  endif()
endforeach()

set(prefix "${WORK_DIR}/prefix")
set(consumer_build "${WORK_DIR}/build")
file(REMOVE_RECURSE "${prefix}" "${consumer_build}")

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  message(STATUS "${what}: ok")
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

set(flags "")
if(SANITIZE STREQUAL "address")
  set(flags "-fsanitize=address,undefined")
elseif(SANITIZE STREQUAL "thread")
  set(flags "-fsanitize=thread")
endif()

string(REPLACE "," ";" COMPONENTS "${COMPONENTS}")
if(COMPONENTS)
  foreach(component IN LISTS COMPONENTS)
    run_step("install component ${component}" ${CMAKE_COMMAND} --install "${BUILD_DIR}"
             --prefix "${prefix}" --component ${component})
  endforeach()
else()
  run_step("install" ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")
endif()

set(isolation "")
set(consumer_option "-DBLOBTUNE_CONSUMER=${CONSUMER}")
set(program "${consumer_build}/consumer")
if(CONSUMER STREQUAL "readme")
  set(SOURCE_DIR "${WORK_DIR}/src")
  file(REMOVE_RECURSE "${SOURCE_DIR}")
  run_step("write README.md's project" "${PYTHON}" "${REPOSITORY}/tests/docs/check_examples.py"
           --root "${REPOSITORY}" --extract-consumer "${SOURCE_DIR}")
  file(STRINGS "${SOURCE_DIR}/CMakeLists.txt" declared REGEX "^add_executable\\(")
  list(LENGTH declared count)
  if(NOT count EQUAL 1 OR NOT declared MATCHES "^add_executable\\(([A-Za-z0-9_-]+)")
    message(FATAL_ERROR "README.md's CMakeLists.txt must declare one program: ${declared}")
  endif()
  set(program "${consumer_build}/${CMAKE_MATCH_1}")
  set(consumer_option "")
endif()
if(CONSUMER STREQUAL "tuner")
  # Nothing in the prefix may lead to LMDB, Boost or prometheus-cpp.
  file(GLOB_RECURSE installed RELATIVE "${prefix}" "${prefix}/*")
  foreach(file IN LISTS installed)
    if(file MATCHES "(store|metrics)")
      message(FATAL_ERROR "the tuner component installed ${file}")
    endif()
    if(file MATCHES "\\.(h|cmake)$")
      file(STRINGS "${prefix}/${file}" lines REGEX "#include [<\"](boost|lmdb|prometheus)")
      if(lines)
        message(FATAL_ERROR "${file}, installed with the tuner, includes: ${lines}")
      endif()
    endif()
  endforeach()
  list(LENGTH installed count)
  message(STATUS "tuner prefix: ${count} files, none of them store, metrics, or including "
                 "Boost, LMDB or prometheus-cpp")
  set(isolation -DCMAKE_DISABLE_FIND_PACKAGE_Boost=ON
                -DCMAKE_DISABLE_FIND_PACKAGE_prometheus-cpp=ON)
endif()

run_step("configure consumer (${CONSUMER})" ${CMAKE_COMMAND} -S "${SOURCE_DIR}"
         -B "${consumer_build}" -G Ninja "-DCMAKE_MAKE_PROGRAM=${NINJA}"
         ${consumer_option}
         "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
         "-DCMAKE_CXX_FLAGS=${flags}" "-DCMAKE_EXE_LINKER_FLAGS=${flags}"
         -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF ${isolation})
run_step("build consumer (${CONSUMER})" ${CMAKE_COMMAND} --build "${consumer_build}")

if(CONSUMER STREQUAL "tuner")
  run_step("headers the compiler read" "${NINJA}" -C "${consumer_build}" -t deps)
  string(REGEX MATCHALL "[^\n]*(boost|lmdb|prometheus)[^\n]*" foreign "${step_output}")
  if(foreign)
    message(FATAL_ERROR "the tuner consumer's compile read: ${foreign}")
  endif()
  string(REGEX MATCHALL "blobtune/[^\n]*" blobtune_headers "${step_output}")
  list(LENGTH blobtune_headers count)
  message(STATUS "the compile read ${count} blobtune headers and none of Boost, LMDB or "
                 "prometheus-cpp")
  run_step("link line" "${NINJA}" -C "${consumer_build}" -t commands consumer)
  if(step_output MATCHES "(lmdb|prometheus|boost)")
    message(FATAL_ERROR "the tuner consumer links ${CMAKE_MATCH_1}:\n${step_output}")
  endif()
endif()

if(CONSUMER STREQUAL "all")
  set(scrape "${WORK_DIR}/scrape.txt")
  run_step("run consumer (${CONSUMER})" "${consumer_build}/consumer" "${scrape}")
  message(STATUS "${step_output}")
  execute_process(COMMAND "${PROMTOOL}" check metrics INPUT_FILE "${scrape}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT "${out}${err}" STREQUAL "")
    file(READ "${scrape}" text)
    message(FATAL_ERROR "promtool check metrics (${rc}): ${out}${err}\n--- scrape:\n${text}")
  endif()
  message(STATUS "promtool check metrics on the consumer's scrape: ok")
  run_step("run consumer (own annotations)" "${consumer_build}/own_annotations")
  message(STATUS "${step_output}")
else()
  run_step("run consumer (${CONSUMER})" "${program}")
  message(STATUS "${step_output}")
endif()
