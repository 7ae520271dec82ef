# Installs the build into a fresh prefix, builds examples/downstream (find_package(tisa), link
# tisa::tisa) against it, and runs the example (a JIT-compiled GEMM checked against the
# reference). Run by ctest as `cmake -P`; any failing step fails the test with its output.
foreach(var BUILD_DIR SOURCE_DIR WORK_DIR CXX)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "CheckInstall.cmake needs -D${var}=...")
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK_DIR})

function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  message(STATUS "${what}: ok")
  set(step_output "${out}${err}" PARENT_SCOPE)
endfunction()

step("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix)
# The installed tool starts without a library path (its run path names
# LLVM's) and reads the descriptions of its own prefix, not the configured one.
step("installed tisa" ${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH
     ${WORK_DIR}/prefix/bin/tisa isa show vpdpbusd.zmm)
if(NOT step_output MATCHES "file: +${WORK_DIR}/prefix/share/tisa/isa-descriptions/")
  message(FATAL_ERROR "the installed tisa did not read its prefix's descriptions:\n${step_output}")
endif()
set(launcher "")
find_program(CCACHE ccache)
if(CCACHE)
  set(launcher -DCMAKE_CXX_COMPILER_LAUNCHER=${CCACHE})
endif()
step("configure examples/downstream" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/downstream
     -B ${WORK_DIR}/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=${CXX}
     ${launcher} -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix)
step("build examples/downstream" ${CMAKE_COMMAND} --build ${WORK_DIR}/build)
step("run gemm-jit" ${WORK_DIR}/build/gemm-jit)
message(STATUS "${step_output}")
if(NOT step_output MATCHES "6 runs, bit-exact")
  message(FATAL_ERROR "gemm-jit did not report 6 bit-exact runs")
endif()
