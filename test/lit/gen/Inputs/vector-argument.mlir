func.func @f(%a: vector<4xi8>, %c: memref<4xi8>) {
  %i = arith.constant 0 : index
  vector.store %a, %c[%i] : memref<4xi8>, vector<4xi8>
  return
}
