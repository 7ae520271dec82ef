// An s8 x s8 GEMM (linalg.matmul extends signed) on tensors whose M only run time knows: bufferized, then planned and split
// like the memref program (the returned tensor is an output memref the caller provides).
func.func @dynt(%a: tensor<?x64xi8>, %b: tensor<64x48xi8>, %init: tensor<?x48xi32>) -> tensor<?x48xi32> {
  %z = arith.constant 0 : i32
  %f = linalg.fill ins(%z : i32) outs(%init : tensor<?x48xi32>) -> tensor<?x48xi32>
  %r = linalg.matmul ins(%a, %b : tensor<?x64xi8>, tensor<64x48xi8>) outs(%f : tensor<?x48xi32>) -> tensor<?x48xi32>
  return %r : tensor<?x48xi32>
}
