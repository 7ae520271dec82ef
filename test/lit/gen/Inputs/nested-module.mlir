// A function in a nested module: refused with where it is (it was planned, never
// tensorized, and failed in a pass with "expected add/mul op in the body").
module {
  module @inner {
    func.func @mm(%A: memref<16x64xi8>, %B: memref<64x32xi8>, %C: memref<16x32xi32>) {
      linalg.matmul ins(%A, %B : memref<16x64xi8>, memref<64x32xi8>) outs(%C : memref<16x32xi32>)
      return
    }
  }
}
