func.func @f(%a: memref<33x67xi8>, %b: memref<67x35xi8>, %c: memref<33x35xi16>) {

  linalg.generic {indexing_maps = [affine_map<(m,n,k)->(m,k)>, affine_map<(m,n,k)->(k,n)>, affine_map<(m,n,k)->(m,n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<33x67xi8>, memref<67x35xi8>) outs(%c : memref<33x35xi16>) {
  ^bb0(%x: i8, %y: i8, %acc: i16):
    %xw = arith.extui %x : i8 to i16
    %yw = arith.extsi %y : i8 to i16
    %p = arith.muli %xw, %yw : i16
    %s = arith.addi %acc, %p : i16
    linalg.yield %s : i16
  }
  return
}
