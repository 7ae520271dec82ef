// RUN: not tisa isa verify %s 2>&1 | FileCheck %s -DFILE=%s
// A syntax error names the file, line and column, and the file fails.

// CHECK: [[FILE]]:6:36: error: expected ':'
// CHECK: FAIL [[FILE]]: the file does not load
func.func @d(%a: tensor<4x4xi8>, %b tensor<4x4xi8>) {
  return
}
