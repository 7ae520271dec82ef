func.func @f(%i: memref<1x11x13x8xi8>, %w: memref<3x3x8x18xi8>, %o: memref<1x18x9x11xi32>) {
  linalg.generic {indexing_maps = [affine_map<(n,oh,ow,f,kh,kw,c)->(n,oh+kh,ow+kw,c)>, affine_map<(n,oh,ow,f,kh,kw,c)->(kh,kw,c,f)>, affine_map<(n,oh,ow,f,kh,kw,c)->(n,f,oh,ow)>],
     iterator_types = ["parallel","parallel","parallel","parallel","reduction","reduction","reduction"]}
     ins(%i, %w : memref<1x11x13x8xi8>, memref<3x3x8x18xi8>) outs(%o : memref<1x18x9x11xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xw = arith.extui %x : i8 to i32
    %yw = arith.extsi %y : i8 to i32
    %p = arith.muli %xw, %yw : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}
