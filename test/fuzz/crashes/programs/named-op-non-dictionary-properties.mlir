// MLIR 22's parser segfaults on a named linalg op whose properties are not a
// dictionary (mlir-opt-22 crashes on this file too); tisa's parseModule turns
// the crash into an error.
func.func @f(%a: tensor<4x4xi8>, %b: tensor<4x4xi8>, %o: tensor<4x4xi32>) -> tensor<4x4xi32> {
  %r = linalg.matmul <1> ins(%a, %b : tensor<4x4xi8>, tensor<4x4xi8>) outs(%o : tensor<4x4xi32>) -> tensor<4x4xi32>
  return %r : tensor<4x4xi32>
}
