// -tisa-select-plan puts the plan and the schedule into the IR; -tisa-tensorize
// applies what the attributes say (a schedule given as an option or by hand
// overrides the default); bad attributes are errors on the op.
// RUN: tisa-opt %s --split-input-file --tisa-select-plan=target=znver4 -verify-diagnostics | FileCheck %s --check-prefix=SELECT
// RUN: tisa-opt %s --split-input-file "--tisa-select-plan=target=znver4 schedule=unroll=3x1x1,block=0,order=lanes-outer" -verify-diagnostics | FileCheck %s --check-prefix=OPTION
// RUN: tisa-opt %s --split-input-file "--tisa-select-plan=target=znver4 schedule=unroll=3x1x1,block=0,order=lanes-outer" --tisa-split-pack=target=znver4 --tisa-tensorize=target=znver4 -verify-diagnostics | FileCheck %s --check-prefix=APPLY

// SELECT-LABEL: func.func @gemm
// SELECT:         linalg.generic {{.*}} attrs =  {tisa.plan = #tisa.plan<"vpdpbusd.zmm", [n = [1], k = [2]]>, tisa.schedule = #tisa.schedule<unroll = [{{[0-9]+}}, {{[0-9]+}}, 1]{{.*}}>}
// OPTION-LABEL: func.func @gemm
// OPTION:         tisa.schedule = #tisa.schedule<unroll = [3, 1, 1], lanes_outer>
// APPLY-LABEL: func.func @gemm
// APPLY-NOT:     linalg.matmul
// APPLY:         tisa.apply "vpdpbusd.zmm"
// APPLY-DAG:     {tisa.loop = "parallel", tisa.unroll = 3 : i64}
// APPLY-DAG:     {tisa.loop = "lanes"}
func.func @gemm(%a: memref<8x64xi8>, %b: memref<64x32xi8>, %c: memref<8x32xi32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<8x64xi8>, memref<64x32xi8>) outs(%c : memref<8x32xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xw = arith.extui %x : i8 to i32
    %yw = arith.extsi %y : i8 to i32
    %p = arith.muli %xw, %yw : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}

// -----

// A schedule written on the op by hand wins over the option.
// SELECT-LABEL: func.func @by_hand
// SELECT:         linalg.matmul {tisa.plan = #tisa.plan<"vpdpbusd.zmm", [n = [1], k = [2]], swapped>, tisa.schedule = #tisa.schedule<unroll = [2, 2, 1]>}
// OPTION-LABEL: func.func @by_hand
// OPTION:         tisa.schedule = #tisa.schedule<unroll = [2, 2, 1]>
// APPLY-LABEL: func.func @by_hand
// APPLY-DAG:     {tisa.loop = "parallel", tisa.unroll = 2 : i64}
// APPLY-DAG:     {tisa.loop = "lanes", tisa.unroll = 2 : i64}
func.func @by_hand(%a: memref<8x64xi8>, %b: memref<64x64xi8>, %c: memref<8x64xi32>) {
  linalg.matmul {tisa.schedule = #tisa.schedule<unroll = [2, 2, 1]>}
      ins(%a, %b : memref<8x64xi8>, memref<64x64xi8>) outs(%c : memref<8x64xi32>)
  return
}

// -----

// A plan that does not fit the contraction.
func.func @negative_plan(%a: memref<8x64xi8>, %b: memref<64x32xi8>, %c: memref<8x32xi32>) {
  // expected-error @below {{tisa.plan #tisa.plan<"vpdpbusd.zmm", [n = [2], k = [1]]>: 'n' is a parallel loop; program loop 2 ('k') is not}}
  linalg.matmul {tisa.plan = #tisa.plan<"vpdpbusd.zmm", [n = [2], k = [1]]>}
      ins(%a, %b : memref<8x64xi8>, memref<64x32xi8>) outs(%c : memref<8x32xi32>)
  return
}

// -----

// A schedule that does not fit the kernel: unrolling the reduction.
func.func @negative_schedule(%a: memref<8x64xi8>, %b: memref<64x32xi8>, %c: memref<8x32xi32>) {
  // expected-error @below {{tisa.schedule #tisa.schedule<unroll = [1, 1, 2]>: loop 2 is a reduction}}
  linalg.matmul {tisa.schedule = #tisa.schedule<unroll = [1, 1, 2]>}
      ins(%a, %b : memref<8x64xi8>, memref<64x32xi8>) outs(%c : memref<8x32xi32>)
  return
}

// -----

// The attributes are typed (test/lit/passes/plan-attrs.mlir).
func.func @negative_type(%a: memref<8x64xi8>, %b: memref<64x32xi8>, %c: memref<8x32xi32>) {
  // expected-error @below {{'tisa.schedule' must be a #tisa.schedule on a linalg op, not 3 : i64}}
  linalg.matmul {tisa.schedule = 3}
      ins(%a, %b : memref<8x64xi8>, memref<64x32xi8>) outs(%c : memref<8x32xi32>)
  return
}

// -----

func.func @negative_text_plan(%a: memref<8x64xi8>, %b: memref<64x32xi8>, %c: memref<8x32xi32>) {
  // expected-error @below {{'tisa.plan' must be a #tisa.plan on a linalg op, not "vpdpbusd.zmm"}}
  linalg.matmul {tisa.plan = "vpdpbusd.zmm"}
      ins(%a, %b : memref<8x64xi8>, memref<64x32xi8>) outs(%c : memref<8x32xi32>)
  return
}

// -----

// A schedule of another loop nest.
func.func @negative_schedule_loops(%a: memref<8x64xi8>, %b: memref<64x32xi8>, %c: memref<8x32xi32>) {
  // expected-error @below {{tisa.schedule #tisa.schedule<unroll = [2, 2]>: the schedule unrolls 2 loops but the kernel has 3}}
  linalg.matmul {tisa.schedule = #tisa.schedule<unroll = [2, 2]>}
      ins(%a, %b : memref<8x64xi8>, memref<64x32xi8>) outs(%c : memref<8x32xi32>)
  return
}

// -----

// tisa.loop_blocks pairs a loop with a positive block size (planKernel writes it for filters
// blocked to fit L2; test/lit/passes/split-dynamic.mlir's @filter_blocks).
func.func @negative_blocks(%a: memref<8x64xi8>, %b: memref<64x32xi8>, %c: memref<8x32xi32>) {
  // expected-error @below {{'tisa.loop_blocks' must be pairs of a loop number and a positive block size (array<i64>) on a linalg op, not array<i64: 1, 0>}}
  linalg.matmul {tisa.loop_blocks = array<i64: 1, 0>}
      ins(%a, %b : memref<8x64xi8>, memref<64x32xi8>) outs(%c : memref<8x32xi32>)
  return
}

// -----

func.func @negative_block_loop(%a: memref<8x64xi8>, %b: memref<64x32xi8>, %c: memref<8x32xi32>) {
  // expected-error @below {{'tisa.loop_blocks' must be pairs of a loop number and a positive block size (array<i64>) on a linalg op, not array<i64: 3, 16>}}
  linalg.matmul {tisa.loop_blocks = array<i64: 3, 16>}
      ins(%a, %b : memref<8x64xi8>, memref<64x32xi8>) outs(%c : memref<8x32xi32>)
  return
}
