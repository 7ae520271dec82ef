#!/usr/bin/env bash
# The whole test suite under AddressSanitizer and UndefinedBehaviorSanitizer:
# sets everything up (scripts/setup.sh) in build-asan/ with LLVM's
# LLVM_USE_SANITIZER (tisa's code instrumented; Debian's LLVM and MLIR
# libraries are not), then runs ctest. Any report fails the test it occurs in.
#   scripts/sanitize.sh [ctest arguments, e.g. -R lit/]
set -euo pipefail
cd "$(dirname "$0")/.."
# clang-22's sanitizer and libFuzzer runtimes (not needed by the normal build).
export TISA_EXTRA_PACKAGES="libclang-rt-22-dev"
export BUILD_DIR="${BUILD_DIR:-build-asan}"
# LLVM_UBSAN_FLAGS is set by LLVM's own build, not by its installed CMake files.
export TISA_CMAKE_ARGS="-DLLVM_USE_SANITIZER=Address;Undefined -DLLVM_UBSAN_FLAGS=-fsanitize=undefined -DCMAKE_BUILD_TYPE=RelWithDebInfo"
scripts/setup.sh
# Leaks of process-lifetime state in the uninstrumented LLVM/MLIR libraries
# are not tisa's; every error ends the process with a report.
# allow_user_poisoning=0: LLVM's BumpPtrAllocator is inline code that poisons
# a new slab when it is compiled with ASan (in tisa's code) and does not
# unpoison what it hands out when it is not (in libMLIR), so MLIR's own
# allocations from a slab that tisa's code began (an attribute's storage in
# the context's StorageUniquer) were reported as use-after-poison.
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=0:halt_on_error=1:allow_user_poisoning=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
cd "$BUILD_DIR"
ctest --output-on-failure -j "$(nproc)" "$@"
