#!/usr/bin/env bash
# The main job: set up and build, then generate tensorized kernels for this machine, run them on
# random and extreme data, check them against a reference (bit-exact for integers), and show their
# speed: a 512^3 int8 GEMM (vpdpbusd), the same in bf16 (vdpbf16ps) and a ResNet-50 3x3 convolution
# (plain vector code, with a warning, on a CPU without those instructions); then Arm kernels
# (usmmla, bfmmla) checked and counted under qemu-aarch64, and a Tensor Core GEMM (mma.sync) checked
# through its host lowering.
# Finally write one kernel library (shared object + C header) to build/demo-kernels.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
tisa=build/bin/tisa
echo
echo "== tisa isa list (the instruction descriptions and how this machine runs them)"
$tisa isa list
for args in "gemm --m 512 --n 512 --k 512 --types u8,s8,s32" \
            "gemm --m 512 --n 512 --k 512 --types bf16,bf16,f32" \
            "conv2d --n 1 --h 56 --w 56 --c 64 --k 64 --r 3 --s 3 --pad 1 --types s8,s8,s32"; do
  echo
  echo "== tisa run $args"
  # shellcheck disable=SC2086
  $tisa run $args
done
# One kernel for every m (here BERT's projection; the batch x sequence length known at run time):
# checked at m = 1, 37 and 128, timed at 128.
echo
echo "== tisa run gemm --m '?' --n 768 --k 768 --types u8,s8,s32 --at 1,37,128"
$tisa run gemm --m '?' --n 768 --k 768 --types u8,s8,s32 --at 1,37,128
# Arm kernels, on any host: cross-compiled, checked and counted under qemu-aarch64 (no time).
for args in "gemm --m 256 --n 256 --k 256 --types u8,s8,s32 --target neoverse-v2" \
            "gemm --m 128 --n 768 --k 768 --types bf16,bf16,f32 --target neoverse-v2"; do
  echo
  echo "== tisa run $args"
  # shellcheck disable=SC2086
  $tisa run $args
done
# A Tensor Core kernel, on any host: PTX and ptxas's figures, and the same kernel IR run on the host
# with each mma.sync on the warp-level reference (no GPU here, no time).
echo
echo "== tisa run gemm --m 256 --n 256 --k 256 --types u8,s8,s32 --target sm_80"
$tisa run gemm --m 256 --n 256 --k 256 --types u8,s8,s32 --target sm_80
echo
echo "== tisa gen gemm --m 128 --n 768 --k 768 --types u8,s8,s32 -o build/demo-kernels"
$tisa gen gemm --m 128 --n 768 --k 768 --types u8,s8,s32 -o build/demo-kernels
echo
echo "== tisa-bench: the 512^3 GEMMs against oneDNN and libxsmm on one thread (scripts/bench.sh runs all)"
build/bin/tisa-bench --filter "square 512x512x512" --threads 1 --repetitions 3 \
  --report build/demo-bench > /dev/null
sed -n '/^## 1 thread/,/^Geomean/p' build/demo-bench/results.md
