// Functions on memrefs that return memrefs they allocate: MLIR's C interface
// returns them through a pointer before the inputs.
func.func @one(%A: memref<16x64xi8>, %B: memref<64x32xi8>) -> memref<16x32xi32> {
  %C = memref.alloc() : memref<16x32xi32>
  %z = arith.constant 0 : i32
  linalg.fill ins(%z : i32) outs(%C : memref<16x32xi32>)
  linalg.matmul ins(%A, %B : memref<16x64xi8>, memref<64x32xi8>) outs(%C : memref<16x32xi32>)
  return %C : memref<16x32xi32>
}

func.func @two(%A: memref<16x64xi8>, %B: memref<64x32xi8>) -> (memref<16x32xi32>, memref<16xi32>) {
  %C = memref.alloc() : memref<16x32xi32>
  %S = memref.alloc() : memref<16xi32>
  %z = arith.constant 0 : i32
  linalg.fill ins(%z : i32) outs(%C : memref<16x32xi32>)
  linalg.fill ins(%z : i32) outs(%S : memref<16xi32>)
  linalg.matmul ins(%A, %B : memref<16x64xi8>, memref<64x32xi8>) outs(%C : memref<16x32xi32>)
  linalg.reduce ins(%C : memref<16x32xi32>) outs(%S : memref<16xi32>) dimensions = [1]
    (%x: i32, %acc: i32) {
      %s = arith.addi %x, %acc : i32
      linalg.yield %s : i32
    }
  return %C, %S : memref<16x32xi32>, memref<16xi32>
}
