// f32 GEMMs on sm_80: the tf32 mma reads its f32 registers as tf32, so it
// matches a plain f32 program only when the user allows reduced precision,
// and the plan says so; a program that itself reads its inputs as tf32 (the
// same truncation) matches as it is.
// RUN: tisa match %s --target sm_80 --all 2>&1 | FileCheck %s --check-prefix=STRICT
// RUN: tisa match %s --target sm_80 --allow-reduced-precision 2>&1 | FileCheck %s --check-prefix=ALLOW

#A = affine_map<(m, n, k) -> (m, k)>
#B = affine_map<(m, n, k) -> (k, n)>
#C = affine_map<(m, n, k) -> (m, n)>

// STRICT: tf32.mlir:[[@LINE+9]]:3: linalg.generic (m=256 n=256 k=256r; f32 x f32 -> f32
// STRICT: no instruction applies on sm_80
// STRICT: mma.m16n8k8.tf32tf32f32: the instruction reads its f32 inputs as tf32 (truncated), the program multiplies them in full f32 (--allow-reduced-precision accepts this)
// ALLOW: tf32.mlir:[[@LINE+6]]:3: linalg.generic (m=256 n=256 k=256r; f32 x f32 -> f32
// ALLOW: instruction: mma.m16n8k8.tf32tf32f32
// ALLOW: relaxation: accumulation order: unspecified by the vendor
// ALLOW-NEXT: relaxation: ins0 (f32) read as tf32 (truncated), allowed by --allow-reduced-precision
// ALLOW-NEXT: relaxation: ins1 (f32) read as tf32 (truncated), allowed by --allow-reduced-precision
func.func @sgemm(%a: memref<256x256xf32>, %b: memref<256x256xf32>, %c: memref<256x256xf32>) {
  linalg.generic {indexing_maps = [#A, #B, #C], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<256x256xf32>, memref<256x256xf32>) outs(%c : memref<256x256xf32>) {
    ^bb0(%x: f32, %y: f32, %s: f32):
      %p = arith.mulf %x, %y : f32
      %t = arith.addf %s, %p : f32
      linalg.yield %t : f32
  }
  return
}

// STRICT: tf32.mlir:[[@LINE+7]]:3: linalg.generic (m=64 n=64 k=64r; f32 read as tf32 (truncated) x f32 read as tf32 (truncated) -> f32)
// STRICT: instruction: mma.m16n8k8.tf32tf32f32
// STRICT-NOT: allowed by --allow-reduced-precision
// STRICT: candidates (best first):
// ALLOW: tf32.mlir:[[@LINE+3]]:3: linalg.generic
// ALLOW-NOT: allowed by --allow-reduced-precision
func.func @tf32_gemm(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  linalg.generic {indexing_maps = [#A, #B, #C], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>) {
    ^bb0(%x: f32, %y: f32, %s: f32):
      %xt = arith.truncf %x toward_zero : f32 to tf32
      %yt = arith.truncf %y toward_zero : f32 to tf32
      %xw = arith.extf %xt : tf32 to f32
      %yw = arith.extf %yt : tf32 to f32
      %p = arith.mulf %xw, %yw : f32
      %t = arith.addf %s, %p : f32
      linalg.yield %t : f32
  }
  return
}

// STRICT: tf32.mlir:[[@LINE+5]]:3: linalg.generic (m=64 n=64 k=64r; f32 read as tf32 (rounded to nearest even)
// STRICT: no instruction applies on sm_80
// STRICT: mma.m16n8k8.tf32tf32f32: ins0 is read as tf32 (rounded to nearest even), the instruction's operand 0 reads tf32 (truncated)
// ALLOW: no instruction applies on sm_80
func.func @tf32_rounded_gemm(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  linalg.generic {indexing_maps = [#A, #B, #C], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>) {
    ^bb0(%x: f32, %y: f32, %s: f32):
      %xt = arith.truncf %x to_nearest_even : f32 to tf32
      %yt = arith.truncf %y to_nearest_even : f32 to tf32
      %xw = arith.extf %xt : tf32 to f32
      %yw = arith.extf %yt : tf32 to f32
      %p = arith.mulf %xw, %yw : f32
      %t = arith.addf %s, %p : f32
      linalg.yield %t : f32
  }
  return
}

// A program that reads one input as tf32 itself: the other one is narrowed by the
// instruction only with --allow-reduced-precision, and the plan lists that one.
// STRICT: tf32.mlir:[[@LINE+7]]:3: linalg.generic (m=64 n=64 k=64r; f32 read as tf32 (truncated) x f32 -> f32
// STRICT: no instruction applies on sm_80
// STRICT: mma.m16n8k8.tf32tf32f32: the instruction's operand 1 reads ins1 (f32) as tf32 (truncated) (--allow-reduced-precision accepts this)
// ALLOW: tf32.mlir:[[@LINE+4]]:3: linalg.generic (m=64 n=64 k=64r; f32 read as tf32 (truncated) x f32 -> f32
// ALLOW: instruction: mma.m16n8k8.tf32tf32f32
// ALLOW: relaxation: ins1 (f32) read as tf32 (truncated), allowed by --allow-reduced-precision
func.func @half_tf32_gemm(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  linalg.generic {indexing_maps = [#A, #B, #C], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>) {
    ^bb0(%x: f32, %y: f32, %s: f32):
      %xt = arith.truncf %x toward_zero : f32 to tf32
      %xw = arith.extf %xt : tf32 to f32
      %p = arith.mulf %xw, %y : f32
      %t = arith.addf %s, %p : f32
      linalg.yield %t : f32
  }
  return
}
