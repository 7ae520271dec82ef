// Static GEMMs run in blocks that tisa.loop_blocks gives (pairs of a loop and a block size):
// -tisa-split-dynamic splits m into rows (full blocks, then the remainder's binary digits), n and
// k into whole blocks (the last zero-padded), each block of n and k with its own part of the
// packed buffer. s8 x s8: the +128 bias and the compensation sums, per block.
func.func @blocks(%a: memref<37x70xi8>, %b: memref<70x40xi8>, %c: memref<37x40xi32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%c : memref<37x40xi32>)
  linalg.matmul {tisa.loop_blocks = array<i64: 0, 5, 1, 24, 2, 12>}
      ins(%a, %b : memref<37x70xi8>, memref<70x40xi8>) outs(%c : memref<37x40xi32>)
  return
}

func.func @blocks_nk(%a: memref<37x70xi8>, %b: memref<70x40xi8>, %c: memref<37x40xi32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%c : memref<37x40xi32>)
  linalg.matmul {tisa.loop_blocks = array<i64: 1, 16, 2, 32>}
      ins(%a, %b : memref<37x70xi8>, memref<70x40xi8>) outs(%c : memref<37x40xi32>)
  return
}

// Blocks of m that are not powers of two, whose remainders (1, 1 and 2 rows) are no digit of
// half the block: they were never computed, or computed as 9 or 3 rows past C's end.
func.func @blocks_m36(%a: memref<37x70xi8>, %b: memref<70x40xi8>, %c: memref<37x40xi32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%c : memref<37x40xi32>)
  linalg.matmul {tisa.loop_blocks = array<i64: 0, 36>}
      ins(%a, %b : memref<37x70xi8>, memref<70x40xi8>) outs(%c : memref<37x40xi32>)
  return
}

func.func @blocks_m6(%a: memref<37x70xi8>, %b: memref<70x40xi8>, %c: memref<37x40xi32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%c : memref<37x40xi32>)
  linalg.matmul {tisa.loop_blocks = array<i64: 0, 6>}
      ins(%a, %b : memref<37x70xi8>, memref<70x40xi8>) outs(%c : memref<37x40xi32>)
  return
}

func.func @blocks_m7(%a: memref<37x70xi8>, %b: memref<70x40xi8>, %c: memref<37x40xi32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%c : memref<37x40xi32>)
  linalg.matmul {tisa.loop_blocks = array<i64: 0, 7>}
      ins(%a, %b : memref<37x70xi8>, memref<70x40xi8>) outs(%c : memref<37x40xi32>)
  return
}
