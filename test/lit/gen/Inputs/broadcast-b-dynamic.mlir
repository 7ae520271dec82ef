func.func @f(%a: memref<?x?xi8>, %b: memref<?xi8>, %c: memref<?x?xi32>) {
  linalg.generic {indexing_maps = [affine_map<(m,n,k)->(m,k)>, affine_map<(m,n,k)->(k)>, affine_map<(m,n,k)->(m,n)>],
                  iterator_types = ["parallel","parallel","reduction"]}
      ins(%a, %b : memref<?x?xi8>, memref<?xi8>) outs(%c : memref<?x?xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xw = arith.extui %x : i8 to i32
    %yw = arith.extsi %y : i8 to i32
    %p = arith.muli %xw, %yw : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}
