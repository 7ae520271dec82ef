// -tisa-gpu-to-host on nvgpu.ldmatrix: a warp-collective read, so the phase is cut before it; each
// lane supplies one row address (kept in a per-thread buffer), and each lane's registers are then
// gathered from the rows its warp's lanes supplied: lane l takes from matrix i the elements at
// (l % 4) * (32 bits) into the row of lane 8 * i + l / 4.
// RUN: tisa-opt %s --split-input-file --tisa-gpu-to-host -verify-diagnostics | FileCheck %s

module attributes {gpu.container_module} {
  gpu.module @k_kernels {
    gpu.func @k(%out: memref<64xvector<4x2xf16>>) workgroup(%shared: memref<1024xf16, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %tid = gpu.thread_id x
      %c8 = arith.constant 8 : index
      %row = arith.muli %tid, %c8 : index
      %m = nvgpu.ldmatrix %shared[%row] {numTiles = 4 : i32, transpose = false} : memref<1024xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
      memref.store %m, %out[%tid] : memref<64xvector<4x2xf16>>
      gpu.return
    }
  }
}

// CHECK-LABEL: func.func private @k_block(
// CHECK-DAG:     %[[ROWS:.*]] = memref.alloc() : memref<64xindex>
// CHECK-DAG:     %[[REGS:.*]] = memref.alloc() : memref<64xvector<4x2xf16>>
// CHECK:         %[[SHARED:.*]] = memref.alloc() : memref<1024xf16>
// The first phase: each thread's row address.
// CHECK:         scf.for %[[T1:.*]] = %{{.*}} to %{{.*}} step
// CHECK:           arith.muli %[[T1]]
// CHECK:           memref.store %{{.*}}, %[[ROWS]][%[[T1]]]
// The gather: lane, the warp's first thread, quad and column, then matrix by matrix.
// CHECK:         scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step
// CHECK:           %[[LANE:.*]] = arith.remui %[[T]], %{{.*}}
// CHECK:           arith.subi %[[T]], %[[LANE]]
// CHECK:           arith.divui %[[LANE]]
// CHECK-COUNT-4:   memref.load %[[ROWS]]
// CHECK:           vector.from_elements {{.*}} : vector<4x2xf16>
// CHECK:           memref.store %{{.*}}, %[[REGS]][%[[T]]]

// -----

// .trans: lane l takes element j of matrix i at column l / 4 of the row lane 8 * i + 2 * (l % 4) + j
// supplied.
module attributes {gpu.container_module} {
  gpu.module @k_kernels {
    gpu.func @k(%out: memref<64xvector<1x2xf16>>) workgroup(%shared: memref<1024xf16, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %tid = gpu.thread_id x
      %m = nvgpu.ldmatrix %shared[%tid] {numTiles = 1 : i32, transpose = true} : memref<1024xf16, #gpu.address_space<workgroup>> -> vector<1x2xf16>
      memref.store %m, %out[%tid] : memref<64xvector<1x2xf16>>
      gpu.return
    }
  }
}

// CHECK-LABEL: func.func private @k_block(
// CHECK:         scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step
// CHECK:           %[[LANE:.*]] = arith.remui %[[T]], %{{.*}}
// CHECK:           %[[QUAD:.*]] = arith.divui %[[LANE]]
// CHECK:           %[[PAIR:.*]] = arith.muli %{{.*}}, %c2
// CHECK:           arith.muli
// CHECK:           arith.addi %[[PAIR]], %c0
// CHECK:           %[[ROW0:.*]] = memref.load
// CHECK:           arith.addi %[[ROW0]], %[[QUAD]]
// CHECK:           arith.addi %[[PAIR]], %c1
// CHECK:           %[[ROW1:.*]] = memref.load
// CHECK:           arith.addi %[[ROW1]], %[[QUAD]]
// CHECK:           vector.from_elements {{.*}} : vector<1x2xf16>

// -----

module attributes {gpu.container_module} {
  gpu.module @k_kernels {
    gpu.func @k(%out: memref<64xvector<1x2xf16>>) workgroup(%shared: memref<32x32xf16, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %tid = gpu.thread_id x
      %c0 = arith.constant 0 : index
      // expected-error @+1 {{the host lowering models ldmatrix from one block-wide one-dimensional buffer}}
      %m = nvgpu.ldmatrix %shared[%tid, %c0] {numTiles = 1 : i32, transpose = false} : memref<32x32xf16, #gpu.address_space<workgroup>> -> vector<1x2xf16>
      memref.store %m, %out[%tid] : memref<64xvector<1x2xf16>>
      gpu.return
    }
  }
}
