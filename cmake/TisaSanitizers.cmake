# What code outside this build needs to run tisa's instrumented code in a sanitizer build
# (LLVM_USE_SANITIZER, scripts/sanitize.sh and scripts/fuzz.sh):
#   TISA_SANITIZER_LINK_FLAGS  the flags a program that links tisa's libraries adds to its link
#                              (the downstream project of the install tests);
#   TISA_SANITIZER_PRELOAD     the sanitizer's shared runtime, for LD_PRELOAD into a program that is
#                              not instrumented and loads an instrumented library (Python loading
#                              libtisa.so, Debian's mlir-opt loading TisaPlugin.so).
#   TISA_TEST_TIMEOUT_SCALE    the factor on the tests' time limits (1; 4 in a sanitizer build, where
#                              tisa's instrumented code runs 2-10 times slower).
# The first two are empty in a normal build. TISA_SANITIZER_SUPPORTED is false for sanitizers that cannot
# mix instrumented and plain code (Memory, Thread): then those checks are skipped.
set(TISA_SANITIZER_LINK_FLAGS "")
set(TISA_SANITIZER_PRELOAD "")
set(TISA_SANITIZER_SUPPORTED TRUE)
set(TISA_TEST_TIMEOUT_SCALE 1)
if(NOT LLVM_USE_SANITIZER)
  return()
endif()
set(TISA_TEST_TIMEOUT_SCALE 4)

set(runtime "")
foreach(sanitizer ${LLVM_USE_SANITIZER})
  if(sanitizer STREQUAL "Address")
    list(APPEND TISA_SANITIZER_LINK_FLAGS -fsanitize=address)
    # ASan's runtime carries UBSan's handlers too.
    set(runtime libclang_rt.asan-${CMAKE_SYSTEM_PROCESSOR}.so)
  elseif(sanitizer STREQUAL "Undefined")
    if(LLVM_UBSAN_FLAGS)
      separate_arguments(ubsan_flags UNIX_COMMAND "${LLVM_UBSAN_FLAGS}")
      list(APPEND TISA_SANITIZER_LINK_FLAGS ${ubsan_flags})
    else()
      list(APPEND TISA_SANITIZER_LINK_FLAGS -fsanitize=undefined)
    endif()
    if(NOT runtime)
      set(runtime libclang_rt.ubsan_standalone-${CMAKE_SYSTEM_PROCESSOR}.so)
    endif()
  else()
    set(TISA_SANITIZER_SUPPORTED FALSE)
  endif()
endforeach()
if(NOT TISA_SANITIZER_SUPPORTED OR NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  set(TISA_SANITIZER_SUPPORTED FALSE)
  set(TISA_SANITIZER_LINK_FLAGS "")
  return()
endif()

execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=${runtime}
                OUTPUT_VARIABLE TISA_SANITIZER_PRELOAD OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT IS_ABSOLUTE "${TISA_SANITIZER_PRELOAD}" OR NOT EXISTS "${TISA_SANITIZER_PRELOAD}")
  message(FATAL_ERROR "LLVM_USE_SANITIZER=${LLVM_USE_SANITIZER} needs the sanitizer runtime "
                      "${runtime}, which ${CMAKE_CXX_COMPILER} does not find: install "
                      "libclang-rt-${LLVM_VERSION_MAJOR}-dev (scripts/sanitize.sh does)")
endif()
message(STATUS "Sanitizer runtime for uninstrumented hosts: ${TISA_SANITIZER_PRELOAD}")
