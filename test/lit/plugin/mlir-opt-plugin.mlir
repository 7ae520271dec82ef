// tisa's dialect and passes load into Debian's own mlir-opt-22 as plugins (lib/TisaPlugin.so):
// the dialect half parses tisa ops, the pass half brings every tisa pass. Passes from a plugin are
// registered after mlir-opt has parsed its flags, so they are named in --pass-pipeline.
// In a sanitizer build (scripts/sanitize.sh) the uninstrumented mlir-opt runs with the sanitizer's
// runtime preloaded, so the instrumented plugin loads into it and is checked too.
// RUN: %preload_sanitizer mlir-opt --load-dialect-plugin=%tisa_plugin --load-pass-plugin=%tisa_plugin %s \
// RUN:   "--pass-pipeline=builtin.module(func.func(tisa-select-plan{target=znver4},tisa-split-pack{target=znver4}))" \
// RUN:   | FileCheck %s --check-prefix=SPLIT
// RUN: %preload_sanitizer mlir-opt --load-dialect-plugin=%tisa_plugin --load-pass-plugin=%tisa_plugin %s \
// RUN:   "--pass-pipeline=builtin.module(func.func(tisa-select-plan{target=znver4},tisa-split-pack{target=znver4},tisa-tensorize{target=znver4},tisa-register-tile),tisa-legalize-instructions)" \
// RUN:   | FileCheck %s --check-prefix=LOWERED
// A program on tensors: tisa-bufferize (the pipeline tisa gen runs first) comes with the plugin.
// RUN: %preload_sanitizer mlir-opt --load-dialect-plugin=%tisa_plugin --load-pass-plugin=%tisa_plugin %S/../gen/Inputs/matmul-tensors.mlir \
// RUN:   "--pass-pipeline=builtin.module(tisa-bufferize,func.func(tisa-select-plan{target=znver4},tisa-split-pack{target=znver4}))" \
// RUN:   | FileCheck %s --check-prefix=TENSORS
// Without the dialect plugin mlir-opt cannot read what the split wrote.
// RUN: %preload_sanitizer mlir-opt --load-dialect-plugin=%tisa_plugin --load-pass-plugin=%tisa_plugin %s \
// RUN:   "--pass-pipeline=builtin.module(func.func(tisa-select-plan{target=znver4},tisa-split-pack{target=znver4}))" \
// RUN:   | not mlir-opt 2>&1 | FileCheck %s --check-prefix=NODIALECT

// SPLIT-LABEL: func.func @gemm
// SPLIT:         tisa.pack %arg1 into %{{.*}} : memref<64x32xi8>, memref<2048xi8>
// SPLIT:           linalg.matmul {tisa.plan = #tisa.plan<"vpdpbusd.zmm", {{.*}}>, tisa.schedule = #tisa.schedule<{{.*}}>}
// SPLIT:         tisa.compute %arg0, %{{.*}} -> %arg2 : memref<8x64xi8>, memref<2048xi8>, memref<8x32xi32>

// LOWERED-LABEL: func.func @gemm
// LOWERED-NOT:   tisa.{{pack|compute|apply}}
// LOWERED:       llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// LOWERED-NOT:   tisa.{{pack|compute|apply}}

// NODIALECT: error: Dialect `tisa' not found for custom op 'tisa.pack'
func.func @gemm(%a: memref<8x64xi8>, %b: memref<64x32xi8>, %c: memref<8x32xi32>) {
  linalg.matmul ins(%a, %b : memref<8x64xi8>, memref<64x32xi8>) outs(%c : memref<8x32xi32>)
  return
}

// TENSORS: tisa.compute
