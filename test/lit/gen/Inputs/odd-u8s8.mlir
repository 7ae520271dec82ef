// u8 x s8 -> s32 with no dimension a multiple of the instruction's lanes or
// group: K = 67 ends in a partial group, N = 33 in a partial register.
func.func @odd(%a: memref<17x67xi8>, %b: memref<67x33xi8>, %c: memref<17x33xi32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%c : memref<17x33xi32>)
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
