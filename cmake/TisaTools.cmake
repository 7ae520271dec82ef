# Tools the differential checks drive at run time. Each may be missing: the check that needs it then
# reports "skipped" with the reason, it never passes silently.
find_program(TISA_CROSS_CLANG NAMES clang-22 PATHS /usr/lib/llvm-22/bin
             DOC "clang used to link aarch64 probe harnesses")
find_program(TISA_QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static
             DOC "qemu user-mode emulator for aarch64")
find_program(TISA_PTXAS NAMES ptxas PATHS /usr/local/cuda/bin /usr/local/cuda-13/bin /usr/lib/cuda/bin
             DOC "CUDA ptxas, to check generated PTX")
find_program(TISA_LINKER NAMES ld.lld-22 ld.lld PATHS /usr/lib/llvm-22/bin
             DOC "linker for the shared libraries tisa gen writes")
find_program(TISA_LLVM_MCA NAMES llvm-mca-22 llvm-mca PATHS /usr/lib/llvm-22/bin
             DOC "LLVM's machine-code analyzer, for hot loops of code this machine cannot time")
if(EXISTS /usr/aarch64-linux-gnu/lib/libc.a)
  set(TISA_AARCH64_SYSROOT_FOUND ON)
else()
  set(TISA_AARCH64_SYSROOT_FOUND OFF)
endif()
foreach(tool TISA_CROSS_CLANG TISA_QEMU_AARCH64 TISA_PTXAS TISA_LINKER TISA_LLVM_MCA)
  if(NOT ${tool})
    set(${tool} "")
  endif()
  message(STATUS "${tool}: ${${tool}}")
endforeach()
message(STATUS "aarch64 static libc found: ${TISA_AARCH64_SYSROOT_FOUND}")
