// -tisa-gpu-to-host: a kernel with a barrier and a warp-level mma becomes a host function that runs
// every block in turn; within a block each phase (the ops between cuts) runs for every thread in a
// loop, values that cross a cut live in per-thread buffers, workgroup memory is one buffer per
// block, and the mma runs once per warp through tisa_emulate_mma on the lanes' fragments.
// RUN: tisa-opt %s --split-input-file --tisa-gpu-to-host -verify-diagnostics | FileCheck %s

module attributes {gpu.container_module} {
  gpu.module @k_kernels {
    gpu.func @k(%out: memref<64xf32>) workgroup(%shared: memref<64xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %tid = gpu.thread_id x
      %c1 = arith.constant 1.0 : f32
      memref.store %c1, %shared[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %v = memref.load %shared[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
      %h = arith.truncf %v : f32 to f16
      %a = vector.broadcast %h : f16 to vector<4xf16>
      %b = arith.constant dense<1.0> : vector<2xf16>
      %c = arith.constant dense<0.0> : vector<4xf32>
      %d = tisa.apply "mma.m16n8k8.f16f16f32"(%a, %b, %c) {accumulator = 2 : i64, intrinsic = "llvm.nvvm.mma.m16n8k8.row.col.f32.f32", order = array<i64: 0, 0, 1, 2, 2, 2, 2>, signature = (vector<2xf16>, vector<2xf16>, vector<2xf16>, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>, tisa.ptx = "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32"} : (vector<4xf16>, vector<2xf16>, vector<4xf32>) -> vector<4xf32>
      %e = vector.extract %d[0] : f32 from vector<4xf32>
      memref.store %e, %out[%tid] : memref<64xf32>
      gpu.return
    }
  }
}

// CHECK-NOT:   gpu.module
// CHECK-LABEL: func.func private @tisa_emulate_mma(i64, i64, i64, i64, i64)
// CHECK-LABEL: func.func private @k_block(
// CHECK-SAME:    %[[OUT:.*]]: memref<64xf32>, %{{.*}}: index, %{{.*}}: index)
// Per-thread buffers for what crosses a cut: the mma's inputs and its result.
// CHECK-DAG:     memref.alloc() : memref<64xvector<4xf16>>
// CHECK-DAG:     memref.alloc() : memref<64xvector<4xf32>>
// The block's shared memory.
// CHECK:         %[[SHARED:.*]] = memref.alloc() : memref<64xf32>
// Phase 1: every thread stores, then (the barrier) phase 2 loads.
// CHECK:         scf.for %[[T1:.*]] = %{{.*}} to %{{.*}} step
// CHECK:           memref.store %{{.*}}, %[[SHARED]][%[[T1]]]
// CHECK:         scf.for %[[T2:.*]] = %{{.*}} to %{{.*}} step
// CHECK:           memref.load %[[SHARED]][%[[T2]]]
// CHECK:           vector.broadcast
// The uniform B and C fragments are copied in for every thread.
// CHECK:         scf.for
// CHECK:         scf.for
// One mma per warp: 64 threads, two warps, 32 lanes of 4 f16 apart (256 bytes).
// CHECK:         arith.constant {{.*}} : i64
// CHECK:         scf.for %[[W:.*]] = %{{.*}} to %{{.*}} step
// CHECK:           arith.constant 256 : i64
// CHECK:           call @tisa_emulate_mma(
// The last phase reads the mma's result per thread.
// CHECK:         scf.for %[[T3:.*]] = %{{.*}} to %{{.*}} step
// CHECK:           vector.extract
// CHECK:           memref.store %{{.*}}, %[[OUT]][%[[T3]]]
// CHECK:         memref.dealloc %[[SHARED]]
// CHECK-LABEL: func.func @k_host(
// CHECK-SAME:    %{{.*}}: memref<64xf32>, %[[GX:.*]]: index, %[[GY:.*]]: index) attributes {llvm.emit_c_interface}
// CHECK:         scf.for %[[BY:.*]] = %{{.*}} to %[[GY]]
// CHECK:           scf.for %[[BX:.*]] = %{{.*}} to %[[GX]]
// CHECK:             call @k_block(%{{.*}}, %[[BX]], %[[BY]])

// -----

module attributes {gpu.container_module} {
  gpu.module @k_kernels {
    gpu.func @k(%out: memref<64xf32>, %flag: i1) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      // expected-error @+1 {{threads synchronize inside this op; the host lowering cuts phases only at the top level of a kernel or of a loop}}
      scf.if %flag {
        gpu.barrier
      }
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k_kernels {
    // expected-error @+1 {{the host lowering needs a one-dimensional known_block_size}}
    gpu.func @k(%out: memref<64xf32>) kernel attributes {known_block_size = array<i32: 8, 8, 1>} {
      gpu.return
    }
  }
}

// -----

// Without known_block_size (it crashed here).
module attributes {gpu.container_module} {
  gpu.module @k_kernels {
    // expected-error @+1 {{the host lowering needs a one-dimensional known_block_size}}
    gpu.func @k(%out: memref<64xf32>) kernel {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k_kernels {
    gpu.func @k(%out: memref<64xf32>, %n: index) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %tid = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      // expected-error @+1 {{a loop that synchronizes threads must have the same bounds in every thread}}
      scf.for %i = %c0 to %tid step %c1 {
        gpu.barrier
      }
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k_kernels {
    gpu.func @k(%out: memref<64xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %a = arith.constant dense<1.0> : vector<4xf16>
      %b = arith.constant dense<1.0> : vector<2xf16>
      %c = arith.constant dense<0.0> : vector<2xf32>
      // expected-error @+1 {{mma operand C ('vector<2xf32>') is not one lane's fragment of 'mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32': 4 elements of 32 bits}}
      %d = tisa.apply "mma.m16n8k8.f16f16f32"(%a, %b, %c) {accumulator = 2 : i64, intrinsic = "llvm.nvvm.mma.m16n8k8.row.col.f32.f32", order = array<i64: 0, 0, 1, 2, 2>, signature = (vector<2xf16>, vector<2xf16>, vector<2xf16>, f32, f32) -> !llvm.struct<(f32, f32)>, tisa.ptx = "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32"} : (vector<4xf16>, vector<2xf16>, vector<2xf32>) -> vector<2xf32>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k_kernels {
    gpu.func @k(%out: memref<64xindex>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      // expected-error @+1 {{the host lowering of GPU kernels does not model 'gpu.lane_id' here (x thread ids, x/y block ids, barriers)}}
      %l = gpu.lane_id
      %c0 = arith.constant 0 : index
      memref.store %l, %out[%c0] : memref<64xindex>
      gpu.return
    }
  }
}
