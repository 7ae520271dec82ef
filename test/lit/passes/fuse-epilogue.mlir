// -tisa-fuse-epilogue: the first elementwise consumer of a tisa.compute's output moves into the
// compute's epilogue region (its accumulators then never reach memory); consumers it cannot move
// stay, with a warning that says why. The fused ops print and parse back.
// RUN: tisa-opt %s --split-input-file --tisa-split-pack=target=znver4 --tisa-fuse-epilogue -verify-diagnostics | FileCheck %s
// RUN: tisa-opt %s --split-input-file --tisa-split-pack=target=znver4 --tisa-fuse-epilogue | tisa-opt --split-input-file | FileCheck %s --check-prefix=ROUND

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
#col = affine_map<(m, n) -> (n)>

// A zero-filled local buffer of accumulators, a bias per column (read first) and ReLU: fused, the
// buffer, its fill and its release gone, the bias an epilogue operand after the accumulators.
// CHECK-LABEL: func.func @bias_relu
// CHECK-SAME:    (%[[A:.*]]: memref<33x70xi8>, %[[B:.*]]: memref<70x48xi8>, %[[BIAS:.*]]: memref<48xi32>, %[[D:.*]]: memref<33x48xi32>)
// CHECK-NOT:     linalg.fill
// CHECK:         tisa.pack %[[B]]
// CHECK:         tisa.compute %[[A]], %{{.*}} -> %[[D]] epilogue(%[[BIAS]] : memref<48xi32>) {overwrite}
// CHECK:         } epilogue {
// CHECK-NEXT:    ^bb0(%[[ACC:.*]]: memref<33x48xi32>, %[[BI:.*]]: memref<48xi32>, %[[OUT:.*]]: memref<33x48xi32>):
// CHECK-NEXT:      linalg.generic {indexing_maps = [#[[ID:.*]], #[[COL:.*]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[ACC]], %[[BI]] : memref<33x48xi32>, memref<48xi32>) outs(%[[OUT]] : memref<33x48xi32>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:      %[[S:.*]] = arith.addi %[[X]], %[[Y]] : i32
// CHECK-NEXT:      arith.maxsi %[[S]], %{{.*}} : i32
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     memref.alloc() : memref<33x48xi32>
// CHECK:         return
// ROUND-LABEL: func.func @bias_relu
// ROUND:         tisa.compute {{.*}} epilogue(
// ROUND:         } epilogue {
func.func @bias_relu(%a: memref<33x70xi8>, %b: memref<70x48xi8>, %bias: memref<48xi32>, %d: memref<33x48xi32>) {
  %c = memref.alloc() : memref<33x48xi32>
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%c : memref<33x48xi32>)
  linalg.matmul ins(%a, %b : memref<33x70xi8>, memref<70x48xi8>) outs(%c : memref<33x48xi32>)
  linalg.generic {indexing_maps = [#col, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%bias, %c : memref<48xi32>, memref<33x48xi32>) outs(%d : memref<33x48xi32>) {
  ^bb0(%bv: i32, %cv: i32, %o: i32):
    %s = arith.addi %cv, %bv : i32
    %r = arith.maxsi %s, %zero : i32
    linalg.yield %r : i32
  }
  memref.dealloc %c : memref<33x48xi32>
  return
}

// -----

// In place on the caller's buffer (zero-filled first), and a named elementwise op: fused.
// CHECK-LABEL: func.func @in_place
// CHECK-SAME:    (%{{.*}}: memref<16x64xi8>, %{{.*}}: memref<64x32xi8>, %[[C:.*]]: memref<16x32xi32>)
// CHECK-NOT:     linalg.fill
// CHECK:         tisa.compute {{.*}} -> %[[C]] {overwrite}
// CHECK:         } epilogue {
// CHECK:           arith.maxsi
// CHECK-NOT:     linalg.generic
// CHECK:         return
func.func @in_place(%a: memref<16x64xi8>, %b: memref<64x32xi8>, %c: memref<16x32xi32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%c : memref<16x32xi32>)
  linalg.matmul ins(%a, %b : memref<16x64xi8>, memref<64x32xi8>) outs(%c : memref<16x32xi32>)
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<16x32xi32>) outs(%c : memref<16x32xi32>) {
  ^bb0(%cv: i32, %o: i32):
    %r = arith.maxsi %cv, %zero : i32
    linalg.yield %r : i32
  }
  return
}

// -----

// CHECK-LABEL: func.func @named_add
// CHECK:         tisa.compute {{.*}} epilogue(%{{.*}} : memref<16x32xi32>) {overwrite}
// CHECK:         } epilogue {
// CHECK:           arith.addi
// CHECK-NOT:     linalg.add
// CHECK:         return
func.func @named_add(%a: memref<16x64xi8>, %b: memref<64x32xi8>, %residual: memref<16x32xi32>, %d: memref<16x32xi32>) {
  %c = memref.alloca() : memref<16x32xi32>
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%c : memref<16x32xi32>)
  linalg.matmul ins(%a, %b : memref<16x64xi8>, memref<64x32xi8>) outs(%c : memref<16x32xi32>)
  linalg.add ins(%c, %residual : memref<16x32xi32>, memref<16x32xi32>) outs(%d : memref<16x32xi32>)
  return
}

// -----

// The accumulators start from the caller's C (C += A B, then the consumer): no fresh result, no
// epilogue, and no warning.
// CHECK-LABEL: func.func @accumulating
// CHECK:         tisa.compute {{.*}} : memref<16x64xi8>, memref<2048xi8>, memref<16x32xi32> {
// CHECK-NOT:     epilogue
// CHECK:         linalg.generic
func.func @accumulating(%a: memref<16x64xi8>, %b: memref<64x32xi8>, %c: memref<16x32xi32>, %d: memref<16x32xi32>) {
  linalg.matmul ins(%a, %b : memref<16x64xi8>, memref<64x32xi8>) outs(%c : memref<16x32xi32>)
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<16x32xi32>) outs(%d : memref<16x32xi32>) {
  ^bb0(%cv: i32, %o: i32):
    %r = arith.addi %cv, %cv : i32
    linalg.yield %r : i32
  }
  return
}

// -----

// The accumulators are read again afterwards: they must be stored, not fused.
func.func @read_again(%a: memref<16x64xi8>, %b: memref<64x32xi8>, %d: memref<16x32xi32>, %e: memref<16x32xi32>) {
  %c = memref.alloc() : memref<16x32xi32>
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%c : memref<16x32xi32>)
  // expected-note @below {{the contraction}}
  linalg.matmul ins(%a, %b : memref<16x64xi8>, memref<64x32xi8>) outs(%c : memref<16x32xi32>)
  // expected-warning @below {{the accumulators' buffer is also used by memref.copy}}
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<16x32xi32>) outs(%d : memref<16x32xi32>) {
  ^bb0(%cv: i32, %o: i32):
    %r = arith.maxsi %cv, %zero : i32
    linalg.yield %r : i32
  }
  memref.copy %c, %e : memref<16x32xi32> to memref<16x32xi32>
  memref.dealloc %c : memref<16x32xi32>
  return
}

// -----

// A transposed store (D[n][m] from C[m][n]) is not elementwise in place: not fused.
func.func @transposed(%a: memref<16x64xi8>, %b: memref<64x32xi8>, %d: memref<32x16xi32>) {
  %c = memref.alloc() : memref<16x32xi32>
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%c : memref<16x32xi32>)
  // expected-note @below {{the contraction}}
  linalg.matmul ins(%a, %b : memref<16x64xi8>, memref<64x32xi8>) outs(%c : memref<16x32xi32>)
  // expected-warning @below {{it does not write each accumulator in place of where it reads it}}
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n, m)>], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<16x32xi32>) outs(%d : memref<32x16xi32>) {
  ^bb0(%cv: i32, %o: i32):
    linalg.yield %cv : i32
  }
  memref.dealloc %c : memref<16x32xi32>
  return
}

// -----

// An op between the two writes memory the consumer may read: not fused.
func.func @write_between(%a: memref<16x64xi8>, %b: memref<64x32xi8>, %bias: memref<32xi32>, %d: memref<16x32xi32>) {
  %c = memref.alloc() : memref<16x32xi32>
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%c : memref<16x32xi32>)
  // expected-note @below {{the contraction}}
  linalg.matmul ins(%a, %b : memref<16x64xi8>, memref<64x32xi8>) outs(%c : memref<16x32xi32>)
  linalg.fill ins(%zero : i32) outs(%bias : memref<32xi32>)
  // expected-warning @below {{an op between them (linalg.fill) touches memory}}
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : memref<16x32xi32>, memref<32xi32>) outs(%d : memref<16x32xi32>) {
  ^bb0(%cv: i32, %bv: i32, %o: i32):
    %r = arith.addi %cv, %bv : i32
    linalg.yield %r : i32
  }
  memref.dealloc %c : memref<16x32xi32>
  return
}

// -----

// A body that reads its loop indices cannot run lane by lane as written: not fused.
func.func @index_body(%a: memref<16x64xi8>, %b: memref<64x32xi8>, %d: memref<16x32xi32>) {
  %c = memref.alloc() : memref<16x32xi32>
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%c : memref<16x32xi32>)
  // expected-note @below {{the contraction}}
  linalg.matmul ins(%a, %b : memref<16x64xi8>, memref<64x32xi8>) outs(%c : memref<16x32xi32>)
  // expected-warning @below {{its body uses linalg.index (only arith and math ops are applied in registers)}}
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<16x32xi32>) outs(%d : memref<16x32xi32>) {
  ^bb0(%cv: i32, %o: i32):
    %i = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i32
    %r = arith.addi %cv, %ii : i32
    linalg.yield %r : i32
  }
  memref.dealloc %c : memref<16x32xi32>
  return
}

// -----

// A reduction of the accumulators is no epilogue: left alone, without a warning.
// CHECK-LABEL: func.func @row_sums
// CHECK:         tisa.compute
// CHECK-NOT:     epilogue
// CHECK:         linalg.generic
func.func @row_sums(%a: memref<16x64xi8>, %b: memref<64x32xi8>, %sums: memref<16xi32>) {
  %c = memref.alloc() : memref<16x32xi32>
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%c : memref<16x32xi32>)
  linalg.matmul ins(%a, %b : memref<16x64xi8>, memref<64x32xi8>) outs(%c : memref<16x32xi32>)
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (m)>], iterator_types = ["parallel", "reduction"]}
      ins(%c : memref<16x32xi32>) outs(%sums : memref<16xi32>) {
  ^bb0(%cv: i32, %o: i32):
    %r = arith.addi %cv, %o : i32
    linalg.yield %r : i32
  }
  memref.dealloc %c : memref<16x32xi32>
  return
}

// -----

// A named elementwise op that is refused after its generic form was made: the warning goes to that
// form (the named op is gone).
func.func @named_refused(%a: memref<16x64xi8>, %b: memref<64x32xi8>, %d: memref<32x16xi32>) {
  %c = memref.alloc() : memref<16x32xi32>
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%c : memref<16x32xi32>)
  // expected-note @below {{the contraction}}
  linalg.matmul ins(%a, %b : memref<16x64xi8>, memref<64x32xi8>) outs(%c : memref<16x32xi32>)
  // expected-warning @below {{it does not write each accumulator in place of where it reads it}}
  linalg.transpose ins(%c : memref<16x32xi32>) outs(%d : memref<32x16xi32>) permutation = [1, 0]
  memref.dealloc %c : memref<16x32xi32>
  return
}

// -----

// The output is the contraction's own input (A updated in place): results would be stored into
// rows the computation still reads.
func.func @output_is_input(%a: memref<16x16xi32>, %b: memref<16x16xi8>, %a8: memref<16x16xi8>) {
  %c = memref.alloc() : memref<16x16xi32>
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%c : memref<16x16xi32>)
  // expected-note @below {{the contraction}}
  linalg.matmul ins(%a8, %b : memref<16x16xi8>, memref<16x16xi8>) outs(%c : memref<16x16xi32>)
  // expected-warning @below {{its output is an operand of the contraction, which still reads it while results are stored}}
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<16x16xi32>) outs(%a8 : memref<16x16xi8>) {
  ^bb0(%cv: i32, %o: i8):
    %t = arith.trunci %cv : i32 to i8
    linalg.yield %t : i8
  }
  memref.dealloc %c : memref<16x16xi32>
  return
}

// -----

// In place, the body reads the output's old value, which the accumulators replace.
func.func @reads_old_output(%a: memref<16x64xi8>, %b: memref<64x32xi8>, %c: memref<16x32xi32>, %bias: memref<32xi32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%c : memref<16x32xi32>)
  // expected-note @below {{the contraction}}
  linalg.matmul ins(%a, %b : memref<16x64xi8>, memref<64x32xi8>) outs(%c : memref<16x32xi32>)
  // expected-warning @below {{in place, its body reads the output's old value, which the accumulators replace}}
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : memref<16x32xi32>, memref<32xi32>) outs(%c : memref<16x32xi32>) {
  ^bb0(%cv: i32, %bv: i32, %o: i32):
    %s = arith.addi %o, %bv : i32
    linalg.yield %s : i32
  }
  return
}

// -----

// Integer division: lanes past a row's end would divide by zero.
func.func @divides(%a: memref<16x64xi8>, %b: memref<64x32xi8>, %q: memref<32xi32>, %d: memref<16x32xi32>) {
  %c = memref.alloc() : memref<16x32xi32>
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%c : memref<16x32xi32>)
  // expected-note @below {{the contraction}}
  linalg.matmul ins(%a, %b : memref<16x64xi8>, memref<64x32xi8>) outs(%c : memref<16x32xi32>)
  // expected-warning @below {{its body divides integers (arith.divsi), which masked-off lanes would do by zero}}
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%c, %q : memref<16x32xi32>, memref<32xi32>) outs(%d : memref<16x32xi32>) {
  ^bb0(%cv: i32, %qv: i32, %o: i32):
    %s = arith.divsi %cv, %qv : i32
    linalg.yield %s : i32
  }
  memref.dealloc %c : memref<16x32xi32>
  return
}
