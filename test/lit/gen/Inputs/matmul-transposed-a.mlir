// A GEMM whose A is stored transposed ([K][M]): neither input runs along k
// in memory.
func.func @mta(%a: memref<70x33xi8>, %b: memref<70x48xi8>, %c: memref<33x48xi32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%c : memref<33x48xi32>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %b : memref<70x33xi8>, memref<70x48xi8>) outs(%c : memref<33x48xi32>)
  return
}
