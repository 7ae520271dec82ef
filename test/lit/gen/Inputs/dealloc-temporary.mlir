func.func @f(%a: memref<33x67xi8>, %b: memref<67x35xi8>, %b2: memref<35x19xi8>, %c: memref<33x35xi32>, %d: memref<33x19xi32>) {
  %z = arith.constant 0 : i32
  linalg.fill ins(%z : i32) outs(%c : memref<33x35xi32>)
  linalg.matmul ins(%a, %b : memref<33x67xi8>, memref<67x35xi8>) outs(%c : memref<33x35xi32>)
  %t = memref.alloc() : memref<33x35xi8>
  linalg.generic {indexing_maps = [affine_map<(m,n)->(m,n)>, affine_map<(m,n)->(m,n)>], iterator_types = ["parallel","parallel"]} ins(%c : memref<33x35xi32>) outs(%t : memref<33x35xi8>) {
  ^bb0(%x: i32, %o: i8):
    %s = arith.constant 8 : i32
    %y = arith.shrsi %x, %s : i32
    %q = arith.trunci %y : i32 to i8
    linalg.yield %q : i8
  }
  linalg.matmul ins(%t, %b2 : memref<33x35xi8>, memref<35x19xi8>) outs(%d : memref<33x19xi32>)
  memref.dealloc %t : memref<33x35xi8>
  return
}
