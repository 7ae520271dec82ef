#!/usr/bin/env bash
# Installs what tisa needs on Debian 12 (bookworm) and configures the build. Idempotent: packages
# already present are left alone, and an existing build directory is reused.
set -euo pipefail

PACKAGES=(
  # LLVM/MLIR 22: libMLIR.so, mlir-tblgen, FileCheck, lit, clang-22 and lld-22
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools clang-22 lld-22
  # lld's ELF linker as a library: Arm probes linked in the test process
  liblld-22-dev
  # build
  cmake ninja-build ccache pkg-config
  # tests and disassembly
  googletest libgtest-dev libbenchmark-dev libcapstone-dev
  # the C API from Python (examples/python, ctypes)
  python3
  # tisa-bench baselines: oneDNN (its CMake config needs OpenCL's), libxsmm, OpenBLAS
  libdnnl-dev ocl-icd-opencl-dev libxsmm-dev libopenblas-dev
  # Arm checks under QEMU: user-mode emulator and the aarch64 C library to link probes
  qemu-user libc6-dev-arm64-cross libstdc++-12-dev-arm64-cross binutils-aarch64-linux-gnu
)
# Arm vendor libraries counted under QEMU (tisa-arm-counts), through multiarch: oneDNN's runtime
# (its headers are the amd64 -dev package's), the Arm Compute Library, OpenBLAS. Optional: without
# them tisa-arm-vendors is not built and its test reports skipped.
ARM64_PACKAGES=(libdnnl2:arm64 libarm-compute-dev:arm64 libopenblas-dev:arm64)

# TISA_EXTRA_PACKAGES: more packages a caller needs (the sanitizer and fuzzer
# scripts add clang-22's runtimes).
read -ra extra <<< "${TISA_EXTRA_PACKAGES:-}"
PACKAGES+=("${extra[@]}")

missing_of() { # PACKAGE...: those not installed
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
mapfile -t missing < <(missing_of "${PACKAGES[@]}")
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
fi
# The optional arm64 packages after the required ones: nothing here may fail the setup.
mapfile -t missing_arm64 < <(missing_of "${ARM64_PACKAGES[@]}")
arm64_installed=0
if ((${#missing_arm64[@]})); then
  echo "setup: installing ${missing_arm64[*]}"
  added=0
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    $SUDO dpkg --add-architecture arm64 && added=1
  fi
  if $SUDO apt-get update && DEBIAN_FRONTEND=noninteractive \
      $SUDO apt-get install -y --no-install-recommends "${missing_arm64[@]}"; then
    arm64_installed=1
  else
    echo "setup: warning: the arm64 vendor libraries did not install; tisa-arm-counts will count tisa alone"
    if ((added)); then $SUDO dpkg --remove-architecture arm64 || true; fi
  fi
fi

BUILD_DIR="${BUILD_DIR:-build}"
# A reused build directory looks for the arm64 vendor libraries again once they are installed.
if [ ! -f "$BUILD_DIR/build.ninja" ] || ((arm64_installed)); then
  # TISA_CMAKE_ARGS: extra configuration (scripts/sanitize.sh passes the
  # sanitizers through it).
  cmake -G Ninja -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release ${TISA_CMAKE_ARGS:-}
fi
cmake --build "$BUILD_DIR" -j "$(nproc)"
