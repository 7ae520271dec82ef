// -tisa-hoist-scratch: scratch buffers of static size that the generators allocate inside loops
// (and the branches of -tisa-split-dynamic's blocks) are allocated once per call. Each memref.alloc
// freed in its own block becomes a view of one pool allocated at the start of the function and
// freed before the return (below an op that is not sequential, it moves around the outermost loop
// or branch under it); a memref.alloca whose address stays in its iteration moves to the entry
// block. Anything else stays where it is.
// RUN: tisa-opt %s --split-input-file --allow-unregistered-dialect --tisa-hoist-scratch | FileCheck %s

// CHECK-LABEL: func.func @blocks
// CHECK-NEXT:    %[[S:.*]] = memref.alloca() {alignment = 64 : i64} : memref<32x32xi32>
// CHECK-NEXT:    %[[POOL:.*]] = memref.alloc() {alignment = 64 : i64} : memref<34816xi8>
// CHECK-NEXT:    %[[AT0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[B0:.*]] = memref.view %[[POOL]][%[[AT0]]][] : memref<34816xi8> to memref<256x128xi8>
// CHECK-NEXT:    %[[AT1:.*]] = arith.constant 32768 : index
// CHECK-NEXT:    %[[B1:.*]] = memref.view %[[POOL]][%[[AT1]]][] : memref<34816xi8> to memref<16x128xi8>
// CHECK:         scf.for
// CHECK-NOT:       memref.alloc
// CHECK:           memref.copy %{{.*}}, %[[B0]]
// CHECK-NOT:       memref.dealloc
// CHECK:         scf.if
// CHECK:           scf.for
// CHECK-NOT:         memref.alloc
// CHECK:             memref.copy %{{.*}}, %[[B1]]
// CHECK:             memref.store %{{.*}}, %[[S]]
// CHECK-NOT:         memref.dealloc
// CHECK:         memref.dealloc %[[POOL]]
// CHECK-NEXT:    return
func.func @blocks(%src: memref<256x128xi8>, %small: memref<16x128xi8>, %n: index, %odd: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %b = memref.alloc() {alignment = 64 : i64} : memref<256x128xi8>
    memref.copy %src, %b : memref<256x128xi8> to memref<256x128xi8>
    "test.use"(%b) : (memref<256x128xi8>) -> ()
    memref.dealloc %b : memref<256x128xi8>
  }
  scf.if %odd {
    scf.for %j = %c0 to %n step %c1 {
      %b = memref.alloc() {alignment = 64 : i64} : memref<16x128xi8>
      memref.copy %small, %b : memref<16x128xi8> to memref<16x128xi8>
      %s = memref.alloca() {alignment = 64 : i64} : memref<32x32xi32>
      %x = arith.constant 7 : i32
      memref.store %x, %s[%j, %c0] : memref<32x32xi32>
      "test.use"(%b) : (memref<16x128xi8>) -> ()
      memref.dealloc %b : memref<16x128xi8>
    }
  }
  return
}

// -----

// Under a loop whose iterations may run at once (scf.forall), a buffer is shared by no two of
// them: it leaves the loops inside one iteration only.
// CHECK-LABEL: func.func @concurrent
// CHECK:         scf.forall
// CHECK-NEXT:      %[[B:.*]] = memref.alloc() : memref<64xi8>
// CHECK-NEXT:      scf.for
// CHECK:             "test.use"(%[[B]])
// CHECK:           }
// CHECK-NEXT:      memref.dealloc %[[B]]
func.func @concurrent(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.forall (%t) in (4) {
    scf.for %i = %c0 to %n step %c1 {
      %b = memref.alloc() : memref<64xi8>
      "test.use"(%b) : (memref<64xi8>) -> ()
      memref.dealloc %b : memref<64xi8>
    }
  }
  return
}

// -----

// Left in place: a size that run time gives, a buffer never freed or freed elsewhere, a stack
// buffer whose address the next iteration gets, one already outside every loop.
// CHECK-LABEL: func.func @negative_stay
// CHECK:         memref.alloc() : memref<8xi8>
// CHECK:         scf.for
// CHECK-NEXT:      memref.alloc(%{{.*}}) : memref<?xi8>
// CHECK:           memref.alloc() : memref<16xi8>
// CHECK:           memref.alloc() : memref<32xi8>
// CHECK:           scf.if
// CHECK-NEXT:        memref.dealloc
// CHECK:           memref.alloca() : memref<4xi32>
// CHECK:           scf.yield
func.func @negative_stay(%n: index, %c: i1) -> memref<4xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %outside = memref.alloc() : memref<8xi8>
  %first = memref.alloca() : memref<4xi32>
  %last = scf.for %i = %c0 to %n step %c1 iter_args(%prev = %first) -> (memref<4xi32>) {
    %dyn = memref.alloc(%i) : memref<?xi8>
    "test.use"(%dyn) : (memref<?xi8>) -> ()
    memref.dealloc %dyn : memref<?xi8>
    %kept = memref.alloc() : memref<16xi8>
    "test.use"(%kept) : (memref<16xi8>) -> ()
    %maybe = memref.alloc() : memref<32xi8>
    scf.if %c {
      memref.dealloc %maybe : memref<32xi8>
    }
    %next = memref.alloca() : memref<4xi32>
    memref.copy %prev, %next : memref<4xi32> to memref<4xi32>
    scf.yield %next : memref<4xi32>
  }
  memref.dealloc %outside : memref<8xi8>
  return %last : memref<4xi32>
}

// -----

// Buffers of elements that are not integers or floats (index, complex, vectors) are not views of
// the pool's bytes: each moves out of the loop as its own allocation (it crashed on them).
// CHECK-LABEL: func.func @not_bytes
// CHECK:         memref.alloc() : memref<4xindex>
// CHECK:         memref.alloc() : memref<2xcomplex<f32>>
// CHECK:         scf.for
// CHECK-NOT:       memref.alloc
// CHECK:         }
// CHECK:         memref.dealloc
func.func @not_bytes(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %s = memref.alloc() : memref<4xindex>
    "test.use"(%s) : (memref<4xindex>) -> ()
    memref.dealloc %s : memref<4xindex>
    %z = memref.alloc() : memref<2xcomplex<f32>>
    "test.use"(%z) : (memref<2xcomplex<f32>>) -> ()
    memref.dealloc %z : memref<2xcomplex<f32>>
  }
  return
}
