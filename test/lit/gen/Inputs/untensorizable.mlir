// Ops linalg calls contractions that tisa cannot read as multiply-accumulates
// (an i1 matmul's and/or body, a reduction of no iterations) are left as plain
// code with a warning at their location, as any contraction no instruction
// takes; a fill and an elementwise op are not programs and get no word.
func.func @bits(%A: memref<16x64xi1>, %B: memref<64x32xi1>, %C: memref<16x32xi1>) {
  linalg.matmul ins(%A, %B : memref<16x64xi1>, memref<64x32xi1>) outs(%C : memref<16x32xi1>)
  return
}
func.func @empty_k(%A: memref<16x0xi8>, %B: memref<0x32xi8>, %C: memref<16x32xi32>) {
  %z = arith.constant 0 : i32
  linalg.fill ins(%z : i32) outs(%C : memref<16x32xi32>)
  linalg.matmul ins(%A, %B : memref<16x0xi8>, memref<0x32xi8>) outs(%C : memref<16x32xi32>)
  linalg.add ins(%C, %C : memref<16x32xi32>, memref<16x32xi32>) outs(%C : memref<16x32xi32>)
  return
}
