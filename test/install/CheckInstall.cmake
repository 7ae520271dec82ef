# Installs the build into a fresh prefix, builds examples/downstream (find_package(tisa): a C++
# program on tisa::tisa, C programs on tisa::libtisa) against it, and runs them: a JIT-compiled
# GEMM checked against the reference, from C++, from C (also built through pkg-config alone) and
# from Python (ctypes); and the data directories libtisa reads, which must be the prefix's. Run by
# ctest as `cmake -P`, one PART at a time (each its own test, in fixture order: install first, then
# the downstream build, then the runs); any failing step fails the test with its output.
# SANITIZER_FLAGS and SANITIZER_PRELOAD (optional, from a sanitizer build): the downstream links
# add the flags, and Python runs with the runtime preloaded.
cmake_policy(VERSION 3.20) # quoted arguments are strings, IN_LIST: script mode has old policies
foreach(var BUILD_DIR SOURCE_DIR WORK_DIR CC CXX PYTHON PART)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "CheckInstall.cmake needs -D${var}=...")
  endif()
endforeach()
separate_arguments(sanitizer_flags UNIX_COMMAND "${SANITIZER_FLAGS}")
set(sanitizer_link "")
if(SANITIZER_FLAGS)
  set(sanitizer_link "-DCMAKE_EXE_LINKER_FLAGS=${SANITIZER_FLAGS}")
endif()
set(preload "")
if(SANITIZER_PRELOAD)
  set(preload LD_PRELOAD=${SANITIZER_PRELOAD})
endif()

function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  message(STATUS "${what}: ok")
  set(step_output "${out}${err}" PARENT_SCOPE)
endfunction()

set(prefix ${WORK_DIR}/prefix)
# libtisa reads the data of the prefix it is installed in, and nothing else (not the source tree,
# which this build was configured from), with no TISA_ISA_PATH to point it there.
set(no_path ${CMAKE_COMMAND} -E env --unset=TISA_ISA_PATH --unset=LD_LIBRARY_PATH
    TISA_CACHE_DIR=${WORK_DIR}/cache-${PART})
set(parts prefix downstream-build downstream-run pkg-config python)
if(NOT PART IN_LIST parts)
  message(FATAL_ERROR "unknown PART '${PART}' (${parts})")
endif()

if(PART STREQUAL "prefix")
file(REMOVE_RECURSE ${WORK_DIR})
step("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
# The installed tool starts without a library path (its run path names
# LLVM's) and reads the descriptions of its own prefix, not the configured one.
step("installed tisa" ${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH
     ${WORK_DIR}/prefix/bin/tisa isa show vpdpbusd.zmm)
if(NOT step_output MATCHES "file: +${WORK_DIR}/prefix/share/tisa/isa-descriptions/")
  message(FATAL_ERROR "the installed tisa did not read its prefix's descriptions:\n${step_output}")
endif()
endif()

if(PART STREQUAL "downstream-build")
set(launcher "")
find_program(CCACHE ccache)
if(CCACHE)
  set(launcher -DCMAKE_CXX_COMPILER_LAUNCHER=${CCACHE} -DCMAKE_C_COMPILER_LAUNCHER=${CCACHE})
endif()
step("configure examples/downstream" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/downstream
     -B ${WORK_DIR}/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=${CC}
     -DCMAKE_CXX_COMPILER=${CXX} ${launcher} ${sanitizer_link}
     -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix)
step("build examples/downstream" ${CMAKE_COMMAND} --build ${WORK_DIR}/build)
endif()

if(PART STREQUAL "downstream-run")
step("run gemm-jit (tisa::tisa)" ${no_path} ${WORK_DIR}/build/gemm-jit)
message(STATUS "${step_output}")
if(NOT step_output MATCHES "6 runs, bit-exact")
  message(FATAL_ERROR "gemm-jit did not report 6 bit-exact runs")
endif()

step("run data-dirs" ${no_path} ${WORK_DIR}/build/data-dirs)
set(want "descriptions: ${prefix}/share/tisa/isa-descriptions\ntargets: ${prefix}/share/tisa/targets\n")
if(NOT step_output STREQUAL want)
  message(FATAL_ERROR "libtisa reads other data than its prefix's:\n${step_output}")
endif()
step("run gemm-c (tisa::libtisa)" ${no_path} ${WORK_DIR}/build/gemm-c)
message(STATUS "${step_output}")
endif()

if(PART STREQUAL "pkg-config")
# A C program built with pkg-config alone, and run with the library's directory on the loader's
# path (pkg-config gives no run path).
step("pkg-config" ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${prefix}/lib/pkgconfig
     pkg-config --cflags --libs tisa)
string(STRIP "${step_output}" pc_flags)
separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
step("cc $(pkg-config --cflags --libs tisa)" ${CC} -std=c99 ${SOURCE_DIR}/examples/c-api/gemm.c
     ${pc_flags} ${sanitizer_flags} -o ${WORK_DIR}/gemm-pkg-config)
step("run gemm-pkg-config" ${CMAKE_COMMAND} -E env --unset=TISA_ISA_PATH
     LD_LIBRARY_PATH=${prefix}/lib TISA_CACHE_DIR=${WORK_DIR}/cache-${PART}
     ${WORK_DIR}/gemm-pkg-config)
endif()

if(PART STREQUAL "python")
# Python through ctypes, on the installed library.
step("run examples/python/gemm.py" ${no_path} ${preload} ${PYTHON} ${SOURCE_DIR}/examples/python/gemm.py
     ${prefix}/lib/libtisa.so)
message(STATUS "${step_output}")
if(NOT step_output MATCHES "descriptions from: ${prefix}/share/tisa/isa-descriptions\n")
  message(FATAL_ERROR "gemm.py's libtisa reads other descriptions than its prefix's")
endif()
endif()
