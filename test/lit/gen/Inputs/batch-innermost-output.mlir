
func.func @f(%a: memref<3x20x37xi8>, %b: memref<3x37x33xi8>, %c: memref<20x33x3xi32>) {
  linalg.generic {indexing_maps = [affine_map<(b,m,n,k)->(b,m,k)>, affine_map<(b,m,n,k)->(b,k,n)>, affine_map<(b,m,n,k)->(m,n,b)>],
                  iterator_types = ["parallel","parallel","parallel","reduction"]}
      ins(%a, %b : memref<3x20x37xi8>, memref<3x37x33xi8>) outs(%c : memref<20x33x3xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xw = arith.extsi %x : i8 to i32
    %yw = arith.extsi %y : i8 to i32
    %p = arith.muli %xw, %yw : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}
