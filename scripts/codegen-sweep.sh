#!/usr/bin/env bash
# Generates a fixed set of kernel libraries with a built tisa and prints one
# digest per library (its tensorized IR and its object's code, without the
# build's paths), for checking that a restructuring of the code generator
# changes no generated code: run it before and after, and diff the outputs.
#
#   scripts/codegen-sweep.sh [BUILD_DIR] > before.txt
#   ... change, rebuild ...
#   scripts/codegen-sweep.sh [BUILD_DIR] > after.txt && diff before.txt after.txt
#
# The set: GEMM and conv2d shapes across tile boundaries, padded and strided
# convolutions, every type pair, the x86 targets (vector lanes and AMX tiles),
# an Arm target (and SVE), explicit schedules (edge tiles, fused rows, panels, blocks),
# and `tisa gen FILE.mlir`.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${1:-build}"
TISA="$BUILD_DIR/bin/tisa"
OBJCOPY=/usr/lib/llvm-22/bin/llvm-objcopy
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# No tuned schedules from the user's cache.
export TISA_CACHE_DIR="$work/cache"

text() { # DIR: the digest of its .so's code
  "$OBJCOPY" -O binary --only-section=.text "$1"/lib*.so "$1/text.bin"
  sha256sum "$1/text.bin" | cut -c1-16
}

digest() { # NAME DIR: the IR and the .so's code
  echo "$1 ir=$(sha256sum "$2"/*.mlir | cut -c1-16) text=$(text "$2")"
}

gen() { # NAME ARGS...
  local name="$1"; shift
  local dir="$work/$name"
  if "$TISA" gen "$@" --emit-ir -o "$dir" > "$dir.log" 2>&1; then
    digest "$name" "$dir"
  else
    echo "$name FAILED: $(tail -1 "$dir.log")"
  fi
}

for target in znver4 cascadelake sapphirerapids neoverse-n1; do
  types=(u8,s8,s32 s8,s8,s32 u8,u8,s32 bf16,bf16,f32)
  for t in "${types[@]}"; do
    for shape in "1 1 1" "17 15 65" "64 64 64" "97 131 67" "128 256 512" "1 1024 1024"; do
      read -r m n k <<< "$shape"
      gen "gemm-$target-$t-${m}x${n}x${k}" gemm --m "$m" --n "$n" --k "$k" --types "$t" --target "$target"
    done
    gen "conv-$target-$t-3x3p1" conv2d --h 14 --w 14 --c 64 --k 64 --r 3 --s 3 --pad 1 --types "$t" --target "$target"
    gen "conv-$target-$t-7x7s2c3" conv2d --h 30 --w 30 --c 3 --k 64 --r 7 --s 7 --stride 2 --pad 3 --types "$t" --target "$target"
    gen "conv-$target-$t-1x1" conv2d --n 2 --h 7 --w 7 --c 256 --k 96 --r 1 --s 1 --types "$t" --target "$target"
  done
done
# SVE (vector-length agnostic) kernels, asked for by name.
for isa in sve.sdot:s8,s8,s32 sve.udot:u8,u8,s32 sve.smmla:s8,s8,s32 sve.usmmla:u8,s8,s32 sve.ummla:s8,u8,s32 sve.bfmmla:bf16,bf16,f32; do
  t="${isa#*:}"; isa="${isa%%:*}"
  gen "gemm-$isa-97x131x67" gemm --m 97 --n 131 --k 67 --types "$t" --target neoverse-v1 --isa "$isa"
  gen "conv-$isa-3x3p1" conv2d --h 14 --w 14 --c 64 --k 64 --r 3 --s 3 --pad 1 --types "$t" --target neoverse-v1 --isa "$isa"
done
gen "gemm-s16" gemm --m 33 --n 48 --k 70 --types s16,s16,s32 --target znver4
for schedule in "unroll=3x2x1,block=0,order=lanes-outer" "unroll=4x1x1,block=64,order=lanes-inner,panel=32"; do
  gen "gemm-schedule-$schedule" gemm --m 96 --n 160 --k 128 --types u8,s8,s32 --target znver4 --schedule "$schedule"
done
gen "conv-fused" conv2d --h 7 --w 7 --c 64 --k 64 --r 3 --s 3 --pad 1 --types u8,s8,s32 --target znver4 \
  --schedule "unroll=1x1x6x1x1x1x1,block=0,order=lanes-inner,panel=64,fuse=1"
gen "conv-edge" conv2d --h 14 --w 14 --c 64 --k 64 --r 3 --s 3 --pad 1 --types u8,s8,s32 --target znver4 \
  --schedule "unroll=1x2x6x1x1x1x1,block=0,order=lanes-inner,panel=64,edge=4"
for f in test/lit/gen/Inputs/*.mlir; do
  dir="$work/file-$(basename "$f" .mlir)"
  if "$TISA" gen "$f" --target znver4 -o "$dir" > "$dir.log" 2>&1; then
    echo "file-$(basename "$f") text=$(text "$dir")"
  else
    echo "file-$(basename "$f") FAILED: $(tail -1 "$dir.log")"
  fi
done
