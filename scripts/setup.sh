#!/usr/bin/env bash
# Installs what tisa needs on Debian 12 (bookworm) and configures the build. Idempotent: packages
# already present are left alone, and an existing build directory is reused.
set -euo pipefail

PACKAGES=(
  # LLVM/MLIR 22: libMLIR.so, mlir-tblgen, FileCheck, lit, clang-22 and lld-22
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools clang-22 lld-22
  # build
  cmake ninja-build ccache pkg-config
  # tests and disassembly
  googletest libgtest-dev libbenchmark-dev libcapstone-dev
  # tisa-bench baselines: oneDNN (its CMake config needs OpenCL's), libxsmm, OpenBLAS
  libdnnl-dev ocl-icd-opencl-dev libxsmm-dev libopenblas-dev
  # Arm checks under QEMU: user-mode emulator and the aarch64 C library to link probes
  qemu-user libc6-dev-arm64-cross libstdc++-12-dev-arm64-cross binutils-aarch64-linux-gnu
  # Arm vendor libraries counted under QEMU (tisa-arm-counts), through multiarch: oneDNN's
  # runtime (its headers are the amd64 -dev package's), the Arm Compute Library, OpenBLAS
  libdnnl2:arm64 libarm-compute-dev:arm64 libopenblas-dev:arm64
)

# TISA_EXTRA_PACKAGES: more packages a caller needs (the sanitizer and fuzzer
# scripts add clang-22's runtimes).
read -ra extra <<< "${TISA_EXTRA_PACKAGES:-}"
PACKAGES+=("${extra[@]}")

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "setup: installing ${missing[*]}"
  if [[ " ${missing[*]}" == *":arm64"* ]] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
    $SUDO dpkg --add-architecture arm64
  fi
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
fi

BUILD_DIR="${BUILD_DIR:-build}"
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  # TISA_CMAKE_ARGS: extra configuration (scripts/sanitize.sh passes the
  # sanitizers through it).
  cmake -G Ninja -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release ${TISA_CMAKE_ARGS:-}
fi
cmake --build "$BUILD_DIR" -j "$(nproc)"
