// u8 x s8 -> s32 accumulated into C that already holds 1000 (the fill is
// not a zero, so the contraction reads C): odd in every dimension.
func.func @acc(%a: memref<17x67xi8>, %b: memref<67x33xi8>, %c: memref<17x33xi32>) {
  %init = arith.constant 1000 : i32
  linalg.fill ins(%init : i32) outs(%c : memref<17x33xi32>)
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<17x67xi8>, memref<67x33xi8>) outs(%c : memref<17x33xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xw = arith.extui %x : i8 to i32
    %yw = arith.extsi %y : i8 to i32
    %p = arith.muli %xw, %yw : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}
